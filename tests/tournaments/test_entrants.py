"""tournaments.entrants: an entrant's kind is one of the seat-kind registry's, not a fixed three."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from games.seats import SeatKind, register_seat_kind, unregister_seat_kind
from tournaments.apis.common import TournamentParticipantSpecSerializer
from tournaments.apis.leagues import LeagueMemberSerializer
from tournaments.entrants import entrant_fields, entrant_kinds
from tournaments.management.commands.run_tournament import parse_participants


@pytest.fixture
def house_bots() -> Iterator[list[str]]:
    """A kind an app registers, whose bots are named by the house's list."""
    names = ["croupier"]

    def check_bot(game: str, bot: str, user: object) -> None:
        if bot not in names:
            raise ValueError(f"no house bot {bot!r}")

    register_seat_kind(SeatKind(name="house", check_bot=check_bot, label="house bot"))
    yield names
    unregister_seat_kind("house")


def test_the_built_in_kinds_are_the_registry_s() -> None:
    assert entrant_kinds() == [("player", "polling player"), ("reference", "reference bot"),
                               ("webhook", "webhook bot")]


@pytest.mark.django_db
def test_a_registered_kind_enters_and_checks_its_bot(house_bots, alice) -> None:
    assert ("house", "house bot") in entrant_kinds()
    fields = entrant_fields("dice_cup", {"kind": "house", "bot": "croupier"}, alice)
    assert fields == {"kind": "house", "bot": "croupier", "user": None,
                      "name": "house croupier"}
    with pytest.raises(ValueError, match="no house bot 'dealer'"):
        entrant_fields("dice_cup", {"kind": "house", "bot": "dealer"}, alice)
    assert TournamentParticipantSpecSerializer(data={"kind": "house", "bot": "croupier"}
                                               ).is_valid()
    assert "house" in LeagueMemberSerializer().fields["kind"].choices
    assert parse_participants("house:croupier,player:alice") == [
        {"kind": "house", "bot": "croupier"}, {"kind": "player", "user": "alice"}]


@pytest.mark.django_db
def test_an_unregistered_kind_or_one_that_names_no_bot_is_refused(alice) -> None:
    with pytest.raises(ValueError, match=r"unknown entrant kind 'house' \(known: player, "
                                         r"reference, webhook\)"):
        entrant_fields("dice_cup", {"kind": "house", "bot": "croupier"}, alice)
    assert not TournamentParticipantSpecSerializer(data={"kind": "house"}).is_valid()
    register_seat_kind(SeatKind(name="silent"))  # automatic or not, it names no bot
    try:
        assert "silent" not in dict(entrant_kinds())
        with pytest.raises(ValueError, match="unknown entrant kind 'silent'"):
            entrant_fields("dice_cup", {"kind": "silent"}, alice)
    finally:
        unregister_seat_kind("silent")
