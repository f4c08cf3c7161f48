"""Deals nobody can predict (docs/tournaments.md, "What is public when"): every deal of a
series is seeded by a keyed one-way function of a secret the series keeps until it is over
(``games.engine.rng.deal_seed``). While it runs, its finished matches' seeds are public; from
them, and from everything else a competitor can read (the API, the pages, a seat's view and
the match logs), no running or future deal can be computed. Once over, its secret is
published and every deal is recomputed from it, by anyone (the formula) or by the command.

The attack is the one that worked when deals were successive outputs of one SplitMix64
generator: its output function is a bijection, so one published seed gave the generator's
state and every other deal of the tournament."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone

from games.engine.rng import SEED_BITS, deal_seed, derived_secret, secret_from_seed
from games.models import Match
from games.services import match_expire_deadlines
from tests.helpers.leagues import URL as LEAGUES
from tests.helpers.leagues import create, refs, schedule_now
from tests.helpers.series import LEAGUE
from tests.helpers.tasks import hold_tasks
from tournaments import runner
from tournaments.leagues import nights
from tournaments.models import League, Night, Tournament, TournamentMatch

pytestmark = pytest.mark.django_db(transaction=True)

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15


def _unshift(z: int, k: int) -> int:
    x = z
    for _ in range(64 // k + 1):
        x = z ^ (x >> k)
    return x


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def _unmix(z: int) -> int:
    z = _unshift(z, 31)
    z = (z * pow(0x94D049BB133111EB, -1, 1 << 64)) & _MASK
    z = _unshift(z, 27)
    z = (z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64)) & _MASK
    return _unshift(z, 30)


def predicted(published: int, reach: int = 200) -> set[int]:
    """Every seed a SplitMix64 stream through ``published`` (a 63-bit output) gives within
    ``reach`` steps either way: both values of the bit the shift dropped."""
    out = set()
    for low in (0, 1):
        state = _unmix((published << (64 - SEED_BITS)) | low)
        out |= {_mix((state + step * _GAMMA) & _MASK) >> (64 - SEED_BITS)
                for step in range(-reach, reach + 1)}
    return out


def test_the_attack_predicts_a_splitmix_stream() -> None:
    """The attack itself works (so the tests below can fail)."""
    from games.engine.rng import Rng

    rng = Rng(12345)
    seeds = [rng.next64() >> (64 - SEED_BITS) for _ in range(10)]
    assert set(seeds) <= predicted(seeds[3])


def bodies(client: Any, tournament_id: int, match_ids: list[int]) -> str:
    """Everything a competitor reads of a tournament in progress, as one text."""
    texts = [client.get(f"/api/tournaments/{tournament_id}/").content,
             client.get(f"/api/tournaments/{tournament_id}/matches/").content,
             client.get(f"/api/tournaments/{tournament_id}/standings/").content,
             client.get(f"/tournaments/{tournament_id}/").content]
    for match_id in match_ids:
        texts += [client.get(f"/api/matches/{match_id}/").content,
                  client.get(f"/api/matches/{match_id}/view/").content,
                  client.get(f"/api/matches/{match_id}/log/").content,
                  client.get(f"/api/matches/{match_id}/seats/0/").content,
                  client.get(f"/matches/{match_id}/").content]
    return b"\n".join(texts).decode()


@pytest.mark.parametrize("shape", [{"table_size": 2}, {"table_size": 3},
                                   {"table_size": 2, "duplicate": True},
                                   {"format": "swiss", "rounds": 3}])
def test_no_running_or_future_deal_can_be_computed_and_all_are_once_over(
        alice_api, bob_api, bob, inline_tasks, shape) -> None:
    participants = [{"kind": "player", "user": "bob"},
                    *[{"kind": "reference", "bot": bot} for bot in
                      ("heuristic", "random", "heuristic", "random", "heuristic")]]
    created = alice_api.post("/api/tournaments/", {
        "name": "sealed deals", "game": "dice_cup", "participants": participants,
        "move_time_limit": 5, "strike_limit": 1, **shape}, format="json")
    assert created.status_code == 201, created.json()
    tournament_id = created.json()["id"]
    rows = TournamentMatch.objects.filter(tournament_id=tournament_id)
    finished = rows.filter(status="finished")
    running = rows.filter(status="running")
    assert finished.exists() and running.exists(), "bob's matches wait, the bots' are done"

    # What the public knows: every finished match's seed (shown once the match is over).
    published = [alice_api.get(f"/api/matches/{m}/").json()["seed"]
                 for m in finished.values_list("match_id", flat=True)]
    shown = {int(seed) for seed in published if seed is not None}
    if shape.get("duplicate"):
        assert not shown, "a duplicate deal stays sealed until every rotation is played"
        shown = set(Match.objects.filter(pk__in=finished.values("match_id"))
                    .values_list("seed", flat=True))  # as if shown: still nothing predicted
    assert shown, "finished matches show their seeds"
    hidden = set(Match.objects.filter(pk__in=running.values("match_id"))
                 .values_list("seed", flat=True)) - shown
    hidden |= set(rows.filter(status="pending").values_list("seed", flat=True)) - shown
    assert hidden
    for seed in shown:
        assert not predicted(seed) & hidden, "a published seed gives away another deal"

    tournament = Tournament.objects.get(pk=tournament_id)
    text = bodies(bob_api, tournament_id, list(rows.exclude(match=None)
                                               .values_list("match_id", flat=True)))
    assert tournament.deal_secret not in text and str(tournament.seed) not in text
    for seed in hidden:
        assert str(seed) not in text, "a running or future deal's seed is shown"
    assert alice_api.get(f"/api/tournaments/{tournament_id}/").json()["deal_secret"] is None

    later = timezone.now()
    for _ in range(100):
        if Tournament.objects.get(pk=tournament_id).is_over:
            break
        later += timedelta(seconds=10)
        match_expire_deadlines(now=later)
    over = alice_api.get(f"/api/tournaments/{tournament_id}/").json()
    assert over["status"] == "finished"
    secret = over["deal_secret"]
    assert secret == tournament.deal_secret and len(secret) == 64
    swiss = shape.get("format") == "swiss"
    for row in TournamentMatch.objects.filter(tournament_id=tournament_id):
        place = ("swiss", row.number) if swiss else ("deal", row.deal)
        assert deal_seed(secret, *place) == row.seed == Match.objects.get(pk=row.match_id).seed
    page = alice_api.get(f"/tournaments/{tournament_id}/").content.decode()
    assert secret in page, "the page shows the secret once it is over"
    out = StringIO()
    call_command("deals", "tournament", str(tournament_id), stdout=out)
    assert f"all {rows.count()} deals recomputed from the published secret" in out.getvalue()


def test_the_command_refuses_a_series_in_progress_and_reports_a_deal_that_differs(
        alice_api, bob, inline_tasks) -> None:
    from django.core.management.base import CommandError

    created = alice_api.post("/api/tournaments/", {
        "name": "t", "game": "dice_cup", "table_size": 2, "participants": [
            {"kind": "player", "user": "bob"}, {"kind": "reference", "bot": "random"}]},
        format="json").json()
    with pytest.raises(CommandError, match="not over"):
        call_command("deals", "tournament", str(created["id"]))
    Tournament.objects.filter(pk=created["id"]).update(status="finished")
    TournamentMatch.objects.filter(tournament_id=created["id"]).update(seed=7)
    with pytest.raises(CommandError, match="1 of 1 deals differ"):
        call_command("deals", "tournament", str(created["id"]), stdout=StringIO())


def test_the_same_seed_gives_the_same_secret_and_deals_and_none_gives_a_fresh_one(
        alice, alice_api) -> None:
    alice.is_staff = True  # four tournaments at once
    alice.save()

    def make(**extra: Any) -> Tournament:
        answer = alice_api.post("/api/tournaments/", {
            "name": "t", "game": "dice_cup", "table_size": 2, "participants": [
                {"kind": "reference", "bot": "random"}, {"kind": "reference", "bot": "heuristic"},
                {"kind": "reference", "bot": "random"}], **extra}, format="json")
        assert answer.status_code == 201, answer.json()
        return Tournament.objects.get(pk=answer.json()["id"])

    first, second = make(seed=42), make(seed=42)
    assert first.deal_secret == second.deal_secret == secret_from_seed(42)
    assert (list(first.matches.order_by("number").values_list("seed", flat=True))
            == list(second.matches.order_by("number").values_list("seed", flat=True)))
    assert make().deal_secret != make().deal_secret


def test_a_league_night_deals_from_a_secret_published_when_it_is_over(alice_api,
                                                                      inline_tasks) -> None:
    league_id = create(alice_api).json()["id"]
    schedule_now(alice_api, league_id)
    listed = alice_api.get(f"{LEAGUES}{league_id}/nights/").json()["results"][0]
    assert listed["deal_secret"] is None, "not before the night is over"
    league = League.objects.get(pk=league_id)
    page = alice_api.get(f"/leagues/{league_id}/nights/1/").content.decode()
    assert derived_secret(league.deal_secret, "night", 1) not in page
    assert nights.nights_start_due() == 1
    night = Night.objects.get(league_id=league_id)
    assert night.status == "finished"
    league = League.objects.get(pk=league_id)
    secret = derived_secret(league.deal_secret, "night", night.number)
    listed = alice_api.get(f"{LEAGUES}{league_id}/nights/").json()["results"][0]
    assert listed["deal_secret"] == secret
    assert secret in alice_api.get(f"/leagues/{league_id}/nights/1/").content.decode()
    league_body = alice_api.get(f"{LEAGUES}{league_id}/").content.decode()
    assert league.deal_secret not in league_body, "the league's own secret is never shown"
    for hand in night.hands.all():
        assert Match.objects.get(pk=hand.match_id).seed == hand.seed == deal_seed(
            secret, hand.table, hand.number)
    out = StringIO()
    call_command("deals", "night", str(league_id), str(night.number), stdout=out)
    assert "deals recomputed from the published secret" in out.getvalue()


def test_a_running_nights_hands_to_come_and_in_play_keep_their_deals_hidden(
        alice_api, bob_api, bob, monkeypatch) -> None:
    """A hand is planned pending with its deal's seed stored (``Hand.seed``) before it is
    played: neither that seed nor the seed of a hand in play is in anything a competitor
    reads while the night runs, nor predicted from the seeds its finished hands show."""
    hold_tasks(monkeypatch, "tournaments.")  # played by hand
    league_id = create(alice_api, game="dice_cup", table_size=2,
                       members=[{"kind": "player", "user": "bob"}, *refs(3)]).json()["id"]
    schedule_now(alice_api, league_id)
    assert nights.nights_start_due() == 1
    night = Night.objects.get(league_id=league_id)
    # The first hand in (number, table) order only: bob's table's, which waits for him.
    assert runner.play(kind=LEAGUE, series_id=night.pk, limit=1, once=True)["started"] == 1
    bobs, bots = night.hands.order_by("table")
    assert bobs.status == "running" and bots.status == "pending"
    assert bobs.match.seed == bobs.seed

    def read_by_bob() -> str:
        match = f"/api/matches/{bobs.match_id}/"
        return b"\n".join(bob_api.get(url).content for url in [
            f"{LEAGUES}{league_id}/", f"{LEAGUES}{league_id}/nights/",
            f"{LEAGUES}{league_id}/table/", f"/leagues/{league_id}/",
            f"/leagues/{league_id}/nights/1/", match, f"{match}view/", f"{match}log/",
            f"{match}seats/{bobs.seats.index(0)}/", f"/matches/{bobs.match_id}/"]).decode()

    text = read_by_bob()
    for seed in (bobs.seed, bots.seed):
        assert str(seed) not in text, "a pending or running hand's deal is shown"

    runner.play(kind=LEAGUE, series_id=night.pk)  # the bots' table plays its three hands
    played = night.hands.filter(table=1, status="finished")
    assert played.count() == 3
    shown = {int(alice_api.get(f"/api/matches/{m}/").json()["seed"])
             for m in played.values_list("match_id", flat=True)}
    assert shown == set(played.values_list("seed", flat=True)), "finished hands show theirs"
    assert str(bobs.seed) not in read_by_bob()
    for seed in shown:
        assert bobs.seed not in predicted(seed), "a published seed gives away another deal"
