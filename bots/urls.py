"""URLs of the bots API, mounted under /api/ by config.urls."""

from django.urls import path

from . import apis

app_name = "bots"

urlpatterns = [
    path("bots/", apis.BotListCreateApi.as_view(), name="bot-list"),
    path("bots/<int:bot_id>/", apis.BotDetailApi.as_view(), name="bot-detail"),
    path("bots/<int:bot_id>/enable/", apis.BotEnableApi.as_view(), name="bot-enable"),
    path("bots/<int:bot_id>/disable/", apis.BotDisableApi.as_view(), name="bot-disable"),
    path("bots/<int:bot_id>/rotate-secret/", apis.BotRotateSecretApi.as_view(),
         name="bot-rotate-secret"),
    path("bots/<int:bot_id>/check/", apis.BotCheckApi.as_view(), name="bot-check"),
    path("bots/<int:bot_id>/calls/", apis.BotCallsApi.as_view(), name="bot-calls"),
]
