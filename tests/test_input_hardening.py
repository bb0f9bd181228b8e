"""Hostile input is a 4xx with a JSON error code (API) or a proper error page
(pages), never a 500 — deep JSON, days that do not exist, chunked bodies."""

from __future__ import annotations

import pytest

from config.parsers import MAX_DEPTH, loads, nesting_depth
from tests.conftest import new_player

pytestmark = pytest.mark.django_db

DEEP = "[" * 2000 + "]" * 2000
JSON_POSTS = [
    "/api/players",
    "/api/session",
    "/api/players/me/password",
    "/api/attempts/1/asks",
    "/api/casual/kitten/games",
    "/api/casual/kitten/games/1/moves",
    "/api/casual/gofish/games/1/finish",
]


# --- 1. deeply nested JSON -----------------------------------------------------------


@pytest.mark.parametrize("path", JSON_POSTS)
@pytest.mark.parametrize("who", ["anonymous", "player"])
def test_deeply_nested_json_is_a_400_bad_json_everywhere(api, path, who):
    client = new_player("Deep Diver") if who == "player" else api
    client.raise_request_exception = False
    response = client.post(path, DEEP, content_type="application/json")
    if who == "anonymous" and response.status_code == 401:
        # Refused before the body is read: the body never reaches the parser.
        assert response.json()["error"] == "not_authenticated"
        return
    assert response.status_code == 400, response.content[:300]
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"] == "bad_json"


@pytest.mark.parametrize(
    "body",
    [
        "[" * 2000 + "]" * 2000,
        '{"a":' * 1500 + "1" + "}" * 1500,
        "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1),
        '{"name": NaN}',
        '{"name": Infinity}',
        "1" * 5000,
        '{"name": "x"',
        "\ufeff{}",
    ],
    ids=["arrays-2000", "objects-1500", "one-too-deep", "nan", "infinity", "5000-digits", "unclosed", "bom"],
)
def test_what_the_parser_cannot_decode_is_bad_json(api, body):
    response = api.post("/api/players", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"] == "bad_json"


@pytest.mark.parametrize(
    "raw,content_type",
    [
        (b"\xff\xfe\x00{", "application/json"),
        (b'{"name": "\xc3"}', "application/json"),
        (b'{"name": "Ann"}', "application/json; charset=utf-16"),  # an odd number of bytes
    ],
)
def test_undecodable_bytes_and_charsets_are_bad_json(api, raw, content_type):
    response = api.generic("POST", "/api/players", raw, content_type=content_type)
    assert response.status_code == 400
    assert response.json()["error"] == "bad_json"


def test_reasonable_nesting_still_parses():
    nested = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert nesting_depth(nested.encode()) == MAX_DEPTH
    assert loads(nested.encode()) is not None
    # Brackets inside strings are text, not depth.
    assert nesting_depth(b'{"name": "[[[[[[\\"[[["}') == 1
    assert loads(b'{"name": "' + b"[" * 100 + b'"}') == {"name": "[" * 100}


def test_a_body_within_the_depth_limit_still_creates_a_player(api):
    response = api.post("/api/players", '{"name": "Flat Ann", "extra": [[[1]]]}', content_type="application/json")
    assert response.status_code == 201, response.content


# --- 2. pages for days, players and games that do not exist ---------------------------


def _past(n: int) -> str:
    import datetime as dt

    from challenges import days

    return (days.today() - dt.timedelta(days=n)).isoformat()


NOT_FOUND_PAGES = [
    "/leaderboard/2025-12-31/",
    "/daily/2025-12-31/",  # the day before the first one
    "/leaderboard/0001-01-01/",
    "/daily/0001-01-01/",
    "/leaderboard/9999-12-31/",
    "/daily/9999-12-31/",
    "/leaderboard/2026-02-30/",
    "/leaderboard/not-a-day/",
    "/daily/2026-13-01/",
    "/daily/-1/",
    "/players/0/",
    "/players/99999999999999999999999999/",
    "/replays/0/",
    "/replays/99999999999999999999999999/",
]


@pytest.mark.parametrize("path", NOT_FOUND_PAGES)
def test_pages_of_things_that_do_not_exist_are_404_pages(client, path):
    client.raise_request_exception = False
    response = client.get(path)
    assert response.status_code == 404, (path, response.status_code)
    assert response["Content-Type"].startswith("text/html")
    assert "<h1>Not found</h1>" in response.content.decode()


@pytest.mark.parametrize(
    "lang,heading", [("en", "Not found"), ("fr", "Introuvable"), ("de", "Nicht gefunden"), ("ja", "見つかりません")]
)
def test_the_404_page_speaks_the_pages_language(client, lang, heading):
    client.raise_request_exception = False
    html = client.get("/leaderboard/2025-12-31/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    assert f'<html lang="{lang}">' in html
    assert f"<h1>{heading}</h1>" in html


def test_the_first_days_leaderboard_has_no_previous_day_link(client, settings):
    settings.FIRST_DAY = __import__("datetime").date.fromisoformat(_past(3))
    first = client.get(f"/leaderboard/{_past(3)}/").content.decode()
    assert 'rel="prev"' not in first
    assert f'href="/leaderboard/{_past(3)}/" rel="prev"' in client.get(f"/leaderboard/{_past(2)}/").content.decode()
    assert client.get(f"/leaderboard/?date={_past(30)}")["Location"] == f"/leaderboard/{_past(3)}/"
    archive = client.get("/daily/archive/").content.decode()
    assert f"/daily/{_past(3)}/" in archive and f"/daily/{_past(4)}/" not in archive


@pytest.mark.parametrize(
    "status,lang,text",
    [(404, "de", "Nicht gefunden"), (400, "fr", "Requête invalide"), (409, "ja", "このページは表示できません")],
)
def test_a_refusal_raised_under_a_page_is_that_status_as_a_page(rf, status, lang, text):
    """Any ApiError that reaches the page layer (pages call the API's helpers) becomes
    the page's error page with the refusal's status, never a 500."""
    from django.utils import translation

    from config.errors import ApiError, PageErrorMiddleware

    request = rf.get("/leaderboard/2026-03-01/")
    with translation.override(lang):
        response = PageErrorMiddleware(lambda r: None).process_exception(request, ApiError("x", "refused", status))
    assert response.status_code == status
    assert text in response.content.decode()
    # API paths are DRF's: the middleware leaves their refusals to the JSON handler.
    assert PageErrorMiddleware(lambda r: None).process_exception(rf.get("/api/x"), ApiError("x", "y", 404)) is None


# --- 3. chunked bodies, against real server processes ----------------------------------


def _server_env() -> dict:
    """A server process on this test's database (Postgres or the SQLite file)."""
    import os

    from django.db import connection

    env = dict(os.environ, DJANGO_SETTINGS_MODULE="config.settings.test")
    if connection.vendor == "postgresql":
        from tests.conftest import worker_env

        env.update(worker_env(connection.settings_dict["NAME"]))
    else:
        env["DATABASE_URL"] = f"sqlite:///{connection.settings_dict['NAME']}"
        env.pop("REDIS_URL", None)
    return env


@pytest.fixture(params=["gunicorn", "runserver"])
def server(request, transactional_db, tmp_path):
    import subprocess
    import sys

    from tests.conftest import ROOT, free_port, wait_for

    port = free_port()
    command = {
        "gunicorn": [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "1"],
        "runserver": [sys.executable, "manage.py", "runserver", "--noreload", "--nothreading", f"127.0.0.1:{port}"],
    }[request.param]
    log = open(tmp_path / "server.log", "wb")
    proc = subprocess.Popen(
        command, cwd=ROOT, env=_server_env(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    try:
        wait_for(lambda: proc.poll() is not None or _get(port, "/healthz")[0] == 200, timeout=40, interval=0.2)
        assert proc.poll() is None, (tmp_path / "server.log").read_text()
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def _get(port: int, path: str) -> tuple[int, bytes]:
    import http.client

    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    except OSError:
        return 0, b""


def _post(port: int, path: str, body: bytes, chunked: bool) -> tuple[int, str, dict]:
    import http.client
    import json

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    response = None
    if chunked:  # no Content-Length: Transfer-Encoding: chunked, the body in two chunks
        try:
            conn.request(
                "POST",
                path,
                body=iter([body[:5], body[5:]]),
                encode_chunked=True,
                headers={"Content-Type": "application/json"},
            )
        except BrokenPipeError:
            # The server answered on the headers and closed before the second chunk (seen
            # once in CI with runserver): its answer is there to be read all the same.
            response = http.client.HTTPResponse(conn.sock, method="POST")
            response.begin()
    else:
        conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
    if response is None:
        response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, response.getheader("Content-Type"), json.loads(data)


@pytest.mark.stack  # gunicorn and runserver of its own (the server fixture)
def test_a_chunked_body_is_refused_with_411_not_read_as_empty(server):
    status, content_type, body = _post(server, "/api/players", b'{"name": "Chunky Ann"}', chunked=True)
    assert (status, content_type, body["error"]) == (411, "application/json", "length_required")
    assert "Content-Length" in body["detail"]
    # The same body with its length creates the player.
    status, _, body = _post(server, "/api/players", b'{"name": "Chunky Ann"}', chunked=False)
    assert status == 201, body
    assert body["name"] == "Chunky Ann"


def _raw(port: int, request: bytes) -> int:
    """The status a real server answers to these exact bytes (0: it closed without one)."""
    import socket

    head = b""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        try:
            s.sendall(request)
            # No shutdown(SHUT_WR): a server that answers before reading the whole body (a
            # CSRF refusal) and closes may already have reset the connection (ENOTCONN).
            while b"\r\n" not in head:
                chunk = s.recv(4096)
                if not chunk:
                    break
                head += chunk
        except (ConnectionResetError, BrokenPipeError):
            pass  # what it answered before closing is still read above; none is a 0
    return int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else 0


@pytest.mark.stack  # gunicorn and runserver of its own (the server fixture)
def test_raw_bytes_to_every_route_of_a_real_server_find_no_5xx(server):
    """What the test client cannot send: bytes that are not UTF-8 in the path itself, and
    bodies through the server's own HTTP parsing (the fuzz of tests/test_input_fuzz.py
    covers the rest in process)."""
    from tests.test_input_fuzz import GARBAGE, paths, patterns

    deep = b"[" * 5000 + b"]" * 5000
    failures = []
    for route in patterns():
        path = paths(route, {})[0].encode()
        for request in (
            b"GET " + path + b"\xff\xfe%ff?q=\xc3 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
            b"POST " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json"
            b"\r\nContent-Length: %d\r\n\r\n" % len(deep) + deep,
            b"POST " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: \xff\r\n"
            b"Content-Length: %d\r\n\r\n" % len(GARBAGE) + GARBAGE,
        ):
            status = _raw(server, request)
            if status >= 500 or status == 0:
                failures.append(f"{status} {request[:60]!r}")
    assert not failures, "\n".join(failures[:30])
