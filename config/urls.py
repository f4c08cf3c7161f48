"""Top-level URLs: the API, its OpenAPI schema and docs, the admin, and the health check."""

from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from .exceptions import api_not_found
from .health import healthz

handler400 = "config.exceptions.bad_request"
handler500 = "config.exceptions.server_error"

urlpatterns = [
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
