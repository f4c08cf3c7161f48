"""A bot redeployed at its URL with a new ``version`` does not play rated ladder matches before
its owner registers that code as a version (docs/ladder.md, "In place"): the ladder pauses it
at its next look once the platform has seen the new version (a handshake, or the /start answer
of the first match the new code plays), and resumes it when what the URL serves is the bot's
version again; a ladder match whose /start answer declared another version than the bot's is
recorded but not rated; registering the code in place and promoting it brings the bot back.
Real webhook bots on loopback ports (``tests.deterministic_bot``), tasks in this process."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from bots.models import Bot, BotSeat, BotVersion
from bots.services import bot_check, bots_health_check, bots_recheck_held
from bots.signing import new_secret
from tests.deterministic_bot import DeterministicBot
from tests.helpers.tasks import hold_tasks, run_tasks
from tournaments import runner
from tournaments.ladders import services as ladders
from tournaments.models import Ladder, LadderEntry, LadderMatch, LeaderboardEntry

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def ladder_bots(servers: list[DeterministicBot], make_user: Any) -> Any:
    """``ladder_bots(*versions)``: a bot per version string (its code declares it, and it is
    the bot's as registered), each its own owner's and serving on a loopback port."""

    def make(*versions: str) -> list[tuple[Bot, DeterministicBot]]:
        made = []
        for version in versions:
            server = DeterministicBot()
            server.version = version
            threading.Thread(target=server.serve_forever, daemon=True).start()
            servers.append(server)
            n = len(servers)
            bot = Bot.objects.create(owner=make_user(f"owner{n}"), name=f"b{n}", url=server.url,
                                     secret=new_secret(), games=["dice_cup"], handshake_ok=True,
                                     declared_version=version, serving_version=version)
            made.append((bot, server))
        return made

    return make


def join(bot: Bot) -> LadderEntry:
    entry, _ = ladders.ladder_join(game="dice_cup", user=bot.owner, bot=str(bot.pk))
    return entry


def entry_of(bot: Bot) -> LadderEntry:
    return LadderEntry.objects.get(kind="webhook", bot=str(bot.pk))


def rating(bot: Bot) -> tuple[float, float, int]:
    return LeaderboardEntry.objects.values_list("mu", "sigma", "matches").get(
        game="dice_cup", kind="webhook", ref=str(bot.pk))


def test_a_bot_whose_url_serves_another_version_is_paused_and_resumes_when_they_agree(
        ladder_bots: Any, monkeypatch: Any, client: Any) -> None:
    hold_tasks(monkeypatch, "tournaments.")  # the ladder is looked at by the reaper here
    (ada, ada_server), (bea, _), (cy, _) = ladder_bots("1", "1", "")
    for bot in (ada, bea, cy):
        join(bot)
    ada_server.version = "2"  # redeployed at the same URL
    assert bots_health_check() == 3  # the platform sees it (here, at its health check)
    ada.refresh_from_db()
    assert (ada.declared_version, ada.serving_version) == ("1", "2")

    runner.reap()  # the ladder's next look, before any match seats it
    entry = entry_of(ada)
    assert entry.paused and entry.paused_reason == (
        f'redeployed: {ada.url} declares version "2", not the bot\'s "1": register it as a '
        f"version (POST /api/bots/{ada.pk}/versions/) to play it, or serve \"1\" again and run "
        f"the handshake (POST /api/bots/{ada.pk}/check/)")
    seated = [row.seats for row in LadderMatch.objects.all()]
    assert seated and not any(entry.pk in seats for seats in seated), "the others play"
    assert not entry_of(cy).paused, "a bot that declares no version anywhere is unaffected"
    client.force_login(ada.owner)
    assert "declares version" in client.get(f"/bots/{ada.pk}/").content.decode()

    ada_server.version = "1"  # rolled back; its owner runs the handshake now
    bot_check(bot_id=ada.pk)
    runner.reap()
    entry.refresh_from_db()
    assert not entry.paused and entry.paused_reason == "", "back on once they agree"


def test_a_rolled_back_bot_is_back_on_the_ladder_at_the_next_recheck_of_held_bots(
        ladder_bots: Any, monkeypatch: Any, settings: Any) -> None:
    """Nobody runs its handshake: ``bots.recheck_held`` (every ``BOTS_RECHECK_HELD_SECONDS``,
    five minutes by default) sees the URL serve the bot's own version again."""
    hold_tasks(monkeypatch, "tournaments.")
    (ada, ada_server), (bea, _) = ladder_bots("1", "1")
    for bot in (ada, bea):
        join(bot)
    ada_server.version = "2"
    bot_check(bot_id=ada.pk)
    runner.reap()
    assert entry_of(ada).paused
    ada_server.version = "1"  # rolled back
    long_ago = timezone.now() - timedelta(seconds=settings.BOTS_RECHECK_HELD_SECONDS)
    Bot.objects.filter(pk=ada.pk).update(handshake_at=long_ago)
    assert bots_recheck_held() == 1
    runner.reap()
    entry = entry_of(ada)
    assert not entry.paused and entry.paused_reason == ""


def test_the_look_leaves_an_in_place_version_s_hold_alone_and_a_forfeit_pause_too(
        ladder_bots: Any, monkeypatch: Any) -> None:
    from tournaments.ladders.kind import follow_seatability
    from tournaments.ladders.versions import hold

    hold_tasks(monkeypatch, "tournaments.")
    (ada, _), (bea, _) = ladder_bots("1", "1")
    join(ada), join(bea)
    Bot.objects.filter(pk__in=[ada.pk, bea.pk]).update(serving_version="2")
    hold(kind="webhook", bot=str(ada.pk), declared="2")
    LadderEntry.objects.filter(bot=str(bea.pk)).update(
        paused=True, paused_reason="forfeited 3 matches in a row")
    ladder = Ladder.objects.get()
    follow_seatability(ladder, {e.pk: e for e in LadderEntry.objects.all()})
    assert entry_of(ada).paused_reason == "version 2 (in place) in its provisional run"
    assert entry_of(bea).paused_reason == "forfeited 3 matches in a row"


@pytest.mark.parametrize("served", ["1", "2"])
def test_a_ladder_match_new_code_played_is_recorded_but_not_rated(
        ladder_bots: Any, monkeypatch: Any, settings: Any, anon_api: Any, served: str) -> None:
    """The bot's own code ("1") plays a rated match; code redeployed at its URL ("2"), which
    says so in its /start answer, plays one that is recorded and moves no rating, and the
    bot is paused before it is seated again. Nothing else told the platform (no handshake)."""
    settings.LADDER_PAIR_CAP_PER_DAY = 1  # one match, played in this process
    run_tasks(monkeypatch, "")
    (ada, ada_server), (bea, _) = ladder_bots("1", "1")
    ada_server.version = served
    join(ada), join(bea)
    row = LadderMatch.objects.get()
    assert row.status == "finished" and row.match_id is not None
    ada_entry, bea_entry = entry_of(ada), entry_of(bea)
    mu, sigma, matches = rating(ada)
    if served == "1":
        assert row.new_code == [] and matches == 1 and rating(bea)[2] == 1
        assert not ada_entry.paused
    else:
        assert row.new_code == [ada_entry.pk], "the match says who played new code"
        assert BotSeat.objects.get(match_id=row.match_id, bot=ada).new_version == "2"
        assert (mu, sigma, matches) == (25.0, 25 / 3, 0) and rating(bea)[2] == 0, "unrated"
        assert ada_entry.paused and ada_entry.paused_reason.startswith(
            f'redeployed: {ada.url} declares version "2", not the bot\'s "1"')
        assert not bea_entry.paused and row.forfeited == []
    shown = anon_api.get("/api/ladders/dice_cup/matches/").json()["results"][0]
    assert shown["places"] == row.ranks, "recorded either way"
    assert (shown["rated"], shown["new_code"]) == (served == "1", row.new_code)


def test_registering_and_promoting_the_version_in_place_brings_the_bot_back(
        ladder_bots: Any, monkeypatch: Any, settings: Any) -> None:
    from config import versions

    settings.LADDER_PAIR_CAP_PER_DAY = 2
    settings.BOT_VERSION_MEETINGS = 1
    settings.BOT_VERSION_BENCHMARK_TOP = 0
    run_tasks(monkeypatch, "")
    (ada, ada_server), (bea, _) = ladder_bots("1", "1")
    ada_server.version = "2"  # redeployed before anything was seen
    join(ada), join(bea)
    first = LadderMatch.objects.get()
    assert first.new_code == [entry_of(ada).pk] and rating(ada)[2] == 0
    assert entry_of(ada).paused_reason.startswith("redeployed:")

    version = versions.version_register(bot_id=ada.pk, user=ada.owner, game="dice_cup")
    assert version.in_place and version.declared_version == "2", "registered while paused"
    assert entry_of(ada).paused_reason == "version 2 (in place) in its provisional run"
    assert not LadderMatch.objects.exclude(pk=first.pk).exists(), "held while its run plays"
    promoted = versions.version_promote(bot_id=ada.pk, user=ada.owner, number=version.number)
    assert promoted.status == BotVersion.Status.PROMOTED
    ada.refresh_from_db()
    assert (ada.declared_version, ada.serving_version) == ("2", "2")
    entry = entry_of(ada)
    assert not entry.paused and entry.paused_reason == ""
    second = LadderMatch.objects.exclude(pk=first.pk).get()
    assert second.status == "finished" and second.new_code == [], "its own code now: rated"
    assert rating(ada)[2] == 1 and rating(bea)[2] == 1


def test_discarding_the_version_in_place_leaves_the_bot_paused_while_its_url_serves_it(
        ladder_bots: Any, monkeypatch: Any, settings: Any) -> None:
    from config import versions

    settings.BOT_VERSION_MEETINGS = 1
    settings.BOT_VERSION_BENCHMARK_TOP = 0
    hold_tasks(monkeypatch, "tournaments.")  # the run and the ladder wait: looked at by hand
    (ada, ada_server), (bea, _) = ladder_bots("1", "1")
    join(ada), join(bea)
    ada_server.version = "2"
    version = versions.version_register(bot_id=ada.pk, user=ada.owner, game="dice_cup")
    ada.refresh_from_db()
    assert ada.serving_version == "2", "its registration's handshake saw what the URL serves"
    discarded = versions.version_discard(bot_id=ada.pk, user=ada.owner, number=version.number)
    assert "paused on its ladders while it does" in (
        versions.bot_versions.version_note(discarded) or "")
    runner.reap()
    assert entry_of(ada).paused_reason.startswith("redeployed:"), "still new code: held"
    ada_server.version = "1"
    bot_check(bot_id=ada.pk)
    runner.reap()
    assert not entry_of(ada).paused
