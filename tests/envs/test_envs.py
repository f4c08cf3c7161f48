"""games.envs: every game as a PettingZoo AEC environment (docs/training.md).

PettingZoo's own api_test and seed_test for all five games; then what they cannot see: every
legal engine action has exactly one index path and every legal index makes a legal action
(against the engine's own lists, at random positions of random matches, options included),
observations stay in their space, seeds reproduce the engine's deal, rewards follow the result,
and no observation depends on hidden information (the engine's resample() re-draws it).
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test

from games.engine import Rng, game_ids, get_game
from games.envs import codec, env, rank_rewards, raw_env
from tests.helpers.engine import random_options

# Short matches keep the suite quick; api_test and seed_test also run one default match each.
SHORT = {"great_dalmuti": {"hands": 2}, "dutch": {"players": 2, "rounds": 2}}


@pytest.mark.parametrize("game_id", game_ids())
def test_passes_pettingzoo_api_test(game_id: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # The two warnings PettingZoo's own dict-observation games (chess, go...) also give.
        warnings.filterwarnings("ignore", "Observation is not a NumPy array")
        warnings.filterwarnings("ignore", "Observation space for each agent probably")
        api_test(env(game_id, **SHORT.get(game_id, {})), num_cycles=200)


@pytest.mark.parametrize("game_id", game_ids())
def test_passes_pettingzoo_seed_test(game_id: str) -> None:
    seed_test(lambda: env(game_id, **SHORT.get(game_id, {})), num_cycles=200)


def random_env(game_id: str, seed: int, **kwargs):
    """A raw environment with a random player count and random options, reset on ``seed``
    (``kwargs``: the environment's own, such as ``reward``)."""
    game = get_game(game_id)
    rng = Rng(seed)
    players = rng.randint(game.min_players, game.max_players)
    options = random_options(game, players, rng)
    if game_id == "great_dalmuti":
        options["hands"] = 1
    if game_id == "dutch":
        options["rounds"] = players  # DU-8: a multiple of the players
    e = raw_env(game_id, players=players, **options, **kwargs)
    e.reset(seed=seed)
    return e, rng


def play(e, rng: Rng, check) -> None:
    """Play ``e`` to the end uniformly over its mask, calling ``check(e, obs)`` every step."""
    for agent in e.agent_iter():
        obs, _, terminated, truncated, _ = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        check(e, obs)
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.below(len(legal))]))


@pytest.mark.parametrize("game_id", game_ids())
def test_the_action_index_is_the_legal_list_exactly(game_id: str) -> None:
    """At every step: each legal index decodes to a legal engine action (or a pending part);
    each legal engine action's index path is legal at every step of it and decodes back to it;
    a flat game's legal indices are as many as its legal actions."""
    for seed in range(12):
        e, rng = random_env(game_id, seed)
        c = e.codec

        def check(e, obs) -> None:
            seat = e.agent_seat[e.agent_selection]
            state, view = e.match, e.match.view(seat)
            legal = state.legal_actions(seat)
            indices = list(np.flatnonzero(obs["action_mask"]))
            assert indices, "an asked seat always has a legal index"
            if e.pending is None:
                sample = [legal[rng.below(len(legal))] for _ in range(20)]
                for action in sample:
                    pending, path = None, c.indices(view, action)
                    for i, index in enumerate(path):
                        assert index in c.legal_indices(view, legal, pending)
                        move, pending = c.decode(view, index, pending)
                        assert (move is None) == (i < len(path) - 1)
                    assert move == action
                if game_id != "dtc":
                    assert len(indices) == len(legal)
                    assert sorted(indices) == sorted(c.index_of[c.key(view, a)] for a in legal)
            for index in indices:
                move, _ = c.decode(view, int(index), e.pending)
                if move is not None:
                    assert move in legal, (move, list(legal)[:5])

        play(e, rng, check)


@pytest.mark.parametrize("game_id", game_ids())
def test_observations_stay_in_their_space(game_id: str) -> None:
    for seed in range(12):
        e, rng = random_env(game_id, seed)
        space = e.observation_space(e.possible_agents[0])["observation"]

        def check(e, obs) -> None:
            vector = obs["observation"]
            seat = e.agent_seat[e.agent_selection]
            assert len(e.codec.observe(e.match.view(seat), e.pending)) == e.codec.observation_size
            assert vector.shape == (e.codec.observation_size,)
            assert space.contains(vector), (vector.min(), vector.max(), space.high[0])
            for agent in e.agents:  # the other seats' observations too
                other = e.observe(agent)["observation"]
                assert other.shape == vector.shape and space.contains(other)

        play(e, rng, check)


@pytest.mark.parametrize("game_id", game_ids())
def test_no_observation_depends_on_hidden_information(game_id: str) -> None:
    """Leak test: for every seat, re-drawing what it cannot know (the engine's resample: other
    hands, piles, dice, sealed answers) leaves its whole observation unchanged."""
    for seed in range(8):
        e, rng = random_env(game_id, seed)
        twin = raw_env(game_id, players=e.players, **e.options)
        twin.reset(seed=seed)
        changed = False

        def check(e, obs) -> None:
            nonlocal changed
            for agent in e.agents:
                seat = e.agent_seat[agent]
                mine = e.observe(agent)
                redrawn = e.match.resample(seat, rng.next64())
                changed |= redrawn.dump() != e.match.dump()
                twin.match, twin.agent_selection, twin.pending = redrawn, e.agent_selection, \
                    e.pending
                twin.forget_position()
                theirs = twin.observe(agent)
                assert theirs["view"] == mine["view"]
                assert np.array_equal(theirs["observation"], mine["observation"])
                assert np.array_equal(theirs["action_mask"], mine["action_mask"])

        play(e, rng, check)
        assert changed, "resample() never re-drew anything: the test would prove nothing"


def test_a_sealed_answer_never_shows_in_the_other_seats_observation() -> None:
    """D.O.T's commits are one sealed simultaneous step, played as two AEC turns: whatever
    seat 0 commits, seat 1 then observes the same thing (only that seat 0 has committed)."""
    seen = set()
    for first in range(60):
        e = raw_env("dot")
        e.reset(seed=3)
        assert e.agent_selection == "player_0" and e.match.to_act() == [0, 1]
        mask = e.observe("player_0")["action_mask"]
        e.step(int(np.flatnonzero(mask)[first]))
        assert e.agent_selection == "player_1"
        obs = e.observe("player_1")
        seen.add((obs["view"], obs["observation"].tobytes(), obs["action_mask"].tobytes()))
    assert len(seen) == 1


@pytest.mark.parametrize("game_id", game_ids())
def test_a_seed_gives_the_engines_deal(game_id: str) -> None:
    e = raw_env(game_id)
    e.reset(seed=12345)
    assert e.match.to_json() == get_game(game_id).new_match(seed=12345).to_json()
    e.reset()
    follow_up = e.match.to_json()
    e.reset(seed=12345)
    e.reset()
    assert e.match.to_json() == follow_up, "resets after a seeded one are reproducible too"
    wrapped = env(game_id)
    wrapped.seed(12345)  # the older PettingZoo call, through the wrappers
    wrapped.reset()
    assert wrapped.unwrapped.match.to_json() == get_game(game_id).new_match(seed=12345).to_json()


def rewarded_play(e, rng: Rng) -> tuple[list[float], dict]:
    """Play ``e`` to the end uniformly over its mask: each seat's total reward and the final
    result its infos give (no reward is paid before the end)."""
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, r, terminated, truncated, info = e.last()
        totals[agent] += r
        if terminated or truncated:
            result = info["result"]
            e.step(None)
            continue
        assert r == 0.0, "no reward before the end"
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.below(len(legal))]))
    assert result == e.match.result()
    return list(totals.values()), result


@pytest.mark.parametrize("game_id", game_ids())
@pytest.mark.parametrize("reward", ["rank", "score"])
def test_rewards_come_from_the_final_result(game_id: str, reward: str) -> None:
    e = raw_env(game_id, reward=reward, **SHORT.get(game_id, {}))
    e.reset(seed=5)
    totals, result = rewarded_play(e, Rng(5))
    if reward == "rank":
        expected = rank_rewards(result["ranks"])
    else:
        sign = -1 if get_game(game_id).lower_score_wins else 1
        expected = [sign * s for s in result["scores"]]
    assert totals == expected


@pytest.mark.parametrize("game_id", game_ids())
def test_a_better_rank_never_gets_a_smaller_score_reward(game_id: str) -> None:
    """The game's ``lower_score_wins`` signs ``reward="score"``; the engine's ranks say which
    way is right: a seat ranked above another is never paid less, and sometimes more."""
    paid_more = 0
    for seed in range(8):
        e, rng = random_env(game_id, seed, reward="score")
        totals, result = rewarded_play(e, rng)
        ranks = result["ranks"]
        for above, below in itertools.permutations(range(len(ranks)), 2):
            if ranks[above] < ranks[below]:
                assert totals[above] >= totals[below], (seed, ranks, result["scores"])
                paid_more += totals[above] > totals[below]
    assert paid_more, "no match where ranks and scores told seats apart"


def test_rank_rewards() -> None:
    assert rank_rewards([1, 2]) == [1.0, -1.0]
    assert rank_rewards([1, 1]) == [0.0, 0.0]
    assert rank_rewards([1, 1, 3, 4]) == pytest.approx([2 / 3, 2 / 3, -1 / 3, -1])
    assert sum(rank_rewards([2, 1, 4, 3, 1])) == 0


def test_an_illegal_index_is_refused_clearly() -> None:
    e = raw_env("dice_cup", players=2)
    e.reset(seed=1)
    illegal = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="not legal now"):
        e.step(illegal)
    wrapped = env("dice_cup", players=2)
    wrapped.reset(seed=1)
    agent = wrapped.agent_selection
    wrapped.last()
    wrapped.step(illegal)  # TerminateIllegalWrapper: the match ends, that agent loses
    assert wrapped.rewards[agent] == -1 and all(wrapped.terminations.values())


def test_options_set_the_index_size() -> None:
    assert codec("dtc").action_size == 15
    assert codec("dice_cup", players=2).action_size == 2 * 16 + 374 + 2 + 16
    assert codec("great_dalmuti", players=4).action_size == 2 + 13 + 91 + 1 + 4 + 1 + 234 + 2
    assert codec("dutch", players=2).action_size == 6 + 3 * 54 + 2 + 54 * 54
    assert codec("dot").action_size == 3 * 560 + 18 + 153
    duplicated = [[0, 0, 0]] * 15
    # Commits: 000 000 000 or 000 000 <star>, per star; discards: 4 singles, 7 pairs.
    assert codec("dot", deck=duplicated).action_size == 3 * 2 + 4 + 7
    with pytest.raises(ValueError, match="players"):
        codec("dot", players=3)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_the_sizes_docs_training_md_gives(players: int) -> None:
    assert codec("dtc", players=players).observation_size == 43 + 12 * players
    assert codec("dutch", players=players).observation_size == 23 + 60 * players
    assert codec("dutch", players=players).action_size == (
        6 + 3 * 54 + players + players * (players - 1) // 2 * 54 * 54)
    assert codec("dice_cup", players=players).observation_size == 29 + 23 * players
    assert codec("dice_cup", players=players).action_size == 16 * players + 374 + 2 + 16
    dalmuti = codec("great_dalmuti", players=players + 2)
    assert dalmuti.observation_size == 38 + 7 * (players + 2)
    assert dalmuti.action_size == 344 + players + 2
    assert codec("dot").observation_size == 47 + 5 * 15


def test_the_dtc_offer_docs_training_md_shows() -> None:
    """``{"1": 2, "joker": 1}`` claiming 3 is the steps 0, 0, 6, 9; the offer in progress is
    the observation's last 7 values, and only in the offering seat's observation."""
    e = raw_env("dtc", players=2)
    for seed in range(100):
        e.reset(seed=seed)
        seat = e.agent_seat[e.agent_selection]
        hand = e.match.view(seat)["hand"]
        if hand["1"] >= 2 and hand["joker"] >= 1:
            break
    c = e.codec
    assert c.indices(e.match.view(seat), {"type": "offer", "cards": {"1": 2, "joker": 1},
                                          "value": 3}) == [0, 0, 6, 9]
    other = e.possible_agents[1 - seat]
    before = e.observe(other)
    for index in (0, 0, 6):
        e.step(index)
    built = e.observe(e.agent_selection)["observation"]
    assert list(built[-7:]) == [2, 0, 0, 0, 0, 0, 1]
    after = e.observe(other)
    assert after["view"] == before["view"]
    assert np.array_equal(after["observation"], before["observation"])
    e.step(9)
    assert e.match.events_since(0)[-1]["type"] == "offer"
    assert e.match.view(seat)["offer"]["cards"] == {"1": 2, "joker": 1}


def test_the_bench_runs_and_replays_the_same_play() -> None:
    """bench/envs.py (docs/training.md, "Speed"): its recorded engine moves replay through the
    engine, and the script prints a row per game."""
    import pathlib
    import subprocess
    import sys

    from bench import envs as bench

    indices, moves = bench.record("dtc", seed=3)
    assert len(indices) > len(moves) > 0, "a DTC offer takes several steps"
    assert bench.time_engine("dtc", [(3, moves)]) >= 0  # raises if a move were illegal
    root = pathlib.Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "bench/envs.py", "--seconds", "0.05", "--game", "dot"],
                         cwd=root, check=True, capture_output=True, text=True).stdout
    row = out.splitlines()[-1]
    assert row.startswith("dot ") and row.endswith(" (2.0x)"), "D.O.T's accepted overhead"


def test_the_quick_action_space_answers_as_gymnasiums_discrete() -> None:
    """games/envs/wrapping.py: ActionSpace.contains answers a plain int at once; every answer
    is gymnasium's."""
    import gymnasium

    from games.envs.wrapping import ActionSpace

    quick, reference = ActionSpace(15), gymnasium.spaces.Discrete(15)
    for x in [-1, 0, 7, 14, 15, 2**70, True, False, 3.0, "3", None, np.int64(3), np.int8(14),
              np.int64(15), np.array(3), np.array([3]), np.float32(3), np.uint8(2)]:
        assert quick.contains(x) == reference.contains(x), x
    assert quick == reference


@pytest.mark.parametrize("game_id", ["dice_cup", "dot"])
def test_env_has_pettingzoos_wrappers_reading_the_fields_through(game_id: str) -> None:
    """env()'s wrappers are PettingZoo's (subclassed so that the AEC fields are read from the
    unwrapped environment at once): same errors before reset, same fields after, writes land
    in the environment, and an observation handed out can be changed freely."""
    from pettingzoo.utils import wrappers

    e = env(game_id)
    layers, inner = [], e
    while inner is not e.unwrapped:
        layers.append(inner)
        inner = inner.env
    assert [type(w).__bases__[-1] for w in layers] == [
        wrappers.OrderEnforcingWrapper, wrappers.AssertOutOfBoundsWrapper,
        wrappers.TerminateIllegalWrapper]
    for name in ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos",
                 "num_agents"):
        with pytest.raises(AttributeError, match="cannot be accessed before reset"):
            getattr(e, name)
    e.reset(seed=4)
    raw = e.unwrapped
    for layer in layers:
        for name in ("agent_selection", "agents", "rewards", "terminations", "truncations",
                     "infos", "_cumulative_rewards"):
            assert getattr(layer, name) is getattr(raw, name), name
    obs = e.observe(e.agent_selection)
    obs["action_mask"][:] = 0
    obs["observation"][:] = 0
    again = e.observe(e.agent_selection)
    assert again["action_mask"].any() and again["observation"].any()
    e.step(int(np.flatnonzero(again["action_mask"])[0]))
    assert e.agent_selection == raw.agent_selection
    e.agent_selection = raw.possible_agents[0]
    assert raw.agent_selection == raw.possible_agents[0]


@pytest.mark.parametrize("game_id", game_ids())
def test_the_packed_vector_is_the_observation_list_as_float32(game_id: str) -> None:
    """codec.vector (struct-packed, what observe() hands out a copy of) is observe()'s list
    converted as numpy converts it, at every position of a match, and cannot be changed."""
    e, rng = random_env(game_id, 3)

    def check(e, obs) -> None:
        seat = e.agent_seat[e.agent_selection]
        view = e.match.view(seat)
        packed = e.codec.vector(view, e.pending)
        assert np.array_equal(packed, np.array(e.codec.observe(view, e.pending), np.float32))
        assert np.array_equal(obs["observation"], packed)
        assert not packed.flags.writeable and obs["observation"].flags.writeable

    play(e, rng, check)


@pytest.mark.parametrize("game_id", ["dice_cup", "dtc"])
def test_env_plays_as_pettingzoos_own_wrappers(game_id: str) -> None:
    """The wrappers' quick paths (games/envs/wrapping.py) give what PettingZoo's own wrappers
    give, step for step: legal int and np.int64 actions, a step with no observation before it,
    an out-of-range action, an illegal one, and the dead steps after the end."""
    from pettingzoo.utils import wrappers

    def theirs() -> wrappers.OrderEnforcingWrapper:
        inner = wrappers.TerminateIllegalWrapper(raw_env(game_id), illegal_reward=-1)
        return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(inner))

    for seed, illegal_at in ((3, None), (4, 5)):
        ours, ref, rng = env(game_id), theirs(), Rng(seed)
        ours.reset(seed=seed)
        ref.reset(seed=seed)
        for turn in range(10_000):
            assert ours.agents == ref.agents
            if not ours.agents:
                break
            assert ours.agent_selection == ref.agent_selection
            last, ref_last = ours.last(observe=turn % 3 != 2), ref.last(observe=turn % 3 != 2)
            assert last[1:] == ref_last[1:]
            if last[2] or last[3]:
                ours.step(None)
                ref.step(None)
                continue
            with pytest.raises(AssertionError):
                ours.step(ours.action_space(ours.agent_selection).n)
            mask = ours.unwrapped.observe(ours.agent_selection)["action_mask"]
            choices = np.flatnonzero(mask == (0 if turn == illegal_at else 1))
            action = choices[rng.below(len(choices))]
            action = action if turn % 2 else int(action)
            ours.step(action)
            ref.step(action)
        assert ours.rewards == ref.rewards and ours.terminations == ref.terminations
        assert ours.unwrapped.match.result() == ref.unwrapped.match.result()


def _eager(e, agent: str, obs: dict | None = None) -> dict:
    """What observe() handed out before the view was made lazily: the arrays (those of
    ``obs``, read without touching its view, if given), and the text."""
    from games.envs import view_json

    obs = e.observe(agent) if obs is None else obs
    return {"observation": dict.__getitem__(obs, "observation"),
            "action_mask": dict.__getitem__(obs, "action_mask"),
            "view": view_json(e.match.view(e.agent_seat[agent]))}


def _same(a: dict, b: dict) -> bool:
    return (list(a) == list(b) and a["view"] == b["view"]
            and np.array_equal(a["observation"], b["observation"])
            and np.array_equal(a["action_mask"], b["action_mask"]))


@pytest.mark.parametrize("game_id", game_ids())
def test_the_lazy_view_reads_as_the_eager_one(game_id: str) -> None:
    """games/envs/observation.py: an observation's "view" is made on first read, by any way of
    reading a dict, and is then the text of the observed position, even read steps later."""
    import copy
    import json
    import pickle

    from games.envs.observation import LAZY, Observation

    e, rng = random_env(game_id, 2)
    held: list[tuple[Observation, str]] = []
    made_later: list[bool] = []
    reads = [
        lambda o: o["view"], lambda o: o.get("view"), lambda o: dict(o.items())["view"],
        lambda o: list(o.values())[2], lambda o: dict(o)["view"], lambda o: {**o}["view"],
        lambda o: [o[k] for k in o][2], lambda o: o.copy()["view"],
        lambda o: copy.copy(o)["view"], lambda o: copy.deepcopy(o)["view"],
        lambda o: pickle.loads(pickle.dumps(o))["view"], lambda o: o.setdefault("view"),
        lambda o: json.loads(json.dumps(o, default=np.ndarray.tolist))["view"],
        lambda o: (o | {})["view"], lambda o: ({} | o)["view"],
    ]

    def check(e, obs) -> None:
        for agent in e.agents:
            lazy = e.observe(agent)
            eager = _eager(e, agent, lazy)
            stored = dict.__getitem__(lazy, "view")  # made already if its position's was
            assert type(lazy) is Observation and stored in (LAZY, eager["view"])
            made_later.append(stored is LAZY)
            assert lazy == eager and eager == lazy
            assert not lazy != eager  # noqa: SIM202  (__ne__ is overridden too)
            assert e.observation_space(agent).contains(lazy)
            held.append((lazy, eager["view"]))
        first = held[-1][0]
        assert reads[len(held) % len(reads)](first) == held[-1][1]
        assert dict.__getitem__(first, "view") == held[-1][1], "made once, then kept"
        copied = copy.deepcopy(e.observe(e.agent_selection))
        assert type(copied) is Observation and _same(copied, _eager(e, e.agent_selection))
        now = e.agent_selection
        assert repr(e.observe(now)).endswith(repr(_eager(e, now)["view"]) + "}")

    play(e, rng, check)
    assert sum(made_later) > len(made_later) / 2
    for lazy, text in held[::7]:  # read after the match went on: the position's text still
        assert lazy["view"] == text


@pytest.mark.parametrize("game_id", game_ids())
def test_engine_views_share_nothing_with_the_state(game_id: str) -> None:
    """What the lazy view relies on: ``state.view(seat)`` is a snapshot, whose text is the
    same when it is made after the match went on (a view sharing a list with the state that a
    later move changes would fail here)."""
    import orjson

    e, rng = random_env(game_id, 5)
    held = []

    def check(e, obs) -> None:
        for seat in range(e.players):
            view = e.match.view(seat)
            held.append((view, orjson.dumps(view)))

    play(e, rng, check)
    assert held and all(orjson.dumps(view) == text for view, text in held)


def test_env_checks_all_three_wrappers_at_once_only_over_its_own_stack() -> None:
    """OrderEnforcingWrapper makes the other two layers' checks itself (one call to the
    environment a step) only over exactly recommended_wrappers' stack; over any other it
    goes down the layers, and plays the same."""
    from games.envs.wrapping import OrderEnforcingWrapper, TerminateIllegalWrapper

    fused = env("dice_cup")
    assert isinstance(fused._illegal, TerminateIllegalWrapper)
    other = OrderEnforcingWrapper(TerminateIllegalWrapper(raw_env("dice_cup"), illegal_reward=-1))
    assert other._illegal is None
    for e in (fused, other):
        e.reset(seed=9)
    rng = Rng(9)
    while fused.agents:
        a, b = fused.last(), other.last()
        assert a[1:] == b[1:] and _same(a[0], b[0])
        if a[2] or a[3]:
            fused.step(None)
            other.step(None)
            continue
        legal = np.flatnonzero(a[0]["action_mask"])
        index = int(legal[rng.below(len(legal))])
        fused.step(index)
        other.step(index)
    assert fused.rewards == other.rewards and not other.agents
