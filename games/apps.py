from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games and matches"

    def ready(self) -> None:
        # The tasks, so lib.queueing.enqueue finds them by name in every process.
        from . import tasks  # noqa: F401
