"""D.O.T rule tests (rulebooks/dot.txt, house rules G-* and DOT-1..DOT-5).

Positions are built with :func:`position`, which crafts a consistent saved state and loads it
through ``from_json`` (so the invariant checks run on it too).
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from games.engine import BadOptions, CorruptState, IllegalAction, Rng, get_game
from games.engine.dot import (
    GAME,
    STANDARD_DECK,
    STARS,
    CommitActions,
    DotHeuristicBot,
    card_key,
    colour_winner,
    deck_keys,
    total_dots,
)
from games.engine.play import play_bots, random_playout

# A custom deck (option ``deck``, DOT-1) holding every card the rulebook's scoring example needs:
# the example's pools (13 and 15 dots) cannot both be built from equally sized standard pools.
EXAMPLE_DECK = [[3, 1, 3], [0, 1, 1], [3, 0, 3], [1, 3, 1], [1, 3, 0], [0, 3, 0], [0, 2, 0],
                [3, 0, 1], [2, 2, 1]] + [[0, 0, 0]] * 6
# Seat 0 ("Player 1"): own pool 3/6/4 = 040 + 313 + 011; shared 130 + 030 + 020 = 1/8/0.
# Seat 1 ("Player 2"): own pool 8/3/4 = 400 + 303 + 131; shared 301 + 221 + 000 = 5/2/2.
# Shared pool: 6/10/2.
P1_HAND = ["011", "020", "030", "130", "313"]
P2_HAND = ["000", "131", "221", "301", "303"]
P1_COMMIT = {"type": "commit", "star": "040", "shared": {"130": 1, "030": 1, "020": 1}}
P2_COMMIT = {"type": "commit", "star": "400", "shared": {"301": 1, "221": 1, "000": 1}}


def _remove(cards: list[str], taken: list[str]) -> list[str]:
    rest = list(cards)
    for c in taken:
        rest.remove(c)
    return rest


def position(rnd=1, hands=None, pools=([], []), stars=None, tokens=((0, 0, 0), (0, 0, 0)),
             unclaimed=(0, 0, 0), options=None, phase="commit", commits=(None, None),
             queue=None, order=None, seed=0):
    """A consistent saved state at the start of round ``rnd`` (or in its discard step)."""
    game = get_game("dot")
    data = game.new_match(seed=seed, options=options).to_json()
    s = data["state"]
    full = deck_keys(data["options"])
    if stars is None:
        stars = [list(STARS[rnd - 1:]), list(STARS[rnd - 1:])]
    if hands is None:
        hands = [[], []]
    s.update(round=rnd, phase=phase, winner=None, last=None)
    s["hands"] = [sorted(h) for h in hands]
    s["pools"] = [sorted(p) for p in pools]
    s["stars"] = [list(x) for x in stars]
    s["decks"], s["discards"] = [], []
    for p in (0, 1):
        rest = _remove(full + list(STARS), s["hands"][p] + s["pools"][p] + s["stars"][p])
        draw = [c for c in rest if c not in STARS]
        n = 15 - 5 * rnd
        s["decks"].append(draw[:n])
        s["discards"].append(draw[n:] + [c for c in rest if c in STARS])
    s["tokens"] = [list(t) for t in tokens]
    s["supply"] = [3 - rnd] * 3
    s["unclaimed"] = list(unclaimed)
    s["pot"] = [3 - s["supply"][c] - s["unclaimed"][c] - tokens[0][c] - tokens[1][c]
                for c in range(3)]
    s["commits"] = [None if c is None else [c[0], sorted(c[1]), sorted(c[2])] for c in commits]
    s["queue"] = [list(q) for q in queue] if queue else []
    s["order"] = order
    if phase == "commit":
        s["to_act"] = [p for p in (0, 1) if commits[p] is None]
    elif phase == "discard":
        s["to_act"] = [s["queue"][0][0]]
    else:
        s["to_act"] = []
    return game.from_json(json.loads(json.dumps(data)))


def events_of(state, kind, start=0):
    return [e for e in state.events_since(start) if e["type"] == kind]


def scoring_of(state, start=0):
    """The per-colour scoring entries of the reveal events since ``start``."""
    return [c for e in events_of(state, "reveal", start) for c in e["scoring"]]


def example_position(rnd, **kw):
    kw.setdefault("options", {"deck": EXAMPLE_DECK})
    if rnd > 1:  # earlier rounds left zero-dot cards in both pools, so totals stay the example's
        kw.setdefault("pools", (["000"] * (rnd), ["000"] * (rnd)))
        kw.setdefault("stars", [["040", "004"] if rnd == 2 else ["040"],
                                ["400", "004"] if rnd == 2 else ["400"]])
    return position(rnd, hands=[P1_HAND, P2_HAND], **kw)


# ---- DOT-1: players, deck and the deck option -------------------------------------------------


def test_dot_1_standard_deck_is_the_rotations_with_20_dots_per_colour():
    keys = sorted(card_key(c) for c in STANDARD_DECK)
    assert len(keys) == len(set(keys)) == 15
    assert "131" in keys  # the rulebook's example card: 1 blue, 3 black, 1 red
    for base in ["131", "023", "210", "120", "202"]:
        b = base
        for _ in range(3):
            assert b in keys
            b = b[1:] + b[0]
    assert total_dots(keys) == [20, 20, 20]
    assert STARS == ("400", "040", "004")
    state = GAME.new_match(seed=5)
    for p in (0, 1):  # 18 cards per player: 15 draw cards + 3 star cards
        assert len(state.hands[p]) + len(state.decks[p]) + len(state.stars[p]) == 18


def test_dot_1_exactly_two_players():
    assert GAME.new_match().players == 2
    for n in (1, 3, 4):
        with pytest.raises(BadOptions):
            GAME.new_match(players=n)


@pytest.mark.parametrize("deck", [
    [[0, 0, 0]] * 14,
    [[0, 0, 0]] * 16,
    [[0, 0, 4]] + [[0, 0, 0]] * 14,
    [[0, 0, -1]] + [[0, 0, 0]] * 14,
    [[0, True, 0]] + [[0, 0, 0]] * 14,
    [[0, 1.0, 0]] + [[0, 0, 0]] * 14,
    [[0, 0]] + [[0, 0, 0]] * 14,
    [(0, 0, 0)] * 15,
    [["0", 0, 0]] + [[0, 0, 0]] * 14,
    "standard",
    {"blue": 1},
])
def test_dot_1_deck_option_is_validated(deck):
    with pytest.raises(BadOptions):
        GAME.new_match(options={"deck": deck})


def test_dot_1_custom_deck_replaces_the_draw_cards():
    state = GAME.new_match(seed=1, options={"deck": EXAMPLE_DECK})
    assert state.full == sorted(card_key(c) for c in EXAMPLE_DECK)
    assert sorted(state.hands[0] + state.decks[0]) == state.full
    assert GAME.new_match(options={"deck": None}).full == deck_keys({})
    with pytest.raises(BadOptions):
        GAME.new_match(options={"decks": None})


# ---- DOT-2: the sealed simultaneous commit ----------------------------------------------------


def test_dot_2_both_commit_at_once_and_choices_stay_sealed():
    state = GAME.new_match(seed=7)
    assert state.to_act() == [0, 1]
    before_public = state.view(None)
    before_1 = state.view(1)
    n = state.event_count
    action = state.legal_actions(0)[5]
    state.apply(0, action)
    assert state.to_act() == [1]
    assert list(state.legal_actions(0)) == []
    # Seat 1 and spectators learn only that seat 0 committed.
    v1, vp = state.view(1), state.view(None)
    assert v1["committed"] == vp["committed"] == [True, False]
    for key in before_1:
        if key not in ("moves", "to_act", "committed"):
            assert v1[key] == before_1[key], key
            if key in before_public:
                assert vp[key] == before_public[key], key
    assert "my_commit" not in vp and v1["my_commit"] is None
    assert state.view(0)["my_commit"]["star"] == action["star"]
    new = state.events_since(n, seat=1)
    assert new == [{"n": n, "type": "commit", "seat": 0}]
    assert state.events_since(n, seat=0) == new  # nothing private either
    # The commit is in the saved state (sealed, not lost) and survives a round trip.
    again = GAME.from_json(state.to_json())
    assert again.commits == state.commits and again.to_json() == state.to_json()


def test_dot_2_reveal_shows_who_put_which_cards_in_the_shared_pool():
    state = example_position(1)
    n = state.event_count
    state.apply(0, P1_COMMIT)
    state.apply(1, P2_COMMIT)
    reveal = events_of(state, "reveal", n)[0]
    assert reveal["shared"] == [["020", "030", "130"], ["000", "221", "301"]]
    assert reveal["pool_added"] == [["011", "040", "313"], ["131", "303", "400"]]
    view = state.view(None)
    assert view["last_round"]["shared"] == reveal["shared"]
    assert view["pools"] == [["011", "040", "313"], ["131", "303", "400"]]
    # The shared pool is discarded after scoring; used stars are gone from the star decks.
    assert view["stars_left"] == [["400", "004"], ["040", "004"]]
    assert "020" in view["discarded"][0] and "301" in view["discarded"][1]


def test_dot_2_legal_commits_cover_star_and_split():
    state = GAME.new_match(seed=3)
    legal = state.legal_actions(0)
    assert len(legal) == 3 * 20  # 3 stars x C(6, 3) splits, standard deck has no equal cards
    hand = state.hands[0]
    assert legal[0] == {"type": "commit", "star": "400",
                        "shared": {k: 1 for k in sorted(hand + ["400"])[:3]}}
    seen = set()
    for a in legal:
        assert sum(a["shared"].values()) == 3
        assert Counter(a["shared"]) <= Counter(hand + [a["star"]])
        seen.add((a["star"], tuple(sorted(a["shared"]))))
    assert len(seen) == 60
    # Round 3 has a single star left: 20 commits.
    late = position(3, hands=[hand, hand], stars=[["004"], ["040"]])
    assert {a["star"] for a in late.legal_actions(0)} == {"004"}
    assert len(late.legal_actions(1)) == 20


def test_dot_2_commit_must_use_own_cards_and_a_remaining_star():
    state = example_position(2)  # stars left: seat 0 has 040 and 004
    before = state.to_json()
    bad = [
        {"type": "commit", "star": "400", "shared": {"130": 1, "030": 1, "020": 1}},
        {"type": "commit", "star": "040", "shared": {"301": 1, "030": 1, "020": 1}},
        {"type": "commit", "star": "040", "shared": {"130": 1, "030": 1}},
        {"type": "commit", "star": "040", "shared": {"130": 1, "030": 1, "020": 1, "011": 1}},
        {"type": "commit", "star": "040", "shared": {"130": 2, "030": 1}},
        {"type": "commit", "star": "040", "shared": {"040": 1, "004": 1, "020": 1}},
    ]
    for action in bad:
        with pytest.raises(IllegalAction):
            state.apply(0, action)
    assert state.to_json() == before
    state.apply(0, {"type": "commit", "star": "004", "shared": {"004": 1, "030": 1, "020": 1}})
    assert state.commits[0] == ["004", ["004", "020", "030"], ["011", "130", "313"]]


def test_dot_2_commit_actions_dedupe_equal_cards_in_documented_order():
    acts = CommitActions(["000", "000", "000", "011", "020"], ["040"])
    specs = [(a["star"], tuple(sorted(a["shared"].items()))) for a in acts]
    assert len(specs) == len(set(specs)) == len(acts)
    # 6 cards 000 000 000 011 020 040 -> distinct 3-card multisets
    assert len(acts) == 1 + 3 + 3 + 1  # 000x3; 000x2 + one; 000 + two; the three others
    assert acts[0] == {"type": "commit", "star": "040", "shared": {"000": 3}}
    assert acts[-1] == list(acts)[-1] and acts[1:3] == list(acts)[1:3]
    assert acts == list(acts) and list(acts) == acts
    assert {"type": "commit", "star": "040", "shared": {"011": 1, "020": 1, "040": 1}} in acts
    assert {"type": "commit", "star": "040", "shared": {"011": 2, "020": 1}} not in acts
    with pytest.raises(IndexError):
        acts[len(acts)]


# ---- DOT-3: scoring ---------------------------------------------------------------------------


def test_dot_3_rulebook_scoring_example_table():
    """P1 3/6/4, P2 8/3/4, shared 6/10/2 (the rulebook's table)."""
    p1, p2, shared = (3, 6, 4), (8, 3, 4), (6, 10, 2)
    diffs = [colour_winner(p1[c], p2[c], shared[c], True)[:2] for c in range(3)]
    assert diffs == [(3, 2), (4, 7), (2, 2)]
    assert [colour_winner(p1[c], p2[c], shared[c], True)[2] for c in range(3)] == [0, 1, None]
    assert [colour_winner(p1[c], p2[c], shared[c], False)[2] for c in range(3)] == [1, 0, None]


def test_dot_3_example_in_round_1_largest_difference_and_red_carried():
    state = example_position(1)
    n = state.event_count
    state.apply(0, P1_COMMIT)
    state.apply(1, P2_COMMIT)
    last = state.view(None)["last_round"]
    assert last["own_dots"] == [[3, 6, 4], [8, 3, 4]] and last["shared_dots"] == [6, 10, 2]
    scores = scoring_of(state, n)
    assert [(e["colour"], e["differences"], e["winner"], e["outcome"]) for e in scores] == [
        ("blue", [3, 2], 0, "won"), ("black", [4, 7], 1, "won"), ("red", [2, 2], None, "carried")]
    assert state.tokens == [[1, 0, 0], [0, 1, 0]]
    assert state.pot == [0, 0, 1]  # the red token waits for round 2
    # Finish the discards: round 2 offers 1 blue, 1 black and 2 red tokens.
    while state.phase == "discard":
        seat = state.to_act()[0]
        state.apply(seat, state.legal_actions(seat)[0])
    assert state.rnd == 2 and state.pot == [1, 1, 2]
    assert events_of(state, "round")[-1]["pot"] == [1, 1, 2]


def test_dot_3_example_in_round_2_smallest_difference_wins_carried_tokens():
    # Blue tied in round 1: two blue tokens are on offer, as in the rulebook's note.
    state = example_position(2, tokens=((0, 1, 0), (0, 0, 1)))
    assert state.pot == [2, 1, 1]
    n = state.event_count
    state.apply(1, {"type": "commit", "star": "400", "shared": {"301": 1, "221": 1, "000": 1}})
    state.apply(0, {"type": "commit", "star": "040", "shared": {"130": 1, "030": 1, "020": 1}})
    scores = scoring_of(state, n)
    assert [(e["differences"], e["winner"], e["tokens"]) for e in scores] == [
        ([3, 2], 1, 2), ([4, 7], 0, 1), ([2, 2], None, 1)]
    assert state.tokens == [[0, 2, 0], [2, 0, 1]]
    assert state.pot == [0, 0, 1]


def test_dot_3_example_in_round_3_tie_goes_to_nobody():
    state = example_position(3, tokens=((0, 0, 0), (0, 0, 0)))
    assert state.pot == [3, 3, 3]  # everything carried twice
    state.apply(0, {"type": "commit", "star": "040", "shared": {"130": 1, "030": 1, "020": 1}})
    state.apply(1, {"type": "commit", "star": "400", "shared": {"301": 1, "221": 1, "000": 1}})
    assert state.tokens == [[3, 0, 0], [0, 3, 0]]
    assert state.unclaimed == [0, 0, 3] and state.pot == [0, 0, 0]
    assert state.is_over and state.result() == {"scores": [3, 3], "ranks": [1, 1]}
    assert [e["outcome"] for e in scoring_of(state)][-1] == "unclaimed"


def test_dot_3_own_pools_persist_and_count_with_new_cards():
    # Seat 0 keeps 131 from earlier rounds: its own pool totals include it.
    state = position(2, hands=[["023", "230", "302", "210", "102"]] * 2,
                     pools=(["131", "400"], ["220", "202"]), stars=[["040", "004"]] * 2)
    state.apply(0, {"type": "commit", "star": "040", "shared": {"023": 1, "230": 1, "302": 1}})
    state.apply(1, {"type": "commit", "star": "040", "shared": {"023": 1, "230": 1, "302": 1}})
    last = state.view(None)["last_round"]
    assert last["own_dots"][0] == total_dots(["131", "400", "210", "102", "040"])
    assert last["own_dots"][1] == total_dots(["220", "202", "210", "102", "040"])
    assert last["shared_dots"] == total_dots(["023", "230", "302"] * 2)
    assert len(state.pools[0]) == 5


# ---- DOT-4: discard order and discards --------------------------------------------------------


def _finish_round_1():
    """The rulebook example played in round 1: seat 0 wins blue, seat 1 black, red ties."""
    state = example_position(1)
    state.apply(0, P1_COMMIT)
    state.apply(1, P2_COMMIT)
    return state


def test_dot_4_most_tokens_discards_first_then_the_other():
    # Round 2 ends with seat 1 ahead on tokens: it discards 2 of seat 0's pool first.
    state = example_position(2, tokens=((0, 1, 0), (0, 0, 1)))
    state.apply(0, {"type": "commit", "star": "040", "shared": {"130": 1, "030": 1, "020": 1}})
    state.apply(1, {"type": "commit", "star": "400", "shared": {"301": 1, "221": 1, "000": 1}})
    assert state.tokens == [[0, 2, 0], [2, 0, 1]]
    assert state.phase == "discard" and state.to_act() == [1]
    ev = events_of(state, "discard_order")[-1]
    assert ev["order"] == [1, 0] and ev["by"] == "tokens"
    legal = state.legal_actions(1)
    assert all(sum(a["cards"].values()) == 2 for a in legal)  # 2 cards after round 2
    pool0 = list(state.pools[0])
    state.apply(1, {"type": "discard", "cards": {"313": 1, "040": 1}})
    assert state.pools[0] == [c for c in pool0 if c not in ("313", "040")]
    assert events_of(state, "discard")[-1] == {
        "n": state.event_count - 1, "type": "discard", "seat": 1, "pool": 0,
        "cards": ["040", "313"]}
    assert state.to_act() == [0]
    assert state.view(0)["discard"] == {"seat": 0, "pool": 1, "count": 2, "order": [1, 0],
                                        "by": "tokens"}
    state.apply(0, {"type": "discard", "cards": {"000": 2}})
    assert state.pools[1].count("000") == 0
    assert state.rnd == 3 and state.phase == "commit"


def test_dot_4_after_round_1_each_discards_one_card_of_the_other_pool():
    state = _finish_round_1()
    # Tokens 1-1: seat 0 has the blue token, seat 1 the black one -> seat 0 first (blue).
    assert events_of(state, "discard_order")[-1]["by"] == "blue"
    assert state.to_act() == [0]
    assert all(sum(a["cards"].values()) == 1 for a in state.legal_actions(0))
    assert len(state.legal_actions(0)) == 3
    with pytest.raises(IllegalAction):  # only from the other's pool
        state.apply(0, {"type": "discard", "cards": {"313": 1}})
    with pytest.raises(IllegalAction):  # exactly one card
        state.apply(0, {"type": "discard", "cards": {"131": 1, "303": 1}})
    state.apply(0, {"type": "discard", "cards": {"131": 1}})
    state.apply(1, {"type": "discard", "cards": {"313": 1}})
    assert state.pools == [["011", "040"], ["303", "400"]]
    assert state.rnd == 2


@pytest.mark.parametrize("tokens,first,by", [
    (((0, 1, 1), (1, 0, 0)), 0, "tokens"),
    (((0, 1, 0), (1, 0, 0)), 1, "blue"),
    (((0, 1, 0), (0, 0, 1)), 0, "black"),
    (((1, 0, 1), (1, 1, 0)), 1, "black"),
])
def test_dot_4_tie_breaks_by_blue_then_black_then_red(tokens, first, by):
    # Round 2 ends in three ties (all-zero deck, identical plays), so the standing tokens
    # decide. Red can never decide: equal totals, blue and black imply equal red.
    hand = ["000", "000", "000", "000", "000"]
    state = position(2, hands=[hand, hand], options={"deck": [[0, 0, 0]] * 15},
                     stars=[["040", "004"], ["040", "004"]], tokens=tokens)
    for seat in (0, 1):  # identical plays: every colour ties, tokens stay as they were
        state.apply(seat, {"type": "commit", "star": "040", "shared": {"000": 3}})
    ev = events_of(state, "discard_order")[-1]
    assert (ev["order"][0], ev["by"]) == (first, by)
    assert state.to_act() == [first]


def test_dot_4_full_tie_is_a_seeded_public_coin_flip():
    hand = ["000"] * 5
    firsts = set()
    for seed in range(12):
        state = position(2, hands=[hand, hand], options={"deck": [[0, 0, 0]] * 15},
                         stars=[["040", "004"]] * 2, tokens=((1, 0, 0), (1, 0, 0)), seed=seed)
        n = state.event_count
        for seat in (0, 1):
            state.apply(seat, {"type": "commit", "star": "040", "shared": {"000": 3}})
        flips = events_of(state, "coin_flip", n)
        order = events_of(state, "discard_order", n)[0]
        assert len(flips) == 1 and order["by"] == "coin"
        assert order["order"][0] == flips[0]["winner"] == state.to_act()[0]
        firsts.add(flips[0]["winner"])
        # Same seed, same flip (G-1).
        again = GAME.from_json(state.to_json())
        assert again.to_act() == state.to_act()
    assert firsts == {0, 1}


def test_dot_4_discard_actions_are_validated():
    state = _finish_round_1()
    before = state.to_json()
    for junk in [{"type": "discard"}, {"type": "discard", "cards": ["131"]},
                 {"type": "discard", "cards": {"131": True}},
                 {"type": "discard", "cards": {"131": -1}},
                 {"type": "discard", "cards": {"131": 0, "303": 1}},
                 {"type": "discard", "cards": {131: 1}},
                 {"type": "discard", "cards": {"131": 1}, "pool": 1},
                 {"type": "commit", "star": "004", "shared": {}}]:
        with pytest.raises(IllegalAction) as caught:
            state.apply(0, junk)
        assert str(caught.value)
    assert state.to_json() == before


# ---- DOT-5: five tokens win at once; otherwise most tokens ----------------------------------


def test_dot_5_five_tokens_win_at_once_checked_after_each_colour():
    # Seat 0 holds 4 tokens (so no blue token is on offer); winning black makes 5: red, still
    # on offer, is not scored.
    state = example_position(2, tokens=((2, 1, 1), (0, 0, 0)))
    assert state.pot == [0, 1, 1]
    n = state.event_count
    state.apply(0, {"type": "commit", "star": "040", "shared": {"130": 1, "030": 1, "020": 1}})
    # Seat 1: own 000+221+004 = 2/2/5, shared 303+131+301; shared pool 8/11/5. Round 2
    # (smallest): seat 0 differences 5/5/1, seat 1 6/9/0.
    state.apply(1, {"type": "commit", "star": "004", "shared": {"303": 1, "131": 1, "301": 1}})
    scores = scoring_of(state, n)
    assert [(e["colour"], e["winner"]) for e in scores] == [("blue", 0), ("black", 0)]
    assert state.is_over and state.winner == 0 and state.phase == "over"
    assert not events_of(state, "discard_order", n)  # no discard follows
    assert state.result() == {"scores": [5, 0], "ranks": [1, 2]}
    assert events_of(state, "game_over")[-1]["reason"] == "five_tokens"
    assert state.pot == [0, 0, 1] and state.tokens[1] == [0, 0, 0]  # red left unscored


def test_dot_5_most_tokens_after_round_3_wins_and_equal_is_shared():
    state = example_position(3, tokens=((0, 0, 0), (0, 0, 0)))
    state.apply(0, P1_COMMIT)
    state.apply(1, P2_COMMIT)
    assert state.result()["ranks"] == [1, 1]  # 3 blue vs 3 black: shared victory
    state = example_position(3, tokens=((0, 1, 0), (0, 0, 0)))
    state.apply(0, P1_COMMIT)
    state.apply(1, P2_COMMIT)
    assert state.tokens == [[3, 1, 0], [0, 2, 0]] and state.unclaimed == [0, 0, 3]
    assert state.result() == {"scores": [4, 2], "ranks": [1, 2]}
    assert events_of(state, "game_over")[-1]["reason"] == "three_rounds"


# ---- G-*: the engine contract -------------------------------------------------------------


def test_g_1_same_seed_same_deals_and_events():
    a, b = GAME.new_match(seed=42), GAME.new_match(seed=42)
    ra, rb = random_playout(a, Rng(1)), random_playout(b, Rng(1))
    assert ra == rb and a.events_since(0, seat=0) == b.events_since(0, seat=0)
    assert GAME.new_match(seed=43).hands != GAME.new_match(seed=42).hands


def test_g_3_views_hide_hands_deck_order_and_sealed_commits():
    state = GAME.new_match(seed=9)
    state.apply(1, state.legal_actions(1)[17])
    text0 = json.dumps(state.view(0))
    pub = state.view(None)
    assert "hand" not in pub and "my_commit" not in pub
    assert state.view(0)["hand"] == state.hands[0]
    assert "my_commit" in state.view(1) and state.view(0)["my_commit"] is None
    assert json.dumps(state.hands[1]) not in text0
    assert pub["hand_sizes"] == [5, 5] and pub["deck_sizes"] == [10, 10]
    # The draw events are private to each seat.
    first = state.events_since(0)[0]
    assert first["type"] == "round" and "private" not in first and "drew" not in first
    assert state.events_since(0, seat=0)[0]["private"] == {"drew": state.hands[0]}
    # Settled here: remaining stars and the not-yet-revealed multiset are public (deducible).
    assert pub["stars_left"] == [list(STARS), list(STARS)]
    assert sum(pub["unrevealed"][1].values()) == 15


def test_g_3_g_5_resample_keeps_view_and_legal_actions():
    state = GAME.new_match(seed=11)
    state.apply(1, state.legal_actions(1)[3])
    for seed in range(5):
        r = state.resample(0, seed)
        r.check_invariants()
        assert r.view(0) == state.view(0)
        assert list(r.legal_actions(0)) == list(state.legal_actions(0))
        assert r.hands[0] == state.hands[0]
        assert r.commits[1] is not None  # the sealed commit is redrawn, not dropped
        assert sorted(r.commits[1][1] + r.commits[1][2]) == sorted(r.hands[1] + [r.commits[1][0]])
        assert all("private" not in e for e in r.events_since(0, seat=1))
    assert any(state.resample(0, s).hands[1] != state.hands[1] for s in range(5))
    assert any(state.resample(0, s).commits[1] != state.commits[1] for s in range(5))
    spectator = state.resample(None, 1)
    assert spectator.view(None) == state.view(None)


def test_g_6_malformed_commits_are_refused_without_change():
    state = GAME.new_match(seed=2)
    h = state.hands[0]
    before = state.to_json()
    junk = [
        {"type": "commit"},
        {"type": "commit", "star": "400"},
        {"type": "commit", "star": 400, "shared": {h[0]: 1, h[1]: 1, h[2]: 1}},
        {"type": "commit", "star": ["400"], "shared": {h[0]: 1, h[1]: 1, h[2]: 1}},
        {"type": "commit", "star": "400", "shared": [h[0], h[1], h[2]]},
        {"type": "commit", "star": "400", "shared": {h[0]: True, h[1]: 1, h[2]: 1}},
        {"type": "commit", "star": "400", "shared": {h[0]: -1, h[1]: 2, h[2]: 2}},
        {"type": "commit", "star": "400", "shared": {h[0]: 1.0, h[1]: 1, h[2]: 1}},
        {"type": "commit", "star": "400", "shared": {h[0]: 3}},
        {"type": "commit", "star": "400", "shared": {"999": 1, h[1]: 1, h[2]: 1}},
        {"type": "commit", "star": "400", "shared": {h[0]: 1, h[1]: 1, h[2]: 1}, "x": 1},
        {"type": "discard", "cards": {h[0]: 1}},
        {"type": "commit", "star": "400", "shared": {None: 1, h[1]: 1, h[2]: 1}},
    ]
    for action in junk:
        with pytest.raises(IllegalAction) as caught:
            state.apply(0, action)
        assert str(caught.value)
    assert state.to_json() == before


def test_g_7_move_cap_is_the_longest_match_and_ends_as_it_stands():
    assert GAME.move_cap(2, GAME.default_options) == 10
    lengths = [len(random_playout(GAME.new_match(seed=s), Rng(s))) for s in range(300)]
    assert max(lengths) <= 10 and 10 in lengths
    state = GAME.new_match(seed=4)
    state.apply(0, state.legal_actions(0)[0])
    state._end_at_move_cap()
    assert state.is_over and state.to_act() == [] and state.result()["ranks"] == [1, 1]
    state.check_invariants()
    GAME.from_json(state.to_json())


def test_default_action_is_the_first_legal_action():
    state = GAME.new_match(seed=8)
    assert state.default_action(0) == state.legal_actions(0)[0]
    assert state.default_action(0)["star"] == "400"
    state.apply(0, state.default_action(0))
    with pytest.raises(IllegalAction):
        state.default_action(0)


def test_corrupt_state_is_refused():
    data = GAME.new_match(seed=1).to_json()
    data["state"]["pools"][0].append("131")
    with pytest.raises(CorruptState):
        GAME.from_json(data)
    data = GAME.new_match(seed=1).to_json()
    data["state"]["tokens"][0][0] = 1
    with pytest.raises(CorruptState):
        GAME.from_json(data)


def test_heuristic_beats_random_over_200_matches():
    wins = 0
    for seed in range(200):
        h = seed % 2
        bots = ["heuristic", "random"] if h == 0 else ["random", "heuristic"]
        ranks = play_bots("dot", bots, seed=seed).result()["ranks"]
        wins += ranks[h] == 1 and ranks[1 - h] == 2
    assert wins >= 160, wins


def test_heuristic_uses_only_view_and_legal_actions():
    state = GAME.new_match(seed=5)
    bot = DotHeuristicBot(GAME, 0, seed=1)
    action = bot.choose(state.view(0), state.legal_actions(0))
    assert action in state.legal_actions(0)
    # Same view, different hidden opponent hand -> same decision.
    other = state.resample(0, 99)
    assert DotHeuristicBot(GAME, 0, seed=1).choose(other.view(0), other.legal_actions(0)) == action


def test_g_2_seats_and_the_other_player():
    """G-2: seat 0 is the rulebook's Player 1; a discard targets seat + 1 mod 2."""
    state = _finish_round_1()
    seat = state.to_act()[0]
    assert state.view(seat)["discard"]["pool"] == (seat + 1) % 2


def test_g_4_ranks_share_on_equal_tokens_and_skip_otherwise():
    state = position(3, hands=[P1_HAND, P2_HAND], options={"deck": EXAMPLE_DECK},
                     pools=(["000"] * 3, ["000"] * 3), stars=[["040"], ["400"]])
    state.apply(0, P1_COMMIT)
    state.apply(1, P2_COMMIT)
    assert state.result() == {"scores": [3, 3], "ranks": [1, 1]}
    state.forfeit(1)
    assert state.result()["ranks"] == [1, 2]


def test_g_1_shuffle_is_uniform_and_seeded():
    from games.engine.dot import shuffle

    counts = Counter()
    rng = Rng(123)
    for _ in range(6000):
        items = ["a", "b", "c"]
        shuffle(rng, items)
        counts["".join(items)] += 1
    assert len(counts) == 6 and min(counts.values()) > 850 and max(counts.values()) < 1150
    a, b = list(range(15)), list(range(15))
    shuffle(Rng(5), a)
    shuffle(Rng(5), b)
    assert a == b != list(range(15))


@pytest.mark.parametrize("deck", [EXAMPLE_DECK, [[1, 1, 1]] * 15,
                                  [[c % 4, (c // 4) % 4, 3 - c % 4] for c in range(15)]])
def test_dot_1_custom_decks_play_whole_matches_cleanly(deck):
    """The generic suite never sets ``deck``; play custom decks (with equal cards) here."""
    for seed in range(30):
        state = GAME.new_match(seed=seed, options={"deck": deck})
        rng = Rng(seed)
        while not state.is_over:
            state.check_invariants()
            for seat in (None, 0, 1):
                r = state.resample(seat, rng.next64())
                r.check_invariants()
                assert r.view(seat) == state.view(seat)
                if seat is not None:
                    assert list(r.legal_actions(seat)) == list(state.legal_actions(seat))
            seat = state.to_act()[rng.below(len(state.to_act()))]
            legal = state.legal_actions(seat)
            specs = [json.dumps(a, sort_keys=True) for a in legal]
            assert len(specs) == len(set(specs))  # equal cards never give duplicate actions
            state.apply(seat, legal[rng.below(len(legal))])
        data = state.to_json()
        assert GAME.from_json(json.loads(json.dumps(data))).to_json() == data
    # Five equal cards + one star: shared is either 111x3 or 111x2 + the star.
    assert list(CommitActions(["111"] * 5, ["400"])) == [
        {"type": "commit", "star": "400", "shared": {"111": 3}},
        {"type": "commit", "star": "400", "shared": {"111": 2, "400": 1}}]
