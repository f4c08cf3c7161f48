"""Options a game made stricter for new matches (Le Dutch's ``rounds``, a multiple of the
players since 2026-12-05, DU-8): a tournament or league stored with an option its tables can no
longer take could not start its next match. Each such option goes back to the game's default
(for ``rounds``: one round per player); matches already played or running keep their own."""

from django.db import migrations


def options_new_matches_take(apps, schema_editor):
    from games.engine import BadOptions, get_game

    def refused(engine, options: dict, sizes: range) -> bool:
        try:
            for players in sizes:
                engine.check_options(options, players)
        except BadOptions:
            return True
        return False

    for name in ("Tournament", "League"):
        model = apps.get_model("tournaments", name)
        for row in model.objects.all():
            engine = get_game(row.game)
            sizes = (range(row.table_size, row.table_size + 1) if name == "Tournament"
                     else range(engine.min_players, row.table_size + 1))
            options = dict(row.options or {})
            if not refused(engine, options, sizes):
                continue
            for option in engine.options:
                if option.name in options and options[option.name] != option.default:
                    trial = {**options, option.name: option.default}
                    if not refused(engine, trial, sizes):
                        row.options = trial
                        row.save(update_fields=["options"])
                        break


class Migration(migrations.Migration):

    dependencies = [
        ("tournaments", "0013_forfeits_recorded"),
    ]

    operations = [
        migrations.RunPython(options_new_matches_take, migrations.RunPython.noop,
                             elidable=True),
    ]
