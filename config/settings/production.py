"""DEBUG off; secrets come from the environment and their absence stops the start."""
import os

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F401,F403

DEBUG = False
for _name in ("DJANGO_SECRET_KEY", "DAILY_SEED_SECRET"):
    if not os.environ.get(_name):
        raise ImproperlyConfigured(f"{_name} must be set in production")
SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]
DAILY_SEED_SECRET = os.environ["DAILY_SEED_SECRET"]
SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", True)  # noqa: F405
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
STORAGES["staticfiles"] = {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"}  # noqa: F405
