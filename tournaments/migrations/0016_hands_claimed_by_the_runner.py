"""League hands are played by the one series runner: a hand is planned pending (its seed and
options stored) and claimed like a tournament's match (a lease of its own), and it lists who
forfeited in it, as a tournament's match does; a night has no lease of its own any more. A
tournament may be continuous (matches kept in flight until a time).
Hands stored before get their seed, options and forfeits from their games match."""

from django.db import migrations, models


def from_matches(apps, schema_editor):
    Hand = apps.get_model("tournaments", "Hand")
    Seat = apps.get_model("games", "Seat")
    hands = list(Hand.objects.filter(match__isnull=False).select_related("match"))
    out = {}
    for match_id, number in Seat.objects.filter(
            match_id__in=[h.match_id for h in hands], forfeited=True).values_list(
            "match_id", "number"):
        out.setdefault(match_id, []).append(number)
    for hand in hands:
        hand.seed, hand.options = hand.match.seed, hand.match.options or {}
        if hand.status == "finished":
            hand.forfeited = sorted(hand.seats[n] for n in out.get(hand.match_id, ()))
    Hand.objects.bulk_update(hands, ["seed", "options", "forfeited"], batch_size=500)


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0013_dalmuti_result_order"),
        ("tournaments", "0015_entrant_kinds"),
    ]

    operations = [
        migrations.AddField(
            model_name="tournament", name="in_flight",
            field=models.PositiveSmallIntegerField(
                blank=True, null=True, help_text="Continuous: matches kept going at once.")),
        migrations.AddField(
            model_name="tournament", name="ends_at",
            field=models.DateTimeField(blank=True, null=True,
                                       help_text="Continuous: no match starts from then on.")),
        migrations.AlterField(
            model_name="tournament", name="format",
            field=models.CharField(
                choices=[("round_robin", "round robin (two seats), or rounds of tables (more)"),
                         ("swiss", "Swiss: rounds paired by score, each when the last is done"),
                         ("continuous", "continuous: matches kept in flight until ends_at")],
                default="round_robin", help_text="tournaments.formats.", max_length=16)),
        migrations.RemoveField(model_name="night", name="lease_until"),
        migrations.AddField(
            model_name="hand", name="seed",
            field=models.BigIntegerField(default=0, help_text="Its deal's seed (secret until "
                                                              "the night is over).")),
        migrations.AddField(
            model_name="hand", name="options",
            field=models.JSONField(blank=True, default=dict,
                                   help_text="Engine options of this hand over the league's.")),
        migrations.AddField(
            model_name="hand", name="lease_until",
            field=models.DateTimeField(blank=True, null=True, help_text="A pending hand whose "
                                       "lease ran out is queued again.")),
        migrations.AddField(
            model_name="hand", name="attempts",
            field=models.PositiveSmallIntegerField(default=0)),
        migrations.AddField(
            model_name="hand", name="forfeited",
            field=models.JSONField(blank=True, default=list,
                                   help_text="Members scored as forfeits in it.")),
        migrations.AlterField(
            model_name="hand", name="status",
            field=models.CharField(choices=[("pending", "pending"), ("running", "running"),
                                            ("finished", "finished"),
                                            ("cancelled", "cancelled (its night was)")],
                                   db_index=True, default="pending", max_length=16)),
        migrations.AddIndex(
            model_name="hand",
            index=models.Index(fields=["status", "lease_until"], name="hand_status_lease")),
        migrations.RunPython(from_matches, migrations.RunPython.noop),
    ]
