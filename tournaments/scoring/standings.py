"""Points, tie-breaks and forfeits: from match results to a table of places. No Django.

Points are exact fractions so that equal results compare equal (``1/3 + 2/3 == 1``); the
rules are in ``docs/tournaments.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction


@dataclass(frozen=True)
class MatchResult:
    """One match's outcome, by seat, as the engine's ``result()`` gives it.

    ``ranks`` are competition ranks (1 = best; ties share a rank and skip the next ones).
    Matches with the same ``deal`` were dealt from the same seed (duplicate matches).
    ``scores`` is None for a match that was not played because of a forfeit.
    """

    seats: tuple[int, ...]
    ranks: tuple[int, ...]
    scores: tuple[float, ...] | None
    deal: int | None = None
    forfeited: frozenset[int] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        if not len(self.seats) == len(self.ranks) >= 2:
            raise ValueError("a result needs a rank for each of two or more seats")
        if self.scores is not None and len(self.scores) != len(self.seats):
            raise ValueError("a result needs a score for each seat")
        if len(set(self.seats)) != len(self.seats):
            raise ValueError("a participant sits at most once at a table")


def forfeit_result(
    seats: Sequence[int], withdrawn: Collection[int], *, deal: int | None = None
) -> MatchResult:
    """The result of a match not played because some of its participants withdrew.

    The withdrawn are ranked last (tied with each other); the others share first place, so in
    a two-seat match the opponent wins. Nobody gets a score: the match was not played.
    """
    forfeiting = frozenset(seats) & frozenset(withdrawn)
    if not forfeiting:
        raise ValueError("a forfeit needs a withdrawn participant at the table")
    present = len(seats) - len(forfeiting)
    ranks = tuple(present + 1 if p in forfeiting else 1 for p in seats)
    return MatchResult(tuple(seats), ranks, None, deal, forfeiting)


def match_points(ranks: Sequence[int]) -> list[Fraction]:
    """Per seat, ``(n - place) / (n - 1)`` for places 1..n, averaged over a tie's places.

    So a table's points always sum to ``n / 2``, first gets 1 and last 0 whatever the table
    size, and two tied for first at a table of 4 get ``(1 + 2/3) / 2 = 5/6`` each.
    """
    n = len(ranks)
    points = []
    for rank in ranks:
        tied = sum(1 for other in ranks if other == rank)
        places = range(rank, rank + tied)  # competition ranks: a tie at rank r spans r..r+t-1
        # Forfeiters share the last place (formats.places_with_forfeits): never below 0.
        points.append(Fraction(sum(max(n - place, 0) for place in places), (n - 1) * tied))
    return points


@dataclass(frozen=True)
class StandingRow:
    """One participant's line in the standings; means are over its matches."""

    place: int
    participant: int
    matches: int
    #: Mean points a match (0..1); None before the participant has played.
    points: float | None
    #: Mean engine score over the matches actually played; None if none was.
    score: float | None
    #: Within its tie on points and score: won minus lost against the tied, in shared matches.
    head_to_head: int
    #: Matches it ranked first in, ties included.
    firsts: int
    #: Matches scored as its forfeit (ranked last, not played).
    forfeits: int
    withdrawn: bool
    #: Swiss only (else None): match points in all, a bye counting as a win.
    total: float | None = None
    #: Swiss only: the sum of its opponents' totals, a bye an opponent with none.
    buchholz: float | None = None
    #: Swiss only: ``buchholz`` less its lowest opponent (FIDE's Buchholz Cut-1).
    buchholz_cut1: float | None = None


def standings(
    results: Sequence[MatchResult], participants: int, *, withdrawn: Collection[int] = (),
    byes: Sequence[int] | None = None,
) -> list[StandingRow]:
    """Order participants by mean points, then mean score, head-to-head, firsts, index.

    Head-to-head only counts among those still tied on points and score: for each shared
    match, +1 per tied opponent ranked below, -1 per one ranked above. The last tie-break, the
    participant index (registration order), makes places unique and the order reproducible.

    A Swiss (``byes``: each one's byes) orders by FIDE's rules instead: total points (a bye
    a win), Buchholz Cut-1, Buchholz, direct encounter (head-to-head among those tied on all
    three), then mean score, firsts and index as above: a Swiss entrant's matches are not
    all against the same field, and a withdrawn one's mean would count only its first rounds.
    """
    matches = [0] * participants
    points = [Fraction(0)] * participants
    scored = [0] * participants
    score = [Fraction(0)] * participants
    firsts = [0] * participants
    forfeits = [0] * participants
    for result in results:
        for seat, (participant, value) in enumerate(zip(result.seats, match_points(result.ranks))):
            matches[participant] += 1
            points[participant] += value
            firsts[participant] += result.ranks[seat] == 1
            forfeits[participant] += participant in result.forfeited
            if result.scores is not None:
                scored[participant] += 1
                score[participant] += Fraction(result.scores[seat])
    mean_points = [points[p] / matches[p] if matches[p] else None for p in range(participants)]
    mean_score = [score[p] / scored[p] if scored[p] else None for p in range(participants)]

    def by_score(p: int) -> tuple[bool, Fraction]:
        return mean_score[p] is not None, mean_score[p] or Fraction(0)

    swiss = None if byes is None else _buchholz(results, points, byes)

    def level(p: int) -> tuple[bool | Fraction, ...]:
        """What a tie is made of: the same mean points and mean score (None lowest); in a
        Swiss, the same total, Buchholz Cut-1 and Buchholz."""
        if swiss is not None:
            total, buchholz, cut1 = swiss
            return total[p], cut1[p], buchholz[p]
        return (mean_points[p] is not None, mean_points[p] or Fraction(0), *by_score(p))

    head_to_head = [0] * participants
    for tied in _groups_by(range(participants), level):
        if len(tied) > 1:
            for p, balance in _head_to_head(results, set(tied)).items():
                head_to_head[p] = balance
    order = sorted(
        range(participants),
        key=lambda p: (level(p), head_to_head[p], by_score(p), firsts[p], -p),
        reverse=True,
    )
    withdrawn_set = set(withdrawn)
    return [
        StandingRow(
            place=place,
            participant=p,
            matches=matches[p],
            points=None if mean_points[p] is None else float(mean_points[p]),
            score=None if mean_score[p] is None else float(mean_score[p]),
            head_to_head=head_to_head[p],
            firsts=firsts[p],
            forfeits=forfeits[p],
            withdrawn=p in withdrawn_set,
            **({} if swiss is None else {"total": float(swiss[0][p]),
                                         "buchholz": float(swiss[1][p]),
                                         "buchholz_cut1": float(swiss[2][p])}),
        )
        for place, p in enumerate(order, start=1)
    ]


def _buchholz(results: Sequence[MatchResult], points: Sequence[Fraction], byes: Sequence[int]
              ) -> tuple[list[Fraction], list[Fraction], list[Fraction]]:
    """Each one's total (match points and byes), Buchholz (its opponents' totals, a bye an
    opponent with none) and Buchholz Cut-1 (less the lowest of them)."""
    total = [points[p] + byes[p] for p in range(len(points))]
    opponents: list[list[Fraction]] = [[Fraction(0)] * had for had in byes]
    for result in results:
        for p in result.seats:
            opponents[p] += [total[q] for q in result.seats if q != p]
    buchholz = [sum(met, Fraction(0)) for met in opponents]
    return total, buchholz, [b - min(met, default=0) for b, met in zip(buchholz, opponents)]


def _groups_by(items: Iterable[int], key: Callable[[int], Hashable]) -> list[list[int]]:
    groups: dict[Hashable, list[int]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return list(groups.values())


def _head_to_head(results: Sequence[MatchResult], tied: set[int]) -> dict[int, int]:
    balance = dict.fromkeys(tied, 0)
    for result in results:
        rank_of = {p: r for p, r in zip(result.seats, result.ranks) if p in tied}
        for p, rank in rank_of.items():
            balance[p] += sum((other > rank) - (other < rank) for other in rank_of.values())
    return balance
