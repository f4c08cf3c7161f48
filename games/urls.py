"""URLs of the games API, mounted under /api/ by config.urls."""

from django.urls import path

from . import (
    apis,
    converters,  # noqa: F401 - registers <id:...>
)

app_name = "games"

urlpatterns = [
    path("auth/signup/", apis.SignUpApi.as_view(), name="signup"),
    path("auth/token/", apis.TokenApi.as_view(), name="token"),
    path("games/", apis.GameListApi.as_view(), name="game-list"),
    path("matches/", apis.MatchListCreateApi.as_view(), name="match-list"),
    path("matches/<id:match_id>/", apis.MatchDetailApi.as_view(), name="match-detail"),
    path("matches/<id:match_id>/join/", apis.MatchJoinApi.as_view(), name="match-join"),
    path("matches/<id:match_id>/leave/", apis.MatchLeaveApi.as_view(), name="match-leave"),
    path("matches/<id:match_id>/view/", apis.PublicViewApi.as_view(), name="match-view"),
    path("matches/<id:match_id>/log/", apis.MatchLogApi.as_view(), name="match-log"),
    path("matches/<id:match_id>/log.jsonl", apis.MatchLogExportApi.as_view(),
         name="match-log-export"),
    path("matches/<id:match_id>/seats/<id:seat>/", apis.SeatViewApi.as_view(),
         name="seat-view"),
    path("matches/<id:match_id>/seats/<id:seat>/actions/", apis.SeatActApi.as_view(),
         name="seat-act"),
    path("matches/<id:match_id>/seats/<id:seat>/resign/", apis.SeatResignApi.as_view(),
         name="seat-resign"),
]
