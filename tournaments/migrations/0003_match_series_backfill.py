"""Tournament matches and league hands made before ``Match.series`` existed say so now, so
the match_finished receivers (which skip other series without a query) record them."""

from django.db import migrations


def backfill(apps, schema_editor):
    Match = apps.get_model("games", "Match")
    TournamentMatch = apps.get_model("tournaments", "TournamentMatch")
    Hand = apps.get_model("tournaments", "Hand")
    Match.objects.filter(pk__in=TournamentMatch.objects.filter(match__isnull=False)
                         .values("match_id")).update(series="tournament")
    Match.objects.filter(pk__in=Hand.objects.filter(match__isnull=False)
                         .values("match_id")).update(series="league")


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0005_match_series"),
        ("tournaments", "0002_leagues"),
    ]

    operations = [migrations.RunPython(backfill, migrations.RunPython.noop)]
