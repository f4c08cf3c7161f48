"""Top-level URLs: the site's pages, the API, its OpenAPI schema and docs, the admin, and the
health check."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from bots import pages as bot_pages
from games import (
    account_pages,
    converters,  # noqa: F401 - registers <id:...> for the page URLs
    play_pages,
)
from games.pages import match_list_page, match_page, play_page, rules
from tournaments.web import ladder_pages, organise_pages
from tournaments.web import pages as tournament_pages

from . import versions_api, versions_pages
from .exceptions import api_not_found
from .health import healthz
from .pages import game_page, home

handler400 = "config.exceptions.bad_request"
handler500 = "config.exceptions.server_error"

urlpatterns = [
    path("", home, name="home"),
    path("games/<str:game>/", game_page, name="game-page"),
    path("games/<str:game>/rules/", rules, name="game-rules"),
    path("play/", play_pages.new_match, name="new-match"),
    path("play/open/", play_pages.open_matches, name="open-matches"),
    path("matches/", match_list_page, name="match-list-page"),
    path("matches/<id:match_id>/", match_page, name="match-page"),
    path("matches/<id:match_id>/play/", play_page, name="play-page"),
    path("tournaments/", tournament_pages.tournament_list, name="tournament-list-page"),
    path("tournaments/new/", organise_pages.tournament_new, name="tournament-new"),
    path("tournaments/<id:tournament_id>/", tournament_pages.tournament, name="tournament-page"),
    path("tournaments/<id:tournament_id>/cancel/", organise_pages.tournament_cancel,
         name="tournament-cancel"),
    path("tournaments/<id:tournament_id>/entries/", organise_pages.tournament_enter,
         name="tournament-enter"),
    path("tournaments/<id:tournament_id>/entries/leave/", organise_pages.tournament_leave,
         name="tournament-leave"),
    path("leagues/", tournament_pages.league_list, name="league-list-page"),
    path("leagues/new/", organise_pages.league_new, name="league-new"),
    path("leagues/<id:league_id>/", tournament_pages.league, name="league-page"),
    path("leagues/<id:league_id>/nights/", organise_pages.night_add, name="league-night-add"),
    path("leagues/<id:league_id>/members/", organise_pages.member_add,
         name="league-member-add"),
    path("leagues/<id:league_id>/nights/<int:number>/", tournament_pages.night,
         name="league-night-page"),
    path("leagues/<id:league_id>/nights/<int:number>/cancel/", organise_pages.night_cancel,
         name="league-night-cancel"),
    path("ladders/<str:game>/", ladder_pages.ladder, name="ladder-page"),
    path("ladders/<str:game>/enter/", ladder_pages.ladder_enter, name="ladder-enter"),
    path("ladders/<str:game>/leave/", ladder_pages.ladder_enter, {"leave": True},
         name="ladder-leave"),
    path("sign-in/", auth_views.LoginView.as_view(authentication_form=account_pages.SignInForm),
         name="sign-in"),
    path("sign-out/", auth_views.LogoutView.as_view(), name="sign-out"),
    path("sign-up/", account_pages.sign_up, name="sign-up"),
    path("account/", account_pages.account, name="account"),
    path("account/token/", account_pages.rotate_token, name="account-rotate-token"),
    path("me/", account_pages.my_matches, name="my-matches"),
    path("bots/", bot_pages.my_bots, name="my-bots"),
    path("bots/<id:bot_id>/", bot_pages.bot_page, name="bot-page"),
    path("bots/new/", bot_pages.bot_new, name="bot-new"),
    path("bots/<id:bot_id>/settings/", bot_pages.bot_settings, name="bot-settings"),
    path("bots/<id:bot_id>/enable/", bot_pages.bot_enable, {"enabled": True}, name="bot-enable"),
    path("bots/<id:bot_id>/disable/", bot_pages.bot_enable, {"enabled": False},
         name="bot-disable"),
    path("bots/<id:bot_id>/check/", bot_pages.bot_check, name="bot-check"),
    path("bots/<id:bot_id>/test/", bot_pages.bot_test, name="bot-test"),
    path("bots/<id:bot_id>/rotate-secret/", bot_pages.rotate_secret, name="bot-rotate-secret"),
    path("bots/<id:bot_id>/versions/", versions_pages.version_new, name="bot-version-new-page"),
    path("bots/<id:bot_id>/versions/<id:number>/promote/", versions_pages.version_decide,
         {"promote": True}, name="bot-version-promote-page"),
    path("bots/<id:bot_id>/versions/<id:number>/discard/", versions_pages.version_decide,
         {"promote": False}, name="bot-version-discard-page"),
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/", include("games.urls")),
    path("api/", include("bots.urls")),
    path("api/", include("tournaments.urls")),
    path("api/bots/<id:bot_id>/versions/", versions_api.BotVersionsApi.as_view(),
         name="bot-versions"),
    path("api/bots/<id:bot_id>/versions/<id:number>/promote/",
         versions_api.BotVersionPromoteApi.as_view(), name="bot-version-promote"),
    path("api/bots/<id:bot_id>/versions/<id:number>/discard/",
         versions_api.BotVersionDiscardApi.as_view(), name="bot-version-discard"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="redoc"),
]
# Last: any other /api/ URL gets a JSON 404 body ({"code": "not_found", ...}).
urlpatterns.append(re_path(r"^api/", api_not_found, name="api-not-found"))
