"""The replay page: it steps through a match's log with the engine, drawing the table after
each entry; while the match is not disclosed it shows only the public view (no actions, no
seat's view), once over one table with every hand face up and each seat's own view; a sealed duplicate deal shows nothing; deep links
and the partial frames the viewer fetches."""

from __future__ import annotations

import re
from typing import Any

import pytest

from games import selectors, services
from games.models import Match

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished(alice: Any) -> Match:
    return services.match_create(game="dice_cup", created_by=alice, seed=3,
                                 seats=[{"kind": "reference", "bot": "heuristic"},
                                        {"kind": "reference", "bot": "random"}])


def test_a_finished_match_shows_every_seats_view_and_the_action_at_each_turn(
        client, finished) -> None:
    assert finished.status == "finished" and finished.version > 5
    html = client.get(f"/matches/{finished.pk}/?turn=3").content.decode()
    assert 'value="3"' in html and f'max="{finished.version}"' in html
    assert "Every hand, face up" in html and html.count('class="card seat-view"') == 2
    caption = html.split('<p class="caption">')[1].split("</p>")[0]
    assert caption.startswith("random (reference bot) tells heuristic (reference bot) the dice "
                              "show "), "the action of entry 3 in words, not JSON"
    assert "{" not in caption and html.count('name="turn"') == 1, "one turn counter"
    moves = html.split('<ol class="move-list"')[1].split("</ol>")[0]
    assert moves.count("<li>") == finished.version + 1 and "the deal" in moves
    assert '<a href="?turn=2" data-turn="2">random (reference bot) calls it a bluff</a>' in moves
    assert 'class="die pips-' in html, "dice drawn as dice"
    assert html.count('class="game-table" data-game="dice_cup"') == 4, \
        "the face-up table, the spectator's and each of the 2 seats'"
    first = client.get(f"/matches/{finished.pk}/?turn=0&partial=1").content.decode()
    assert first.startswith('<div class="frame" data-turn="0"') and "<html" not in first
    clamp = client.get(f"/matches/{finished.pk}/?turn=999999&partial=1").content.decode()
    assert f'data-turn="{finished.version}"' in clamp
    assert client.get("/matches/999999/").status_code == 404


def test_a_running_match_shows_only_what_a_spectator_saw(client, alice, bob) -> None:
    from games.services import match_join
    from games.states import load_state

    match = services.match_create(game="dice_cup", created_by=alice, seed=5, join=True,
                                  seats=[{"kind": "player"}, {"kind": "player"}])
    match_join(match_id=match.pk, user=bob)
    match.refresh_from_db()
    state = load_state(match)
    roller = state.view(state.public_view()["roller"])
    assert roller["dice"] and not roller["dice_revealed"], "the roller holds hidden dice"
    html = client.get(f"/matches/{match.pk}/").content.decode()
    assert "The table" in html and "only what a spectator sees" in html
    assert 'class="die hidden"' in html, "the roller's cup, its dice unseen"
    assert "Every hand" not in html and 'class="die pips-' not in html, \
        "the roller's hidden dice never reach a spectator's page"
    assert 'class="badge live"' in html and 'data-countdown' in html, "live, with its deadline"


def test_a_sealed_deal_shows_nothing(client, finished) -> None:
    Match.objects.filter(pk=finished.pk).update(sealed=True)
    html = client.get(f"/matches/{finished.pk}/?turn=2").content.decode()
    assert "stays out of sight" in html and 'class="frame"' not in html


def test_the_live_move_list_is_fetched_from_where_it_stopped(client, finished) -> None:
    whole = client.get(f"/matches/{finished.pk}/?partial=moves").content.decode()
    assert whole.startswith('<ol class="move-list"')
    assert whole.count("<li>") == finished.version + 1
    tail = client.get(f"/matches/{finished.pk}/?partial=moves&since=5").content.decode()
    assert tail.startswith('<li><a href="?turn=5"') and "<ol" not in tail
    assert tail.count("<li>") == finished.version - 4 and whole.endswith(tail.strip() + "</ol>\n")


def test_a_dutch_match_made_before_du_8_was_enforced_still_replays(client, alice) -> None:
    """1 round of 2 players was allowed before DU-8's multiple of the players was enforced:
    such a stored match still loads and its replay page still rebuilds it."""
    match = services.match_create(game="dutch", created_by=alice, seed=3,
                                  options={"rounds": 2},
                                  seats=[{"kind": "reference", "bot": "heuristic"},
                                         {"kind": "reference", "bot": "random"}])
    assert match.status == "finished"
    state = {**match.state, "options": {**match.state["options"], "rounds": 1}}
    Match.objects.filter(pk=match.pk).update(options={**match.options, "rounds": 1},
                                             state=state)
    for turn in (0, 3):
        assert client.get(f"/matches/{match.pk}/?turn={turn}").status_code == 200


def test_a_finished_match_says_who_won_where_you_finished_and_who_forfeited(
        client, alice, finished) -> None:
    from games.pages import result_sentence
    from games.services import match_resign

    ranks = finished.result["ranks"]
    winner = ["heuristic (reference bot)", "random (reference bot)"][ranks.index(1)]
    html = client.get(f"/matches/{finished.pk}/").content.decode()
    assert f'<p class="result"><strong>{winner} won.</strong></p>' in html
    mine = services.match_create(game="dice_cup", created_by=alice, join=True, seed=3,
                                 seats=[{"kind": "player"}, {"kind": "reference",
                                                             "bot": "random"}])
    match_resign(match_id=mine.pk, seat_number=0, user=alice)
    client.force_login(alice)
    html = client.get(f"/matches/{mine.pk}/").content.decode()
    assert ("random (reference bot) won. You finished 2nd of 2. alice forfeited."
            in html), "the person's own place, and the forfeit"
    assert result_sentence(["a", "b", "c", "d"], [1, 1, 3, 4], forfeited=[], yours=[2]) == (
        "a and b shared the win. You finished 3rd of 4.")
    assert result_sentence(["a", "b", "c"], [2, 1, 2], forfeited=[], yours=[0]) == (
        "b won. You finished joint 2nd of 3.")
    assert result_sentence(["a", "b"], [1, 1], forfeited=[0, 1], yours=[]) == (
        "Every seat forfeited: nobody won.")
    assert result_sentence(["a"] * 12, [11, *range(1, 11), 12], forfeited=[],
                           yours=[0]).endswith("You finished 11th of 12.")


FACE = re.compile(r'class="pcard face[ "]')


def hands(table: str) -> dict[int, int]:
    """Each seat's face-up cards in its hand, on one drawn table."""
    found = re.findall(r'<section class="place[^"]*" data-seat="(\d+)">(.*?)</section>', table,
                       re.DOTALL)
    shown = {}
    for seat, place in found:
        hand = re.search(r'data-area="hand">(.*?)</div>', place, re.DOTALL)
        shown[int(seat)] = len(FACE.findall(hand.group(1))) if hand else 0
    return shown


def test_a_finished_multi_seat_match_shows_one_table_face_up_at_the_turn_linked(
        client, alice) -> None:
    """Issue 48: one spectator's table with every hand face up, a scrubber over the turns,
    ?turn=N a link to that turn, and each seat's own view folded until asked for."""
    match = services.match_create(game="great_dalmuti", created_by=alice, seed=8,
                                  options={"hands": 1},
                                  seats=[{"kind": "reference", "bot": "heuristic"}] * 5)
    assert match.status == "finished" and match.version > 20
    turn = 12
    html = client.get(f"/matches/{match.pk}/?turn={turn}").content.decode()
    assert f'<div class="frame" data-turn="{turn}"' in html
    assert (f'type="range" min="0" max="{match.version}" value="{turn}" '
            f'aria-label="turn, from the deal to the last" data-scrub>') in html
    assert f'href="/matches/{match.pk}/?turn={turn}"' in html, "the turn's link, to share"
    face_up = html.split("Every hand, face up</h2>")[1].split('class="seat-views-title"')[0]
    assert face_up.count('class="game-table"') == 1, "one table"
    state, _ = selectors.match_state_at(match=match, turn=turn)
    sizes = state.public_view()["hand_sizes"]
    assert hands(face_up) == dict(enumerate(sizes)) and sum(sizes) > 0, \
        "every hand face up, as many cards as each holds at that turn"
    assert "pcard back" not in "".join(re.findall(r'data-area="hand">(.*?)</div>', face_up,
                                                  re.DOTALL))
    seat_views = re.findall(r'<details class="card seat-view" data-seat="\d"( open)?>', html)
    assert seat_views == [""] * 5, "each seat's own view, folded until asked for"
    other = client.get(f"/matches/{match.pk}/?turn=3&partial=1").content.decode()
    assert other.startswith('<div class="frame" data-turn="3"') and "?turn=3" in other


def test_a_running_multi_seat_match_shows_no_hidden_card(client, alice) -> None:
    """Until the match is over its replay is a spectator's: no hand face up at any turn."""
    match = services.match_create(game="great_dalmuti", created_by=alice, seed=8, join=True,
                                  seats=[{"kind": "player"}] + [
                                      {"kind": "reference", "bot": "heuristic"}] * 4)
    match.refresh_from_db()
    assert match.status == "running"
    for turn in range(match.version + 1):
        html = client.get(f"/matches/{match.pk}/?turn={turn}").content.decode()
        assert "Every hand" not in html and 'class="card seat-view"' not in html
        shown = hands(html)
        assert len(shown) == 5 and not any(shown.values()), f"turn {turn}: a hand face up"
        assert "only what a spectator sees" in html


def test_seats_of_one_name_are_told_apart_in_every_caption(client, alice) -> None:
    """Issue 48: two copies of one reference bot read as two seats, "random (reference bot,
    seat 2)", in the seats, the ranks, the result, each turn's caption and the move list (each
    drawn place already says its seat's number); a name no other seat has stays as it is."""
    match = services.match_create(game="dice_cup", created_by=alice, seed=3,
                                  seats=[{"kind": "reference", "bot": "random"},
                                         {"kind": "reference", "bot": "random"},
                                         {"kind": "reference", "bot": "heuristic"}])
    assert match.status == "finished"
    html = client.get(f"/matches/{match.pk}/").content.decode()
    head = html.split('<div id="match-head">')[1].split("</div>")[0]
    for seat in (1, 2):
        assert f'<span class="who">random (reference bot, seat {seat})</span>' in head
        assert f"random (reference bot, seat {seat}) " in head.split("ranks:")[1]
    assert '<span class="who">heuristic (reference bot)</span>' in head
    said = [html.split('<ol class="move-list"')[1].split("</ol>")[0], head]
    for turn in range(match.version + 1):
        frame = client.get(f"/matches/{match.pk}/?turn={turn}&partial=1").content.decode()
        said.append(frame.split('<p class="caption">')[1].split("</p>")[0])
    assert all("random (reference bot)" not in text for text in said), \
        "every sentence says which random seat"
    assert sum("random (reference bot, seat 2)" in text for text in said) > 2
    assert "heuristic (reference bot," not in "".join(said)


def test_a_finished_dutch_match_shows_every_slot_face_up_at_every_turn(client, alice) -> None:
    """Issue 48: once a Le Dutch match is over its face-up table names every card in every
    slot, even one no seat ever looked at (hidden from its owner too while the match ran),
    each as it lay at that turn; each seat's own view still shows what it saw."""
    from games.engine.dutch import NAME

    match = services.match_create(game="dutch", created_by=alice, seed=6,
                                  options={"rounds": 3},
                                  seats=[{"kind": "reference", "bot": "heuristic"},
                                         {"kind": "reference", "bot": "random"},
                                         {"kind": "reference", "bot": "heuristic"}])
    assert match.status == "finished"
    unseen = 0
    for turn in range(0, match.version + 1, 3):
        html = client.get(f"/matches/{match.pk}/?turn={turn}&partial=1").content.decode()
        face_up = html.split("Every hand, face up</h2>")[1].split('class="seat-views-title"')[0]
        state, _ = selectors.match_state_at(match=match, turn=turn)
        assert hands(face_up) == {s: len(state.cd[s]) for s in range(3)}, f"turn {turn}"
        titles = re.findall(r'<span class="slot" title="slot \d+, known by [^"]*">'
                            r'<span class="pcard face[^"]*" title="([^"]+)"', face_up)
        assert titles == [NAME[c] for s in range(3) for c in state.cd[s]], "as they lie"
        own = [state.view(s)["hands"][s]["slots"] for s in range(3)]
        hidden = sum(slot["card"] is None for slots in own for slot in slots)
        views = html.split('class="seat-views-title"')[1]
        assert views.count('<span class="pcard back">') >= hidden, "own views as they saw"
        unseen += hidden
    assert unseen, "some slot no seat had looked at, shown face up all the same"


def test_a_running_dutch_match_hides_every_slot_a_spectator_does_not_see(
        client, alice) -> None:
    """While a Le Dutch match runs its replay shows only what a spectator saw, and a seat's
    view (what the API sends it) still hides the slots it has not looked at."""
    match = services.match_create(game="dutch", created_by=alice, seed=6, join=True,
                                  options={"rounds": 2},
                                  seats=[{"kind": "player"},
                                         {"kind": "reference", "bot": "heuristic"}])
    match.refresh_from_db()
    assert match.status == "running"
    for turn in range(match.version + 1):
        html = client.get(f"/matches/{match.pk}/?turn={turn}").content.decode()
        assert "Every hand" not in html and 'class="card seat-view"' not in html
        state, _ = selectors.match_state_at(match=match, turn=turn)
        public = state.public_view()["hands"]
        assert hands(html) == {h["seat"]: sum(s["card"] is not None for s in h["slots"])
                               for h in public}
    view = state.view(0)["hands"][0]["slots"]
    assert all((slot["card"] is None) == (0 not in slot["known_by"]) for slot in view)
    assert any(slot["card"] is None for slot in view), "its unseen slots stay hidden from it"
