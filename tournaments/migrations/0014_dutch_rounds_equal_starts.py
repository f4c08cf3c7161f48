"""Le Dutch's ``rounds`` must give every player as many starts (DU-8, since 2026-12-05): a
tournament or league stored with a ``rounds`` its tables cannot share out evenly could no
longer start its next match. Such a series plays one round per player from now on (``rounds``
null, the rule's default); matches already played or running keep their own options."""

from django.db import migrations


def equal_starts(apps, schema_editor):
    from games.engine import BadOptions, get_game

    engine = get_game("dutch")

    def fits(options: dict, sizes: range) -> bool:
        try:
            for players in sizes:
                engine.check_options(options, players)
        except BadOptions:
            return False
        return True

    for name in ("Tournament", "League"):
        model = apps.get_model("tournaments", name)
        for row in model.objects.filter(game="dutch").exclude(options__rounds=None):
            if (row.options or {}).get("rounds") is None:
                continue
            sizes = (range(row.table_size, row.table_size + 1) if name == "Tournament"
                     else range(engine.min_players, row.table_size + 1))
            if not fits(row.options, sizes):
                row.options = {**row.options, "rounds": None}
                row.save(update_fields=["options"])


class Migration(migrations.Migration):

    dependencies = [
        ("tournaments", "0013_forfeits_recorded"),
    ]

    operations = [
        migrations.RunPython(equal_starts, migrations.RunPython.noop, elidable=True),
    ]
