"""Error reports (config/reporting.py): with SENTRY_DSN set, a failing request and an error
logged reach a Sentry endpoint (here a fake one on 127.0.0.1) with nothing that identifies
a player; unset, the SDK is never started, nor even imported."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from config.reporting import FILTERED, scrub, scrubbed
from tests.conftest import ROOT

# What the failing request carries that identifies someone: none of it may be sent.
NAME = "Bérénice Quillard"
EMAIL = "berenice.quillard@example.org"
TOKEN = "tok3nOfBereniceQuillard0123456789"
COOKIE = "c00kieOfBereniceQuillard987654321"
ADDRESS = "198.51.100.23"
JOIN_CODE = "JoinCodeOfTheLeague12345678"

CHILD = f"""
import io, logging, sys
from urllib.parse import urlencode
from django.core.wsgi import get_wsgi_application
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

application = get_wsgi_application()  # as gunicorn serves it
import config.urls

log = logging.getLogger("challenges.services")

def failing(request, code):
    log.info("player created name={NAME} from {ADDRESS}")
    raise RuntimeError(
        'duplicate key value violates unique constraint: Key (name)=({NAME}) already exists; '
        'email {EMAIL} token={TOKEN} from {ADDRESS}'
    )

config.urls.urlpatterns.insert(0, path("leagues/join/<str:code>/fail", csrf_exempt(failing)))
body = urlencode({{"name": "{NAME}", "password": "{TOKEN}"}}).encode()
environ = {{
    "REQUEST_METHOD": "POST", "PATH_INFO": "/leagues/join/{JOIN_CODE}/fail", "QUERY_STRING": "token={TOKEN}",
    "SERVER_NAME": "testserver", "SERVER_PORT": "80", "HTTP_HOST": "testserver", "REMOTE_ADDR": "{ADDRESS}",
    "HTTP_COOKIE": "csrftoken={COOKIE}", "HTTP_AUTHORIZATION": "Token {TOKEN}", "HTTP_X_FORWARDED_FOR": "{ADDRESS}",
    "HTTP_USER_AGENT": "{NAME}'s browser", "CONTENT_TYPE": "application/x-www-form-urlencoded",
    "CONTENT_LENGTH": str(len(body)), "wsgi.input": io.BytesIO(body), "wsgi.url_scheme": "http",
    "wsgi.errors": sys.stderr, "wsgi.version": (1, 0), "wsgi.multithread": False, "wsgi.multiprocess": True,
    "wsgi.run_once": False, "SERVER_PROTOCOL": "HTTP/1.1",
}}
statuses = []
b"".join(application(environ, lambda status, headers, *_: statuses.append(status)))
log.error("login refused name=%s email=%s from %s", "{NAME}", "{EMAIL}", "{ADDRESS}")
loaded = "sentry_sdk" in sys.modules  # imported by config/reporting.py only when started
if loaded:
    import sentry_sdk
    sentry_sdk.flush(10)
print(statuses[0].split()[0], loaded)
"""


class FakeSentry(BaseHTTPRequestHandler):
    received: list[bytes] = []

    def do_POST(self):  # noqa: N802 (http.server's name)
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        encoding = self.headers.get("Content-Encoding", "")
        if encoding == "gzip":
            body = gzip.decompress(body)
        elif encoding == "deflate":
            body = zlib.decompress(body)
        self.received.append(body)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass


@pytest.fixture
def fake_sentry():
    FakeSentry.received = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeSentry)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def run_child(dsn: str | None) -> subprocess.CompletedProcess:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    env.pop("SENTRY_DSN", None)
    if dsn is not None:
        env["SENTRY_DSN"] = dsn
    return subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, env=env, capture_output=True, text=True, timeout=90)


def events(raw: list[bytes]) -> list[dict]:
    """The events of the envelopes received (header line, then item header and payload pairs)."""
    found = []
    for body in raw:
        lines = body.split(b"\n")
        for header, payload in zip(lines[1::2], lines[2::2], strict=False):
            if json.loads(header).get("type") == "event":
                found.append(json.loads(payload))
    return found


def test_an_error_reaches_sentry_with_nothing_identifying(fake_sentry):
    port = fake_sentry.server_address[1]
    done = run_child(f"http://publickey@127.0.0.1:{port}/1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["500", "True"]
    sent = events(FakeSentry.received)
    assert len(sent) == 2, sent  # the request's exception, the error logged
    failure = next(event for event in sent if "exception" in event)
    exception = failure["exception"]["values"][-1]
    assert exception["type"] == "RuntimeError"
    assert "duplicate key value violates unique constraint" in exception["value"]
    assert failure["request"]["method"] == "POST"
    assert failure["request"]["url"].endswith(f"/leagues/join/{FILTERED}/fail")
    assert "user" not in failure
    logged = next(event for event in sent if "exception" not in event)
    assert "login refused" in logged["logentry"]["message"]
    everything = b"\n".join(FakeSentry.received).decode()
    for secret in (NAME, EMAIL, TOKEN, COOKIE, ADDRESS, JOIN_CODE, "Quillard", "csrftoken"):
        assert secret not in everything, secret


def test_unset_sentry_is_never_started(fake_sentry):
    done = run_child(None)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["500", "False"]
    assert FakeSentry.received == []


@pytest.mark.parametrize(
    "text, kept",
    [
        ("Key (name)=(Alice) already exists", "already exists"),
        ("login refused name=Alice from 203.0.113.9", "login refused"),
        ("token: 'abc def' user=bob@example.org", "token"),
        ("attempt=12 challenge=3 score=1030", "attempt=12 challenge=3 score=1030"),
    ],
)
def test_scrub_keeps_the_words_and_drops_the_values(text, kept):
    found = scrub(text)
    assert kept in found
    for secret in ("Alice", "203.0.113.9", "abc def", "bob@example.org"):
        assert secret not in found


def test_scrubbed_rebuilds_the_request_from_what_is_safe():
    event = {
        "user": {"id": 4, "ip_address": "203.0.113.9"},
        "request": {
            "method": "GET",
            "url": "http://x/leagues/join/SECRETCODE/?token=t",
            "headers": {"Cookie": "sessionid=s", "Authorization": "Token t", "Content-Type": "text/html"},
            "cookies": {"sessionid": "s"},
            "data": {"name": "Alice"},
            "env": {"REMOTE_ADDR": "203.0.113.9"},
        },
        "extra": {"sys.argv": ["x"]},
    }
    clean = scrubbed(event)
    assert clean["request"] == {
        "method": "GET",
        "url": f"http://x/leagues/join/{FILTERED}/",
        "headers": {"Content-Type": "text/html"},
    }
    assert "user" not in clean and "extra" not in clean
