"""The tournament algorithms stay pure Python, like the engine: no Django & co. imported.

Only the listed modules and the whole ``formats`` package make that promise; the app's Django
side (apps.py, models, series, tasks, API) lives beside them and calls them.
"""

import pathlib
import subprocess
import sys

import pytest

from tests.purity import FORBIDDEN, forbidden_imports

TOURNAMENTS = pathlib.Path(__file__).resolve().parents[2] / "tournaments"
PURE_MODULES = ("scheduling", "designs", "groupings", "seating", "standings", "ratings",
                "confidence", "league_rules",
                *sorted(f"formats.{path.stem}" for path in (TOURNAMENTS / "formats").glob("*.py")))


@pytest.mark.parametrize("module", PURE_MODULES)
def test_no_algorithm_module_imports_a_web_framework(module: str) -> None:
    path = TOURNAMENTS.joinpath(*module.split("."))
    assert forbidden_imports(path.with_suffix(".py")) == []


def test_importing_the_algorithms_loads_no_django() -> None:
    code = (
        "import sys\n"
        f"for module in {PURE_MODULES!r}: __import__('tournaments.' + module)\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=TOURNAMENTS.parent)
