"""Pages of the games: each game's rules as implemented, rendered from docs/rules/<game>.md;
a match's replay and the match lists; playing a seat in the browser. People's own pages (sign
up, sign in, their account) are in ``games.account_pages``.

Markdown is rendered by markdown-it-py with raw HTML escaped, so a rules file can never put
markup or scripts into the page.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

from . import selectors
from .action_builder import builder
from .drawings import draw_face_up, draw_view
from .drawings.words import action_fields, action_hint, action_label, entry_text
from .engine import game_ids, get_game
from .errors import MatchNotFound
from .links import series_links
from .models import Match
from .names import distinct_labels, seat_labels, seat_labels_of, seated
from .numbering import seat_number


def game_cards() -> list[dict[str, Any]]:
    """Id, name and player counts of every game, in the engine's order."""
    return [{"id": game.id, "name": game.name, "min_players": game.min_players,
             "max_players": game.max_players} for game in map(get_game, game_ids())]


#: Developers' notes in a rules file (code paths, engine internals), between these marks:
#: the file reads whole in the repository, the public page drops them.
DEVELOPERS_ONLY = re.compile(r"<!-- developers -->.*?<!-- /developers -->\n?", re.DOTALL)


@cache
def rules_html(game: str) -> SafeString:
    """The game's rules page as HTML (read once per process: the file ships with the code),
    without its developers' notes (``DEVELOPERS_ONLY``)."""
    text = (settings.RULES_DIR / f"{game}.md").read_text(encoding="utf-8")
    text = DEVELOPERS_ONLY.sub("", text)
    renderer = MarkdownIt("commonmark", {"html": False}).enable("table")
    return mark_safe(renderer.render(text))  # raw HTML in the source is escaped


def rules(request: HttpRequest, game: str) -> HttpResponse:
    if game not in game_ids():
        raise Http404("no such game")
    engine = get_game(game)
    return render(request, "games/rules.html", {"game": engine, "rules": rules_html(game)})


def match_page(request: HttpRequest, match_id: int) -> HttpResponse:
    """The replay viewer: the table after log entry ``?turn=N`` (default: now), stepped by
    buttons, keys, the move list and deep links, and following a running match live
    (replay.js long-polls the public view API; ``?partial=1`` is the frame it swaps in,
    ``?partial=moves`` the move list). While a match is not disclosed (running, or a sealed
    duplicate deal) it shows only what a spectator saw at each turn (the public view, no
    action, which may be a sealed choice); once over, one table with every hand face up (each
    seat's place from its own view), each seat's own view folded under it, and every
    action. ``?turn=N`` is a turn's shareable link; the scrubber and steps keep it."""
    try:
        match = selectors.match_get(match_id=match_id)
    except MatchNotFound:
        raise Http404("no such match") from None
    # Each seat's place in a drawing says its number; every sentence names its seat by a
    # label of its own (two copies of one reference bot are told apart).
    labels = _seat_names(match)
    names = distinct_labels(labels)
    disclosed = match.disclosed
    context: dict[str, Any] = {
        "match": match, "seats": names, "last": match.version,
        "seated": seated(sorted(match.seats.all(), key=lambda s: s.number), names),
        "part_of": series_links([match]).get(match.pk),
        "ranks": list(zip(names, match.result["ranks"])) if disclosed and match.result else [],
    }
    if disclosed and match.result and match.status == Match.Status.FINISHED:
        seats = sorted(match.seats.all(), key=lambda s: s.number)
        context["result"] = result_sentence(
            names, match.result["ranks"], forfeited=[s.number for s in seats if s.forfeited],
            yours=[s.number for s in seats if request.user.is_authenticated
                   and s.user_id == request.user.pk])
    if match.sealed:
        return render(request, "games/match.html", context)
    partial = request.GET.get("partial")
    if partial == "moves":  # ?since=N: only the entries from N (the live page appends them)
        since = request.GET.get("since", "")
        return render(request, "games/_moves.html", {
            "moves": _moves(match, names, disclosed, int(since) if since.isdigit() else 0),
            "items_only": since.isdigit()})
    try:
        turn = min(max(int(request.GET.get("turn", match.version)), 0), match.version)
    except ValueError:
        turn = match.version
    state, entries = selectors.match_state_at(match=match, turn=turn)
    entry = entries[-1] if entries else None
    public = state.public_view()
    # Every seat's view only once the match is disclosed (over and not a sealed deal): while
    # it runs, a spectator's view alone, so no hidden card reaches the page.
    views = [state.view(seat) for seat in range(match.players)] if disclosed else []
    # The face-up table: each seat's place with all it holds, even a card it never saw (a
    # Le Dutch slot), since the match is over; each seat's own view stays as it saw it.
    face_up = [state.face_up_view(seat) for seat in range(match.players)] if disclosed else []
    context.update({
        "turn": turn, "disclosed": disclosed,
        "caption": entry_text(match.game, entry.kind, entry.seat,
                              entry.action if disclosed else None, names) if entry else "",
        "to_act": [names[seat] for seat in state.to_act()],
        "public": draw_view(match.game, public, match.players, labels),
        "face_up": draw_face_up(match.game, public, face_up, match.players, labels)
        if disclosed else None,
        "views": [(seat_number(seat), labels[seat],
                   draw_view(match.game, view, match.players, labels))
                  for seat, view in enumerate(views)],
        "previous": max(turn - 1, 0), "next": min(turn + 1, match.version),
    })
    if partial:
        return render(request, "games/_frame.html", context)
    context["moves"] = _moves(match, names, disclosed)
    return render(request, "games/match.html", context)


def _moves(match: Match, names: Sequence[str], disclosed: bool, since: int = 0
           ) -> list[dict[str, Any]]:
    """The log entries from ``since`` in words, for the move list (actions only once
    disclosed)."""
    return [{"turn": e.n, "text": entry_text(match.game, e.kind, e.seat,
                                             e.action if disclosed else None, names)}
            for e in selectors.match_entries(match=match, since=since)]


#: Rows per page of the match lists.
MATCHES_PER_PAGE = 25


def match_rows(matches: Iterable[Match]) -> list[dict[str, Any]]:
    """Matches as the lists show them: each seat named (one ``seat_labels`` call for them
    all: no query per match once the seats are prefetched), what it is part of (a tournament,
    a league night: ``games.links``) and its winners once disclosed."""
    matches = list(matches)
    seats = [sorted(m.seats.all(), key=lambda s: s.number) for m in matches]
    links = series_links(matches)
    rows = []
    for match, sat, names in zip(matches, seats, seat_labels_of(seats)):
        ranks = match.result.get("ranks") if match.disclosed and match.result else None
        rows.append({"match": match, "seats": names, "seated": seated(sat, names),
                     "part_of": links.get(match.pk),
                     "winners": [n for n, r in zip(names, ranks) if r == 1] if ranks else []})
    return rows


def match_list_page(request: HttpRequest) -> HttpResponse:
    """Every match, live and recent, newest first: filtered by game, status, bot (id or
    reference bot name) and player (username), paginated; links to each replay."""
    query = {key: request.GET.get(key, "").strip() for key in ("game", "status", "bot", "player")}
    if query["game"] not in ("", *game_ids()):
        raise Http404("no such game")
    if query["status"] not in ("", *Match.Status.values):
        query["status"] = ""
    matches = selectors.match_list(**{k: v or None for k, v in query.items()})
    page = Paginator(matches, MATCHES_PER_PAGE).get_page(request.GET.get("page"))
    filters = urlencode({k: v for k, v in query.items() if v})
    return render(request, "games/matches.html", {
        "page": page, "rows": match_rows(page.object_list), "query": query, "filters": filters,
        "games": game_ids(), "statuses": Match.Status.choices,
    })


def _seat_names(match: Any) -> list[str]:
    """Who sits at each seat, in seat order, as every page names them (``games.names``); two
    seats may share a label (``distinct_labels`` tells them apart)."""
    return seat_labels(sorted(match.seats.all(), key=lambda s: s.number))


@login_required
def play_page(request: HttpRequest, match_id: int) -> HttpResponse:
    """Play a match in the browser: the signed-in person's seat, its view and legal actions.
    The page acts and waits through the same polling API as any client (play.js: join, poll
    with ``?wait=``, post an action with the version it saw); this view only draws the seat
    (``?partial=1``: the part play.js swaps in). A person sees only their own seat."""
    try:
        match = selectors.match_get(match_id=match_id)
    except MatchNotFound:
        raise Http404("no such match") from None
    seat = next((s for s in match.seats.all() if s.user_id == request.user.pk), None)
    labels = _seat_names(match)
    names = distinct_labels(labels)  # the seats' list; a builder says each seat's number
    context: dict[str, Any] = {"match": match, "seats": names, "seat": seat,
                               "open_seat": any(s.is_open for s in match.seats.all())}
    if seat is not None and match.status != Match.Status.OPEN:
        answer, _ = selectors.seat_view(match_id=match.pk, seat_number=seat.number,
                                        user=request.user)
        legal = answer["legal_actions"] or []
        # One row of buttons, or groups by type (a long one built from a few controls)
        grouped = len(legal) > FEW_ACTIONS or any(
            n > BUILD_FROM for n in Counter(a.get("type") for a in legal).values())
        context.update({
            "answer": answer, "view": draw_view(match.game, answer["view"], match.players,
                                                labels),
            "actions": [] if grouped else [
                {"label": action_label(a, match.game), "hint": action_hint(a, match.game),
                 "json": json.dumps(a)} for a in legal],
            "action_groups": action_groups(legal, labels, match.game) if grouped else [],
        })
    template = "games/_seat.html" if request.GET.get("partial") else "games/play.html"
    return render(request, template, context)


#: Up to this many legal actions are one row of buttons; more are grouped by type (a group
#: this long becomes a list to filter and pick from).
FEW_ACTIONS = 24
#: A group of more actions than this is built from a few controls (``games.action_builder``:
#: cards to press, values to pick), its buttons or list kept folded away.
BUILD_FROM = 8


def action_groups(legal: list[dict[str, Any]], names: Sequence[str] = (), game: str = ""
                  ) -> list[dict[str, Any]]:
    """The legal actions by type, in the order the types first come: one group per type, its
    actions labelled by their other fields only (the group names the type). A long list (a
    D.T.C offer: hundreds of card sets and values) is one group a person can filter, and
    builds from its cards and values (``build``; seats named by ``names``)."""
    groups: dict[str, dict[str, Any]] = {}
    for action in legal:
        kind = str(action.get("type", "act"))
        group = groups.get(kind)
        if group is None:  # named once per type, not per action (offers come in hundreds)
            group = groups[kind] = {"type": kind, "actions": [],
                                    "label": action_label({"type": kind}, game),
                                    "hint": action_hint(action, game)}
        group["actions"].append({"label": action_fields(action) or group["label"],
                                 "json": json.dumps(action)})
    for group in groups.values():
        group["choose"] = len(group["actions"]) > FEW_ACTIONS
        group["build"] = None
        if len(group["actions"]) > BUILD_FROM:
            group["build"] = builder(group["type"], [
                action for action in legal if str(action.get("type", "act")) == group["type"]],
                names)
    return list(groups.values())


def result_sentence(names: Sequence[str], ranks: Sequence[int], *, forfeited: Sequence[int],
                    yours: Sequence[int]) -> str:
    """A finished match in a sentence or three: who won, where you finished (if you sat),
    who forfeited; a match every seat forfeited has no winner."""
    if forfeited and len(forfeited) == len(ranks):
        return "Every seat forfeited: nobody won."
    winners = [names[seat] for seat, rank in enumerate(ranks) if rank == 1]
    said = [f"{_joined(winners)} {'won' if len(winners) == 1 else 'shared the win'}."]
    for seat in yours:
        joint = "joint " if list(ranks).count(ranks[seat]) > 1 else ""
        said.append(f"You finished {joint}{_ordinal(ranks[seat])} of {len(ranks)}.")
    if forfeited:
        said.append(f"{_joined([names[seat] for seat in forfeited])} forfeited.")
    return " ".join(said)


def _joined(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
