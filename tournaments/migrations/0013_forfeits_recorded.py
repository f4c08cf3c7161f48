"""Tournament matches recorded before the one forfeit rule (docs/series.md, "Forfeits rank
last"): a seat that forfeited a played match at the strike limit was not listed in the row's
``forfeited`` and kept the engine's rank (a forfeiter could rank first, and the match counted
in ratings). Each such row gets the rule's places and its forfeiters; the leaderboard is then
made again from every result, as the rule says (a match with a forfeit is not rated)."""

from django.db import migrations


def record_forfeits(apps, schema_editor):
    from tournaments.formats.base import places_with_forfeits
    from tournaments.scoring.leaderboard import rebuild

    match_model = apps.get_model("tournaments", "TournamentMatch")
    seat_model = apps.get_model("games", "Seat")
    out: dict[int, set[int]] = {}
    for match_id, number in seat_model.objects.filter(
            forfeited=True, match__tournament_match__status="finished",
    ).values_list("match_id", "number"):
        out.setdefault(match_id, set()).add(number)
    changed = 0
    for row in match_model.objects.filter(match_id__in=list(out), ranks__isnull=False):
        seats = out[row.match_id]
        forfeited = sorted({row.seats[seat] for seat in seats})
        ranks = list(places_with_forfeits(row.ranks, seats))
        if forfeited != sorted(row.forfeited or []) or ranks != row.ranks:
            row.forfeited, row.ranks = forfeited, ranks
            row.save(update_fields=["forfeited", "ranks"])
            changed += 1
    if changed:
        rebuild(apps)


class Migration(migrations.Migration):

    dependencies = [
        ("tournaments", "0012_dates_in_range"),
        ("games", "0013_dalmuti_result_order"),
    ]

    operations = [
        migrations.RunPython(record_forfeits, migrations.RunPython.noop, elidable=True),
    ]
