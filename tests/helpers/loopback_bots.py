"""Registered webhook bots that answer on loopback ports (tests.deterministic_bot), for tests
that play them in real workers (a pytest plugin, tests/conftest.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from games.engine import game_ids
from tests.deterministic_bot import DeterministicBot


@pytest.fixture
def bots(alice: Any) -> Iterator[Callable[..., list[int]]]:
    """``bots(count, delay)`` registers that many deterministic loopback bots (ids)."""
    from bots.models import Bot
    from bots.signing import new_secret

    servers: list[DeterministicBot] = []

    def make(count: int, delay: float = 0.0) -> list[int]:
        ids = []
        for _ in range(count):
            server = DeterministicBot(delay)
            threading.Thread(target=server.serve_forever, daemon=True).start()
            servers.append(server)
            ids.append(Bot.objects.create(owner=alice, name=f"det{len(servers)}", url=server.url,
                                          secret=new_secret(), games=list(game_ids()),
                                          handshake_ok=True).pk)
        return ids

    yield make
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture
def open_ref_server() -> Iterator[Any]:
    """The reference bots over HTTP (bots.refserver), not checking signatures: a bot registered
    in a test gets a new secret, and a bot version calls with the bot's own."""
    from bots.refserver import RefBotServer

    server = RefBotServer(("127.0.0.1", 0))
    server.serve_in_thread()
    yield server
    server.shutdown()
    server.server_close()
