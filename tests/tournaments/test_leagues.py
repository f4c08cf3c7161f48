"""League nights through their services, tasks run in-process: Dalmuti social order, taxation
seats and points carried hand to hand and night to night, joiners in the middle (GD-12),
promotion and relegation across tables, scheduling with a frozen clock (daylight saving
included), nights that cannot start, a crash in the middle of a night, and how the series
runner plays a night (chunks of hands, batches, two workers on one night)."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from itertools import pairwise
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from games import log
from games.models import Match, MatchLogPage
from tests.helpers.series import LEAGUE
from tests.helpers.tasks import hold_tasks
from tournaments import runner, selectors
from tournaments.errors import BadLeague, NotYourLeague
from tournaments.leagues import nights, rules
from tournaments.leagues import services as leagues
from tournaments.models import Hand, League, Night
from tournaments.runner import kinds, loop

pytestmark = pytest.mark.django_db(transaction=True)


def refs(count: int) -> list[dict[str, Any]]:
    names = ["heuristic", "random"]
    return [{"kind": "reference", "bot": names[i % 2], "name": f"ref{i}"} for i in range(count)]


def make_league(organiser: Any, *, members: int = 5, seed: int = 11, **kwargs: Any) -> League:
    now = timezone.now()
    kwargs.setdefault("game", "great_dalmuti")
    kwargs.setdefault("table_size", 5)
    kwargs.setdefault("hands_per_night", 3)
    return leagues.league_create(
        organiser=organiser, name="Thursday club", members=refs(members),
        season_start=now - timedelta(days=1), season_end=now + timedelta(days=60), seed=seed,
        **kwargs)


def play_night(league: League, organiser: Any) -> Night:
    night = leagues.night_schedule(league_id=league.pk, user=organiser,
                                   starts_at=timezone.now())
    assert nights.nights_start_due() == 1
    night.refresh_from_db()
    return night


def hands_of(night: Night, table: int = 0) -> list[Hand]:
    return list(night.hands.filter(table=table).order_by("number"))


def test_a_dalmuti_league_carries_order_seats_and_points_across_hands_and_nights(
        alice, inline_tasks) -> None:
    league = make_league(alice, options={"philanthropic": False})
    first = play_night(league, alice)
    assert first.status == "finished", first.reason
    hands = hands_of(first)
    assert [h.number for h in hands] == [1, 2, 3] and all(h.status == "finished" for h in hands)
    for before, after in pairwise(hands):
        # GD-2: the order of going out is the next hand's social order, Greater Dalmuti at
        # seat 0; its match starts from that order (GD-12 initial_order) and taxes it (GD-4).
        assert after.seats == before.order_after
        match = Match.objects.get(pk=after.match_id)
        assert match.options["initial_order"] == list(range(5)) and match.options["hands"] == 1
        assert match.series == "league"
        assert match.result["ranks"] == after.finish
        events = [e for entry in log.entries(match.pk) for e in entry.events]
        taxes = [e for e in events if e["type"] == "taxation"]
        if not any(e["type"] == "revolution" for e in events):  # GD-5: no taxation then
            # GD-4: the last out of the previous hand (now at seat 4) pays the first out.
            assert {"from": 4, "to": 0, "count": 2} in taxes[0]["exchanges"]
            assert {"from": 3, "to": 1, "count": 1} in taxes[0]["exchanges"]
    for hand in hands:
        assert sorted(hand.points) == [0, 1, 2, 3, 4], "GD-9: 1 point per player still in"
        assert hand.order_after == sorted(hand.seats,
                                          key=lambda m: hand.finish[hand.seats.index(m)])
    league.refresh_from_db()
    assert league.ordered and league.order == hands[-1].order_after, "one table: no movement"

    second = play_night(league, alice)
    assert second.status == "finished"
    assert second.order_before == league.order and hands_of(second)[0].seats == league.order
    table = selectors.league_table(league_id=league.pk)
    assert sum(row.points for row in table) == 6 * 10 and all(r.hands == 6 for r in table)
    rated = selectors.league_ratings(league_id=league.pk)
    assert set(rated) == set(range(5)) and {r.matches for r in rated.values()} == {0}, (
        "one rating per entrant: a table where one reference bot sits twice is not rated")

    # The league page's charts: season points and place in the order, night by night.
    league.refresh_from_db()
    history = selectors.league_history(league_id=league.pk)
    assert history["nights"] == [1, 2]
    for row in table:
        first_night = sum(h.points[h.seats.index(row.member)] for h in hands)
        assert history["points"][row.member] == [0, first_night, row.points]
    by_place = [sorted(history["positions"], key=lambda m: history["positions"][m][moment])
                for moment in range(3)]
    assert by_place == [first.order_before, second.order_before, league.order]


def test_philanthropic_points_come_from_each_hands_match(alice, inline_tasks) -> None:
    league = make_league(alice, options={"philanthropic": True}, hands_per_night=4)
    night = play_night(league, alice)
    for hand in hands_of(night):
        match = Match.objects.get(pk=hand.match_id)
        assert match.options["philanthropic"] is True
        assert hand.points == match.result["scores"], "GD-9 bonus included by the engine"
        assert sum(hand.points) >= 10
        [out] = [e["out_order"] for entry in log.entries(match.pk)
                 for e in entry.events if e["type"] == "hand_end"]
        assert hand.order_after == [hand.seats[seat] for seat in out], \
            "GD-2: the order of going out, even where the bonus ties the points"


def test_a_hand_is_recorded_from_its_matchs_result_not_from_its_log(alice, inline_tasks) -> None:
    """GD-2, GD-9: the next order of a philanthropic Dalmuti hand is the order of going out
    its match's result carries (the bonus can tie the points); the league reads no log."""
    league = make_league(alice, options={"philanthropic": True}, hands_per_night=1)
    [hand] = hands_of(play_night(league, alice))
    match = Match.objects.get(pk=hand.match_id)
    assert hand.order_after == [hand.seats[seat] for seat in match.result["order"]]
    order = match.result["order"][::-1]  # not what the log says
    Match.objects.filter(pk=match.pk).update(result={**match.result, "order": order})
    MatchLogPage.objects.filter(match_id=match.pk).delete()
    Hand.objects.filter(pk=hand.pk).update(status=Hand.Status.RUNNING)
    assert runner.record(kind=LEAGUE, match_id=match.pk)
    hand.refresh_from_db()
    assert hand.order_after == [hand.seats[seat] for seat in order]
    assert hand.finish == [order.index(seat) + 1 for seat in range(len(order))]


def test_a_member_who_joins_between_nights_enters_as_a_merchant_in_the_middle(
        alice, inline_tasks) -> None:
    league = make_league(alice, members=5, table_size=6)
    play_night(league, alice)
    league.refresh_from_db()
    before = list(league.order)
    joiner = leagues.member_join(league_id=league.pk, user=alice,
                                 spec={"kind": "reference", "bot": "random", "name": "new"})
    second = play_night(league, alice)
    assert second.status == "finished"
    assert second.order_before == [*before[:2], joiner.index, *before[2:]], "GD-12: upper middle"
    assert hands_of(second)[0].seats.index(joiner.index) == 2


def test_a_member_who_leaves_is_removed_before_the_next_night(alice, inline_tasks) -> None:
    league = make_league(alice, members=5, table_size=5)
    play_night(league, alice)
    league.refresh_from_db()
    gone = league.order[0]
    leagues.member_leave(league_id=league.pk, user=alice, index=gone)
    second = play_night(league, alice)
    assert second.status == "finished" and gone not in second.order_before
    assert all(gone not in h.seats for h in hands_of(second))
    first = league.nights.get(number=1)
    assert selectors.league_history(league_id=league.pk)["positions"][gone] == \
        [first.order_before.index(gone) + 1, None, None], "no place once it left"


@pytest.mark.parametrize("members", [5, 4])
def test_a_member_who_leaves_during_a_night_is_removed_between_hands(
        alice, inline_tasks, monkeypatch, members) -> None:
    """Removed from its table before the next hand while the table can still be played
    (5 -> 4 Dalmuti players); at a table that would drop below the game's minimum it stays
    seated, forfeited, for the rest of the night. The leave lands while its first hand is
    played; a batch a hand (``BATCH_SECONDS`` 0), so the next hand is planned after it, from
    the members as they are then."""
    monkeypatch.setattr(loop, "BATCH_SECONDS", 0)
    league = make_league(alice, members=members, table_size=5, hands_per_night=3)
    real = kinds.matches_play
    calls: list[int] = []

    def leave_during_the_first_hand(loaded: Any, planned: Any) -> Any:
        calls.append(len(planned))
        if len(calls) == 1:
            leagues.member_leave(league_id=league.pk, user=alice, index=1)
        return real(loaded, planned)

    monkeypatch.setattr(kinds, "matches_play", leave_during_the_first_hand)
    night = play_night(league, alice)
    assert calls == [1, 1, 1], "one hand a batch"
    assert night.status == "finished"
    first, *later = hands_of(night)
    assert 1 in first.seats
    for hand in later:
        if members == 5:
            assert len(hand.seats) == 4 and 1 not in hand.seats
            assert 1 not in hand.order_after
        else:
            seat = hand.seats.index(1)
            assert Match.objects.get(pk=hand.match_id).seats.get(number=seat).forfeited
            assert hand.points[seat] == 0 and hand.order_after[-1] == 1
    league.refresh_from_db()
    if members == 5:
        assert 1 not in league.order


@pytest.mark.parametrize("members", [5, 4])
def test_a_member_who_leaves_once_its_next_hand_is_planned_sits_that_hand_out_forfeited(
        alice, monkeypatch, members) -> None:
    """A table's next hand is planned (pending) as soon as its last ends: a member who leaves
    then is seated in it, forfeited (the runner seats whoever left so), and removed from the
    hands planned after it if the table can still be played."""
    held = hold_tasks(monkeypatch, "tournaments.")  # played by hand
    monkeypatch.setattr(loop, "BATCH_SECONDS", 0)  # a batch a hand
    league = make_league(alice, members=members, table_size=5, hands_per_night=3)
    night = play_night(league, alice)
    assert held == [("tournaments.play", LEAGUE, night.pk)]
    assert runner.play(kind=LEAGUE, series_id=night.pk, once=True)["finished"] == 1
    first, second = hands_of(night)
    assert first.status == "finished" and second.status == "pending" and 1 in second.seats
    leagues.member_leave(league_id=league.pk, user=alice, index=1)
    assert runner.play(kind=LEAGUE, series_id=night.pk)["finished"] == 2
    night.refresh_from_db()
    assert night.status == "finished" and night.withdrawn == {}, "left, not withdrawn"
    _, second, third = hands_of(night)
    seat = second.seats.index(1)
    assert Match.objects.get(pk=second.match_id).seats.get(number=seat).forfeited
    assert second.points[seat] == 0 and second.order_after[-1] == 1 and second.forfeited == [1]
    if members == 5:
        assert len(third.seats) == 4 and 1 not in third.seats
    else:
        assert Match.objects.get(pk=third.match_id).seats.get(
            number=third.seats.index(1)).forfeited


@pytest.mark.postgres
@pytest.mark.parametrize("batch_seconds, transactions", [(60, 1), (0, 3)])
def test_a_nights_in_process_hands_are_chained_in_one_chunk_a_commit_per_batch(
        alice, monkeypatch, batch_seconds, transactions) -> None:
    """A table's next hand is planned as its last ends and played on by the same play task;
    the hands of one batch (``runner.loop.BATCH_SECONDS``) are stored in one transaction, the
    night's finish with the last of them, and nothing is left for another task."""
    from django.db import connection

    held = hold_tasks(monkeypatch, "tournaments.")
    monkeypatch.setattr(loop, "BATCH_SECONDS", batch_seconds)
    league = make_league(alice, members=5, hands_per_night=3)
    night = play_night(league, alice)
    assert night.status == "running" and held == [("tournaments.play", LEAGUE, night.pk)]
    held.clear()
    real, seen = kinds.matches_play, []

    def noting_the_transaction(loaded: Any, planned: Any) -> Any:
        with connection.cursor() as cursor:
            cursor.execute("SELECT txid_current()")
            seen.append(cursor.fetchone()[0])
        return real(loaded, planned)

    monkeypatch.setattr(kinds, "matches_play", noting_the_transaction)
    if transactions == 1:
        assert runner.play(kind=LEAGUE, series_id=night.pk, once=True) == {
            "started": 0, "finished": 3, "forfeit": 0}, "one chunk, three hands chained"
        assert held == [], "nothing left to queue"
    else:
        assert runner.play(kind=LEAGUE, series_id=night.pk) == {
            "started": 0, "finished": 3, "forfeit": 0}
    night.refresh_from_db()
    assert night.status == "finished" and len(hands_of(night)) == 3
    assert len(seen) == 3 and len(set(seen)) == transactions


def test_promotion_and_relegation_between_two_tables(alice, inline_tasks) -> None:
    league = make_league(alice, members=8, table_size=4)
    night = play_night(league, alice)
    assert night.status == "finished" and len(night.tables) == 2
    assert sorted(night.tables[0] + night.tables[1]) == list(range(8))
    final = [hands_of(night, 0)[-1].order_after, hands_of(night, 1)[-1].order_after]
    league.refresh_from_db()
    upper, lower = final
    assert league.order == [*upper[:3], lower[0], upper[3], *lower[1:]], \
        "the best of the lower table and the worst of the upper one swap"
    second = play_night(league, alice)
    assert second.tables == [league.order[:4], league.order[4:]]


def test_other_games_rotate_the_first_player_and_score_by_rank(alice, inline_tasks) -> None:
    league = make_league(alice, game="dice_cup", members=3, table_size=3, hands_per_night=3)
    night = play_night(league, alice)
    hands = hands_of(night)
    assert [h.seats[0] for h in hands] == night.tables[0], "each member leads once"
    for hand in hands:
        worse = [sum(1 for f in hand.finish if f > mine) for mine in hand.finish]
        assert hand.points == worse


def test_an_absent_player_forfeits_the_rest_of_the_night_and_the_night_goes_on(
        alice, bob, inline_tasks, settings) -> None:
    """A polling player who never answers: default actions and strikes as in any match; at
    the strike limit it forfeits that hand and, withdrawn after one forfeit here, sits out the
    rest of the night forfeited (no points, last), and the other members play on."""
    from games.services import match_expire_deadlines

    settings.SERIES_FORFEITS_TO_WITHDRAW = 1

    now = timezone.now()
    league = leagues.league_create(
        organiser=alice, name="with bob", game="great_dalmuti", table_size=4,
        hands_per_night=3, strike_limit=1, move_time_limit=5, seed=4,
        season_start=now - timedelta(days=1), season_end=now + timedelta(days=9),
        members=[{"kind": "player", "user": "bob"}, *refs(3)])
    night = play_night(league, alice)
    assert night.status == "running" and night.hands.get().status == "running", "bob is asked"
    sweeps = 0
    while night.status == "running" and sweeps < 50:
        match_expire_deadlines(now=timezone.now() + timedelta(seconds=10))
        night.refresh_from_db()
        sweeps += 1
    assert night.status == "finished", "the night went on without bob"
    first, *later = hands_of(night)
    bob_seat = first.seats.index(0)
    assert Match.objects.get(pk=first.match_id).seats.get(number=bob_seat).forfeited
    assert first.points[bob_seat] == 0 and first.order_after[-1] == 0
    for hand in later:
        seat = hand.seats.index(0)
        match = Match.objects.get(pk=hand.match_id)
        assert match.seats.get(number=seat).forfeited, "forfeited from the start"
        assert hand.points[seat] == 0 and hand.finish[seat] == 4 and hand.order_after[-1] == 0
        assert hand.forfeited == [0]
    assert night.withdrawn == {"0": "forfeited a match"}


def test_a_night_with_too_few_members_fails_with_the_reason(alice, inline_tasks) -> None:
    league = make_league(alice, members=4, table_size=5)
    # A member gone without the service's check (a league stored before it refused that).
    league.members.filter(index=3).update(left_at=timezone.now())
    night = Night.objects.create(league=league, number=1, starts_at=timezone.now())
    assert nights.nights_start_due() == 1
    night.refresh_from_db()
    assert night.status == "failed" and "3 members" in night.reason
    assert not night.hands.exists()


@pytest.mark.parametrize("batch_seconds, kept", [(0, 2), (60, 0)])
def test_a_crash_mid_night_resumes_from_the_last_finished_hand(alice, inline_tasks,
                                                               monkeypatch, batch_seconds,
                                                               kept) -> None:
    """A hand per transaction: hands 1-2 were stored and stay, 3 is lost (pending again).
    Hands batched in one transaction (``runner.loop.BATCH_SECONDS``): the whole batch is lost, back
    to hand 1 pending, and played again, identically."""
    monkeypatch.setattr(loop, "BATCH_SECONDS", batch_seconds)
    calm = make_league(alice, seed=5, hands_per_night=4)
    calm_night = play_night(calm, alice)

    league = make_league(alice, seed=5, hands_per_night=4)
    real = kinds.matches_play
    calls: list[int] = []

    def crash_on_third(loaded: Any, planned: Any) -> Any:
        calls.append(len(planned))
        if len(calls) == 3:
            raise SystemExit("worker killed")
        return real(loaded, planned)

    monkeypatch.setattr(kinds, "matches_play", crash_on_third)
    with pytest.raises(SystemExit):
        play_night(league, alice)
    night = Night.objects.get(league=league)
    assert night.status == "running"
    assert night.hands.filter(status="finished").count() == kept
    assert list(night.hands.exclude(status="finished").values_list("number", "status")) == [
        (kept + 1, "pending")], "the hand after the last stored, and nothing beyond it"
    monkeypatch.setattr(kinds, "matches_play", real)
    assert runner.reap(now=timezone.now() + timedelta(hours=1)) >= 1
    night.refresh_from_db()
    assert night.status == "finished" and night.hands.count() == 4
    assert [h.points for h in hands_of(night)] == [h.points for h in hands_of(calm_night)]
    assert [h.order_after for h in hands_of(night)] == \
        [h.order_after for h in hands_of(calm_night)]


# ---- scheduling ------------------------------------------------------------------------------


@pytest.mark.postgres
def test_two_workers_on_one_night_start_each_hand_once(alice, monkeypatch, settings) -> None:
    """Worker A claims table 0's first hand and plays on to its second, and is held there
    before it commits; worker B, on the same night meanwhile, skips A's locked hand without
    waiting and plays table 1; worker C then finds nothing to take and returns at once. A
    then commits and finishes the night: each hand started once."""
    import threading

    from django.db import connection

    hold_tasks(monkeypatch, "tournaments.")  # no worker
    monkeypatch.setattr(loop, "BATCH_SECONDS", 60)  # a table's hands chained in one batch
    settings.LEAGUE_TABLES_PER_TASK = 1  # a hand a claim
    league = make_league(alice, members=8, table_size=4, hands_per_night=3)
    night = play_night(league, alice)
    assert night.status == "running" and len(night.tables) == 2
    assert sorted(night.hands.values_list("table", "number", "status")) == [
        (0, 1, "pending"), (1, 1, "pending")]
    real, held, go_on = kinds.matches_play, threading.Event(), threading.Event()

    def hold_a(loaded: Any, planned: Any) -> Any:
        built = real(loaded, planned)
        if threading.current_thread().name == "A" and any(p.number == 2 for p in planned):
            held.set()
            assert go_on.wait(20)
        return built

    monkeypatch.setattr(kinds, "matches_play", hold_a)
    finished: dict[str, int] = {}
    errors: list[BaseException] = []

    def play(name: str) -> None:
        try:
            finished[name] = runner.play(kind=LEAGUE, series_id=night.pk, once=True)["finished"]
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
        finally:
            connection.close()

    a, b, c = (threading.Thread(target=play, args=(name,), name=name) for name in "ABC")
    a.start()
    try:
        assert held.wait(20)
        b.start()
        b.join(20)
        assert not b.is_alive(), "B waited on A's hand"
        c.start()
        c.join(20)
        assert not c.is_alive(), "C waited on A's hand"
        assert not errors and finished == {"B": 3, "C": 0}, "B played table 1, C nothing"
        night.refresh_from_db()
        assert night.status == "running", "table 0 is A's, not committed yet"
    finally:
        go_on.set()
        a.join(20)
    assert not errors and finished == {"A": 3, "B": 3, "C": 0}
    night.refresh_from_db()
    assert night.status == "finished", "the last to commit finishes the night"
    assert sorted(night.hands.values_list("table", "number", "status")) == [
        (t, n, "finished") for t in (0, 1) for n in (1, 2, 3)]
    assert Match.objects.filter(series="league").count() == 6, "each hand played once"


def recurring(organiser: Any, **kwargs: Any) -> League:
    league = leagues.league_create(
        organiser=organiser, name="Paris", game="great_dalmuti", members=refs(4), table_size=4,
        hands_per_night=1, season_start=datetime(2026, 10, 1, tzinfo=UTC),
        season_end=datetime(2026, 11, 30, tzinfo=UTC), weekday=3, night_time=time(20, 0),
        timezone_name="Europe/Paris", seed=3, **kwargs)
    League.objects.filter(pk=league.pk).update(created_at=datetime(2026, 9, 30, tzinfo=UTC))
    league.refresh_from_db()
    return league


def test_recurring_nights_start_at_local_time_across_daylight_saving(alice) -> None:
    league = recurring(alice)
    paris = ZoneInfo("Europe/Paris")
    # Summer time until Sunday 25 October 2026: 20:00 in Paris is 18:00 UTC, then 19:00 UTC.
    before = datetime(2026, 10, 22, 17, 59, tzinfo=UTC)
    assert selectors.latest_recurring_start(league, before) == \
        datetime(2026, 10, 15, 20, 0, tzinfo=paris)
    assert selectors.latest_recurring_start(league, datetime(2026, 10, 22, 18, 0, tzinfo=UTC)) \
        == datetime(2026, 10, 22, 18, 0, tzinfo=UTC)
    assert selectors.latest_recurring_start(league, datetime(2026, 10, 29, 18, 30, tzinfo=UTC)) \
        == datetime(2026, 10, 22, 18, 0, tzinfo=UTC), "18:30 UTC is only 19:30 in Paris now"
    assert selectors.latest_recurring_start(league, datetime(2026, 10, 29, 19, 0, tzinfo=UTC)) \
        == datetime(2026, 10, 29, 19, 0, tzinfo=UTC)
    assert selectors.latest_recurring_start(league, datetime(2026, 9, 20, tzinfo=UTC)) is None
    assert selectors.latest_recurring_start(league, datetime(2026, 12, 10, tzinfo=UTC)) is None


def test_two_dispatchers_start_a_recurring_night_once(alice, monkeypatch) -> None:
    started = hold_tasks(monkeypatch, "tournaments.")
    league = recurring(alice)
    at = datetime(2026, 10, 29, 19, 0, 5, tzinfo=UTC)
    assert nights.nights_start_due(now=at) == 1
    assert nights.nights_start_due(now=at) == 0
    assert nights.nights_start_due(now=at + timedelta(minutes=1)) == 0
    night = Night.objects.get(league=league)
    assert night.starts_at == datetime(2026, 10, 29, 19, 0, tzinfo=UTC)
    assert night.status == "running"
    assert list(night.hands.values_list("table", "number", "status")) == [(0, 1, "pending")]
    assert started == [("tournaments.play", LEAGUE, night.pk)], "its one table's first hand"
    Night.objects.filter(pk=night.pk).update(status="finished")  # a league plays one at a time
    assert nights.nights_start_due(now=datetime(2026, 11, 5, 19, 0, tzinfo=UTC)) == 1
    assert list(league.nights.values_list("number", flat=True)) == [1, 2]


@pytest.mark.postgres
def test_two_dispatchers_claiming_two_due_nights_of_one_league_start_one(alice,
                                                                         monkeypatch) -> None:
    """Dispatcher A claims night 1 and is held before it commits; dispatcher B meanwhile
    claims night 2 of the same league: its UPDATE waits on A's running night, then fails on
    the one-running-night-per-league constraint, so B starts nothing. Then the sweep starts
    night 2 only once night 1 is over."""
    import threading

    from django.db import connection

    hold_tasks(monkeypatch, "tournaments.")  # no worker
    league = make_league(alice)
    now = timezone.now()
    first, second = (leagues.night_schedule(league_id=league.pk, user=alice,
                                            starts_at=now + timedelta(seconds=offset))
                     for offset in (0, 1))
    real, held, go_on = nights.night_order, threading.Event(), threading.Event()

    def hold_a(*args: Any) -> list[int]:
        if threading.current_thread().name == "A":
            held.set()
            assert go_on.wait(20)
        return real(*args)

    monkeypatch.setattr(nights, "night_order", hold_a)
    started: dict[str, bool] = {}
    errors: list[BaseException] = []

    def claim(name: str, night: Night) -> None:
        try:
            started[name] = nights.night_start(night_id=night.pk, now=now + timedelta(seconds=2))
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
        finally:
            connection.close()

    a = threading.Thread(target=claim, args=("A", first), name="A")
    b = threading.Thread(target=claim, args=("B", second), name="B")
    a.start()
    assert held.wait(20)
    b.start()
    b.join(1)  # B's claim waits on A's uncommitted running night
    go_on.set()
    a.join(20)
    b.join(20)
    assert not errors and started == {"A": True, "B": False}
    assert dict(league.nights.values_list("number", "status")) == {1: "running",
                                                                   2: "scheduled"}
    assert nights.nights_start_due(now=now + timedelta(seconds=3)) == 0, "night 1 runs"
    Night.objects.filter(pk=first.pk).update(status="finished")
    assert nights.nights_start_due(now=now + timedelta(seconds=3)) == 1
    assert dict(league.nights.values_list("number", "status")) == {1: "finished",
                                                                   2: "running"}


def test_a_scheduled_night_waits_for_its_time(alice, monkeypatch) -> None:
    hold_tasks(monkeypatch, "tournaments.")
    league = make_league(alice)
    night = leagues.night_schedule(league_id=league.pk, user=alice,
                                   starts_at=timezone.now() + timedelta(hours=2))
    assert nights.nights_start_due() == 0
    assert nights.nights_start_due(now=timezone.now() + timedelta(hours=2, seconds=1)) == 1
    night.refresh_from_db()
    assert night.status == "running"


def test_bad_leagues_are_refused_with_the_reason(alice, bob, settings) -> None:
    now = timezone.now()
    base = {"organiser": alice, "name": "x", "members": refs(4), "season_start": now,
            "season_end": now + timedelta(days=1)}
    with pytest.raises(BadLeague, match="4 to 8"):
        leagues.league_create(game="great_dalmuti", table_size=3, **base)
    with pytest.raises(BadLeague, match="hands_per_night"):
        leagues.league_create(game="great_dalmuti", options={"hands": 3}, **base)
    with pytest.raises(BadLeague, match="time zone"):
        leagues.league_create(game="dice_cup", weekday=1, night_time=time(20),
                              timezone_name="Mars/Olympus", **base)
    with pytest.raises(BadLeague, match="time zone"):
        leagues.league_create(game="dice_cup", weekday=1, night_time=time(20),
                              timezone_name="America", **base)
    with pytest.raises(BadLeague, match="both"):
        leagues.league_create(game="dice_cup", weekday=1, **base)
    league = make_league(alice)
    settings.LEAGUE_MAX_MEMBERS = 5
    with pytest.raises(BadLeague, match="at most"):
        leagues.member_join(league_id=league.pk, user=alice, spec=refs(1)[0])
    with pytest.raises(NotYourLeague):
        leagues.night_schedule(league_id=league.pk, user=bob, starts_at=now)
    with pytest.raises(BadLeague, match="within the season"):
        leagues.night_schedule(league_id=league.pk, user=alice,
                               starts_at=now + timedelta(days=365))


def test_league_rules_interface_is_what_the_services_use() -> None:
    plan = rules.hand_plan("great_dalmuti", [4, 2, 0, 1, 3], hand_number=2, options={},
                           ordered=True, first_of_season=False)
    assert plan.seats == (4, 2, 0, 1, 3) and plan.options["initial_order"] == [0, 1, 2, 3, 4]


def test_nights_are_queued_by_the_name_of_a_registered_task_on_the_matches_queue(
        alice, monkeypatch) -> None:
    from celery import current_app
    from django.conf import settings as django_settings

    sent: list[tuple[str, list[int]]] = []
    monkeypatch.setattr(current_app, "send_task", lambda name, args=None, kwargs=None, **options:
                        sent.append((name, list(args))))
    league = make_league(alice)
    night = leagues.night_schedule(league_id=league.pk, user=alice, starts_at=timezone.now())
    assert nights.nights_start_due() == 1
    assert sent == [("tournaments.play", [LEAGUE, night.pk])], "its one table's first hand"
    current_app.loader.import_default_modules()  # as a worker starts: autodiscovered tasks
    assert {"tournaments.advance", "tournaments.play", "tournaments.reap"} <= set(current_app.tasks)
    assert django_settings.CELERY_TASK_ROUTES["tournaments.play"] == {
        "queue": django_settings.QUEUE_MATCHES}


@pytest.mark.parametrize("size", [1, 3, 4, 8])
def test_a_night_is_queued_and_claimed_in_chunks_of_hands_in_table_order(
        alice, monkeypatch, settings, size) -> None:
    """One play task per ``LEAGUE_TABLES_PER_TASK`` first hands; a task claims that many
    pending hands, in (number, table) order, and plays on those tables only (their next hands
    chained in its batch); the other tables' hands wait for the other tasks."""
    held = hold_tasks(monkeypatch, "tournaments.")
    monkeypatch.setattr(loop, "BATCH_SECONDS", 60)
    settings.LEAGUE_TABLES_PER_TASK = size
    league = make_league(alice, game="dice_cup", members=10, table_size=2, hands_per_night=2)
    night = play_night(league, alice)
    assert len(night.tables) == 5
    assert held == [("tournaments.play", LEAGUE, night.pk)] * -(-5 // size)
    played = min(size, 5)
    assert runner.play(kind=LEAGUE, series_id=night.pk, once=True) == {
        "started": 0, "finished": 2 * played, "forfeit": 0}
    hands = list(night.hands.order_by("table", "number").values_list("table", "number",
                                                                     "status"))
    assert hands == [*((t, n, "finished") for t in range(played) for n in (1, 2)),
                     *((t, 1, "pending") for t in range(played, 5))]
