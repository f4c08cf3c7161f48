"""The error body's documented codes (lib.api): every code a service can raise is in the schema."""

from __future__ import annotations

import bots.errors
import tournaments.errors
from bots.apis import BOT_ERROR_CODES
from games.errors import DomainError
from lib.api import ERROR_CODES


def _codes(cls: type[DomainError]) -> set[str]:
    """The codes of ``cls``'s subclasses, at any depth."""
    return {code for sub in cls.__subclasses__() for code in {sub.code, *_codes(sub)}}


def test_every_domain_error_code_is_documented() -> None:
    assert bots.errors and tournaments.errors  # imported: their errors are DomainError's too
    raised = _codes(DomainError)
    assert {"match_not_found", "bot_not_found", "tournament_not_found"} <= raised
    assert raised - set(ERROR_CODES) - set(BOT_ERROR_CODES) == set()


def test_the_codes_are_listed_once() -> None:
    assert len(ERROR_CODES) == len(set(ERROR_CODES))
