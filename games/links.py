"""What a match is part of (a tournament, a league night), as its pages link it.

``games`` never imports the apps that run series of matches: each registers, from its
``AppConfig.ready()``, how to name and link the matches it created (``Match.series`` says
which app did), one query for many matches::

    register_series_links("tournament", tournament_match_links)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class SeriesLink:
    """"Friday cup, round 2, match 5" and the page it links to."""

    text: str
    url: str


#: Given match ids (all of the series), a link for each found.
SeriesLinks = Callable[[Sequence[int]], dict[int, SeriesLink]]

_LINKS: dict[str, SeriesLinks] = {}


def register_series_links(series: str, links: SeriesLinks) -> None:
    """Link the matches whose ``series`` is ``series``; registering again replaces it."""
    _LINKS[series] = links


def series_links(matches: Iterable[Any]) -> dict[int, SeriesLink]:
    """The link of each match that is part of a series whose app registered links: one call
    (one query) per series, however many matches."""
    by_series: dict[str, list[int]] = {}
    for match in matches:
        if match.series in _LINKS:
            by_series.setdefault(match.series, []).append(match.pk)
    found: dict[int, SeriesLink] = {}
    for series, ids in by_series.items():
        found.update(_LINKS[series](ids))
    return found


#: Given a signed-in person, the series they take part in or organise that are not over.
PersonSeries = Callable[[Any], list[SeriesLink]]
_PERSON_SERIES: dict[str, PersonSeries] = {}


def register_person_series(name: str, of_person: PersonSeries) -> None:
    """List a person's series of one app on their page (``/me/``); again replaces it."""
    _PERSON_SERIES[name] = of_person


def series_of(user: Any) -> list[SeriesLink]:
    """Every registered app's series ``user`` takes part in or organises, not over."""
    return [link for of_person in _PERSON_SERIES.values() for link in of_person(user)]


#: Given a seat kind and bot (as a seat names it: "webhook", "7"), its rating after each of
#: its rated matches, oldest first, by game.
RatingHistory = Callable[[str, str], dict[str, list[tuple[datetime, float]]]]
_RATING_HISTORY: dict[str, RatingHistory] = {}


def register_rating_history(name: str, history: RatingHistory) -> None:
    """Show an app's ratings of a bot over time on the bot's page; again replaces it."""
    _RATING_HISTORY[name] = history


def rating_history(kind: str, bot: str) -> dict[str, list[tuple[datetime, float]]]:
    """Every registered app's ratings of the bot over time, by game."""
    found: dict[str, list[tuple[datetime, float]]] = {}
    for history in _RATING_HISTORY.values():
        for game, points in history(kind, bot).items():
            found.setdefault(game, []).extend(points)
    return found


@dataclass(frozen=True)
class BotStanding:
    """Where a bot stands in an app's always-on series (a game's ladder), for its page."""

    text: str
    url: str
    #: For its owner only ("" for others): why it is paused and what to do.
    note: str = ""
    #: For its owner only: the POST URL and button of a form that puts it on or takes it off.
    action_url: str = ""
    action_label: str = ""


#: Given a seat kind and bot (as a seat names it), the games it plays and whether the one who
#: looks owns it: where it stands.
BotStandings = Callable[[str, str, Sequence[str], bool], list[BotStanding]]
_BOT_STANDINGS: dict[str, BotStandings] = {}


def register_bot_standings(name: str, standings: BotStandings) -> None:
    """Show where a bot stands in an app's series on the bot's page; again replaces it."""
    _BOT_STANDINGS[name] = standings


def bot_standings(kind: str, bot: str, games: Sequence[str], owner: bool) -> list[BotStanding]:
    """Every registered app's standings of the bot."""
    return [found for standings in _BOT_STANDINGS.values()
            for found in standings(kind, bot, games, owner)]


#: Given series runs (a bot version's provisional runs), each with the bot (seat kind, bot)
#: it tries a version of, what each found says of them (its comparison), by id.
RunComparisons = Callable[[Mapping[int, tuple[str, str]]], dict[int, dict[str, Any]]]
_RUN_COMPARISONS: list[RunComparisons] = []


def register_run_comparisons(comparisons: RunComparisons) -> None:
    """Read a bot version's provisional runs for the bot's page (the app that plays them);
    registering again replaces it."""
    _RUN_COMPARISONS[:] = [comparisons]


def run_comparisons(runs: Mapping[int, tuple[str, str]]) -> dict[int, dict[str, Any]]:
    """Each run's comparison (``runs``: run id -> the bot it tries a version of, as seats name
    it), if an app that plays them is installed (else none)."""
    return _RUN_COMPARISONS[0](runs) if _RUN_COMPARISONS and runs else {}


__all__ = ["BotStanding", "SeriesLink", "bot_standings", "rating_history",
           "register_bot_standings", "register_person_series", "register_rating_history",
           "register_run_comparisons", "register_series_links", "run_comparisons",
           "series_links", "series_of"]
