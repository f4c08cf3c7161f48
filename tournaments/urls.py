"""URLs of the tournaments API, mounted under /api/ by config.urls."""

from django.urls import path

from games import converters  # noqa: F401 - registers <id:...>

from .apis import (
    ladders,
    league_members,
    league_nights,
    leagues,
    ratings,
    tournament_entries,
    tournaments,
)

app_name = "tournaments"

urlpatterns = [
    path("tournaments/", tournaments.TournamentListCreateApi.as_view(), name="tournament-list"),
    path("tournaments/<id:tournament_id>/", tournaments.TournamentDetailApi.as_view(),
         name="tournament-detail"),
    path("tournaments/<id:tournament_id>/standings/", tournaments.TournamentStandingsApi.as_view(),
         name="tournament-standings"),
    path("tournaments/<id:tournament_id>/matches/", tournaments.TournamentMatchesApi.as_view(),
         name="tournament-matches"),
    path("tournaments/<id:tournament_id>/cancel/", tournaments.TournamentCancelApi.as_view(),
         name="tournament-cancel"),
    path("tournaments/<id:tournament_id>/entries/",
         tournament_entries.TournamentEntriesApi.as_view(), name="tournament-entries"),
    path("leagues/", leagues.LeagueListCreateApi.as_view(), name="league-list"),
    path("leagues/<id:league_id>/", leagues.LeagueDetailApi.as_view(), name="league-detail"),
    path("leagues/<id:league_id>/table/", leagues.LeagueTableApi.as_view(),
         name="league-table"),
    path("leagues/<id:league_id>/nights/", league_nights.LeagueNightsApi.as_view(),
         name="league-nights"),
    path("leagues/<id:league_id>/nights/<id:number>/cancel/",
         league_nights.LeagueNightCancelApi.as_view(), name="league-night-cancel"),
    path("leagues/<id:league_id>/members/", league_members.LeagueMemberJoinApi.as_view(),
         name="league-members"),
    path("leagues/<id:league_id>/members/<id:index>/leave/",
         league_members.LeagueMemberLeaveApi.as_view(), name="league-member-leave"),
    path("ratings/<str:game>/", ratings.RatingLeaderboardApi.as_view(), name="rating-leaderboard"),
    path("ladders/", ladders.LadderListApi.as_view(), name="ladder-list"),
    path("ladders/<str:game>/", ladders.LadderDetailApi.as_view(), name="ladder-detail"),
    path("ladders/<str:game>/matches/", ladders.LadderMatchesApi.as_view(),
         name="ladder-matches"),
    path("ladders/<str:game>/entries/", ladders.LadderEntriesApi.as_view(),
         name="ladder-entries"),
    path("ladders/<str:game>/entries/<id:bot>/", ladders.LadderEntryLeaveApi.as_view(),
         name="ladder-entry"),
]
