from .base import *  # noqa: F401,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
DAILY_SEED_SECRET = "test-daily-secret"
LOGGING["root"]["level"] = "WARNING"  # noqa: F405
