"""games.fields in the API: 64-bit seeds survive any JSON parser (SeedField), and a seat's bot
is an id where it is one (BotReferenceField).

JavaScript, jq and many other clients read every JSON number as a double: an integer above
2**53 comes back rounded (``8242869483248298026`` as ``8242869483248298000``), so a client could
not replay a match from its seed. Seeds are decimal strings; requests may send either form.
"""

from __future__ import annotations

import json

import pytest

from games.engine.play import replay
from games.models import Match

pytestmark = pytest.mark.django_db

BIG = 8242869483248298026


def as_a_float_parser_reads_it(body: bytes) -> dict:
    """What jq or ``JSON.parse`` would see: every number a double."""
    return json.loads(body, parse_int=float, parse_float=float)


def test_a_seed_above_2_53_is_lost_as_a_json_number() -> None:
    assert int(as_a_float_parser_reads_it(json.dumps({"seed": BIG}).encode())["seed"]) != BIG


@pytest.mark.parametrize("sent", [str(BIG), BIG])
def test_a_big_seed_round_trips_through_a_float_number_parser_and_replays(alice_api,
                                                                          sent) -> None:
    created = alice_api.post("/api/matches/", {
        "game": "dot", "seed": sent, "join": False,
        "seats": [{"kind": "reference", "bot": "heuristic"},
                  {"kind": "reference", "bot": "random"}]}, format="json")
    assert created.status_code == 201, created.json()
    match_id = created.json()["id"]
    assert Match.objects.get(pk=match_id).seed == BIG
    detail = as_a_float_parser_reads_it(alice_api.get(f"/api/matches/{match_id}/").content)
    log = as_a_float_parser_reads_it(alice_api.get(f"/api/matches/{match_id}/log/").content)
    export = alice_api.get(f"/api/matches/{match_id}/log.jsonl")
    header = as_a_float_parser_reads_it(b"".join(export.streaming_content).splitlines()[0])
    assert detail["seed"] == log["seed"] == header["seed"] == str(BIG)
    # The actions' small numbers mean the same to any parser; the seed is what a float
    # parser would have rounded.
    exact = alice_api.get(f"/api/matches/{match_id}/log/").json()
    actions = [(e["seat"], e["action"]) for e in exact["entries"] if e["kind"] == "action"]
    replayed = replay("dot", 2, int(log["seed"]), exact["options"], actions)
    assert replayed.is_over and replayed.result() == exact["result"]


@pytest.mark.parametrize("seed", ["12a", "", " 7", 1.5, True, "9223372036854775808", None])
def test_a_seed_must_be_an_integer_in_range(alice_api, seed) -> None:
    response = alice_api.post("/api/matches/", {"game": "dot", "seed": seed}, format="json")
    assert response.status_code == 400 and response.json()["code"] == "invalid", response.json()
    assert "seed" in response.json()["detail"]


def test_the_schema_says_seeds_are_strings(client) -> None:
    schema = client.get("/api/schema/?format=json").json()["components"]["schemas"]
    for name, field in (("MatchOutput", "seed"), ("MatchLogOutput", "seed"),
                        ("Tournament", "seed"), ("TournamentMatchesOutput", "seed")):
        assert schema[name]["properties"][field]["type"] == "string", name
        assert schema[name]["properties"][field]["pattern"] == r"^-?[0-9]{1,19}$"
    request = schema["MatchListCreateInputRequest"]["properties"]["seed"]["anyOf"]
    assert [s["type"] for s in request] == ["string", "integer"], "a request may send either"


def test_a_webhook_seat_s_bot_is_its_id_as_a_number(alice_api, alice) -> None:
    from bots.models import Bot
    from games.engine import game_ids

    bot = Bot.objects.create(owner=alice, name="local", url="http://127.0.0.1:9/",
                             secret="whsec_x", games=list(game_ids()), handshake_ok=True)
    created = alice_api.post("/api/matches/", {
        "game": "dice_cup", "join": False,
        "seats": [{"kind": "webhook", "bot": bot.pk}, {"kind": "reference", "bot": "random"}]},
        format="json")
    assert created.status_code == 201, created.json()
    body = created.json()
    assert [s["bot"] for s in body["seats"]] == [bot.pk, "random"]
    log = alice_api.get(f"/api/matches/{body['id']}/log/").json()
    assert [s["bot"] for s in log["seats"]] == [bot.pk, "random"]
