"""Entering a tournament open for entries, and leaving it before it starts
(``tournaments.entries``)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import fields
from games.seats import PLAYER, bot_reference
from lib.api import E401, E429, error_response, name_nested_serializers, valid_query

from .. import entries, selectors
from ..models import Participant
from .common import EntrantKindField
from .tournaments import TOURNAMENT_ID, TournamentParticipantSerializer

E403 = error_response("Not your bot.", ("not_your_bot", ("webhook bot 7 is not yours: only its "
                                                         "owner enters it"), None))
E409 = error_response("The tournament has started (or is over): entries are closed.",
                      ("tournament_started", ("the tournament is running: entries closed when "
                                              "it started"), None))


class EntrySerializer(fields.StrictSerializer):
    kind = EntrantKindField(
        required=False, default=PLAYER,
        help_text="player (default): you enter yourself, and play your seats by polling or in "
                  "the browser; webhook: one of your bots, named by `bot`.")
    bot = fields.BotReferenceField(required=False, max_length=100,
                                   help_text="The bot's id (a bot of yours that plays the "
                                             "tournament's game).")
    name = serializers.CharField(required=False, max_length=100,
                                 help_text="Its label in this tournament (default \"<kind> "
                                           "<bot>\" or your username).")


class LeaveSerializer(serializers.Serializer):
    kind = EntrantKindField(required=False, default=PLAYER,
                            help_text="player (default): yourself; webhook: your bot `bot`.")
    bot = serializers.CharField(required=False, max_length=100, help_text="The bot's id.")
    user = serializers.CharField(
        required=False, max_length=150, source="username",
        help_text="player: whose entry (default yours); only the organiser (or staff) takes "
                  "out someone else's.")


def _participant(entry: Participant) -> dict:
    name = selectors.entrant_labels([entry])[entry.index]
    return TournamentParticipantSerializer({
        "index": entry.index, "name": name, "label": entry.name, "kind": entry.kind,
        "bot": bot_reference(entry.kind, entry.bot),
        "user": entry.user.get_username() if entry.user_id else None,
        "withdrawn": entry.withdrawn, "withdrawn_reason": entry.withdrawn_reason or None}).data


class TournamentEntriesApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=["tournaments"], operation_id="tournaments_entries_enter",
        summary="Enter yourself or one of your bots (a tournament open for entries)",
        description="Until the tournament starts, if its organiser opened it for entries "
                    "(`entries_open`), up to its `entry_cap`. A webhook bot must be yours and "
                    "play the tournament's game, enabled and through its handshake; its "
                    "matches are made for the organiser, so a private bot enters only its "
                    "owner's tournaments. The answer is the new participant (the last).",
        parameters=[TOURNAMENT_ID], request=EntrySerializer,
        responses={
            201: TournamentParticipantSerializer, 401: E401, 403: E403, 409: E409, 429: E429,
            404: error_response("No such tournament.",
                                ("tournament_not_found", "No such tournament.", None)),
            400: error_response(
                "Closed, full, entered already, or the bot cannot play it.",
                ("entries_closed", ("this tournament is not open for entries: its organiser "
                                    "chose its participants when creating it; ask them to add "
                                    "you"), None),
                ("tournament_full", ("the tournament is full (8 of 8 places taken); enter "
                                     "again if someone leaves before the start"), None),
                ("already_entered", ("dice_bot (alice) is entered already (participant 2); to "
                                     "enter again, leave first"), None),
                ("bad_entry", ("bot 7 does not play dice_cup (its handshake lists dtc): only "
                               "a bot that plays dice_cup, enabled, through its handshake and "
                               "public (unless the tournament is yours) can enter; enter "
                               "another bot, or fix this one on its page"), None),
                ("invalid", ("kind: unknown entrant kind 'alien' (known: player, "
                             "reference, webhook)"), None)),
        },
        examples=[OpenApiExample("one of your bots", request_only=True,
                                 value={"kind": "webhook", "bot": 7}),
                  OpenApiExample("yourself", request_only=True, value={"kind": "player"})],
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        data = EntrySerializer(data=request.data)
        data.is_valid(raise_exception=True)
        entry = entries.tournament_enter(tournament_id=tournament_id, user=request.user,
                                         **data.validated_data)
        return Response(_participant(entry), status=status.HTTP_201_CREATED)

    @extend_schema(
        tags=["tournaments"], operation_id="tournaments_entries_leave",
        summary="Leave before the start: yourself or your bot",
        description="The participants entered after it move up one place (their index). The "
                    "organiser (or staff) may take out any entry (a person's by `user`).",
        parameters=[TOURNAMENT_ID, LeaveSerializer], request=None,
        responses={204: None, 401: E401, 409: E409, 429: E429,
                   403: error_response("Not your bot, or someone else's entry.",
                                       ("not_your_bot", ("webhook bot 7 is not yours: only its "
                                                         "owner enters it"), None),
                                       ("not_your_tournament", ("only the tournament's "
                                        "organiser (or staff) takes out someone else's entry; "
                                        "leave with your own"), None)),
                   400: error_response("Not open for entries.",
                                       ("entries_closed", ("this tournament is not open for "
                                                           "entries: ..."), None)),
                   404: error_response("No such tournament, or not entered.",
                                       ("tournament_not_found", "No such tournament.", None),
                                       ("not_entered", "you are not entered in this tournament",
                                        None))},
    )
    def delete(self, request: Request, tournament_id: int) -> Response:
        query = valid_query(LeaveSerializer, request)
        entries.tournament_leave(tournament_id=tournament_id, user=request.user, **query)
        return Response(status=status.HTTP_204_NO_CONTENT)


name_nested_serializers(globals())
