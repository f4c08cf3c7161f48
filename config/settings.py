"""Bluff League settings: one file, every deployment difference comes from the environment.

Defaults give a working local platform with nothing to install: a SQLite file and kombu's
filesystem broker under ``var/``. Production sets ``DEBUG=0``, ``SECRET_KEY``, ``ALLOWED_HOSTS``,
``DATABASE_URL=postgres://...`` and ``CELERY_BROKER_URL=redis://...``.
"""

import ssl
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from .env import (
    broker_url,
    cache_from_url,
    database_from_url,
    env_bool,
    env_float,
    env_int,
    env_list,
    env_networks,
    env_str,
)

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("BLUFF_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DEBUG", True)

_DEV_SECRET_KEY = "django-insecure-local-development-only"
SECRET_KEY = env_str("SECRET_KEY", _DEV_SECRET_KEY if DEBUG else "")
if not SECRET_KEY:
    raise ImproperlyConfigured("Set the SECRET_KEY environment variable when DEBUG is off.")

ALLOWED_HOSTS = env_list(
    "ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"] if DEBUG else []
)
if not DEBUG and not ALLOWED_HOSTS:
    raise ImproperlyConfigured("Set ALLOWED_HOSTS (comma-separated) when DEBUG is off.")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.forms",  # its widget templates, for FORM_RENDERER
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "games",
    "bots",
    "tournaments",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "config.exceptions.ApiBodyLimitMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "config" / "templates"],  # the site's base page and home
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.context_processors.seats_to_act",  # the header's "your turn" badge
            ],
            "builtins": ["games.templatetags.game_names"],  # {{ id|game_name }} everywhere
        },
    },
]

VAR_DIR.mkdir(parents=True, exist_ok=True)  # the default SQLite file and broker live here
DATABASES = {"default": database_from_url("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}")}
if env_bool("DATABASE_TRANSACTION_POOLER", False):
    # PgBouncer (or any pooler) in transaction mode between the processes and PostgreSQL
    # (docs/deploy.md): a server connection is shared between transactions, so no server-side
    # cursor (``.iterator()`` would open one). Django already keeps psycopg from preparing
    # statements.
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True
# A transaction left open by a process that went silent (its host cut off, frozen) keeps its
# row locks until PostgreSQL ends its session, which TCP alone may not do for hours: PostgreSQL
# ends it after this many seconds idle inside a transaction (0: never). Set on the connection,
# so not behind a transaction pooler (set it on the database role there: docs/deploy.md).
DATABASE_IDLE_IN_TRANSACTION_SECONDS = env_int("DATABASE_IDLE_IN_TRANSACTION_SECONDS", 60,
                                               minimum=0)
if (DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
        and DATABASE_IDLE_IN_TRANSACTION_SECONDS
        and not env_bool("DATABASE_TRANSACTION_POOLER", False)):
    DATABASES["default"].setdefault("OPTIONS", {})["options"] = (
        f"-c idle_in_transaction_session_timeout={DATABASE_IDLE_IN_TRANSACTION_SECONDS * 1000}")
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# Throttle counts live here: shared by every web process (a file cache under var/ by default,
# Redis in production), so a limit holds however many workers serve the API.
# (An absolute folder: Django's checks warn about a relative one, e.g. BLUFF_VAR_DIR=var/test.)
CACHES = {"default": cache_from_url("CACHE_URL", f"file://{(VAR_DIR / 'cache').resolve()}")}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# Every form drawn the same way: label, input, its errors, muted help (config/forms.py).
FORM_RENDERER = "config.forms.FormRenderer"
# The site's sign-in page (people; programs use API tokens).
LOGIN_URL = "sign-in"
LOGIN_REDIRECT_URL = "my-matches"  # /me/: what waits on you first, then your series
LOGOUT_REDIRECT_URL = "home"
STATICFILES_DIRS = [BASE_DIR / "config" / "static"]  # the site's stylesheet (no build step)
#: The rules pages render docs/rules/<game>.md.
RULES_DIR = BASE_DIR / "docs" / "rules"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)  # whitenoise expects it; collectstatic fills it for production
WHITENOISE_USE_FINDERS = DEBUG

# ---- Celery -----------------------------------------------------------------------------------
# The embedded default is kombu's filesystem transport: a folder, no service to run.
BROKER_DIR = VAR_DIR / "broker"
CELERY_BROKER_URL = broker_url("CELERY_BROKER_URL", "filesystem://")
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", f"file://{VAR_DIR / 'results'}")
if CELERY_RESULT_BACKEND.startswith("file://"):
    Path(CELERY_RESULT_BACKEND.removeprefix("file://")).mkdir(parents=True, exist_ok=True)
if CELERY_BROKER_URL.startswith("filesystem://"):
    # kombu's filesystem transport, writing each message atomically (config/broker.py).
    CELERY_BROKER_TRANSPORT = "config.broker:Transport"
    # kombu's filesystem transport needs its folders to exist before the first message.
    for _folder in ("queue", "control"):
        (BROKER_DIR / _folder).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
        # kombu polls the folder, once a second by default: every task (a match, a chunk of a
        # tournament) then waited half a second on average before a worker saw it; at 20 ms
        # an idle worker's listing of one small folder costs little (docs/performance.md).
        "polling_interval": env_float("BLUFF_BROKER_POLL_SECONDS", 0.02, minimum=0.001),
    }
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = TIME_ZONE
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 600, minimum=1)
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 540, minimum=1)
#: The longest any task may run: CELERY_TASK_TIME_LIMIT, or a task's own time_limit (at most
#: 900 s, bots.prune_call_log); tests check every task against it.
LONGEST_TASK_SECONDS = max(CELERY_TASK_TIME_LIMIT, 900)
# A message is acknowledged once its task has run, not when a worker takes it, and one whose
# worker died is given back to the broker: another worker runs it. Every task is safe to run
# twice (conditional claims, the match version guard, leases; docs/deploy.md).
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    # kombu's Redis transport without the flaw that made a worker exit when the broker went
    # away while it held unacknowledged messages (config/broker.py).
    CELERY_BROKER_TRANSPORT = "config.broker:RedisTransport"
if CELERY_BROKER_URL.startswith("rediss://"):
    # TLS, the server's certificate checked against the system's CAs: kombu by itself would
    # check nothing (with a warning). The URL's ssl_cert_reqs, ssl_ca_certs, ssl_certfile and
    # ssl_keyfile, when given, replace this (docs/deploy.md).
    CELERY_BROKER_USE_SSL = {"ssl_cert_reqs": ssl.CERT_REQUIRED}
if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        # Redis has no acknowledgements of its own: kombu delivers a message again once it has
        # been unacknowledged this long (its worker died). Just longer than a task may run, so
        # a running task is never handed to a second worker, and no longer (kombu's default is
        # an hour).
        "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", LONGEST_TASK_SECONDS + 60,
                                      minimum=LONGEST_TASK_SECONDS + 1),
        # Workers look for such messages every 10 s (kombu's default: every 100 s).
        "unacked_restore_interval": 10,
        "unacked_restore_throttle": 1,
    }
elif CELERY_BROKER_URL.startswith(("amqp://", "pyamqp://")):
    # RabbitMQ (recommended in production, docs/deploy.md): quorum queues (replicated, durable),
    # publisher confirms (a task is queued only once the broker has it), and the broker's own
    # acknowledgements: a message comes back as soon as its consumer's connection is gone.
    CELERY_TASK_DEFAULT_QUEUE_TYPE = "quorum"
    CELERY_TASK_CREATE_MISSING_QUEUE_TYPE = "quorum"
    CELERY_BROKER_TRANSPORT_OPTIONS = {"confirm_publish": True}
    # A worker's remote-control queue not exclusive to its connection: a worker host cut off
    # for 40 s reconnects before RabbitMQ has noticed its old connection is gone, and an
    # exclusive queue still held by that connection refused the new one (RESOURCE_LOCKED),
    # which Celery treats as unrecoverable: the worker stopped (issue 45; test_hosts.py).
    CELERY_CONTROL_QUEUE_EXCLUSIVE = False
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Two queues: tasks that play matches wait on bots' servers; housekeeping (deadlines, health
# checks, pruning, resuming stalled matches) must never wait behind them. `make run` and
# docker-compose start a worker for each; more workers scale either one.
QUEUE_MATCHES = "matches"
QUEUE_HOUSEKEEPING = "housekeeping"
CELERY_TASK_DEFAULT_QUEUE = QUEUE_HOUSEKEEPING
CELERY_TASK_ROUTES = {"games.advance_automatic_seats": {"queue": QUEUE_MATCHES},
                      "tournaments.play": {"queue": QUEUE_MATCHES}}
# A worker takes one message at a time: a long match never sits in a busy worker's prefetch.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Celery's Django fixup closes the database connections around every task unless told to reuse
# them; config.celery checks them between tasks instead, as Django does between requests.
CELERY_DB_REUSE_MAX = 1000
# One periodic "dispatch what is due" task per concern; django-celery-beat's DatabaseScheduler
# copies these entries into its tables on start-up.
CELERY_BEAT_SCHEDULE = {
    "games-expire-deadlines": {
        "task": "games.expire_deadlines",
        "schedule": float(env_int("BLUFF_DEADLINE_SWEEP_SECONDS", 10, minimum=1)),
        "options": {"expires": 60},
    },
    "bots-health-check": {
        "task": "bots.health_check",
        "schedule": float(env_int("BOTS_HEALTH_CHECK_SECONDS", 3600, minimum=10)),
        "options": {"expires": 600},
    },
    "bots-recheck-held": {
        "task": "bots.recheck_held",
        "schedule": 0.0,  # BOTS_RECHECK_HELD_SECONDS: set below
        "options": {"expires": 120},
    },
    "games-resume-stalled-matches": {
        "task": "games.resume_stalled_matches",
        "schedule": 0.0,  # BLUFF_RESUME_SWEEP_SECONDS: set below, from the lease
        "options": {"expires": 60},
    },
    "tournaments-start-due": {
        "task": "tournaments.start_due",
        "schedule": float(env_int("TOURNAMENT_START_SWEEP_SECONDS", 15, minimum=1)),
        "options": {"expires": 60},
    },
    "leagues-start-due-nights": {
        "task": "tournaments.start_due_nights",
        "schedule": float(env_int("LEAGUE_START_SWEEP_SECONDS", 15, minimum=1)),
        "options": {"expires": 60},
    },
    "tournaments-reap": {
        "task": "tournaments.reap",
        "schedule": 0.0,  # TOURNAMENT_REAP_SECONDS: set below, from the claim lease
        "options": {"expires": 60},
    },
    "bots-prune-call-log": {
        "task": "bots.prune_call_log",
        "schedule": float(env_int("BOTS_CALL_LOG_PRUNE_SECONDS", 3600, minimum=10)),
        "options": {"expires": 600},
    },
}

# ---- Matches ----------------------------------------------------------------------------------
# Per-move time limit when a match does not set one: generous, humans play over days.
BLUFF_DEFAULT_MOVE_TIME_LIMIT = env_int("BLUFF_DEFAULT_MOVE_TIME_LIMIT", 24 * 3600, minimum=1)
# Strikes (missed deadlines) after which a seat is forfeited; 0 = never.
BLUFF_MAX_STRIKES = env_int("BLUFF_MAX_STRIKES", 3, minimum=0)
# Upper bound of the long-poll ``?wait=N`` (seconds): it holds a worker while it waits.
BLUFF_POLL_MAX_WAIT = env_int("BLUFF_POLL_MAX_WAIT", 30, minimum=0)
# How often a live page (a running tournament, a league night being played) fetches itself again.
BLUFF_LIVE_REFRESH_SECONDS = env_int("BLUFF_LIVE_REFRESH_SECONDS", 5, minimum=1)
# Loaded engine states kept per process for polls (0 disables the cache).
BLUFF_STATE_CACHE_SIZE = env_int("BLUFF_STATE_CACHE_SIZE", 256, minimum=0)
# A running match whose due out-of-process seat (a webhook bot) has not moved for this long is
# queued again (a lost message, a killed worker).
BLUFF_STALLED_SECONDS = env_int("BLUFF_STALLED_SECONDS", 120, minimum=1)

# ---- Webhook bots (bots/) --------------------------------------------------------------------
# Calling loopback/private addresses is refused unless explicitly allowed (`make run` and the
# tests turn it on): never a side effect of DEBUG, since a bot URL must never reach the
# platform's own network in a deployment that merely forgot DEBUG=0.
BOTS_ALLOW_PRIVATE_ADDRESSES = env_bool("BOTS_ALLOW_PRIVATE_ADDRESSES", False)
BOTS_MOVE_TIMEOUT_MS = env_int("BOTS_MOVE_TIMEOUT_MS", 1000, minimum=10)
BOTS_MAX_RESPONSE_BYTES = env_int("BOTS_MAX_RESPONSE_BYTES", 64 * 1024, minimum=1024)
BOTS_HANDSHAKE_TIMEOUT_MS = env_int("BOTS_HANDSHAKE_TIMEOUT_MS", 5000, minimum=10)
# The most simultaneous requests the platform sends one bot from one worker process when its
# handshake declares no "max_concurrency" (bots.selectors.bot_concurrency).
BOTS_MAX_CONCURRENCY = env_int("BOTS_MAX_CONCURRENCY", 8, minimum=1)
# A matches worker that plays every match it takes on one thread, hundreds in flight at once
# (games.services.multiplexed), its thread count (--concurrency) being how many: docs/deploy.md.
# Off: each match is played on the thread that took its task, as with 32 threads today.
BLUFF_MULTIPLEXED_WORKER = env_bool("BLUFF_MULTIPLEXED_WORKER", False)
# How long a task asking a match's webhook bots holds the match (games.services.store.Lease):
# renewed by every batch it stores, at least every two calls' timeouts and a second, so it must
# outlast that; a match whose worker died waits this long before another worker asks its bots.
_LEASE_FLOOR = 2 * -(-BOTS_MOVE_TIMEOUT_MS // 1000) + 2
BLUFF_ADVANCE_LEASE_SECONDS = env_int("BLUFF_ADVANCE_LEASE_SECONDS", max(15, 3 * _LEASE_FLOOR),
                                      minimum=_LEASE_FLOOR)
# How long a multiplexed worker keeps a match's moves in memory before it stores them (the
# threaded worker: a second). Hundreds of matches in flight each move a few times a second, so
# a batch of a second holds a few moves and its statements would cost more than the moves;
# a third of the lease still leaves room for the two timeouts of a step before it runs out.
# Spectators see a webhook match move in steps of up to this long.
BLUFF_MULTIPLEXED_BATCH_SECONDS = env_int("BLUFF_MULTIPLEXED_BATCH_SECONDS",
                                          max(1, BLUFF_ADVANCE_LEASE_SECONDS // 3), minimum=1)
# The stalled-match sweep runs every half lease by default, so a match whose worker died (its
# lease ran out) is asked again within two leases of its last batch (docs/deploy.md).
BLUFF_RESUME_SWEEP_SECONDS = env_int("BLUFF_RESUME_SWEEP_SECONDS",
                                     max(1, BLUFF_ADVANCE_LEASE_SECONDS // 2), minimum=1)
CELERY_BEAT_SCHEDULE["games-resume-stalled-matches"]["schedule"] = float(
    BLUFF_RESUME_SWEEP_SECONDS)
# Whose fault a failed bot call is (bots/reachability.py): host:port addresses of the
# platform's own services that a worker connects to when a call fails in transport; if none
# answers, the failure is the platform's (never a strike: the move is asked again). Unset: the
# database's and the broker's addresses (none on the embedded default: nothing to check).
BOTS_REACHABILITY_CHECK = env_list("BOTS_REACHABILITY_CHECK", []) or None
# How long a worker waits for its own network to come back before it drops the batch unplayed
# (the match is asked again from its last stored position, as after a worker that died).
BOTS_OUTAGE_WAIT_SECONDS = env_float("BOTS_OUTAGE_WAIT_SECONDS",
                                     float(BLUFF_ADVANCE_LEASE_SECONDS), minimum=0)
# After a secret rotation calls are signed with the previous secret too for this long, so the
# bot keeps verifying them until it is redeployed with the new one; 0 cuts the old one at once.
BOTS_SECRET_OVERLAP_HOURS = env_int("BOTS_SECRET_OVERLAP_HOURS", 24, minimum=0)
# Days of bot call log kept (one row per call; bots' stats are over these); 0 keeps all.
BOTS_CALL_LOG_DAYS = env_int("BOTS_CALL_LOG_DAYS", 30, minimum=0)
# How often the bots a handshake holds out of play (the last one failed, or the URL serves a
# version other than the bot's) are re-handshaken: they play again this soon once fixed.
BOTS_RECHECK_HELD_SECONDS = env_int("BOTS_RECHECK_HELD_SECONDS", 300, minimum=10)
CELERY_BEAT_SCHEDULE["bots-recheck-held"]["schedule"] = float(BOTS_RECHECK_HELD_SECONDS)

# ---- Tournaments (tournaments/) ---------------------------------------------------------------
TOURNAMENT_MAX_PARTICIPANTS = env_int("TOURNAMENT_MAX_PARTICIPANTS", 64, minimum=2)
TOURNAMENT_MAX_MEETINGS = env_int("TOURNAMENT_MAX_MEETINGS", 20, minimum=1)
# Per organiser (staff are exempt): scheduled or running tournaments, and matches still to play.
TOURNAMENT_MAX_ACTIVE = env_int("TOURNAMENT_MAX_ACTIVE", 3, minimum=1)
TOURNAMENT_MAX_QUEUED_MATCHES = env_int("TOURNAMENT_MAX_QUEUED_MATCHES", 5000, minimum=1)
# An entrant of any series (a tournament participant, a league member for the rest of a night)
# whose seat forfeited this many matches in a row is withdrawn (0 = never): docs/series.md.
SERIES_FORFEITS_TO_WITHDRAW = env_int("SERIES_FORFEITS_TO_WITHDRAW", 3, minimum=0)
# How far ahead a series may be scheduled: a tournament's starts_at, a league's season_start and
# season_end, a one-off night's starts_at (docs/api.md).
SERIES_MAX_SCHEDULE_AHEAD_DAYS = env_int("SERIES_MAX_SCHEDULE_AHEAD_DAYS", 365, minimum=1)
# Pending matches one play task claims and starts at once (their bookkeeping in one transaction).
# 32: a chunk's own cost shared by enough matches; one and two workers both ran faster than at
# 16 (docs/performance.md, bench/tournament.py).
TOURNAMENT_CHUNK = env_int("TOURNAMENT_CHUNK", 32, minimum=1)
# How long a queued or claimed tournament match may go unseen before the reaper queues it again.
TOURNAMENT_LEASE_SECONDS = env_int("TOURNAMENT_LEASE_SECONDS", 300, minimum=1)
# How long the rows a play task is claiming stay its own if it dies inside its transaction
# before the reaper queues them again (tournaments.playing._mark_taken): the reaper runs every
# half of it by default, so a killed worker's chunk is played again within two of these.
TOURNAMENT_CLAIM_LEASE_SECONDS = env_int("TOURNAMENT_CLAIM_LEASE_SECONDS", 30, minimum=1)
CELERY_BEAT_SCHEDULE["tournaments-reap"]["schedule"] = float(env_int(
    "TOURNAMENT_REAP_SECONDS", max(1, TOURNAMENT_CLAIM_LEASE_SECONDS // 2), minimum=1))
# How long recording a finished match (and the reaper's finishing check) waits for a lock
# another transaction holds before leaving it to the reaper's next run: a worker host cut off
# inside a transaction holds its locks until PostgreSQL ends its session
# (DATABASE_IDLE_IN_TRANSACTION_SECONDS), and no other host's worker waits that long for it.
TOURNAMENT_RECORD_LOCK_SECONDS = env_int("TOURNAMENT_RECORD_LOCK_SECONDS", 5, minimum=1)

# ---- Leagues (tournaments/leagues/services.py) ---------------------------------------------------
LEAGUE_MAX_MEMBERS = env_int("LEAGUE_MAX_MEMBERS", 128, minimum=2)
LEAGUE_MAX_HANDS_PER_NIGHT = env_int("LEAGUE_MAX_HANDS_PER_NIGHT", 100, minimum=1)
# Tables of a league night played by one task (their hands stored together); a night's groups
# play in parallel on as many worker processes as consume the matches queue.
LEAGUE_TABLES_PER_TASK = env_int("LEAGUE_TABLES_PER_TASK", 4, minimum=1)

# ---- Ladders (tournaments/ladders/, docs/ladder.md) ------------------------------------------------
# A new game ladder takes these; each ladder keeps its own copy (Ladder's fields).
LADDER_MAX_IN_FLIGHT = env_int("LADDER_MAX_IN_FLIGHT", 16, minimum=1)
LADDER_IN_FLIGHT_PER_BOT = env_int("LADDER_IN_FLIGHT_PER_BOT", 1, minimum=1)
LADDER_PAIR_CAP_PER_DAY = env_int("LADDER_PAIR_CAP_PER_DAY", 10, minimum=1)
LADDER_STARVE_SECONDS = env_int("LADDER_STARVE_SECONDS", 3600, minimum=1)
LADDER_BURST = env_int("LADDER_BURST", 10, minimum=0)
# The ladder reads this many of its latest results for the withdrawal rule (forfeits in a row).
LADDER_RECENT_RESULTS = env_int("LADDER_RECENT_RESULTS", 500, minimum=10)
# A bot version's provisional run (docs/ladder.md, "Versions"): the field is the game's
# reference bots and this many of the top of its ladder; each table's deal is played this many
# times over (each once per seat rotation, by the candidate and by the bot as it plays now).
BOT_VERSION_BENCHMARK_TOP = env_int("BOT_VERSION_BENCHMARK_TOP", 3, minimum=0)
BOT_VERSION_MEETINGS = env_int("BOT_VERSION_MEETINGS", 2, minimum=1)

# ---- REST framework and OpenAPI ---------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Bodies are JSON only (a form is 415), bounded in size and nesting (config/parsers.py).
    "DEFAULT_PARSER_CLASSES": ["config.parsers.JSONParser"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 50,
    # A bad token on a public read reads as none (lib/authentication.py, docs/api.md).
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "lib.authentication.PublicReadTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    # DRF's classes counted atomically, per connection address (lib/throttling.py).
    "DEFAULT_THROTTLE_CLASSES": [
        "lib.throttling.AnonRateThrottle",
        "lib.throttling.UserRateThrottle",
    ],
    # Never trust X-Forwarded-For in DRF's own get_ident; ours reads BLUFF_TRUSTED_PROXIES.
    "NUM_PROXIES": 0,
    # anon/user: every endpoint without a scope of its own. Scoped (per user, else per IP):
    # signup (signing up and getting a token), spectate (public view and logs) and play
    # (polling, acting and resigning for a seat), so one kind of traffic never uses up another.
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("BLUFF_THROTTLE_ANON", "120/min"),
        "user": env_str("BLUFF_THROTTLE_USER", "3000/min"),
        "signup": env_str("BLUFF_THROTTLE_SIGNUP", "10/min"),
        "spectate": env_str("BLUFF_THROTTLE_SPECTATE", "600/min"),
        "play": env_str("BLUFF_THROTTLE_PLAY", "3000/min"),
    },
    "EXCEPTION_HANDLER": "config.exceptions.exception_handler",
}

# ---- Client addresses and sign-ins (lib/throttling.py, docs/api.md "Throttling") ----------
# Proxies (addresses or networks) whose X-Forwarded-For is believed; none by default, so the
# address a throttle counts is the connection's, whatever a client writes in that header.
BLUFF_TRUSTED_PROXIES = env_networks("BLUFF_TRUSTED_PROXIES")
# Wrong passwords for one account (from any address) within the lock-out window that lock its
# password sign-in (API token exchange and the site's sign-in page) for that window.
BLUFF_LOGIN_FAILURE_LIMIT = env_int("BLUFF_LOGIN_FAILURE_LIMIT", 10, minimum=1)
BLUFF_LOGIN_LOCKOUT_SECONDS = env_int("BLUFF_LOGIN_LOCKOUT_SECONDS", 900, minimum=1)

SPECTACULAR_SETTINGS = {
    "TITLE": "Bluff League API",
    "DESCRIPTION": (
        "Bluff League: where game-playing bots meet. Five hidden-information card and dice games "
        "(DTC, The Great Dalmuti, Le Dutch, the dice-cup bluff game, D.O.T), a turn-based polling "
        "API for programs and people, webhook bots the platform calls on their turn, and "
        "tournaments (round robins and tables, standings with confidence intervals, per-game "
        "ratings). Start with docs/api.md (polling, tournaments) or docs/bot-protocol.md (bots) "
        "in the repository."
    ),
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Matches, tournaments and their matches each have a "status": one enum name for each.
    "ENUM_NAME_OVERRIDES": {
        "StatusEnum": "games.models.Match.Status",
        "TournamentStatusEnum": "tournaments.models.Tournament.Status",
        "TournamentMatchStatusEnum": "tournaments.models.TournamentMatch.Status",
        # A tournament says its format (any); an organiser chooses among its own formats.
        "TournamentFormatEnum": "tournaments.models.Tournament.Format",
        "OrganiserFormatEnum": "tournaments.models.ORGANISER_FORMATS",
    },
    # Object ids in paths: games.converters.IdConverter (<id:...>).
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer", "minimum": 0,
                                        "maximum": 10**18 - 1}},  # = games.converters.ID_SCHEMA
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}
