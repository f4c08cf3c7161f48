"""The ``webhook`` seat kind: seats of real matches played by registered :class:`Bot` rows.

Registered from :meth:`bots.apps.BotsConfig.ready` with ``games.seats.register_seat_kind``;
``games`` never imports this module. A seat spec ``{"kind": "webhook", "bot": <bot id>}`` seats
the bot if it is enabled, passed its handshake and plays the game, and is public (any user may
seat it: bots are here to meet) or the match's creator owns it.

The ``games.advance_automatic_seats`` task opens a :class:`WebhookSession` per batch (the bots
looked up once, the call records not written yet: an explicit object, never attributes on a
model) and the match driver asks it for every due webhook seat of a step at once. The session
calls the bots through a :class:`bots.caller.WebhookCaller` and, when the driver's moves are
stored, writes a :class:`BotCall` per call (the bot's stats and call log) and the strikes the
driver gave per seat (:class:`BotSeat`). ``/start`` and ``/end`` are sent once per seat
(claimed by one conditional upsert), so a task that runs twice never sends them twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from games.db import claim_unset, insert_rows, row_by_pk
from games.driver import Move
from games.engine import State
from games.names import seat_labels
from games.seats import Answered, Pending, SeatAnswer, SeatKind, SeatSession, Table
from lib.clock import platform_clock

from . import protocol
from .caller import CallRecord, Endpoint, WebhookCaller
from .models import REDEPLOYED, Bot, BotCall, BotSeat
from .net import bot_client, call_loop
from .reachability import platform_reachability
from .selectors import bot_concurrency, bot_previous_secret, bots_seatable
from .services import note_serving_version

WEBHOOK = "webhook"
#: Strike reason of a seat whose bot was disabled or deleted during the match.
BOT_UNAVAILABLE = "bot_unavailable"
#: Call log detail of an answer that came after the match moved on (not used).
NOT_APPLIED = "not applied: the match changed while the bot was asked (a resignation, a deadline)"

JSON = dict[str, Any]


def check_webhook_bot(game_id: str, bot: str, user: Any = None) -> None:
    """Raise ``ValueError`` (a readable reason) unless ``user`` (the match's creator) can seat
    bot id ``bot`` in ``game_id`` now."""
    try:
        bot_id = int(bot)
    except (TypeError, ValueError):
        raise ValueError(f"a webhook seat needs a bot id, not {bot!r}") from None
    found = row_by_pk(Bot, bot_id, _CHECKED_FIELDS)  # every match's creation: no ORM query
    reason = _unseatable_reason(game_id, bot_id, found, user)
    if reason is not None:
        raise ValueError(reason)


def unseatable_webhook_bots(game_id: str, bots: set[str], user: Any = None) -> dict[str, str]:
    """Why each of ``bots`` (ids as strings) cannot be seated in ``game_id`` by ``user`` now,
    as :func:`check_webhook_bot` says it, in one query (``SeatKind.unseatable``)."""
    ids = {bot: int(bot) for bot in bots if bot.isdigit()}
    rows = {row["id"]: row for row in
            Bot.objects.filter(pk__in=set(ids.values())).values("id", *_CHECKED_FIELDS)}
    reasons = {bot: f"a webhook seat needs a bot id, not {bot!r}" for bot in bots
               if bot not in ids}
    for bot, bot_id in ids.items():
        reason = _unseatable_reason(game_id, bot_id, rows.get(bot_id), user)
        if reason is not None:
            reasons[bot] = reason
    return reasons


def _unseatable_reason(game_id: str, bot_id: int, found: Mapping[str, Any] | None,
                       user: Any) -> str | None:
    if found is None:
        return f"no bot {bot_id}"
    if not found["enabled"]:
        return f"bot {bot_id} is disabled"
    if not found["public"] and (user is None or user.pk != found["owner_id"]):
        return f"bot {bot_id} is private: only its owner may seat it"
    if not found["handshake_ok"]:
        return f"bot {bot_id} has not passed its handshake: {found['handshake_error']}"
    if game_id not in found["games"]:
        return (f"bot {bot_id} does not play {game_id} (its handshake lists "
                f"{', '.join(found['games']) or 'nothing'})")
    return None


def redeployed_webhook_bots(bots: set[str]) -> dict[str, str]:
    """Of ``bots`` (ids as strings), those whose URL serves, as last seen, a non-empty version
    other than the one taken as the bot's (``serving_version`` against ``declared_version``):
    new code nobody registered as a version, with what its owner should do, in one query
    (``SeatKind.redeployed``). A bot that declares no version anywhere is never one."""
    ids = {int(bot) for bot in bots if bot.isdigit()}
    found = (Bot.objects.filter(REDEPLOYED, pk__in=ids)
             .values_list("pk", "url", "serving_version", "declared_version"))
    return {str(pk): redeploy_reason(pk, url, serving, declared)
            for pk, url, serving, declared in found}


def redeploy_reason(bot_id: int, url: str, serving: str, declared: str) -> str:
    """What the owner of a bot whose URL serves ``serving`` (not its ``declared``) reads."""
    own = f'not the bot\'s "{declared}"' if declared else "while the bot's declared none"
    back = f'serve "{declared}" again' if declared else "serve code that declares none again"
    return (f'{url} declares version "{serving}", {own}: register it as a version '
            f"(POST /api/bots/{bot_id}/versions/) to play it, or {back} and run the handshake "
            f"(POST /api/bots/{bot_id}/check/)")


def new_code_webhook_seats(match_ids: set[int]) -> dict[int, dict[int, str]]:
    """Of ``match_ids``, the seats whose bot answered /start with a version other than its
    own (``BotSeat.new_version``), by match, in one query (``SeatKind.new_code_seats``)."""
    found: dict[int, dict[int, str]] = {}
    for match_id, number, version in (BotSeat.objects.filter(match_id__in=match_ids)
                                      .exclude(new_version="")
                                      .values_list("match_id", "number", "new_version")):
        found.setdefault(match_id, {})[number] = version
    return found


#: What :func:`check_webhook_bot` reads of a bot.
_CHECKED_FIELDS = ("enabled", "public", "owner_id", "handshake_ok", "handshake_error", "games")


def match_info(table: Table, bots: dict[int, Bot | None]) -> protocol.MatchInfo:
    """The ``match`` object of every request body: who sits where (public at the table),
    each seat named as every page names it (``games.names``); ``bots`` loaded with their
    owners name theirs without a query."""
    known = {str(bot.pk): bot_label(bot.name, bot.owner.get_username())
             for bot in bots.values() if bot is not None and Bot.owner.is_cached(bot)}
    return protocol.MatchInfo(id=int(table.match_id), game=table.game, options=table.options,
                              seats=seat_labels(table.seats, known_bots={WEBHOOK: known}),
                              timeout_ms=min(settings.BOTS_MOVE_TIMEOUT_MS,
                                             table.move_time_limit * 1000),
                              strike_limit=table.strike_limit or None)


def bot_page_url(bot: str) -> str | None:
    """The bot's public page (``SeatKind.bot_url``)."""
    return reverse("bot-page", args=[int(bot)]) if bot.isdigit() else None


def bot_names(bots: set[str]) -> dict[str, str]:
    """"dice_bot (alice)" for each of ``bots`` (ids as strings) that exists: its owner's name
    for it and the owner's username (``SeatKind.bot_names``)."""
    ids = {int(b) for b in bots if b.isdigit()}
    return {str(pk): bot_label(name, owner) for pk, name, owner in
            Bot.objects.filter(pk__in=ids).values_list("pk", "name", "owner__username")}


def bot_owners(bots: set[str]) -> dict[str, int]:
    """Each of ``bots`` (ids as strings) that exists, with its owner's id
    (``SeatKind.bot_owners``)."""
    ids = {int(b) for b in bots if b.isdigit()}
    return {str(pk): owner for pk, owner in
            Bot.objects.filter(pk__in=ids).values_list("pk", "owner_id")}


def bot_choices(game: str, user: Any) -> list[tuple[str, str]]:
    """The bots ``user`` may seat in ``game`` now, named (``SeatKind.bot_choices``)."""
    return [(str(bot.pk), bot_label(bot.name, bot.owner.get_username()))
            for bot in bots_seatable(game=game, user=user)]


def bot_label(name: str, owner: str) -> str:
    """How a webhook bot is named everywhere: "dice_bot (alice)"."""
    return f"{name} ({owner})"


def _unavailable() -> SeatAnswer:
    return SeatAnswer(strike=BOT_UNAVAILABLE, detail="the bot was deleted or disabled")


class WebhookSession(SeatSession):
    """The webhook seats of one match for one batch: bots looked up once (a bot disabled or
    deleted meanwhile is noticed at the next batch), call records kept until the moves they
    are about are stored."""

    #: The seat kind whose seats it asks; a seat's ``bot`` is an id :meth:`_load` reads.
    kind = WEBHOOK
    #: :meth:`started` may read the bots with its claim (seat ``bot`` values are Bot ids).
    bots_read_with_claim = True
    #: A /start answer's ``version`` is what the bot's own URL serves (:meth:`_note_versions`).
    tracks_versions = True

    def __init__(self, table: Table) -> None:
        self.table = table
        ids: dict[int, int] = {}
        for number in table.notified_seats(self.kind):
            try:
                ids[number] = int(table.seats[number].bot)
            except ValueError:
                continue
        self._bot_ids = ids
        self._bots: dict[int, Bot | None] | None = None
        self._info: protocol.MatchInfo | None = None
        self._caller: WebhookCaller | None = None

    @property
    def bots(self) -> dict[int, Bot | None]:
        """Each webhook seat's bot (None: deleted), with its owner (the bots' labels in every
        request body cost no statement: ``match_info``): read on first use, or with the /start
        claim (:meth:`started`)."""
        if self._bots is None:
            self._found(self._load(set(self._bot_ids.values())))
        return self._bots

    def _load(self, ids: set[int]) -> dict[int, Bot]:
        """The bots the seats name, by the id a seat gives, with their owners."""
        return Bot.objects.select_related("owner").in_bulk(ids)

    def _found(self, bots: dict[int, Bot]) -> None:
        self._bots = {n: bots.get(bot_id) for n, bot_id in self._bot_ids.items()}

    @property
    def caller(self) -> WebhookCaller:
        """Built on first use (a batch that calls nobody costs no user query)."""
        if self._caller is None:
            platform_clock().refresh()  # the time its calls are signed with
            self._info = match_info(self.table, self.bots)
            endpoints = {n: Endpoint(bot.url, bot.secret, bot.compact_legal_actions,
                                     previous_secret=bot_previous_secret(bot=bot),
                                     max_concurrency=bot_concurrency(bot))
                         for n, bot in self.bots.items() if bot is not None}
            self._caller = WebhookCaller(self._info, endpoints, bot_client,
                                         reachability=platform_reachability(),
                                         outage_wait=settings.BOTS_OUTAGE_WAIT_SECONDS)
        return self._caller

    def _available(self, seats: Sequence[int]) -> list[int]:
        return [n for n in seats if (bot := self.bots.get(n)) is not None and bot.enabled]

    # ---- what the match driver and the games task call ------------------------------------

    def ask(self, state: State, seats: Sequence[int], version: int) -> dict[int, SeatAnswer]:
        asked = self._available(seats)
        answers = {n: _unavailable() for n in seats if n not in asked}
        if asked:
            answers.update(self.caller.ask(state, asked))
        return answers

    def ask_one(self, state: State, seat: int, version: int) -> SeatAnswer:
        bot = self.bots.get(seat)
        if bot is None or not bot.enabled:
            return _unavailable()
        return self.caller.ask_one(state, seat)

    def send(self, state: State, seats: Sequence[int], version: int) -> Pending:
        asked = self._available(seats)
        answers = {n: _unavailable() for n in seats if n not in asked}
        if not asked:
            return Answered(answers)
        return self.caller.send(state, asked, call_loop(), answers)

    def started(self, state: State) -> None:
        self._notify(state, "start", self._claim_start())
        self._note_versions()

    def finished(self, state: State) -> None:
        """``/end`` to the seats this task claims it for (a task that finds it claimed sends
        nothing), then its call rows. Claimed after the final moves are stored, by a statement
        of its own (a worker that dies before it leaves /end to the next task), which also
        writes the call rows held until then: the final batch's, whose moves are stored."""
        self._notify(state, "end", self._claim_end())
        self._write_calls(applied=True)

    def announce(self, state: State, *, over: bool) -> Pending:
        """:meth:`started` or :meth:`finished`, the calls left in flight on this thread's
        :func:`~bots.net.call_loop`; the call rows of /end are written once all are back."""
        seats = self._available(self._claim_end() if over else self._claim_start())
        if not seats:
            if over:
                self._write_calls(applied=True)
            return Answered()
        return self.caller.notify_later(state, seats, "end" if over else "start", call_loop(),
                                        (lambda: self._write_calls(applied=True)) if over
                                        else self._note_versions)

    def flush(self, moves: Sequence[Move], applied: bool) -> None:
        """Write the call rows (and, for moves that were stored, the strikes they gave)."""
        self._write_calls(applied=applied)
        if applied:
            self._note_strikes(moves)

    # ---- helpers -------------------------------------------------------------------------

    def _claim_start(self) -> list[int]:
        """The seats this task claims /start for (:meth:`_claim`)."""
        if self._bots is None and self.bots_read_with_claim:  # read with the claim: one statement
            claimed, found = claim_unset(
                BotSeat, self._claim_rows(self.table.match_id, self._bot_ids),
                unique=("match_id", "number"), field="started_at", value=timezone.now(),
                read=(Bot, set(self._bot_ids.values()), "owner"), durable=False)
            self._found(found)
            return sorted(number for _, number in claimed)
        return self._claim(self.table.match_id, self.bots, "started_at")

    def _claim_end(self) -> list[int]:
        """The seats this task claims /end for, with the call rows held until then."""
        held = self._caller.take_records() if self._caller is not None else []
        try:
            return self._claim(self.table.match_id, self.bots, "ended_at",
                               log=self._rows(held, applied=True))
        except BaseException:
            if self._caller is not None:
                self._caller.records[:0] = held  # unwritten: the next flush writes them
            raise

    def _notify(self, state: State, path: str, claimed: Sequence[int]) -> None:
        """``/start`` or ``/end`` to the ``claimed`` seats whose bot is still available."""
        seats = self._available(claimed)
        if seats:
            self.caller.notify(state, seats, path)

    def _note_versions(self) -> None:
        """What the /start answers said of the code that plays (``WebhookCaller.versions``):
        a version other than the one the bot's URL was last seen serving is recorded
        (``Bot.serving_version``: a redeploy noticed at its first match, not at the next
        health check), and one other than the bot's own (``declared_version``) is noted on
        the seat (``BotSeat.new_version``: a ladder does not rate the match). When they agree,
        as in every match but the first after a redeploy, nothing is written."""
        if not self.tracks_versions or self._caller is None:
            return
        versions, self._caller.versions = self._caller.versions, {}
        for seat, version in versions.items():
            bot = self.bots.get(seat)
            if bot is None:
                continue
            if version != bot.serving_version:
                note_serving_version(bot_id=bot.pk, version=version)
                bot.serving_version = version
            if version != bot.declared_version:
                BotSeat.objects.filter(match_id=self.table.match_id, number=seat).update(
                    new_version=version)

    def _write_calls(self, *, applied: bool) -> None:
        if self._caller is None:
            return
        # A log: a database crash may lose its tail.
        insert_rows(BotCall, self._rows(self._caller.take_records(), applied), durable=False)

    def _rows(self, records: Sequence[CallRecord], applied: bool) -> list[dict[str, Any]]:
        return [self._row(record, applied) for record in records
                if self.bots.get(record.seat) is not None]

    def _row(self, record: CallRecord, applied: bool) -> dict[str, Any]:
        moved_on = not applied and record.path == BotCall.Path.MOVE
        return {"bot_id": self.bots[record.seat].pk, "match_id": self.table.match_id,
                "seat": record.seat, "path": record.path, "turn": record.turn,
                "elapsed_ms": record.elapsed_ms, "status": record.status,
                "reason": record.reason, "strike": record.strike and not moved_on,
                "applied": not moved_on, "log": record.log,
                "detail": "; ".join(filter(None, [record.detail,
                                                  NOT_APPLIED if moved_on else ""]))}

    def _note_strikes(self, moves: Sequence[Move]) -> None:
        """Strikes by reason per webhook seat, as the driver gave them."""
        struck: dict[int, list[Move]] = {}
        for move in moves:
            if move.strike and move.seat in self.bots:
                struck.setdefault(move.seat, []).append(move)
        for number, seat_moves in struck.items():
            with transaction.atomic():
                seat, _ = BotSeat.objects.select_for_update().get_or_create(
                    match_id=self.table.match_id, number=number,
                    defaults={"bot": self.bots[number]})
                for move in seat_moves:
                    seat.strikes[move.strike] = seat.strikes.get(move.strike, 0) + 1
                last = seat_moves[-1]
                seat.last_error = {"turn": last.turn, "reason": last.strike,
                                   "detail": last.detail}
                seat.save(update_fields=["strikes", "last_error"])

    @staticmethod
    def _claim(match_id: int | str, bots: dict[int, Bot | None], field: str, *,
               log: Sequence[dict[str, Any]] = ()) -> list[int]:
        """Set ``field`` (``started_at`` or ``ended_at``) to now on each seat's
        :class:`BotSeat` where it is unset, creating missing rows; the seat numbers set here.
        One atomic upsert (``games.db.claim_unset``), so of two tasks racing for a match
        exactly one sends each call, in one round trip, with ``log`` (call rows) inserted in
        it. Its commit, when it is a transaction of its own, does not wait for the disk
        (``durable=False``): only a database crash could undo it, and then the task redoes
        its unstored batch, this call with it."""
        if field not in ("started_at", "ended_at"):
            raise ValueError(field)
        ids = {number: bot.pk if bot else None for number, bot in bots.items()}
        claimed, _ = claim_unset(BotSeat, WebhookSession._claim_rows(match_id, ids),
                                 unique=("match_id", "number"), field=field,
                                 value=timezone.now(), durable=False,
                                 insert_first=(BotCall, log) if log else None)
        return sorted(number for _, number in claimed)

    @staticmethod
    def _claim_rows(match_id: int | str, bot_ids: dict[int, int | None]) -> list[dict[str, Any]]:
        return [{"match_id": int(match_id), "number": number, "bot_id": bot_id}
                for number, bot_id in bot_ids.items()]


class WebhookSeatKind:
    """The automatic seat of kind ``webhook`` (one instance per process)."""

    def session(self, table: Table) -> WebhookSession:
        return WebhookSession(table)

    def pump(self, timeout: float) -> None:
        """Drive this thread's calls in flight (``games.seats.PumpedSeat``)."""
        call_loop().pump(timeout)


WEBHOOK_KIND = WebhookSeatKind()


def register() -> None:
    from games.seats import register_seat_kind

    register_seat_kind(SeatKind(name=WEBHOOK, automatic=WEBHOOK_KIND, inline=False,
                                check_bot=check_webhook_bot,
                                unseatable=unseatable_webhook_bots,
                                redeployed=redeployed_webhook_bots,
                                new_code_seats=new_code_webhook_seats, bot_is_id=True,
                                bot_names=bot_names, bot_url=bot_page_url,
                                bot_choices=bot_choices, bot_owners=bot_owners,
                                label="webhook bot"))
