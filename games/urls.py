"""URLs of the games API, mounted under /api/ by config.urls."""

from django.urls import path

from . import converters  # noqa: F401 - registers <id:...>
from .apis import accounts, catalogue, logs, matches, polling

app_name = "games"

urlpatterns = [
    path("auth/signup/", accounts.SignUpApi.as_view(), name="signup"),
    path("auth/token/", accounts.TokenApi.as_view(), name="token"),
    path("games/", catalogue.GameListApi.as_view(), name="game-list"),
    path("matches/", matches.MatchListCreateApi.as_view(), name="match-list"),
    path("matches/<id:match_id>/", matches.MatchDetailApi.as_view(), name="match-detail"),
    path("matches/<id:match_id>/join/", matches.MatchJoinApi.as_view(), name="match-join"),
    path("matches/<id:match_id>/leave/", matches.MatchLeaveApi.as_view(), name="match-leave"),
    path("matches/<id:match_id>/view/", polling.PublicViewApi.as_view(), name="match-view"),
    path("matches/<id:match_id>/log/", logs.MatchLogApi.as_view(), name="match-log"),
    path("matches/<id:match_id>/log.jsonl", logs.MatchLogExportApi.as_view(),
         name="match-log-export"),
    path("matches/<id:match_id>/seats/<id:seat>/", polling.SeatViewApi.as_view(),
         name="seat-view"),
    path("matches/<id:match_id>/seats/<id:seat>/actions/", polling.SeatActApi.as_view(),
         name="seat-act"),
    path("matches/<id:match_id>/seats/<id:seat>/resign/", polling.SeatResignApi.as_view(),
         name="seat-resign"),
]
