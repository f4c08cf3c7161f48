"""URLs of the tournaments API, mounted under /api/ by config.urls."""

from django.urls import path

from games import converters  # noqa: F401 - registers <id:...>

from . import apis, league_apis

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
    path("leagues/", league_apis.LeagueListCreateApi.as_view(), name="league-list"),
    path("leagues/<id:league_id>/", league_apis.LeagueDetailApi.as_view(), name="league-detail"),
    path("leagues/<id:league_id>/table/", league_apis.LeagueTableApi.as_view(),
         name="league-table"),
    path("leagues/<id:league_id>/nights/", league_apis.LeagueNightsApi.as_view(),
         name="league-nights"),
    path("leagues/<id:league_id>/nights/<id:number>/cancel/",
         league_apis.LeagueNightCancelApi.as_view(), name="league-night-cancel"),
    path("leagues/<id:league_id>/members/", league_apis.LeagueMemberJoinApi.as_view(),
         name="league-members"),
    path("leagues/<id:league_id>/members/<id:index>/leave/",
         league_apis.LeagueMemberLeaveApi.as_view(), name="league-member-leave"),
    path("ratings/<str:game>/", apis.RatingLeaderboardApi.as_view(), name="rating-leaderboard"),
]
