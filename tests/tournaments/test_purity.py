"""The tournament algorithms stay pure Python, like the engine: no Django & co. imported.

Only the modules import-linter's contract lists (pyproject.toml) make that promise; the app's
Django side (apps.py, models, runner, tasks, API) lives beside them and calls them. And no module of
the app names a game: what differs between games the game declares.
"""

import ast
import pathlib
import subprocess
import sys
import tomllib
from collections.abc import Iterator

import pytest

from games.engine import game_ids
from tests.purity import FORBIDDEN, forbidden_imports

TOURNAMENTS = pathlib.Path(__file__).resolve().parents[2] / "tournaments"


def _pure_modules() -> tuple[str, ...]:
    """The modules import-linter's contract names pure (pyproject.toml), formats one by one."""
    config = tomllib.loads((TOURNAMENTS.parent / "pyproject.toml").read_text())
    [contract] = [c for c in config["tool"]["importlinter"]["contracts"]
                  if "tournaments.formats" in c.get("source_modules", ())
                  and "django" in c.get("forbidden_modules", ())]
    named = [m.removeprefix("tournaments.") for m in contract["source_modules"]]
    return (*(m for m in named if m != "formats"),
            *sorted(f"formats.{path.stem}" for path in (TOURNAMENTS / "formats").glob("*.py")))


PURE_MODULES = _pure_modules()


@pytest.mark.parametrize("module", PURE_MODULES)
def test_no_algorithm_module_imports_a_web_framework(module: str) -> None:
    path = TOURNAMENTS.joinpath(*module.split("."))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    assert forbidden_imports(path) == []


def test_importing_the_algorithms_loads_no_django() -> None:
    code = (
        "import sys\n"
        f"for module in {PURE_MODULES!r}: __import__('tournaments.' + module)\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=TOURNAMENTS.parent)


# ---- game semantics belong to the game -------------------------------------------------------

#: Calls and keywords whose strings only document (an OpenAPI example, a help text).
DOCUMENTING_CALLS = {"OpenApiExample"}
DOCUMENTING_KEYWORDS = {"help_text", "description", "summary", "verbose_name"}


def _logic_strings(tree: ast.AST) -> Iterator[ast.Constant]:
    """The string constants of a module that its code could branch on: not docstrings, not
    the strings of documenting calls and keywords."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)):
            skip.add(id(body[0].value))
        documenting = []
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            if name in DOCUMENTING_CALLS:
                documenting.append(node)
            documenting += [kw.value for kw in node.keywords if kw.arg in DOCUMENTING_KEYWORDS]
        for part in documenting:
            skip.update(id(inner) for inner in ast.walk(part))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            yield node


def test_no_tournaments_module_names_a_game() -> None:
    """Whether lower scores win, whether the order carries over and what a series passes from
    one match to the next are the game's to say (``games.engine.base.Game``): ``tournaments/``
    branches on no game id and imports no game's module (issue 20)."""
    games = set(game_ids())
    found = []
    for path in sorted(TOURNAMENTS.rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        where = path.relative_to(TOURNAMENTS.parent)
        found += [f"{where}:{node.lineno}: {node.value!r}" for node in _logic_strings(tree)
                  if node.value in games]
        found += [f"{where}:{node.lineno}: imports {node.module}"
                  for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                  and node.module and node.module.split(".")[-1] in games]
    assert found == []


def test_the_game_id_scan_finds_a_game_named_in_code() -> None:
    code = ('"""great_dalmuti in a docstring"""\n'
            'EXAMPLE = OpenApiExample("x", value={"game": "dice_cup"})\n'
            'field = Field(help_text="dutch")\n'
            'if game == "dtc":\n    pass\n')
    assert [node.value for node in _logic_strings(ast.parse(code))
            if node.value in game_ids()] == ["dtc"]
