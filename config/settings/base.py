"""Settings read the environment. Nothing set: SQLite and eager (in-process) tasks.

DATABASE_URL=postgres://... switches to Postgres (psycopg 3); REDIS_URL=redis://...
switches to a Redis broker with separate worker and beat processes, and a Redis rank index.
"""

import os
import secrets
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import dj_database_url
from celery.schedules import crontab

from config import reporting

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def env_bool(name: str, default: bool = False) -> bool:
    return os.environ.get(name, str(default)).lower() in ("1", "true", "yes", "on")


# Outside production (which refuses to start without them), secrets this install made on
# its first start: a constant in the repository would let anyone compute every future
# deal of every site started with `make run`.
LOCAL_SECRETS_DIR = Path(os.environ.get("LOCAL_SECRETS_DIR", BASE_DIR / ".secrets"))


def local_secret(name: str) -> str:
    """The install's own random secret ``name``, made once and kept in LOCAL_SECRETS_DIR
    (git-ignored). Processes starting together agree: the file appears complete or not
    at all (written aside, then hard-linked into place; the first link wins)."""
    path = LOCAL_SECRETS_DIR / name
    if not path.exists():
        LOCAL_SECRETS_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
        draft = path.with_name(f".{name}.{os.getpid()}")
        draft.write_text(secrets.token_urlsafe(48))
        draft.chmod(0o600)
        try:
            os.link(draft, path)
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    return path.read_text().strip()


SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or local_secret("django_secret_key")
# The daily seed is HMAC(DAILY_SEED_SECRET, game:date): whoever knows it knows every future deal.
DAILY_SEED_SECRET = os.environ.get("DAILY_SEED_SECRET") or local_secret("daily_seed_secret")
DEBUG = env_bool("DJANGO_DEBUG", True)
ALLOWED_HOSTS = [h for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,testserver").split(",") if h]
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    # Swagger UI's assets served by us, never from a CDN.
    "drf_spectacular_sidecar",
    "casual",
    "challenges",
    "leaderboard",
    "leagues",
    "frontend",
]

MIDDLEWARE = [
    # Outermost: cuts the links between an answered request's objects (config/middleware.py).
    "config.middleware.ReleaseRequestMiddleware",
    # Each request's time by route (config/metrics.py), the rest of the chain included.
    "config.metrics.RequestMiddleware",
    # First of the rest: what follows (https redirect, client address) must see only forwarding
    # headers that the proxy wrote (config/security.py).
    "config.security.TrustedProxyMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "config.security.SecurityHeadersMiddleware",
    "config.errors.BodySizeLimitMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Before the session: it sees the cookies of every layer below (leaderboard/caching.py).
    "leaderboard.caching.LeaderboardCacheMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # A session and its user's copy in one Redis round trip (challenges/auth.py).
    "challenges.auth.PrefetchMiddleware",
    "config.middleware.PageLocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "config.middleware.PageMessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "config.errors.DatabaseUnavailableMiddleware",
    "config.errors.PageErrorMiddleware",
    # The embedded default's sweeper (no worker, no beat); gone when REDIS_URL is set.
    "challenges.embedded_sweep.EmbeddedSweepMiddleware",
]

# Django's sessions: database rows, read through the Redis cache when REDIS_URL is set
# (cached_db: one Redis GET per request, a session ended anywhere is ended everywhere;
# config/sessions.py), the database alone on the embedded default.
SESSION_ENGINE = "config.sessions" if os.environ.get("REDIS_URL") else "django.contrib.sessions.backends.db"
# A player's session loads its user and player in one query (challenges/auth.py); staff
# log in through the admin with Django's own backend.
AUTHENTICATION_BACKENDS = ["django.contrib.auth.backends.ModelBackend", "challenges.auth.PlayerBackend"]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
# HTTP and the daily game's WebSocket (config/asgi.py), served by uvicorn.
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
            ],
        },
    },
]

DATABASE_URL = os.environ.get("DATABASE_URL", "")
if DATABASE_URL:
    # No health check per request (a round trip on every ask): after a database restart
    # a worker's first request gets a clean 503 and the broken connection is dropped.
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60, conn_health_checks=False)}
    if DATABASES["default"]["ENGINE"].endswith("postgresql"):
        # Django turns psycopg's prepared statements off (prepare_threshold None, for
        # poolers), even for a cursor that asks for them. On: only the queries sent with
        # server-side binding are prepared (Django's own cursors bind on the client and
        # never are): the league boards' (config.db.prepared_rows), prepared on a
        # connection's first run, whose planning was a quarter of their Postgres time.
        # Behind PgBouncer in transaction mode: 1.22 or later with max_prepared_statements
        # above 0, and libpq 17+ on the client (psycopg's docs; docs/operations.md).
        DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = 0
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(BASE_DIR / "db.sqlite3"),
            "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"},
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("fr", "Français"), ("de", "Deutsch"), ("ja", "日本語")]
LOCALE_PATHS = [BASE_DIR / "frontend" / "locale"]
USE_I18N = True
USE_TZ = True
TIME_ZONE = "UTC"
# The day boundary of the daily challenge; never the client's clock.
CHALLENGE_TIMEZONE = os.environ.get("CHALLENGE_TIMEZONE", "UTC")
# A ranked game still running at midnight may be finished during this grace; the day's
# seed stays secret until it ends, then no ranked ask of that day is accepted.
DAILY_CLOSE_GRACE = timedelta(seconds=int(os.environ.get("DAILY_CLOSE_GRACE_SECONDS", "300")))
# The first daily challenge: earlier days do not exist (nor can they be created as practice).
FIRST_DAY = date.fromisoformat(os.environ.get("FIRST_DAY", "2026-01-01"))
# A player is established (listed on the public boards) with a counted ranked result on at
# least ESTABLISHED_DAYS of the ESTABLISHED_WINDOW days before the day; until then their
# results rank but are provisional (docs/fairplay.md "Newcomers").
ESTABLISHED_DAYS = int(os.environ.get("ESTABLISHED_DAYS", "3"))
ESTABLISHED_WINDOW = 14

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# gunicorn serves static files through WhiteNoise; finders let it do so without collectstatic.
WHITENOISE_USE_FINDERS = True
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# The proxies whose X-Forwarded-For / -Proto are believed (addresses or networks, "unix" for
# gunicorn's unix socket); the same headers from any other peer are dropped
# (config/security.py). Empty: they are left alone and DJANGO_NUM_PROXIES alone decides.
TRUSTED_PROXIES = [p.strip() for p in os.environ.get("DJANGO_TRUSTED_PROXIES", "").split(",") if p.strip()]

# Every setting, tests included, so the browser tests prove no page needs more. Nothing
# inline: scripts and styles are files of our own; images may be data: URIs (Swagger UI's
# icons). DJANGO_CSP / DJANGO_PERMISSIONS_POLICY replace them ("" = no header).
CONTENT_SECURITY_POLICY = os.environ.get(
    "DJANGO_CSP",
    "; ".join(
        (
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data:",
            "font-src 'self'",
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'self'",
            "form-action 'self'",
            "frame-ancestors 'none'",
            # Violations are reported to the site (config/csp_reports.py). report-uri only:
            # where a policy also names report-to, Chromium sends through the Reporting API
            # alone, in delayed background batches that a headless Chromium did not deliver in
            # 100 s (2026-12-05); report-uri's arrive at once, from every browser.
            "report-uri /csp-reports",
        )
    ),
)
# The Reporting API's endpoints (the Reporting-Endpoints header), for a DJANGO_CSP naming
# report-to: e.g. 'csp="/csp-reports"' (the endpoint takes application/reports+json too).
REPORTING_ENDPOINTS = os.environ.get("DJANGO_REPORTING_ENDPOINTS", "")
# The site uses none of these browser features; no page or frame may ask for them.
PERMISSIONS_POLICY = os.environ.get(
    "DJANGO_PERMISSIONS_POLICY",
    ", ".join(
        f"{feature}=()"
        for feature in (
            "accelerometer",
            "camera",
            "geolocation",
            "gyroscope",
            "magnetometer",
            "microphone",
            "payment",
            "usb",
        )
    ),
)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "challenges.auth_api.PlayerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_RENDERER_CLASSES": ["config.renderers.JSONRenderer"],
    # JSON bounded in depth: any body it cannot decode is a 400 bad_json (config/parsers.py).
    "DEFAULT_PARSER_CLASSES": ["config.parsers.SafeJSONParser"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "config.negotiation.JSONFirstNegotiation",
    "EXCEPTION_HANDLER": "config.errors.api_exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": None,
    # The client IP for per-IP limits is REMOTE_ADDR unless this many proxies (each
    # adding to X-Forwarded-For) stand in front: a client cannot forge its address.
    # One by default once the proxy is named (TRUSTED_PROXIES).
    "NUM_PROXIES": int(os.environ.get("DJANGO_NUM_PROXIES", "1" if TRUSTED_PROXIES else "0")),
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Pêche daily challenge API",
    "DESCRIPTION": (
        "The daily Pêche challenge: players, the day's deal, attempts played one ask at a "
        "time, verified results and leaderboards. Every error is "
        '`{"error": code, "detail": text}`. API clients send `Authorization: Token <token>` '
        "(the token comes from `POST /api/players`); browsers use the session cookie. A body is "
        "sent with its `Content-Length` and is at most 16 KiB: a chunked one is refused, "
        '`411 {"error": "length_required"}`, and a larger one `413 {"error": "too_large"}`, '
        "at every size and whether or not a proxy is in front."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "config.openapi.bad_token_everywhere"],
}

# Rate limits ("N/second|minute|hour|day"; "off" disables), counted in the cache, so
# they hold across every web process that shares it (Redis when REDIS_URL is set).
RATE_LIMITS = {
    # New players per client IP.
    "players": os.environ.get("RATE_LIMIT_PLAYERS", "30/hour"),
    # Asks per player (a whole game is a few dozen asks).
    "asks": os.environ.get("RATE_LIMIT_ASKS", "600/minute"),
    # Password log-ins per client IP, and per client IP and name: guessing a password takes
    # many tries. Never per name alone: that would lock the name's owner out from
    # everywhere (config/throttling.py, login_name_refused).
    "logins": os.environ.get("RATE_LIMIT_LOGINS", "20/hour"),
    "logins_name": os.environ.get("RATE_LIMIT_LOGINS_NAME", "10/hour"),
    # The admin's log-ins (staff passwords guard today's cards), the same way.
    "admin_logins": os.environ.get("RATE_LIMIT_ADMIN_LOGINS", "10/hour"),
    "admin_logins_name": os.environ.get("RATE_LIMIT_ADMIN_LOGINS_NAME", "5/hour"),
    # Browsers without a player starting casual games, per client IP: not sign-ups (no
    # name, no login), and a classroom behind one address has dozens of them.
    "casual_owners": os.environ.get("RATE_LIMIT_CASUAL_OWNERS", "600/hour"),
    # One-time codes to sign in on another device: made per player, tried per client IP.
    "device_codes": os.environ.get("RATE_LIMIT_DEVICE_CODES", "10/hour"),
    "device_code_tries": os.environ.get("RATE_LIMIT_DEVICE_CODE_TRIES", "20/hour"),
    # League invite codes tried (right or wrong), per client IP and per player: a join is
    # a few a week, a guesser needs about 2**48 tries.
    "league_joins": os.environ.get("RATE_LIMIT_LEAGUE_JOINS", "60/hour"),
    "league_joins_player": os.environ.get("RATE_LIMIT_LEAGUE_JOINS_PLAYER", "20/hour"),
    # Analyses of games not analysed yet asked for, per client IP: each costs an analysis
    # worker about a second; a player looking through the day's replays asks a few dozen.
    "analyses": os.environ.get("RATE_LIMIT_ANALYSES", "120/hour"),
    # …and from every address together, games handed to the analysis workers on readers'
    # requests (a player's own game not counted): a script with many addresses would still
    # fill the queue. 2,000 is about half an hour of one core.
    "analyses_day": os.environ.get("RATE_LIMIT_ANALYSES_DAY", "2000/day"),
    # CSP violation reports per client IP: a page breaking the policy reports each load.
    "csp_reports": os.environ.get("RATE_LIMIT_CSP_REPORTS", "60/hour"),
}
# Failed log-ins for one name from any address: each Nth within the period is logged at
# WARNING with the addresses (a burst of guesses; nothing is refused for it). "off": none.
LOGIN_FAILURE_BURST = os.environ.get("LOGIN_FAILURE_BURST", "10/hour")
# Bodies of the API are tiny; anything larger is refused before parsing.
DATA_UPLOAD_MAX_MEMORY_SIZE = 16 * 1024

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    # Shared by all web processes: rate-limit counters and sessions must be. Through the
    # Redis guard, with its hot-path timeout: a session is read on every request (config/cache.py).
    CACHES = {"default": {"BACKEND": "config.cache.GuardedRedisCache", "LOCATION": REDIS_URL, "KEY_PREFIX": "cache"}}
else:
    # One process (the embedded default): its own memory is all there is to share.
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
# Channels' layer: it carries "close this player's sockets" from the process that logged
# the player out (gunicorn) to the one holding the sockets (uvicorn). One process (the
# embedded default) needs no more than its own memory.
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL], "prefix": "ws:"},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
# The game socket's limits (challenges/consumers.py). An ask is ~30 bytes; the server
# itself drops frames past 64 KiB (uvicorn --ws-max-size) with close code 1009.
GAME_SOCKET = {
    "max_frame": int(os.environ.get("GAME_SOCKET_MAX_FRAME", "1024")),  # bytes: larger is `too_large`
    "rate": float(os.environ.get("GAME_SOCKET_RATE", "20")),  # asks per second per socket, sustained
    "burst": float(os.environ.get("GAME_SOCKET_BURST", "40")),  # asks at once per socket
    "per_player": int(os.environ.get("GAME_SOCKET_PER_PLAYER", "8")),  # open sockets per player: more refused
    "idle_seconds": float(os.environ.get("GAME_SOCKET_IDLE_SECONDS", "600")),  # no message: closed
    "send_timeout": float(os.environ.get("GAME_SOCKET_SEND_TIMEOUT", "10")),  # an answer not taken: closed
    "recheck_seconds": float(os.environ.get("GAME_SOCKET_RECHECK_SECONDS", "60")),  # credential read again
}
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = False
# A task is acknowledged only once done; a worker killed mid-task gives it back.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 4
# Unacknowledged messages come back after this long (longer than any verification).
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 300}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = "UTC"
CELERY_BEAT_SCHEDULE = {
    "create-next-challenge": {
        "task": "challenges.tasks.ensure_upcoming_challenges",
        "schedule": crontab(minute="*/30"),
    },
    "sweep-verifying": {
        "task": "challenges.tasks.sweep_verifying",
        "schedule": timedelta(seconds=float(os.environ.get("SWEEP_SECONDS", "60"))),
    },
    # The day's par, worked out once its seed is public (the close plus its grace): a few
    # minutes after it at most.
    "day-pars": {
        "task": "challenges.tasks.pars_due",
        "schedule": crontab(minute="*/5"),
    },
    # Every ranked game of a closed day analysed by the beat, a round a minute
    # (challenges/services.py ``analyses_due``), before anyone asks.
    "day-analyses": {
        "task": "challenges.tasks.analyses_due",
        "schedule": timedelta(seconds=60),
    },
}
# The analyses (games/analysis/) have a queue of their own: `celery -A config worker -Q
# analysis` workers take it, the verification workers (the default queue) never see it.
CELERY_TASK_ROUTES = {
    "challenges.tasks.analyse_attempt": {"queue": "analysis"},
    "challenges.tasks.pars_due": {"queue": "analysis"},
    "challenges.tasks.analyses_due": {"queue": "analysis"},
    "challenges.tasks.day_par": {"queue": "analysis"},
}
# An attempt still `verifying` this long after it finished is re-enqueued by the sweeper.
VERIFY_STUCK_AFTER = timedelta(seconds=int(os.environ.get("VERIFY_STUCK_AFTER", "120")))
# Without a broker the web process sweeps: on its first request, then on one request per
# this interval (challenges/embedded_sweep.py).
EMBEDDED_SWEEP = True
EMBEDDED_SWEEP_EVERY = timedelta(seconds=float(os.environ.get("SWEEP_SECONDS", "60")))

# One structured line per record: logfmt (key=value) by default, LOG_FORMAT=json for JSON.
# The key=value pairs a message names (attempt=, challenge=) become fields of their own.
LOGGING: dict[str, Any] = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "line": {"()": "config.logfmt.StructuredFormatter", "json": os.environ.get("LOG_FORMAT", "logfmt") == "json"}
    },
    "filters": {"disallowed_host": {"()": "config.security.DisallowedHostLogFilter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "line"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        # A bad Host header per request was an ERROR line (and traceback) per request:
        # counted, and logged once a minute at most (config/security.py).
        "django.security.DisallowedHost": {"filters": ["disallowed_host"]},
    },
}

# /metrics (config/metrics.py): answered only to `Authorization: Bearer <METRICS_TOKEN>`; unset, a 404.
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "")
# The gauges of state a scrape reads from the database.
METRICS_GAUGES = ["challenges.selectors.operations_gauges", "leaderboard.selectors.results_gauges"]

# Error reports to Sentry when SENTRY_DSN is set, scrubbed of anything personal (config/reporting.py).
SENTRY_ENABLED = reporting.start()
