"""Tournaments through their services, tasks run in-process: round robins and tables of
reference bots play to the end, withdrawals become forfeits, limits, scheduled starts,
cancelling and the reaper."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games.models import Match
from tests.helpers.locks import rows_locked
from tests.helpers.series import TOURNAMENT, play_one
from tests.helpers.tasks import hold_tasks
from tournaments import runner, services
from tournaments.errors import BadTournament, NotYourTournament, TournamentLimit
from tournaments.models import Participant, Tournament, TournamentMatch
from tournaments.runner import kinds
from tournaments.runner import tournament as tournament_kind

pytestmark = pytest.mark.django_db(transaction=True)


def refs(count: int) -> list[dict[str, Any]]:
    names = ["heuristic", "random"]
    return [{"kind": "reference", "bot": names[i % 2], "name": f"ref{i}"} for i in range(count)]


def create(organiser: Any, **kwargs: Any) -> Tournament:
    kwargs.setdefault("participants", refs(2))
    kwargs.setdefault("game", "dice_cup")
    kwargs.setdefault("table_size", 2)
    return services.tournament_create(organiser=organiser, name="cup", seed=7, **kwargs)


def test_a_round_robin_of_reference_bots_plays_to_the_end(alice, inline_tasks) -> None:
    tournament = create(alice, participants=[{"kind": "reference", "bot": "heuristic"},
                                             {"kind": "reference", "bot": "random"}],
                        table_size=2, meetings=3)
    tournament.refresh_from_db()
    assert tournament.status == "finished" and tournament.finished_at
    rows = list(TournamentMatch.objects.filter(tournament=tournament))
    assert len(rows) == 3 and all(r.status == "finished" and r.match_id for r in rows)
    firsts = [r.seats[0] for r in rows]
    assert sorted(firsts.count(p) for p in (0, 1)) == [1, 2], "seats swapped, within one"
    for row in rows:
        match = Match.objects.get(pk=row.match_id)
        assert match.status == "finished" and row.ranks == match.result["ranks"]
        assert match.seed == row.seed and match.created_by == alice
    assert tournament.balance["pair_meetings_min"] == 3


def test_duplicate_tables_rotate_every_participant_through_every_seat(alice,
                                                                     inline_tasks) -> None:
    tournament = create(alice, participants=refs(3), table_size=3, duplicate=True)
    rows = list(TournamentMatch.objects.filter(tournament=tournament))
    assert len(rows) == 3 and len({r.seed for r in rows}) == 1 and len({r.deal for r in rows}) == 1
    for participant in range(3):
        assert sorted(r.seats.index(participant) for r in rows) == [0, 1, 2]
    assert Tournament.objects.get(pk=tournament.pk).status == "finished"


def test_bad_input_is_refused_with_the_reason(alice) -> None:
    for kwargs, words in [
        ({"game": "chess"}, "chess"),
        ({"table_size": 9}, "2 to 6"),
        ({"participants": refs(1)}, "^1 participant: "),
        ({"participants": [{"kind": "reference", "bot": "nobody"}, *refs(1)]}, "nobody"),
        ({"participants": [{"kind": "player", "user": "ghost"}, *refs(1)]}, "ghost"),
        ({"participants": [{"kind": "player", "user": "alice"}] * 2}, "twice"),
        ({"options": {"no_such_option": 1}}, "no_such_option"),
    ]:
        with pytest.raises(BadTournament, match=words):
            create(alice, **kwargs)
    assert not Tournament.objects.exists()


def test_one_account_cannot_flood_the_workers(alice, settings) -> None:
    settings.TOURNAMENT_MAX_ACTIVE = 1
    later = timezone.now() + timedelta(hours=1)
    create(alice, starts_at=later)
    with pytest.raises(TournamentLimit):
        create(alice, starts_at=later)
    settings.TOURNAMENT_MAX_ACTIVE = 5
    settings.TOURNAMENT_MAX_QUEUED_MATCHES = 3
    with pytest.raises(TournamentLimit, match="still to play"):
        create(alice, starts_at=later, participants=refs(4), table_size=2)


def test_a_scheduled_tournament_starts_once_when_due(alice, inline_tasks) -> None:
    tournament = create(alice, starts_at=timezone.now() + timedelta(minutes=5))
    assert tournament.status == "scheduled" and not inline_tasks
    assert services.tournaments_start_due() == 0
    later = timezone.now() + timedelta(minutes=6)
    assert services.tournaments_start_due(now=later) == 1
    assert services.tournaments_start_due(now=later) == 0, "two dispatchers start it once"
    assert Tournament.objects.get(pk=tournament.pk).status == "finished"
    assert [task for task, *_ in inline_tasks].count("tournaments.advance") == 1


def test_only_the_organiser_or_staff_cancels_and_finished_matches_are_kept(
        alice, bob, inline_tasks, django_user_model) -> None:
    tournament = create(alice, starts_at=timezone.now() + timedelta(hours=1),
                        participants=refs(4), table_size=2)
    with pytest.raises(NotYourTournament):
        services.tournament_cancel(tournament_id=tournament.pk, user=bob)
    first = TournamentMatch.objects.filter(tournament=tournament).order_by("number").first()
    Tournament.objects.filter(pk=tournament.pk).update(status="running")
    assert play_one(first.pk) == "finished"
    staff = django_user_model.objects.create_user("staff", password="x", is_staff=True)
    cancelled = services.tournament_cancel(tournament_id=tournament.pk, user=staff)
    assert cancelled.status == "cancelled"
    statuses = dict(TournamentMatch.objects.filter(tournament=tournament)
                    .values_list("number", "status"))
    assert statuses[first.number] == "finished" and set(statuses.values()) == {"finished", "cancelled"}
    assert play_one(first.pk + 1) == "skipped"


def test_a_participant_that_cannot_be_seated_is_withdrawn_and_forfeits(alice, inline_tasks,
                                                                        request) -> None:
    from games import seats
    from tests.helpers.matches import use_seat_kind

    kind = seats.get_seat_kind("reference")
    calls = {"n": 0}

    def flaky(game: str, bot: str, user: Any = None) -> None:
        calls["n"] += 1
        if bot == "random" and calls["n"] > 4:  # "random" goes away after creation
            raise ValueError("bot random is disabled")
        return kind.check_bot(game, bot, user)

    use_seat_kind(request, seats.SeatKind(
        name="reference", automatic=kind.automatic, check_bot=flaky))
    tournament = create(alice, participants=[{"kind": "reference", "bot": "heuristic"},
                                             {"kind": "reference", "bot": "random"}],
                        table_size=2, meetings=2)
    random_bot = Participant.objects.get(tournament=tournament, bot="random")
    assert random_bot.withdrawn and "disabled" in random_bot.withdrawn_reason
    rows = TournamentMatch.objects.filter(tournament=tournament)
    assert all(r.status == "finished" for r in rows)
    forfeits = [r for r in rows if r.forfeited]
    assert forfeits and all(r.forfeited == [1] and r.match_id is None for r in forfeits)
    assert all(r.ranks[r.seats.index(1)] == 2 for r in forfeits), "the withdrawn is last"
    assert Tournament.objects.get(pk=tournament.pk).status == "finished"


def test_the_reaper_records_and_requeues_what_was_lost(alice, inline_tasks) -> None:
    tournament = create(alice, participants=refs(2))
    row = TournamentMatch.objects.get(tournament=tournament)
    assert row.status == "finished" and row.match.status == "finished"
    # As if the worker died between finishing the games match and recording it:
    TournamentMatch.objects.filter(pk=row.pk).update(status="running", ranks=None)
    Tournament.objects.filter(pk=tournament.pk).update(status="running", finished_at=None)
    assert runner.reap() >= 1
    row.refresh_from_db()
    assert row.status == "finished" and row.ranks == row.match.result["ranks"]
    assert Tournament.objects.get(pk=tournament.pk).status == "finished"
    # A pending match whose queued message was lost is queued again once its lease passed.
    second = create(alice, participants=refs(2), starts_at=timezone.now() + timedelta(hours=1))
    Tournament.objects.filter(pk=second.pk).update(status="running")
    inline_tasks.clear()
    assert runner.reap() == 1
    assert Tournament.objects.get(pk=second.pk).status == "finished"
    assert [t for t, *_ in inline_tasks] == ["tournaments.play"]


@pytest.mark.postgres
@pytest.mark.parametrize("held", ["the tournament's row", "the entrants' leaderboard rows"])
def test_recording_does_not_wait_for_a_silent_transaction_holding_its_locks(
        alice, inline_tasks, settings, held) -> None:
    """A worker host cut off inside a transaction (a chunk's last statements: its results
    rated, the tournament's row locked for the finishing check) holds those row locks until
    PostgreSQL ends its session. Recording another match never waits that long (the worker
    goes on): it skips the finishing check while the tournament's row is held (and tries it
    once committed, waiting at most TOURNAMENT_RECORD_LOCK_SECONDS), and gives up after that
    long on the entrants' leaderboard rows (the match stays finished and unrecorded). The
    reaper records it, and finishes the tournament, once the locks are free."""
    import threading
    import time

    from django.db import connection, transaction

    from tournaments.models import LeaderboardEntry

    settings.TOURNAMENT_RECORD_LOCK_SECONDS = 1
    tournament = create(alice, participants=refs(2))
    row = TournamentMatch.objects.get(tournament=tournament)
    # The worker recorded nothing yet (its match just finished):
    TournamentMatch.objects.filter(pk=row.pk).update(status="running", ranks=None)
    Tournament.objects.filter(pk=tournament.pk).update(status="running", finished_at=None)
    locked, let_go, errors = threading.Event(), threading.Event(), []

    def silent_host() -> None:
        try:
            with transaction.atomic():
                if held == "the tournament's row":
                    list(Tournament.objects.select_for_update().filter(pk=tournament.pk))
                else:
                    assert list(LeaderboardEntry.objects.select_for_update()
                                .filter(game="dice_cup"))
                locked.set()
                let_go.wait(30)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            locked.set()
            connection.close()

    holder = threading.Thread(target=silent_host)
    holder.start()
    try:
        assert locked.wait(20)
        started = time.monotonic()
        recorded = runner.record(kind=TOURNAMENT, match_id=row.match_id)
        waited = time.monotonic() - started
        assert waited < 3, f"waited {waited:.1f} s for a transaction that went silent"
        if held == "the tournament's row":
            # Recorded at once (the finishing check needs the row: skipped, then tried once
            # committed, for at most TOURNAMENT_RECORD_LOCK_SECONDS).
            assert recorded, waited
            assert TournamentMatch.objects.get(pk=row.pk).status == "finished"
        else:
            assert not recorded
            assert TournamentMatch.objects.get(pk=row.pk).status == "running", "for later"
        assert Tournament.objects.get(pk=tournament.pk).status == "running"
        assert runner.reap() == 0, "the reaper cannot either while it lasts"
    finally:
        let_go.set()
        holder.join(20)
    assert not errors, errors
    assert runner.reap() >= 1
    row.refresh_from_db()
    assert row.status == "finished" and row.ranks == row.match.result["ranks"]
    assert Tournament.objects.get(pk=tournament.pk).status == "finished"


def test_standings_certainty_and_ratings_come_from_the_recorded_results(alice,
                                                                        inline_tasks) -> None:
    from tournaments import selectors

    tournament = create(alice, participants=[{"kind": "reference", "bot": "heuristic"},
                                             {"kind": "reference", "bot": "random"}],
                        meetings=6)
    progress = selectors.tournament_progress(tournament=tournament)
    assert progress == {"total": 6, "finished": 6, "running": 0, "pending": 0, "cancelled": 0,
                        "forfeits": 0, "retried": 0}
    rows = selectors.tournament_standings(tournament=tournament)
    assert [r["place"] for r in rows] == [1, 2] and all(r["matches"] == 6 for r in rows)
    top, bottom = rows
    assert top["points"] >= bottom["points"]
    assert top["interval"][0] <= top["points"] <= top["interval"][1]
    assert 0 <= top["ahead_of_next"] <= 1 and bottom["ahead_of_next"] is None
    assert top["rating"]["ordinal"] == pytest.approx(
        top["rating"]["mu"] - 3 * top["rating"]["sigma"])
    assert selectors.tournament_standings(tournament=tournament) == rows, "reproducible"
    board = selectors.ratings_leaderboard(game="dice_cup")
    assert {entry["name"] for entry in board} == {"heuristic (reference bot)",
                                                "random (reference bot)"}
    assert board[0]["ordinal"] >= board[1]["ordinal"] and board[0]["matches"] == 6


def test_a_duplicate_deal_stays_sealed_until_the_tournament_is_over(alice, anon_api,
                                                                   settings) -> None:
    """A finished rotation must not show the deal its sibling rotations still have to play."""
    settings.TOURNAMENT_CHUNK = 1
    tournament = create(alice, participants=refs(2), duplicate=True,
                        starts_at=timezone.now() + timedelta(hours=1))
    Tournament.objects.filter(pk=tournament.pk).update(status="running")
    runner.play(kind=TOURNAMENT, once=True, series_id=tournament.pk)
    first = TournamentMatch.objects.get(tournament=tournament, status="finished")
    log = anon_api.get(f"/api/matches/{first.match_id}/log/").json()
    detail = anon_api.get(f"/api/matches/{first.match_id}/").json()
    assert log["status"] == "finished" and not log["complete"] and log["seed"] is None
    assert detail["seed"] is None and all("action" not in e for e in log["entries"])
    runner.play(kind=TOURNAMENT, once=True, series_id=tournament.pk)
    assert Tournament.objects.get(pk=tournament.pk).status == "finished"
    log = anon_api.get(f"/api/matches/{first.match_id}/log/").json()
    assert log["complete"] and log["seed"] == str(first.seed)


@pytest.mark.postgres
def test_two_workers_closing_the_last_chunks_at_once_finish_the_tournament(alice, monkeypatch
                                                                          ) -> None:
    """Fan-in through the database: worker A closes its chunk and is held just before it
    commits; worker B closes the last one meanwhile. Neither sees the other's rows closed
    until it commits, so without the tournament row lock both leave it running forever."""
    import threading

    from django.db import connection

    hold_tasks(monkeypatch, "tournaments.")
    tournament = create(alice, participants=refs(2), meetings=2)
    services.tournament_start(tournament_id=tournament.pk)
    at_commit, go_on = threading.Event(), threading.Event()
    from tournaments.formats.round_robin import RoundRobin

    ask = RoundRobin.next
    holder: list[int] = []
    asks: list[str] = []

    def hold_a(self: RoundRobin, state: Any) -> Any:
        # A asks its format twice: chaining its ended match (no lock), then settling under the
        # tournament's row lock. A holds there, its chunk closed and not committed.
        asks.append(threading.current_thread().name)
        if asks.count("A") == 2 and threading.current_thread().name == "A":
            at_commit.set()
            assert go_on.wait(20)
        return ask(self, state)

    monkeypatch.setattr(RoundRobin, "next", hold_a)
    errors: list[BaseException] = []

    def play(name: str) -> None:
        try:
            holder.append(runner.play(kind=TOURNAMENT, once=True, series_id=tournament.pk, limit=1)
                          ["finished"])
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
        finally:
            connection.close()

    a = threading.Thread(target=play, args=("A",), name="A")
    b = threading.Thread(target=play, args=("B",), name="B")
    a.start()
    assert at_commit.wait(20)
    b.start()
    b.join(1)  # B closes its row and, with the lock, waits for A to commit
    go_on.set()
    a.join(20)
    b.join(20)
    assert not errors and holder == [1, 1]
    tournament.refresh_from_db()
    assert tournament.status == "finished"


def test_a_finished_match_is_recorded_by_its_own_series_receiver_only(alice, inline_tasks
                                                                      ) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games import services as games
    from games.signals import match_finished

    tournament = create(alice, participants=[{"kind": "player", "user": "alice"}, *refs(1)])
    row = TournamentMatch.objects.get(tournament=tournament)
    assert Match.objects.get(pk=row.match_id).series == "tournament"
    games.match_resign(match_id=row.match_id, seat_number=row.seats.index(0), user=alice)
    row.refresh_from_db()
    assert row.status == "finished", "recorded when the match finished, not by the reaper"

    alone = games.match_create(game="dot", created_by=alice, seats=refs(2))
    assert alone.status == "finished" and alone.series == ""
    with CaptureQueriesContext(connection) as queries:
        match_finished.send(sender=Match, match_ids=[alone.pk], series={alone.pk: ""})
    assert len(queries) == 0, "a match on its own costs tournaments and leagues no query"


def _pause(monkeypatch: Any, owner: Any, name: str) -> tuple[threading.Event, threading.Event]:
    """``owner.name`` waits, when called, until the test lets it go on: a chunk paused there
    with its transaction open, its claimed rows locked (as a worker host cut off inside it)."""
    reached, go_on = threading.Event(), threading.Event()
    original = getattr(owner, name)

    def paused(*args: Any, **kwargs: Any) -> Any:
        reached.set()
        assert go_on.wait(30)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, paused)
    return reached, go_on


def _chunk_in_a_thread(tournament: Tournament, limit: int | None) -> tuple[threading.Thread,
                                                                          dict[str, int]]:
    from django.db import connection

    outcome: dict[str, int] = {}

    def chunk() -> None:
        try:
            outcome.update(runner.play(kind=TOURNAMENT, once=True, series_id=tournament.pk, limit=limit))
        finally:
            connection.close()

    thread = threading.Thread(target=chunk)
    thread.start()
    return thread, outcome


def _mixed_running(alice: Any, monkeypatch: Any) -> Tournament:
    """A running round robin of alice (her matches stay running) and three reference bots
    (played to the end in the chunk), no task queued by itself."""
    hold_tasks(monkeypatch, "tournaments.")
    tournament = create(alice, starts_at=timezone.now() + timedelta(hours=1),
                        participants=[{"kind": "player", "user": "alice"}, *refs(3)])
    Tournament.objects.filter(pk=tournament.pk).update(status="running")
    return tournament


def _statuses(tournament: Tournament) -> dict[int, str]:
    return dict(TournamentMatch.objects.filter(tournament=tournament)
                .values_list("pk", "status"))


@pytest.mark.postgres
def test_a_cancel_waits_for_no_claimed_chunk_and_the_chunk_then_gives_up(alice,
                                                                        monkeypatch) -> None:
    tournament = _mixed_running(alice, monkeypatch)
    reached, go_on = _pause(monkeypatch, kinds, "matches_play")
    thread, outcome = _chunk_in_a_thread(tournament, limit=2)
    try:
        assert reached.wait(20)
        began = time.monotonic()
        cancelled = services.tournament_cancel(tournament_id=tournament.pk, user=alice)
        took = time.monotonic() - began
        during = _statuses(tournament)
    finally:
        go_on.set()
        thread.join(30)
    assert cancelled.status == "cancelled"
    assert took < 1, f"the cancel waited {took:.1f} s for the claimed rows"
    assert sorted(during.values()) == ["cancelled"] * 4 + ["pending"] * 2, \
        "the free rows cancelled at once, the claimed ones left to their chunk"
    assert outcome == {"started": 0, "finished": 0, "forfeit": 0}, "the chunk gave up"
    assert set(_statuses(tournament).values()) == {"cancelled"}
    assert not Match.objects.filter(tournament_match__tournament=tournament).exists(), \
        "nothing of the chunk was kept"
    assert not Match.objects.filter(created_by=alice).exists()


@pytest.mark.postgres
def test_a_chunk_committed_after_its_cancel_is_cancelled_by_the_reaper(alice,
                                                                       monkeypatch) -> None:
    """A chunk past its last look at the tournament (a host cut off at its COMMIT) commits
    after the cancel: its running matches are stopped and their rows cancelled by the reaper;
    the matches it played to the end are kept, as every finished match of a cancelled
    tournament is."""
    tournament = _mixed_running(alice, monkeypatch)
    reached, go_on = _pause(monkeypatch, tournament_kind.leaderboard, "record")
    thread, outcome = _chunk_in_a_thread(tournament, limit=None)
    try:
        assert reached.wait(20)
        services.tournament_cancel(tournament_id=tournament.pk, user=alice)
    finally:
        go_on.set()
        thread.join(30)
    assert outcome == {"started": 3, "finished": 3, "forfeit": 0}, "committed late"
    assert sorted(_statuses(tournament).values()) == ["finished"] * 3 + ["running"] * 3
    assert runner.reap() >= 3
    assert sorted(_statuses(tournament).values()) == ["cancelled"] * 3 + ["finished"] * 3
    running = Match.objects.filter(tournament_match__tournament=tournament,
                                   tournament_match__status="cancelled")
    assert running.count() == 3 and set(running.values_list("status", flat=True)) == {
        "finished"}, "its matches stopped"
    assert runner.reap() == 0
    assert Tournament.objects.get(pk=tournament.pk).status == "cancelled"


@pytest.mark.postgres
def test_a_cancel_waits_for_the_tournament_s_row_at_most_the_lock_bound(alice, monkeypatch,
                                                                      settings) -> None:

    from tournaments.errors import TournamentBusy

    settings.TOURNAMENT_RECORD_LOCK_SECONDS = 1
    tournament = _mixed_running(alice, monkeypatch)
    with rows_locked(Tournament.objects.filter(pk=tournament.pk)):
        began = time.monotonic()
        with pytest.raises(TournamentBusy):
            services.tournament_cancel(tournament_id=tournament.pk, user=alice)
        took = time.monotonic() - began
    assert took < 3
    assert Tournament.objects.get(pk=tournament.pk).status == "running"
    assert set(_statuses(tournament).values()) == {"pending"}, "nothing changed"
    assert services.tournament_cancel(tournament_id=tournament.pk, user=alice).status == \
        "cancelled"


@pytest.mark.postgres
def test_a_chunk_rolled_back_by_a_held_lock_is_due_for_the_reaper_s_next_run(
        alice, monkeypatch, settings, django_user_model) -> None:
    """Its rows' queued message is spent: they are due at once (the reaper's next run queues
    them), not a whole TOURNAMENT_LEASE_SECONDS later; the other rows keep their lease."""

    settings.TOURNAMENT_RECORD_LOCK_SECONDS = 1
    held_tasks = hold_tasks(monkeypatch, "tournaments.")
    tournament = create(alice, starts_at=timezone.now() + timedelta(hours=1), participants=refs(4))
    Tournament.objects.filter(pk=tournament.pk).update(status="running")
    assert runner.dispatch(kind=TOURNAMENT, series_id=tournament.pk) == 1
    # The matches' created_by: checked at the chunk's COMMIT.
    with rows_locked(django_user_model.objects.filter(pk=alice.pk)):
        outcome = runner.play(kind=TOURNAMENT, once=True, series_id=tournament.pk, limit=2)
    assert outcome == {"started": 0, "finished": 0, "forfeit": 0}, "rolled back"
    rows = list(TournamentMatch.objects.filter(tournament=tournament).order_by("number"))
    assert {r.status for r in rows} == {"pending"} and not Match.objects.exists()
    now = timezone.now()
    assert all(r.lease_until <= now for r in rows[:2]), "its two rows are due"
    assert all(r.lease_until > now + timedelta(seconds=60) for r in rows[2:]), "the others not"
    del held_tasks[:]
    runner.reap()
    assert ("tournaments.play", TOURNAMENT, tournament.pk) in held_tasks, "queued again at once"
