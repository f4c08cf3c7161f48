"""A bare DRF endpoint for bench/api.py: the same authentication, throttling and rendering as
the API, no database work beyond the token lookup. Mounted only by bench/urls.py (bench/api.py's server), never by config.urls."""

from django.urls import path
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView


class BareApi(APIView):
    def get(self, request: Request) -> Response:
        return Response({"ok": True})


urlpatterns = [path("", BareApi.as_view(), name="bench-bare")]
