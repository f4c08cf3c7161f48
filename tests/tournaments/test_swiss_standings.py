"""Swiss standings, pure (no database): total points with byes as wins, then FIDE's
Buchholz Cut-1, Buchholz and direct encounter (docs/tournaments.md, Standings)."""

from __future__ import annotations

from tournaments.formats.swiss import byes
from tournaments.scoring.standings import MatchResult, standings


def won(winner: int, loser: int) -> MatchResult:
    return MatchResult((winner, loser), (1, 2), (1.0, 0.0))


def drawn(a: int, b: int) -> MatchResult:
    return MatchResult((a, b), (1, 1), (0.0, 0.0))


def test_a_swiss_ranks_by_total_then_buchholz_cut_1_then_buchholz() -> None:
    """Five entrants, three rounds: 0 beats 1 and 2 and draws 4; 4 has a bye, beats 1, draws
    0; 2 beats 3 and has a bye; 3 has a bye and beats 1; 1 has a bye and loses the rest."""
    rounds = [[won(0, 1), won(2, 3)], [won(0, 2), won(4, 1)], [drawn(0, 4), won(3, 1)]]
    had = byes([{p for r in results for p in r.seats} for results in rounds], 5)
    assert had == [0, 0, 1, 1, 1]
    rows = standings([r for results in rounds for r in results], 5, byes=had)
    table = {row.participant: (row.total, row.buchholz_cut1, row.buchholz) for row in rows}
    assert table[0] == (2.5, 4.5, 4.5), "opponents 1 (0), 2 (2) and 4 (2.5)"
    assert table[4] == (2.5, 2.5, 2.5), "a bye (0), 1 (0) and 0 (2.5)"
    assert table[2] == (2.0, 4.5, 4.5) and table[3] == (2.0, 2.0, 2.0)
    assert [row.participant for row in rows] == [0, 4, 2, 3, 1]
    assert rows[0].points == 2.5 / 3, "points stay the mean a match"


def test_a_swiss_tie_on_both_buchholz_goes_to_the_direct_encounter() -> None:
    """2 and 1 both make 1.5 against the same field (Buchholz 4.5, Cut-1 3.5); 2 beat 1."""
    results = [won(2, 1), drawn(0, 2), won(3, 2), won(1, 3), drawn(0, 1), won(0, 3)]
    rows = standings(results, 4, byes=[0, 0, 0, 0])
    assert [(r.participant, r.total, r.buchholz_cut1, r.buchholz) for r in rows[1:3]] == [
        (2, 1.5, 3.5, 4.5), (1, 1.5, 3.5, 4.5)]
    assert (rows[1].head_to_head, rows[2].head_to_head) == (1, -1)


def test_other_formats_have_no_swiss_figures() -> None:
    [row, _] = standings([won(0, 1)], 2)
    assert (row.total, row.buchholz, row.buchholz_cut1) == (None, None, None)


def test_a_round_a_withdrawn_entrant_missed_after_it_left_is_no_bye() -> None:
    """Five entrants: 4 sits out round 1 (a bye); 2 withdraws after it and is not in round 2
    (it had left)."""
    assert byes([{0, 1, 2, 3}, {0, 1, 3, 4}], 5, withdrawn={2}) == [0, 0, 0, 0, 1]
