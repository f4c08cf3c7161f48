"""The match log moves from a row per entry (MatchEvent) to a page per save (MatchLogPage,
``games.log``). Existing entries become one page each, with their own created_at."""

import django.db.models.deletion
import orjson
from django.db import migrations, models

BATCH = 2000


def rows_to_pages(apps, schema_editor):
    MatchEvent = apps.get_model("games", "MatchEvent")
    MatchLogPage = apps.get_model("games", "MatchLogPage")
    MatchLogPage._meta.get_field("created_at").auto_now_add = False  # keep the entries' own
    pages = []
    for row in MatchEvent.objects.order_by("match_id", "n").iterator(chunk_size=BATCH):
        entry = {"n": row.n, "kind": row.kind, "seat": row.seat, "action": row.action,
                 "events": row.events, "event_count": row.event_count}
        pages.append(MatchLogPage(match_id=row.match_id, first=row.n, last=row.n,
                                  event_count=row.event_count, created_at=row.created_at,
                                  entries=orjson.dumps([entry]).decode()))
        if len(pages) >= BATCH:
            MatchLogPage.objects.bulk_create(pages)
            pages = []
    MatchLogPage.objects.bulk_create(pages)


def pages_to_rows(apps, schema_editor):
    MatchEvent = apps.get_model("games", "MatchEvent")
    MatchLogPage = apps.get_model("games", "MatchLogPage")
    MatchEvent._meta.get_field("created_at").auto_now_add = False
    rows = []
    for page in MatchLogPage.objects.order_by("match_id", "first").iterator(chunk_size=BATCH):
        for e in orjson.loads(page.entries):
            rows.append(MatchEvent(match_id=page.match_id, n=e["n"], version=e["n"],
                                   kind=e["kind"], seat=e["seat"], action=e["action"],
                                   events=e["events"], event_count=e["event_count"],
                                   created_at=page.created_at))
        if len(rows) >= BATCH:
            MatchEvent.objects.bulk_create(rows)
            rows = []
    MatchEvent.objects.bulk_create(rows)


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0008_log_rows_without_fk_checks'),
    ]

    operations = [
        migrations.CreateModel(
            name='MatchLogPage',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('first', models.PositiveIntegerField(help_text="n of the page's first entry.")),
                ('last', models.PositiveIntegerField(help_text="n of the page's last entry.")),
                ('event_count', models.PositiveIntegerField(help_text="Engine events of the match up to and including the page's last entry.")),
                ('entries', models.TextField(help_text='The entries, a JSON array (games.log).')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('match', models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='log_pages', to='games.match')),
            ],
            options={
                'ordering': ['match', 'first'],
                'constraints': [models.UniqueConstraint(fields=('match', 'first'), name='matchlogpage_unique_first')],
            },
        ),
        migrations.RunPython(rows_to_pages, pages_to_rows),
        migrations.DeleteModel(
            name='MatchEvent',
        ),
        migrations.AlterField(
            model_name='match',
            name='state',
            field=models.JSONField(help_text="The engine's State.to_json(events=False) once the match runs: the event log lives in MatchLogPage rows."),
        ),
    ]
