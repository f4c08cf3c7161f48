"""Every series gets a deal secret that keys its deal seeds (games.engine.rng.deal_seed).

A series made before kept its stored seeds, from a SplitMix64 stream of its seed; its secret is
the one its seed gives (rng.secret_from_seed), which keys what it plans from now on (a Swiss
round, a league night) and is published when it is over, as for every series."""

from django.db import migrations, models


def fill(apps, schema_editor):
    from games.engine.rng import secret_from_seed

    for name in ("Tournament", "League"):
        model = apps.get_model("tournaments", name)
        for row in model.objects.only("pk", "seed").iterator():
            model.objects.filter(pk=row.pk).update(deal_secret=secret_from_seed(row.seed))


class Migration(migrations.Migration):

    dependencies = [
        ("tournaments", "0010_leaderboard"),
    ]

    operations = [
        migrations.AddField(
            model_name="tournament",
            name="deal_secret",
            field=models.CharField(
                default="", editable=False, max_length=64,
                help_text="Keys every deal seed (games.engine.rng.deal_seed, 32 bytes in hex); "
                          "shown once the tournament is over, never before."),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="league",
            name="deal_secret",
            field=models.CharField(
                default="", editable=False, max_length=64,
                help_text="Keys each night's deal secret (games.engine.rng.derived_secret), "
                          "which is shown once that night is over; this one never is."),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="tournament",
            name="seed",
            field=models.BigIntegerField(
                help_text="Seeds the schedule's search (tables of 3 or more) and the "
                          "standings' bootstrap."),
        ),
        migrations.AlterField(
            model_name="league",
            name="seed",
            field=models.BigIntegerField(help_text="The seed it was created with."),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop, elidable=True),
    ]
