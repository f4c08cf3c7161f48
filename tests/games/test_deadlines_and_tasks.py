"""Turn deadlines (default action + strike, forfeit after too many), the Celery tasks, seat
kinds registered by other apps, and the admin."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.utils import timezone

from games import services, tasks
from games.log import entries
from games.models import Match, MatchLogPage, Seat
from games.seats import SeatAnswer, SeatSession, Table, get_seat_kind, unregister_seat_kind
from tests.helpers.matches import act, out_of_process_kind, poll, replay_log, to_move

pytestmark = pytest.mark.django_db


def later(match: Match, seconds: int = 1) -> Any:
    return Match.objects.get(pk=match.pk).deadline + timedelta(seconds=seconds)


def test_deadline_is_set_from_the_move_time_limit(make_match, alice, bob) -> None:
    before = timezone.now()
    match = make_match("dice_cup", [alice, bob], move_time_limit=90)
    assert match.move_time_limit == 90
    assert before + timedelta(seconds=89) < match.deadline < timezone.now() + timedelta(seconds=91)
    default = make_match("dot", [alice, bob])
    assert default.move_time_limit == settings.BLUFF_DEFAULT_MOVE_TIME_LIMIT == 24 * 3600


def test_nothing_expires_before_the_deadline(duel) -> None:
    assert services.match_expire_deadlines() == 0
    assert Match.objects.get(pk=duel.pk).version == 0


def test_a_missed_deadline_plays_the_default_action_and_gives_a_strike(duel, alice_api,
                                                                       bob_api) -> None:
    applied = services.match_expire_deadlines(now=later(duel))
    assert applied == 1
    match = Match.objects.get(pk=duel.pk)
    assert match.version == 1 and match.deadline > timezone.now()
    [entry] = [e for e in entries(duel.pk) if e.n == 1]
    assert entry.kind == "timeout" and entry.seat == 0 and entry.action["type"]
    assert Seat.objects.get(match=duel, number=0).strikes == 1
    assert poll(alice_api, duel, 0).json()["strikes"] == 1
    assert poll(bob_api, duel, 1).json()["your_turn"]
    # The same sweep again does nothing: the deadline moved on.
    assert services.match_expire_deadlines(now=later(duel, -5)) == 0


def test_too_many_strikes_forfeit_the_seat(make_match, alice, bob, settings) -> None:
    settings.BLUFF_MAX_STRIKES = 5  # the match's own strike_limit counts, not the setting
    duel = make_match("dice_cup", [alice, bob], strike_limit=2)
    assert duel.strike_limit == 2
    for _ in range(6):
        match = Match.objects.get(pk=duel.pk)
        if match.status != "running" or Seat.objects.get(match=duel, number=0).forfeited:
            break
        services.match_expire_deadlines(now=later(match))
    alice_seat = Seat.objects.get(match=duel, number=0)
    assert alice_seat.strikes == 2 and alice_seat.forfeited
    assert any(e.kind == "resign" and e.seat == 0 for e in entries(duel.pk))
    while (match := Match.objects.get(pk=duel.pk)).status == "running":
        services.match_expire_deadlines(now=later(match))
    from games import selectors

    log = selectors.match_log(match=selectors.match_get(match_id=duel.pk))
    assert replay_log(log).result() == match.result, "timeouts and forfeits replay too"


def test_simultaneous_step_keeps_its_deadline_after_one_answer(make_match, alice, bob,
                                                               alice_api) -> None:
    match = make_match("dot", [alice, bob], move_time_limit=600)
    deadline = match.deadline
    version, legal = to_move(alice_api, match, 0)
    assert act(alice_api, match, 0, version, legal[0]).status_code == 200
    after = Match.objects.get(pk=match.pk)
    assert after.deadline == deadline, "bob's time did not restart because alice answered"
    assert services.match_expire_deadlines(now=deadline + timedelta(seconds=1)) == 1
    assert Seat.objects.get(match=match, number=1).strikes == 1
    assert Seat.objects.get(match=match, number=0).strikes == 0


def test_expire_deadlines_task_and_beat_schedule(duel) -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["games-expire-deadlines"]
    assert entry["task"] == tasks.expire_deadlines.name == "games.expire_deadlines"
    Match.objects.filter(pk=duel.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert tasks.expire_deadlines.apply().get() == 1
    assert tasks.expire_deadlines.apply().get() == 0


class EchoSeat(SeatSession):
    """A stand-in for an out-of-process seat (e.g. a webhook bot): picks the last action."""

    def __init__(self) -> None:
        self.asked: list[int] = []

    def session(self, table: Table) -> EchoSeat:
        return self

    def ask(self, state: Any, seats: list[int], version: int) -> dict[int, SeatAnswer]:
        self.asked.append(version)
        return {n: SeatAnswer(action=state.legal_actions(n)[-1]) for n in seats}


@pytest.fixture
def echo_kind() -> Any:
    yield from out_of_process_kind("echo", EchoSeat())


def test_out_of_process_seats_act_in_a_task_queued_on_commit(alice, alice_api, echo_kind,
                                                             django_capture_on_commit_callbacks,
                                                             monkeypatch) -> None:
    queued: list[int] = []
    monkeypatch.setattr(tasks.advance_automatic_seats, "delay", queued.append)
    match = services.match_create(game="dice_cup", created_by=alice, seed=1, join=True,
                                  seats=[{"kind": "player"}, {"kind": "echo", "bot": "x"}])
    version, legal = to_move(alice_api, match, 0)
    with django_capture_on_commit_callbacks(execute=True):
        answer = act(alice_api, match, 0, version, legal[0]).json()
    assert queued == [match.pk] and answer["version"] == version + 1, "not inside the request"
    moved = tasks.advance_automatic_seats.apply(args=[match.pk]).get()
    assert moved >= 1 and echo_kind.asked[0] == version + 1 and len(echo_kind.asked) == moved
    assert tasks.advance_automatic_seats.apply(args=[match.pk]).get() == 0, "idempotent"
    assert poll(alice_api, match, 0).json()["your_turn"]


def test_seat_kind_registry() -> None:
    assert get_seat_kind("player").automatic is None
    assert get_seat_kind("reference").inline
    unregister_seat_kind("player")  # built-ins stay
    assert get_seat_kind("player")
    with pytest.raises(KeyError):
        get_seat_kind("carrier_pigeon")


def test_games_never_imports_bots_or_tournaments() -> None:
    import ast
    from pathlib import Path

    root = Path(services.__file__).parent
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                assert name.split(".")[0] not in ("bots", "tournaments"), (path, name)


def test_admin_lists_and_read_only_logs(duel, client, django_user_model) -> None:
    admin = django_user_model.objects.create_superuser("root", "root@example.com", "pw")
    client.force_login(admin)
    for page in ("match", "seat", "matchlogpage", "appliedaction"):
        response = client.get(f"/admin/games/{page}/")
        assert response.status_code == 200, page
    assert client.get(f"/admin/games/match/{duel.pk}/change/").status_code == 200
    assert client.get("/admin/games/match/?status__exact=running&game=dice_cup").status_code == 200
    first = MatchLogPage.objects.filter(match=duel).first()
    assert client.get(f"/admin/games/matchlogpage/{first.pk}/change/").status_code == 200
    assert client.get("/admin/games/matchlogpage/add/").status_code == 403
    assert client.post(f"/admin/games/matchlogpage/{first.pk}/delete/").status_code == 403
