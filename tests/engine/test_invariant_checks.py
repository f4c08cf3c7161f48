"""The engine's invariant checks always run: ``python -O`` strips ``assert`` statements, so the
engine has none, and a corrupt saved state is refused under ``-O`` too. Each says what is wrong
in words, not the condition's source."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "games" / "engine"

CORRUPT_UNDER_O = """
import sys
from games.engine import CorruptState, get_game
assert sys.flags.optimize, "run with python -O"
game = get_game("dice_cup")
data = game.new_match(seed=3).to_json()
data["state"]["dice"] = [7, 7, 7]  # DC-2: dice show 1..6; only the invariant check knows
try:
    game.from_json(data)
except CorruptState as exc:
    print("refused:", exc)
else:
    print("loaded a corrupt state")
"""


def test_the_engine_has_no_assert_statements() -> None:
    found = [f"{path.name}:{node.lineno}" for path in sorted(ENGINE.glob("*.py"))
             for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.Assert)]
    assert found == [], "use `if not ...: raise CorruptState(...)`, which -O keeps"


def test_a_corrupt_state_is_refused_under_python_O() -> None:
    ran = subprocess.run([sys.executable, "-O", "-c", CORRUPT_UNDER_O],
                         cwd=ENGINE.parents[1], capture_output=True, text=True, timeout=120,
                         check=False)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("refused:"), ran.stdout


def test_invariant_messages_say_what_is_wrong_not_the_conditions_source() -> None:
    source_like = re.compile(r"\bself\.|==|!=|<=|>=|\bis None\b")
    found = [f"{path.name}:{node.lineno}: {node.exc.args[0].value}"
             for path in sorted(ENGINE.glob("*.py"))
             for node in ast.walk(ast.parse(path.read_text()))
             if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)
             and getattr(node.exc.func, "id", None) == "CorruptState" and node.exc.args
             and isinstance(node.exc.args[0], ast.Constant)
             and source_like.search(str(node.exc.args[0].value))]
    assert found == []
