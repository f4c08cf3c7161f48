"""League nights' hands are rated on the game's leaderboard as every series' matches are (one
rating per entrant per game, docs/tournaments.md "Ratings"): the board is made again from every
recorded result, the hands already played included."""

from django.db import migrations


def rebuild_board(apps, schema_editor):
    from tournaments.scoring.leaderboard import rebuild

    rebuild(apps)


class Migration(migrations.Migration):

    dependencies = [
        ("tournaments", "0019_versions"),
    ]

    operations = [
        migrations.RunPython(rebuild_board, migrations.RunPython.noop),
    ]
