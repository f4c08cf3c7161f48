"""URLs of the games API, mounted under /api/ by config.urls."""

from django.urls import path

from . import apis

app_name = "games"

urlpatterns = [
    path("auth/signup/", apis.SignUpApi.as_view(), name="signup"),
    path("auth/token/", apis.TokenApi.as_view(), name="token"),
    path("games/", apis.GameListApi.as_view(), name="game-list"),
    path("matches/", apis.MatchListCreateApi.as_view(), name="match-list"),
    path("matches/<int:match_id>/", apis.MatchDetailApi.as_view(), name="match-detail"),
    path("matches/<int:match_id>/join/", apis.MatchJoinApi.as_view(), name="match-join"),
    path("matches/<int:match_id>/leave/", apis.MatchLeaveApi.as_view(), name="match-leave"),
    path("matches/<int:match_id>/view/", apis.PublicViewApi.as_view(), name="match-view"),
    path("matches/<int:match_id>/log/", apis.MatchLogApi.as_view(), name="match-log"),
    path("matches/<int:match_id>/log.jsonl", apis.MatchLogExportApi.as_view(),
         name="match-log-export"),
    path("matches/<int:match_id>/seats/<int:seat>/", apis.SeatViewApi.as_view(),
         name="seat-view"),
    path("matches/<int:match_id>/seats/<int:seat>/actions/", apis.SeatActApi.as_view(),
         name="seat-act"),
    path("matches/<int:match_id>/seats/<int:seat>/resign/", apis.SeatResignApi.as_view(),
         name="seat-resign"),
]
