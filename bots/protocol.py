"""Bot protocol v1: the JSON bodies the platform sends to a webhook bot, and reading its answers.

Pure functions over an engine ``State``: no Django, no models, no network, so the match runner,
the ``check_bot`` command, the reference bot server and the docs generator all build exactly the
same bodies. The protocol is documented in ``docs/bot-protocol.md``.

A body only ever carries ``state.view(seat)`` and that seat's legal actions (G-3): never the
public event log with other seats' private parts, never the state itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from games.engine import IllegalAction, State, game_ids
from lib import jsontext

JSON = dict[str, Any]

API_VERSION: Final = "1"

#: To a bot whose handshake says ``"compact_legal_actions": true``, a lazy legal-action sequence
#: that has a compact ``describe()`` is sent as the full list only while it has at most this
#: many actions; above it that bot gets ``legal_description`` alone. 256 keeps every /move body
#: under ~10 KB (a DTC offer list of a 6-card hand can reach thousands of offers, ~170 KB).
#: Every other bot always gets the complete list (it was written from the request table).
LEGAL_LIST_LIMIT: Final = 256

#: A bot's ``log`` string is kept for its developer, cut to this many characters.
LOG_LIMIT: Final = 1000

#: The longest ``version`` string read: a handshake's is cut to it, a longer one in a /start
#: answer is ignored (``Bot.serving_version``'s length).
VERSION_LIMIT: Final = 100

#: The range of a handshake's optional ``max_concurrency``: how many requests the bot takes at
#: once (from one worker process; absent: the platform's ``BOTS_MAX_CONCURRENCY``).
MAX_CONCURRENCY_RANGE: Final = range(1, 257)

# Failure reasons. The first group is the bot's fault and earns a strike; ``platform_error`` is
# ours and never does.
TIMEOUT: Final = "timeout"
CONNECTION_ERROR: Final = "connection_error"
BLOCKED_ADDRESS: Final = "blocked_address"
HTTP_STATUS: Final = "http_status"
INVALID_JSON: Final = "invalid_json"
OVERSIZED_BODY: Final = "oversized_body"
BAD_SHAPE: Final = "bad_shape"
ILLEGAL_ACTION: Final = "illegal_action"
BOT_FAILURES: Final = (TIMEOUT, CONNECTION_ERROR, BLOCKED_ADDRESS, HTTP_STATUS, INVALID_JSON,
                       OVERSIZED_BODY, BAD_SHAPE, ILLEGAL_ACTION)
PLATFORM_ERROR: Final = "platform_error"
#: The platform's own resolver did not answer for the bot's host (bots/resolver.py): ours, and
#: the call is made again once the platform can (bots/reachability.py).
RESOLVER_UNAVAILABLE: Final = "resolver_unavailable"
#: The multiplexed worker came back to a call after curl's own, longer, limit had stopped it
#: (``bots.net.CallLoop``): it cannot tell when the answer came, so it is ours, and the call is
#: made again at once.
WORKER_LATE: Final = "worker_late"


@dataclass(frozen=True)
class Failure:
    """Why a call did not give a usable answer; ``detail`` is shown to the bot's developer, and
    so is ``log``, the bot's own log line when its answer had one (a failed move is when its
    developer needs it most)."""

    reason: str
    detail: str = ""
    log: str | None = None

    @property
    def is_bot_fault(self) -> bool:
        return self.reason in BOT_FAILURES


@dataclass(frozen=True)
class MoveAnswer:
    """A valid /move answer: an action the engine accepted for that seat, and its log line."""

    action: JSON
    log: str | None = None


@dataclass(frozen=True)
class Handshake:
    """A valid ``GET /`` answer: ``games`` are the platform's game ids it lists (each once),
    ``unknown_games`` the ids it lists that are not ours (a typo, a game not here yet)."""

    name: str
    author: str
    games: list[str]
    #: The bot reads ``legal_description`` when ``legal_actions`` is left out (long lists).
    compact_legal_actions: bool = False
    unknown_games: list[str] = field(default_factory=list)
    #: The bot's own version string, if its handshake says one (recorded with a bot version).
    version: str = ""
    #: How many requests the bot takes at once, if its handshake says (1..256); None: the
    #: platform's default (``BOTS_MAX_CONCURRENCY``).
    max_concurrency: int | None = None


@dataclass(frozen=True)
class MatchInfo:
    """What every call of a match repeats about it (the bot may be stateless).

    ``id`` is the match's integer id, as in the REST API (offline matches use integers too);
    ``seats`` names each seat's player (public at the table); ``options`` are the engine's merged
    options of the match.
    """

    id: int
    game: str
    options: JSON
    seats: Sequence[str]
    timeout_ms: int
    strike_limit: int | None = None
    extra: JSON = field(default_factory=dict)

    def to_json(self) -> JSON:
        return {
            "id": self.id,
            "game": self.game,
            "options": self.options,
            "seats": [{"seat": i, "name": name} for i, name in enumerate(self.seats)],
            "timeout_ms": self.timeout_ms,
            "strike_limit": self.strike_limit,
            **self.extra,
        }


# ---- request bodies ----------------------------------------------------------------------------


def _common(match: MatchInfo, state: State, seat: int) -> JSON:
    return {
        "apiversion": API_VERSION,
        "match": match.to_json(),
        "seat": seat,
        "turn": state.moves,
        "view": state.view(seat),
    }


def start_body(match: MatchInfo, state: State, seat: int) -> JSON:
    """``POST /start``: sent once to each webhook seat before the first move."""
    return _common(match, state, seat)


def end_body(match: MatchInfo, state: State, seat: int) -> JSON:
    """``POST /end``: sent once the match is over; ``result`` repeats the view's result."""
    body = _common(match, state, seat)
    body["result"] = state.result()
    return body


def omits_legal_list(legal: Sequence[JSON], *, compact: bool) -> bool:
    """Whether a /move body leaves ``legal_actions`` out: only for a bot that accepts the
    compact form, when a description exists and the list is over :data:`LEGAL_LIST_LIMIT`."""
    return compact and len(legal) > LEGAL_LIST_LIMIT and hasattr(legal, "describe")


def legal_payload(legal: Sequence[JSON], *, compact: bool = False) -> JSON:
    """What a seat may do: ``legal_count`` always, ``legal_description`` when the engine has
    one, and ``legal_actions`` (the complete list) unless the bot accepts the compact form and
    the list is long (:func:`omits_legal_list`)."""
    out: JSON = {"legal_count": len(legal)}
    describe = getattr(legal, "describe", None)
    if describe is not None:
        out["legal_description"] = describe()
    if not omits_legal_list(legal, compact=compact):
        out["legal_actions"] = list(legal)
    return out


def move_body(match: MatchInfo, state: State, seat: int, *, compact: bool = False) -> JSON:
    """``POST /move``: the seat must answer with one of its legal actions. ``compact``: the
    bot's handshake accepts ``legal_description`` alone for long lists."""
    body = _common(match, state, seat)
    body.update(legal_payload(state.legal_actions(seat), compact=compact))
    return body


def handshake_body() -> bytes:
    """``GET /`` has no body; the signature covers the empty string."""
    return b""


def encode(body: JSON) -> bytes:
    """Compact UTF-8 JSON: the exact bytes that are signed and sent (orjson: a tenth of the
    stdlib's time on a /move body; integer keys become strings, as ``json.dumps`` does:
    ``lib.jsontext``)."""
    return jsontext.dumps(body)


# ---- reading answers ---------------------------------------------------------------------------


#: A run of digits orjson might read differently from the standard library: an integer beyond
#: 64 bits (or below -2**63) becomes a float there.
_LONG_DIGITS: Final = re.compile(rb"\d{19}")


def _load(raw: bytes) -> Any | Failure:
    """The answer's JSON as ``json.loads`` reads it. orjson first (a third of its time on an
    answer to /move); whatever orjson refuses (NaN, a BOM, lone surrogates, deep nesting, not
    JSON) and long digit runs go to the standard library, which reads them or says why not."""
    if not _LONG_DIGITS.search(raw):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        snippet = raw[:80].decode("utf-8", "replace")
        return Failure(INVALID_JSON, f"body is not JSON ({exc.__class__.__name__}: {exc}); "
                                     f"starts with {snippet!r}")


def parse_move_answer(state: State, seat: int, raw: bytes, *,
                      compact: bool = False) -> MoveAnswer | Failure:
    """Read a 200 answer to /move and validate its action with the engine, now.

    Call it just before applying: in a simultaneous step the state may have moved on since the
    request was sent, and only the engine decides what is legal. ``compact`` as given to
    :func:`move_body`: a missing action then names the field the bot should have read.
    """
    data = _load(raw)
    if isinstance(data, Failure):
        return data
    if not isinstance(data, dict):
        return Failure(BAD_SHAPE, f'the answer must be an object {{"action": {{...}}}}, '
                                  f"not {type(data).__name__}")
    log = data.get("log")
    if log is not None and not isinstance(log, str):
        return Failure(BAD_SHAPE, f'"log" must be a string, not {type(log).__name__}')
    log = log[:LOG_LIMIT] if log else None
    action = data.get("action")
    if not isinstance(action, dict):
        detail = (f'the answer has no "action" (keys: {sorted(data)[:10]})' if "action" not in data
                  else f'"action" must be an object, not {type(action).__name__}')
        legal = state.legal_actions(seat)
        if omits_legal_list(legal, compact=compact):
            detail += (f"; this request had no legal_actions list ({len(legal)} actions, over "
                       f"{LEGAL_LIST_LIMIT}): build the action from legal_description")
        return Failure(BAD_SHAPE, detail, log=log)
    try:
        state.validate(seat, action)
    except IllegalAction as exc:
        return Failure(ILLEGAL_ACTION, str(exc), log=log)
    return MoveAnswer(action=action, log=log)


def parse_handshake(raw: bytes) -> Handshake | Failure:
    """Read a 200 answer to ``GET /``; the bot must speak version 1 and name its games."""
    data = _load(raw)
    if isinstance(data, Failure):
        return data
    if not isinstance(data, dict):
        return Failure(BAD_SHAPE, f"the handshake must be an object, not {type(data).__name__}")
    version = data.get("apiversion")
    if version != API_VERSION:
        said = _describe_json(version) if "apiversion" in data else "missing"
        return Failure(BAD_SHAPE, f'"apiversion" must be the string "{API_VERSION}", not {said}')
    games = data.get("games")
    if not isinstance(games, list) or not all(isinstance(g, str) for g in games):
        return Failure(BAD_SHAPE, '"games" must be a list of game ids')
    games = list(dict.fromkeys(games))
    ours = set(game_ids())
    name, author = data.get("name", ""), data.get("author", "")
    if not isinstance(name, str) or not isinstance(author, str):
        return Failure(BAD_SHAPE, '"name" and "author" must be strings')
    compact = data.get("compact_legal_actions", False)
    if not isinstance(compact, bool):
        return Failure(BAD_SHAPE, f'"compact_legal_actions" must be true or false, not '
                                  f"{compact!r}")
    declared = data.get("version", "")
    if not isinstance(declared, str):
        return Failure(BAD_SHAPE, f'"version" must be a string, not {_describe_json(declared)}')
    concurrency = data.get("max_concurrency")
    if "max_concurrency" in data and (type(concurrency) is not int  # a bool is not one
                                      or concurrency not in MAX_CONCURRENCY_RANGE):
        low, high = MAX_CONCURRENCY_RANGE[0], MAX_CONCURRENCY_RANGE[-1]
        return Failure(BAD_SHAPE, f'"max_concurrency" must be an integer from {low} to {high} '
                                  f"(or left out: the platform's default), not "
                                  f"{_describe_json(concurrency)}")
    return Handshake(name=name[:100], author=author[:100],
                     games=[g for g in games if g in ours], compact_legal_actions=compact,
                     unknown_games=[g[:100] for g in games if g not in ours][:20],
                     version=declared[:VERSION_LIMIT], max_concurrency=concurrency)


def parse_start_answer(raw: bytes) -> tuple[str, str]:
    """The ``version`` a 200 answer to /start declares ("" for none) and, when it has one that
    cannot be read (not a string, over :data:`VERSION_LIMIT` characters), why it was ignored.
    Never a failure: the rest of the answer is ignored, as ever, and a bot that sends ``{}``
    (or nothing readable) declares nothing."""
    data = _load(raw)
    if not isinstance(data, dict) or "version" not in data:
        return "", ""
    declared = data["version"]
    if not isinstance(declared, str):
        return "", (f'"version" ignored: it must be a string, not '
                    f"{_describe_json(declared)}")
    if len(declared) > VERSION_LIMIT:
        return "", (f'"version" ignored: {len(declared)} characters, over the '
                    f"{VERSION_LIMIT} allowed")
    return declared, ""


def _describe_json(value: Any) -> str:
    """A JSON value as a developer would name it: ``the number 1``, ``the string "2"``."""
    kinds = {bool: "the boolean", int: "the number", float: "the number", str: "the string"}
    text = json.dumps(value)[:40]
    kind = kinds.get(type(value))
    return f"{kind} {text}" if kind else text
