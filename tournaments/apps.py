from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments and leagues"

    def ready(self) -> None:
        # games never imports tournaments: finished matches are reported by a signal.
        from games.signals import match_finished

        # Each kind of series registers itself; the tasks, so series.enqueue finds them by name.
        from . import leagues, series, services, tasks  # noqa: F401

        match_finished.connect(series.on_match_finished,
                               dispatch_uid="tournaments.match_finished")
