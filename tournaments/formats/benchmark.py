"""The benchmark format: two challengers (entrants 0 and 1: a bot version's candidate and the
bot as it plays now) each play one fixed field (entrants 2, 3, ...) on the same deals, seat for
seat, so the difference between the two is paired and the deals' luck cancels. No Django.

Each meeting seats each challenger at a table with ``seats - 1`` of the field (the field's
order shifted one per table, so every field entrant sits at as many tables), and each table's
deal is played once per seat rotation (duplicate deals: ``scheduling.scheduled_matches``); the
second challenger's match of a place is the first's with the challenger swapped, on the same
seed, planned right after it (a run stopped half way still compares like with like).

With ``challengers=1`` the first plays the field alone: an in-place version (a redeploy at the
bot's own URL), whose old code no longer answers, so nothing can be played beside it; its
comparison is with the bot's ladder rating instead.
"""

from __future__ import annotations

from .. import scheduling
from .base import PlannedMatch, register
from .round_robin import _Scheduled

#: The challengers' entrant ids (the first ``challengers`` of them play); the field is every
#: entrant after those that play.
CHALLENGERS = (0, 1)


@register
class Benchmark(_Scheduled):
    name = "benchmark"

    def __init__(self, *, participants: int, seats: int, secret: str, meetings: int = 1,
                 challengers: int = len(CHALLENGERS)) -> None:
        if not 1 <= challengers <= len(CHALLENGERS):
            raise ValueError(f"a benchmark has 1 or {len(CHALLENGERS)} challengers, "
                             f"not {challengers}")
        playing = CHALLENGERS[:challengers]
        field = participants - challengers
        if field < seats - 1 or field < 1:
            raise ValueError(f"a benchmark of tables of {seats} needs at least {max(1, seats - 1)} "
                             f"benchmark entrants beside the {challengers} challenger(s), "
                             f"not {field}")
        first = playing[0]
        tables = [(first, *(challengers + (j + i) % field for i in range(seats - 1)))
                  for j in range(field)]
        self.schedule = [tables] * meetings
        self.matches = []
        for match in scheduling.scheduled_matches(self.schedule, secret=secret, duplicate=True):
            for challenger in playing:
                seated = tuple(challenger if s == first else s for s in match.seats)
                self.matches.append(PlannedMatch(
                    key=str(len(self.matches)), seats=seated, seed=match.seed,
                    round=match.round, number=len(self.matches), deal=match.deal))
