"""URLs of the bots API, mounted under /api/ by config.urls."""

from django.urls import path

import games.converters  # noqa: F401 - registers <id:...>

from . import apis

app_name = "bots"

urlpatterns = [
    path("bots/", apis.BotListCreateApi.as_view(), name="bot-list"),
    path("bots/<id:bot_id>/", apis.BotDetailApi.as_view(), name="bot-detail"),
    path("bots/<id:bot_id>/enable/", apis.BotEnableApi.as_view(), name="bot-enable"),
    path("bots/<id:bot_id>/disable/", apis.BotDisableApi.as_view(), name="bot-disable"),
    path("bots/<id:bot_id>/rotate-secret/", apis.BotRotateSecretApi.as_view(),
         name="bot-rotate-secret"),
    path("bots/<id:bot_id>/check/", apis.BotCheckApi.as_view(), name="bot-check"),
    path("bots/<id:bot_id>/calls/", apis.BotCallsApi.as_view(), name="bot-calls"),
    path("bots/<id:bot_id>/matches/", apis.BotMatchesApi.as_view(), name="bot-matches"),
]
