"""Finished Great Dalmuti matches stored before ``result()`` carried the finishing order get it:
``result["order"]``, the last hand's order of going out (GD-2), as the engine gives it from the
match's stored final state. The league reads it there instead of the match log, and a replay's
``state.result()`` equals the stored result again. Backwards: the key is dropped."""

from django.db import migrations

from games.engine import EngineError, get_game

GAME = "great_dalmuti"
BATCH = 500


def add_order(apps, schema_editor):
    engine = get_game(GAME)

    def with_order(match):
        try:
            order = engine.from_json(match.state).result()["order"]
        except EngineError:  # a state this engine cannot read: left as it was
            return None
        return {**match.result, "order": order}

    Match = apps.get_model("games", "Match")
    _rewrite(Match, Match.objects.filter(game=GAME, status="finished", result__isnull=False)
             .exclude(result__has_key="order").only("pk", "state", "result"), with_order)


def drop_order(apps, schema_editor):
    Match = apps.get_model("games", "Match")
    _rewrite(Match, Match.objects.filter(game=GAME, result__has_key="order").only("pk", "result"),
             lambda match: {k: v for k, v in match.result.items() if k != "order"})


def _rewrite(Match, matches, new_result):
    """Store ``new_result(match)`` (unless None) as each match's result, a batch at a time."""
    changed = []
    for match in matches.iterator(chunk_size=BATCH):
        result = new_result(match)
        if result is not None:
            match.result = result
            changed.append(match)
        if len(changed) >= BATCH:
            Match.objects.bulk_update(changed, ["result"])
            changed = []
    Match.objects.bulk_update(changed, ["result"])


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0012_match_lease_and_resume"),
    ]

    operations = [
        migrations.RunPython(add_order, drop_order, elidable=True),
    ]
