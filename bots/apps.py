from django.apps import AppConfig


class BotsConfig(AppConfig):
    name = "bots"
    verbose_name = "Webhook bots"

    def ready(self) -> None:
        # games never imports bots: the "webhook" seat kind is plugged in from here.
        from games.links import register_series_links

        from . import versions
        from .models import TEST_SERIES
        from .pages import test_match_links
        from .webhook import register

        register()
        versions.register()  # the "candidate" seat kind: a bot version's provisional run
        register_series_links(TEST_SERIES, test_match_links)
