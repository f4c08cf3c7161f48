"""Top-level URLs: the API, its OpenAPI schema and docs, the admin, and the health check."""

from django.conf import settings
from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from .exceptions import api_not_found
from .health import healthz

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
if settings.BLUFF_BENCH_VIEWS:  # bench/api.py's bare DRF endpoint, never on in production
    urlpatterns.append(path("api/bench/bare/", include("bench.views")))
# Last: any other /api/ URL gets a JSON 404 body ({"code": "not_found", ...}).
urlpatterns.append(re_path(r"^api/", api_not_found, name="api-not-found"))
