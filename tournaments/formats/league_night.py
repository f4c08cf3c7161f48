"""A league night: the league's tables each play ``hands`` hands, one match a hand, the next
hand of a table planned when its last one is done (its seating and options from the hand
before, ``rules.hand_plan``), scored in league points (``rules.hand_outcome``).
Every hand is played (``plays_withdrawn``): a member the runner withdrew (the rule of every
series) stays seated, forfeited, in each later hand. No Django; the rules are in
docs/leagues.md and docs/series.md."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from games.engine import get_game
from games.engine.rng import deal_seed

from ..leagues import rules
from .base import Format, Outcome, PlannedMatch, register


def hand_key(table: int, number: int) -> str:
    return f"{table}:{number}"


@register
class LeagueNight(Format):
    name = "league_night"
    plays_withdrawn = True

    def __init__(self, *, game: str, tables: Sequence[Sequence[int]], hands: int, secret: str,
                 options: Mapping[str, Any] | None = None, ordered: bool = False,
                 first_of_season: bool = False, left: Collection[int] = ()) -> None:
        """``tables``: member ids per table, best first, as the night was seated; ``secret``:
        the night's deal secret (every hand's deal is keyed by it, ``rng.deal_seed``, by its
        table and number); ``ordered``: the league has a social order already; ``left``: members who left
        the league since (removed between hands while the table can still be played; else
        seated forfeited, as the runner seats whoever is out)."""
        self.game, self.tables, self.hands = game, [list(t) for t in tables], hands
        self.secret, self.options = secret, dict(options or {})
        self.ordered, self.first_of_season, self.left = ordered, first_of_season, set(left)
        self.engine = get_game(game)

    def plan(self, outcomes: Mapping[str, Outcome]) -> list[PlannedMatch]:
        return self.plan_tables(outcomes, range(len(self.tables)))

    def plan_tables(self, outcomes: Mapping[str, Outcome],
                    tables: Iterable[int]) -> list[PlannedMatch]:
        """:meth:`plan` for these tables only (a worker advances a group of tables; the
        outcomes of the others need not be given)."""
        planned = []
        for table in tables:
            done = self._hands_done(outcomes, table)
            if done >= self.hands:
                continue
            number = done + 1
            order = self.tables[table]
            if done and self.engine.order_carries_over:  # GD-2: the social order
                order = list(outcomes[hand_key(table, done)].order or order)
            staying = rules.without_leavers(order, self.left)
            if len(staying) >= self.engine.min_players:
                order = staying  # else the leaver stays seated, forfeited
            plan = rules.hand_plan(
                self.game, order, hand_number=number, options=self.options,
                ordered=self.ordered or number > 1,
                first_of_season=self.first_of_season and number == 1)
            planned.append(PlannedMatch(
                key=hand_key(table, number), seats=tuple(plan.seats), number=number,
                table=table, round=number - 1, options=plan.options,
                seed=deal_seed(self.secret, table, number)))
        return planned

    def _hands_done(self, outcomes: Mapping[str, Outcome], table: int) -> int:
        done = 0
        while done < self.hands and hand_key(table, done + 1) in outcomes:
            done += 1
        return done

    def match_count(self) -> int:
        return self.hands * len(self.tables)

    def is_over(self, outcomes: Mapping[str, Outcome]) -> bool:
        return all(self._hands_done(outcomes, table) >= self.hands
                   for table in range(len(self.tables)))

    def score(self, match: PlannedMatch, result: Mapping[str, Any] | None,
              forfeited: Collection[int] = ()) -> Outcome:
        if result is None:
            raise ValueError("every league hand is played (forfeiters seated forfeited)")
        plan = rules.HandPlan(seats=tuple(match.seats), options=dict(match.options))
        hand = rules.hand_outcome(self.game, plan, result, forfeited=forfeited)
        return Outcome(
            match.key, match.seats, tuple(hand.finish[m] for m in match.seats),
            tuple(result["scores"]), frozenset(forfeited) & frozenset(match.seats),
            points=tuple(hand.points[m] for m in match.seats), order=tuple(hand.order))
