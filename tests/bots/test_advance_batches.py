"""The games task with webhook seats: batches of moves held in memory under the row lock (few
queries per move, crash-safe), and the per-step rule for a simultaneous step shared with a
polling seat."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from bots.models import Bot, BotCall
from bots.signing import new_secret
from bots.webhook import WebhookSession
from games import services
from games.log import entries
from games.models import Match
from games.states import load_state
from lib.clock import platform_clock
from tests.helpers.matches import act, poll, replay_log, webhook_match
from tests.helpers.tasks import hold_tasks

pytestmark = pytest.mark.django_db


def consistent(match_id: int) -> Match:
    """The saved match and its log agree: entries 0..version, no gap, one /move row each."""
    match = Match.objects.get(pk=match_id)
    logged = list(entries(match_id))
    assert [e.n for e in logged] == list(range(match.version + 1))
    moves = sum(1 for e in logged if e.kind == "action")
    assert BotCall.objects.filter(match_id=match_id, path="move").count() == moves
    return match


def test_a_batch_costs_well_under_one_query_per_move(alice, open_ref_server) -> None:
    match_id = webhook_match(alice, open_ref_server.base_url + "/random", "dice_cup")
    with CaptureQueriesContext(connection) as queries:
        moves = services.match_advance_automatic_seats(match_id=match_id, batch_moves=64)
    match = consistent(match_id)
    assert match.status == "finished" and moves > 30
    sql = [q["sql"] for q in queries.captured_queries]
    updates = [q for q in sql if 'UPDATE "games_match"' in q]
    claims = [q for q in updates if '"lease_until" IS NULL OR' in q]
    assert len(claims) == 1, "the task claims the match's lease once"
    releases = [q for q in updates if 'SET "lease_until" = NULL' in q]
    assert len(releases) == 1, "let go once, after /end (the batch that ends the match renews)"
    assert match.lease_until is None
    assert len(updates) - len(claims) - len(releases) <= moves // 64 + 2, \
        "the match is saved once per batch"
    assert len(sql) < moves, f"{len(sql)} queries for {moves} moves"
    log = {"game": "dice_cup", "players": 3, "seed": match.seed, "options": match.options,
           "result": match.result, "entries": [
               {"kind": e.kind, "seat": e.seat, "action": e.action} for e in entries(match_id)]}
    assert replay_log(log).result() == match.result


class Crash(BaseException):
    """A worker dying mid-batch (not an Exception: nothing may catch it)."""


def test_a_crash_loses_only_the_unflushed_moves_and_the_task_resumes(alice, open_ref_server,
                                                                      monkeypatch) -> None:
    match_id = webhook_match(alice, open_ref_server.base_url + "/random", "dice_cup")
    calls = {"n": 0}

    def dying(original: Any) -> Any:  # a step of several seats (ask) or of one (ask_one)
        def ask(self: Any, state: Any, seats: Any, version: int) -> Any:
            calls["n"] += 1
            if calls["n"] == 13:
                raise Crash()
            return original(self, state, seats, version)
        return ask

    with monkeypatch.context() as patched:
        patched.setattr(WebhookSession, "ask", dying(WebhookSession.ask))
        patched.setattr(WebhookSession, "ask_one", dying(WebhookSession.ask_one))
        with pytest.raises(Crash):
            services.match_advance_automatic_seats(match_id=match_id, batch_moves=5)
    assert calls["n"] == 13
    saved = consistent(match_id)
    assert saved.status == "running" and 5 <= saved.version <= 13, saved.version
    services.match_advance_automatic_seats(match_id=match_id, batch_moves=5)
    match = consistent(match_id)
    assert match.status == "finished"
    replay = {"game": "dice_cup", "players": 3, "seed": match.seed, "options": match.options,
              "result": match.result, "entries": [
                  {"kind": e.kind, "seat": e.seat, "action": e.action}
                  for e in entries(match_id)]}
    assert replay_log(replay).result() == match.result


def test_a_polling_seat_answering_meanwhile_does_not_make_the_bot_answer_twice(
        alice, bob, bob_api, open_ref_server, monkeypatch) -> None:
    match_id = webhook_match(alice, open_ref_server.base_url + "/dot/heuristic", "dot",
                             seats=[{"kind": "webhook"}, {"kind": "player"}])
    services.match_join(match_id=match_id, user=bob)
    match = Match.objects.get(pk=match_id)
    assert sorted(load_state(match).to_act()) == [0, 1], "D.O.T starts with commits"
    original = WebhookSession.ask_one

    def bob_moves_meanwhile(self: Any, state: Any, seat: int, version: int) -> Any:
        answer = original(self, state, seat, version)
        body = poll(bob_api, match_id, 1).json()
        if body["your_turn"]:
            assert act(bob_api, match_id, 1, body["version"],
                       body["legal_actions"][0]).status_code == 200
        return answer

    monkeypatch.setattr(WebhookSession, "ask_one", bob_moves_meanwhile)
    services.match_advance_automatic_seats(match_id=match_id, max_steps=1)
    first = [e for e in entries(match_id) if e.kind == "action"]
    assert [e.seat for e in first[:2]] == [1, 0], "bob first, then the bot's answer kept"
    assert BotCall.objects.filter(match_id=match_id, path="move", turn=0).count() == 1
    assert not any(e.kind == "default" for e in entries(match_id))


def test_a_failing_flush_loses_the_call_log_not_the_moves(alice, open_ref_server, monkeypatch,
                                                          caplog) -> None:
    """A session's records are written after the batch is stored: one that fails is logged and
    the match plays on, every move kept."""
    match_id = webhook_match(alice, open_ref_server.base_url + "/random", "dice_cup")

    def broken_flush(self: Any, moves: Any, applied: bool) -> None:
        raise RuntimeError("call log storage is broken")

    monkeypatch.setattr(WebhookSession, "flush", broken_flush)
    moves = services.match_advance_automatic_seats(match_id=match_id, batch_moves=8)
    match = Match.objects.get(pk=match_id)
    assert match.status == "finished" and moves > 16
    assert sum(1 for e in entries(match_id) if e.kind == "action") == moves
    failed = [r for r in caplog.records if "flush of WebhookSession failed" in r.getMessage()]
    assert len(failed) >= moves // 8, "each batch's failure logged, none raised"


def test_a_flush_whose_statement_fails_loses_the_call_log_not_the_moves(
        alice, open_ref_server, monkeypatch) -> None:
    """Inside a transaction (here the test's), a database error in a session's records would
    abort it: it is undone to the session's savepoint, its rows with it, and the moves stand.
    (The final batch's call rows are written with the /end claim, before its flush.)"""
    match_id = webhook_match(alice, open_ref_server.base_url + "/random", "dice_cup")
    original = WebhookSession.flush
    flushed: list[Any] = []

    def failing_statement(self: Any, moves: Any, applied: bool) -> None:
        original(self, moves, applied)
        if moves:
            flushed.append(moves)
            with connection.cursor() as cursor:
                cursor.execute("SELECT * FROM no_such_table")

    monkeypatch.setattr(WebhookSession, "flush", failing_statement)
    moves = services.match_advance_automatic_seats(match_id=match_id, batch_moves=8)
    match = Match.objects.get(pk=match_id)
    assert match.status == "finished" and moves > 16 and len(flushed) > 2
    assert sum(1 for e in entries(match_id) if e.kind == "action") == moves
    final = [m.turn for m in flushed[-1] if m.kind == "action"]
    assert sorted(BotCall.objects.filter(match_id=match_id, path="move")
                  .values_list("turn", flat=True)) == final, \
        "each failed flush's own rows were undone: only the final batch's, written with /end"
    assert BotCall.objects.filter(match_id=match_id, path="end").count() == 3


def test_a_worker_dying_before_end_leaves_it_to_the_next_task(alice, open_ref_server,
                                                              monkeypatch) -> None:
    """/end is claimed once the final moves are stored, by a statement of its own: a worker
    that dies in between has claimed nothing, so the next task sends it, once. (That batch's
    call rows, written with the claim, are lost with it, as a worker dying right after any
    batch loses that batch's: a log, never a move.)"""
    from bots.models import BotSeat

    match_id = webhook_match(alice, open_ref_server.base_url + "/random", "dice_cup")

    def dying(self: Any, state: Any) -> None:
        raise Crash()

    monkeypatch.setattr(WebhookSession, "finished", dying)
    with pytest.raises(Crash):
        services.match_advance_automatic_seats(match_id=match_id)
    match = Match.objects.get(pk=match_id)
    assert match.status == "finished"
    assert [e.n for e in entries(match_id)] == list(range(match.version + 1))
    assert not BotCall.objects.filter(match_id=match_id, path="move").exists()
    assert not BotSeat.objects.filter(match_id=match_id, ended_at__isnull=False).exists()
    monkeypatch.undo()
    services.match_advance_automatic_seats(match_id=match_id)
    services.match_advance_automatic_seats(match_id=match_id)
    assert BotCall.objects.filter(match_id=match_id, path="end").count() == 3, \
        "sent by the next task, and only once"
    assert BotSeat.objects.filter(match_id=match_id, ended_at__isnull=False).count() == 3


def test_a_worker_killed_before_end_leaves_the_lease_and_the_sweep_sends_it(
        alice, open_ref_server, monkeypatch, settings) -> None:
    """A worker killed between the moves that end a match and its /end notices (nothing
    after the kill runs: not even the lease's release) leaves the finished match with its
    lease; once that runs out the stalled-match sweep queues the match, and its task sends
    /end, once, then lets go. Broker redelivery would take the visibility timeout on Redis."""
    from bots.models import BotSeat
    from games.services.store import Lease

    match_id = webhook_match(alice, open_ref_server.base_url + "/random", "dice_cup")

    def killed(self: Any, state: Any) -> None:
        monkeypatch.setattr(Lease, "release", lambda self: None)  # a kill runs nothing more
        raise Crash()

    monkeypatch.setattr(WebhookSession, "finished", killed)
    with pytest.raises(Crash):
        services.match_advance_automatic_seats(match_id=match_id)
    monkeypatch.undo()
    match = Match.objects.get(pk=match_id)
    assert match.status == "finished" and match.lease_until is not None, "held, as left"
    assert not BotSeat.objects.filter(match_id=match_id, ended_at__isnull=False).exists()
    queued = hold_tasks(monkeypatch, "games.advance_automatic_seats")
    assert services.matches_resume_stalled() == 0, "not before the lease runs out"
    Match.objects.filter(pk=match_id).update(lease_until=timezone.now() - timedelta(seconds=1))
    assert services.matches_resume_stalled() == 1
    assert services.matches_resume_stalled() == 0, "queued once"
    assert queued == [("games.advance_automatic_seats", match_id)]
    services.match_advance_automatic_seats(match_id=match_id)
    assert BotCall.objects.filter(match_id=match_id, path="end").count() == 3
    assert Match.objects.get(pk=match_id).lease_until is None, "let go once told"


def test_an_end_claim_that_fails_leaves_the_final_call_rows_to_the_flush(
        alice, open_ref_server, monkeypatch, caplog) -> None:
    """The final batch's call rows go with the /end claim; if that statement fails (logged, the
    match is over all the same) they are written by the flush after it, not lost."""
    from bots import webhook

    match_id = webhook_match(alice, open_ref_server.base_url + "/random", "dice_cup")
    original = webhook.claim_unset

    def failing_end_claim(*args: Any, **kwargs: Any) -> Any:
        if kwargs["field"] == "ended_at":
            raise RuntimeError("the database went away")
        return original(*args, **kwargs)

    monkeypatch.setattr(webhook, "claim_unset", failing_end_claim)
    services.match_advance_automatic_seats(match_id=match_id)
    assert consistent(match_id).status == "finished", "every /move row written"
    assert not BotCall.objects.filter(match_id=match_id, path="end").exists()
    assert "the database went away" in caplog.text


#: The statements of one whole webhook match of three seats (``POST /api/matches/`` then the
#: task, every move in one batch) on PostgreSQL, each a round trip the match waits for when its
#: bots answer at once (bench/bots.py). Adding one makes every webhook match slower: cut one
#: elsewhere, or say here why it is worth it.
WEBHOOK_MATCH_STATEMENTS = [
    # creation: the bot checked; the match, its seats and its first log page in one statement
    "SELECT bots_bot", "WITH games_match",
    # the task: its lease claimed with its first read; /start claimed with the bots read;
    # neither commit waits for the disk (a database crash would only make them happen again)
    "WITH games_match unflushed", "WITH bots_botseat unflushed",
    # the batch: moves, log page and the lease renewed in one statement, no transaction
    # around it: the one commit of the task that waits for the disk
    "WITH games_match",
    # then /end claimed with the batch's call rows (a log) in one round trip, and after /end
    # its call rows
    "INSERT bots_botcall; INSERT bots_botseat unflushed", "INSERT bots_botcall unflushed",
    # and the lease let go. Worth its round trip: the task holds the match until the seats
    # are told it ended, so a worker killed before that leaves /end to the sweep's task
    # within two leases, not to the broker's redelivery (Redis: 16 minutes). The multiplexed
    # worker sends it with other matches' writes.
    "WITH games_match unflushed",
]

#: What ``games.db.execute_unflushed`` sends before a statement run on its own.
UNFLUSHED = "SELECT set_config('synchronous_commit', 'off', true); "


def _statement(sql: str) -> str:
    """The statement's verb and first table, e.g. 'INSERT games_seat' ('... unflushed': its
    commit does not wait for the disk)."""
    if sql.startswith(UNFLUSHED):
        return _statement(sql.removeprefix(UNFLUSHED)) + " unflushed"
    first, _, then = sql.partition("; INSERT INTO ")
    if then:  # two statements in one round trip
        return f"{_statement(first)}; {_statement('INSERT INTO ' + then)}"
    verb = sql.split(None, 1)[0].upper()
    table = re.search(r'"((?:games|bots)_[a-z]+)"', sql)
    return f"{verb} {table.group(1)}" if table and verb not in ("SAVEPOINT", "RELEASE") else verb


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)  # the real BEGIN and COMMIT, not a test's savepoints
def test_a_whole_webhook_match_takes_these_statements_and_no_more(alice, open_ref_server,
                                                                 monkeypatch) -> None:

    bot = Bot.objects.create(owner=alice, name="b", url=open_ref_server.base_url + "/random",
                             secret=new_secret(), games=["dice_cup"], handshake_ok=True,
                             compact_legal_actions=True)
    hold_tasks(monkeypatch, "games.advance_automatic_seats")  # run here instead
    # The platform's clock (lib/clock.py) is read once a minute per process, not per match:
    # read just before, as a running worker's mostly is.
    platform_clock().refresh()
    with CaptureQueriesContext(connection) as queries:
        match = services.match_create(game="dice_cup", created_by=alice, seed=5,
                                      seats=[{"kind": "webhook", "bot": bot.pk}] * 3)
        moves = services.match_advance_automatic_seats(match_id=match.pk)
    played = consistent(match.pk)
    assert played.status == "finished" and moves > 30 and played.lease_until is None
    assert [_statement(q["sql"]) for q in queries.captured_queries] == WEBHOOK_MATCH_STATEMENTS


def test_a_final_batch_rolled_back_still_lets_the_lease_go(alice, open_ref_server, fake_bot,
                                                           secret, monkeypatch) -> None:
    """The batch that ends the match renews the lease (the task still tells the seats): if
    that transaction (the moves with a seat's strikes) is undone, the task lets go of it, so
    the next task need not wait for it to run out."""
    from games.services import store

    illegal = Bot.objects.create(owner=alice, name="illegal", url=fake_bot("illegal").url,
                                 secret=secret, games=["dice_cup"], handshake_ok=True)
    good = Bot.objects.create(owner=alice, name="good", url=open_ref_server.base_url + "/random",
                              secret=new_secret(), games=["dice_cup"], handshake_ok=True)
    match_id = services.match_create(  # seat 0's strikes: the final batch has a transaction
        game="dice_cup", created_by=alice, seed=5,
        seats=[{"kind": "webhook", "bot": b.pk} for b in (illegal, good, good)]).pk
    sent: list[Any] = []
    update_then_insert = store.update_then_insert

    def dying(model: Any, filters: Any, fields: dict[str, Any], *args: Any, **kwargs: Any) -> bool:
        sent.append((update_then_insert(model, filters, fields, *args, **kwargs),
                     fields["lease_until"]))
        raise Crash()  # the worker dies inside the batch's transaction, its UPDATE written

    monkeypatch.setattr(store, "update_then_insert", dying)
    with pytest.raises(Crash):
        services.match_advance_automatic_seats(match_id=match_id, batch_seconds=60)
    assert [(written, lease is not None) for written, lease in sent] == [(True, True)], \
        "the one batch ended the match, renewing the lease"
    match = Match.objects.get(pk=match_id)
    assert match.status == "running" and match.version == 0, "the final batch was undone"
    assert match.lease_until is None
    monkeypatch.undo()
    services.match_advance_automatic_seats(match_id=match_id)
    match = Match.objects.get(pk=match_id)
    struck = match.seats.get(number=0)
    assert match.status == "finished" and struck.strikes == match.strike_limit
    logged = list(entries(match_id))
    assert [e.n for e in logged] == list(range(match.version + 1))
    asked = sum(1 for e in logged if e.kind == "action") + struck.strikes  # + illegal answers
    assert BotCall.objects.filter(match_id=match_id, path="move").count() == asked, \
        "one /move row a move asked, none of the undone batch's"
