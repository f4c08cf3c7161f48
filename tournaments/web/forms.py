"""The forms of organising a series (``tournaments.web.organise_pages``): a tournament's, a
league's and a one-off night's. Each checks only the shape of what was typed; the series
services check the rest, and :meth:`SeriesForm.refused` shows their refusal at its field."""

from __future__ import annotations

import calendar
import re
import zoneinfo
from functools import cache
from typing import Any

from django import forms
from django.conf import settings

from games.engine import get_game
from games.forms import option_fields, options_set, refused_field, show_refusal
from games.seats import PLAYER, REFERENCE, seat_choices, seat_spec
from lib.dates import validate_date_range
from lib.errors import DomainError

from ..entrants import entrant_kinds
from ..models import ORGANISER_FORMATS, Tournament

#: People entered by username, separated by commas or spaces.
USERNAMES = re.compile(r"[\s,]+")
DATETIME = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")


def date_field(**kwargs: Any) -> forms.DateTimeField:
    """A date and time to enter, within the range every date input keeps to (lib.dates)."""
    return forms.DateTimeField(widget=DATETIME, validators=[validate_date_range], **kwargs)


class SeriesForm(forms.Form):
    """What a tournament's and a league's forms share: a name, the entrants (each reference
    bot a number of times, the bots the organiser may enter, people by username), the game's
    options (less those the series sets itself) and the limits per move."""

    item = "participant"  # what the service calls an entrant in its refusals
    entrants_legend, schedule_legend = "Entrants", "Format"
    schedule: tuple[str, ...] = ()  # the subclass's own fields, in the order shown

    def __init__(self, game: str, user: Any, *args: Any, leave_out: frozenset[str] = frozenset(),
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.game = game
        self.fields["name"] = forms.CharField(max_length=100)
        self.references = list(get_game(game).bots)
        for bot in self.references:
            self.fields[f"reference_{bot}"] = forms.IntegerField(
                label=f"{bot} (reference bot)", min_value=0,
                max_value=settings.TOURNAMENT_MAX_PARTICIPANTS, required=False, initial=0,
                help_text="How many times it is entered.")
        # Every entrant kind's bots (reference bots have their own fields above).
        kinds = {kind for kind, _ in entrant_kinds()} - {REFERENCE}
        bots = [(value, label) for value, label in seat_choices(game, user)
                if seat_spec(value)["kind"] in kinds and "bot" in seat_spec(value)]
        self.fields["bots"] = forms.MultipleChoiceField(
            label="Bots", choices=bots, required=False, widget=forms.CheckboxSelectMultiple,
            help_text="Registered bots that play this game: yours, and other people's public "
                      "ones." if bots else "No registered bot plays this game yet.")
        self.fields["people"] = forms.CharField(
            label="People", required=False, max_length=2000,
            help_text="Usernames, separated by commas or spaces: each plays their seat in the "
                      "browser or through the API, and finds it under My matches.")
        self.option_names = option_fields(self, game, leave_out=leave_out)
        self.fields["move_time_limit"] = forms.IntegerField(
            label="Seconds per move", required=False, min_value=1, max_value=30 * 24 * 3600,
            help_text=f"Empty: {settings.BLUFF_DEFAULT_MOVE_TIME_LIMIT} s.")
        self.fields["strike_limit"] = forms.IntegerField(
            label="Strikes that forfeit a seat", required=False, min_value=0, max_value=100,
            help_text=f"Missed deadlines and failed bot calls, per match; 0: never. Empty: "
                      f"{settings.BLUFF_MAX_STRIKES}.")

    def groups(self) -> list[tuple[str, list[forms.BoundField]]]:
        """The fields after the name, by group (each a fieldset with its legend)."""
        entrants = [f"reference_{bot}" for bot in self.references] + ["bots", "people"]
        rules = [f"option_{name}" for name in self.option_names] + ["move_time_limit",
                                                                    "strike_limit"]
        return [(legend, [self[name] for name in names]) for legend, names in (
            (self.entrants_legend, entrants), (self.schedule_legend, self.schedule),
            ("Options", rules))]

    def entrants(self) -> tuple[list[dict[str, Any]], list[str]]:
        """The entrants in entry order, and the field each came from."""
        specs: list[dict[str, Any]] = []
        fields: list[str] = []
        for bot in self.references:
            count = self.cleaned_data.get(f"reference_{bot}") or 0
            # Entered more than once, each its own label, so standings tell them apart.
            specs += [{"kind": REFERENCE, "bot": bot} | ({"name": f"{bot} {n + 1}"} if count > 1
                                                         else {}) for n in range(count)]
            fields += [f"reference_{bot}"] * count
        for value in self.cleaned_data.get("bots") or []:
            specs.append(seat_spec(value))
            fields.append("bots")
        for username in USERNAMES.split(self.cleaned_data.get("people", "")):
            if username:
                specs.append({"kind": PLAYER, "user": username})
                fields.append("people")
        return specs, fields

    def common(self) -> dict[str, Any]:
        """The service arguments every series takes from this form (what is valid of it)."""
        data = self.cleaned_data
        return {"name": data.get("name", ""), "game": self.game, "options": options_set(
            self, self.option_names), "move_time_limit": data.get("move_time_limit"),
            "strike_limit": data.get("strike_limit")}

    def refused(self, error: DomainError, fields: list[str], *,
                unless_refused: bool = False) -> None:
        """Show the service's refusal at the option, entrant or field it is about;
        ``unless_refused``: not at a field that has an error already (the service saw its
        default, not what was typed)."""
        at = refused_field(error, self.option_names, fields, self.item)
        if at is None:
            at = next((field for start, field in ABOUT_FIELD if error.detail.startswith(start)
                       and field in self.fields), None)
        if unless_refused and at is not None and at in self.errors:
            return
        show_refusal(self, error, at)


#: Refusals about one field (the series services name their fields: "rounds must be ...",
#: "starts_at is more than ...", "the season must end after it starts").
ABOUT_FIELD = [(f"{name} ", name) for name in (
    "rounds", "meetings", "table_size", "starts_at", "entry_cap", "hands_per_night",
    "season_start", "season_end", "weekday", "night_time")] + [
    ("the season must end", "season_end"), ("a recurring night needs", "night_time")]


class TournamentForm(SeriesForm):
    schedule = ("format", "table_size", "meetings", "rounds", "duplicate", "starts_at",
                "timezone_name", "open_entries", "entry_cap")

    def __init__(self, game: str, user: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(game, user, *args, **kwargs)
        engine = get_game(game)
        extra: dict[str, forms.Field] = {
            "format": forms.ChoiceField(
                choices=ORGANISER_FORMATS, initial=Tournament.Format.ROUND_ROBIN,
                help_text="Round robin: the whole schedule now. Swiss: two seats, each round "
                          "paired by score when the one before is done."),
            "table_size": forms.IntegerField(
                label="Seats per match", required=False, min_value=2, max_value=8,
                help_text=f"Empty: {engine.default_players}, or {engine.min_players} with "
                          f"fewer entrants than that."),
            "meetings": forms.IntegerField(
                min_value=1, max_value=settings.TOURNAMENT_MAX_MEETINGS, initial=1,
                help_text="Round robin: times each pair meets (seats swapped); more seats: "
                          "rounds of tables."),
            "rounds": forms.IntegerField(
                required=False, min_value=1, max_value=settings.TOURNAMENT_MAX_PARTICIPANTS,
                help_text="Swiss only. Empty: enough to find a winner (log2 of the entrants)."),
            "duplicate": forms.BooleanField(
                label="Duplicate deals", required=False,
                help_text="Play each table's deal once per seat rotation: the luck of the "
                          "deal cancels."),
            "starts_at": date_field(label="Starts at", required=False,
                                    help_text="In the time zone below. Empty: now."),
            "timezone_name": forms.ChoiceField(label="Time zone", choices=time_zones(),
                                               initial="UTC", required=False,
                                               help_text="Of the start time. Empty: UTC."),
            "open_entries": forms.BooleanField(
                label="Open for entries", required=False,
                help_text="Until the start (then needed): bot owners enter their bots that "
                          "play this game, people themselves, from the tournament's page or "
                          "the API. The entrants above are yours; the schedule is made at the "
                          "start. Seats per match empty: the game's smallest."),
            "entry_cap": forms.IntegerField(
                label="At most", required=False, min_value=2,
                max_value=settings.TOURNAMENT_MAX_PARTICIPANTS,
                help_text=f"Entrants in all, when open for entries. Empty: "
                          f"{settings.TOURNAMENT_MAX_PARTICIPANTS}."),
        }
        self.fields.update(extra)


@cache
def time_zones() -> list[tuple[str, str]]:
    return [(name, name) for name in sorted(zoneinfo.available_timezones())]


class LeagueForm(SeriesForm):
    item = "member"
    entrants_legend, schedule_legend = "Members", "Nights"
    schedule = ("table_size", "hands_per_night", "weekday", "night_time", "timezone_name",
                "season_start", "season_end")

    def __init__(self, game: str, user: Any, *args: Any, **kwargs: Any) -> None:
        engine = get_game(game)
        owned = frozenset(engine.series_options({}, players=engine.max_players, ordered=True,
                                                first=True))
        super().__init__(game, user, *args, leave_out=owned, **kwargs)
        self.fields["people"].help_text += " Members may also join later, through the API."
        extra: dict[str, forms.Field] = {
            "table_size": forms.IntegerField(
                label="Seats per table", required=False, min_value=2, max_value=8,
                help_text=f"Empty: {engine.max_players}; a night seats its members at as many "
                          f"tables as it takes."),
            "hands_per_night": forms.IntegerField(
                min_value=1, max_value=settings.LEAGUE_MAX_HANDS_PER_NIGHT, initial=20),
            "weekday": forms.TypedChoiceField(
                label="Weekly night", required=False, coerce=int, empty_value=None,
                choices=[("", "none: only one-off nights")] + [
                    (str(n), f"{calendar.day_name[n]}s") for n in range(7)]),
            "night_time": forms.TimeField(
                label="At", required=False, widget=forms.TimeInput(attrs={"type": "time"},
                                                                  format="%H:%M"),
                help_text="The weekly night's time, in the league's time zone."),
            "timezone_name": forms.ChoiceField(label="Time zone", choices=time_zones(),
                                               initial="UTC"),
            "season_start": date_field(label="Season starts",
                                       help_text="In the league's time zone."),
            "season_end": date_field(label="Season ends"),
        }
        self.fields.update(extra)


class NightForm(forms.Form):
    starts_at = date_field(label="Starts at", help_text="In the league's time zone.")


class MemberForm(forms.Form):
    """A member for a league (its organiser's; ``POST /api/leagues/{id}/members/``): a bot
    from the picker or a person by username."""

    def __init__(self, game: str, user: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        bots = [(value, label) for value, label in seat_choices(game, user)
                if "bot" in seat_spec(value)]
        self.fields["bot"] = forms.ChoiceField(
            label="A bot", required=False, choices=[("", "none")] + bots,
            help_text="Reference bots, your bots and other people's public ones that play "
                      "this game.")
        self.fields["username"] = forms.CharField(
            label="Or a person", required=False, max_length=150,
            help_text="Their username: they play their seats in the browser or by polling.")

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if bool(data.get("bot")) == bool(data.get("username")):
            raise forms.ValidationError("Pick a bot or type a username (one of them).")
        return data

    def spec(self) -> dict[str, Any]:
        """The member spec (``entrants.entrant_fields``) of what was picked."""
        username = self.cleaned_data.get("username")
        return {"kind": PLAYER, "user": username} if username \
            else seat_spec(self.cleaned_data["bot"])


