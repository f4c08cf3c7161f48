"""One name per seat everywhere (games.names): a person by username, a webhook bot by its
owner's name for it and the owner's username, a reference bot as such, an empty seat as open;
the replay and play pages and the bot protocol's ``seats`` say the same, in few queries."""

from __future__ import annotations

import re
from typing import Any

import pytest

from bots.models import Bot
from games import services
from games.names import Sitter, seat_label, seat_labels

pytestmark = pytest.mark.django_db


@pytest.fixture
def dice_bot(alice: Any) -> Bot:
    return Bot.objects.create(owner=alice, name="dice_bot", url="https://bot.example/",
                              secret="whsec_x", handshake_ok=True, games=["dice_cup"])


def test_each_kind_of_seat_reads_as_a_person_would_name_it(alice, dice_bot) -> None:
    assert seat_labels([Sitter("webhook", str(dice_bot.pk)), Sitter("player", "", alice.pk),
                        Sitter("reference", "heuristic"), Sitter("player"),
                        Sitter("webhook", "999999")]) == [
        "dice_bot (alice)", "alice", "heuristic (reference bot)", "open seat", "deleted bot"]
    dice_bot.name = "renamed"
    dice_bot.save()
    assert seat_label(Sitter("webhook", str(dice_bot.pk))) == "renamed (alice)"


def test_many_seats_cost_one_query_per_kind(alice, bob, dice_bot,
                                            django_assert_max_num_queries) -> None:
    other = Bot.objects.create(owner=bob, name="other", url="https://bot.example/",
                               secret="whsec_y")
    seats = [Sitter("webhook", str(b.pk)) for b in (dice_bot, other)] * 50 + \
        [Sitter("player", "", u.pk) for u in (alice, bob)] * 50
    with django_assert_max_num_queries(2):
        labels = seat_labels(seats)
    assert labels[:2] == ["dice_bot (alice)", "other (bob)"] and labels[-1] == "bob"


def test_the_replay_and_play_pages_name_the_seats(client, alice, dice_bot) -> None:
    match = services.match_create(game="dice_cup", created_by=alice, seed=3, join=True,
                                  seats=[{"kind": "player"},
                                         {"kind": "reference", "bot": "heuristic"}])
    html = client.get(f"/matches/{match.pk}/").content.decode()
    assert "alice · heuristic (reference bot)" in re.sub(r"<[^>]+>", "", html)
    assert "(player)" not in html
    client.force_login(alice)
    html = client.get(f"/matches/{match.pk}/play/").content.decode()
    assert "alice · heuristic (reference bot)" in html


def test_the_bot_protocol_names_the_seats_as_the_pages_do(alice, dice_bot) -> None:
    from bots.webhook import match_info
    from games.seats import Table, TableSeat

    table = Table(match_id=1, game="dice_cup", options={}, seed=1, move_time_limit=5,
                  strike_limit=3, seats=(TableSeat(0, "webhook", str(dice_bot.pk)),
                                         TableSeat(1, "player", "", alice.pk)))
    assert match_info(table, {0: dice_bot}).seats == ["dice_bot (alice)", "alice"]


def test_the_match_api_names_each_seat_in_few_queries(alice, bob, dice_bot, alice_api,
                                                      django_assert_max_num_queries) -> None:
    from games.models import Match, Seat

    for _ in range(20):
        match = Match.objects.create(game="dice_cup", seed=1, players=2, status="finished",
                                     state={})
        Seat.objects.create(match=match, number=0, kind="webhook", bot_name=str(dice_bot.pk))
        Seat.objects.create(match=match, number=1, kind="player", user=bob)
    with django_assert_max_num_queries(7):  # 6, whatever the matches
        page = alice_api.get(f"/api/matches/?bot={dice_bot.pk}").json()
    assert page["count"] == 20
    assert [s["name"] for s in page["results"][0]["seats"]] == ["dice_bot (alice)", "bob"]
    one = alice_api.get(f"/api/matches/{match.pk}/").json()
    assert [s["name"] for s in one["seats"]] == ["dice_bot (alice)", "bob"]
    assert alice_api.get("/api/matches/?bot=heuristic").json()["count"] == 0


def test_labels_two_seats_share_say_their_seats_number() -> None:
    """A replay's captions tell two copies of one bot apart; seats are numbered from 1."""
    from games.names import distinct_labels

    assert distinct_labels(["random (reference bot)", "bob", "random (reference bot)", "bob",
                            "alice"]) == [
        "random (reference bot, seat 1)", "bob (seat 2)", "random (reference bot, seat 3)",
        "bob (seat 4)", "alice"]
    assert distinct_labels(["dice_bot (alice)", "heuristic (reference bot)"]) == [
        "dice_bot (alice)", "heuristic (reference bot)"], "unique labels as they are"
