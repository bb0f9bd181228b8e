"""The proxy in front of gunicorn: scripts/stack's nginx, from the same template as
docker-compose's. Slow clients do not hold gunicorn's sync workers; the app sees each
client's real address through it and believes forwarding headers from it alone."""

from __future__ import annotations

import http.client
import json
import re
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest
import yaml
from django.test import RequestFactory, override_settings
from rest_framework.throttling import BaseThrottle

from config.security import TrustedProxyMiddleware
from harness.servers import stop_stack
from tests.conftest import ROOT, wait_for
from tests.test_ops_health import free_port

STACK = str(ROOT / "scripts" / "stack")
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
# gunicorn's own timeout, short here so that "no worker was killed" covers several of them.
WORKER_TIMEOUT = 3

needs_nginx = pytest.mark.skipif(not Path(NGINX).exists(), reason="nginx missing: run `make test` (stack-deps)")


@pytest.fixture
def web_stack(tmp_path):
    """``web_stack(proxy=True, workers=2, **env)`` -> (port, run dir): scripts/stack's web (and
    proxy) on a free port, without worker or beat; stopped at the end. Only the stack's own
    SQLite file is used (unmigrated: these tests ask nothing that needs a table)."""
    started = []

    def start(proxy: bool = True, workers: int = 2, **extra):
        run = tmp_path / f"run{len(started)}"
        run.mkdir()
        port = free_port()
        env = {k: v for k, v in __import__("os").environ.items() if not k.startswith(("DJANGO_", "STACK_"))}
        env.update(
            DJANGO_SETTINGS_MODULE="config.settings.test",
            DATABASE_URL=f"sqlite:///{run}/db.sqlite3",
            REDIS_URL="",
            STACK_RUN_DIR=str(run),
            STACK_BIND=f"127.0.0.1:{port}",
            STACK_SKIP_SETUP="1",
            STACK_WORKER="0",
            STACK_BEAT="0",
            STACK_PROXY="1" if proxy else "0",
            WEB_CONCURRENCY=str(workers),
            GUNICORN_CMD_ARGS=f"--timeout {WORKER_TIMEOUT}",
            **extra,
        )
        done = subprocess.run([STACK, "start"], env=env, capture_output=True, text=True, timeout=90)
        started.append((env, run))
        assert done.returncode == 0, done.stdout + done.stderr + (run / "web.log").read_text()
        return port, run

    yield start
    for _, run in started:
        stop_stack(run)


def slow_clients(port: int, count: int, seconds: float) -> threading.Event:
    """``count`` connections that send a request's first line and then a header byte every
    half second for ``seconds``, never finishing their headers (slowloris)."""
    connected = threading.Barrier(count + 1)
    done = threading.Event()

    def trickle():
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            connected.wait()
            end = time.monotonic() + seconds
            try:
                while time.monotonic() < end:
                    sock.sendall(b"x")
                    time.sleep(0.5)
            except OSError:  # the server gave up on us: that is allowed
                pass
        done.set()

    threads = [threading.Thread(target=trickle, daemon=True) for _ in range(count)]
    for thread in threads:
        thread.start()
    connected.wait()
    time.sleep(0.5)  # their first bytes are in: each is what a worker would accept first
    done.threads = threads
    return done


def healthz(port: int, timeout: float = 3.0) -> int:
    """/healthz's status, or 0 if it does not answer within ``timeout``."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", "/healthz")
        return connection.getresponse().status
    except OSError:
        return 0
    finally:
        connection.close()


def boots_and_kills(run: Path) -> tuple[int, int]:
    log = (run / "web.log").read_text()
    return len(re.findall(r"Booting worker with pid", log)), len(re.findall(r"WORKER TIMEOUT", log))


@needs_nginx
def test_slow_clients_hold_no_worker_behind_the_proxy(web_stack):
    port, run = web_stack(proxy=True)
    assert (run / "proxy.pid").exists() and "unix:" in (run / "peche.conf").read_text()
    # Four times the workers, for longer than two of gunicorn's timeouts.
    clients = slow_clients(port, count=8, seconds=WORKER_TIMEOUT * 2 + 1)
    answers = []
    while not clients.is_set():
        answers.append(healthz(port))
        time.sleep(0.5)
    for thread in clients.threads:
        thread.join(10)
    answers.append(healthz(port))
    assert answers and set(answers) == {200}, answers
    # gunicorn never saw the slow clients: its two workers lived throughout.
    assert boots_and_kills(run) == (2, 0), (run / "web.log").read_text()[-2000:]


def test_without_the_proxy_two_slow_clients_stop_the_site(web_stack):
    """What slow clients do to gunicorn alone (2 workers), kept as the reason for the proxy."""
    port, run = web_stack(proxy=False)
    clients = slow_clients(port, count=2, seconds=WORKER_TIMEOUT * 3)
    assert healthz(port, timeout=2) == 0  # both workers are stuck reading headers
    # gunicorn kills the stuck workers (and boots new ones).
    wait_for(lambda: boots_and_kills(run)[1] >= 1, timeout=WORKER_TIMEOUT * 4, interval=0.2)
    clients.wait(WORKER_TIMEOUT * 4)


def request_from(port: int, source: str, path: str, method: str = "GET", headers: dict | None = None) -> int:
    """A request whose connection comes from ``source`` (any 127.x address is this machine)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    try:
        connection.request(
            method,
            path,
            body=b"{}" if method == "POST" else None,
            headers={"Content-Type": "application/json", **(headers or {})},
        )
        return connection.getresponse().status
    finally:
        connection.close()


@needs_nginx
def test_the_app_sees_each_clients_own_address_through_the_proxy(web_stack):
    """Per-IP limits behind the proxy: one new player an hour per address. A second try from
    the same address is refused though it claims another in X-Forwarded-For; another
    address is not refused. (One worker: the counters are in its memory without Redis.)"""
    port, _ = web_stack(proxy=True, workers=1, RATE_LIMIT_PLAYERS="1/hour")
    assert request_from(port, "127.0.0.2", "/api/players", "POST") != 429  # the first, whatever the database says
    assert request_from(port, "127.0.0.2", "/api/players", "POST", {"X-Forwarded-For": "203.0.113.7"}) == 429
    assert request_from(port, "127.0.0.3", "/api/players", "POST") != 429


@needs_nginx
def test_every_405_names_the_allowed_methods_through_the_proxy(web_stack):
    """RFC 9110: a 405 carries Allow. nginx refuses TRACE itself; the app's own 405 passes
    through with the app's Allow (schemathesis' ST204 against the stack found the first)."""
    port, _ = web_stack(proxy=True, workers=1)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("TRACE", "/api/session")
    traced = conn.getresponse()
    body = traced.read()
    assert traced.status == 405 and "GET" in traced.getheader("Allow", "")
    assert b'"error": "method_not_allowed"' in body
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("PUT", "/api/leaderboard/today")
    refused = conn.getresponse()
    refused.read()
    assert refused.status == 405 and refused.getheader("Allow", "").replace(" ", "") == "GET,HEAD,OPTIONS"


def raw_answer(port: int, request: bytes) -> tuple[int, str, bytes]:
    """(status, Content-Type, body) of a request written byte for byte (http.client would
    refuse to send a malformed one)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split()[1]), headers.get("Content-Type", ""), body


@needs_nginx
def test_requests_nginx_refuses_itself_get_the_api_s_json_error(web_stack):
    """A %00 in the path (and a header nginx cannot parse) is refused by nginx before any
    location: the API's JSON error, not nginx's HTML page. The app's own 400s are its own."""
    port, _ = web_stack(proxy=True, workers=1)
    for request in (
        b"GET /api/attempts/%00 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
        b"GET /leaderboard/%00/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
        b"GET /api/session HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\nConnection: close\r\n\r\n",
    ):
        status, content_type, body = raw_answer(port, request)
        assert (status, content_type) == (400, "application/json"), (request, status, content_type, body)
        assert json.loads(body) == {
            "error": "bad_request",
            "detail": "the request is malformed (its path or a header)",
        }, request
    # A 400 of the app's own passes through as the app wrote it.
    status, content_type, body = raw_answer(
        port, b"GET /api/challenges/not-a-date HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    assert (status, content_type, json.loads(body)["error"]) == (400, "application/json", "bad_date")


def post_body(port: int, body: bytes, chunked: bool = False) -> tuple[int, str, dict]:
    """(status, Content-Type, JSON) of POST /api/players with ``body``; the JSON must be
    whole (http.client refuses a body shorter than its length or an unfinished chunking)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        if chunked:
            connection.request(
                "POST",
                "/api/players",
                body=iter([body[: len(body) // 2], body[len(body) // 2 :]]),
                encode_chunked=True,
                headers={"Content-Type": "application/json"},
            )
        else:
            connection.request("POST", "/api/players", body=body, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type", ""), json.loads(response.read())
    finally:
        connection.close()


def name_of(size: int) -> bytes:
    return b'{"name": "' + b"x" * size + b'"}'


@needs_nginx
@pytest.mark.parametrize("proxy", [True, False], ids=["nginx", "gunicorn"])
def test_one_answer_for_big_and_chunked_bodies(web_stack, proxy):
    """Once 16-256 KiB bodies got a 413 whose JSON was cut short (gunicorn answered
    before reading them and the reset took the answer), nginx answered larger ones with an
    HTML page, and a chunked body got in through nginx though gunicorn alone (and the API
    docs) said 411. Now, with the proxy and without it: 413 with the JSON error at every
    size, 411 with the JSON error for a chunked body, and a body within the limit served."""
    port, _ = web_stack(proxy=proxy, workers=1)
    sizes = [20_000, 100_000, 300_000, 900_000] + ([3_000_000] if proxy else [])
    for size in sizes:
        status, content_type, body = post_body(port, name_of(size))
        assert (status, content_type) == (413, "application/json"), (size, status, content_type)
        assert body == {"error": "too_large", "detail": "the request body is too large"}, size
    for size in (10, 100_000, 300_000):  # within and past either limit: length first
        status, content_type, body = post_body(port, name_of(size), chunked=True)
        assert (status, content_type, body["error"]) == (411, "application/json", "length_required"), size
        assert "Content-Length" in body["detail"]
    # Within the limit, with its length, a body reaches the app (which reads it: bad_name).
    status, _, body = post_body(port, name_of(100))
    assert (status, body["error"]) == (400, "bad_name")


rf = RequestFactory()


def seen(remote: str, **headers) -> tuple[str, bool]:
    """(the client address the rate limits and fair-play use, https?) of a request."""
    found = {}

    def view(request):
        found.update(ident=BaseThrottle().get_ident(request), secure=request.is_secure())

    TrustedProxyMiddleware(view)(rf.get("/", REMOTE_ADDR=remote, **headers))
    return found["ident"], found["secure"]


FORWARDED = {"HTTP_X_FORWARDED_FOR": "203.0.113.7", "HTTP_X_FORWARDED_PROTO": "https"}


@pytest.mark.parametrize(
    "trusted, remote, expected",
    [
        ("10.1.2.3", "10.1.2.3", ("203.0.113.7", True)),  # the proxy: its headers count
        ("10.1.2.0/24", "10.1.2.9", ("203.0.113.7", True)),  # a network of proxies
        ("10.1.2.3", "10.1.2.4", ("10.1.2.4", False)),  # anyone else: forged, dropped
        ("unix", "", ("203.0.113.7", True)),  # gunicorn's unix socket (the stack)
        ("unix", "127.0.0.1", ("127.0.0.1", False)),  # ...but not TCP peers then
        ("10.1.2.3", "::ffff:10.1.2.3", ("203.0.113.7", True)),  # the proxy on a dual-stack socket
    ],
)
def test_forwarding_headers_are_believed_from_the_trusted_proxy_only(trusted, remote, expected):
    with override_settings(
        TRUSTED_PROXIES=trusted.split(","),
        SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https"),
        REST_FRAMEWORK={"NUM_PROXIES": 1},
    ):
        assert seen(remote, **FORWARDED) == expected


def test_no_trusted_proxy_named_leaves_the_headers_to_num_proxies():
    from django.core.exceptions import MiddlewareNotUsed

    with override_settings(TRUSTED_PROXIES=[]), pytest.raises(MiddlewareNotUsed):
        TrustedProxyMiddleware(lambda request: None)


def test_compose_publishes_only_the_proxy():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    proxy, web = services["proxy"], services["web"]
    assert "ports" not in web, "gunicorn is published directly"
    published = [name for name, service in services.items() if "ports" in service]
    assert published == ["proxy", "prometheus", "grafana"]
    # The monitoring's own ports on the host's loopback only (docs/operations.md).
    for name in ("prometheus", "grafana"):
        assert all(str(port).startswith("127.0.0.1:") for port in services[name]["ports"]), name
    assert proxy["depends_on"]["web"]["condition"] == "service_healthy"
    mounts = " ".join(proxy["volumes"])
    assert "config/nginx.conf.template:/etc/nginx/templates/" in mounts
    assert proxy["environment"]["NGINX_UPSTREAM"] == "web:8000"
    # The app believes X-Forwarded-* from the proxy's fixed address only.
    address = proxy["networks"]["default"]["ipv4_address"]
    assert web["environment"]["DJANGO_TRUSTED_PROXIES"] == address
