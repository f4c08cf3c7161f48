"""What the site's forms share: a service's refusal shown at the field it is about, and a
game's options as form fields.

Forms check only the shape of what was typed; the rules are the services', the ones the API
applies, so a form sends what it got to the same service and shows its :class:`DomainError`
where the person will look for it, with the code the API would answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from lib.errors import DomainError

from .engine import get_game

#: What an engine option's refusal names ("option 'rounds' must be >= 1"); what a seat's or
#: an entrant's names ("seat 1: ...", "participant 0: ...", "member 2 (bob) ...").
OPTION_NAMED = re.compile(r"option '(\w+)'")
INDEX_NAMED = re.compile(r"^(\w+) (\d+)\b")
INDEX_PREFIX = re.compile(r"^\w+ \d+: ")


def show_refusal(form: forms.BaseForm, error: DomainError, field: str | None = None, *,
                 drop_index: bool = False) -> None:
    """Add ``error`` to ``form`` at ``field`` (``None``: above the form), as ``detail
    (code)``. ``drop_index``: leave out the API's "seat 1: " at the start, which numbers
    seats from 0 where the field's own label ("Seat 2") numbers them as people do."""
    detail = error.detail
    if drop_index and field is not None:
        detail = INDEX_PREFIX.sub("", detail)
    form.add_error(field, ValidationError(f"{detail} ({error.code})", code=error.code))


def option_field(option: dict[str, Any]) -> forms.Field | None:
    """A form field for an engine option (``Game.describe_options``), or None if a form cannot
    carry it (a list: the API takes it)."""
    label = option["name"].replace("_", " ").capitalize()
    if option["type"] == "boolean":
        return forms.BooleanField(label=label, required=False, initial=option["default"],
                                  help_text=option["doc"])
    if option["type"] == "integer":
        default = "the game's own" if option["default"] is None else option["default"]
        return forms.IntegerField(label=label, required=False, initial=option["default"],
                                  min_value=option.get("minimum"), max_value=option.get("maximum"),
                                  help_text=f"{option['doc']} Empty: {default}.")
    return None


def option_fields(form: forms.BaseForm, game: str,
                  leave_out: Sequence[str] = ()) -> list[str]:
    """Add ``option_<name>`` fields to ``form`` for the game's options a form can carry (not
    those in ``leave_out``); returns their names."""
    names = []
    for option in get_game(game).describe_options():
        field = option_field(option)
        if field is not None and option["name"] not in leave_out:
            form.fields[f"option_{option['name']}"] = field
            names.append(option["name"])
    return names


def options_set(form: forms.BaseForm, names: Sequence[str]) -> dict[str, Any]:
    """The options a valid form sets (an empty number keeps the game's default)."""
    return {name: form.cleaned_data[f"option_{name}"] for name in names
            if form.cleaned_data.get(f"option_{name}") is not None}


def refused_field(error: DomainError, option_names: Sequence[str],
                  fields: Sequence[str | None], item: str) -> str | None:
    """The field a refusal is about: the option it names, or the field of the ``item`` (seat,
    participant, member) whose index it starts with (``fields``, by index), else none."""
    named = OPTION_NAMED.search(error.detail)
    if named and named.group(1) in option_names:
        return f"option_{named.group(1)}"
    named = INDEX_NAMED.match(error.detail)
    if named and named.group(1) == item and int(named.group(2)) < len(fields):
        return fields[int(named.group(2))]
    return None
