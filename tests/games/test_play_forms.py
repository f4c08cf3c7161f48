"""/play/: start a match in the browser (a game, its options, who sits with you: reference
bots, bots people registered, open seats) through ``match_create`` as the API does, each
refusal at its field; and /play/open/, the lobby of matches waiting for players."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from games import services
from games.engine import game_ids
from games.models import Match
from tests.forms import accessibility_problems, field_errors

pytestmark = pytest.mark.django_db


@pytest.fixture
def web(alice: Any) -> Client:
    browser = Client()
    browser.force_login(alice)
    return browser


def test_play_needs_signing_in_and_offers_every_game(client, web) -> None:
    answer = client.get("/play/?game=dice_cup")
    assert answer.status_code == 302 and answer["Location"].startswith("/sign-in/")
    html = web.get("/play/").content.decode()
    for game in game_ids():
        assert f'href="?game={game}"' in html
    assert accessibility_problems(html) == []


@pytest.mark.parametrize("game", game_ids())
def test_each_games_form_labels_every_field_and_starts_against_reference_bots(
        web, alice, game) -> None:
    html = web.get(f"/play/?game={game}").content.decode()
    assert accessibility_problems(html) == [] and field_errors(html) == {}
    assert 'value="reference:heuristic" selected' in html
    answer = web.post(f"/play/?game={game}", {
        f"seat_{n}": "reference:heuristic" for n in range(1, 2)} | {
        # Two seats: Le Dutch's rounds a multiple of them (DU-8).
        "option_rounds": "2", "option_hands": "1", "option_target_points": "5"})
    if game == "great_dalmuti":  # 4 players at least: refused, at no one field
        errors = field_errors(answer.content.decode())
        assert list(errors) == [""] and "(bad_options)" in errors[""][0], errors
        return
    assert answer.status_code == 302
    match = Match.objects.get()
    assert answer["Location"] == f"/matches/{match.pk}/play/"
    seats = sorted(match.seats.all(), key=lambda s: s.number)
    assert seats[0].user == alice and seats[1].kind == "reference" and len(seats) == 2
    if game == "dice_cup":
        assert match.options["target_points"] == 5


def test_an_open_seat_waits_in_the_lobby_and_another_person_joins_it(web, alice, bob) -> None:
    answer = web.post("/play/?game=dice_cup", {"seat_1": "player", "seat_2": "reference:random",
                                               "move_time_limit": "120"})
    match = Match.objects.get()
    assert answer["Location"] == f"/matches/{match.pk}/play/"
    assert match.status == "open" and match.move_time_limit == 120
    waiting = web.get(answer["Location"]).content.decode()
    assert "The match starts when every seat is taken" in waiting
    assert 'href="/play/open/"' in waiting
    lobby = Client().get("/play/open/").content.decode()
    assert f'href="/matches/{match.pk}/play/"' in lobby and "Take a seat" in lobby
    assert accessibility_problems(lobby) == []
    assert f"/matches/{match.pk}/" not in Client().get("/play/open/?game=dot").content.decode()
    services.match_join(match_id=match.pk, user=bob)
    assert f'href="/matches/{match.pk}/play/"' not in Client().get("/play/open/").content.decode()


@pytest.mark.parametrize("form, field, words", [
    ({"seat_1": "reference:nobody"}, "id_seat_1", "valid choice"),
    ({"seat_1": "reference:random", "option_target_points": "43"}, "id_option_target_points",
     "less than or equal to 42"),
    ({"seat_1": ""}, "", "(bad_options)"),
    ({"seat_1": "reference:random", "move_time_limit": "0"}, "id_move_time_limit",
     "greater than or equal to 1"),
])
def test_each_refusal_is_shown_at_its_field(web, form, field, words) -> None:
    html = web.post("/play/?game=dice_cup", form).content.decode()
    errors = field_errors(html)
    assert list(errors) == [field] and words in " ".join(errors[field]), errors
    assert accessibility_problems(html) == [] and not Match.objects.exists()


def test_a_bot_is_offered_only_where_it_may_be_seated(web, alice, bob) -> None:
    from bots.models import Bot

    def bot(owner: Any, name: str, **fields: Any) -> Bot:
        values = {"games": ["dice_cup"], "handshake_ok": True, "public": True} | fields
        return Bot.objects.create(owner=owner, name=name, url="http://127.0.0.1:9/",
                                  secret="whsec_" + "A" * 32, **values)

    offered = [bot(bob, "bobs"), bot(alice, "mine", public=False)]
    hidden = [bot(bob, "private", public=False), bot(bob, "off", enabled=False),
              bot(bob, "failing", handshake_ok=False), bot(bob, "dotonly", games=["dot"])]
    html = web.get("/play/?game=dice_cup").content.decode()
    for shown in offered:
        assert f'value="webhook:{shown.pk}"' in html
    assert "bobs (bob)" in html and "mine (alice)" in html
    for left_out in hidden:
        assert f'value="webhook:{left_out.pk}"' not in html
    html = web.post("/play/?game=dice_cup",
                    {"seat_1": f"webhook:{hidden[0].pk}"}).content.decode()
    assert list(field_errors(html)) == ["id_seat_1"], "not a choice"
    Bot.objects.filter(pk=offered[0].pk).update(enabled=False)  # disabled since the page
    html = web.post("/play/?game=dice_cup",
                    {"seat_1": f"webhook:{offered[0].pk}"}).content.decode()
    assert list(field_errors(html)) == ["id_seat_1"]
    answer = web.post("/play/?game=dice_cup", {"seat_1": f"webhook:{offered[1].pk}",
                                               "seat_2": "reference:random"})
    assert answer.status_code == 302, "one's own private bot"
    seats = Match.objects.get().seats.order_by("number")
    assert [(s.kind, s.bot_name) for s in seats][1:] == [("webhook", str(offered[1].pk)),
                                                          ("reference", "random")]


def test_starting_a_match_needs_the_csrf_token(alice) -> None:
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice)
    assert browser.post("/play/?game=dice_cup", {"seat_1": "reference:random"}
                        ).status_code == 403
    assert not Match.objects.exists()


def test_the_lobby_costs_a_constant_number_of_queries(web, alice, bob,
                                                      django_assert_max_num_queries) -> None:
    for _ in range(12):
        web.post("/play/?game=dice_cup", {"seat_1": "player", "seat_2": "reference:random"})
    with django_assert_max_num_queries(6):
        html = Client().get("/play/open/").content.decode()
    assert html.count("Take a seat") == 12


def test_home_and_the_account_page_lead_to_playing_registering_and_organising(web) -> None:
    for page in (Client().get("/"), web.get("/account/")):
        html = page.content.decode()
        for path in ("/play/", "/play/open/", "/bots/new/", "/tournaments/new/"):
            assert f'href="{path}"' in html, path


def test_a_great_dalmuti_match_for_a_person_is_short_and_says_how_long(web) -> None:
    """Five hands, not the rules' twenty (GD-10, still the API's default), with what a hand
    costs said next to it; the play page says "hand n of 5"."""
    html = web.get("/play/?game=great_dalmuti").content.decode()
    assert 'name="option_hands" value="5"' in html
    assert "about 20 moves for each player" in html
    answer = web.post("/play/?game=great_dalmuti", {
        "seat_1": "reference:heuristic", "seat_2": "reference:heuristic",
        "seat_3": "reference:heuristic", "option_hands": "5"})
    match = Match.objects.get()
    assert answer.status_code == 302 and match.options["hands"] == 5
    assert "hand 1 of 5" in web.get(f"/matches/{match.pk}/play/").content.decode()
    assert 'name="option_hands" value="5"' not in web.get("/play/?game=dice_cup").content.decode()
