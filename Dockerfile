# One image for web, worker and beat (docker-compose.yml picks the command).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# gettext: compilemessages at build time (the .mo files are not in the repository).
RUN apt-get update \
    && apt-get install -y --no-install-recommends gettext \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
# The runtime lock only (hash-checked): no test, lint or benchmark package in the image.
COPY requirements/runtime.txt requirements/runtime.txt
RUN pip install -r requirements/runtime.txt

COPY . .
# Static files are collected once, here: WhiteNoise serves the hashed, compressed copies
# (CompressedManifestStaticFilesStorage). Build-only secrets: production settings refuse
# to load without them, and nothing built here depends on their values.
RUN python manage.py compilemessages -v0 \
    && DJANGO_SETTINGS_MODULE=config.settings.production \
       DJANGO_SECRET_KEY=build-only-not-a-secret DAILY_SEED_SECRET=build-only-not-a-seed \
       python manage.py collectstatic --noinput -v0

RUN useradd --system --uid 10001 --home-dir /app app \
    && mkdir -p /var/lib/peche /run/peche-metrics \
    && chown app /var/lib/peche /run/peche-metrics
USER app

ENV DJANGO_SETTINGS_MODULE=config.settings.production
EXPOSE 8000
CMD ["gunicorn", "-c", "config/gunicorn.py", "config.wsgi", "--workers", "2"]
