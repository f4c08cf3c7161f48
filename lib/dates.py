"""The dates a request may carry, wherever it comes in (an API field, a page's form): from
:data:`EARLIEST` to :data:`LATEST`, with or without an offset.

Python's dates end at years 1 and 9999: a date near either end, read in a time zone (a league's
wall time, an offset of up to 14 hours) or stepped by a week (a league's weekly night), leaves
the range and raises ``OverflowError``, a 500 instead of a 400, and a row stored with it breaks
every page that shows it. Every date the platform deals in (a season, a night, a tournament's
start) lies far inside these bounds, so one refusal here keeps every later step in range; the
services still check their own rules (``SERIES_MAX_SCHEDULE_AHEAD_DAYS``, not in the past).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from rest_framework import serializers

#: The first and last date accepted, as wall times (an offset is not counted).
EARLIEST = datetime(1970, 1, 1)
LATEST = datetime(9998, 12, 31, 23, 59, 59, 999999)

BOUNDS_HELP = f"Between {EARLIEST:%Y-%m-%d} and {LATEST:%Y-%m-%d}."


def validate_date_range(value: datetime) -> None:
    """Refuse ``value`` outside :data:`EARLIEST` .. :data:`LATEST` (a Django validator, so an
    API field and a form field share it; DRF turns it into the field's 400 ``invalid``)."""
    if not EARLIEST <= value.replace(tzinfo=None) <= LATEST:
        raise ValidationError(f"Ensure this date is between {EARLIEST:%Y-%m-%d} and "
                              f"{LATEST:%Y-%m-%d}.", code="date_range")


class DateTimeField(serializers.DateTimeField):
    """Every date and time a request body carries: DRF's, within the accepted range."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs["validators"] = [*kwargs.get("validators", ()), validate_date_range]
        super().__init__(**kwargs)
