"""Migration 0013: tournament matches recorded before the one forfeit rule get it: the seats
that forfeited at the strike limit are listed in ``forfeited`` and rank last (no winner when
every seat did), and the leaderboard no longer rates those matches."""

from __future__ import annotations

import pytest

from ..migrations import migrate, migrate_to_latest

BEFORE = [("tournaments", "0012_dates_in_range")]
AFTER = [("tournaments", "0013_forfeits_recorded")]

pytestmark = pytest.mark.django_db(transaction=True)


def test_rows_recorded_before_the_rule_get_it_and_the_board_is_made_again(alice) -> None:
    apps = migrate(BEFORE)
    try:
        Tournament = apps.get_model("tournaments", "Tournament")
        TournamentMatch = apps.get_model("tournaments", "TournamentMatch")
        Participant = apps.get_model("tournaments", "Participant")
        Match = apps.get_model("games", "Match")
        Seat = apps.get_model("games", "Seat")
        tournament = Tournament.objects.create(
            name="t", game="dice_cup", organiser_id=alice.pk, seed=1, table_size=2,
            meetings=1, strike_limit=1, move_time_limit=60, status="finished")
        for index, bot in enumerate(["heuristic", "random", "random"]):
            Participant.objects.create(tournament=tournament, index=index, kind="reference",
                                       bot=bot, name=f"{bot}{index}")

        def played(number: int, seats: list[int], ranks: list[int], out: list[int]) -> int:
            match = Match.objects.create(game="dice_cup", seed=number, players=2,
                                         status="finished", options={}, state={},
                                         result={"ranks": ranks, "scores": [0, 0]})
            for seat in range(2):
                Seat.objects.create(match=match, number=seat, kind="reference",
                                    forfeited=seat in out)
            return TournamentMatch.objects.create(
                tournament=tournament, number=number, round=0, deal=number, seed=number,
                seats=seats, status="finished", match=match, ranks=ranks, scores=[0, 0],
                forfeited=[]).pk

        one_out = played(0, [0, 1], [1, 2], out=[0])  # the forfeiter was ranked first
        both_out = played(1, [1, 2], [1, 2], out=[0, 1])
        clean = played(2, [0, 2], [2, 1], out=[])

        apps = migrate(AFTER)
        TournamentMatch = apps.get_model("tournaments", "TournamentMatch")
        row = TournamentMatch.objects.get(pk=one_out)
        assert row.forfeited == [0] and row.ranks == [2, 1]
        row = TournamentMatch.objects.get(pk=both_out)
        assert row.forfeited == [1, 2] and row.ranks == [2, 2], "no winner"
        row = TournamentMatch.objects.get(pk=clean)
        assert row.forfeited == [] and row.ranks == [2, 1]
        Entry = apps.get_model("tournaments", "LeaderboardEntry")
        assert sorted(Entry.objects.values_list("ref", "matches")) == [
            ("heuristic", 1), ("random", 1)], "only the match without a forfeit is rated"
    finally:
        migrate_to_latest()
