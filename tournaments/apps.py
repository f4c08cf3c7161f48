from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments and leagues"

    def ready(self) -> None:
        # games never imports tournaments: finished matches are reported by a signal.
        from games.signals import match_finished

        from .services import on_match_finished

        match_finished.connect(on_match_finished, dispatch_uid="tournaments.match_finished")
