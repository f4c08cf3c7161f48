"""What every series format is: a small pure interface, the shape of what it plans and scores,
and the registry the runner finds formats in. No Django.

A format is a pairing system in lila's sense: given the outcomes so far it says which matches
may be played now (each with a key unique in its series, its seats, seed and options), how a
played or forfeited match scores, and whether the series is over. It never touches the
database; ``tournaments.runner.kinds`` (the one runner) stores what it plans, plays it as ordinary
games matches and feeds the outcomes back. ``docs/series.md`` has the policies.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any, ClassVar


@dataclass(frozen=True)
class PlannedMatch:
    """One match a format wants played. ``seats[i]`` is the entrant (an int id) at seat i."""

    #: Unique in its series: planning again returns the same key, so a racing worker's insert
    #: of it is a no-op.
    key: str
    seats: tuple[int, ...]
    seed: int
    round: int = 0
    #: Its place in the series' play order (tournaments), or its hand number (league tables).
    number: int = 0
    table: int = 0
    #: Matches with one deal share their seed (duplicate deals).
    deal: int = 0
    #: Engine options of this match over the series' own.
    options: Mapping[str, Any] = field(default_factory=dict)
    #: Entrants seated forfeited from the start (they play default actions, ranked last).
    forfeited: tuple[int, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """How one match of a series ended, by seat, as the format scored it."""

    key: str
    seats: tuple[int, ...]
    #: Places by seat, 1 = best; forfeiters share the last place (:func:`places_with_forfeits`).
    places: tuple[int, ...]
    #: The engine's scores by seat; None for a match not played (a withdrawn entrant).
    scores: tuple[float, ...] | None
    #: Entrants scored as forfeits in it.
    forfeited: frozenset[int] = frozenset()
    #: Series points by seat where the format keeps its own (league points), else None.
    points: tuple[int, ...] | None = None
    #: Entrants best first: the table's order for its next match (league hands).
    order: tuple[int, ...] | None = None
    #: The round it was planned in (a Swiss pairs the next round from the stored ones).
    round: int = 0


class SeriesState:
    """What a format sees when the runner asks it what to start: counts at once, the matches
    themselves read only if asked (a round robin of thousands needs the counts alone; a ladder
    reads what is in flight). ``now`` is the runner's clock; ``withdrawn`` the entrants out of
    the series by the withdrawal rule (``withdrawn_after``), which the runner applies."""

    def __init__(self, *, now: datetime, finished: int, open: int,
                 withdrawn: Collection[int] = (),
                 outcomes: Callable[[], Mapping[str, Outcome]] = dict,
                 running: Callable[[], Mapping[str, PlannedMatch]] = dict) -> None:
        self.now, self.finished, self.open = now, finished, open
        self.withdrawn = frozenset(withdrawn)
        self._outcomes, self._running = outcomes, running

    @cached_property
    def outcomes(self) -> Mapping[str, Outcome]:
        """Every finished match, by key."""
        return self._outcomes()

    @cached_property
    def running(self) -> Mapping[str, PlannedMatch]:
        """Every match planned and not finished (waiting to start, or in play), by key."""
        return self._running()


@dataclass(frozen=True)
class Plan:
    """A format's answer: the matches to start now (keys it never planned before: a key
    planned twice is stored once, so two workers asking at once start it once), and whether
    the series is over (nothing in flight and nothing more to start)."""

    start: Sequence[PlannedMatch] = ()
    over: bool = False


class Format(ABC):
    """A series format. Instances are cheap and rebuilt from their stored parameters each time
    the runner asks; the same parameters and outcomes always give the same plan."""

    #: Its registry name (``Tournament.format``, ``docs/series.md``).
    name: ClassVar[str]

    #: A withdrawn entrant's matches are played with its seat forfeited (default actions, last
    #: place: a league table goes on) rather than scored unplayed (a tournament's pairing).
    plays_withdrawn: ClassVar[bool] = False

    def next(self, state: SeriesState) -> Plan:
        """What the runner asks, after the series starts and after each match ends: the
        matches to start now, given the finished ones, those in flight and the time. By
        default: what :meth:`plan` gives that is not planned yet, once nothing is in flight
        for a format that plans round by round. A format that starts matches while others
        run, or stops at a time (a ladder), overrides this."""
        if state.open and not self.plans_ahead:
            return Plan()
        planned = [m for m in self.plan(state.outcomes) if m.key not in state.running]
        return Plan(planned, over=not planned and not state.open
                    and self.is_over(state.outcomes))

    #: :meth:`plan` may be asked while matches are in flight (it returns them again).
    plans_ahead: ClassVar[bool] = True

    #: A key means one match whoever asks and whenever (a schedule fixed up front, a round
    #: paired from finished rounds): two workers may plan at once, each storing the same rows.
    #: False for a format that plans from what is in flight and the time (continuous, ladder):
    #: two asking at different moments would store different matches under one key, so the
    #: runner asks it only under the series row's lock.
    keys_fixed: ClassVar[bool] = True

    @abstractmethod
    def plan(self, outcomes: Mapping[str, Outcome]) -> list[PlannedMatch]:
        """The matches that may be played now, given every outcome so far (keyed by match
        key). Matches planned before are returned again until done; the runner inserts those
        it does not have yet."""

    @abstractmethod
    def is_over(self, outcomes: Mapping[str, Outcome]) -> bool:
        """Nothing is left to plan or play."""

    @abstractmethod
    def match_count(self) -> int | None:
        """How many matches the whole series plays (for progress: a format that plans as it
        goes knows it before it has planned them); None if it has no fixed total (a ladder
        that plays until a time)."""

    def score(self, match: PlannedMatch, result: Mapping[str, Any] | None,
              forfeited: Collection[int] = ()) -> Outcome:
        """A played match from the engine's ``result()`` (``ranks`` and ``scores`` by seat),
        or, with ``result`` None, a match not played because the entrants in ``forfeited``
        withdrew. Forfeiters always rank last."""
        out = frozenset(forfeited) & frozenset(match.seats)
        out_seats = {seat for seat, entrant in enumerate(match.seats) if entrant in out}
        if result is None:
            if not out:
                raise ValueError("a match not played needs a forfeiting entrant at the table")
            ranks: Sequence[int] = [1] * len(match.seats)
            scores = None
        else:
            ranks, scores = result["ranks"], tuple(result["scores"])
        return Outcome(match.key, match.seats, places_with_forfeits(ranks, out_seats), scores,
                       out)


def places_with_forfeits(ranks: Sequence[int], forfeited_seats: Collection[int]) -> tuple[int, ...]:
    """Places by seat: the seats that did not forfeit in competition order of ``ranks`` among
    themselves (ties share, 1 = best); every forfeited seat shares the last place, ``n``, so a
    forfeit never ranks first, also when every seat forfeited."""
    n = len(ranks)
    playing = [seat for seat in range(n) if seat not in forfeited_seats]
    return tuple(n if seat in forfeited_seats else
                 1 + sum(1 for other in playing if ranks[other] < ranks[seat])
                 for seat in range(n))


def withdrawn_after(forfeits: Sequence[bool], limit: int) -> bool:
    """The withdrawal rule of every series (docs/series.md): an entrant whose seat forfeited
    each of its last ``limit`` matches (``forfeits``: its matches in the series so far, newest
    first; ``limit`` 0 = never) is withdrawn, and its matches not started yet are forfeited."""
    return limit > 0 and len(forfeits) >= limit and all(forfeits[:limit])




# --------------------------------------------------------------------------------------------
# The registry
# --------------------------------------------------------------------------------------------

_FORMATS: dict[str, Callable[..., Format]] = {}


def register(cls: type[Format]) -> type[Format]:
    """Class decorator: the format is found by its ``name``."""
    if cls.name in _FORMATS:
        raise ValueError(f"format {cls.name!r} is registered twice")
    _FORMATS[cls.name] = cls
    return cls


def get_format(name: str, **parameters: Any) -> Format:
    """The format called ``name`` built from ``parameters``; ``KeyError`` if unknown,
    ``ValueError`` with the reason if the parameters cannot make it."""
    try:
        factory = _FORMATS[name]
    except KeyError:
        raise KeyError(f"unknown format {name!r} (known: {', '.join(format_names())})") from None
    return factory(**parameters)


def format_names() -> list[str]:
    return sorted(_FORMATS)
