from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments and leagues"

    def ready(self) -> None:
        # games never imports tournaments: finished matches are reported by a signal.
        from games.signals import match_finished

        from . import leagues, services

        match_finished.connect(services.on_match_finished,
                               dispatch_uid="tournaments.match_finished")
        match_finished.connect(leagues.on_match_finished, dispatch_uid="leagues.match_finished")
