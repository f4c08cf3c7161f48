"""Whole matches of every game, played end to end through the HTTP API by polling clients, and
many threads racing to act on one match (PostgreSQL)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.db import connection

from games.engine import game_ids, get_game
from games.engine.play import replay
from games.log import entries
from games.models import AppliedAction, Match
from tests.helpers.matches import act, url

# Games whose matches here always have simultaneous steps (D.O.T commits, Dutch snaps, Dalmuti
# taxation).
SIMULTANEOUS = {"dot", "dutch", "great_dalmuti"}
MAX_REQUESTS = 40_000
# Players and options per game: realistic but short matches.
SETUP: dict[str, tuple[int, dict[str, Any]]] = {
    "dtc": (2, {}),
    "great_dalmuti": (4, {"hands": 2}),
    "dutch": (3, {"rounds": 3}),
    "dice_cup": (2, {}),
    "dot": (2, {}),
}


@pytest.mark.django_db
@pytest.mark.parametrize("game_id", game_ids())
def test_a_full_match_over_http(game_id: str, make_user, client_for, alice, bob) -> None:
    game = get_game(game_id)
    players, options = SETUP.get(game_id, (game.min_players, {}))
    users = [alice, bob] + [make_user(f"player{i}") for i in range(2, players)]
    clients = [client_for(user) for user in users]
    # Each client decides like the heuristic reference bot, from its polled view and legal
    # actions only (what any HTTP client gets).
    deciders = [game.make_bot("heuristic", seat, 7) for seat in range(players)]

    created = clients[0].post("/api/matches/", {"game": game_id, "players": players,
                                                "options": options, "seed": 7}, format="json")
    assert created.status_code == 201, created.json()
    match_id = created.json()["id"]
    for client in clients[1:]:
        assert client.post(url(match_id, "join"), format="json").status_code == 200

    etags: dict[int, str] = {}
    seen: dict[int, dict[str, Any]] = {}
    most_at_once = stale = shared = requests = 0
    while True:
        # Every client polls (304 when nothing changed for it), then every client whose turn it
        # is answers with the version it saw: in a simultaneous step the others' answers do not
        # make it stale (docs/api.md), so no answer is ever refused.
        for seat, client in enumerate(clients):
            response = client.get(url(match_id, "seats", seat), HTTP_IF_NONE_MATCH=etags.get(seat, ""))
            requests += 1
            if response.status_code == 304:
                continue
            assert response.status_code == 200, response.json()
            etags[seat], seen[seat] = response["ETag"], response.json()
        if seen[0]["status"] == "finished":
            break
        most_at_once = max(most_at_once, len(seen[0]["to_act"]))
        answered = 0
        for seat, client in enumerate(clients):
            body = seen[seat]
            if not body["your_turn"]:
                continue
            response = act(client, match_id, seat, body["version"],
                           deciders[seat].choose(body["view"], body["legal_actions"]))
            requests += 1
            if response.status_code == 409:
                assert response.json()["code"] == "stale_version"
                stale += 1
            else:
                assert response.status_code == 200, response.json()
                answered += 1
        shared += answered > 1
        assert requests < MAX_REQUESTS, "the match does not end"

    match = Match.objects.get(pk=match_id)
    assert match.status == "finished" and match.result
    assert all(body["view"]["is_over"] for body in seen.values())
    if game_id in SIMULTANEOUS:
        assert most_at_once > 1 and shared > 0, "simultaneous steps were played"
    assert stale == 0, "an answer within its step is never stale"
    log = clients[2 % len(clients)].get(url(match_id, "log")).json()
    assert [e["n"] for e in log["entries"]] == list(range(match.version + 1))
    actions = [(e["seat"], e["action"]) for e in log["entries"] if e["kind"] == "action"]
    assert replay(game_id, len(users), int(log["seed"]), log["options"], actions).result() == \
        log["result"]


def _race(game_id: str, make_match, users, client_for) -> None:
    match = make_match(game_id, users)
    clients = [client_for(user) for user in users]
    for _ in range(6):
        match.refresh_from_db()
        if match.status != "running":
            break
        version = match.version
        posts: list[tuple[int, dict]] = []
        from games.selectors import load_state

        state = load_state(match)
        for seat in state.to_act():
            legal = list(state.legal_actions(seat))
            posts += [(seat, legal[0])] * 6 + [(seat, legal[i % len(legal)]) for i in range(1, 7)]
        posts += [(seat, {"type": "nonsense"}) for seat in range(len(users))
                  if seat not in state.to_act()]
        barrier = threading.Barrier(len(posts))

        def post(job: tuple[int, dict]) -> tuple[int, dict, int, Any]:
            seat, action = job
            try:
                barrier.wait(timeout=10)
                response = act(clients[seat], match, seat, version, action)
                return seat, action, response.status_code, response.json()
            finally:
                connection.close()

        with ThreadPoolExecutor(max_workers=len(posts)) as pool:
            results = list(pool.map(post, posts, timeout=60))  # a deadlock would time out here
        codes = {code for _, _, code, _ in results}
        assert codes <= {200, 409, 422}, results
        # Every seat of the step answered once, with the version all of them polled (the
        # others' answers in the same simultaneous step do not make it stale).
        applied = AppliedAction.objects.filter(match=match, version=version)
        assert sorted(applied.values_list("seat", flat=True)) == sorted(state.to_act())
        for winner in applied:
            oks = [(action, body) for seat, action, code, body in results
                   if code == 200 and seat == winner.seat]
            assert oks and all(action == winner.action for action, _ in oks)
            assert all(body == winner.response for _, body in oks), "one answer for every retry"
        for seat, action, code, body in results:
            if code == 409:
                assert body["code"] == "stale_version" and body["current_version"] > version
    match.refresh_from_db()
    versions = [(e.n, e.version) for e in entries(match.pk)]
    assert versions == [(n, n) for n in range(match.version + 1)], "the log has no gaps"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("game_id, players", [("dice_cup", 2), ("dot", 2), ("great_dalmuti", 4)])
def test_threads_racing_on_one_match_apply_exactly_one_action_per_seat_and_version(
        game_id: str, players: int, make_match, make_user, alice, bob, client_for) -> None:
    users = [alice, bob] + [make_user(f"racer{i}") for i in range(2, players)]
    _race(game_id, make_match, users, client_for)
