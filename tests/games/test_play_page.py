"""Playing in the browser: the play page draws the signed-in person's seat with its legal
actions, and acts and joins through the polling API as play.js does (session + CSRF). A
person sees only their own seat; one full match of every game can be played this way."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client

from games import services
from games.engine import game_ids, get_game
from tests.helpers.pages import actions_on, version_on

pytestmark = pytest.mark.django_db


def seat_against_a_bot(user: Any, game: str, seed: int) -> tuple[str, list[dict[str, Any]]]:
    """``user`` at seat 0 against the heuristic bot: their seat's part of the play page and
    its legal actions from the API."""
    match = services.match_create(game=game, created_by=user, join=True, seed=seed,
                                  seats=[{"kind": "player"}, {"kind": "reference",
                                                              "bot": "heuristic"}])
    web = Client()
    web.force_login(user)
    page = web.get(f"/matches/{match.pk}/play/?partial=1").content.decode()
    return page, web.get(f"/api/matches/{match.pk}/seats/0/").json()["legal_actions"]


def play_through_the_page(web: Client, match_id: int, seat: int, limit: int = 5000) -> str:
    """What a person does on the page: pick the first action shown, post it to the API with
    the version shown, until the match is over; returns the last page."""
    for _ in range(limit):
        page = web.get(f"/matches/{match_id}/play/?partial=1").content.decode()
        if 'data-status="finished"' in page:
            return page
        actions = actions_on(page)
        assert actions, f"the page offers no action while the match runs:\n{page[:2000]}"
        answer = web.post(f"/api/matches/{match_id}/seats/{seat}/actions/",
                          {"version": version_on(page), "action": actions[0]},
                          content_type="application/json")
        assert answer.status_code == 200, answer.json()
    raise AssertionError("the match did not end")


@pytest.mark.parametrize("game", sorted(game_ids()))
def test_a_person_plays_a_whole_match_of_each_game_on_the_page(alice, game) -> None:
    engine = get_game(game)
    others = [{"kind": "reference", "bot": "random"}] * (engine.min_players - 1)
    options = {"hands": 1} if game == "great_dalmuti" else {}
    match = services.match_create(game=game, created_by=alice, join=True, seed=9,
                                  options=options, seats=[{"kind": "player"}, *others])
    web = Client()
    web.force_login(alice)
    page = web.get(f"/matches/{match.pk}/play/").content.decode()
    assert "Your view" in page and "play.js" in page
    last = play_through_the_page(web, match.pk, seat=0)
    assert "The match is over" in last
    match.refresh_from_db()
    assert match.status == "finished"


def test_a_person_takes_an_open_seat_through_the_api_and_sees_only_it(alice, bob,
                                                                      make_user) -> None:
    match = services.match_create(game="dot", created_by=alice, join=True,
                                  seats=[{"kind": "player"}, {"kind": "player"}])
    web = Client()
    web.force_login(bob)
    page = web.get(f"/matches/{match.pk}/play/").content.decode()
    assert 'data-join="1"' in page and "Your view" not in page
    assert web.post(f"/api/matches/{match.pk}/join/", {},
                    content_type="application/json").status_code == 200
    mine = web.get(f"/matches/{match.pk}/play/").content.decode()
    assert "Seat 1" in mine and "Your view" in mine
    carol = Client()
    carol.force_login(make_user("carol"))
    theirs = carol.get(f"/matches/{match.pk}/play/").content.decode()
    assert "Every seat is taken" in theirs and "Your view" not in theirs


def test_the_play_page_needs_signing_in(client) -> None:
    answer = client.get("/matches/1/play/")
    assert answer.status_code == 302 and answer["Location"].startswith("/sign-in/")


def test_a_long_list_of_actions_is_grouped_by_type_with_readable_labels() -> None:
    from games.pages import FEW_ACTIONS, action_groups

    offers = [{"type": "offer", "cards": {"2": n, "joker": 1}, "value": n} for n in range(1, 31)]
    legal = [{"type": "call"}, *offers, {"type": "give_back", "cards": {"4": 2}},
             {"type": "jack", "a": {"seat": 0, "slot": 1}, "b": {"seat": 1, "slot": 0}}]
    groups = action_groups(legal)
    assert [g["type"] for g in groups] == ["call", "offer", "give_back", "jack"], "type first"
    assert [g["choose"] for g in groups] == [False, True, False, False]
    assert len(offers) > FEW_ACTIONS
    assert [json.loads(a["json"]) for g in groups for a in g["actions"]] == \
        [legal[0], *offers, *legal[-2:]], "every legal action once, as it is posted"
    labels = [a["label"] for g in groups for a in g["actions"]]
    assert labels[0] == "call" and labels[1] == "cards 2, joker · value 1"
    assert labels[2] == "cards 2 ×2, joker · value 2"
    assert labels[-2:] == ["cards 4 ×2", "a seat 1 slot 1 · b seat 2 slot 0"]
    assert groups[2]["label"] == "give back"
    assert not any(c in label for label in labels for c in '{}"'), "words, not JSON"


def test_the_page_offers_a_long_list_as_a_filterable_list_of_exactly_the_legal_actions(
        alice) -> None:
    page, legal = seat_against_a_bot(alice, "dtc", seed=2)
    assert len(legal) > 24 and {a["type"] for a in legal} == {"offer"}
    assert '<form class="chooser" data-select="1">' in page and "data-filter" in page
    assert re.search(r"<legend>offer <span[^>]*>\(\d+\)</span></legend>", page)
    assert actions_on(page) == legal
    assert f"{len(legal)} of {len(legal)} shown" in page


def test_a_long_group_is_built_from_its_cards_and_values() -> None:
    from games.action_builder import builder, canonical

    offers = [{"type": "offer", "cards": cards, "value": value}
              for cards in ({"2": 1}, {"2": 2}, {"2": 1, "joker": 1}) for value in (1, 2, 3)]
    built = builder("offer", offers)
    cards, value = built["fields"]
    assert [(u["card"], u["pressed"]) for u in cards["cards"]] == [
        ("2", True), ("2", False), ("joker", False)], "one button per card, the first pressed"
    assert [o["label"] for o in value["options"]] == ["1", "2", "3"]
    assert json.loads(built["legal"]) == [canonical(a) for a in offers]
    assert built["first"]["json"] == '{"cards":{"2":1},"type":"offer","value":1}'
    calls = [{"type": "call", "target": t, "number": n} for t in (1, 2) for n in range(3, 8)]
    target, number = builder("call", calls, names=["me", "ann", "bob"])["fields"]
    assert [o["label"] for o in target["options"]] == ["ann (seat 2)", "bob (seat 3)"], \
        "seats as people number them"
    assert len(number["options"]) == 5 and "cards" not in number
    assert builder("jack", [{"type": "jack", "a": 1}, {"type": "jack", "b": 2}]) is None


def test_a_dice_cup_call_is_picked_not_one_of_sixteen_buttons(alice) -> None:
    page, legal = seat_against_a_bot(alice, "dice_cup", seed=3)
    assert len([a for a in legal if a["type"] == "call"]) == 16
    assert 'data-builder data-type="call"' in page and '<select data-field="number">' in page
    assert page.index("Your view") < page.index("Your move"), "the table first"
    assert '<details class="all-actions"><summary>or pick from all 16</summary>' in page


def test_buttons_use_the_games_words_and_say_what_they_do() -> None:
    """Le Dutch's turn (draw, take, done: DU-3, DU-6) and D.O.T's discard (whose pool: DOT-4)
    read as the rules say them, with a hint; an action with no words of its own reads as its
    type; no raw ids ("no_power", "give_back")."""
    from games.drawings.words import BUTTONS, action_hint, action_label
    from games.pages import action_groups

    assert action_label({"type": "done"}, "dutch") == "J'ai terminé (done)"
    assert "DU-6" in action_hint({"type": "done"}, "dutch")
    assert action_label({"type": "take"}, "dutch") == "take the discard"
    assert action_label({"type": "no_power"}, "dutch") == "use no power"
    assert action_label({"type": "discard", "cards": {"040": 1}}, "dot") == \
        "discard from your opponent's pool: cards 040"
    assert action_label({"type": "replace", "slot": {"seat": 1, "slot": 2}}, "dutch") == \
        "keep it in place of: slot seat 2 slot 2"
    assert action_label({"type": "done"}, "dice_cup") == "done", "another game's words"
    assert action_hint({"type": "offer"}, "dtc") == ""
    [group] = action_groups([{"type": "give_back", "cards": {"4": n}} for n in (1, 2)],
                            game="great_dalmuti")
    assert group["label"] == "give back" and "GD-4" in group["hint"]
    for game, kinds in BUTTONS.items():
        assert all("_" not in label for label, _ in kinds.values()), game


@pytest.mark.django_db
def test_the_play_page_shows_the_hints_on_its_buttons(alice) -> None:
    from django.test import Client

    match = services.match_create(game="dutch", created_by=alice, join=True, seed=1,
                                  seats=[{"kind": "player"},
                                         {"kind": "reference", "bot": "random"}])
    web = Client()
    web.force_login(alice)
    html = web.get(f"/matches/{match.pk}/play/").content.decode()  # seed 1: seat 0 draws
    move = html.split('class="your-move"')[1].split("</section>")[0]
    assert 'title="the top card of the face-down pile">draw<span class="hint">' in move
    assert ">J&#x27;ai terminé (done)<span class=\"hint\">instead of drawing" in move
