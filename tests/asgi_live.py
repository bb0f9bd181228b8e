"""pytest-django's ``live_server``, served by uvicorn on the ASGI application: the pages
and the API as under `make run`, and the daily game's WebSocket (config/asgi.py) beside
them. Django's own live server speaks WSGI only, where the daily page's socket could never
open. uvicorn runs on a thread of the test process, on the test database, with the same
in-memory channel layer as the views (a log-out closes the player's sockets)."""

from __future__ import annotations

import threading
import time

import pytest

from harness.servers import free_port


class AsgiLiveServer:
    def __init__(self, host: str = "127.0.0.1") -> None:
        import uvicorn
        from channels.routing import ProtocolTypeRouter
        from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
        from django.core.asgi import get_asgi_application
        from django.test.utils import modify_settings

        from config.asgi import websocket_app

        self.host, self.port = host, free_port()
        app = ProtocolTypeRouter({"http": ASGIStaticFilesHandler(get_asgi_application()), "websocket": websocket_app})
        config = uvicorn.Config(
            app, host=host, port=self.port, lifespan="off", log_level="warning", ws="websockets-sansio"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True, name="asgi-live-server")
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the ASGI live server did not start")
            time.sleep(0.02)
        # As pytest-django's: the host is allowed while a test runs (_live_server_helper).
        self._live_server_modified_settings = modify_settings(ALLOWED_HOSTS={"append": host})

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def __str__(self) -> str:
        return self.url

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture(scope="session")
def live_server():
    server = AsgiLiveServer()
    yield server
    server.stop()
