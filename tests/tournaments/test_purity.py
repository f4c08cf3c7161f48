"""The tournament algorithms stay pure Python, like the engine: no Django & co. imported.

Only the listed modules make that promise; the app's Django side (apps.py, models, tasks, API)
lives beside them and calls them.
"""

import ast
import pathlib
import subprocess
import sys

import pytest

TOURNAMENTS = pathlib.Path(__file__).resolve().parents[2] / "tournaments"
PURE_MODULES = ("scheduling", "standings", "ratings", "confidence")
FORBIDDEN = ("django", "rest_framework", "celery", "drf_spectacular", "kombu")


@pytest.mark.parametrize("module", PURE_MODULES)
def test_no_algorithm_module_imports_a_web_framework(module: str) -> None:
    path = TOURNAMENTS / f"{module}.py"
    offenders = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        offenders += [n for n in names if n.split(".")[0] in FORBIDDEN]
    assert offenders == []


def test_importing_the_algorithms_loads_no_django() -> None:
    code = (
        "import sys\n"
        f"for module in {PURE_MODULES!r}: __import__('tournaments.' + module)\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=TOURNAMENTS.parent)
