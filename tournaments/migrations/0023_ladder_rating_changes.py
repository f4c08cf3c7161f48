"""A ladder match keeps how far it moved each seat's rating (docs/ladder.md, "Joining,
leaving, reading"): the board is made again from every recorded result, which fills it in for
the ladder matches already rated."""

from django.db import migrations, models


def rebuild_board(apps, schema_editor):
    from tournaments.scoring.leaderboard import rebuild

    rebuild(apps)


class Migration(migrations.Migration):

    dependencies = [
        ("tournaments", "0022_ladder_new_code"),
    ]

    operations = [
        migrations.AddField(
            model_name="laddermatch",
            name="rating_changes",
            field=models.JSONField(blank=True, help_text="By seat, how far this match moved each bot's rating (mu - 3 sigma on the game's leaderboard); null while unrated (not finished, a forfeit, new code).", null=True),
        ),
        migrations.RunPython(rebuild_board, migrations.RunPython.noop),
    ]
