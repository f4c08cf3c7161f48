"""The policies every series follows, written once (docs/series.md), tried on league nights
as on tournaments: cancel (a scheduled night, a running one with hands in progress, the race
with a chunk of hands being started), one entry per bot or person, the one receiver and reaper
that serve every kind of series, and the one withdrawal rule."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from games.models import Match
from tests.helpers.leagues import URL, create, refs, schedule_now
from tests.helpers.series import LEAGUE
from tests.helpers.tasks import hold_tasks
from tournaments import runner, selectors
from tournaments.leagues import nights
from tournaments.leagues import services as leagues
from tournaments.models import Night
from tournaments.runner import kinds

pytestmark = pytest.mark.django_db(transaction=True)  # nights start in on_commit callbacks

#: Two dice-cup tables: bob (polling, so his hand waits for him) with a bot, and two bots
#: whose hands finish at once.
WITH_BOB = [{"kind": "player", "user": "bob"}, *refs(3)]


def running_night(client: APIClient) -> tuple[int, Night]:
    league_id = create(client, game="dice_cup", table_size=2, members=WITH_BOB).json()["id"]
    schedule_now(client, league_id)
    assert nights.nights_start_due() == 1
    return league_id, Night.objects.get(league_id=league_id)


def cancel(client: APIClient, league_id: int, number: int) -> Any:
    return client.post(f"{URL}{league_id}/nights/{number}/cancel/")


def test_a_running_night_is_cancelled_and_counts_for_nothing(alice_api, anon_api, bob,
                                                             inline_tasks) -> None:
    league_id, night = running_night(alice_api)
    bots_table = night.hands.filter(table=1)
    assert bots_table.count() == 3 and all(h.status == "finished" for h in bots_table), \
        "the bots' table played its three hands in-process"
    waiting = night.hands.get(table=0, number=1)
    assert waiting.status == "running" and waiting.match.status == Match.Status.RUNNING
    assert any(row.points for row in selectors.league_table(league_id=league_id))

    answer = cancel(alice_api, league_id, night.number)
    assert answer.status_code == 200, answer.json()
    assert answer.json()["status"] == "cancelled" and answer.json()["finished_at"]
    waiting.refresh_from_db()
    assert waiting.status == "cancelled", "the hand in progress is stopped, not scored"
    assert waiting.match.status == Match.Status.FINISHED
    assert waiting.match.seats.filter(forfeited=True).count() == 2, "every seat forfeits"
    assert not any(row.points for row in selectors.league_table(league_id=league_id)), \
        "a cancelled night's finished hands add nothing to the season"
    assert selectors.league_history(league_id=league_id)["nights"] == []
    night.refresh_from_db()
    assert night.league.order == [] and not night.league.ordered, "the order does not move"

    # Nothing starts again: not a play task still queued, not an advance, not the reaper.
    assert runner.play(kind=LEAGUE, series_id=night.pk) == {"started": 0, "finished": 0,
                                                             "forfeit": 0}
    assert runner.advance(kind=LEAGUE, series_id=night.pk) == 0
    runner.reap(now=timezone.now() + timedelta(hours=1))
    assert night.hands.count() == 4
    again = cancel(alice_api, league_id, night.number)
    assert again.status_code == 409 and again.json() == {
        "code": "night_not_open", "detail": "night 1 is cancelled"}


def test_a_scheduled_night_cancelled_never_starts(alice_api) -> None:
    league_id = create(alice_api).json()["id"]
    later = timezone.now() + timedelta(hours=1)
    alice_api.post(f"{URL}{league_id}/nights/", {"starts_at": later.isoformat()}, format="json")
    assert cancel(alice_api, league_id, 1).json()["status"] == "cancelled"
    assert nights.nights_start_due(now=later + timedelta(minutes=1)) == 0
    assert Night.objects.get(league_id=league_id).started_at is None


def test_only_the_organiser_or_staff_cancels_a_night_that_exists(alice_api, bob_api, anon_api,
                                                                 bob) -> None:
    league_id = create(alice_api).json()["id"]
    schedule_now(alice_api, league_id)
    assert cancel(anon_api, league_id, 1).status_code == 401
    refused = cancel(bob_api, league_id, 1)
    assert refused.status_code == 403 and refused.json()["code"] == "not_your_league"
    missing = cancel(alice_api, league_id, 9)
    assert missing.status_code == 404 and missing.json() == {
        "code": "league_not_found", "detail": f"league {league_id} has no night 9"}
    assert cancel(alice_api, 999999, 1).status_code == 404
    assert Night.objects.get(league_id=league_id).status == "scheduled"
    bob.is_staff = True
    bob.save()
    assert cancel(bob_api, league_id, 1).status_code == 200


def test_a_hand_started_as_its_night_was_cancelled_is_stopped_by_the_reaper(
        alice_api, bob, monkeypatch) -> None:
    hold_tasks(monkeypatch, "tournaments.")  # played by hand
    _, night = running_night(alice_api)
    # One hand claimed, the first in (number, table) order: bob's table's first hand.
    assert runner.play(kind=LEAGUE, series_id=night.pk, limit=1, once=True)["started"] == 1
    hand, other = night.hands.order_by("table")
    # The race: the night was cancelled while this chunk's transaction was starting the hand.
    Night.objects.filter(pk=night.pk).update(status=Night.Status.CANCELLED)
    assert hand.status == "running" and other.status == "pending"
    assert runner.reap() >= 2
    hand.refresh_from_db()
    other.refresh_from_db()
    assert hand.status == "cancelled" and hand.match.status == Match.Status.FINISHED
    assert other.status == "cancelled" and other.match is None, "never started"
    assert runner.reap() == 0


@pytest.mark.postgres
def test_a_chunk_starting_hands_as_its_night_is_cancelled_starts_nothing(alice_api, bob,
                                                                         monkeypatch) -> None:
    """The cancel does not wait for a chunk that has claimed hands (it cancels the others);
    the chunk sees the cancel before it commits and rolls back: no hand started, no match
    stored, every hand cancelled."""
    import threading

    from django.db import connection

    hold_tasks(monkeypatch, "tournaments.")
    league_id, night = running_night(alice_api)
    assert night.hands.filter(status="pending").count() == 2, "each table's first hand"
    reached, go_on = threading.Event(), threading.Event()
    real = kinds.matches_play

    def paused(loaded: Any, planned: Any) -> Any:
        reached.set()
        assert go_on.wait(30)
        return real(loaded, planned)

    monkeypatch.setattr(kinds, "matches_play", paused)
    outcome: dict[str, int] = {}
    errors: list[BaseException] = []

    def chunk() -> None:
        try:
            outcome.update(runner.play(kind=LEAGUE, series_id=night.pk, once=True))
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
        finally:
            connection.close()

    thread = threading.Thread(target=chunk)
    thread.start()
    try:
        assert reached.wait(20)
        answer = cancel(alice_api, league_id, night.number)
        assert answer.status_code == 200 and answer.json()["status"] == "cancelled"
        assert night.hands.filter(status="pending").count() == 2, "claimed: left to the chunk"
    finally:
        go_on.set()
        thread.join(30)
    assert not errors and outcome == {"started": 0, "finished": 0, "forfeit": 0}
    assert sorted(night.hands.values_list("table", "number", "status", "match")) == [
        (0, 1, "cancelled", None), (1, 1, "cancelled", None)], "the bots' table chained none"
    assert not Match.objects.filter(series=LEAGUE).exists()
    assert runner.reap() == 0


@pytest.mark.parametrize("members, words", [
    ([{"kind": "player", "user": "bob"}, *refs(4), {"kind": "player", "user": "bob"}],
     "member 5 (bob) is entered twice"),
])
def test_a_league_takes_a_bot_or_person_once(alice_api, bob, members, words) -> None:
    refused = create(alice_api, members=members)
    assert refused.status_code == 400 and refused.json() == {"code": "bad_league",
                                                            "detail": words}
    same_reference = create(alice_api, members=[*refs(7), refs(1)[0]])
    assert same_reference.status_code == 201, "a reference bot may sit many times"


def test_joining_twice_is_refused_until_the_member_left(alice_api, bob) -> None:
    league_id = create(alice_api).json()["id"]
    members = f"{URL}{league_id}/members/"
    assert alice_api.post(members, {"kind": "player", "user": "bob"}, format="json"
                          ).status_code == 201
    twice = alice_api.post(members, {"kind": "player", "user": "bob", "name": "bobby"},
                           format="json")
    assert twice.status_code == 400 and twice.json() == {
        "code": "bad_league", "detail": "bobby is a member already (member 5)"}
    alice_api.post(f"{members}5/leave/")
    assert alice_api.post(members, {"kind": "player", "user": "bob"}, format="json"
                          ).status_code == 201


def test_one_receiver_serves_every_kind_of_series() -> None:
    from games.signals import match_finished

    sync_receivers, _ = match_finished._live_receivers(None)
    ours = [r for r in sync_receivers if r.__module__.startswith("tournaments")]
    assert ours == [runner.on_match_finished]
    assert set(kinds.kinds()) == {"tournament", "league", "ladder"}


# --------------------------------------------------------------------------------------------
# Withdrawal: one rule (kinds.withdraws) for tournaments and league nights
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("forfeits, limit, out", [
    ([True, True, True], 3, True), ([True, True, False, True], 3, False),
    ([True, True], 3, False), ([False, True, True, True], 3, False),
    ([True], 1, True), ([True, True, True], 0, False),
])
def test_the_withdrawal_rule(settings, forfeits, limit, out) -> None:
    settings.SERIES_FORFEITS_TO_WITHDRAW = limit
    assert kinds.withdraws(forfeits) is out


def test_a_silent_player_is_out_of_the_night_after_the_same_forfeits_as_in_a_tournament(
        alice, bob, inline_tasks, settings) -> None:
    """Five hands, bob never answers: each of his first two hands is forfeited at the strike
    limit (he is still seated as a player and asked); after the third in a row he is withdrawn,
    so the last two start with his seat forfeited."""
    from games.services import match_expire_deadlines

    settings.SERIES_FORFEITS_TO_WITHDRAW = 3
    now = timezone.now()
    league = leagues.league_create(
        organiser=alice, name="with bob", game="dice_cup", table_size=2, hands_per_night=5,
        strike_limit=1, move_time_limit=5, seed=4, season_start=now - timedelta(days=1),
        season_end=now + timedelta(days=9), members=[{"kind": "player", "user": "bob"},
                                                     refs(1)[0]])
    night = leagues.night_schedule(league_id=league.pk, user=alice, starts_at=now)
    nights.nights_start_due()
    for _ in range(60):
        night.refresh_from_db()
        if night.status != "running":
            break
        match_expire_deadlines(now=timezone.now() + timedelta(seconds=10))
    assert night.status == "finished"
    hands = list(night.hands.order_by("number"))
    from_start = [Match.objects.get(pk=h.match_id).seats.get(number=h.seats.index(0))
                  for h in hands]
    assert all(seat.forfeited for seat in from_start), "bob forfeited every hand"
    assert [seat.strikes > 0 for seat in from_start] == [True, True, True, False, False], \
        "struck out in the first three, seated forfeited (never asked) in the last two"
    assert [h.forfeited for h in hands] == [[0]] * 5
    assert night.withdrawn == {"0": "forfeited 3 matches in a row"}


def test_a_member_whose_bot_cannot_be_seated_is_withdrawn_and_the_night_goes_on(
        alice, alice_api, anon_api, inline_tasks) -> None:
    """Disabled before the night (it used to fail the whole night), or during it: seated
    forfeited in each of its hands (its bot never called), the others play on."""
    from bots.models import Bot
    from bots.signing import new_secret

    bot = Bot.objects.create(owner=alice, name="sleepy", url="https://bot.example/",
                             secret=new_secret(), games=["dice_cup"], handshake_ok=True)
    league_id = create(alice_api, game="dice_cup", table_size=3, hands_per_night=2,
                       members=[{"kind": "webhook", "bot": bot.pk}, *refs(2)]).json()["id"]
    Bot.objects.filter(pk=bot.pk).update(enabled=False)
    schedule_now(alice_api, league_id)
    assert nights.nights_start_due() == 1
    night = Night.objects.get(league_id=league_id)
    assert night.status == "finished", night.reason
    assert list(night.withdrawn) == ["0"] and "cannot be seated" in night.withdrawn["0"]
    for hand in night.hands.all():
        seat = hand.seats.index(0)
        assert Match.objects.get(pk=hand.match_id).seats.get(number=seat).forfeited
        assert hand.finish[seat] == 3 and hand.points[seat] == 0
    listed = anon_api.get(f"{URL}{league_id}/nights/").json()["results"][0]
    assert listed["withdrawn"] == night.withdrawn


@pytest.mark.parametrize("disabled", ["before its hand is claimed", "as its hand is built"])
def test_a_bot_disabled_during_a_night_is_withdrawn_between_hands(alice, alice_api,
                                                                  monkeypatch, disabled) -> None:
    """The runner checks every seat of the hands it claims; a bot that goes away between
    that check and its match being built (the build refuses it) is checked again, withdrawn,
    and its hands played with its seat forfeited."""
    from bots.models import Bot
    from bots.signing import new_secret

    hold_tasks(monkeypatch, "tournaments.")  # played by hand
    bot = Bot.objects.create(owner=alice, name="flaky", url="https://bot.example/",
                             secret=new_secret(), games=["dice_cup"], handshake_ok=True)
    league_id = create(alice_api, game="dice_cup", table_size=2, hands_per_night=2,
                       members=[{"kind": "webhook", "bot": bot.pk}, refs(1)[0]]).json()["id"]
    schedule_now(alice_api, league_id)
    nights.nights_start_due()
    night = Night.objects.get(league_id=league_id)
    assert night.withdrawn == {} and night.hands.get().status == "pending"
    builds: list[int] = []
    if disabled == "before its hand is claimed":
        Bot.objects.filter(pk=bot.pk).update(enabled=False)
    else:
        real = kinds.matches_play

        def disabled_meanwhile(loaded: Any, planned: Any) -> Any:
            builds.append(len(planned))
            if len(builds) == 1:
                Bot.objects.filter(pk=bot.pk).update(enabled=False)
            return real(loaded, planned)

        monkeypatch.setattr(kinds, "matches_play", disabled_meanwhile)
    assert runner.play(kind=LEAGUE, series_id=night.pk) == {"started": 0, "finished": 2,
                                                             "forfeit": 0}
    if builds:
        assert builds == [1, 1, 1], "refused once, built again with its seat forfeited"
    night.refresh_from_db()
    assert list(night.withdrawn) == ["0"] and "cannot be seated" in night.withdrawn["0"]
    assert night.status == "finished" and night.hands.count() == 2
    for hand in night.hands.all():
        seat = hand.seats.index(0)
        assert Match.objects.get(pk=hand.match_id).seats.get(number=seat).forfeited
        assert hand.forfeited == [0]
