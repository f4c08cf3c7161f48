from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments and leagues"

    def ready(self) -> None:
        # games never imports tournaments: finished matches are reported by a signal.
        from games.signals import match_finished

        from . import leagues, series, services  # noqa: F401 - each registers its kind

        match_finished.connect(series.on_match_finished,
                               dispatch_uid="tournaments.match_finished")
