"""The ladder through the one series runner (docs/ladder.md): bots join, matches are chosen by
the matchmaker and played as the runner plays every series, results move the game's one
leaderboard, leaving stops new matches, a paused bot is never seated, and the withdrawal rule
pauses a bot instead of ending the ladder. Tasks run in this process, as a worker runs them.

The bots are a test seat kind (``graded``) played in-process by the engine's reference bots:
``heuristic-a`` plays as ``heuristic``; each has an owner of its own unless a test says so."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import timedelta
from itertools import pairwise
from typing import Any

import pytest
from django.utils import timezone

from games.engine import get_game
from games.seats import SeatAnswer, SeatKind, SeatSession, Table
from tests.helpers.matches import use_seat_kind
from tests.helpers.tasks import hold_tasks, run_tasks
from tournaments import runner
from tournaments.formats import PlannedMatch, SeriesState, get_format
from tournaments.ladders import services
from tournaments.ladders.errors import BadLadder, NotOnLadder, NotYourLadderBot
from tournaments.ladders.kind import entrant_of
from tournaments.models import (
    Ladder,
    LadderEntry,
    LadderMatch,
    LeaderboardEntry,
    RatingPoint,
)
from tournaments.runner import loop
from tournaments.scheduling.matchmaking import Entrant, Policy
from tournaments.scoring import leaderboard

pytestmark = pytest.mark.django_db(transaction=True)

KIND = "graded"


class GradedSeat(SeatSession):
    """A ``graded`` bot: the reference bot its name starts with, in-process; one that forfeits
    (``forfeit-...``) answers nothing usable, so strikes forfeit it."""

    def __init__(self, table: Table | None = None) -> None:
        self.table = table

    def session(self, table: Table) -> GradedSeat:
        return GradedSeat(table)

    def ask(self, state: Any, seats: Sequence[int], version: int) -> dict[int, SeatAnswer]:
        return {n: self.ask_one(state, n, version) for n in seats}

    def ask_one(self, state: Any, seat: int, version: int) -> SeatAnswer:
        program = self.table.seats[seat].bot.split("-")[0]
        if program == "forfeit":
            return SeatAnswer(strike="timeout", detail="never answers")
        bot = get_game(self.table.game).make_bot(program, seat,
                                                 self.table.seed * 7919 + version)
        return SeatAnswer(bot.choose(state.view(seat), state.legal_actions(seat)), None, "", True)


class Bots:
    """Who owns each graded bot (``SeatKind.bot_owners``) and which cannot be seated now."""

    def __init__(self) -> None:
        self.owners: dict[str, int] = {}
        self.broken: set[str] = set()

    def check(self, game: str, bot: str, user: Any) -> None:
        if bot in self.broken:
            raise ValueError(f"bot {bot} is disabled")

    def owners_of(self, bots: set[str]) -> dict[str, int]:
        return {bot: self.owners[bot] for bot in bots if bot in self.owners}


@pytest.fixture
def bots(request: Any, make_user: Any) -> Bots:
    found = Bots()
    use_seat_kind(request, SeatKind(name=KIND, automatic=GradedSeat(), inline=True,
                                    check_bot=found.check, bot_owners=found.owners_of,
                                    label="graded bot"))
    return found


@pytest.fixture
def owned(bots: Bots, make_user: Any) -> Any:
    """``owned("heuristic-a", owner=None)``: a graded bot with an owner of its own (or
    ``owner``), returned as its name."""
    made = iter(range(1000))

    def make(name: str, owner: Any = None) -> str:
        owner = owner or make_user(f"owner{next(made)}-{name}")
        bots.owners[name] = owner.pk
        return name

    return make


@pytest.fixture
def held(monkeypatch: Any) -> list[tuple[Any, ...]]:
    """Ladder tasks queued and never run (no worker): what a join queues."""
    return hold_tasks(monkeypatch, "tournaments.")


def join(name: str, game: str = "dice_cup") -> LadderEntry:
    entry, _ = services.ladder_join(game=game, user=None, bot=name, kind=KIND)
    return entry


def finished(ladder: Ladder) -> list[LadderMatch]:
    return list(LadderMatch.objects.filter(ladder=ladder, status="finished").order_by("number"))


def cap_pairs(game: str, cap: int, **fields: Any) -> Ladder:
    """The game's ladder, made now, with each pair playing at most ``cap`` matches a day."""
    ladder = services.ladder_get_or_create(game=game)
    Ladder.objects.filter(pk=ladder.pk).update(pair_cap_per_day=cap, **fields)
    ladder.refresh_from_db()
    return ladder


def test_a_ladder_plays_until_every_pair_met_its_cap_and_rates_every_match(
        bots: Bots, owned: Any, inline_tasks: Any, client: Any) -> None:
    ladder = cap_pairs("dice_cup", 2)
    names = [owned(n) for n in ("heuristic-a", "heuristic-b", "random-a", "random-b")]
    entries = [join(name) for name in names]
    played = finished(ladder)
    assert len(played) == 6 * 2, "every pair of four, twice, in process: then the day's cap"
    assert LadderMatch.objects.filter(ladder=ladder).exclude(status="finished").count() == 0
    pairs = Counter(frozenset(row.seats) for row in played)
    assert set(pairs.values()) == {2} and len(pairs) == 6
    assert [row.number for row in played] == list(range(12)), "keys: the n-th match planned"
    for entry in entries:
        rating = LeaderboardEntry.objects.get(game="dice_cup", kind=KIND, ref=entry.bot)
        assert rating.matches == 6, "one rating: the game's leaderboard moved by each match"
        assert rating.sigma < 25 / 3
        assert RatingPoint.objects.filter(entry=rating).count() == 6
        entry.refresh_from_db()
        assert entry.rating_id == rating.pk and entry.last_match_at is not None
        assert entry.burst_left == max(0, ladder.burst - 6)
    assert all(row.match_id and row.ranks for row in played)
    assert {row.match.series for row in played} == {"ladder"}
    page = client.get(f"/matches/{played[0].match_id}/").content.decode()
    assert 'href="/ladders/dice_cup/"' in page and "ladder, match 1" in page
    listed = client.get("/api/ladders/dice_cup/matches/", {"limit": 5}).json()
    assert [m["number"] for m in listed["results"]] == [11, 10, 9, 8, 7], "latest first"
    newest = listed["results"][0]
    assert newest["match"] == played[-1].match_id and newest["status"] == "finished"
    assert [s["entry"] for s in newest["seats"]] == played[-1].seats
    assert {s["name"] for s in newest["seats"]} <= {f"graded {n}" for n in names}
    assert sorted(newest["places"]) in ([1, 2], [1, 1]) and newest["forfeited"] == []
    rest = client.get(listed["next"]).json()
    assert [m["number"] for m in rest["results"]] == [6, 5, 4, 3, 2]
    ladder_page = client.get("/ladders/dice_cup/").content.decode()
    assert ladder_page.count(f'href="/matches/{played[-1].match_id}/"') >= 1

    def board() -> list[tuple[Any, ...]]:
        return list(LeaderboardEntry.objects.order_by("pk").values_list(
            "pk", "ref", "mu", "sigma", "matches", "last_played_at"))

    before, points = board(), RatingPoint.objects.count()
    assert leaderboard.rebuild() == 12, "ladder matches are replayed too"
    assert board() == before and RatingPoint.objects.count() == points, \
        "the same board, in the same rows the entries point at"


def test_each_rated_ladder_match_keeps_how_far_it_moved_each_seat_s_rating(
        bots: Bots, owned: Any, inline_tasks: Any, client: Any, settings: Any) -> None:
    """``rating_changes``: by seat, the ordinal after the match minus before it, so a bot's
    changes add up to its rating; none for a forfeit. The API and the bot's ladder history
    show them, and a rebuild of the board makes them again."""
    settings.SERIES_FORFEITS_TO_WITHDRAW = 100
    ladder = cap_pairs("dice_cup", 3, strike_limit=1)
    names = [owned(n) for n in ("heuristic-a", "random-a", "forfeit-a")]
    entries = {name: join(name) for name in names}
    played = finished(ladder)
    assert len(played) == 3 * 3
    start = leaderboard.MODEL.rating().ordinal()

    def add_up() -> None:
        rows = finished(ladder)
        for row in rows:
            if row.forfeited:
                assert row.rating_changes is None, "a forfeit moves no rating"
            else:
                assert len(row.rating_changes) == 2 and all(row.rating_changes)
        for name in ("heuristic-a", "random-a"):
            pk = entries[name].pk
            moved = sum(row.rating_changes[row.seats.index(pk)] for row in rows
                        if pk in row.seats and row.rating_changes)
            rating = LeaderboardEntry.objects.get(game="dice_cup", kind=KIND, ref=name)
            assert rating.matches == 3
            assert moved == pytest.approx(rating.ordinal - start), name

    add_up()
    rated = next(row for row in played if row.rating_changes)
    listed = client.get("/api/ladders/dice_cup/matches/", {"limit": 20}).json()["results"]
    shown = {m["number"]: m["rating_changes"] for m in listed}
    assert shown == {row.number: row.rating_changes for row in played}
    heuristic = entries["heuristic-a"].pk
    history = client.get("/ladders/dice_cup/", {"entry": heuristic}).content.decode()
    for row in played:
        if heuristic in row.seats and row.rating_changes:
            assert f"{row.rating_changes[row.seats.index(heuristic)]:+.2f}</td>" in history
    assert "Rating change</th>" in history
    assert history.count("it moved no rating\">unrated</span>") == 3, \
        "its three matches against the forfeiter moved no rating"
    assert "Rating change</th>" not in client.get("/ladders/dice_cup/").content.decode(), \
        "every bot's matches: no one bot's change to show"
    LadderMatch.objects.update(rating_changes=None)
    leaderboard.rebuild()
    add_up()
    assert LadderMatch.objects.get(pk=rated.pk).rating_changes == pytest.approx(
        rated.rating_changes)


@pytest.mark.parametrize("cap", [1, 2])
def test_bots_played_by_workers_keep_the_in_flight_cap_match_after_match(
        request: Any, bots: Bots, owned: Any, inline_tasks: Any, monkeypatch: Any,
        cap: int) -> None:
    """As webhook bots: asked by the games task, not in the chunk; each match that ends is
    recorded by the receiver, which starts the next one (one in flight at a time here)."""
    use_seat_kind(request, SeatKind(name=KIND, automatic=GradedSeat(), inline=False,
                                    check_bot=bots.check, bot_owners=bots.owners_of))
    held = hold_tasks(monkeypatch, "games.")  # no games worker yet: matches stay running
    ladder = cap_pairs("dice_cup", 2, max_in_flight=cap)
    for name in ("heuristic-a", "heuristic-b", "random-a", "random-b"):
        join(owned(name))  # two matches could run at once: the ladder's cap says

    def rows() -> list[LadderMatch]:
        return list(LadderMatch.objects.filter(ladder=ladder).order_by("number"))

    assert [r.status for r in rows()] == ["running"] * cap, "the ladder's cap, in matches"
    assert held == [("games.advance_automatic_seats", r.match_id) for r in rows()]
    run_tasks(monkeypatch, "games.")  # a games worker now: each match it ends is recorded,
    # and the next one started, whose games task this worker runs in turn
    from games.tasks import advance_automatic_seats

    for row in rows():
        advance_automatic_seats.apply(args=[row.match_id], throw=True)
    played = rows()
    assert len(played) == 12 and {r.status for r in played} == {"finished"}
    assert set(Counter(frozenset(r.seats) for r in played).values()) == {2}, "the day's cap"
    assert all(r.match.status == "finished" and r.ranks for r in played)
    if cap == 1:
        spans = sorted((r.match.started_at, r.match.finished_at) for r in played)
        assert all(end <= start for (_, end), (start, _) in pairwise(spans)), \
            "one in flight at a time: each starts once the one before has ended"


def test_the_reapers_sweep_starts_what_the_day_allows_again(bots: Bots, owned: Any,
                                                            inline_tasks: Any) -> None:
    ladder = cap_pairs("dice_cup", 1)
    join(owned("heuristic-a"))
    join(owned("random-a"))
    assert len(finished(ladder)) == 1
    runner.reap()
    assert len(finished(ladder)) == 1, "the pair's cap for the day holds"
    LadderMatch.objects.filter(ladder=ladder).update(
        created_at=timezone.now() - timedelta(hours=25))
    runner.reap()  # a day later: the beat's sweep starts the next
    assert len(finished(ladder)) == 2


def test_leaving_stops_new_matches_and_joining_again_starts_them(
        bots: Bots, owned: Any, inline_tasks: Any) -> None:
    ladder = cap_pairs("dice_cup", 3)
    a, b, c = (owned(n) for n in ("heuristic-a", "random-a", "random-b"))
    join(a)
    join(b)
    assert len(finished(ladder)) == 3
    services.ladder_leave(game="dice_cup", user=None, bot=a, kind=KIND)
    entry_c = join(c)
    seated = [set(row.seats) for row in finished(ladder)[3:]]
    assert len(seated) == 3, "b and c meet up to their cap"
    a_id = LadderEntry.objects.get(bot=a).pk
    assert all(a_id not in seats for seats in seated), "a left: never seated again"
    assert all(entry_c.pk in seats for seats in seated)
    with pytest.raises(NotOnLadder):
        services.ladder_leave(game="dice_cup", user=None, bot=a, kind=KIND)
    entry_a, changed = services.ladder_join(game="dice_cup", user=None, bot=a, kind=KIND)
    assert changed and entry_a.pk == a_id and entry_a.left_at is None, "the same entry"
    assert len(finished(ladder)) == 9, "a meets c three times now (a and b are capped)"


def test_a_match_planned_for_a_bot_that_left_before_it_started_is_cancelled_not_forfeited(
        bots: Bots, owned: Any, held: Any) -> None:
    """Leaving between a match's planning and its start (its play task on its way): the
    match is cancelled. The bot that left forfeited nothing, its opponent played nothing (its
    burst and last match stand), nobody is rated, and the next match is numbered past it."""
    ladder = cap_pairs("dice_cup", 5)
    a, b = owned("heuristic-a"), owned("random-a")
    join(a)
    join(b)
    loop.advance(kind="ladder", series_id=ladder.pk)  # what the join queued: planned, not run
    [planned] = LadderMatch.objects.filter(ladder=ladder)
    assert planned.status == "pending"
    services.ladder_leave(game="dice_cup", user=None, bot=b, kind=KIND)
    assert loop.play(kind="ladder", series_id=ladder.pk) == {
        "started": 0, "finished": 0, "forfeit": 0}
    planned.refresh_from_db()
    assert (planned.status, planned.forfeited, planned.ranks, planned.match_id) == (
        "cancelled", [], None, None)
    entry_a = LadderEntry.objects.get(bot=a)
    assert (entry_a.burst_left, entry_a.last_match_at) == (ladder.burst, None)
    assert not RatingPoint.objects.exists()
    join(owned("random-b"))
    loop.advance(kind="ladder", series_id=ladder.pk)
    loop.play(kind="ladder", series_id=ladder.pk)
    assert [row.number for row in finished(ladder)][:1] == [1], "a meets c, past the cancelled"


def test_a_paused_entrant_is_never_chosen(bots: Bots, owned: Any, inline_tasks: Any) -> None:
    ladder = cap_pairs("dice_cup", 5)
    a, b = owned("heuristic-a"), owned("random-a")
    join(a)
    LadderEntry.objects.filter(bot=a).update(paused=True, paused_reason="by hand")
    join(b)
    assert finished(ladder) == [], "its only opponent is paused"
    runner.reap()
    assert finished(ladder) == []
    services.ladder_join(game="dice_cup", user=None, bot=a, kind=KIND)  # the owner resumes
    assert len(finished(ladder)) == 5


def test_forfeits_in_a_row_pause_the_bot_and_the_ladder_goes_on(
        bots: Bots, owned: Any, inline_tasks: Any, settings: Any, monkeypatch: Any) -> None:
    settings.SERIES_FORFEITS_TO_WITHDRAW = 2
    # The rule is applied as a chunk ends; a chunk chains in-process matches for up to this
    # long (a webhook bot's matches end one by one, each recorded with the rule applied).
    monkeypatch.setattr(loop, "BATCH_SECONDS", 0.0)
    ladder = cap_pairs("dice_cup", 10, strike_limit=1)
    bad, good, other = owned("forfeit-a"), owned("heuristic-a"), owned("random-a")
    for name in (bad, good, other):
        join(name)
    entry = LadderEntry.objects.get(bot=bad)
    assert entry.paused and entry.paused_reason == "forfeited 2 matches in a row"
    mine = [row for row in finished(ladder) if entry.pk in row.seats]
    assert len(mine) == 2 and all(entry.pk in row.forfeited for row in mine)
    ladder.refresh_from_db()
    assert ladder.status == "running", "a ladder never ends"
    others = {LadderEntry.objects.get(bot=good).pk, LadderEntry.objects.get(bot=other).pk}
    assert Counter(frozenset(r.seats) for r in finished(ladder))[frozenset(others)] == 10
    rating = LeaderboardEntry.objects.get(game="dice_cup", kind=KIND, ref=bad)
    assert rating.matches == 0, "a forfeit is never rated"


def test_a_bot_that_cannot_be_seated_is_paused_and_resumes_when_it_can(
        bots: Bots, owned: Any, inline_tasks: Any) -> None:
    ladder = cap_pairs("dice_cup", 2)
    a, b = owned("heuristic-a"), owned("random-a")
    join(a)
    bots.broken.add(a)  # disabled after joining
    join(b)
    entry = LadderEntry.objects.get(bot=a)
    assert entry.paused and entry.paused_reason == f"cannot be seated: bot {a} is disabled"
    assert not LadderMatch.objects.filter(ladder=ladder).exists(), (
        "paused before any match seats it: nothing forfeited, nobody scored a walkover")
    bots.broken.discard(a)
    runner.reap()  # the ladder looks again: it answers, it is back
    entry.refresh_from_db()
    assert not entry.paused
    assert any(row.match_id for row in finished(ladder))


def test_a_ladder_of_three_seats_plays_tables_of_three_beside_the_first(
        bots: Bots, owned: Any, inline_tasks: Any) -> None:
    """A game's ladder at another table size: its own entries and matches, the one rating."""
    names = [owned(n) for n in ("heuristic-a", "random-a", "random-b")]
    for name in names:
        services.ladder_join(game="dice_cup", user=None, bot=name, kind=KIND, seats=3)
    ladder = Ladder.objects.get(game="dice_cup", seats=3)
    played = finished(ladder)
    assert len(played) == ladder.pair_cap_per_day, "each table holds every pair: its cap"
    assert all(len(row.seats) == 3 and sorted(row.ranks) != [1, 1, 1] for row in played)
    assert not Ladder.objects.filter(game="dice_cup", seats=2).exists(), "the first untouched"
    join(names[0])  # the same bot on the two-seat ladder too: one rating for both
    two = Ladder.objects.get(game="dice_cup", seats=2)
    assert LadderEntry.objects.get(ladder=two).rating_id == LadderEntry.objects.get(
        ladder=ladder, bot=names[0]).rating_id
    rating = LeaderboardEntry.objects.get(game="dice_cup", kind=KIND, ref=names[0])
    assert rating.matches == len(played)
    with pytest.raises(NotOnLadder):
        services.ladder_leave(game="dice_cup", user=None, bot=names[1], kind=KIND)
    services.ladder_leave(game="dice_cup", user=None, bot=names[1], kind=KIND, seats=3)
    with pytest.raises(BadLadder):
        services.ladder_join(game="dot", user=None, bot=names[1], kind=KIND, seats=3)


def test_two_bots_of_one_owner_never_meet(bots: Bots, owned: Any, make_user: Any,
                                          inline_tasks: Any) -> None:
    ladder = cap_pairs("dice_cup", 2)
    carol = make_user("carol")
    join(owned("heuristic-a", owner=carol))
    join(owned("random-a", owner=carol))
    assert finished(ladder) == []
    join(owned("random-b"))
    assert len(finished(ladder)) == 4


def test_only_the_owner_or_staff_puts_a_bot_on_or_off(bots: Bots, owned: Any, alice: Any,
                                                      bob: Any, held: Any) -> None:
    name = owned("heuristic-a", owner=alice)
    with pytest.raises(NotYourLadderBot):
        services.ladder_join(game="dice_cup", user=bob, bot=name, kind=KIND)
    entry, changed = services.ladder_join(game="dice_cup", user=alice, bot=name, kind=KIND)
    assert changed and entry.owner_id == alice.pk
    assert held == [("tournaments.advance", "ladder", entry.ladder_id)], "its first match now"
    assert services.ladder_join(game="dice_cup", user=alice, bot=name, kind=KIND)[1] is False
    with pytest.raises(NotYourLadderBot):
        services.ladder_leave(game="dice_cup", user=bob, bot=name, kind=KIND)
    bob.is_staff = True
    assert services.ladder_leave(game="dice_cup", user=bob, bot=name, kind=KIND).left_at


def test_the_format_seats_nobody_in_flight_paused_or_out_and_keys_follow_the_count() -> None:
    field = [Entrant(id=i, mu=25.0, sigma=8.0, owner=i) for i in range(6)]
    field[5] = Entrant(id=5, mu=25.0, sigma=8.0, owner=5, paused=True)
    ladder = get_format("ladder", entrants=field, policy=Policy(max_in_flight=16),
                        secret="00" * 32)
    running = {"7": PlannedMatch(key="7", seats=(0, 1), seed=1, number=7)}
    state = SeriesState(now=timezone.now(), finished=7, open=1, withdrawn={4},
                        running=lambda: running)
    plan = ladder.next(state)
    assert [m.key for m in plan.start] == ["8"], "2 and 3: the only free pair"
    assert set(plan.start[0].seats) == {2, 3} and not plan.over
    again = ladder.next(SeriesState(now=state.now, finished=7, open=1, withdrawn={4},
                                    running=lambda: running))
    assert again.start == plan.start, "the same state, the same match and deal"
    capped = get_format("ladder", entrants=field, policy=Policy(max_in_flight=2),
                        secret="00" * 32).next(state)
    assert len(capped.start) == 1, "one match in flight of two: room for one (not per seat)"
    restarted = get_format("ladder", entrants=field, policy=Policy(max_in_flight=16),
                           secret="00" * 32, cancelled=2)
    assert [m.key for m in restarted.next(state).start] == ["10"], "past cancelled keys"


def test_an_entry_as_the_matchmaker_sees_it(bots: Bots, owned: Any, alice: Any,
                                            held: Any) -> None:
    entry = join(owned("heuristic-a", owner=alice))
    seen = entrant_of(LadderEntry.objects.select_related("rating").get(pk=entry.pk))
    assert (seen.id, seen.owner, seen.last_played, seen.paused) == (entry.pk, alice.pk, None,
                                                                    False)
    assert seen.burst == Ladder.objects.get().burst and seen.mu == pytest.approx(25.0)
