"""Dates stored before every date input kept to lib.dates' range (1970-01-01 to 9998-12-31)
are moved to its nearer end: a league whose season began at 0001-01-01 00:00 UTC answered 500 on
every page that showed its next night (a week before it is out of Python's range). A season
wholly before 1970 stays over (it ends at 1970-01-01); nothing else moves."""

from datetime import UTC, datetime

from django.db import migrations

#: lib.dates.EARLIEST and LATEST as they were when this was written, in UTC.
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(9998, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)

#: Every date a request sets that could be stored out of range: (model, field). A night's
#: start never could (not in the past, SERIES_MAX_SCHEDULE_AHEAD_DAYS ahead at most).
DATES = [("League", "season_start"), ("League", "season_end"), ("Tournament", "starts_at")]


def into_range(apps, schema_editor):
    for model, field in DATES:
        rows = apps.get_model("tournaments", model).objects
        rows.filter(**{f"{field}__lt": EARLIEST}).update(**{field: EARLIEST})
        rows.filter(**{f"{field}__gt": LATEST}).update(**{field: LATEST})


class Migration(migrations.Migration):

    dependencies = [
        ("tournaments", "0011_deal_secrets"),
    ]

    operations = [
        migrations.RunPython(into_range, migrations.RunPython.noop),
    ]
