"""No transaction is open and no row is locked while the platform waits on a bot: a player who
resigns during a slow bot's turn is answered at once, the bot's late answer is never applied,
and the bot's call log says so."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection, transaction

from bots.models import Bot, BotCall
from games import log, services
from games.models import Match
from games.states import load_state
from tests.helpers.tasks import hold_tasks


def _advance_in_thread(match_id: int, errors: list[BaseException]) -> threading.Thread:
    def run() -> None:
        try:
            services.match_advance_automatic_seats(match_id=match_id)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


@pytest.mark.django_db(transaction=True)
def test_a_resign_during_a_slow_bots_turn_returns_at_once_and_the_late_answer_is_dropped(
        alice, alice_api, bob, fake_bot, secret, settings, monkeypatch) -> None:
    settings.BOTS_MOVE_TIMEOUT_MS = 20_000
    hold_tasks(monkeypatch, "games.advance_automatic_seats")  # run by hand below
    bot = fake_bot("gated")
    row = Bot.objects.create(owner=alice, name="gated", url=bot.url, secret=secret,
                             games=["dice_cup"], handshake_ok=True)
    match = services.match_create(game="dice_cup", created_by=alice, seed=1,
                                  seats=[{"kind": "webhook", "bot": row.pk}, {"kind": "player"}])
    services.match_join(match_id=match.pk, user=bob)
    assert load_state(Match.objects.get(pk=match.pk)).to_act() == [0], "the bot moves first"

    errors: list[BaseException] = []
    worker = _advance_in_thread(match.pk, errors)
    try:
        assert bot.entered.wait(20), "the bot was asked"
        # The bot is thinking. Nothing is locked: a nowait row lock (PostgreSQL) succeeds, and
        # a write transaction (SQLite locks the whole file for one) goes through at once.
        with transaction.atomic():
            Match.objects.select_for_update(nowait=True).get(pk=match.pk)
        answer = services.match_resign(match_id=match.pk, seat_number=1, user=bob)
        assert not bot.gate.is_set() and bot.calls["/move"] == 1, "still waiting on the bot"
        assert answer["version"] == 1
    finally:
        bot.gate.set()
        worker.join(60)
    assert not worker.is_alive() and not errors, errors

    match = Match.objects.get(pk=match.pk)
    assert match.status == "finished"
    entries = list(log.entries(match.pk))
    assert [e.n for e in entries] == list(range(match.version + 1))
    assert (entries[1].kind, entries[1].seat) == ("resign", 1), "the resign came first"
    late = BotCall.objects.get(match=match, path="move", turn=0, applied=False)
    assert "not applied" in late.detail and not late.strike and late.reason == ""
    # The whole match on one page (the bot's random play makes it longer than 50 moves at
    # times, and the late call is the first one made).
    calls = alice_api.get(f"/api/bots/{row.pk}/calls/?match={match.pk}&path=move&limit=500"
                          ).json()
    assert calls["next"] is None
    assert [c for c in calls["results"] if not c["applied"]] == [
        dict(calls["results"][-1], applied=False)], "the API shows the late call, the first one"
    used = BotCall.objects.filter(match=match, path="move", applied=True).count()
    assert used == sum(1 for e in entries if e.seat == 0 and e.kind == "action") > 0, \
        "every answer used is in the log once; the late one is not"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_task_holds_no_row_lock_while_a_bot_is_asked(alice, fake_bot, secret, settings,
                                                         monkeypatch) -> None:
    """On PostgreSQL a row lock taken by the task would make a nowait lock fail at once."""
    from django.db import DatabaseError

    settings.BOTS_MOVE_TIMEOUT_MS = 20_000
    hold_tasks(monkeypatch, "games.advance_automatic_seats")
    bot = fake_bot("gated")
    row = Bot.objects.create(owner=alice, name="gated", url=bot.url, secret=secret,
                             games=["dice_cup"], handshake_ok=True)
    match = services.match_create(game="dice_cup", created_by=alice, seed=1,
                                  seats=[{"kind": "webhook", "bot": row.pk},
                                         {"kind": "reference", "bot": "random"}])
    errors: list[BaseException] = []
    worker = _advance_in_thread(match.pk, errors)
    locked: Any = None
    try:
        assert bot.entered.wait(20)
        try:
            with transaction.atomic():
                locked = Match.objects.select_for_update(nowait=True).get(pk=match.pk)
        except DatabaseError as exc:  # pragma: no cover - the failure this test is for
            pytest.fail(f"the match row is locked while the bot thinks: {exc}")
    finally:
        bot.gate.set()
        worker.join(60)
    assert locked is not None and not errors
    assert Match.objects.get(pk=match.pk).status == "finished"
