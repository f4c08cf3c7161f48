"""``manage.py ladder``: reference bots put on a game's ladder play there (the tasks run in this
process, as a worker runs them), the standings print, a bot taken off plays no more."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from tournaments.models import Ladder, LadderEntry, LadderMatch

pytestmark = pytest.mark.django_db(transaction=True)


def ladder(*args: str) -> str:
    out = io.StringIO()
    call_command("ladder", *args, stdout=out)
    return out.getvalue()


def test_reference_bots_join_play_show_and_leave(inline_tasks: Any, settings: Any) -> None:
    settings.LADDER_PAIR_CAP_PER_DAY = 3
    out = ladder("join", "dot", "--reference", "heuristic", "--reference", "random")
    assert out.splitlines()[0].startswith("reference heuristic: on the ladder (entry ")
    dot = Ladder.objects.get(game="dot")
    played = LadderMatch.objects.filter(ladder=dot, status="finished")
    assert played.count() == 3, "the pair's cap for the day, played at once"
    shown = ladder("show", "dot")
    assert shown.splitlines()[0] == "dot ladder: 2 bots, 3 matches played, 0 in flight"
    assert "   1. " in shown and "   2. " in shown and "3 matches" in shown
    assert "ahead of next" in shown.splitlines()[1]
    assert ladder("join", "dot", "--reference", "random") == (
        f"reference random: on it already (entry "
        f"{LadderEntry.objects.get(bot='random').pk})\n")
    ladder("leave", "dot", "--reference", "random")
    assert LadderEntry.objects.get(bot="random").left_at is not None
    assert ladder("show", "dot").splitlines()[0].startswith("dot ladder: 1 bot,")


def test_it_says_what_is_wrong() -> None:
    with pytest.raises(CommandError, match="name a bot"):
        ladder("join", "dot")
    with pytest.raises(CommandError, match="bad_ladder_entry: no reference bot 'nobody'"):
        ladder("join", "dot", "--reference", "nobody")
    assert not Ladder.objects.exists(), "a refused join makes no ladder"
    with pytest.raises(CommandError, match="not_on_ladder"):
        ladder("leave", "dot", "--reference", "random")
    with pytest.raises(CommandError, match="game_not_found"):
        ladder("show", "chess")
