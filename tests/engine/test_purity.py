"""The rules engine stays pure Python: nothing under games/engine imports Django & co."""

import ast
import pathlib
import subprocess
import sys

ENGINE = pathlib.Path(__file__).resolve().parents[2] / "games" / "engine"
FORBIDDEN = ("django", "rest_framework", "celery", "drf_spectacular", "kombu")


def test_no_engine_module_imports_a_web_framework() -> None:
    offenders = []
    for path in ENGINE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in FORBIDDEN]
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
