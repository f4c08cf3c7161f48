from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments and leagues"

    def ready(self) -> None:
        # games never imports tournaments: finished matches are reported by a signal.
        from games.signals import match_finished

        # Each kind of series registers itself; the tasks, so kinds.enqueue finds them by name.
        from . import runner, services, tasks  # noqa: F401
        from .ladders import kind as ladder_kind
        from .leagues import night_kind, nights  # noqa: F401
        from .leagues import services as league_services  # noqa: F401
        from .runner import tournament

        match_finished.connect(runner.on_match_finished,
                               dispatch_uid="tournaments.match_finished")
        # A match's pages link it to its tournament or league night (games.links).
        from games.links import (
            register_bot_standings,
            register_person_series,
            register_rating_history,
            register_run_comparisons,
            register_series_links,
        )

        from . import selectors
        from .ladders import versions
        from .web import ladder_pages, pages

        register_series_links(tournament.SERIES, pages.tournament_match_links)
        register_series_links(night_kind.SERIES, pages.league_hand_links)
        register_series_links(ladder_kind.SERIES, ladder_pages.ladder_match_links)
        # A bot's page says where it stands on its games' ladders (and puts it on or off).
        register_bot_standings("ladders", ladder_pages.bot_ladders)
        # A person's page lists the tournaments and leagues they play in or organise.
        register_person_series("tournaments", pages.person_series)
        # A bot's page draws its leaderboard rating over time.
        register_rating_history("tournaments", lambda kind, bot: selectors.rating_history(
            kind=kind, ref=bot))
        # A bot's page compares each of its versions with the bot in the version's run.
        register_run_comparisons(versions.run_comparisons)
