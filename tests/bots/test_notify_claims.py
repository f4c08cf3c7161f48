"""/start and /end are claimed once per seat by one upsert: a task that runs twice, or two tasks
racing for one match, send each call exactly once; strikes kept on the seat survive the claim."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection

from bots.models import Bot, BotSeat
from bots.signing import new_secret
from bots.webhook import WebhookSession
from games import services


def seated_match(owner: Any, players: int = 3) -> tuple[Any, dict[int, Bot]]:
    """A match of webhook seats (not started by any task: nothing is claimed yet)."""
    bot = Bot.objects.create(owner=owner, name="claims", url="http://bot.example",
                             secret=new_secret(), games=["dice_cup"], handshake_ok=True)
    match = services.match_create(game="dice_cup", created_by=owner, seed=1,
                                  seats=[{"kind": "webhook", "bot": bot.pk}] * players)
    return match, dict.fromkeys(range(players), bot)


@pytest.mark.django_db
def test_each_seat_is_claimed_once_per_field(alice) -> None:
    match, bots = seated_match(alice)
    claim = WebhookSession._claim
    assert claim(match.pk, bots, "started_at") == [0, 1, 2]
    assert claim(match.pk, bots, "started_at") == []
    assert claim(match.pk, bots, "ended_at") == [0, 1, 2]
    assert claim(match.pk, bots, "ended_at") == []
    rows = BotSeat.objects.filter(match=match)
    assert len(rows) == 3 and all(r.started_at and r.ended_at and r.bot_id for r in rows)


@pytest.mark.django_db
def test_a_row_made_earlier_keeps_its_strikes_and_is_still_claimed(alice) -> None:
    match, bots = seated_match(alice)
    BotSeat.objects.create(match=match, number=1, bot=bots[1], strikes={"timeout": 2},
                           last_error={"reason": "timeout"})
    BotSeat.objects.create(match=match, number=2, bot=bots[2], started_at=match.created_at)
    assert WebhookSession._claim(match.pk, bots, "started_at") == [0, 1]
    seat = BotSeat.objects.get(match=match, number=1)
    assert seat.strikes == {"timeout": 2} and seat.last_error == {"reason": "timeout"}
    assert BotSeat.objects.get(match=match, number=2).started_at == match.created_at


def test_only_known_fields_can_be_claimed(alice, db) -> None:
    match, bots = seated_match(alice)
    with pytest.raises(ValueError):
        WebhookSession._claim(match.pk, bots, "strikes = 1, started_at")


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_racing_tasks_split_the_seats_without_overlap(alice) -> None:
    match, bots = seated_match(alice, players=4)
    results: list[list[int]] = []
    barrier = threading.Barrier(4)

    def claim() -> None:
        try:
            barrier.wait()
            results.append(WebhookSession._claim(match.pk, bots, "started_at"))
        finally:
            connection.close()

    threads = [threading.Thread(target=claim) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    claimed = [n for result in results for n in result]
    assert sorted(claimed) == [0, 1, 2, 3], results


@pytest.mark.django_db
def test_the_start_claim_reads_the_bots_and_their_owners_in_the_same_statement(
        alice, fake_bot, django_assert_max_num_queries) -> None:
    """The task's first call on a webhook session: /start claimed and the bots read at once
    (one statement on PostgreSQL); a bot deleted meanwhile is a seat with no bot, claimed
    all the same (its row's bot is NULL), and sent nothing. A second session claims nothing
    and sends nothing."""
    from games.services.store import table_of
    from games.states import load_state
    from lib.clock import platform_clock

    server = fake_bot("good")
    match, bots = seated_match(alice)
    Bot.objects.filter(pk=bots[0].pk).update(url=server.url)
    gone = Bot.objects.create(owner=alice, name="gone", url=server.url,
                              secret=new_secret(), games=["dice_cup"], handshake_ok=True)
    match.seats.filter(number=2).update(bot_name=str(gone.pk))
    gone.delete()
    state = load_state(match)
    session = WebhookSession(table_of(match))
    platform_clock().refresh()  # read once a minute (lib/clock.py): not the claim's query
    # The claim with the bots and their owners (one statement on PostgreSQL), then, for the
    # /start bodies' seat names, the one bot not among them (deleted: no row, "deleted bot").
    with django_assert_max_num_queries(2 if connection.vendor == "postgresql" else 3):
        session.started(state)
    assert session.bots[0].owner.username == "alice" and session.bots[2] is None
    assert server.calls["/start"] == 2, "seats 0 and 1; seat 2's bot is gone"
    assert dict(BotSeat.objects.filter(match=match).values_list("number", "bot_id")) == {
        0: bots[0].pk, 1: bots[0].pk, 2: None}
    again = WebhookSession(table_of(match))
    again.started(state)
    assert server.calls["/start"] == 2 and again.bots[1].pk == bots[1].pk, "claimed once"
