"""The ASGI application: Django's HTTP views and the daily game's WebSocket
(``/ws/attempts/<id>``, challenges/consumers.py). uvicorn serves it: alone in the
embedded default (`make run`), beside gunicorn in scripts/stack and docker-compose, where
nginx sends it /ws/ only."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
django_http = get_asgi_application()  # first: it sets Django up before the consumers import models

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402
from django.urls import path  # noqa: E402

from challenges.consumers import AttemptConsumer  # noqa: E402


def http_app():
    """Static files from the app itself where no proxy serves them (DEBUG: `make run`)."""
    if settings.DEBUG:
        from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

        return ASGIStaticFilesHandler(django_http)
    return django_http


websocket_app = URLRouter([path("ws/attempts/<int:attempt_id>", AttemptConsumer.as_asgi())])

application = ProtocolTypeRouter({"http": http_app(), "websocket": websocket_app})
