"""The ``requires(tool, ...)`` marker (tests/conftest.py): a missing program skips the test,
saying which and its Debian package, and under BLUFF_REQUIRE_SERVICES=1 (CI) fails it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests import conftest

MISSING = "bluff-no-such-tool"


def _item(*tools: str) -> SimpleNamespace:
    marker = pytest.mark.requires(*tools).mark
    return SimpleNamespace(iter_markers=lambda: iter([marker]))


def test_a_program_is_found_on_path_or_among_postgresqls() -> None:
    assert conftest.find_tool("sh") is not None
    assert conftest.find_tool(MISSING) is None


def test_a_missing_program_skips_with_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conftest, "REQUIRE_SERVICES", False)
    conftest.pytest_runtest_setup(_item("sh"))  # present: runs
    with pytest.raises(pytest.skip.Exception, match=f"needs {MISSING} \\(apt-get install"):
        conftest.pytest_runtest_setup(_item("sh", MISSING))


def test_the_ci_switch_turns_the_skip_into_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conftest, "REQUIRE_SERVICES", True)
    with pytest.raises(pytest.fail.Exception, match="BLUFF_REQUIRE_SERVICES is set"):
        conftest.pytest_runtest_setup(_item(MISSING))
