from django.apps import AppConfig


class BotsConfig(AppConfig):
    name = "bots"
    verbose_name = "Webhook bots"

    def ready(self) -> None:
        # games never imports bots: the "webhook" seat kind is plugged in from here.
        from .webhook import register

        register()
