"""The small interface every game implements, and what all games share.

A game module defines a :class:`Game` subclass (the rules and options: stateless) and a
:class:`State` subclass (one match in progress), and registers a ``GAME`` instance. Everything
outside ``games/engine`` (the Django apps, bots, tournaments, offline users) talks to games only
through these two classes, so nothing else ever re-implements a rule.

Conventions every game follows (house rules G-1..G-7):

* Seats are ``0..players-1`` clockwise; "left"/"next" is ``seat + 1 mod players`` (G-2).
* All randomness comes from ``State.rng``, seeded from the match seed (G-1).
* Actions are JSON-ready dicts with a ``"type"`` key; equal-rank cards are given as counts per
  rank and face-down cards by public slot handles, never by hidden identities (G-6).
* ``view(seat)`` holds exactly what that seat may know (G-3); whether a seat is asked to act, and
  its legal actions, never depend on what it cannot know (G-5).
* Every game has a move cap; reaching it ends the match, scored as it stands (G-7).
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .errors import BadOptions, CorruptState, EngineError, IllegalAction
from .options import Option
from .results import competition_ranks
from .rng import Rng

JSON = dict[str, Any]
FORMAT_VERSION = 1
#: ``State.clone(private_of=ALL_SEATS)`` keeps every seat's private event details.
ALL_SEATS = object()


def copy_data(data: Any) -> Any:
    """A deep copy of plain data (dicts, lists, tuples, scalars): a pickle round trip, several
    times faster than ``copy.deepcopy`` on a state's dump."""
    return pickle.loads(pickle.dumps(data, pickle.HIGHEST_PROTOCOL))


def counted(number: int, noun: str) -> str:
    """``1 participant``, ``3 participants``: a count in words, for messages."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def players_range(low: int, high: int) -> str:
    """``2 players`` or ``2 to 6 players``: how many a game or a table seats, for messages."""
    return counted(low, "player") if low == high else f"{low} to {high} players"


# --------------------------------------------------------------------------------------------
# Game and State
# --------------------------------------------------------------------------------------------


class Game:
    """A game's rules, options and bots. Stateless: one shared instance per game."""

    id: ClassVar[str]
    name: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    default_players: ClassVar[int]
    options: ClassVar[tuple[Option, ...]] = ()
    state_class: ClassVar[type[State]]
    #: Reference bots by name; each maps to a class taking ``(game, seat, seed)``.
    bots: ClassVar[dict[str, type[Bot]]] = {}

    # ---- what a series of matches (a tournament, a league night) needs to know -----------
    #: The lowest score is the best (a card-total game). Ranks already say who won; this says
    #: which way a total of scores over several matches runs, and which way a training
    #: environment signs a score as a reward (``games/envs``).
    lower_score_wins: ClassVar[bool] = False
    #: A match's scores are points that add up over a series of matches (a league sums them
    #: hand after hand); if false a series scores a match by its ranks alone.
    scores_add_up: ClassVar[bool] = False
    #: The order a match finished in (``result()["order"]``) seats the next match of a series:
    #: it is the game's social order. If false a series keeps its seating and rotates the
    #: first seat.
    order_carries_over: ClassVar[bool] = False

    @property
    def default_options(self) -> JSON:
        return {opt.name: copy.deepcopy(opt.default) for opt in self.options}

    def describe_options(self) -> list[JSON]:
        return [opt.describe() for opt in self.options]

    def check_players(self, players: Any) -> int:
        if isinstance(players, bool) or not isinstance(players, int):
            raise BadOptions(f"players must be an integer, not {players!r}")
        if not self.min_players <= players <= self.max_players:
            raise BadOptions(
                f"{self.name} is for {players_range(self.min_players, self.max_players)}, "
                f"not {players}"
            )
        return players

    def check_options(self, options: JSON | None, players: int, *, new: bool = True) -> JSON:
        """Merge ``options`` over the defaults and validate them; raise :class:`BadOptions`.
        ``new`` False (a saved or recorded match): ``Option.new_check`` is not applied."""
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise BadOptions(f"options must be an object, not {type(options).__name__}")
        known = {opt.name: opt for opt in self.options}
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise BadOptions(
                f"unknown option(s) for {self.id}: {', '.join(unknown)}"
                f" (known: {', '.join(known) or 'none'})"
            )
        merged = self.default_options
        for name, value in options.items():
            merged[name] = known[name].clean(value)
        for opt in self.options:
            for check in filter(None, (opt.check, opt.new_check if new else None)):
                error = check(merged[opt.name], merged, players)
                if error:
                    raise BadOptions(f"option {opt.name!r}: {error}")
        return merged

    def move_cap(self, players: int, options: JSON) -> int:
        """The most moves (applied actions) a match may take before it ends as it stands (G-7)."""
        raise NotImplementedError

    def new_match(self, players: int | None = None, seed: int = 0,
                  options: JSON | None = None, *, replay: bool = False) -> State:
        """A fresh match: seats dealt and set up from ``seed`` (G-1). ``replay``: the deal of
        a recorded match, whose options passed the rules of its day (``check_options``)."""
        players = self.check_players(self.default_players if players is None else players)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise BadOptions(f"seed must be an integer, not {seed!r}")
        state = self.state_class(players=players, seed=seed,
                                 options=self.check_options(options, players, new=not replay))
        state.setup()
        return state

    def from_json(self, data: JSON) -> State:
        """Rebuild a state saved by :meth:`State.to_json`; raise :class:`CorruptState` if bad."""
        try:
            if data.get("game") != self.id:
                raise CorruptState(f"saved state is for {data.get('game')!r}, not {self.id!r}")
            if data.get("format") != FORMAT_VERSION:
                raise CorruptState(f"unknown state format {data.get('format')!r}")
            players = self.check_players(data["players"])
            state = self.state_class(players=players, seed=data["seed"],
                                     options=self.check_options(data["options"], players,
                                                                new=False))
            state.rng.state = data["rng"]
            state.moves = data["moves"]
            state.forfeited = list(data.get("forfeited", []))
            state._events_offset = data.get("events_offset", 0)
            offset = state._events_offset
            state._events = [({"n": offset + i, **e}, {int(k): v for k, v in p.items()} if p
                              else None) for i, (e, p) in enumerate(data["events"])]
            state.load(copy_data(data["state"]))
        except EngineError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise CorruptState(f"saved state is malformed: {exc!r}") from exc
        try:
            state.check_invariants()
        except (AssertionError, KeyError, TypeError, ValueError, IndexError) as exc:
            raise CorruptState(f"saved state breaks an invariant: {exc}") from exc
        return state

    def series_options(self, options: JSON, *, players: int, ordered: bool,
                       first: bool) -> JSON:
        """The options of one match in a series of matches played one after another at a table
        (a league night's hands), from the series' ``options``: what the game needs passed on
        from one match to the next. ``ordered``: the table is seated in the order it finished
        the match before (:attr:`order_carries_over`; false before there is one); ``first``:
        the series' very first match at this table (a season's). Default: the options
        unchanged (a copy)."""
        return copy.deepcopy(dict(options))

    def legal_from_description(self, description: JSON) -> Sequence[JSON]:
        """The legal actions a lazy list's ``describe()`` stands for, rebuilt: what a bot sent
        ``legal_description`` alone (``bots/protocol.py``) would see in-process. Raises
        ``ValueError`` for a description the game cannot expand (default: every one)."""
        raise ValueError(f"no way to expand a {self.id} description {description.get('type')!r}")

    def make_bot(self, name: str, seat: int, seed: int = 0) -> Bot:
        try:
            return self.bots[name](self, seat, seed)
        except KeyError:
            raise BadOptions(
                f"no reference bot {name!r} for {self.id} (have: {', '.join(self.bots)})"
            ) from None


class State:
    """One match in progress. Subclasses implement the ``_``-prefixed hooks and rules.

    The public methods here are the whole interface; their contracts:

    * ``to_act()``: seats expected to act now, ``[]`` once over. Several seats means a
      simultaneous step: each answers on its own and answers stay sealed until all are in.
    * ``legal_actions(seat)``: the complete legal actions of ``seat`` now (``[]`` if it is not
      asked). A sequence of JSON-ready dicts: a list, or for large spaces a lazy sequence that
      supports ``len``, indexing, iteration and ``in``.
    * ``validate(seat, action)`` raises :class:`IllegalAction` with a readable reason;
      ``apply(seat, action)`` validates, then changes the state.
    """

    game: ClassVar[Game]

    def __init__(self, *, players: int, seed: int, options: JSON) -> None:
        self.players = players
        self.seed = seed
        self.options = options
        self.rng = Rng(seed)
        self.moves = 0
        self.forfeited: list[int] = []
        # Each event: (public dict, {seat: private dict} or None). Private parts go only to
        # their seat, e.g. the card it drew.
        self._events: list[tuple[JSON, dict[int, JSON] | None]] = []
        # Events before this index were left out of a saved state (``to_json(events=False)``):
        # a platform that stores the log itself need not save and reload it with every move.
        self._events_offset = 0

    # ---- hooks each game implements --------------------------------------------------------

    def setup(self) -> None:
        """Deal and set up a new match (called once by ``Game.new_match``)."""
        raise NotImplementedError

    def to_act(self) -> list[int]:
        raise NotImplementedError

    def legal_actions(self, seat: int) -> Sequence[JSON]:
        raise NotImplementedError

    def _check(self, seat: int, action: JSON) -> Any:
        """Validate ``action`` (known to be a dict, ``seat`` known to be asked); return whatever
        parsed form ``_apply`` wants. Raise IllegalAction; KeyError/TypeError/ValueError are
        turned into IllegalAction by the caller, so parsing can be direct."""
        raise NotImplementedError

    def _apply(self, seat: int, parsed: Any) -> None:
        raise NotImplementedError

    def _view(self, seat: int | None) -> JSON:
        """Game-specific part of the view of ``seat`` (``None``: a spectator)."""
        raise NotImplementedError

    def _outcome(self) -> tuple[list[Any], list[Any]]:
        """``(scores, rank_keys)`` per seat; a smaller rank key is better."""
        raise NotImplementedError

    def _order(self) -> list[int] | None:
        """The seats in the order they finished, best first, where the ranks do not say it
        (a going-out order that ties in points cannot show); ``None`` (the default): the
        ranks are the order. Public: ``result()`` shows it to everyone."""
        return None

    def _end_at_move_cap(self) -> None:
        """Stop the match where it stands (G-7): after this, ``is_over`` is true."""
        raise NotImplementedError

    @property
    def is_over(self) -> bool:
        raise NotImplementedError

    def default_action(self, seat: int) -> JSON:
        """The documented action taken for ``seat`` when it times out or fails (a legal one)."""
        raise NotImplementedError

    def dump(self) -> JSON:
        """Game-specific part of ``to_json`` (JSON-ready; may share structure with the state)."""
        raise NotImplementedError

    def load(self, data: JSON) -> None:
        """Inverse of ``dump``; ``data`` is the state's own copy."""
        raise NotImplementedError

    def check_invariants(self) -> None:
        """Raise :class:`CorruptState` if the state is impossible (e.g. cards not conserved).
        Explicit checks, never ``assert``: ``python -O`` strips asserts, and a corrupt state
        loaded unchecked would be played on."""
        raise NotImplementedError

    def resample(self, seat: int | None, seed: int) -> State:
        """A copy in which everything ``seat`` cannot know is re-drawn at random, consistent with
        what it does know (a determinization, as used by ISMCTS bots). ``view(seat)`` and
        ``legal_actions(seat)`` of the copy equal the original's (G-3, G-5)."""
        raise NotImplementedError

    # ---- the shared machinery ------------------------------------------------------------

    def emit(self, event_type: str, private: dict[int, JSON] | None = None, **public: Any) -> None:
        """Record an event: ``public`` for everyone, ``private[seat]`` for that seat alone. The
        public part is kept with its index ``"n"`` as the log shows it, so :meth:`log_since`
        hands out the very same dicts (never changed once recorded) instead of a copy a move."""
        self._events.append(({"n": self.event_count, **public, "type": event_type}, private))

    def _events_from(self, n: int) -> Iterator[tuple[JSON, dict[int, JSON] | None]]:
        """(a copy of the public event, with its index ``"n"``; private parts by seat) for
        ``n, n+1, ...``."""
        offset = self._events_offset
        if n < offset:
            raise EngineError(f"events before {offset} are not in this state (saved without them)")
        for i in range(n - offset, len(self._events)):
            public, private = self._events[i]
            yield dict(public), private

    def events_since(self, n: int = 0, seat: int | None = None) -> list[JSON]:
        """Events ``n, n+1, ...`` as everyone saw them, each with its index ``"n"``; with
        ``seat``, that seat's private details are added under ``"private"``."""
        out = []
        for event, private in self._events_from(n):
            if seat is not None and private and seat in private:
                event["private"] = private[seat]
            out.append(event)
        return out

    def log_since(self, n: int = 0) -> list[JSON]:
        """Events ``n, n+1, ...`` for the record: public, with each seat's private details under
        ``"private"`` keyed by the seat as a string. For audits and replays, never for a seat.
        Public events are the state's own dicts, shared, not copied (the driver logs every move
        this way, and a batch of matches keeps its moves until it is stored): read them only."""
        offset = self._events_offset
        if n < offset:
            raise EngineError(f"events before {offset} are not in this state (saved without them)")
        # A loop, not a comprehension: the driver asks for one or two events a move, and a
        # comprehension's own frame costs more than that (Python 3.11).
        records = []
        for public, private in self._events[n - offset:]:
            records.append(public if not private else {
                **public, "private": {str(seat): detail for seat, detail in private.items()}})
        return records

    @property
    def event_count(self) -> int:
        return self._events_offset + len(self._events)

    def validate(self, seat: int, action: Any) -> Any:
        """Raise IllegalAction unless ``seat`` may take ``action`` now; return its parsed form."""
        if self.is_over:
            raise IllegalAction("the match is over")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.players:
            raise IllegalAction(f"no seat {seat!r} in this match")
        if seat not in self.to_act():
            raise IllegalAction(f"seat {seat} is not asked to act now (to act: {self.to_act()})")
        if not isinstance(action, dict):
            raise IllegalAction(f"an action must be an object, not {type(action).__name__}")
        try:
            return self._check(seat, action)
        except IllegalAction:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise IllegalAction(f"malformed action {action!r}: {exc!r}") from exc

    def apply(self, seat: int, action: Any) -> None:
        parsed = self.validate(seat, action)
        self._apply(seat, parsed)
        self.moves += 1
        if not self.is_over and self.moves >= self.game.move_cap(self.players, self.options):
            self.emit("move_cap", moves=self.moves)
            self._end_at_move_cap()

    def forfeit(self, seat: int, reason: str = "resigned") -> None:
        """Mark ``seat`` as forfeited: it is ranked after every other seat. The match goes on
        (the platform plays the seat's default actions); its score stays as the rules give it."""
        if seat not in self.forfeited:
            self.forfeited.append(seat)
            self.emit("forfeit", seat=seat, reason=reason)

    def result(self) -> JSON:
        """``{"scores": [...], "ranks": [...]}`` (G-4); also valid mid-match as a standing.
        Games with a finishing order the ranks do not imply add ``"order"``: every seat once,
        best first, forfeited seats last (as they rank)."""
        scores, keys = self._outcome()
        keys = [(seat in self.forfeited, key) for seat, key in enumerate(keys)]
        out: JSON = {"scores": scores, "ranks": competition_ranks(keys)}
        order = self._order()
        if order is not None:
            out["order"] = sorted(order, key=lambda seat: seat in self.forfeited)  # stable
        return out

    def view(self, seat: int | None) -> JSON:
        """What ``seat`` may know (``None``: a spectator), JSON-ready (G-3)."""
        to_act = self.to_act()
        out: JSON = {
            "game": self.game.id,
            "players": self.players,
            "seat": seat,
            "moves": self.moves,
            "to_act": to_act,
            "is_over": self.is_over,
        }
        if self.forfeited:
            out["forfeited"] = list(self.forfeited)
        out.update(self._view(seat))
        if self.is_over:
            out["result"] = self.result()
        return out

    def public_view(self) -> JSON:
        return self.view(None)

    def face_up_view(self, seat: int) -> JSON:
        """``seat``'s view with everything in front of it face up, the same shape as
        ``view(seat)``: for the replay of a match that is over (at any of its turns), where
        hiding is over too. Never what a seat or a spectator is sent while the match runs.
        In most games a seat already sees all it holds (the default: its view); a game where
        a seat's own cards can be hidden from it (Le Dutch's slots) shows them here."""
        return self._face_up(self.view(seat), seat)

    def _face_up(self, view: JSON, seat: int) -> JSON:
        """Hook of :meth:`face_up_view`: ``view`` (``seat``'s own) with what ``seat`` holds
        but does not see turned face up. Default: nothing is hidden from a seat's own place."""
        return view

    def to_json(self, events: bool = True) -> JSON:
        """The whole state as plain JSON. With ``events=False`` the event log is left out (only
        its length is kept), for callers that store events themselves; the loaded state then
        answers ``events_since(n)`` for ``n >= event_count`` only."""
        # Saved without the events' indices (the offset gives them back): as saved before.
        log = ([[{k: v for k, v in e.items() if k != "n"},
                 {str(k): v for k, v in p.items()} if p else None] for e, p in self._events]
               if events else [])
        return copy_data({
            "game": self.game.id,
            "format": FORMAT_VERSION,
            "players": self.players,
            "seed": self.seed,
            "options": self.options,
            "rng": self.rng.state,
            "moves": self.moves,
            "forfeited": self.forfeited,
            "events": log,
            "events_offset": self._events_offset if events else self.event_count,
            "state": self.dump(),
        })

    def clone(self, private_of: int | None | object = ALL_SEATS) -> State:
        """An exact, independent copy (faster than a JSON round trip, no invariant check).

        With ``private_of`` a seat (or ``None``), the copy's event log keeps only that seat's
        private details: what a determinization for that seat may carry (``resample``)."""
        new = type(self)(players=self.players, seed=self.seed, options=self.options)
        new.rng = Rng(state=self.rng.state)
        new.moves = self.moves
        new.forfeited = list(self.forfeited)
        new._events_offset = self._events_offset
        if private_of is ALL_SEATS:
            new._events = list(self._events)
        else:
            new._events = [(e, {private_of: p[private_of]} if p and private_of in p else None)
                           for e, p in self._events]
        new.load(copy_data(self.dump()))
        return new

    def copy(self) -> State:
        return self.clone()


# --------------------------------------------------------------------------------------------
# Reference bots
# --------------------------------------------------------------------------------------------


@dataclass
class Bot:
    """An in-process player. It decides from its seat's view and legal actions only, exactly
    what a webhook bot or polling client gets, so it can never cheat."""

    game: Game
    seat: int
    seed: int = 0
    rng: Rng = field(init=False)

    def __post_init__(self) -> None:
        self.rng = Rng(self.seed * 1_000_003 + self.seat)

    def choose(self, view: JSON, legal: Sequence[JSON]) -> JSON:
        raise NotImplementedError


class RandomBot(Bot):
    """Uniform over the legal actions."""

    def choose(self, view: JSON, legal: Sequence[JSON]) -> JSON:
        return legal[self.rng.below(len(legal))]
