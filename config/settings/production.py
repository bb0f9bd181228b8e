"""DEBUG off; secrets come from the environment and their absence stops the start.

Behind a TLS-terminating proxy that sets X-Forwarded-Proto (and, for per-IP rate limits,
X-Forwarded-For: set DJANGO_NUM_PROXIES to the number of proxies in front).
"""

import os

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F401,F403

DEBUG = False
for _name in ("DJANGO_SECRET_KEY", "DAILY_SEED_SECRET"):
    if not os.environ.get(_name):
        raise ImproperlyConfigured(f"{_name} must be set in production")
SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]
DAILY_SEED_SECRET = os.environ["DAILY_SEED_SECRET"]
if DAILY_SEED_SECRET == SECRET_KEY:
    # Rotating one must not change (or reveal) the other: every future deal hangs on it.
    raise ImproperlyConfigured("DAILY_SEED_SECRET must differ from DJANGO_SECRET_KEY")
if "*" in ALLOWED_HOSTS:  # noqa: F405
    raise ImproperlyConfigured("DJANGO_ALLOWED_HOSTS must name the site's hosts, not '*'")

SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", True)  # noqa: F405
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# On by default (`check --deploy` clean): a plain-http request that reached us is sent to
# https even where the proxy forgot to; health checks stay on http. The proxy's
# X-Forwarded-Proto tells which is which (believed only from TRUSTED_PROXIES).
# DJANGO_SSL_REDIRECT=false only to try the site over plain http.
SECURE_SSL_REDIRECT = env_bool("DJANGO_SSL_REDIRECT", True)  # noqa: F405
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
# A year by default; sent on https responses only, so plain-http trials are unaffected.
# DJANGO_HSTS_SECONDS=0 turns it off (e.g. while https is not yet right on every host).
SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", "31536000"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", False)  # noqa: F405
SECURE_HSTS_PRELOAD = env_bool("DJANGO_HSTS_PRELOAD", False)  # noqa: F405
# Both bind every other host of the domain (preloading for good): the domain owner's call,
# made with the variables above, not a default of this site. Left off, the warnings that
# ask for them say nothing new, so they are silenced (and only then).
SILENCED_SYSTEM_CHECKS = ([] if SECURE_HSTS_INCLUDE_SUBDOMAINS else ["security.W005"]) + (
    [] if SECURE_HSTS_PRELOAD else ["security.W021"]
)

# collectstatic runs when the image is built; WhiteNoise serves the hashed, compressed
# files it wrote (never the app directories, as the finders would).
STORAGES["staticfiles"] = {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"}  # noqa: F405
WHITENOISE_USE_FINDERS = False
WHITENOISE_MAX_AGE = 3600

# The worker's and beat's lines use the same structured formatter as the web's.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
