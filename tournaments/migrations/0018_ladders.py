"""The ladder (issue 47, docs/ladder.md): a ladder per game and table size, the bots on it, its
matches (the series runner's rows)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0013_dalmuti_result_order'),
        ('tournaments', '0017_tournament_entries'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='Ladder',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('game', models.CharField(max_length=32)),
                ('seats', models.PositiveSmallIntegerField(help_text="Seats per match: the game's 2-seat table, or its smallest.")),
                ('status', models.CharField(choices=[('running', 'running'), ('finished', 'finished'), ('cancelled', 'cancelled')], default='running', max_length=16)),
                ('options', models.JSONField(blank=True, default=dict, help_text="The game's default options, merged when it was made.")),
                ('strike_limit', models.PositiveSmallIntegerField(help_text='Per match; 0 = never forfeit.')),
                ('move_time_limit', models.PositiveIntegerField(help_text='Seconds per move, per match.')),
                ('max_in_flight', models.PositiveSmallIntegerField(help_text='Matches in play at once on the whole ladder (LADDER_MAX_IN_FLIGHT).')),
                ('in_flight_per_entrant', models.PositiveSmallIntegerField(help_text='Matches in play at once per bot (LADDER_IN_FLIGHT_PER_BOT).')),
                ('pair_cap_per_day', models.PositiveSmallIntegerField(help_text='Matches a pair starts in 24 hours at most (LADDER_PAIR_CAP_PER_DAY).')),
                ('starve_after_seconds', models.PositiveIntegerField(help_text='A bot without a match for this long goes first (LADDER_STARVE_SECONDS).')),
                ('burst', models.PositiveSmallIntegerField(help_text='Matches a newly joined bot plays first (LADDER_BURST).')),
                ('deal_secret', models.CharField(editable=False, help_text='Keys every deal seed (games.engine.rng.deal_seed). A ladder never ends, so it is never shown.', max_length=64)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('started_at', models.DateTimeField(blank=True, null=True)),
                ('finished_at', models.DateTimeField(blank=True, null=True)),
            ],
            options={
                'ordering': ['game', 'seats'],
                'constraints': [models.UniqueConstraint(fields=('game', 'seats'), name='ladder_unique_game_seats')],
            },
        ),
        migrations.CreateModel(
            name='LadderEntry',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(help_text='A seat kind that names a bot: webhook or reference.', max_length=32)),
                ('bot', models.CharField(help_text="The webhook bot's id or the reference bot's name.", max_length=100)),
                ('joined_at', models.DateTimeField()),
                ('left_at', models.DateTimeField(blank=True, help_text='Opted out: no new match.', null=True)),
                ('paused', models.BooleanField(default=False)),
                ('paused_reason', models.CharField(blank=True, default='', max_length=200)),
                ('paused_at', models.DateTimeField(blank=True, null=True)),
                ('burst_left', models.PositiveSmallIntegerField(default=0, help_text='Matches left of the burst a newly joined bot plays first.')),
                ('last_match_at', models.DateTimeField(blank=True, help_text='When its latest ladder match ended.', null=True)),
                ('ladder', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='entries', to='tournaments.ladder')),
                ('owner', models.ForeignKey(blank=True, help_text="The bot's owner (two of one owner never meet).", null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('rating', models.ForeignKey(help_text="Its game's leaderboard row: the one rating.", on_delete=django.db.models.deletion.PROTECT, related_name='+', to='tournaments.leaderboardentry')),
            ],
            options={
                'ordering': ['ladder', 'id'],
                'constraints': [models.UniqueConstraint(fields=('ladder', 'kind', 'bot'), name='ladder_entry_unique_bot')],
            },
        ),
        migrations.CreateModel(
            name='LadderMatch',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('number', models.PositiveIntegerField(help_text='0, 1, 2 ... in the order planned.')),
                ('deal', models.PositiveIntegerField(help_text='Matches of one duplicate table share it.')),
                ('seed', models.BigIntegerField()),
                ('seats', models.JSONField(help_text='Ladder entry ids in seat order.')),
                ('status', models.CharField(choices=[('pending', 'pending'), ('running', 'running'), ('finished', 'finished'), ('cancelled', 'cancelled')], db_index=True, default='pending', max_length=16)),
                ('lease_until', models.DateTimeField(blank=True, null=True)),
                ('attempts', models.PositiveSmallIntegerField(default=0)),
                ('ranks', models.JSONField(blank=True, help_text='By seat, 1 = best.', null=True)),
                ('scores', models.JSONField(blank=True, help_text='By seat; null for a forfeit.', null=True)),
                ('forfeited', models.JSONField(blank=True, default=list, help_text='Entries scored as forfeits in it.')),
                ('created_at', models.DateTimeField(auto_now_add=True, db_index=True)),
                ('finished_at', models.DateTimeField(blank=True, null=True)),
                ('ladder', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='matches', to='tournaments.ladder')),
                ('match', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='ladder_match', to='games.match')),
            ],
            options={
                'ordering': ['ladder', 'number'],
                'indexes': [models.Index(fields=['status', 'lease_until'], name='lmatch_status_lease')],
                'constraints': [models.UniqueConstraint(fields=('ladder', 'number'), name='laddermatch_unique_number')],
            },
        ),
    ]
