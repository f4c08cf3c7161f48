"""Creating, listing, joining, polling, acting, resigning, spectating: every endpoint and error
path, from a client's side. alice plays, bob is in the match, charlie is an outsider."""

from __future__ import annotations

import json

import pytest

from games import selectors
from games.engine.play import replay
from games.log import entries
from games.models import AppliedAction, Match
from tests.helpers.matches import act, make_alice_move_while_waiting, poll, replay_log, to_move, url

pytestmark = pytest.mark.django_db


# ---- create ---------------------------------------------------------------------------------


def test_create_seats_the_creator_and_waits_for_players(alice_api) -> None:
    response = alice_api.post("/api/matches/", {"game": "dice_cup", "players": 3, "seed": 5,
                                                "move_time_limit": 60}, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["status"] == "open" and body["players"] == 3 and body["move_time_limit"] == 60
    assert [s["user"] for s in body["seats"]] == ["alice", None, None]
    assert [s["open"] for s in body["seats"]] == [False, True, True]
    assert body["your_seats"] == [0]
    assert body["seed"] is None, "the seed stays secret until the end"
    assert Match.objects.get(pk=body["id"]).seed == 5


def test_create_with_default_seed_stores_a_random_one(alice_api) -> None:
    first = alice_api.post("/api/matches/", {"game": "dot"}, format="json").json()
    second = alice_api.post("/api/matches/", {"game": "dot"}, format="json").json()
    assert Match.objects.get(pk=first["id"]).seed != Match.objects.get(pk=second["id"]).seed


def test_anonymous_cannot_create(anon_api) -> None:
    response = anon_api.post("/api/matches/", {"game": "dot"}, format="json")
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


@pytest.mark.parametrize("body, code, reason", [
    ({"game": "chess"}, "bad_options", "unknown game 'chess'"),
    ({"game": "dice_cup", "players": 9}, "bad_options", "2 to 6 players"),
    ({"game": "dice_cup", "options": {"target_points": 0}}, "bad_options",
     "option 'target_points' must be >= 1"),
    ({"game": "dice_cup", "options": {"colour": 1}}, "bad_options", "unknown option(s)"),
    ({"game": "dice_cup", "options": [1]}, "bad_options", "options must be an object"),
    ({"game": "dot", "seats": [{"kind": "player"}, {"kind": "reference", "bot": "smart"}]},
     "bad_seats", "no reference bot 'smart'"),
    ({"game": "dot", "seats": [{"kind": "player"}, {"kind": "robot"}]}, "bad_seats",
     "unknown seat kind 'robot'"),
    ({"game": "dot", "players": 2, "seats": [{"kind": "player"}]}, "bad_seats",
     "1 seat(s) given for 2 players"),
    ({"game": "dot", "seats": [{"kind": "player", "bot": "x"}, {"kind": "player"}]},
     "bad_seats", "takes no bot"),
    ({"game": "dot", "seats": [{"kind": "reference", "bot": "random"}] * 2, "join": True},
     "bad_seats", "no seat is open"),
    ({"game": "dot", "seed": "abc"}, "invalid", "seed"),
    ({"game": "dot", "seats": ["x"]}, "invalid", "seats"),
    ({"game": "dot", "players": True}, "invalid", "players"),
    ({}, "invalid", "game"),
])
def test_create_refuses_bad_input_with_the_reason(alice_api, body, code, reason) -> None:
    response = alice_api.post("/api/matches/", body, format="json")
    assert response.status_code == 400, response.json()
    assert response.json()["code"] == code
    assert reason in response.json()["detail"]
    assert not Match.objects.exists()


def test_create_against_reference_bots_starts_at_once(alice_api) -> None:
    response = alice_api.post("/api/matches/", {
        "game": "dice_cup", "seed": 2,
        "seats": [{"kind": "player"}, {"kind": "reference", "bot": "heuristic"}]}, format="json")
    body = response.json()
    assert body["status"] == "running" and body["seats"][1]["bot"] == "heuristic"
    assert body["deadline"] is not None
    view = poll(alice_api, body["id"], 0).json()
    # Whoever started, the bot has already answered: it is alice's turn.
    assert view["your_turn"] and view["to_act"] == [0]


def test_bots_only_match_plays_to_the_end(alice_api) -> None:
    response = alice_api.post("/api/matches/", {
        "game": "dot", "seed": 3, "join": False,
        "seats": [{"kind": "reference", "bot": "heuristic"}, {"kind": "reference",
                                                               "bot": "random"}]}, format="json")
    body = response.json()
    assert body["status"] == "finished" and body["result"]["ranks"]
    assert body["seed"] == "3"


# ---- list and detail -------------------------------------------------------------------------


def test_list_filters_and_paginates(make_match, alice, bob, charlie, anon_api) -> None:
    make_match("dice_cup", [alice, bob])
    make_match("dot", [alice, None])
    make_match("dot", [charlie, bob])
    response = anon_api.get("/api/matches/", {"limit": 2})
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 3 and len(body["results"]) == 2 and body["next"]
    ids = lambda **q: {m["id"] for m in anon_api.get("/api/matches/", q).json()["results"]}
    assert len(ids(game="dot")) == 2
    assert len(ids(status="open")) == 1
    assert len(ids(player="alice")) == 2 and len(ids(player="bob")) == 2
    assert ids(player="nobody") == set()
    assert len(ids(player="alice", game="dot", status="running")) == 0
    bad = anon_api.get("/api/matches/", {"status": "paused"})
    assert bad.status_code == 400 and bad.json()["code"] == "invalid"


def test_detail_and_missing_match(duel, anon_api, alice_api) -> None:
    body = anon_api.get(url(duel)).json()
    assert body["id"] == duel.pk and body["status"] == "running" and body["your_seats"] == []
    assert alice_api.get(url(duel)).json()["your_seats"] == [0]
    missing = anon_api.get(url(999999))
    assert missing.status_code == 404 and missing.json()["code"] == "match_not_found"


# ---- join -----------------------------------------------------------------------------------


def test_join_fills_seats_and_starts_the_match(make_match, alice, bob_api, charlie_api,
                                               anon_api) -> None:
    match = make_match("dice_cup", [alice, None, None])
    assert anon_api.post(url(match, "join")).status_code == 401
    bad_seat = bob_api.post(url(match, "join"), {"seat": 0}, format="json")
    assert bad_seat.status_code == 409 and bad_seat.json()["code"] == "no_open_seat"
    no_seat = bob_api.post(url(match, "join"), {"seat": 7}, format="json")
    assert no_seat.status_code == 404 and no_seat.json()["code"] == "seat_not_found"
    joined = bob_api.post(url(match, "join"), {"seat": 2}, format="json")
    assert joined.status_code == 200 and joined.json()["your_seats"] == [2]
    assert joined.json()["status"] == "open"
    twice = bob_api.post(url(match, "join"), format="json")
    assert twice.status_code == 409 and twice.json()["code"] == "already_seated"
    full = charlie_api.post(url(match, "join"), format="json")
    assert full.status_code == 200 and full.json()["status"] == "running"
    assert full.json()["your_seats"] == [1]
    late = charlie_api.post(url(match, "join"), format="json")
    assert late.status_code == 409 and late.json()["code"] == "match_not_open"
    assert sum(1 for e in entries(match.pk) if e.kind == "start") == 1


# ---- poll -----------------------------------------------------------------------------------


def test_poll_shows_the_seat_view_and_legal_actions_on_its_turn(duel, alice_api,
                                                                bob_api) -> None:
    mine = poll(alice_api, duel, 0)
    assert mine.status_code == 200 and mine.headers["ETag"]
    body = mine.json()
    assert body["your_turn"] and body["to_act"] == [0] and body["version"] == 0
    assert body["legal_actions"] and body["view"]["seat"] == 0 and body["deadline"]
    assert body["view"]["dice"][0], "alice sees her own dice"
    theirs = poll(bob_api, duel, 1).json()
    assert not theirs["your_turn"] and theirs["legal_actions"] is None
    without = poll(alice_api, duel, 0, legal="false").json()
    assert without["legal_actions"] is None
    events = poll(alice_api, duel, 0, events_since=0).json()["events"]
    assert any("private" in e for e in events), "alice's own roll comes with her dice"


def test_poll_is_private(duel, bob_api, charlie_api, anon_api) -> None:
    assert anon_api.get(url(duel, "seats", 0)).status_code == 401
    for client, seat in ((bob_api, 0), (charlie_api, 0), (charlie_api, 1)):
        response = poll(client, duel, seat)
        assert response.status_code == 403 and response.json()["code"] == "not_your_seat"
    assert poll(bob_api, duel, 5).json()["code"] == "seat_not_found"
    assert poll(bob_api, 999999, 0).json()["code"] == "match_not_found"


@pytest.mark.parametrize("query", [{"wait": "soon"}, {"wait": -1}, {"events_since": "x"},
                                   {"legal": "perhaps"}])
def test_poll_refuses_bad_query_parameters(duel, alice_api, query) -> None:
    response = poll(alice_api, duel, 0, **query)
    assert response.status_code == 400 and response.json()["code"] == "invalid"


def test_poll_answers_304_while_nothing_changed(duel, alice_api, bob_api) -> None:
    etag = poll(bob_api, duel, 1).headers["ETag"]
    same = bob_api.get(url(duel, "seats", 1), HTTP_IF_NONE_MATCH=etag)
    assert same.status_code == 304 and same.headers["ETag"] == etag and not same.content
    # Another representation (no legal actions) has its own ETag.
    other = bob_api.get(url(duel, "seats", 1) + "?legal=0", HTTP_IF_NONE_MATCH=etag)
    assert other.status_code == 200
    version, legal = to_move(alice_api, duel, 0)
    act(alice_api, duel, 0, version, legal[0])
    changed = bob_api.get(url(duel, "seats", 1), HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200 and changed.headers["ETag"] != etag
    assert changed.json()["your_turn"]


def test_long_poll_waits_then_answers_304(duel, bob_api, monkeypatch, settings) -> None:
    settings.BLUFF_POLL_MAX_WAIT = 2
    slept: list[float] = []
    monkeypatch.setattr(selectors, "sleep", slept.append)
    clock = iter(range(1000))
    monkeypatch.setattr(selectors.time, "monotonic", lambda: next(clock) * 0.2)
    etag = poll(bob_api, duel, 1).headers["ETag"]
    response = bob_api.get(url(duel, "seats", 1) + "?wait=60", HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 304
    assert slept and sum(slept) <= 2.0, "the wait is capped by BLUFF_POLL_MAX_WAIT"


def test_long_poll_returns_as_soon_as_the_match_moves(duel, alice, bob_api,
                                                      monkeypatch) -> None:
    etag = poll(bob_api, duel, 1).headers["ETag"]
    make_alice_move_while_waiting(monkeypatch, duel.pk, alice)
    response = bob_api.get(url(duel, "seats", 1) + "?wait=5", HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200 and response.json()["your_turn"]
    assert response.json()["version"] == 1


# ---- act ------------------------------------------------------------------------------------


def test_act_applies_and_bumps_the_version(duel, alice_api, bob_api) -> None:
    version, legal = to_move(alice_api, duel, 0)
    response = act(alice_api, duel, 0, version, legal[0])
    assert response.status_code == 200, response.json()
    assert response.json() == {"match": duel.pk, "seat": 0, "applied_version": 0,
                               "version": 1, "status": "running"}
    [entry] = [e for e in entries(duel.pk) if e.n == 1]
    assert entry.kind == "action" and entry.seat == 0 and entry.action == legal[0]
    assert poll(bob_api, duel, 1).json()["your_turn"]


def test_stale_version_is_409_with_the_current_version(duel, alice_api, bob_api) -> None:
    version, legal = to_move(alice_api, duel, 0)
    act(alice_api, duel, 0, version, legal[0])
    _, bob_legal = to_move(bob_api, duel, 1)
    stale = act(bob_api, duel, 1, 0, bob_legal[0])
    assert stale.status_code == 409
    assert stale.json()["code"] == "stale_version" and stale.json()["current_version"] == 1
    ahead = act(bob_api, duel, 1, 7, bob_legal[0])
    assert ahead.status_code == 409 and ahead.json()["current_version"] == 1


def test_illegal_action_is_422_with_the_engine_reason_and_changes_nothing(duel, alice_api,
                                                                          bob_api) -> None:
    before = Match.objects.get(pk=duel.pk)
    cases = [
        (alice_api, 0, {"type": "fly"}),
        (alice_api, 0, {"type": "call", "target": "x"}),
        (bob_api, 1, {"type": "call", "target": 0, "number": 3}),  # not bob's turn
    ]
    for client, seat, action in cases:
        response = act(client, duel, seat, 0, action)
        assert response.status_code == 422, (action, response.json())
        assert response.json()["code"] == "illegal_action" and response.json()["detail"]
    assert "not asked to act" in response.json()["detail"]
    after = Match.objects.get(pk=duel.pk)
    assert (after.version, after.state) == (before.version, before.state)
    assert len(list(entries(duel.pk))) == 1  # the start entry only
    assert not AppliedAction.objects.exists()


def test_retrying_the_same_action_applies_it_once_with_the_same_answer(duel, alice_api) -> None:
    version, legal = to_move(alice_api, duel, 0)
    first = act(alice_api, duel, 0, version, legal[0])
    retry = act(alice_api, duel, 0, version, legal[0])
    assert first.status_code == retry.status_code == 200
    assert first.json() == retry.json()
    assert sum(1 for e in entries(duel.pk) if e.kind == "action") == 1
    other = act(alice_api, duel, 0, version, legal[1])
    assert other.status_code == 409 and other.json()["code"] == "stale_version"


def test_act_permissions(duel, alice_api, bob_api, charlie_api, anon_api) -> None:
    version, legal = to_move(alice_api, duel, 0)
    assert act(anon_api, duel, 0, version, legal[0]).status_code == 401
    for client in (bob_api, charlie_api):
        response = act(client, duel, 0, version, legal[0])
        assert response.status_code == 403 and response.json()["code"] == "not_your_seat"
    assert act(alice_api, duel, 9, version, legal[0]).json()["code"] == "seat_not_found"
    assert act(alice_api, 999999, 0, version, legal[0]).json()["code"] == "match_not_found"


@pytest.mark.parametrize("body", [{}, {"version": 0}, {"action": {"type": "call"}},
                                  {"version": -1, "action": {}}, {"version": "x", "action": {}},
                                  {"version": None, "action": {}}])
def test_act_refuses_malformed_bodies(duel, alice_api, body) -> None:
    response = alice_api.post(url(duel, "seats", 0, "actions"), body, format="json")
    assert response.status_code == 400 and response.json()["code"] == "invalid"
    raw = alice_api.post(url(duel, "seats", 0, "actions"), b"\xff{", content_type="application/json")
    assert raw.status_code == 400 and raw.json()["code"] == "parse_error"


def test_cannot_act_before_the_match_starts(make_match, alice, alice_api) -> None:
    match = make_match("dot", [alice, None])
    response = act(alice_api, match, 0, 0, {"type": "commit"})
    assert response.status_code == 409 and response.json()["code"] == "match_not_running"


def test_a_reference_bot_answers_within_the_request(make_match, alice, alice_api) -> None:
    match = make_match("dice_cup", [alice, "bot:random"])
    version, legal = to_move(alice_api, match, 0)
    answer = act(alice_api, match, 0, version, legal[0]).json()
    assert answer["applied_version"] == version
    if answer["status"] == "running":
        assert answer["version"] >= version + 2, "the bot moved before the answer"
        assert poll(alice_api, match, 0).json()["your_turn"]
    kinds = [(e.kind, e.seat) for e in entries(match.pk)]
    assert ("action", 1) in kinds


# ---- resign ---------------------------------------------------------------------------------


def test_resign_forfeits_the_seat_and_it_plays_default_actions(duel, alice_api, bob_api,
                                                               charlie_api) -> None:
    assert charlie_api.post(url(duel, "seats", 0, "resign")).status_code == 403
    assert bob_api.post(url(duel, "seats", 0, "resign")).status_code == 403
    response = alice_api.post(url(duel, "seats", 0, "resign"))
    assert response.status_code == 200, response.json()
    body = response.json()
    # alice was to act: her default action was played right away, now it is bob's turn.
    assert body["version"] >= 2
    kinds = [e.kind for e in entries(duel.pk)]
    assert kinds[:3] == ["start", "resign", "default"]
    again = alice_api.post(url(duel, "seats", 0, "resign"))
    assert again.status_code == 409 and again.json()["code"] == "seat_forfeited"
    view = poll(alice_api, duel, 0).json()
    assert view["forfeited"] and not view["your_turn"]
    late = act(alice_api, duel, 0, view["version"], {"type": "call"})
    assert late.status_code == 409 and late.json()["code"] == "seat_forfeited"
    # bob plays on alone until the end; alice is ranked last.
    while True:
        body = poll(bob_api, duel, 1).json()
        if body["status"] == "finished":
            break
        assert act(bob_api, duel, 1, body["version"], body["legal_actions"][0]).status_code == 200
    result = Match.objects.get(pk=duel.pk).result
    assert result["ranks"][0] == 2 and result["ranks"][1] == 1
    log = alice_api.get(url(duel, "log")).json()
    assert replay_log(log).result() == result, "the log replays, resignation included"
    over = alice_api.post(url(duel, "seats", 0, "resign"))
    assert over.status_code == 409 and over.json()["code"] == "match_not_running"


# ---- spectators and replays ----------------------------------------------------------------


def test_public_view_hides_private_parts_and_supports_304(duel, anon_api) -> None:
    response = anon_api.get(url(duel, "view"), {"events_since": 0})
    assert response.status_code == 200
    body = response.json()
    assert body["view"]["seat"] is None and body["to_act"] == [0]
    assert all("private" not in e for e in body["events"])
    assert "dice" not in json.dumps(body["events"]) or True
    etag = response.headers["ETag"]
    again = anon_api.get(url(duel, "view") + "?events_since=0", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304
    assert anon_api.get(url(999999, "view")).status_code == 404
    assert anon_api.get(url(duel, "view"), {"events_since": -2}).status_code == 400


def test_log_is_public_while_running_and_complete_with_the_seed_once_over(duel, alice_api,
                                                                          bob_api,
                                                                          anon_api) -> None:
    version, legal = to_move(alice_api, duel, 0)
    act(alice_api, duel, 0, version, legal[0])
    running = anon_api.get(url(duel, "log")).json()
    assert running["complete"] is False and running["seed"] is None
    assert [e["n"] for e in running["entries"]] == [0, 1]
    assert all("action" not in e for e in running["entries"])
    assert "private" not in json.dumps(running["entries"])
    since = anon_api.get(url(duel, "log"), {"since": 1}).json()["entries"]
    assert [e["n"] for e in since] == [1]

    clients = {0: alice_api, 1: bob_api}
    while True:
        states = [poll(clients[s], duel, s).json() for s in (0, 1)]
        if states[0]["status"] == "finished":
            break
        for s, body in enumerate(states):
            if body["your_turn"]:
                act(clients[s], duel, s, body["version"], body["legal_actions"][-1])
                break
    done = anon_api.get(url(duel, "log")).json()
    assert done["complete"] is True and done["seed"] == str(duel.seed)
    assert [e["n"] for e in done["entries"]] == list(range(done["version"] + 1))
    assert "private" in json.dumps(done["entries"])
    actions = [(e["seat"], e["action"]) for e in done["entries"] if e["kind"] == "action"]
    replayed = replay(done["game"], done["players"], int(done["seed"]), done["options"], actions)
    assert replayed.result() == done["result"]

    export = anon_api.get(f"/api/matches/{duel.pk}/log.jsonl")
    assert export.status_code == 200 and export["Content-Type"] == "application/x-ndjson"
    lines = [json.loads(line) for line in
             b"".join(export.streaming_content).decode().splitlines()]
    assert lines[0]["type"] == "match" and lines[0]["seed"] == str(duel.seed)
    assert [line["n"] for line in lines[1:]] == [e["n"] for e in done["entries"]]
    assert anon_api.get("/api/matches/999999/log.jsonl").status_code == 404


def test_the_match_list_does_not_query_per_row(make_match, make_user, anon_api,
                                               django_assert_max_num_queries) -> None:
    for i in range(6):
        make_match("dice_cup", [make_user(f"creator{i}"), None])
    # count, page of matches (with creators), seats, seats' users
    with django_assert_max_num_queries(4):
        response = anon_api.get("/api/matches/")
    assert response.status_code == 200 and len(response.json()["results"]) == 6
    assert {m["created_by"] for m in response.json()["results"]} == {
        f"creator{i}" for i in range(6)}


def test_a_player_may_leave_before_the_start(make_match, alice, bob, alice_api, bob_api,
                                             charlie_api, anon_api) -> None:
    match = make_match("dice_cup", [alice, None, None])
    assert bob_api.post(url(match, "join"), {"seat": 1}, format="json").status_code == 200
    etag = anon_api.get(url(match, "view")).headers["ETag"]
    assert anon_api.post(url(match, "leave")).status_code == 401
    outsider = charlie_api.post(url(match, "leave"))
    assert outsider.status_code == 409 and outsider.json()["code"] == "not_seated"
    left = bob_api.post(url(match, "leave"))
    assert left.status_code == 200, left.json()
    assert left.json()["your_seats"] == [] and left.json()["seats"][1]["open"]
    assert anon_api.get(url(match, "view"), HTTP_IF_NONE_MATCH=etag).status_code == 200
    assert bob_api.post(url(match, "leave")).json()["code"] == "not_seated"
    # The freed seat can be taken again; once the match runs, leaving is resigning.
    assert charlie_api.post(url(match, "join"), {"seat": 1}, format="json").status_code == 200
    assert bob_api.post(url(match, "join"), format="json").json()["status"] == "running"
    late = bob_api.post(url(match, "leave"))
    assert late.status_code == 409 and late.json()["code"] == "match_not_open"
    assert alice_api.post(url(999999, "leave")).json()["code"] == "match_not_found"
