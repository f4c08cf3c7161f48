"""The rules engine stays pure Python: nothing under games/engine imports Django & co; nor does
the training kit on top of it (games/envs), which offline users run without the platform."""

import pathlib
import subprocess
import sys

from tests.purity import FORBIDDEN, forbidden_imports

ENGINE = pathlib.Path(__file__).resolve().parents[2] / "games" / "engine"
ENVS = ENGINE.parent / "envs"


def test_no_engine_module_imports_a_web_framework() -> None:
    offenders = [f"{p.name}: {name}" for folder in (ENGINE, ENVS) for p in folder.rglob("*.py")
                 for name in forbidden_imports(p)]
    assert offenders == []


def test_importing_every_game_loads_no_django() -> None:
    code = (
        "import sys\n"
        "from games.engine import game_ids, get_game\n"
        "for g in game_ids(): get_game(g).new_match(seed=1)\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ENGINE.parents[1])


def test_importing_the_training_environments_loads_no_django() -> None:
    code = (
        "import sys\n"
        "from games.envs import env\n"
        "from games.engine import game_ids\n"
        "for g in game_ids(): env(g).reset(seed=1)\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ENGINE.parents[1])
