"""Seat kinds: who sits at a seat, and how an automatic seat is asked for its action.

``games`` knows two kinds: ``"player"`` (a user polling the API) and ``"reference"`` (one of the
engine's reference bots, run in-process). Other apps add kinds without ``games`` importing them,
from their ``AppConfig.ready()``::

    from games.seats import SeatKind, register_seat_kind
    register_seat_kind(SeatKind(name="webhook", automatic=WebhookSeatKind(), inline=False,
                                check_bot=check_webhook_bot))

An automatic kind opens a :class:`SeatSession` for one match (:meth:`AutomaticSeat.session`,
given the match as plain data, a :class:`Table`); the match driver (``games.driver``) asks the
session for answers and applies the one failure policy to them. ``inline=True`` kinds are asked
right after the action that made them due, in the same request (so they must be fast and must
not do network I/O); ``inline=False`` kinds are asked by the ``games.advance_automatic_seats``
Celery task with no transaction open and no row locked (see ``games.services.automatic``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .engine import State, get_game
from .errors import BadSeats

JSON = dict[str, Any]

PLAYER = "player"
REFERENCE = "reference"


@dataclass(frozen=True)
class TableSeat:
    """One seat as the seats of a match may know it."""

    number: int
    kind: str
    #: The kind's bot name (a reference bot's name, a webhook bot's id); "" for players.
    bot: str = ""
    user_id: int | None = None


@dataclass(frozen=True)
class Table:
    """A match as its automatic seats may know it: plain data, no database row.

    Built by the services from a ``Match`` row, or by hand for matches played offline (e.g.
    ``check_bot``), where ``match_id`` may be any string.
    """

    match_id: int | str
    game: str
    options: JSON
    seed: int
    seats: tuple[TableSeat, ...]
    move_time_limit: int
    #: Strikes that forfeit a seat; 0 = never.
    strike_limit: int
    created_by_id: int | None = None

    @property
    def players(self) -> int:
        return len(self.seats)

    def notified_seats(self, kind: str) -> list[int]:
        """The seats of ``kind`` told that the match starts and that it ended (a webhook bot's
        /start and /end): every one, forfeited or not (a forfeited seat still learns how the
        match ended). The one rule for real matches and offline play alike."""
        return [seat.number for seat in self.seats if seat.kind == kind]


class PlatformOutage(Exception):
    """The platform itself cannot ask a seat now (its own network is down, not the seat's):
    raised by a seat kind, it passes through the driver (never a default action or a strike),
    so the batch in memory is dropped unplayed and the match is asked again from its last
    stored position later, as after a worker that died."""


@dataclass(slots=True)
class SeatAnswer:
    """What an automatic seat answered for one decision.

    ``action`` None: no usable answer, the seat gets the game's default action. ``strike``: the
    seat itself is at fault (a short reason such as ``"timeout"``): it also gets a strike, and
    reaching the match's ``strike_limit`` forfeits it. ``action`` given but refused by the engine
    counts as a strike with reason ``"illegal_action"``, unless ``ours`` (the platform's own bot
    chose it: our bug, a platform failure). No action and no strike is a platform failure: the
    default action, no strike.
    """

    # Not frozen: a frozen dataclass sets each field through object.__setattr__ (a microsecond
    # a move of an in-process match, one answer each). Nothing changes an answer once made.

    action: JSON | None = None
    strike: str | None = None
    detail: str = ""
    ours: bool = False


class Pending(Protocol):
    """Answers on their way (:meth:`SeatSession.send`): the thread that plays many matches at
    once (``games.services.multiplexed``) polls it after driving the kinds' I/O
    (:meth:`PumpedSeat.pump`) and resumes the match when it is done.

    ``wake``, set by that thread (None until then), is called by the kind when something
    came back, so the thread polls what moved and not every match it holds; it also polls
    every pending now and then, so one that never wakes it is only slower."""

    wake: Callable[[], None] | None

    def poll(self) -> bool:
        """Move on without waiting (judge what came back, send what is due again); whether
        every answer is in."""
        ...

    def answers(self) -> dict[int, SeatAnswer]:
        """The answers, once :meth:`poll` said so; may raise :class:`PlatformOutage`."""
        ...


class Answered:
    """A :class:`Pending` whose answers are in already: what a kind that does no I/O of its own
    gives (:meth:`SeatSession.send`'s default)."""

    __slots__ = ("_answers", "wake")

    def __init__(self, answers: dict[int, SeatAnswer] | None = None) -> None:
        self._answers = answers or {}
        self.wake: Callable[[], None] | None = None

    def poll(self) -> bool:
        return True

    def answers(self) -> dict[int, SeatAnswer]:
        return self._answers


class SeatSession:
    """The seats of one automatic kind in one match, for one run of the match driver (a request
    or one batch of the Celery task): what the kind needs across calls (bots looked up once,
    records not written yet) lives here, never on a model instance.

    A kind's session subclasses this and answers :meth:`ask`; the hooks are no-ops here, and
    the store and the task call them on every session (a kind overrides those it needs; a
    misspelled override is a method nobody calls, which a type checker's ``@override`` finds).
    """

    def ask(self, state: State, seats: Sequence[int], version: int) -> dict[int, SeatAnswer]:
        """An answer for each of ``seats``, all due in ``state`` (read-only: never change it)
        at match version ``version``; seats of one step may be asked at once."""
        raise NotImplementedError

    def ask_one(self, state: State, seat: int, version: int) -> SeatAnswer | None:
        """:meth:`ask` for one seat: what the driver asks an inline seat, once a move. A kind
        whose seats are asked one at a time answers here without building a mapping."""
        return self.ask(state, (seat,), version).get(seat)

    def send(self, state: State, seats: Sequence[int], version: int) -> Pending:
        """:meth:`ask` without waiting for the answers, for the worker that plays many matches
        in one thread: a kind that calls out (a webhook bot) starts its calls and answers
        through :meth:`AutomaticSeat.pump`; this default asks at once."""
        return Answered(self.ask(state, seats, version))

    def announce(self, state: State, *, over: bool) -> Pending:
        """:meth:`started` (or, ``over``, :meth:`finished`) without waiting, as :meth:`send`
        is :meth:`ask`: done (its answers empty) once the kind has told its seats. This
        default calls the hook at once."""
        if over:
            self.finished(state)
        else:
            self.started(state)
        return Answered()

    def started(self, state: State) -> None:
        """The match runs. Out-of-process kinds only: called by the Celery task outside any
        transaction, at least once (a re-run task may call again): make it idempotent."""

    def finished(self, state: State) -> None:
        """The match is over. Out-of-process kinds only: called by the Celery task outside any
        transaction, at least once (a re-run task may call again): make it idempotent. Called
        once the final moves are stored and before their :meth:`flush`, so a kind may write
        its records of them with its own statement here."""

    def flush(self, moves: Sequence[Any], applied: bool) -> None:
        """Write the kind's own records of the answers given since the last flush, once
        ``moves`` (``games.driver.Move``) are stored (``applied`` True): inside the transaction
        that stores them on a request's path, just after it on the task's (a crash in between
        loses those records, never a move), or after the match moved on meanwhile and the
        answers were thrown away (``applied`` False: nothing of them is in the match; keep the
        record of the calls)."""


class AutomaticSeat(Protocol):
    """Something that answers for seats by itself."""

    def session(self, table: Table) -> SeatSession:
        """A session for the seats of this kind at ``table``."""
        ...


class PumpedSeat(AutomaticSeat, Protocol):
    """An automatic kind whose :meth:`SeatSession.send` leaves calls in flight: the thread
    that sent them drives them (and hands their replies over) by calling :meth:`pump`."""

    def pump(self, timeout: float) -> None:
        """Wait at most ``timeout`` seconds for this thread's calls in flight, and move them
        on (their :class:`Pending` then see their replies)."""
        ...


@dataclass(frozen=True)
class SeatKind:
    name: str
    #: ``None``: a user plays this seat through the API.
    automatic: AutomaticSeat | None = None
    #: Ask the automatic seat in the same request (True) or in a Celery task (False).
    inline: bool = True
    #: Check the ``bot`` named in a seat spec when ``user`` (the creator, None for the
    #: platform itself) creates a match of the game; raise ``ValueError`` with a readable
    #: reason. ``None``: the kind takes no bot name.
    check_bot: Callable[[str, str, Any], None] | None = None
    #: The ``bot`` of a seat of this kind is an object id (a webhook bot's), shown by the API
    #: as a number like every other id (:func:`bot_reference`).
    bot_is_id: bool = False
    #: The bots of this kind by name, for ``games.names``: given a set of ``bot`` values, the
    #: label of each that still exists ("dice_bot (alice)"), in one query. ``None``: the
    #: kind's bots read as "<kind> <bot>".
    bot_names: Callable[[set[str]], dict[str, str]] | None = None
    #: The page of one of this kind's bots (its ``bot`` value), linked wherever it is named.
    bot_url: Callable[[str], str | None] | None = None
    #: The bots of this kind ``user`` may seat in a match of ``game`` now, as ``(bot,
    #: label)`` pairs, for the pages' seat pickers (:func:`seat_choices`). ``None``: none.
    bot_choices: Callable[[str, Any], list[tuple[str, str]]] | None = None
    #: The owner (a user id) of each of a set of ``bot`` values that exists, in one query:
    #: who may enter one of this kind's bots in a tournament open for entries. ``None``: the
    #: kind's bots belong to nobody (only an organiser enters them).
    bot_owners: Callable[[set[str]], dict[str, Any]] | None = None
    #: Why each of a set of ``bot`` values cannot be seated in ``game`` by ``user`` (None:
    #: the platform) now, in one query: ``{bot: reason}``, those absent can be
    #: (:func:`unseatable`). ``None``: :attr:`check_bot` is asked bot by bot.
    unseatable: Callable[[str, set[str], Any], dict[str, str]] | None = None
    #: Of a set of ``bot`` values, those whose code answering now is not the code taken as
    #: theirs (a bot redeployed where it answers, declaring a new version), each with what its
    #: owner should read: ``{bot: why}``, in one query (:func:`redeployed`). ``None``: the
    #: kind's bots are always their own code.
    redeployed: Callable[[set[str]], dict[str, str]] | None = None
    #: Of some matches (ids), the seats whose bot said, when the match started, that it plays
    #: code other than the code taken as its own: ``{match id: {seat: version it said}}``, in
    #: one query (:func:`new_code_seats`). ``None``: never.
    new_code_seats: Callable[[set[int]], dict[int, dict[int, str]]] | None = None
    #: What a seat of this kind is called ("webhook bot"); "" reads as its name.
    label: str = ""
    #: An organiser may enter one of its bots in a series by its spec (a tournament, a
    #: league). False: only the app that registers the kind seats it (a bot version's
    #: candidate, in its provisional run).
    enterable: bool = True

    @property
    def out_of_process(self) -> bool:
        return self.automatic is not None and not self.inline


class ReferenceBotSession(SeatSession):
    """The engine's reference bots at one table, asked in-process.

    Bots are rebuilt for every decision, seeded from the match seed and version, so a match
    between reference bots is reproducible from its seed alone. A bot that fails or chooses an
    illegal action is our bug, not the seat's: the answer is a platform failure (the default
    action, no strike).
    """

    def __init__(self, table: Table) -> None:
        self.table = table
        self.game = get_game(table.game)

    def ask(self, state: State, seats: Sequence[int], version: int) -> dict[int, SeatAnswer]:
        return {number: self.ask_one(state, number, version) for number in seats}

    def ask_one(self, state: State, seat: int, version: int) -> SeatAnswer:
        bot = self.game.make_bot(self.table.seats[seat].bot, seat,
                                 self.table.seed * 7919 + version)
        try:
            action = bot.choose(state.view(seat), state.legal_actions(seat))
        except Exception as exc:  # noqa: BLE001 - our bot's bug
            return SeatAnswer(detail=f"platform error: reference bot: {exc!r}")
        # The engine checks it once, when it is applied; an illegal one is ours. (Positional:
        # the generated __init__ takes keywords at about twice the cost, once a move.)
        return SeatAnswer(action, None, "", True)


class ReferenceBotSeat:
    """The ``reference`` kind's automatic seat."""

    def session(self, table: Table) -> ReferenceBotSession:
        return ReferenceBotSession(table)


def _check_reference_bot(game_id: str, bot_name: str, user: Any = None) -> None:
    game = get_game(game_id)
    if bot_name not in game.bots:
        raise ValueError(f"no reference bot {bot_name!r} for {game_id} "
                         f"(have: {', '.join(game.bots)})")


_KINDS: dict[str, SeatKind] = {}


def register_seat_kind(kind: SeatKind) -> None:
    """Make ``kind`` usable in matches; registering a name again replaces it."""
    _KINDS[kind.name] = kind


def unregister_seat_kind(name: str) -> None:
    """Remove a kind (tests); the built-in kinds cannot be removed."""
    if name not in (PLAYER, REFERENCE):
        _KINDS.pop(name, None)


def get_seat_kind(name: str) -> SeatKind:
    """The registered kind; ``KeyError`` if there is none by that name."""
    return _KINDS[name]


def unseatable(kind: str, game: str, bots: set[str], user: Any = None) -> dict[str, str]:
    """Why each of ``bots`` of seat kind ``kind`` cannot be seated in ``game`` by ``user``
    (None: the platform) now, as ``check_bot`` would say it: ``{bot: reason}``; the bots
    absent may be seated. In one query where the kind can (:attr:`SeatKind.unseatable`), so a
    ladder of a thousand bots looks at them all on each ask. An unknown kind: every bot."""
    try:
        found = get_seat_kind(kind)
    except KeyError:
        return dict.fromkeys(bots, f"no seat kind {kind!r}")
    if found.unseatable is not None:
        return found.unseatable(game, set(bots), user)
    reasons = {}
    for bot in sorted(bots):
        try:
            if found.check_bot is not None:
                found.check_bot(game, bot, user)
        except (ValueError, BadSeats) as exc:
            reasons[bot] = str(exc)
    return reasons


def redeployed(kind: str, bots: set[str]) -> dict[str, str]:
    """Which of ``bots`` of seat kind ``kind`` answer with code other than their own now, and
    why (:attr:`SeatKind.redeployed`): a series that must not rate new code (a ladder) holds
    them. None for a kind that has no such notion, or an unknown one."""
    found = _KINDS.get(kind)
    if found is None or found.redeployed is None or not bots:
        return {}
    return found.redeployed(set(bots))


def new_code_seats(kind: str, match_ids: set[int]) -> dict[int, dict[int, str]]:
    """Of ``match_ids``, the seats of kind ``kind`` whose bot played code other than its own
    there (:attr:`SeatKind.new_code_seats`), by match: ``{match id: {seat: version}}``."""
    found = _KINDS.get(kind)
    if found is None or found.new_code_seats is None or not match_ids:
        return {}
    return found.new_code_seats(set(match_ids))


def bot_reference(kind: str, bot: str) -> int | str | None:
    """A seat's (or a tournament participant's) ``bot`` as the API shows it: a webhook bot's
    id as a number, a reference bot's name as a string, None when it has none."""
    if not bot:
        return None
    seat_kind = _KINDS.get(kind)
    return int(bot) if seat_kind is not None and seat_kind.bot_is_id and bot.isdigit() else bot


def seat_kinds() -> list[str]:
    return list(_KINDS)


def seat_choices(game: str, user: Any) -> list[tuple[str, str]]:
    """Who ``user`` may seat in a match of ``game``, for a page's picker: ``(value, label)``
    with ``value`` read back by :func:`seat_spec`: an open seat for a person, each reference
    bot, then every registered kind's bots (``SeatKind.bot_choices``), named as the pages
    name them."""
    choices = [(PLAYER, "an open seat, for a person")]
    choices += [(f"{REFERENCE}:{bot}", f"{bot} (reference bot)") for bot in get_game(game).bots]
    for kind in _KINDS.values():
        if kind.bot_choices is not None:
            choices += [(f"{kind.name}:{bot}", label) for bot, label in kind.bot_choices(game, user)]
    return choices


def seat_spec(value: str) -> JSON:
    """The seat spec of a :func:`seat_choices` value: ``{"kind": ..., "bot": ...}``."""
    kind, _, bot = value.partition(":")
    return {"kind": kind, "bot": bot} if bot else {"kind": kind}


register_seat_kind(SeatKind(name=PLAYER, label="polling player"))
register_seat_kind(SeatKind(name=REFERENCE, automatic=ReferenceBotSeat(),
                            check_bot=_check_reference_bot, label="reference bot"))

__all__ = [
    "PLAYER", "REFERENCE", "Answered", "AutomaticSeat", "Pending", "PumpedSeat",
    "ReferenceBotSeat", "ReferenceBotSession",
    "SeatAnswer", "SeatKind", "SeatSession", "Table", "TableSeat", "get_seat_kind",
    "register_seat_kind", "seat_kinds", "unregister_seat_kind",
]
