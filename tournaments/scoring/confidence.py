"""How sure the standings are: percentile bootstrap over each participant's results. No Django.

The unit resampled is one match's points, or, for duplicate matches, a participant's mean
points over the matches of one deal, so the luck of the deal stays inside the unit.
Resampling uses :class:`random.Random`, whose ``random()`` sequence for a given seed Python
promises to keep, so the figures are reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from .standings import MatchResult, match_points


@dataclass(frozen=True)
class Certainty:
    """One standings row's uncertainty. Intervals are None before the participant has played."""

    participant: int
    mean: float | None
    low: float | None
    high: float | None
    #: Probability that this participant is really ahead of the next one in the order given
    #: (the share of bootstrap replicates where its mean beats the next one's, ties half).
    ahead_of_next: float | None


def result_units(results: Sequence[MatchResult], participants: int) -> list[list[float]]:
    """Per participant, the values to resample: a match's points, or a deal's mean points."""
    by_deal: list[dict[object, list[Fraction]]] = [{} for _ in range(participants)]
    for index, result in enumerate(results):
        unit = ("deal", result.deal) if result.deal is not None else ("match", index)
        for participant, value in zip(result.seats, match_points(result.ranks)):
            by_deal[participant].setdefault(unit, []).append(value)
    return [
        [float(sum(values) / len(values)) for values in units.values()] for units in by_deal
    ]


def bootstrap_means(units: Sequence[float], *, resamples: int, seed: str) -> list[float]:
    """The means of ``resamples`` resamples of ``units`` drawn with replacement, in draw order."""
    rng = random.Random(seed)
    size = len(units)
    return [sum(rng.choices(units, k=size)) / size for _ in range(resamples)]


def certainty(
    results: Sequence[MatchResult],
    order: Sequence[int],
    *,
    level: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> list[Certainty]:
    """For participants in standings ``order``: mean, percentile interval, P(ahead of next).

    The interval's ends are the replicates at ranks ``round(a * (resamples - 1))`` and
    ``round((1 - a) * (resamples - 1))`` of the sorted means, with ``a = (1 - level) / 2``.
    Each participant is resampled on its own (seeded by ``seed`` and its index, so adding a
    participant changes nobody else's figures); P(ahead) pairs replicate i of one with
    replicate i of the next, an unpaired bootstrap of the difference of means, since two
    participants of a multi-seat schedule share few matches.
    """
    if not 0 < level < 1:
        raise ValueError(f"a confidence level is between 0 and 1, not {level}")
    participants = max(order, default=-1) + 1
    units = result_units(results, participants)
    tail = (1 - level) / 2
    replicates = {
        participant: bootstrap_means(
            units[participant], resamples=resamples, seed=f"bootstrap {seed} {participant}"
        )
        for participant in order
        if units[participant]
    }
    rows = []
    for position, participant in enumerate(order):
        values = units[participant]
        if not values:
            rows.append(Certainty(participant, None, None, None, None))
            continue
        sorted_means = sorted(replicates[participant])
        following = order[position + 1] if position + 1 < len(order) else None
        rows.append(
            Certainty(
                participant=participant,
                mean=sum(values) / len(values),
                low=sorted_means[round(tail * (resamples - 1))],
                high=sorted_means[round((1 - tail) * (resamples - 1))],
                ahead_of_next=(
                    _share_ahead(replicates[participant], replicates[following])
                    if following in replicates
                    else None
                ),
            )
        )
    return rows


def _share_ahead(upper: Sequence[float], lower: Sequence[float]) -> float:
    wins = sum((u > v) + 0.5 * (u == v) for u, v in zip(upper, lower))
    return wins / len(upper)
