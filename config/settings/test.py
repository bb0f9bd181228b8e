from .base import *  # noqa: F401,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
DAILY_SEED_SECRET = "test-daily-secret"
LOGGING["root"]["level"] = "WARNING"  # noqa: F405

import re as _re

if REDIS_URL:  # noqa: F405
    # Tests own a Redis database of their own and flush it.
    REDIS_URL = _re.sub(r"(/\d*)?$", "/15", REDIS_URL.rstrip("/"), count=1)  # noqa: F405
    CELERY_BROKER_URL = REDIS_URL
VERIFY_STUCK_AFTER = timedelta(seconds=2)  # noqa: F405
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):  # noqa: F405
    # A file, not shared-cache memory: concurrent requests then wait on SQLite's lock
    # (busy timeout) instead of failing at once with "table is locked".
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / ".test-db.sqlite3")}  # noqa: F405
