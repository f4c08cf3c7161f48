"""URLs of the tournaments API, mounted under /api/ by config.urls."""

from django.urls import path

from . import apis

app_name = "tournaments"

urlpatterns = [
    path("tournaments/", apis.TournamentListCreateApi.as_view(), name="tournament-list"),
    path("tournaments/<int:tournament_id>/", apis.TournamentDetailApi.as_view(),
         name="tournament-detail"),
    path("tournaments/<int:tournament_id>/standings/", apis.TournamentStandingsApi.as_view(),
         name="tournament-standings"),
    path("tournaments/<int:tournament_id>/matches/", apis.TournamentMatchesApi.as_view(),
         name="tournament-matches"),
    path("tournaments/<int:tournament_id>/cancel/", apis.TournamentCancelApi.as_view(),
         name="tournament-cancel"),
    path("ratings/<str:game>/", apis.RatingLeaderboardApi.as_view(), name="rating-leaderboard"),
]
