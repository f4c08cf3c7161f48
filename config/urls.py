"""Top-level URLs: the site's pages, the API, its OpenAPI schema and docs, the admin, and the
health check."""

from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from games import converters  # noqa: F401 - registers <id:...> for the page URLs
from games.pages import rules
from tournaments import pages as tournament_pages

from .exceptions import api_not_found
from .health import healthz
from .pages import home

handler400 = "config.exceptions.bad_request"
handler500 = "config.exceptions.server_error"

urlpatterns = [
    path("", home, name="home"),
    path("games/<str:game>/rules/", rules, name="game-rules"),
    path("tournaments/<id:tournament_id>/", tournament_pages.tournament, name="tournament-page"),
    path("leagues/<id:league_id>/", tournament_pages.league, name="league-page"),
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/", include("games.urls")),
    path("api/", include("bots.urls")),
    path("api/", include("tournaments.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="redoc"),
]
# Last: any other /api/ URL gets a JSON 404 body ({"code": "not_found", ...}).
urlpatterns.append(re_path(r"^api/", api_not_found, name="api-not-found"))
