"""The published OpenAPI schema accepts real traffic: clients generated from /api/schema/ must
parse every answer the server gives and be able to send every legal action.

Full matches of every game, with non-default options, are played through the API by polling
clients (reference bots deciding from what the API returns), together with the errors clients
meet (stale version, illegal action, not your seat, no such match or seat, no token, bad body,
acting after the end). Every request that succeeded, every response and every distinct legal
action is then validated against the schema the server publishes, by openapi-core.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.http import HttpResponse
from openapi_core import Config, OpenAPI
from openapi_core.contrib.django import DjangoOpenAPIRequest, DjangoOpenAPIResponse
from openapi_schema_validator import OAS30WriteValidator
from rest_framework.test import APIClient

from games import services
from games.engine import game_ids, get_game
from tests.helpers.matches import act, url

# Players and options per game: never the defaults, so option-dependent shapes and actions
# (Great Dalmuti's merchant exchange, Dice Cup's target, ...) are part of the traffic.
SETUP: dict[str, tuple[int, dict[str, Any]]] = {
    "dtc": (3, {"variant_2a": True}),
    "great_dalmuti": (6, {"hands": 2, "merchant_exchange": True, "philanthropic": True,
                          "initial_order": [5, 4, 3, 2, 1, 0]}),
    "dutch": (3, {"rounds": 3, "initial_peek": 2}),
    "dice_cup": (3, {"target_points": 15}),
    "dot": (2, {"deck": [[(i + j) % 4, (2 * i + j) % 4, (i + 2 * j) % 4]
                         for i in range(5) for j in range(3)]}),
}
MAX_ROUNDS = 5_000


class RecordingClient(APIClient):
    """An API client that keeps every response (each knows its request: ``wsgi_request``)."""

    def __init__(self, traffic: list[HttpResponse], **defaults: Any) -> None:
        super().__init__(**defaults)
        self.traffic = traffic

    def request(self, **request: Any) -> HttpResponse:
        response = super().request(**request)
        self.traffic.append(response)
        return response


@dataclass
class Traffic:
    """What the clients of one test sent and got."""

    responses: list[HttpResponse] = field(default_factory=list)
    #: Every distinct legal action the polls returned, as (game, JSON text).
    legal_actions: set[tuple[str, str]] = field(default_factory=set)

    def client(self, user: Any = None) -> RecordingClient:
        client = RecordingClient(self.responses)
        if user is not None:
            client.credentials(HTTP_AUTHORIZATION=f"Token {services.user_token(user=user)}")
        return client

    def record_legal(self, game_id: str, body: dict[str, Any]) -> None:
        self.legal_actions.update((game_id, json.dumps(action, sort_keys=True))
                                  for action in body.get("legal_actions") or ())


def play_match(game_id: str, traffic: Traffic, users: list[Any], outsider: Any) -> None:
    """One whole match over HTTP, with the errors a client meets on the way."""
    game = get_game(game_id)
    players, options = SETUP[game_id]
    clients = [traffic.client(user) for user in users[:players]]
    anonymous, stranger = traffic.client(), traffic.client(outsider)
    bots = [game.make_bot("heuristic" if seat % 2 else "random", seat, 11)
            for seat in range(players)]

    created = clients[0].post("/api/matches/", {"game": game_id, "players": players,
                                                "options": options, "seed": 11}, format="json")
    assert created.status_code == 201, created.json()
    match_id = created.json()["id"]
    clients[0].get(url(match_id, "seats", 0))  # an open match's poll
    act(clients[0], match_id, 0, 0, {"type": "pass"})  # 409 match_not_running
    clients[0].post(url(match_id, "join"), format="json")  # 409 already_seated
    stranger.post(url(match_id, "leave"), format="json")  # 409 not_seated
    for client in clients[1:]:
        assert client.post(url(match_id, "join"), format="json").status_code == 200
    clients[0].post(url(match_id, "leave"), format="json")  # 409 match_not_open

    etags: dict[int, str] = {}
    seen: dict[int, dict[str, Any]] = {}
    resigner = players - 1 if players > 2 else None
    for round_number in range(MAX_ROUNDS):
        for seat, client in enumerate(clients):
            response = client.get(url(match_id, "seats", seat),
                                  HTTP_IF_NONE_MATCH=etags.get(seat, ""))
            if response.status_code == 304:
                continue
            assert response.status_code == 200, response.json()
            etags[seat], seen[seat] = response["ETag"], response.json()
            traffic.record_legal(game_id, seen[seat])
        if seen[0]["status"] == "finished":
            break
        for seat, client in enumerate(clients):
            body = seen[seat]
            if not body["your_turn"] or body["forfeited"]:
                continue
            if round_number == 1:
                _errors_while_running(clients, anonymous, stranger, match_id, seat, body)
            action = bots[seat].choose(body["view"], body["legal_actions"])
            assert act(client, match_id, seat, body["version"], action).status_code in (200, 409)
            if seat == resigner and round_number >= 2:
                assert client.post(url(match_id, "seats", seat, "resign")).status_code == 200
                now = client.get(url(match_id, "seats", seat)).json()["version"]
                act(client, match_id, seat, now, action)  # 409 seat_forfeited
                resigner = None
    else:
        pytest.fail(f"the {game_id} match does not end")

    act(clients[0], match_id, 0, seen[0]["version"], {"type": "pass"})  # 409 match_not_running
    clients[0].post(url(match_id, "seats", 0, "resign"))  # 409 match_not_running
    for client in (anonymous, clients[0]):
        client.get(url(match_id))
        view = client.get(url(match_id, "view"), {"events_since": 0})
        client.get(url(match_id, "view"), {"events_since": 0},
                   HTTP_IF_NONE_MATCH=view["ETag"])  # 304
        client.get(url(match_id, "log"))
        client.get(f"/api/matches/{match_id}/log.jsonl")
        client.get("/api/matches/", {"game": game_id, "status": "finished"})


def _errors_while_running(clients: list[APIClient], anonymous: APIClient, stranger: APIClient,
                          match_id: int, seat: int, body: dict[str, Any]) -> None:
    client, version = clients[seat], body["version"]
    client.get(url(match_id, "seats", seat), {"legal": "false", "events_since": 0})
    client.get(url(match_id, "seats", seat), HTTP_IF_NONE_MATCH=f'W/"{version}.stale"')
    act(client, match_id, seat, version + 1000, body["legal_actions"][0])  # 409 stale_version
    act(client, match_id, seat, version, {"type": "no_such_action"})  # 422 illegal_action
    client.post(url(match_id, "seats", seat, "actions"), {"action": {}}, format="json")  # 400
    stranger.get(url(match_id, "seats", seat))  # 403 not_your_seat
    act(stranger, match_id, seat, version, body["legal_actions"][0])  # 403 not_your_seat
    stranger.post(url(match_id, "seats", seat, "resign"))  # 403 not_your_seat
    anonymous.get(url(match_id, "seats", seat))  # 401
    client.get(url(match_id, "seats", 63))  # 404 seat_not_found
    client.get(url(10**9, "seats", seat))  # 404 match_not_found
    anonymous.get(url(10**9, "view"))  # 404 match_not_found


def schema_problems(openapi: OpenAPI, components: dict[str, Any], traffic: Traffic
                    ) -> tuple[list[str], int]:
    """What the schema refuses in ``traffic`` (one line each), and how many legal actions."""
    problems = []
    requests_checked = set()
    for response in traffic.responses:
        request = DjangoOpenAPIRequest(response.wsgi_request)
        where = f"{request.method.upper()} {request.path} -> {response.status_code}"
        problems += [f"{where}: response: {error}" for error in openapi.iter_response_errors(
            request, DjangoOpenAPIResponse(response))]
        # The server took it, so the schema must allow it. Polls repeat: check each shape once.
        shape = (request.method, request.path_pattern, request.body,
                 tuple(sorted(request.parameters.query.items(multi=True))),
                 tuple(sorted(request.parameters.header.keys())))
        if response.status_code < 400 and shape not in requests_checked:
            requests_checked.add(shape)
            problems += [f"{where}: request: {error}"
                         for error in openapi.iter_request_errors(request)]
    # The act body's schema, its references resolved in the published components, compiled
    # once: a client generated from the schema must be able to send every legal action.
    act_body = OAS30WriteValidator({"$ref": "#/components/schemas/SeatActInputRequest",
                                    "components": components})
    refused = 0
    for game_id, action in sorted(traffic.legal_actions):
        errors = [error.message for error in act_body.iter_errors(
            {"version": 0, "action": json.loads(action)})]
        refused += bool(errors)
        problems += [f"{game_id} legal action {action}: {error}" for error in errors]
    return problems, refused


def _ndjson_text(body: bytes, **parameters: str) -> str:
    """The JSON Lines export is documented as a string: one JSON object per line."""
    text = body.decode()
    for line in text.splitlines():
        json.loads(line)
    return text


@pytest.mark.django_db
def test_real_traffic_of_every_game_validates_against_the_published_schema(
        make_user: Callable[..., Any]) -> None:
    assert set(SETUP) == set(game_ids()), "every game plays here, with non-default options"
    traffic = Traffic()
    users = [make_user(f"player{i}") for i in range(max(p for p, _ in SETUP.values()))]
    outsider = make_user("charlie")
    for game_id in game_ids():
        play_match(game_id, traffic, users, outsider)
    anonymous = traffic.client()
    anonymous.get("/api/games/")
    anonymous.post("/api/auth/token/", {"username": "player0", "password": "wrong"},
                   format="json")  # 401 bad_credentials
    schema = anonymous.get("/api/schema/", {"format": "json"})
    traffic.responses.remove(schema)

    statuses = Counter(response.status_code for response in traffic.responses)
    assert set(statuses) == {200, 201, 304, 400, 401, 403, 404, 409, 422}, statuses
    codes = {response.json()["code"] for response in traffic.responses
             if response.status_code >= 400}
    assert codes >= {"stale_version", "illegal_action", "not_your_seat", "match_not_found",
                     "seat_not_found", "not_authenticated", "invalid", "match_not_running",
                     "seat_forfeited", "already_seated", "not_seated", "match_not_open",
                     "bad_credentials"}, codes
    gd_types = {json.loads(a)["type"] for g, a in traffic.legal_actions if g == "great_dalmuti"}
    assert {"exchange", "decline"} <= gd_types, "the merchant exchange was offered"

    openapi = OpenAPI.from_dict(schema.json(), config=Config(
        extra_media_type_deserializers={"application/x-ndjson": _ndjson_text}))
    problems, refused_actions = schema_problems(openapi, schema.json()["components"], traffic)
    assert not problems, (
        f"{len(problems)} schema problems; {refused_actions} of {len(traffic.legal_actions)} "
        f"distinct legal actions refused:\n" + "\n".join(problems[:25]))
