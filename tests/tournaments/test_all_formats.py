"""Every registered series format played to the end by an in-memory runner, with reference
bots' real results (OpenSpiel's simulation test, for formats): each planned key is played
exactly once, the series ends, and the same seed gives the same series. No database."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from games.engine import get_game
from games.engine.rng import secret_from_seed
from tournaments.formats import Format, Outcome, PlannedMatch, SeriesState, format_names, get_format
from tournaments.formats.swiss import Swiss

BOTS = ("heuristic", "random")
#: The series' clock: each ask of the in-memory runner is a minute after the last.
START = datetime(2026, 12, 5, 18, tzinfo=UTC)

#: One series of each registered format: (game, the format built from a seed).
SERIES: dict[str, tuple[str, Callable[[int], Format]]] = {
    "round_robin": ("dot", lambda seed: get_format(
        "round_robin", participants=5, meetings=2, secret=secret_from_seed(seed),
        duplicate=True)),
    "tables": ("dtc", lambda seed: get_format(
        "tables", participants=7, seats=3, rounds=3, seed=seed,
        secret=secret_from_seed(seed), duplicate=True)),
    "swiss": ("dot", lambda seed: get_format("swiss", participants=7, rounds=4,
                                                     secret=secret_from_seed(seed))),
    "continuous": ("dice_cup", lambda seed: get_format(
        "continuous", participants=5, in_flight=2, secret=secret_from_seed(seed),
        ends_at=START + timedelta(minutes=10))),
    "benchmark": ("dice_cup", lambda seed: get_format(
        "benchmark", participants=5, seats=3, secret=secret_from_seed(seed), meetings=2)),
    "league_night": ("great_dalmuti", lambda seed: get_format(
        "league_night", game="great_dalmuti", tables=[[3, 1, 4, 0, 2], [5, 9, 6, 8]],
        hands=3, secret=secret_from_seed(seed), first_of_season=True)),
}


def play(game: str, match: PlannedMatch, forfeiting: Collection[int] = ()) -> dict[str, Any]:
    """The engine's result of one planned match between reference bots; entrants in
    ``match.forfeited`` start forfeited, those in ``forfeiting`` forfeit at once."""
    engine = get_game(game)
    state = engine.new_match(players=len(match.seats), seed=match.seed,
                             options=dict(match.options))
    bots = [engine.make_bot(BOTS[e % 2], seat, match.seed) for seat, e in enumerate(match.seats)]
    for seat, entrant in enumerate(match.seats):
        if entrant in match.forfeited or entrant in forfeiting:
            state.forfeit(seat)
    while not state.is_over:
        seat = state.to_act()[0]
        action = (state.default_action(seat) if seat in state.forfeited
                  else bots[seat].choose(state.view(seat), state.legal_actions(seat)))
        state.apply(seat, action)
    return state.result()


def run(game: str, series: Format, *, forfeiting: Collection[int] = ()
        ) -> tuple[dict[str, Outcome], list[list[str]], Counter]:
    """Ask as the runner asks (``Format.next``, a minute later each time), play what is
    planned, feed the outcomes back, until the series says it is over: (the outcomes, the keys
    each ask returned, how often each key was played)."""
    outcomes: dict[str, Outcome] = {}
    asks: list[list[str]] = []
    played: Counter = Counter()
    while not (plan := series.next(over_at(outcomes, len(asks)))).over:
        asks.append([m.key for m in plan.start])
        for match in plan.start:
            played[match.key] += 1
            result = play(game, match, forfeiting)
            out = {e for e in match.seats if e in match.forfeited or e in forfeiting}
            outcomes[match.key] = series.score(match, result, forfeited=out)
        assert len(asks) < 1000, "the series never ends"
    return outcomes, asks, played


def over_at(outcomes: dict[str, Outcome], asks: int) -> SeriesState:
    """What the runner shows a format after ``asks`` asks, everything planned played."""
    return SeriesState(now=START + timedelta(minutes=asks), finished=len(outcomes), open=0,
                       outcomes=lambda: outcomes)


#: Formats that are never over, so this runner cannot play one to its end: where they are
#: played instead.
ALWAYS_ON = {"ladder": "tests/tournaments/test_ladder.py, through the runner"}


def test_every_registered_format_is_played_here() -> None:
    assert sorted([*SERIES, *ALWAYS_ON]) == format_names()


@pytest.mark.parametrize("name", sorted(SERIES))
def test_a_format_plays_each_key_once_ends_and_replays_from_its_seed(name: str) -> None:
    game, build = SERIES[name]
    outcomes, asks, played = run(game, build(7))
    assert outcomes and set(played.values()) == {1}, "each planned key played exactly once"
    assert not build(7).next(over_at(outcomes, len(asks))).start, "nothing left once over"
    again, asks_again, _ = run(game, build(7))
    assert again == outcomes and asks_again == asks, "same seed, same series"
    other, _, _ = run(game, build(8))
    assert [o.scores for o in other.values()] != [o.scores for o in outcomes.values()]


@pytest.mark.parametrize("name", sorted(SERIES))
def test_forfeiters_rank_last_never_first_in_every_format(name: str) -> None:
    game, build = SERIES[name]
    outcomes, _, _ = run(game, build(3), forfeiting={1, 5})
    assert outcomes
    for outcome in outcomes.values():
        n = len(outcome.seats)
        for seat, entrant in enumerate(outcome.seats):
            if entrant in (1, 5):
                assert entrant in outcome.forfeited and outcome.places[seat] == n


def test_a_table_whose_every_seat_forfeits_ranks_them_all_last() -> None:
    series = get_format("league_night", game="dice_cup", tables=[[0, 1, 2]], hands=2,
                        secret=secret_from_seed(1))
    outcomes, _, _ = run("dice_cup", series, forfeiting={0, 1, 2})
    for outcome in outcomes.values():
        assert outcome.places == (3, 3, 3) and outcome.points == (0, 0, 0)
    swiss = get_format("swiss", participants=2, rounds=1, secret=secret_from_seed(1))
    [match] = swiss.plan({})
    assert swiss.score(match, {"ranks": [2, 1], "scores": [0, 1]}, {0, 1}).places == (2, 2)


def test_a_league_night_plans_a_tables_next_hand_after_its_last_one() -> None:
    game, build = SERIES["league_night"]
    _, asks, _ = run(game, build(5))
    assert asks == [["0:1", "1:1"], ["0:2", "1:2"], ["0:3", "1:3"]]


def test_a_league_night_keeps_a_member_who_forfeited_seated_for_the_runner_to_forfeit(
        ) -> None:
    """Withdrawal is the runner's rule (``runner.withdrawal.withdraw_forfeiters``: its last
    ``SERIES_FORFEITS_TO_WITHDRAW`` in a row); a league night plays every hand
    (``plays_withdrawn``), so whoever is out stays seated and the runner seats it forfeited
    (``tests/tournaments/test_leagues.py`` plays it through the runner)."""
    series = get_format("league_night", game="dice_cup", tables=[[0, 1, 2, 3]], hands=3,
                        secret=secret_from_seed(2))
    [first] = series.plan({})
    outcome = series.score(first, play("dice_cup", first, {2}), forfeited={2})
    assert outcome.forfeited == {2} and outcome.places[first.seats.index(2)] == 4
    [second] = series.plan({first.key: outcome})
    assert 2 in second.seats and second.number == 2 and series.plays_withdrawn


# --------------------------------------------------------------------------------------------
# Swiss
# --------------------------------------------------------------------------------------------


def test_swiss_plans_a_round_when_the_last_is_done_and_avoids_rematches() -> None:
    series = Swiss(participants=8, rounds=5, secret=secret_from_seed(4))
    outcomes, asks, _ = run("dot", series)
    assert [len(keys) for keys in asks] == [4] * 5
    pairs = [frozenset(o.seats) for o in outcomes.values()]
    assert len(set(pairs)) == len(pairs), "no rematch while one is avoidable"
    firsts = Counter(o.seats[0] for o in outcomes.values())
    assert max(firsts.values()) - min(firsts.values()) <= 1 + 1, "seats alternate"


def test_swiss_gives_the_bye_to_the_lowest_ranked_without_one() -> None:
    series = Swiss(participants=5, rounds=5, secret=secret_from_seed(9))
    outcomes, asks, _ = run("dot", series)
    sitting_out = []
    for keys in asks:
        seated = {e for key in keys for e in outcomes[key].seats}
        [bye] = set(range(5)) - seated
        sitting_out.append(bye)
    assert len(set(sitting_out)) == 5, "nobody gets a second bye while another has none"
    assert [len(keys) for keys in asks] == [2] * 5


def test_swiss_round_one_pairs_by_score() -> None:
    series = Swiss(participants=4, rounds=2, secret=secret_from_seed(1))
    first = series.plan({})
    assert [m.seats for m in first] == [(0, 1), (2, 3)]
    ranks = {"0": [1, 2], "1": [2, 1]}  # 0 wins from the first seat, 3 from the second
    won = {m.key: series.score(m, {"ranks": ranks[m.key], "scores": [1, 0]}) for m in first}
    second = series.plan(won)
    assert sorted(frozenset(m.seats) for m in second) == sorted(
        [frozenset({0, 3}), frozenset({1, 2})], key=sorted), "winners meet, losers meet"


def test_swiss_refuses_more_rounds_than_opponents() -> None:
    with pytest.raises(ValueError, match="Swiss rounds"):
        Swiss(participants=4, rounds=4, secret=secret_from_seed(0))
