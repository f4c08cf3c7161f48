"""Domain errors of tournaments (``{"code", "detail"}`` bodies, see ``config.exceptions``)."""

from __future__ import annotations

from lib.errors import DomainError


class TournamentNotFound(DomainError):
    code, status, default_detail = "tournament_not_found", 404, "No such tournament."


class NotYourTournament(DomainError):
    code, status, default_detail = ("not_your_tournament", 403,
                                    "Only the tournament's organiser (or staff) may change it.")


class BadTournament(DomainError):
    """The game, options, table size, participants or schedule cannot make a tournament."""

    code, status, default_detail = "bad_tournament", 400, "This cannot be a tournament."


class TournamentLimit(DomainError):
    """The organiser already has as many running tournaments or queued matches as allowed."""

    code, status, default_detail = "tournament_limit", 429, "Too many tournaments at once."


class TournamentNotRunning(DomainError):
    code, status, default_detail = ("tournament_not_running", 409,
                                    "The tournament is already over.")


class TournamentBusy(DomainError):
    """Another transaction has held the tournament's row for longer than
    ``TOURNAMENT_RECORD_LOCK_SECONDS`` (a worker host cut off inside one holds it until
    PostgreSQL ends its session): nothing was changed."""

    code, status = "tournament_busy", 503
    default_detail = "The tournament is being changed elsewhere; try again in a minute."


class GameNotFound(DomainError):
    code, status, default_detail = "game_not_found", 404, "No such game."


class LeagueNotFound(DomainError):
    code, status, default_detail = "league_not_found", 404, "No such league."


class NotYourLeague(DomainError):
    code, status, default_detail = ("not_your_league", 403,
                                    "Only the league's organiser (or staff) may change it.")


class NightNotOpen(DomainError):
    code, status, default_detail = "night_not_open", 409, "The night is already over."


class BadLeague(DomainError):
    """The game, options, tables, members, season or schedule cannot make a league."""

    code, status, default_detail = "bad_league", 400, "This cannot be a league."


class TournamentStarted(DomainError):
    """Entries close when a tournament starts: its schedule is made then."""

    code, status, default_detail = ("tournament_started", 409,
                                    "The tournament has started: entries are closed.")


class EntriesClosed(DomainError):
    code, status, default_detail = ("entries_closed", 400,
                                    "This tournament is not open for entries.")


class TournamentFull(DomainError):
    code, status, default_detail = "tournament_full", 400, "The tournament is full."


class AlreadyEntered(DomainError):
    code, status, default_detail = "already_entered", 400, "Already entered."


class BadEntry(DomainError):
    """The bot cannot play this tournament (another game, disabled, private...)."""

    code, status, default_detail = "bad_entry", 400, "This cannot enter the tournament."


class NotYourBot(DomainError):
    code, status, default_detail = ("not_your_bot", 403,
                                    "Only a bot's owner enters it (or takes it out).")


class NotEntered(DomainError):
    code, status, default_detail = "not_entered", 404, "No such entry in this tournament."
