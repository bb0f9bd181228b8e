"""Every URL pattern of the site (API, pages, admin), whatever it is sent — random
bytes, invalid UTF-8, JSON nested thousands deep, numbers too large for any column, wrong
content types and lengths, hostile path arguments and query strings — answers without a
5xx, and every API refusal is JSON with an error code. Anonymous, as a player (token and
session, owning a daily attempt and a casual game) and as a superuser.

The patterns are read from the URL resolver, so a new endpoint is fuzzed without being
named here. In process (Django's test client), bounded: a few thousand requests."""

from __future__ import annotations

import itertools
import json
import random
import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.resolvers import RoutePattern

from tests.conftest import new_player

pytestmark = pytest.mark.django_db

RNG = random.Random(14)
GARBAGE = bytes(RNG.randrange(256) for _ in range(300))

BODIES: list[tuple[str, bytes | str]] = [
    # Well formed for every endpoint: the path's hostile arguments reach the services.
    (
        "application/json",
        json.dumps({"name": "Fuzz Ann", "password": "long enough password 14", "rank": "A", "move": 0, "play": "flip"}),
    ),
    ("application/json", GARBAGE),
    ("application/json", b'{"name": "\xff\xfe\xc3", "rank": "\xed\xa0\x80"}'),  # invalid UTF-8, a lone surrogate
    # Valid JSON whose strings are not text: lone surrogates as escapes, in values and a key.
    ("application/json", '{"name": "\\ud800x", "password": "\\udfff long enough 14", "rank": "\\ud800", "\\udc00": 0}'),
    ("application/json", "[" * 3000 + "]" * 3000),
    ("application/json", '{"a":' * 2000 + "0" + "}" * 2000),
    ("application/json", '{"name": ' + "9" * 5000 + "}"),
    (
        "application/json",
        json.dumps(
            {
                "name": 10**300,
                "password": 1e308,
                "rank": [10**200],
                "move": 10**30,
                "expected": -(10**30),
                "players": 10**40,
                "hand_size": 1e308,
            }
        ),
    ),
    ("application/json", '{"rank": "A", "move": 1e400, "expected": -1e400}'),
    ("application/json", '{"name": NaN, "move": Infinity}'),
    (
        "application/json",
        json.dumps(
            {
                "name": "x" * 10000,
                "rank": {"$ne": 1},
                "move": True,
                "expected": None,
                "players": "2",
                "hand_size": [],
                "password": {"a": [1]},
            }
        ),
    ),
    ("application/json", '"just a string"'),
    ("application/json", "[]"),
    ("application/json; charset=utf-16", b'{"name": "odd"}'),
    ("application/json; charset=no-such-charset", b'{"name": "Ann"}'),
    ("text/plain", GARBAGE),
    ("application/x-www-form-urlencoded", b"name=%ff%fe&move=99999999999999999999999&" + b"a=1&" * 500),
    ("multipart/form-data", GARBAGE),  # no boundary
    ("multipart/form-data; boundary=xyz", b"--xyz\r\n" + GARBAGE),
    ("application/xml", b"<?xml version='1.0'?><!DOCTYPE a [<!ENTITY b 'c'>]><a>&b;</a>"),
    ("", GARBAGE),
]
# Content-Length values a client may lie with (the body is short either way).
LENGTHS = ["-1", "abc", "99999999999999999999", "16385"]

INT_VALUES = ["0", "1", "99999999999999999999999999"]
STR_VALUES = [
    "today",
    "2025-12-31",
    "0001-01-01",
    "9999-12-31",
    "2026-02-30",
    "%ff%fe",
    "%00",
    "kitten",
    "x" * 300,
    "-1",
]
GAME_VALUES = ["kitten", "gofish", "nope"]
QUERY = (
    "?page=-1&page=99999999999999999999&limit=1e999&offset=abc&around=%ff&date=0000-00-00"
    "&next=//evil.example&language=xx"
)

CONVERTER = re.compile(r"<(?:(\w+):)?(\w+)>")


def patterns(resolver=None, prefix: str = "") -> list[str]:
    """Every URL pattern as a route text, regex patterns included (their groups replaced by
    a value they accept)."""
    out = []
    for entry in (resolver or get_resolver()).url_patterns:
        pattern = entry.pattern
        text = str(pattern)  # a pattern's text as Django writes it (the route, or the regex)
        if not isinstance(pattern, RoutePattern):  # a group of literal alternatives gets its first, any other "x"
            text = text.lstrip("^").rstrip("$")
            text = re.sub(r"\(\?P<\w+>([\w|]+)\)", lambda m: m.group(1).split("|")[0], text)
            text = re.sub(r"\(\?P<\w+>[^)]*\)", "x", text)
        if isinstance(entry, URLResolver):
            out += patterns(entry, prefix + text)
        else:
            assert isinstance(entry, URLPattern)
            out.append(prefix + text)
    return out


def paths(route: str, ids: dict[str, list[str]]) -> list[str]:
    """Concrete paths of a route: each argument takes every hostile value of its kind
    (and the ids that exist for the caller, so the deeper code runs too)."""
    choices = []
    for kind, name in CONVERTER.findall(route):
        if name == "game":
            choices.append(GAME_VALUES)
        elif kind == "int" or name.endswith("_id") and kind != "path":
            choices.append(INT_VALUES + ids.get(name, []))
        elif kind == "path":
            choices.append(["1", "abc", "99999999999999999999999999", "%ff/x"] + ids.get("object_id", []))
        else:
            choices.append(STR_VALUES)
    found = []
    for values in itertools.product(*choices):
        it = iter(values)
        found.append("/" + CONVERTER.sub(lambda m: next(it), route))  # noqa: B023 (called by sub, at once)
    if route == "api/":  # the catch-all of unknown API paths
        found += ["/api/" + tail for tail in ("nope", "%ff", "players/%00", "x" * 500)]
    return found


def check(response, path: str, what: str, failures: list) -> None:
    if response.status_code >= 500:
        failures.append(f"{response.status_code} {what} {path[:120]}")
    elif path.startswith("/api/") and not path.startswith(("/api/schema", "/api/docs")) and response.status_code >= 400:
        try:
            code = json.loads(response.content)["error"]
        except (ValueError, KeyError, TypeError):
            code = None
        if not (response["Content-Type"] == "application/json" and isinstance(code, str) and code):
            failures.append(
                f"{response.status_code} {what} {path[:120]}: not a JSON error code: {response.content[:100]!r}"
            )


def fuzz(client, ids: dict[str, list[str]], only_admin: bool = False) -> tuple[int, list[str]]:
    client.raise_request_exception = False
    failures: list[str] = []
    sent = 0
    for route in patterns():
        if only_admin != route.startswith("admin/"):
            continue
        for n, path in enumerate(paths(route, ids)):
            for method, body in (("GET", b""), ("POST", GARBAGE), ("POST", BODIES[0][1])):
                check(client.generic(method, path, body, content_type="application/json"), path, method, failures)
                sent += 1
            if n or only_admin:
                continue  # the bodies once per route: on its first concrete path
            check(client.get(path + QUERY), path + QUERY, "GET", failures)
            for method, (content_type, body) in itertools.product(("POST", "PUT", "PATCH", "DELETE"), BODIES):
                if method != "POST" and content_type != "application/json":
                    continue
                response = client.generic(method, path, body, content_type=content_type)
                check(response, path, f"{method} {content_type} {str(body)[:40]!r}", failures)
                sent += 1
            for length in LENGTHS:
                response = client.generic(
                    "POST", path, b'{"name": "Len"}', content_type="application/json", CONTENT_LENGTH=length
                )
                check(response, path, f"POST Content-Length: {length}", failures)
                sent += 1
    return sent, failures


def a_player_with_games():
    client = new_player("Fuzz Player")
    attempt = client.post("/api/challenges/today/attempt").json()
    casual = client.post("/api/casual/kitten/games", {}, format="json").json()
    return client, {
        "attempt_id": [str(attempt["id"])],
        "game_id": [str(casual["id"])],
        "player_id": [str(client.player["id"])],
    }


def test_anonymous_requests_anywhere_find_no_5xx(client):
    sent, failures = fuzz(client, {})
    assert sent > 1000
    assert not failures, "\n".join(failures[:40])


def test_a_players_requests_anywhere_find_no_5xx():
    client, ids = a_player_with_games()
    sent, failures = fuzz(client, ids)
    assert sent > 1000
    assert not failures, "\n".join(failures[:40])


def test_a_superusers_admin_requests_find_no_5xx(admin_client):
    from challenges.models import Attempt

    _, ids = a_player_with_games()
    ids["object_id"] = [str(Attempt.objects.first().pk)]
    sent, failures = fuzz(admin_client, ids, only_admin=True)
    assert sent > 100
    assert not failures, "\n".join(failures[:40])
