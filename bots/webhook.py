"""The ``webhook`` seat kind: a seat of a real match played by a registered :class:`Bot`.

Registered from :meth:`bots.apps.BotsConfig.ready` with ``games.seats.register_seat_kind``;
``games`` never imports this module. A seat spec ``{"kind": "webhook", "bot": <bot id>}`` seats
the bot if it is enabled, passed its handshake and plays the game, and is public (any user may
seat it: bots are here to meet) or the match's creator owns it.

The ``games.advance_automatic_seats`` task asks this kind (in batches, see
``games.services.match_advance_automatic_seats``) for every due webhook seat of a step at once
(:meth:`WebhookSeatKind.choose_many`): it calls the bots concurrently through
:mod:`bots.protocol` and :mod:`bots.net`, signed, and turns every failure into a
:class:`games.seats.SeatAnswer` with a strike reason (the games service then plays the default
action, counts the strike and forfeits the seat at the match's ``strike_limit``). Every call is
logged as a :class:`BotCall` (the bot's stats); strikes are also kept per seat on
:class:`BotSeat`. ``/start`` and ``/end`` are sent once per seat (claimed by one conditional
upsert), so a task that runs twice never sends them twice.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.utils import timezone

from games.engine import State
from games.models import Match
from games.seats import SeatAnswer, SeatKind
from games.selectors import load_state

from . import protocol
from .models import Bot, BotCall, BotSeat
from .net import Call, Reply
from .services import bot_client

log = logging.getLogger(__name__)

WEBHOOK = "webhook"
#: Attributes of a Match object: bots and match info cached for a batch; unwritten call rows.
_CACHE = "_webhook_bots_info"
_PENDING_CALLS = "_webhook_pending_calls"
#: Strike reason of a seat whose bot was disabled or deleted during the match.
BOT_UNAVAILABLE = "bot_unavailable"

JSON = dict[str, Any]


def check_webhook_bot(game_id: str, bot: str, user: Any = None) -> None:
    """Raise ``ValueError`` (a readable reason) unless ``user`` (the match's creator) can seat
    bot id ``bot`` in ``game_id`` now."""
    try:
        bot_id = int(bot)
    except (TypeError, ValueError):
        raise ValueError(f"a webhook seat needs a bot id, not {bot!r}") from None
    found = Bot.objects.filter(pk=bot_id).first()
    if found is None:
        raise ValueError(f"no bot {bot_id}")
    if not found.enabled:
        raise ValueError(f"bot {bot_id} is disabled")
    if not found.public and (user is None or user.pk != found.owner_id):
        raise ValueError(f"bot {bot_id} is private: only its owner may seat it")
    if not found.handshake_ok:
        raise ValueError(f"bot {bot_id} has not passed its handshake: {found.handshake_error}")
    if game_id not in found.games:
        raise ValueError(f"bot {bot_id} does not play {game_id} (its handshake lists "
                         f"{', '.join(found.games) or 'nothing'})")


def _timeout_ms(match: Match) -> int:
    return min(settings.BOTS_MOVE_TIMEOUT_MS, match.move_time_limit * 1000)


class WebhookSeatKind:
    """The automatic seat of kind ``webhook`` (one instance per process; thread-safe)."""

    # ---- what the games task calls -------------------------------------------------------

    def choose(self, match: Match, seat_number: int, view: JSON,
               legal_actions: Sequence[JSON]) -> JSON:
        # games prefers choose_many, which needs the engine state to build protocol bodies.
        raise NotImplementedError("the webhook kind answers through choose_many")

    def choose_many(self, match: Match, state: State,
                    seats: Sequence[int]) -> dict[int, SeatAnswer]:
        bots, info = self._bots_and_info(match)
        answers: dict[int, SeatAnswer] = {}
        asked = []
        for number in seats:
            bot = bots.get(number)
            if bot is None or not bot.enabled:
                answers[number] = SeatAnswer(strike=BOT_UNAVAILABLE,
                                             detail="the bot was deleted or disabled")
            else:
                asked.append(number)
        replies, rows = self._call_seats(match, state, info, bots, asked, "move",
                                         protocol.move_body)
        for row in rows:  # bodies we could not build: a default action, no strike
            answers[row.seat] = SeatAnswer(detail=f"platform error: {row.detail}")
        for number, reply in replies.items():
            outcome = reply.failure or protocol.parse_move_answer(state, number, reply.body)
            row = self._row(bots[number], match, number, "move", state.moves, reply)
            if isinstance(outcome, protocol.MoveAnswer):
                answers[number] = SeatAnswer(action=outcome.action)
                row.log = outcome.log or ""
            else:
                row.reason, row.detail = outcome.reason, outcome.detail
                row.strike = outcome.is_bot_fault
                answers[number] = SeatAnswer(strike=outcome.reason if row.strike else None,
                                             detail=outcome.detail)
            rows.append(row)
        # Written by flush(), in the transaction that stores the moves they are about.
        match.__dict__.setdefault(_PENDING_CALLS, []).extend(rows)
        for number, answer in answers.items():
            if answer.strike:
                self._note_strike(match, number, bots.get(number), answer, state.moves)
        return answers

    def flush(self, match: Match) -> None:
        """Write the /move call rows ``choose_many`` kept on ``match`` (called by the games
        task before it commits the moves they are about)."""
        rows = match.__dict__.pop(_PENDING_CALLS, None)
        if rows:
            BotCall.objects.bulk_create(rows)

    def match_started(self, match: Match) -> None:
        self._notify(match, "start")

    def match_finished(self, match: Match) -> None:
        self._notify(match, "end")

    # ---- helpers -------------------------------------------------------------------------

    def _bots_and_info(self, match: Match) -> tuple[dict[int, Bot | None], protocol.MatchInfo]:
        """The seated bots and the match info of the request bodies, kept on the ``match``
        object: the games task reuses one object for a batch of moves (at most about a
        second), so a bot disabled or deleted meanwhile is noticed at the next batch."""
        cached = match.__dict__.get(_CACHE)
        if cached is None:
            bots = self._bots(match)
            cached = match.__dict__[_CACHE] = (bots, self._info(match, bots))
        return cached

    @staticmethod
    def _bots(match: Match) -> dict[int, Bot | None]:
        ids: dict[int, int] = {}
        for seat in match.seats.all():
            if seat.kind == WEBHOOK:
                try:
                    ids[seat.number] = int(seat.bot_name)
                except ValueError:
                    continue
        found = Bot.objects.in_bulk(set(ids.values()))
        return {number: found.get(bot_id) for number, bot_id in ids.items()}

    @staticmethod
    def _info(match: Match, bots: dict[int, Bot | None]) -> protocol.MatchInfo:
        seats = list(match.seats.all())
        user_ids = {s.user_id for s in seats if s.user_id}
        names = dict(get_user_model().objects.filter(pk__in=user_ids)
                     .values_list("pk", "username")) if user_ids else {}
        labels = []
        for seat in seats:
            if seat.kind == WEBHOOK:
                bot = bots.get(seat.number)
                labels.append(bot.name if bot else "deleted bot")
            elif seat.user_id:
                labels.append(names.get(seat.user_id, "player"))
            elif seat.bot_name:
                labels.append(f"{seat.kind} {seat.bot_name}")
            else:
                labels.append("open seat")
        return protocol.MatchInfo(id=str(match.pk), game=match.game, options=match.options,
                                  seats=labels, timeout_ms=_timeout_ms(match),
                                  strike_limit=match.strike_limit or None)

    @staticmethod
    def _row(bot: Bot, match: Match, seat: int, path: str, turn: int, reply: Reply) -> BotCall:
        return BotCall(bot=bot, match_id=match.pk, seat=seat, path=path, turn=turn,
                       elapsed_ms=reply.elapsed * 1000, status=reply.status)

    @staticmethod
    def _call_seats(match: Match, state: State, info: protocol.MatchInfo,
                    bots: dict[int, Bot | None], seats: Sequence[int], path: str,
                    make_body: Callable[[protocol.MatchInfo, State, int], JSON],
                    ) -> tuple[dict[int, Reply], list[BotCall]]:
        """Build each seat's ``path`` body and call those bots at once: their replies by seat,
        and a ``platform_error`` call row (logged, never sent, never a strike) for each body
        we could not build."""
        calls: list[Call] = []
        asked: list[int] = []
        failed: list[BotCall] = []
        for number in seats:
            bot = bots[number]
            try:
                body = protocol.encode(make_body(info, state, number))
            except Exception as exc:  # noqa: BLE001 - our bug must not stop the match
                log.exception("match %s seat %s: building /%s failed", match.pk, number, path)
                failed.append(BotCall(bot=bot, match_id=match.pk, seat=number, path=path,
                                      turn=state.moves, elapsed_ms=0.0,
                                      reason=protocol.PLATFORM_ERROR, detail=repr(exc)))
                continue
            calls.append(Call(url=bot.url, path=path, body=body, secret=bot.secret,
                              timeout=info.timeout_ms / 1000))
            asked.append(number)
        replies = bot_client().call_many(calls) if calls else []
        return dict(zip(asked, replies, strict=True)), failed

    @staticmethod
    def _note_strike(match: Match, number: int, bot: Bot | None, answer: SeatAnswer,
                     turn: int) -> None:
        with transaction.atomic():
            seat, _ = BotSeat.objects.select_for_update().get_or_create(
                match_id=match.pk, number=number, defaults={"bot": bot})
            seat.strikes[answer.strike] = seat.strikes.get(answer.strike, 0) + 1
            seat.last_error = {"turn": turn, "reason": answer.strike, "detail": answer.detail}
            seat.save(update_fields=["strikes", "last_error"])

    def _notify(self, match: Match, path: str) -> None:
        """/start or /end, once per webhook seat, to all of them at once; answers are ignored,
        failures logged (never a strike)."""
        bots = self._bots(match)
        if not bots:
            return
        claimed = [n for n in self._claim(match, bots, "started_at" if path == "start"
                                          else "ended_at")
                   if bots.get(n) is not None and bots[n].enabled]
        if not claimed:
            return
        state = load_state(match)
        info = self._info(match, bots)
        make = protocol.start_body if path == "start" else protocol.end_body
        replies, rows = self._call_seats(match, state, info, bots, claimed, path, make)
        for number, reply in replies.items():
            row = self._row(bots[number], match, number, path, state.moves, reply)
            if reply.failure is not None:
                row.reason, row.detail = reply.failure.reason, reply.failure.detail
            rows.append(row)
        BotCall.objects.bulk_create(rows)

    @staticmethod
    def _claim(match: Match, bots: dict[int, Bot | None], field: str) -> list[int]:
        """Set ``field`` (``started_at`` or ``ended_at``) to now on each seat's
        :class:`BotSeat` where it is unset, creating missing rows; the seat numbers set here.

        One atomic upsert, so of two tasks racing for a match exactly one sends each call, in
        one round trip: PostgreSQL and SQLite (3.35+) both have ``ON CONFLICT ... DO UPDATE
        ... WHERE`` and ``RETURNING``, and the ORM can express neither that WHERE nor "return
        only the rows changed".
        """
        if field not in ("started_at", "ended_at"):
            raise ValueError(field)
        table = connection.ops.quote_name(BotSeat._meta.db_table)
        now = BotSeat._meta.get_field(field).get_db_prep_value(timezone.now(), connection)
        params: list[Any] = []
        for number, bot in bots.items():
            params += [match.pk, number, bot.pk if bot else None, now]
        values = ", ".join(["(%s, %s, %s, %s, '{}')"] * len(bots))
        sql = (f"INSERT INTO {table} (match_id, number, bot_id, {field}, strikes) "
               f"VALUES {values} ON CONFLICT (match_id, number) DO UPDATE "
               f"SET {field} = excluded.{field} WHERE {table}.{field} IS NULL "
               "RETURNING number")
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return sorted(row[0] for row in cursor.fetchall())


WEBHOOK_KIND = WebhookSeatKind()


def register() -> None:
    from games.seats import register_seat_kind

    register_seat_kind(SeatKind(name=WEBHOOK, automatic=WEBHOOK_KIND, inline=False,
                                check_bot=check_webhook_bot))
