"""The URLconf of bench/api.py's server: the platform's URLs plus the bare endpoint it compares
the poll with. Production never loads it (config.urls has no switch that could mount it)."""

from django.urls import include, path

from config.urls import handler400, handler500
from config.urls import urlpatterns as platform_urlpatterns

__all__ = ["handler400", "handler500", "urlpatterns"]

# First: config.urls ends with the JSON 404 for every other /api/ URL.
urlpatterns = [path("api/bench/bare/", include("bench.views")), *platform_urlpatterns]
