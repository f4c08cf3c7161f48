"""Log rows written in one statement (COPY on PostgreSQL, or an INSERT whose commit does not
wait for the disk) read back exactly as bulk_create would have written them."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from games.db import execute_unflushed, insert_rows, locks_waited_at_most
from games.models import Match, MatchLogPage

pytestmark = pytest.mark.django_db

# COPY's text format escapes backslashes, tabs and newlines; JSON adds its own escapes.
BAIT = 'é \\u2603 "quoted"\\n \\ \t tab \n newline {a,b} NULL \\N'


def _pages(match) -> list[dict]:
    return [{"match_id": match.pk, "first": 1, "last": 2, "event_count": 3, "entries": BAIT},
            {"match_id": match.pk, "first": 3, "last": 3, "event_count": 3, "entries": "[]"}]


def _read(match) -> list[tuple]:
    return list(MatchLogPage.objects.filter(match=match).order_by("first").values_list(
        "first", "last", "event_count", "entries"))


def test_insert_rows_reads_back_as_written(make_match) -> None:
    match = make_match("dice_cup", [None, None])
    insert_rows(MatchLogPage, _pages(match))
    assert _read(match) == [(1, 2, 3, BAIT), (3, 3, 3, "[]")]
    assert all(page.created_at for page in MatchLogPage.objects.filter(match=match))


@pytest.mark.django_db(transaction=True)  # autocommit: each statement its own transaction
def test_unflushed_rows_read_back_as_written(make_match) -> None:
    match = make_match("dice_cup", [None, None])
    insert_rows(MatchLogPage, _pages(match), durable=False)
    assert _read(match) == [(1, 2, 3, BAIT), (3, 3, 3, "[]")]
    _check_json_null_and_defaults(match, durable=False)


def test_insert_rows_writes_json_and_null_and_defaults(make_match) -> None:
    _check_json_null_and_defaults(make_match("dice_cup", [None, None]), durable=True)


def _check_json_null_and_defaults(match, *, durable: bool) -> None:
    rows = [{"game": "dice_cup", "seed": 1, "players": 2, "state": {"note": BAIT},
             "result": {"ranks": [1, 2], "note": BAIT}},
            {"game": "dice_cup", "seed": 2, "players": 2, "state": {}, "result": None}]
    insert_rows(Match, rows, durable=durable)
    written = Match.objects.exclude(pk=match.pk).order_by("seed")
    assert [(m.seed, m.state, m.result, m.status, m.version) for m in written] == [
        (1, {"note": BAIT}, {"ranks": [1, 2], "note": BAIT}, "open", 0),
        (2, {}, None, "open", 0)]  # status and version left out: their defaults
    assert written.filter(result__isnull=True).count() == 1, \
        "Python None is SQL NULL, not JSON null"
    assert all(m.created_at and m.updated_at for m in written)


@pytest.mark.postgres
def test_on_postgresql_rows_go_by_copy(make_match, django_assert_num_queries) -> None:
    assert connection.vendor == "postgresql"
    match = make_match("dice_cup", [None, None])
    with django_assert_num_queries(1) as captured:  # one COPY, in Django's query log too
        insert_rows(MatchLogPage, _pages(match))
    assert captured.captured_queries[0]["sql"].startswith('COPY "games_matchlogpage"')
    assert len(_read(match)) == 2


#: What ``execute_unflushed`` sends first.
UNFLUSHED = "SELECT set_config('synchronous_commit', 'off', true); "


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_unflushed_statements_commit_without_waiting_for_the_disk(
        make_match, django_assert_num_queries) -> None:
    setting = "SELECT current_setting('synchronous_commit')"
    with connection.cursor() as cursor:
        execute_unflushed(cursor, setting, None)
        assert cursor.fetchone() == ("off",), "the statement's own transaction"
        cursor.execute(setting)
        assert cursor.fetchone() == ("on",), "that transaction alone"
    with transaction.atomic(), connection.cursor() as cursor:
        execute_unflushed(cursor, setting, None)
        assert cursor.fetchone() == ("on",), "inside a transaction its COMMIT decides"
    match = make_match("dice_cup", [None, None])
    with django_assert_num_queries(1) as captured:
        insert_rows(MatchLogPage, _pages(match), durable=False)
    assert captured.captured_queries[0]["sql"].startswith(
        UNFLUSHED + 'INSERT INTO "games_matchlogpage"')
    other = make_match("dice_cup", [None, None])
    with django_assert_num_queries(3) as captured, transaction.atomic():  # BEGIN, COMMIT
        insert_rows(MatchLogPage, _pages(other), durable=False)
    assert captured.captured_queries[1]["sql"].startswith('COPY "games_matchlogpage"'), \
        "inside a transaction: COPY, as durable rows"


def test_update_rows_gives_each_row_its_own_values(make_match, django_user_model) -> None:
    from datetime import UTC, datetime

    from games.db import update_rows

    first, second, untouched = (make_match("dice_cup", [None, None]) for _ in range(3))
    when = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)
    carol = django_user_model.objects.create_user("carol", password="x")
    update_rows(Match, [
        {"pk": first.pk, "status": "finished", "finished_at": when, "created_by_id": None,
         "result": {"ranks": [1, 2], "note": "é \" \\ {a,b} NULL\n"}},  # array-literal bait
        {"pk": second.pk, "status": "running", "result": None, "finished_at": None,
         "created_by_id": carol.pk},  # a foreign key
    ], fields=["status", "result", "finished_at", "created_by_id"])
    rows = {m.pk: m for m in Match.objects.filter(pk__in=[first.pk, second.pk, untouched.pk])}
    assert (rows[first.pk].status, rows[first.pk].result, rows[first.pk].finished_at,
            rows[first.pk].created_by_id) == (
        "finished", {"ranks": [1, 2], "note": "é \" \\ {a,b} NULL\n"}, when, None)
    assert (rows[second.pk].status, rows[second.pk].result, rows[second.pk].finished_at,
            rows[second.pk].created_by_id) == ("running", None, None, carol.pk)
    assert Match.objects.filter(pk=second.pk, result__isnull=True).exists(), \
        "Python None is SQL NULL, not JSON null"
    assert (rows[untouched.pk].status, rows[untouched.pk].result) == (untouched.status,
                                                                      untouched.result)


@pytest.mark.postgres
def test_on_postgresql_update_rows_is_one_statement(make_match,
                                                    django_assert_num_queries) -> None:
    from games.db import update_rows

    matches = [make_match("dice_cup", [None, None]) for _ in range(4)]
    with django_assert_num_queries(1):
        update_rows(Match, [{"pk": m.pk, "seed": i} for i, m in enumerate(matches)],
                    fields=["seed"])
    assert [Match.objects.get(pk=m.pk).seed for m in matches] == [0, 1, 2, 3]


def _fields(instance) -> dict:
    return {f.attname: getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields}


def test_claim_match_claims_once_and_reads_what_the_orm_reads(make_match,
                                                              django_assert_max_num_queries
                                                              ) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from games.db import claim_match
    from games.models import Seat

    match = make_match("dice_cup", ["bot:random", "bot:heuristic", "bot:random"])
    now = timezone.now()
    with django_assert_max_num_queries(1 if connection.vendor == "postgresql" else 2):
        claimed, seats = claim_match(match.pk, until=now + timedelta(seconds=9), now=now)
    assert _fields(claimed) == _fields(Match.objects.get(pk=match.pk))
    assert claimed.lease_until == now + timedelta(seconds=9) and claimed.state["players"] == 3
    assert [_fields(s) for s in seats] == [
        _fields(s) for s in Seat.objects.filter(match=match).order_by("number")]
    assert all(seat.match is claimed for seat in seats), "no query for a seat's match"
    assert claim_match(match.pk, until=now + timedelta(seconds=9), now=now) is None, "held"
    later = now + timedelta(seconds=10)
    assert claim_match(match.pk, until=later + timedelta(seconds=9), now=later) is not None, \
        "a lease that ran out is anyone's"
    assert claim_match(10**12, until=later, now=later) is None


def test_update_then_insert_writes_both_or_nothing(make_match) -> None:
    from games.db import update_then_insert

    match = make_match("dice_cup", [None, None])
    values = {"version": match.version + 1, "result": {"note": BAIT}, "status": "finished"}
    assert not update_then_insert(Match, {"pk": match.pk, "version": match.version + 5},
                                  values, MatchLogPage, _pages(match)[:1])
    assert Match.objects.get(pk=match.pk).version == match.version and _read(match) == []
    assert update_then_insert(Match, {"pk": match.pk, "version": match.version}, values,
                              MatchLogPage, _pages(match))
    written = Match.objects.get(pk=match.pk)
    assert (written.version, written.result, written.status) == (
        match.version + 1, {"note": BAIT}, "finished")
    assert _read(match) == [(1, 2, 3, BAIT), (3, 3, 3, "[]")]
    assert update_then_insert(Match, {"pk": match.pk}, {"result": None}, MatchLogPage, [])
    assert Match.objects.filter(pk=match.pk, result__isnull=True).exists(), \
        "Python None is SQL NULL, not JSON null"


@pytest.mark.django_db(transaction=True)  # autocommit: the call is a transaction of its own
def test_update_then_insert_on_its_own_is_all_or_nothing(make_match) -> None:
    """The task stores a batch with no transaction around it: a page that cannot be written
    (a duplicate first entry) leaves the match's row as it was, on every database."""
    from django.db import IntegrityError

    from games.db import update_then_insert

    match = make_match("dice_cup", [None, None])
    insert_rows(MatchLogPage, _pages(match)[:1])
    with pytest.raises(IntegrityError):
        update_then_insert(Match, {"pk": match.pk, "version": match.version},
                           {"version": match.version + 1}, MatchLogPage, _pages(match)[:1])
    assert Match.objects.get(pk=match.pk).version == match.version


def test_row_by_pk_reads_fields_as_the_orm_does(alice, django_assert_num_queries) -> None:
    from bots.models import Bot
    from games.db import row_by_pk

    bot = Bot.objects.create(owner=alice, name="b", url="http://bot.example/", secret="s" * 32,
                             games=["dice_cup", "dot"], handshake_ok=True,
                             handshake_error="none")
    names = ("games", "owner_id", "handshake_ok", "handshake_error", "created_at", "enabled")
    expected = dict(zip(names, Bot.objects.filter(pk=bot.pk).values_list(*names).get()))
    with django_assert_num_queries(1):
        assert row_by_pk(Bot, bot.pk, names) == expected
    assert expected["games"] == ["dice_cup", "dot"] and expected["created_at"].tzinfo
    assert row_by_pk(Bot, bot.pk + 1000, names) is None


def test_insert_tree_writes_a_match_its_seats_and_page_as_bulk_create_would(
        alice, django_assert_max_num_queries) -> None:
    from games.db import insert_tree
    from games.models import Seat

    match = Match(game="dice_cup", seed=2**62, players=2, options={"note": BAIT},
                  state={"note": BAIT}, created_by=alice, status="running")
    seats = [Seat(number=0, kind="player", user=alice), Seat(number=1, kind="reference",
                                                                bot_name="random")]
    page = MatchLogPage(first=0, last=0, event_count=1, entries=BAIT)
    with django_assert_max_num_queries(1 if connection.vendor == "postgresql" else 5):
        insert_tree(match, [seats, [page], []])
    assert match.pk and all(s.pk and s.match_id == match.pk for s in seats) and page.pk
    written = Match.objects.get(pk=match.pk)
    assert (written.options, written.state, written.seed, written.result, written.version,
            written.created_by_id) == ({"note": BAIT}, {"note": BAIT}, 2**62, None, 0, alice.pk)
    assert written.created_at == match.created_at and written.updated_at == match.updated_at
    assert Match.objects.filter(pk=match.pk, result__isnull=True).exists()
    assert [(s.pk, s.number, s.kind, s.user_id, s.bot_name, s.strikes) for s in
            Seat.objects.filter(match=written).order_by("number")] == [
        (seats[0].pk, 0, "player", alice.pk, "", 0), (seats[1].pk, 1, "reference", None,
                                                      "random", 0)]
    assert _read(written) == [(0, 0, 1, BAIT)]


def test_insert_models_sets_keys_and_writes_rows_as_bulk_create_would(
        alice, django_assert_max_num_queries) -> None:
    from games.db import insert_models
    from games.models import Seat

    matches = [Match(game="dice_cup", seed=2**62 + n, players=2, options={"note": BAIT},
                     state={"scores": {1: 2}}, created_by=alice, status="running")
               for n in range(3)]
    seats = [Seat(match=match, number=n, kind="reference", bot_name="random")
             for match in matches for n in range(2)]  # before their matches have keys
    with django_assert_max_num_queries(2 if connection.vendor == "postgresql" else 3):
        insert_models(matches)  # PostgreSQL: the keys from the sequence, then one COPY
    assert len({m.pk for m in matches}) == 3 and all(m.pk for m in matches)
    assert all(not m._state.adding and m.created_at and m.updated_at for m in matches)
    written = {m.pk: m for m in Match.objects.filter(pk__in=[m.pk for m in matches])}
    for match in matches:
        row = written[match.pk]
        assert (row.seed, row.options, row.state, row.result, row.version, row.created_by_id,
                row.status) == (match.seed, {"note": BAIT}, {"scores": {"1": 2}}, None, 0,
                                alice.pk, "running"), "JSON's int keys read back as strings"
        assert row.created_at == match.created_at
    insert_models(seats)
    assert all(s.pk and s.match_id == s.match.pk for s in seats)
    assert sorted(Seat.objects.filter(match__in=matches).values_list("pk", "match_id", "number")) \
        == sorted((s.pk, s.match_id, s.number) for s in seats)
    insert_models([])  # nothing to write: no statement, no error


def test_a_duplicate_key_raises_djangos_integrity_error(make_match) -> None:
    """As bulk_create does: a league batch whose hand another worker took rolls back on it."""
    from django.db import IntegrityError, transaction

    from games.db import insert_models
    from games.models import Seat

    match = make_match("dice_cup", [None, None])  # seats 0 and 1 exist
    with pytest.raises(IntegrityError), transaction.atomic():
        insert_models([Seat(match=match, number=1, kind="player")])
    with pytest.raises(IntegrityError), transaction.atomic():
        insert_rows(MatchLogPage, [_pages(match)[0], _pages(match)[0]])


@pytest.mark.django_db(transaction=True)  # autocommit, as the webhook task claims /end
def test_claim_unset_writes_rows_first_in_the_same_round_trip_all_or_nothing(
        make_match, django_assert_num_queries) -> None:
    """A webhook task's /end claim carries the final batch's call rows: both or neither, and
    on PostgreSQL in one round trip."""
    from django.db import IntegrityError
    from django.utils import timezone

    from games.db import claim_unset
    from games.models import Seat

    match = make_match("dice_cup", [None, None])
    now = timezone.now()

    def claim(number: int, pages: list[dict]) -> list[tuple]:
        claimed, _ = claim_unset(Seat, [{"match_id": match.pk, "number": number}],
                                 unique=("match_id", "number"), field="joined_at", value=now,
                                 durable=False, insert_first=(MatchLogPage, pages))
        return claimed

    if connection.vendor == "postgresql":
        with django_assert_num_queries(1):
            assert claim(5, _pages(match)) == [(match.pk, 5)]
    else:  # a transaction around two statements
        assert claim(5, _pages(match)) == [(match.pk, 5)]
    assert _read(match) == [(1, 2, 3, BAIT), (3, 3, 3, "[]")]
    assert Seat.objects.get(match=match, number=5).joined_at == now
    assert claim(5, []) == [], "claimed once"
    with pytest.raises(IntegrityError):  # the same pages again: a duplicate first entry
        claim(6, _pages(match)[:1])
    assert not Seat.objects.filter(match=match, number=6).exists(), "nothing of the claim"
    assert len(_read(match)) == 2


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_deadlock_rolls_one_side_back_and_it_answers_held(django_user_model) -> None:
    """Two transactions locking two rows in opposite orders: PostgreSQL breaks the deadlock
    by failing one of them, which then answers ``held()`` (retried later) rather than
    raising; the other goes on and commits."""
    first, second = (django_user_model.objects.create_user(name, password="x")
                     for name in ("first", "second"))
    users = django_user_model.objects
    both_hold, answers, errors = threading.Barrier(2, timeout=20), {}, []

    def lock(mine, theirs, side: str) -> None:
        def work() -> str:
            users.select_for_update().get(pk=mine.pk)
            both_hold.wait()
            users.filter(pk=theirs.pk).update(first_name=side)
            return "done"

        try:
            answers[side] = locks_waited_at_most(30, work, held=lambda: "held")
        except BaseException as exc:  # noqa: BLE001 - raised in a thread
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=lock, args=(first, second, "a")),
               threading.Thread(target=lock, args=(second, first, "b"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    assert sorted(answers.values()) == ["done", "held"]
    winner = next(side for side, answer in answers.items() if answer == "done")
    changed = users.filter(pk__in=[first.pk, second.pk]).exclude(first_name="")
    assert list(changed.values_list("first_name", flat=True)) == [winner], "one side only"


def _started(steps):
    """A write's generator and the statement it waits for first."""
    return steps, next(steps)


def _finished(steps, rows):
    with pytest.raises(StopIteration) as stop:
        steps.send(rows)
    return stop.value.value


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)  # autocommit: writes sent together commit as one
def test_writes_sent_together_take_one_round_trip_and_are_all_or_nothing(
        make_match, django_assert_num_queries) -> None:
    """The multiplexed worker's writer sends many matches' guarded batches in one round trip
    (games.db.together): each gets its own answer (a guard that no longer holds is a False
    for that one only), and a statement that fails leaves every one of them unwritten."""
    from django.db import IntegrityError

    from games.db import run_together, updating_then_inserting

    def write(match, version, pages):
        return _started(updating_then_inserting(
            Match, {"pk": match.pk, "version": version}, {"version": match.version + 1},
            MatchLogPage, pages))

    first, second, moved_on = (make_match("dice_cup", [None, None]) for _ in range(3))
    writes = [write(first, first.version, _pages(first)), write(second, second.version, []),
              write(moved_on, moved_on.version + 5, _pages(moved_on))]
    with django_assert_num_queries(1):
        found = run_together([statement for _, statement in writes])
    assert [_finished(steps, rows) for (steps, _), rows in zip(writes, found)] == [
        True, True, False]
    assert [Match.objects.get(pk=m.pk).version for m in (first, second, moved_on)] == [
        first.version + 1, second.version + 1, moved_on.version]
    assert _read(first) == [(1, 2, 3, BAIT), (3, 3, 3, "[]")] and _read(moved_on) == []

    fresh = make_match("dice_cup", [None, None])
    duplicate = write(first, first.version + 1, _pages(first)[:1])  # page 1 is there already
    with pytest.raises(IntegrityError):
        run_together([write(fresh, fresh.version, _pages(fresh))[1], duplicate[1]])
    assert Match.objects.get(pk=fresh.pk).version == fresh.version and _read(fresh) == []
    assert Match.objects.get(pk=first.pk).version == first.version + 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)  # autocommit, as the writer thread writes
def test_unflushed_rows_held_go_in_one_statement_and_a_bad_call_loses_only_its_own(
        make_match, django_assert_num_queries, caplog) -> None:
    from games.db import unflushed_rows_held

    first, second = make_match("dice_cup", [None, None]), make_match("dice_cup", [None, None])
    with CaptureQueriesContext(connection) as written, unflushed_rows_held():
        with django_assert_num_queries(0):
            insert_rows(MatchLogPage, _pages(first), durable=False)
            insert_rows(MatchLogPage, _pages(second)[:1], durable=False)
        assert _read(first) == [], "held until the block ends"
    assert [q["sql"].count("INSERT") for q in written.captured_queries] == [0, 1], \
        "the read, then one statement for both calls"
    assert _read(first) == [(1, 2, 3, BAIT), (3, 3, 3, "[]")]
    assert _read(second) == [(1, 2, 3, BAIT)]

    third = make_match("dice_cup", [None, None])
    with unflushed_rows_held():
        insert_rows(MatchLogPage, _pages(second)[:1], durable=False)  # a duplicate: refused
        insert_rows(MatchLogPage, _pages(third), durable=False)
    assert _read(third) == [(1, 2, 3, BAIT), (3, 3, 3, "[]")], "the good call's rows"
    assert _read(second) == [(1, 2, 3, BAIT)]
    assert "1 MatchLogPage rows held for one statement were lost" in caplog.text
