"""A ladder bot whose health check fails is paused at the ladder's next look (a match ending,
the reaper's sweep), before any match seats it: its owner sees why on its page, nobody is
scored a forfeit for it, and it is back on once a health check passes again (docs/ladder.md,
"Pausing"). Real webhook bots on loopback ports, the platform's own health check."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from bots.models import Bot
from bots.services import bots_health_check
from bots.signing import new_secret
from games.engine import game_ids
from tests.deterministic_bot import DeterministicBot
from tests.helpers.tasks import hold_tasks
from tournaments import runner
from tournaments.ladders import services as ladders
from tournaments.models import LadderEntry, LadderMatch

pytestmark = pytest.mark.django_db(transaction=True)


def serving(servers: list[DeterministicBot]) -> DeterministicBot:
    server = DeterministicBot()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    servers.append(server)
    return server


def test_a_bot_failing_its_health_check_is_paused_unseated_and_back_once_it_answers(
        make_user: Any, client: Any, servers: list[DeterministicBot], monkeypatch: Any) -> None:
    hold_tasks(monkeypatch, "tournaments.")  # the ladder is looked at by the reaper here
    owners = [make_user(f"owner{k}") for k in range(3)]
    bots = [Bot.objects.create(owner=owner, name=f"b{k}", url=serving(servers).url,
                               secret=new_secret(), games=list(game_ids()), handshake_ok=True)
            for k, owner in enumerate(owners)]
    for bot in bots:
        ladders.ladder_join(game="dice_cup", user=bot.owner, bot=str(bot.pk))
    down = bots[0]
    servers[0].shutdown()
    servers[0].server_close()
    servers.pop(0)
    assert bots_health_check() == 3
    down.refresh_from_db()
    assert not down.handshake_ok, "the health check found it down"

    runner.reap()  # the ladder's next look
    entry = LadderEntry.objects.get(bot=str(down.pk))
    assert entry.paused and entry.paused_reason.startswith(
        f"cannot be seated: bot {down.pk} has not passed its handshake")
    seated = [row.seats for row in LadderMatch.objects.all()]
    assert seated and not any(entry.pk in seats for seats in seated), (
        "the others play; it is never seated while down")
    client.force_login(down.owner)
    page = client.get(f"/bots/{down.pk}/").content.decode()
    assert "paused" in page and "has not passed its handshake" in page, "its owner is told"

    Bot.objects.filter(pk=down.pk).update(url=serving(servers).url)  # up again
    bots_health_check()
    runner.reap()
    entry.refresh_from_db()
    assert not entry.paused and entry.paused_reason == "", "back on once it answers"
