"""URLs of the tournaments API, mounted under /api/ by config.urls."""

from django.urls import path

from games import converters  # noqa: F401 - registers <id:...>

from . import apis

app_name = "tournaments"

urlpatterns = [
    path("tournaments/", apis.TournamentListCreateApi.as_view(), name="tournament-list"),
    path("tournaments/<id:tournament_id>/", apis.TournamentDetailApi.as_view(),
         name="tournament-detail"),
    path("tournaments/<id:tournament_id>/standings/", apis.TournamentStandingsApi.as_view(),
         name="tournament-standings"),
    path("tournaments/<id:tournament_id>/matches/", apis.TournamentMatchesApi.as_view(),
         name="tournament-matches"),
    path("tournaments/<id:tournament_id>/cancel/", apis.TournamentCancelApi.as_view(),
         name="tournament-cancel"),
    path("ratings/<str:game>/", apis.RatingLeaderboardApi.as_view(), name="rating-leaderboard"),
]
