"""A league's members: join (one or several at once) and leave."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, PolymorphicProxySerializer, extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.converters import ID_SCHEMA
from lib.api import E401, E429, error_response, name_nested_serializers

from ..leagues import services as leagues
from .common import TournamentParticipantSpecSerializer
from .leagues import E403, E404, LEAGUE_ID, LeagueMemberSerializer, members_data

MEMBER_INDEX = OpenApiParameter("index", ID_SCHEMA, OpenApiParameter.PATH,
                                description="The member's index (0, 1, 2 ... in joining order).")


class LeagueMemberJoinApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=["leagues"], operation_id="leagues_members_join",
        summary="Add a member, or several at once (organiser or staff)",
        description="One member (an object) or several (a list, all or none) enter the social "
                    "order at the next night, in the middle, in the order given; the answer "
                    "is the member, or the list of them. While the league has a night to come, "
                    "a join that would leave members who cannot fill the tables is refused "
                    "(a sixth member at tables of up to 5: join a sixth and a seventh as a "
                    "list) (docs/leagues.md).",
        parameters=[LEAGUE_ID],
        request=PolymorphicProxySerializer(
            component_name="LeagueMemberJoin", resource_type_field_name=None, many=False,
            serializers=[TournamentParticipantSpecSerializer,
                         TournamentParticipantSpecSerializer(many=True)]),
        responses={201: PolymorphicProxySerializer(
                       component_name="LeagueMemberJoined", resource_type_field_name=None,
                       many=False,
                       serializers=[LeagueMemberSerializer, LeagueMemberSerializer(many=True)]),
                   401: E401, 403: E403, 404: E404, 429: E429,
                   400: error_response("Bad request, or it cannot be a member.",
                               ("bad_league", "member 5: no user 'ghost'", None),
                               ("bad_league", "dice_bot is a member already (member 2)", None),
                               ("bad_league", ("1 member cannot join while nights are to come: "
                                "6 members cannot fill tables of at least 4 and at most 5 "
                                "players (the best cut is 2 table(s) of 3, 3); add them with "
                                "the members the tables need (a list)"), None),
                               ("invalid", ("kind: unknown entrant kind 'alien' (known: "
                                            "player, reference, webhook)"), None))},
    )
    def post(self, request: Request, league_id: int) -> Response:
        several = isinstance(request.data, list)
        data = TournamentParticipantSpecSerializer(data=request.data, many=several)
        data.is_valid(raise_exception=True)
        joined = leagues.members_join(league_id=league_id, user=request.user,
                                      specs=data.validated_data if several
                                      else [data.validated_data])
        answer = LeagueMemberSerializer(members_data(joined), many=True).data
        return Response(answer if several else answer[0], status=status.HTTP_201_CREATED)


class LeagueMemberLeaveApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=["leagues"], operation_id="leagues_members_leave",
        summary="A member leaves (organiser or staff)",
        description="Removed from the order before the next night; its hands stay in the "
                    "season table. Leaving twice keeps the first left_at. Refused while a "
                    "night is to come that the members left could not fill the tables of (add "
                    "a member first).",
        parameters=[LEAGUE_ID, MEMBER_INDEX], request=None,
        responses={200: LeagueMemberSerializer, 401: E401, 403: E403, 404: E404, 429: E429,
                   400: error_response("The league could not play without it.",
                               ("bad_league", ("member 1 cannot leave while nights are to "
                                               "come: 3 members cannot fill tables of at least "
                                               "4 and at most 5 players (the best cut is 1 "
                                               "table(s) of 3); add a member first"), None))},
    )
    def post(self, request: Request, league_id: int, index: int) -> Response:
        member = leagues.member_leave(league_id=league_id, user=request.user, index=index)
        return Response(LeagueMemberSerializer(members_data([member])[0]).data)


name_nested_serializers(globals())
