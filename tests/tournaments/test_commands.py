"""``manage.py run_tournament``: create and play a tournament of reference bots from the
terminal, or play one that waits for its start time, and print standings and balance."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from tournaments import services
from tournaments.models import Tournament, TournamentMatch

from .conftest import REFERENCE

pytestmark = pytest.mark.django_db(transaction=True)


def run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("run_tournament", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_create_plays_to_the_end_and_prints_balance_and_standings(alice) -> None:
    out, err = run("--create", "dice_cup", "--participants",
                   "reference:heuristic,reference:random,reference:random", "--table-size", "2",
                   "--meetings", "2", "--seed", "5", "--organiser", "alice", "--name", "cli cup")
    tournament = Tournament.objects.get(name="cli cup")
    assert tournament.status == "finished" and tournament.organiser == alice
    assert tournament.seed == 5 and tournament.meetings == 2
    rows = TournamentMatch.objects.filter(tournament=tournament)
    assert rows.count() == 6 and {r.status for r in rows} == {"finished"}
    lines = out.splitlines()
    assert lines[0] == f"created tournament #{tournament.pk}: 6 matches"
    balance = "balance: pair meetings 2..2, seat-position spread 0, matches per participant 4..4"
    assert lines[1] == balance and lines[-1] == balance, "at creation and at the end"
    assert "finished, 6/6 matches finished" in out
    table = lines[lines.index(next(line for line in lines if line.strip().startswith("place")))
                  + 1:-1]
    assert [line.split()[0] for line in table] == ["1", "2", "3"]
    # The participant column is 28 wide and a name has spaces: "heuristic (reference bot)".
    assert all(line[36:43].strip() == "4" for line in table), "matches per participant"
    assert "6/6" in err, "the progress bar counts matches on stderr"


def test_it_plays_a_scheduled_tournament_by_id_without_a_progress_bar(alice) -> None:
    tournament = services.tournament_create(
        organiser=alice, name="later", game="dice_cup", participants=REFERENCE, table_size=2,
        meetings=3, seed=1, starts_at=timezone.now() + timedelta(hours=1))
    assert tournament.status == "scheduled"
    out, err = run(str(tournament.pk), "--no-progress")
    tournament.refresh_from_db()
    assert tournament.status == "finished" and tournament.started_at
    assert "finished, 3/3 matches finished" in out and "heuristic (reference bot)" in out
    assert err == ""
    out, _ = run(str(tournament.pk), "--no-progress")
    assert "finished, 3/3 matches finished" in out, "running it again plays nothing twice"
    assert TournamentMatch.objects.filter(tournament=tournament, attempts=1).count() == 3


@pytest.mark.parametrize("args, words", [
    ((), "--create"),
    (("999999",), "No such tournament"),
    (("--create", "dice_cup", "--participants", "reference"), "KIND:WHO"),
    (("--create", "dice_cup", "--participants", "robot:x,reference:random"), "KIND:WHO"),
    (("--create", "dice_cup", "--participants", "reference:heuristic,reference:random"),
     "superuser"),
    (("--create", "dice_cup", "--participants", "reference:heuristic,player:ghost",
      "--table-size", "2", "--organiser", "alice"), "ghost"),
])
def test_bad_arguments_say_what_is_wrong(alice, args, words) -> None:
    with pytest.raises(CommandError, match=words):
        run(*args)
    assert not Tournament.objects.exists()


def test_it_asks_out_of_process_seats_itself(alice, request) -> None:
    """Webhook seats (here a stand-in asked the same way, with no worker running) are asked by
    the command until their matches end."""
    from games import seats
    from tests.helpers.matches import EchoSeat, use_seat_kind

    echo = EchoSeat()
    use_seat_kind(request, seats.SeatKind(
        name="webhook", automatic=echo, inline=False,
        check_bot=lambda game, bot, user=None: None))
    out, _ = run("--create", "dice_cup", "--participants", "webhook:7,reference:random",
                 "--table-size", "2", "--meetings", "2", "--organiser", "alice",
                 "--no-progress")
    assert "finished, 2/2 matches finished" in out and echo.asked, "the stand-in was asked"
    assert "webhook 7" in out


def test_duplicate_balance_counts_matches_not_deals(alice) -> None:
    out, _ = run("--create", "dice_cup", "--participants", "reference:heuristic,reference:random",
                 "--table-size", "2", "--duplicate", "--organiser", "alice", "--no-progress")
    assert "matches per participant 2..2" in out and "finished, 2/2 matches finished" in out


@pytest.mark.parametrize("flag", [False, True])
def test_allow_private_lets_it_call_a_bot_on_this_machine(alice, settings, flag) -> None:
    """The README runs it from a terminal, where BOTS_ALLOW_PRIVATE_ADDRESSES is not set (only
    `make run` sets it): a bot on 127.0.0.1 got blocked_address strikes, and nothing said how
    to allow it. ``--allow-private`` lets it through; without it the call log names both the
    setting and the flag."""
    from bots.models import Bot, BotCall
    from bots.refserver import RefBotServer
    from bots.signing import new_secret
    from games.engine import game_ids

    settings.BOTS_ALLOW_PRIVATE_ADDRESSES = False
    server = RefBotServer(("127.0.0.1", 0))
    server.serve_in_thread()
    try:
        bot = Bot.objects.create(owner=alice, name="local", url=f"{server.base_url}/random",
                                 secret=new_secret(), games=list(game_ids()), handshake_ok=True)
        out, _ = run("--create", "dice_cup", "--participants",
                     f"webhook:{bot.pk},reference:random", "--table-size", "2",
                     "--organiser", "alice", "--no-progress",
                     *(["--allow-private"] if flag else []))
    finally:
        server.shutdown()
        server.server_close()
    assert "finished, 1/1 matches finished" in out
    calls = BotCall.objects.filter(bot=bot, path="move")
    assert calls.exists()
    blocked = calls.filter(reason="blocked_address")
    if flag:
        assert not blocked.exists() and calls.filter(reason="").exists()
    else:
        assert blocked.exists()
        assert "BOTS_ALLOW_PRIVATE_ADDRESSES=1" in blocked[0].detail
        assert "--allow-private" in blocked[0].detail
    assert settings.BOTS_ALLOW_PRIVATE_ADDRESSES is False, "only while the command runs"


def test_it_waits_for_the_matches_a_worker_is_playing(alice, monkeypatch, request) -> None:
    """Next to running workers (make run's), a match a worker is asking the bots of (its lease
    held) ends without the command: it waits, its bar moving, and prints the final standings
    instead of leaving with the match running."""
    from games import seats
    from games.models import Match
    from games.services import match_advance_automatic_seats
    from tests.helpers.matches import EchoSeat, use_seat_kind
    from tests.helpers.series import TOURNAMENT
    from tests.helpers.tasks import hold_tasks
    from tournaments import runner
    from tournaments.management.commands import run_tournament

    hold_tasks(monkeypatch)  # no worker of the test's own: the "worker" is the fake below
    use_seat_kind(request, seats.SeatKind(
        name="webhook", automatic=EchoSeat(), inline=False,
        check_bot=lambda game, bot, user=None: None))
    tournament = services.tournament_create(
        organiser=alice, name="shared", game="dice_cup", table_size=2, meetings=2, seed=3,
        participants=[{"kind": "webhook", "bot": "7"}, {"kind": "reference", "bot": "random"}])
    runner.play(kind=TOURNAMENT, once=True, series_id=tournament.pk)
    busy = TournamentMatch.objects.filter(tournament=tournament).order_by("pk").first()
    Match.objects.filter(pk=busy.match_id).update(
        lease_until=timezone.now() + timedelta(hours=1))  # a worker is asking its bots
    waits = []

    def worker_plays_on(seconds: float) -> None:
        waits.append(seconds)
        if len(waits) == 3:  # the worker's task ends the match and lets go
            Match.objects.filter(pk=busy.match_id).update(lease_until=None)
            match_advance_automatic_seats(match_id=busy.match_id)
            runner.record(kind=TOURNAMENT, match_id=busy.match_id)

    monkeypatch.setattr(run_tournament, "sleep", worker_plays_on)
    out, _ = run(str(tournament.pk), "--no-progress")
    assert len(waits) == 3, "it waited while the worker held the match, and no longer"
    assert "finished, 2/2 matches finished (0 forfeits, 0 running" in out
    busy.refresh_from_db()
    assert busy.status == "finished" and busy.attempts == 1, "played once, by the worker"


def test_it_waits_for_a_polling_player_and_fails_if_the_time_runs_out(alice, monkeypatch) -> None:
    """A person's match goes on at their pace: the command waits for it (here past its
    ``--timeout``: it prints where the tournament stands and exits non-zero), and a second run
    ends well once the person has resigned."""
    from games.services import match_resign
    from tournaments.management.commands import run_tournament

    tournament = services.tournament_create(
        organiser=alice, name="with a person", game="dice_cup", table_size=2, seed=2,
        participants=[{"kind": "player", "user": "alice"}, {"kind": "reference", "bot": "random"}])
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError, match=r"did not finish: it is running after 1 s"):
        call_command("run_tournament", str(tournament.pk), "--timeout", "1", stdout=out,
                     stderr=err)
    assert "running, 0/1 matches finished (0 forfeits, 1 running" in out.getvalue()
    assert "0/1" in err.getvalue(), "the bar counts the same"
    row = TournamentMatch.objects.get(tournament=tournament)
    seat = row.seats.index(0)  # alice is participant 0

    def the_person_resigns(seconds: float) -> None:
        match_resign(match_id=row.match_id, seat_number=seat, user=alice)

    monkeypatch.setattr(run_tournament, "sleep", the_person_resigns)
    out, _ = run(str(tournament.pk), "--no-progress")
    assert "finished, 1/1 matches finished" in out


def test_a_cancelled_tournament_exits_non_zero(alice) -> None:
    tournament = services.tournament_create(
        organiser=alice, name="called off", game="dice_cup", participants=REFERENCE,
        table_size=2, seed=1, starts_at=timezone.now() + timedelta(hours=1))
    services.tournament_cancel(tournament_id=tournament.pk, user=alice)
    with pytest.raises(CommandError, match="did not finish: it is cancelled$"):
        run(str(tournament.pk), "--no-progress")
