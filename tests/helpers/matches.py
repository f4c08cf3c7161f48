"""Reading and playing matches through the API in tests: URLs, a seat's poll and act, a log
replayed as docs/api.md tells anyone to, test seat kinds, and what the schema promises."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

from rest_framework.test import APIClient

from bots.models import Bot
from bots.signing import new_secret
from games import services
from games.engine import get_game
from games.models import Match
from games.seats import (
    SeatAnswer,
    SeatKind,
    SeatSession,
    Table,
    get_seat_kind,
    register_seat_kind,
    unregister_seat_kind,
)
from games.states import load_state

DICE_SEED = 1  # with this seed, seat 0 (alice) acts first


def url(match: Match | int, *rest: Any) -> str:
    match_id = match if isinstance(match, int) else match.pk
    return "/api/matches/" + "/".join(str(p) for p in (match_id, *rest)) + "/"


def poll(client: APIClient, match: Match | int, seat: int, **params: Any) -> Any:
    return client.get(url(match, "seats", seat), params)


def act(client: APIClient, match: Match | int, seat: int, version: int, action: Any) -> Any:
    return client.post(url(match, "seats", seat, "actions"),
                       {"version": version, "action": action}, format="json")


def to_move(client: APIClient, match: Match, seat: int) -> tuple[int, list[Any]]:
    """(version, legal actions) for ``seat``, which must be asked to act."""
    body = poll(client, match, seat).json()
    assert body["your_turn"], body
    return body["version"], body["legal_actions"]


def replay_log(log: dict[str, Any]) -> Any:
    """Rebuild a finished match from its public log, as docs/api.md tells anyone to."""
    state = get_game(log["game"]).new_match(players=log["players"], seed=int(log["seed"]),
                                            options=log["options"])
    for entry in log["entries"]:
        if entry["kind"] in ("action", "timeout", "default"):
            state.apply(entry["seat"], entry["action"])
        elif entry["kind"] == "resign":
            state.forfeit(entry["seat"], entry["action"]["reason"])
    return state


def out_of_process_kind(name: str, seat: Any) -> Iterator[Any]:
    """Body of a fixture that registers ``seat`` as a test seat kind asked by the Celery task
    (``inline=False``, any bot name), yields it, and removes the kind afterwards."""
    from games.seats import SeatKind, register_seat_kind, unregister_seat_kind

    register_seat_kind(SeatKind(name=name, automatic=seat, inline=False,
                                check_bot=lambda game, bot, user: None))
    yield seat
    unregister_seat_kind(name)


def make_alice_move_while_waiting(monkeypatch: Any, match_id: int, alice: Any) -> None:
    """A long poll's sleep becomes: alice (seat 0) plays her first legal action."""
    from games import selectors

    def alice_moves(seconds: float) -> None:
        match = Match.objects.get(pk=match_id)
        legal = load_state(match).legal_actions(0)
        services.match_submit_action(match_id=match_id, seat_number=0, user=alice,
                                     version=match.version, action=legal[0])

    monkeypatch.setattr(selectors, "sleep", alice_moves)


def documented_keys(schema: dict, path: str, method: str, code: str = "200") -> set[str]:
    """The top-level keys the schema promises for one answer (its $ref resolved)."""
    ref = schema["paths"][path][method]["responses"][code]["content"]["application/json"][
        "schema"]["$ref"]
    return set(schema["components"]["schemas"][ref.rsplit("/", 1)[1]]["properties"])


def later(match: Match, seconds: int = 1) -> Any:
    """``seconds`` past the match's current deadline (a sweep's ``now`` that finds it missed)."""
    return Match.objects.get(pk=match.pk).deadline + timedelta(seconds=seconds)


class EchoSeat(SeatSession):
    """A stand-in for an out-of-process seat (e.g. a webhook bot): picks the last action."""

    def __init__(self) -> None:
        self.asked: list[int] = []

    def session(self, table: Table) -> EchoSeat:
        return self

    def ask(self, state: Any, seats: list[int], version: int) -> dict[int, SeatAnswer]:
        self.asked.append(version)
        return {n: SeatAnswer(action=state.legal_actions(n)[-1]) for n in seats}


def webhook_match(owner: Any, url: str, game: str, seats: list[dict] | None = None,
                  players: int = 3) -> int:
    bot = Bot.objects.create(owner=owner, name=f"b{Bot.objects.count()}", url=url,
                             secret=new_secret(), games=[game], handshake_ok=True)
    seats = seats or [{"kind": "webhook", "bot": bot.pk}] * players
    seats = [dict(s, bot=bot.pk) if s.get("kind") == "webhook" else s for s in seats]
    return services.match_create(game=game, created_by=owner, seats=seats, seed=5).pk


def use_seat_kind(request: Any, kind: SeatKind) -> None:
    """Play ``kind`` in place of the registered kind of its name until the test ends, through
    the registry's own calls (the one registered before comes back, or none)."""
    try:
        before: SeatKind | None = get_seat_kind(kind.name)
    except KeyError:
        before = None
    register_seat_kind(kind)
    request.addfinalizer(lambda: register_seat_kind(before) if before is not None
                         else unregister_seat_kind(kind.name))
