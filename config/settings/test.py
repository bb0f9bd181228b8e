import os as _os
import re as _re

from .base import *  # noqa: F401,F403
from .base import REDIS_URL  # named: this module reassigns it below

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
DAILY_SEED_SECRET = "test-daily-secret"
LOGGING["root"]["level"] = "WARNING"  # noqa: F405
# Off unless the environment sets them (the ops tests' gunicorn does; others override).
RATE_LIMITS = {scope: _os.environ.get(f"RATE_LIMIT_{scope.upper()}", "off") for scope in RATE_LIMITS}  # noqa: F405

if REDIS_URL:
    # Under pytest, REDIS_URL names the session's own redis-server (./conftest.py),
    # never the machine's; the tests flush database TEST_REDIS_DB (15) of it, and processes
    # they start may pick another database of the same server with TEST_REDIS_DB.
    REDIS_URL = _re.sub(r"(/\d*)?$", "/" + _os.environ.get("TEST_REDIS_DB", "15"), REDIS_URL.rstrip("/"), count=1)
    CELERY_BROKER_URL = REDIS_URL
    CACHES["default"]["LOCATION"] = REDIS_URL  # noqa: F405
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL], "prefix": "ws:"},
        }
    }
VERIFY_STUCK_AFTER = timedelta(seconds=2)  # noqa: F405
# Every player established from the first game: the tests of what a board lists are about
# the board, with a new player per test; tests/test_provisional.py sets the site's rule.
ESTABLISHED_DAYS = 0
# Off: each test client is a new handler whose first request would sweep, adding statements
# to whichever request a test measures; tests/test_embedded_sweep.py turns it on.
EMBEDDED_SWEEP = False
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):  # noqa: F405
    # A file, not shared-cache memory: concurrent requests then wait on SQLite's lock
    # (busy timeout) instead of failing at once with "table is locked".
    DATABASES["default"]["TEST"] = {  # noqa: F405
        # One file per test run by default, so parallel runs on one machine never share it.
        "NAME": _os.environ.get("TEST_SQLITE_PATH", str(BASE_DIR / f".test-db-{_os.getpid()}.sqlite3"))
    }  # noqa: F405
