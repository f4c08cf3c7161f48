"""Versions of a bot (docs/ladder.md, "Versions"): a new URL registered as a candidate plays a
provisional run (an unrated benchmark tournament, played here in process against the reference
bots over real HTTP) beside the bot as it plays now, on the same deals; its comparison; promote
and discard; what is refused."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from bots import services as bot_services
from bots.errors import BadBotUrl, BadVersion, NotYourBot, VersionNotFound, VersionPending
from bots.models import Bot, BotSeat, BotVersion
from bots.refserver import RefBotServer
from config import versions
from games.models import Match
from tests.helpers.tasks import run_tasks
from tournaments.formats.benchmark import CHALLENGERS
from tournaments.ladders import services as ladders
from tournaments.ladders.models import LadderEntry
from tournaments.models import LeaderboardEntry, Participant, Tournament, TournamentMatch

pytestmark = pytest.mark.django_db


@pytest.fixture
def short_runs(settings: Any) -> None:
    settings.BOT_VERSION_MEETINGS = 1
    settings.BOT_VERSION_BENCHMARK_TOP = 1


@pytest.fixture
def played(monkeypatch: Any, django_capture_on_commit_callbacks: Any) -> Any:
    """Every task (the runner's and the webhook seats') runs in this process, once the
    transaction that queued it commits (a registration's: as if it did, the test's own never
    does): what :func:`register` commits with."""
    run_tasks(monkeypatch, "")
    return django_capture_on_commit_callbacks


@pytest.fixture
def bot(alice: Any, open_ref_server: RefBotServer) -> Bot:
    made, _ = bot_services.bot_register(owner=alice, name="ada",
                                        url=f"{open_ref_server.base_url}/dice_cup/random")
    return made


def register(bot: Bot, open_ref_server: RefBotServer, route: str = "dice_cup/heuristic",
             played: Any = None, seats: int | None = None) -> BotVersion:
    """Register a version at ``route`` (its run at tables of ``seats``, default the service's);
    with ``played``, its run is played out in process."""
    if played is None:
        return versions.version_register(bot_id=bot.pk, user=bot.owner, seats=seats,
                                         url=f"{open_ref_server.base_url}/{route}", game="dice_cup")
    with played(execute=True):
        return register(bot, open_ref_server, route, seats=seats)


def test_a_version_plays_its_provisional_run_beside_the_bot_on_the_same_deals(
        bot, open_ref_server, short_runs, played) -> None:
    version = register(bot, open_ref_server, played=played)
    assert (version.number, version.status) == (2, BotVersion.Status.CANDIDATE)
    bot.refresh_from_db()
    assert bot.url.endswith("/dice_cup/random")  # nothing of the bot changed
    run = Tournament.objects.get(pk=version.run)
    assert (run.format, run.rated, run.status) == ("benchmark", False, "finished")
    entrants = list(Participant.objects.filter(tournament=run).order_by("index")
                    .values_list("kind", "bot"))
    assert entrants == [("candidate", str(version.pk)), ("webhook", str(bot.pk)),
                        ("reference", "random"), ("reference", "heuristic")]
    rows = list(TournamentMatch.objects.filter(tournament=run).order_by("number"))
    assert len(rows) == 2 * 2 * 2 == run.match_total  # 2 challengers x 2 tables x 2 seatings
    candidate, current = CHALLENGERS
    for first, second in zip(rows[::2], rows[1::2]):  # the same deal, seat for seat
        assert first.seed == second.seed and first.deal == second.deal
        assert [current if s == candidate else s for s in first.seats] == second.seats
    # The candidate was asked at its own URL with the bot's secret; its seats are the bot's.
    seats = BotSeat.objects.filter(match__in=[r.match_id for r in rows], bot=bot)
    assert seats.count() == len(rows)
    assert all(Match.objects.get(pk=r.match_id).status == "finished" for r in rows)


def test_a_provisional_run_moves_no_rating(bot, open_ref_server, short_runs, played) -> None:
    register(bot, open_ref_server, played=played)
    assert not LeaderboardEntry.objects.filter(game="dice_cup").exists()


def test_a_provisional_run_is_not_listed_among_tournaments(bot, open_ref_server, short_runs,
                                                            played, anon_api, client) -> None:
    """Its bot's page links it; the lists of tournaments are the organisers'."""
    version = register(bot, open_ref_server, played=played)
    run = Tournament.objects.get(pk=version.run)
    assert run.format == "benchmark"
    assert anon_api.get("/api/tournaments/").json()["results"] == []
    assert client.get(f"/tournaments/{run.pk}/").status_code == 200, "still its own page"
    assert run.name not in client.get("/tournaments/").content.decode()


def test_the_comparison_reads_wins_points_and_the_differences_with_intervals(
        bot, open_ref_server, short_runs, played) -> None:
    version = register(bot, open_ref_server, played=played)
    found = versions.version_comparisons([version])[version.pk]
    run = Tournament.objects.get(pk=version.run)
    rows = TournamentMatch.objects.filter(tournament=run)
    for index, side in ((0, "candidate"), (1, "current")):
        mine = [r for r in rows if index in r.seats]
        wins = sum(1 for r in mine if r.ranks[r.seats.index(index)] == 1)
        points = sum(1.0 if r.ranks[r.seats.index(index)] == 1 else 0.0 for r in mine
                     if r.ranks.count(1) == 1) + sum(0.5 for r in mine if r.ranks.count(1) == 2)
        assert found[side]["matches"] == len(mine) == 4
        assert found[side]["wins"] == wins
        assert found[side]["points"] == pytest.approx(points)
    assert found["matches_played"] == found["matches_total"] == 8
    assert found["paired_places"] == 4
    low, high = found["rating_interval"]
    assert low < found["rating_difference"] < high
    expected = (found["candidate"]["points"] - found["current"]["points"]) / 4
    assert found["score_difference"] == pytest.approx(expected)
    if found["score_interval"] is not None:
        low, high = found["score_interval"]
        assert low <= expected <= high


def test_promote_moves_the_bot_keeps_its_history_and_gives_it_the_ladder_burst(
        bot, open_ref_server, short_runs, played, settings) -> None:
    entry, _ = ladders.ladder_join(game="dice_cup", user=bot.owner, bot=str(bot.pk))
    LadderEntry.objects.filter(pk=entry.pk).update(burst_left=0)
    version = register(bot, open_ref_server, played=played)
    old_seats = BotSeat.objects.filter(bot=bot).count()
    promoted = versions.version_promote(bot_id=bot.pk, user=bot.owner, number=version.number)
    assert promoted.status == BotVersion.Status.PROMOTED and promoted.decided_at is not None
    bot.refresh_from_db()
    assert bot.url == version.url
    assert BotSeat.objects.filter(bot=bot).count() == old_seats  # its history stays
    entry.refresh_from_db()
    assert entry.burst_left == entry.ladder.burst == settings.LADDER_BURST > 0
    again = register(bot, open_ref_server, "dice_cup/random")  # the next version, numbered on
    assert again.number == 3
    assert f"{bot.name} v2 (current)" in Participant.objects.filter(
        tournament_id=again.run).values_list("name", flat=True)


def test_discard_changes_nothing_of_the_bot(bot, open_ref_server, short_runs, played) -> None:
    version = register(bot, open_ref_server, played=played)
    before = Bot.objects.values().get(pk=bot.pk)
    discarded = versions.version_discard(bot_id=bot.pk, user=bot.owner, number=version.number)
    assert discarded.status == BotVersion.Status.DISCARDED
    assert Bot.objects.values().get(pk=bot.pk) == before
    with pytest.raises(VersionPending):  # decided once
        versions.version_promote(bot_id=bot.pk, user=bot.owner, number=version.number)


def test_discarding_a_candidate_whose_run_plays_cancels_the_run(bot, open_ref_server, short_runs,
                                                                monkeypatch) -> None:
    from tests.helpers.tasks import hold_tasks

    hold_tasks(monkeypatch)  # no worker: the run stays running
    version = register(bot, open_ref_server)
    assert Tournament.objects.get(pk=version.run).status == "running"
    with pytest.raises(VersionPending, match="still playing"):
        versions.version_promote(bot_id=bot.pk, user=bot.owner, number=version.number)
    versions.version_discard(bot_id=bot.pk, user=bot.owner, number=version.number)
    assert Tournament.objects.get(pk=version.run).status == "cancelled"


def test_a_secret_rotation_is_not_a_version(bot) -> None:
    bot_services.bot_rotate_secret(bot_id=bot.pk, user=bot.owner)
    assert not BotVersion.objects.exists()


def test_what_is_refused(bot, open_ref_server, bob, short_runs, monkeypatch) -> None:
    from tests.helpers.tasks import hold_tasks

    hold_tasks(monkeypatch)
    with pytest.raises(BadVersion, match="URL already"):  # the bot's own URL
        versions.version_register(bot_id=bot.pk, user=bot.owner, url=bot.url)
    with pytest.raises(BadBotUrl):
        versions.version_register(bot_id=bot.pk, user=bot.owner, url="ftp://x")
    with pytest.raises(BadVersion, match="does not list dice_cup"):  # a game it does not play
        register(bot, open_ref_server, "dot/heuristic")
    with pytest.raises(BadVersion, match="does not play 'chess'"):
        versions.version_register(bot_id=bot.pk, user=bot.owner, url=f"{open_ref_server.base_url}/x",
                                  game="chess")
    with pytest.raises(NotYourBot):
        versions.version_register(bot_id=bot.pk, user=bob, url=f"{open_ref_server.base_url}/heuristic")
    register(bot, open_ref_server)
    with pytest.raises(VersionPending, match="candidate version already"):
        register(bot, open_ref_server, "heuristic")
    with pytest.raises(VersionNotFound):
        versions.version_promote(bot_id=bot.pk, user=bot.owner, number=9)
    assert BotVersion.objects.count() == 1


def test_the_declared_version_is_recorded(bot, open_ref_server, short_runs, monkeypatch) -> None:
    from bots import protocol
    from tests.helpers.tasks import hold_tasks

    hold_tasks(monkeypatch)
    real = protocol.parse_handshake
    monkeypatch.setattr(protocol, "parse_handshake", lambda raw: dataclasses.replace(
        real(raw), version="2.1.0", compact_legal_actions=False))  # the server: none, true
    version = register(bot, open_ref_server)
    assert (version.declared_version, version.compact_legal_actions) == ("2.1.0", False)
    # Its seats are sent what its own handshake said, the live bot what its said.
    from bots.versions import CandidateSession
    from games.seats import Table, TableSeat

    table = Table(match_id="1", game="dice_cup", options={}, seed=1, move_time_limit=60,
                  strike_limit=3, seats=(TableSeat(0, "candidate", str(version.pk)),
                                         TableSeat(1, "webhook", str(bot.pk))))
    seated = CandidateSession(table).bots[0]
    assert (seated.pk, seated.url, seated.compact_legal_actions) == (bot.pk, version.url, False)
    bot.refresh_from_db()
    assert bot.compact_legal_actions and bot.url != version.url
    assert real(b'{"apiversion": "1", "games": ["dot"], "version": "7"}').version == "7"
    assert real(b'{"apiversion": "1", "games": [], "version": 2}').reason == "bad_shape"


# ---- the API --------------------------------------------------------------------------------

def api_url(bot: Bot, tail: str = "") -> str:
    return f"/api/bots/{bot.pk}/versions/{tail}"


def test_the_api_registers_lists_and_promotes(bot, open_ref_server, alice_api, short_runs,
                                             played) -> None:
    with played(execute=True):
        made = alice_api.post(api_url(bot), {"url": f"{open_ref_server.base_url}/dice_cup/heuristic"},
                              format="json")
    assert made.status_code == 201, made.json()
    body = made.json()
    assert (body["number"], body["status"]) == (2, "candidate")
    assert body["comparison"]["run_status"] == "running"  # played once registered
    assert body["comparison"]["matches_played"] == 0
    listed = alice_api.get(api_url(bot)).json()
    assert listed["count"] == 1 and listed["results"][0]["number"] == 2
    compared = listed["results"][0]["comparison"]
    assert compared["run_status"] == "finished" and compared["candidate"]["matches"] == 4
    promoted = alice_api.post(api_url(bot, "2/promote/"))
    assert promoted.status_code == 200 and promoted.json()["status"] == "promoted"
    again = alice_api.post(api_url(bot, "2/discard/"))
    assert (again.status_code, again.json()["code"]) == (409, "version_pending")


def test_the_api_s_errors(bot, open_ref_server, alice_api, bob_api, anon_api, monkeypatch) -> None:
    from tests.helpers.tasks import hold_tasks

    hold_tasks(monkeypatch)
    url = f"{open_ref_server.base_url}/dice_cup/heuristic"
    assert anon_api.get(api_url(bot)).status_code == 401
    assert bob_api.get(api_url(bot)).json()["code"] == "not_your_bot"
    assert bob_api.post(api_url(bot), {"url": url}, format="json").status_code == 403
    assert alice_api.get("/api/bots/999999/versions/").status_code == 404
    malformed = alice_api.post(api_url(bot), {"url": 5}, format="json")
    assert (malformed.status_code, malformed.json()["code"]) == (400, "invalid")
    missing = alice_api.post(api_url(bot), {}, format="json")  # the bot's own URL: nothing new
    assert (missing.status_code, missing.json()["code"]) == (400, "bad_version")
    same = alice_api.post(api_url(bot), {"url": bot.url}, format="json")
    assert (same.status_code, same.json()["code"]) == (400, "bad_version")
    assert alice_api.post(api_url(bot), {"url": url}, format="json").status_code == 201
    twice = alice_api.post(api_url(bot), {"url": url + "x"}, format="json")
    assert (twice.status_code, twice.json()["code"]) == (409, "version_pending")
    playing = alice_api.post(api_url(bot, "2/promote/"))
    assert (playing.status_code, playing.json()["code"]) == (409, "version_pending")
    assert "still playing" in playing.json()["detail"]
    gone = alice_api.post(api_url(bot, "7/promote/"))
    assert (gone.status_code, gone.json()["code"]) == (404, "version_not_found")
    assert bob_api.post(api_url(bot, "2/discard/")).status_code == 403
    assert alice_api.post(api_url(bot, "2/discard/")).json()["status"] == "discarded"


def test_the_schema_documents_the_version_endpoints(anon_api) -> None:
    schema = anon_api.get("/api/schema/", {"format": "json"}).json()
    versions_path = schema["paths"]["/api/bots/{bot_id}/versions/"]
    assert set(versions_path["post"]["responses"]) >= {"201", "400", "401", "403", "404",
                                                       "409", "422"}
    assert {p["name"] for p in versions_path["get"]["parameters"]} >= {"bot_id", "limit"}
    for action in ("promote", "discard"):
        answers = schema["paths"][f"/api/bots/{{bot_id}}/versions/{{number}}/{action}/"][
            "post"]["responses"]
        assert set(answers) >= {"200", "403", "404", "409"}
    assert "version_pending" in schema["components"]["schemas"]["CodeEnum"]["enum"]


def test_no_organiser_makes_a_benchmark_or_enters_a_candidate(bot, open_ref_server, alice,
                                                             monkeypatch) -> None:
    from tests.helpers.tasks import hold_tasks
    from tournaments.errors import BadTournament
    from tournaments.services import tournament_create

    hold_tasks(monkeypatch)
    version = register(bot, open_ref_server)
    refs = [{"kind": "reference", "bot": "random"}, {"kind": "reference", "bot": "heuristic"}]
    with pytest.raises(BadTournament, match="provisional run"):
        tournament_create(organiser=alice, name="x", game="dice_cup", format="benchmark",
                          participants=[*refs, *refs])
    with pytest.raises(BadTournament, match="unknown entrant kind 'candidate'"):
        tournament_create(organiser=alice, name="x", game="dice_cup", participants=[
            {"kind": "candidate", "bot": str(version.pk)}, *refs])


# ---- the bot page ---------------------------------------------------------------------------

def test_the_bot_page_registers_compares_and_promotes_a_version(bot, open_ref_server, bob, short_runs,
                                                                played) -> None:
    from django.test import Client

    web = Client()
    web.force_login(bot.owner)
    page = web.get(f"/bots/{bot.pk}/").content.decode()
    assert 'id="versions"' in page and "Register and start its run" in page
    refused = web.post(f"/bots/{bot.pk}/versions/", {"url": bot.url, "game": "dice_cup"})
    assert "URL already" in refused.content.decode() and not BotVersion.objects.exists()
    with played(execute=True):
        made = web.post(f"/bots/{bot.pk}/versions/", {
            "url": f"{open_ref_server.base_url}/dice_cup/heuristic", "game": "dice_cup"})
    assert made.status_code == 302 and made["Location"].endswith("#versions")
    page = web.get(f"/bots/{bot.pk}/").content.decode()
    version = BotVersion.objects.get()
    found = versions.version_comparisons([version])[version.pk]
    assert f'href="/tournaments/{version.run}/"' in page and "8/8 finished" in page
    run_page = web.get(f"/tournaments/{version.run}/").content.decode()
    assert "ada v2 (candidate)" in run_page and "ada v1 (current)" in run_page
    assert f"candidate: {found['candidate']['wins']} won of 4" in page
    assert 'data-label="differences">rating ' in page and "Promote</button>" in page
    other = Client()
    other.force_login(bob)
    assert 'id="versions"' not in other.get(f"/bots/{bot.pk}/").content.decode()
    assert other.post(f"/bots/{bot.pk}/versions/2/promote/").status_code == 404
    assert web.post(f"/bots/{bot.pk}/versions/2/promote/").status_code == 302
    bot.refresh_from_db()
    assert bot.url == version.url
    page = web.get(f"/bots/{bot.pk}/").content.decode()
    assert "Promote</button>" not in page and "promoted" in page


def test_the_field_is_the_reference_bots_and_the_ladder_s_top_but_never_the_bot(
        bot, open_ref_server, bob, settings) -> None:
    from tournaments.ladders.versions import benchmark_field

    settings.BOT_VERSION_BENCHMARK_TOP = 2
    others = [bot_services.bot_register(owner=bob, name=f"b{i}",
                                        url=f"{open_ref_server.base_url}/dice_cup/heuristic?n={i}")[0]
              for i in range(3)]
    for joined in (bot, *others):
        ladders.ladder_join(game="dice_cup", user=joined.owner, bot=str(joined.pk))
    ladders.ladder_join(game="dice_cup", user=None, bot="random", kind="reference")
    ratings = {bot.pk: 40, others[0].pk: 10, others[1].pk: 30, others[2].pk: 20}
    for pk, ordinal in ratings.items():
        LeaderboardEntry.objects.filter(kind="webhook", ref=str(pk)).update(ordinal=ordinal)
    field = benchmark_field(game="dice_cup", kind="webhook", bot=str(bot.pk))
    assert field == [{"kind": "reference", "bot": "random"},
                     {"kind": "reference", "bot": "heuristic"},  # the game's, then the top 2
                     {"kind": "webhook", "bot": str(others[1].pk)},
                     {"kind": "webhook", "bot": str(others[2].pk)}]
    # Tables of four take three of the field: the reference bots fill them.
    assert benchmark_field(game="great_dalmuti", kind="webhook", bot=str(bot.pk)) == [
        {"kind": "reference", "bot": "random"}, {"kind": "reference", "bot": "heuristic"},
        {"kind": "reference", "bot": "random"}]


def test_the_benchmark_format_seats_both_challengers_on_each_deal_of_each_table() -> None:
    from tournaments.formats import get_format

    plan = get_format("benchmark", participants=5, seats=3, secret="ab" * 32, meetings=2)
    assert plan.match_count() == 2 * 3 * 3 * 2  # challengers x tables x rotations x meetings
    by_deal: dict[int, list[Any]] = {}
    for match in plan.matches:
        by_deal.setdefault(match.deal, []).append(match)
    assert len(by_deal) == 3 * 2 and len({m.seed for m in plan.matches}) == 6
    for matches in by_deal.values():
        tables = {tuple(sorted(s for s in m.seats if s > 1)) for m in matches}
        assert len(tables) == 1  # one field table per deal
        for challenger in CHALLENGERS:  # each challenger in every seat of it once
            assert sorted(m.seats.index(challenger) for m in matches
                          if challenger in m.seats) == [0, 1, 2]
    with pytest.raises(ValueError, match="at least 3 benchmark"):
        get_format("benchmark", participants=4, seats=4, secret="ab" * 32)


def test_a_benchmark_of_one_challenger_plays_the_same_field_on_the_same_deals() -> None:
    """An in-place version's run: the first challenger alone, entrants 1, 2 ... its field."""
    from tournaments.formats import get_format

    both = get_format("benchmark", participants=5, seats=3, secret="ab" * 32, meetings=2)
    alone = get_format("benchmark", participants=4, seats=3, secret="ab" * 32, meetings=2,
                       challengers=1)
    assert alone.match_count() == 3 * 3 * 2  # tables x rotations x meetings
    firsts = [m for m in both.matches if 0 in m.seats]
    assert [(m.seed, m.deal, m.seats.index(0)) for m in alone.matches] == [
        (m.seed, m.deal, m.seats.index(0)) for m in firsts]
    assert [tuple(s - 1 if s else s for s in m.seats) for m in firsts] == [
        m.seats for m in alone.matches]  # the field one index down, seat for seat
    with pytest.raises(ValueError, match="1 or 2 challengers"):
        get_format("benchmark", participants=5, seats=3, secret="ab" * 32, challengers=3)


# ---- the ladder table size ------------------------------------------------------------------

def ladder_bots(owner: Any, open_ref_server: RefBotServer, ordinals: dict[int, float]
                ) -> dict[int, Bot]:
    """A bot of ``owner``'s on dice cup's ladder of each size given, rated ``ordinal`` on the
    game's leaderboard (which every ladder of the game shares)."""
    made = {}
    for seats, ordinal in ordinals.items():
        made[seats], _ = bot_services.bot_register(
            owner=owner, name=f"top{seats}", url=f"{open_ref_server.base_url}/dice_cup/heuristic?s={seats}")
        ladders.ladder_join(game="dice_cup", user=owner, bot=str(made[seats].pk), seats=seats)
        LeaderboardEntry.objects.filter(kind="webhook", ref=str(made[seats].pk)).update(
            ordinal=ordinal)
    return made


def test_a_version_registered_at_another_table_size_plays_there_against_that_ladder_s_top(
        bot, open_ref_server, bob, short_runs, played) -> None:
    top = ladder_bots(bob, open_ref_server, {2: 50, 4: 10})  # the 2-seat one rated higher
    version = register(bot, open_ref_server, played=played, seats=4)
    run = Tournament.objects.get(pk=version.run)
    assert (run.table_size, run.status) == (4, "finished")
    entrants = list(Participant.objects.filter(tournament=run).order_by("index")
                    .values_list("kind", "bot"))
    assert entrants[2:] == [("reference", "random"), ("reference", "heuristic"),
                            ("webhook", str(top[4].pk))]  # the top of the ladder of four
    rows = TournamentMatch.objects.filter(tournament=run)
    assert len(rows) == 2 * 3 * 4 == run.match_total  # challengers x tables x seatings
    assert {len(r.seats) for r in rows} == {4}
    assert versions.version_comparisons([version])[version.pk]["seats"] == 4


def test_a_version_s_table_size_is_by_default_its_bot_s_one_ladder_s(bot, open_ref_server,
                                                                    monkeypatch) -> None:
    from tests.helpers.tasks import hold_tasks

    hold_tasks(monkeypatch)
    ladders.ladder_join(game="dice_cup", user=bot.owner, bot=str(bot.pk), seats=4)

    def default_size() -> int:
        version = register(bot, open_ref_server)
        versions.version_discard(bot_id=bot.pk, user=bot.owner, number=version.number)
        return Tournament.objects.get(pk=version.run).table_size

    assert default_size() == 4
    ladders.ladder_join(game="dice_cup", user=bot.owner, bot=str(bot.pk), seats=3)
    assert default_size() == 2, "on two ladders: the game's first"
    ladders.ladder_leave(game="dice_cup", user=bot.owner, bot=str(bot.pk), seats=4)
    assert default_size() == 3, "the one it has not left"


def test_a_table_size_the_game_is_not_played_at_is_refused_before_the_handshake(
        bot, open_ref_server, alice_api, monkeypatch) -> None:
    from django.test import Client

    from tests.helpers.tasks import hold_tasks

    hold_tasks(monkeypatch)
    url = f"{open_ref_server.base_url}/dice_cup/heuristic"
    refused = alice_api.post(api_url(bot), {"url": url, "seats": 9}, format="json")
    assert refused.status_code == 400, refused.json()
    assert refused.json()["code"] == "bad_ladder"
    assert "dice_cup is played by 2 to 6 players: it has no ladder of 9 seats" in (
        refused.json()["detail"])
    web = Client()
    web.force_login(bot.owner)
    page = web.post(f"/bots/{bot.pk}/versions/", {"url": url, "game": "dice_cup", "seats": 1})
    assert "no ladder of 1 seats (bad_ladder)" in page.content.decode()
    assert not BotVersion.objects.exists() and not Tournament.objects.exists()


def test_the_api_and_the_page_show_a_version_s_table_size(bot, open_ref_server, alice_api,
                                                         anon_api, monkeypatch) -> None:
    from django.test import Client

    from tests.helpers.tasks import hold_tasks

    hold_tasks(monkeypatch)
    made = alice_api.post(api_url(bot), {"url": f"{open_ref_server.base_url}/dice_cup/heuristic",
                                         "seats": 3}, format="json")
    assert made.status_code == 201, made.json()
    assert (made.json()["seats"], made.json()["comparison"]["seats"]) == (3, 3)
    assert alice_api.get(api_url(bot)).json()["results"][0]["seats"] == 3
    web = Client()
    web.force_login(bot.owner)
    assert "</a>, 3 seats<br>0/" in web.get(f"/bots/{bot.pk}/").content.decode()
    schema = anon_api.get("/api/schema/", {"format": "json"}).json()
    body = schema["paths"]["/api/bots/{bot_id}/versions/"]["post"]["requestBody"]
    request = body["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    assert "ladder table size" in schema["components"]["schemas"][request]["properties"][
        "seats"]["description"]
    answer = schema["paths"]["/api/bots/{bot_id}/versions/"]["post"]["responses"]["201"]
    version = answer["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    assert "table size" in schema["components"]["schemas"][version]["properties"]["seats"][
        "description"]


# ---- a version in place: a redeploy at the bot's own URL declaring a new version -------------

@pytest.fixture
def declares(monkeypatch: Any) -> Any:
    """Make every handshake declare ``version`` (the code behind the reference server's URL
    redeployed): call the returned function with the version string ("" for none)."""
    from bots import protocol

    real, said = protocol.parse_handshake, {"version": ""}

    def parse(raw: bytes) -> Any:
        found = real(raw)
        if isinstance(found, protocol.Failure):
            return found
        return dataclasses.replace(found, version=said["version"])

    monkeypatch.setattr(protocol, "parse_handshake", parse)
    return lambda version: said.update(version=version)


def in_place(bot: Bot, played: Any = None, **kwargs: Any) -> BotVersion:
    """Register an in-place version (no URL: the bot's own), its run played out with ``played``."""
    if played is None:
        return versions.version_register(bot_id=bot.pk, user=bot.owner, game="dice_cup", **kwargs)
    with played(execute=True):
        return in_place(bot, **kwargs)


def on_ladder(bot: Bot, mu: float = 30.0, sigma: float = 2.0) -> LadderEntry:
    """The bot on dice cup's ladder, rated ``mu``, ``sigma`` on the game's leaderboard."""
    entry, _ = ladders.ladder_join(game="dice_cup", user=bot.owner, bot=str(bot.pk))
    LeaderboardEntry.objects.filter(pk=entry.rating_id).update(mu=mu, sigma=sigma, matches=40)
    LadderEntry.objects.filter(pk=entry.pk).update(burst_left=0)
    return entry


def test_the_bot_records_the_version_its_live_code_declared_but_not_at_health_checks(
        alice, open_ref_server, declares) -> None:
    declares("1.0")
    made, _ = bot_services.bot_register(owner=alice, name="ada",
                                        url=f"{open_ref_server.base_url}/dice_cup/random")
    assert made.declared_version == "1.0"
    declares("1.1")  # redeployed: a health check or a rename takes it as nothing new
    assert bot_services.bot_check(bot_id=made.pk).declared_version == "1.0"
    renamed = bot_services.bot_update(bot_id=made.pk, user=alice, name="ada2")
    assert renamed.declared_version == "1.0"
    moved = bot_services.bot_update(bot_id=made.pk, user=alice,
                                    url=f"{open_ref_server.base_url}/dice_cup/heuristic")
    assert moved.declared_version == "1.1", "a move takes the new URL's code as the bot's"


def test_a_redeploy_at_the_same_url_declaring_nothing_new_is_refused(
        bot, alice_api, declares, monkeypatch) -> None:
    from tests.helpers.tasks import hold_tasks

    hold_tasks(monkeypatch)
    for said, url in (("", None), ("", bot.url)):
        declares(said)
        body = {} if url is None else {"url": url}
        refused = alice_api.post(api_url(bot), body, format="json")
        assert (refused.status_code, refused.json()["code"]) == (400, "bad_version")
        assert "declares no version" in refused.json()["detail"]
        assert ("a redeploy at the same URL is a version only when its handshake declares a "
                "new `version`") in refused.json()["detail"]
    Bot.objects.filter(pk=bot.pk).update(declared_version="2.1")
    declares("2.1")  # what the live code declared already
    with pytest.raises(BadVersion, match='declares version "2.1", as the bot\'s live code did'):
        in_place(bot)
    assert not BotVersion.objects.exists() and not Tournament.objects.exists()


def test_an_in_place_version_plays_the_field_alone_and_holds_the_bot_on_its_ladders(
        bot, alice_api, declares, short_runs, monkeypatch) -> None:
    from tests.helpers.tasks import hold_tasks
    from tournaments.ladders.kind import follow_seatability

    hold_tasks(monkeypatch)
    entry = on_ladder(bot)
    declares("2.1")
    made = alice_api.post(api_url(bot), {}, format="json")
    assert made.status_code == 201, made.json()
    body = made.json()
    assert (body["number"], body["url"], body["in_place"], body["declared_version"]) == (
        2, bot.url, True, "2.1")
    assert "paused on its ladders" in body["note"]
    version = BotVersion.objects.get()
    run = Tournament.objects.get(pk=version.run)
    assert (run.format, run.challengers, run.rated) == ("benchmark", 1, False)
    entrants = list(Participant.objects.filter(tournament=run).order_by("index")
                    .values_list("kind", "bot"))
    assert entrants == [("candidate", str(version.pk)),  # no current: the field follows
                        ("reference", "random"), ("reference", "heuristic")]
    rows = list(TournamentMatch.objects.filter(tournament=run))
    assert len(rows) == 2 * 2 == run.match_total  # 2 tables x 2 seatings, one challenger
    assert all(0 in r.seats and set(r.seats) <= {0, 1, 2} for r in rows)
    entry.refresh_from_db()
    assert entry.paused and entry.paused_reason == "version 2.1 (in place) in its provisional run"
    # Neither the ladder's look at seatability nor a join lifts it.
    ladder_entries = {e.pk: e for e in LadderEntry.objects.filter(ladder=entry.ladder)}
    follow_seatability(entry.ladder, ladder_entries)
    entry.refresh_from_db()
    assert entry.paused
    again, changed = ladders.ladder_join(game="dice_cup", user=bot.owner, bot=str(bot.pk))
    assert not changed and again.paused and again.paused_reason == entry.paused_reason
    other, _ = ladders.ladder_join(game="dice_cup", user=bot.owner, bot=str(bot.pk), seats=3)
    assert other.paused and other.paused_reason == entry.paused_reason
    bot.refresh_from_db()
    assert bot.declared_version == "", "nothing of the bot changes before it is promoted"


def test_an_in_place_version_s_comparison_is_with_the_bot_s_ladder_rating(
        bot, declares, short_runs, played) -> None:
    from tournaments.scoring.leaderboard import rating_against

    on_ladder(bot, mu=30.0, sigma=2.0)
    field_before = list(LeaderboardEntry.objects.values_list("kind", "ref", "mu", "sigma"))
    declares("2.1")
    version = in_place(bot, played=played)
    run = Tournament.objects.get(pk=version.run)
    assert run.status == "finished"
    found = versions.version_comparisons([version])[version.pk]
    rows = list(TournamentMatch.objects.filter(tournament=run))
    mine = [r for r in rows if 0 in r.seats]
    assert found["candidate"]["matches"] == len(mine) == 4 == found["matches_played"]
    assert found["candidate"]["wins"] == sum(1 for r in mine if r.ranks[r.seats.index(0)] == 1)
    assert found["current"] == {"matches": 40, "wins": None, "forfeits": None, "points": None,
                                "mean_points": None, "mu": 30.0, "sigma": 2.0}
    people = {p.index: (p.kind, p.bot) for p in Participant.objects.filter(tournament=run)}
    mu, sigma, rated = rating_against(game="dice_cup", results=[
        ([None if s == 0 else people[s] for s in r.seats], r.ranks, r.forfeited)
        for r in sorted(rows, key=lambda r: r.number)])
    assert rated == 4 and (found["candidate"]["mu"], found["candidate"]["sigma"]) == (mu, sigma)
    assert found["rating_difference"] == pytest.approx(mu - 30.0)
    low, high = found["rating_interval"]
    spread = 1.96 * (sigma ** 2 + 2.0 ** 2) ** 0.5
    assert (low, high) == (pytest.approx(mu - 30.0 - spread), pytest.approx(mu - 30.0 + spread))
    assert (found["paired_places"], found["score_difference"], found["score_interval"]) == (
        0, None, None)
    assert list(LeaderboardEntry.objects.values_list("kind", "ref", "mu", "sigma")) == (
        field_before), "no rating moved"


def test_rating_against_moves_only_the_newcomer() -> None:
    from tournaments.scoring.leaderboard import rating_against

    LeaderboardEntry.objects.create(game="dice_cup", kind="reference", ref="random", mu=20,
                                    sigma=3, ordinal=11)
    won = [([None, ("reference", "random")], [1, 2], []),
           ([("reference", "random"), None], [2, 1], []),
           ([None, ("reference", "random")], [2, 1], [0])]  # a forfeit: not rated
    mu, sigma, rated = rating_against(game="dice_cup", results=won)
    assert rated == 2 and mu > 25 and sigma < 25 / 3
    assert LeaderboardEntry.objects.get(ref="random").mu == 20


def test_promoting_an_in_place_version_records_it_and_lifts_the_hold(
        bot, declares, short_runs, played, settings) -> None:
    entry = on_ladder(bot)
    declares("2.1")
    version = in_place(bot, played=played)
    url = bot.url
    promoted = versions.version_promote(bot_id=bot.pk, user=bot.owner, number=version.number)
    assert promoted.status == BotVersion.Status.PROMOTED
    bot.refresh_from_db()
    assert (bot.url, bot.declared_version) == (url, "2.1")
    entry.refresh_from_db()
    assert (entry.paused, entry.paused_reason) == (False, "")
    assert entry.burst_left == settings.LADDER_BURST > 0
    with pytest.raises(BadVersion, match='declares version "2.1", as the bot'):  # live now
        in_place(bot)


def test_promoting_refuses_an_url_that_serves_another_version_by_now(
        bot, declares, short_runs, played) -> None:
    declares("2.1")
    version = in_place(bot, played=played)
    declares("2.2")
    with pytest.raises(BadVersion, match="now declares version '2.2'"):
        versions.version_promote(bot_id=bot.pk, user=bot.owner, number=version.number)
    version.refresh_from_db()
    assert version.status == BotVersion.Status.CANDIDATE


def test_discarding_an_in_place_version_lifts_the_hold_and_the_url_still_serving_it_pauses(
        bot, alice_api, declares, short_runs, played) -> None:
    entry = on_ladder(bot)
    declares("2.1")
    version = in_place(bot, played=played)
    before = Bot.objects.values().get(pk=bot.pk)
    answer = alice_api.post(api_url(bot, f"{version.number}/discard/"))
    assert answer.status_code == 200 and answer.json()["status"] == "discarded"
    assert "the bot's URL still serves this code" in answer.json()["note"]
    assert "redeploy the version you want" in answer.json()["note"]
    assert Bot.objects.values().get(pk=bot.pk) == before
    entry.refresh_from_db()
    # The hold is lifted, but the URL still serves the discarded code: the ladder's look
    # (the advance the release asked for) pauses it as redeployed, not rated with it.
    assert entry.paused and entry.paused_reason.startswith(
        f'redeployed: {bot.url} declares version "2.1", while the bot\'s declared none')
    assert entry.burst_left == 0


def test_a_new_url_version_is_not_in_place_and_still_plays_beside_the_bot(
        bot, open_ref_server, alice_api, declares, short_runs, monkeypatch) -> None:
    from tests.helpers.tasks import hold_tasks

    hold_tasks(monkeypatch)
    entry = on_ladder(bot)
    declares("2.1")
    made = alice_api.post(api_url(bot), {"url": f"{open_ref_server.base_url}/dice_cup/heuristic"},
                          format="json")
    assert made.status_code == 201, made.json()
    assert (made.json()["in_place"], made.json()["note"]) == (False, None)
    run = Tournament.objects.get(pk=made.json()["run"])
    assert run.challengers == 2 and run.match_total == 2 * 2 * 2
    entry.refresh_from_db()
    assert not entry.paused, "a version at a new URL holds nothing"


def test_the_page_registers_an_in_place_version_with_the_url_left_empty(
        bot, declares, short_runs, monkeypatch) -> None:
    from django.test import Client

    from tests.helpers.tasks import hold_tasks

    hold_tasks(monkeypatch)
    web = Client()
    web.force_login(bot.owner)
    page = web.get(f"/bots/{bot.pk}/").content.decode()
    assert "Redeployed at the same URL?" in page and "(the live code declared none)" in page
    refused = web.post(f"/bots/{bot.pk}/versions/", {"url": "", "game": "dice_cup"})
    assert "declares no version" in refused.content.decode()
    declares("2.1")
    made = web.post(f"/bots/{bot.pk}/versions/", {"url": "", "game": "dice_cup"})
    assert made.status_code == 302
    page = web.get(f"/bots/{bot.pk}/").content.decode()
    assert "v2 “2.1” in place" in page and "paused on its ladders until you promote" in page
    assert "current: ladder rating 25.0" in page


def test_the_schema_documents_in_place_versions(anon_api) -> None:
    schema = anon_api.get("/api/schema/", {"format": "json"}).json()
    post = schema["paths"]["/api/bots/{bot_id}/versions/"]["post"]
    request = post["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    fields = schema["components"]["schemas"][request.rsplit("/", 1)[-1]]
    assert "url" not in fields.get("required", [])
    assert "in-place" in fields["properties"]["url"]["description"]
    answer = post["responses"]["201"]["content"]["application/json"]["schema"]["$ref"]
    version = schema["components"]["schemas"][answer.rsplit("/", 1)[-1]]["properties"]
    assert "own URL" in version["in_place"]["description"]
    assert version["note"]["nullable"] is True
