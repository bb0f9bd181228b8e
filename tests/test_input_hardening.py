"""Issue 14: hostile input is a 4xx with a JSON error code (API) or a proper error page
(pages), never a 500 — deep JSON, days that do not exist, chunked bodies."""
from __future__ import annotations

import pytest

from config.parsers import MAX_DEPTH, loads, nesting_depth
from tests.conftest import new_player

pytestmark = pytest.mark.django_db

DEEP = "[" * 2000 + "]" * 2000
JSON_POSTS = ["/api/players", "/api/session", "/api/players/me/password",
              "/api/attempts/1/asks", "/api/casual/kitten/games", "/api/casual/kitten/games/1/moves",
              "/api/casual/gofish/games/1/finish"]


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


@pytest.mark.parametrize("body", [
    "[" * 2000 + "]" * 2000,
    '{"a":' * 1500 + "1" + "}" * 1500,
    "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1),
    '{"name": NaN}', '{"name": Infinity}', "1" * 5000, '{"name": "x"', "\ufeff{}",
], ids=["arrays-2000", "objects-1500", "one-too-deep", "nan", "infinity", "5000-digits", "unclosed", "bom"])
def test_what_the_parser_cannot_decode_is_bad_json(api, body):
    response = api.post("/api/players", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"] == "bad_json"


@pytest.mark.parametrize("raw,content_type", [
    (b"\xff\xfe\x00{", "application/json"),
    (b'{"name": "\xc3"}', "application/json"),
    (b'{"name": "Ann"}', "application/json; charset=utf-16"),  # an odd number of bytes
])
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
    assert loads('{"name": "' .encode() + b"[" * 100 + b'"}') == {"name": "[" * 100}


def test_a_body_within_the_depth_limit_still_creates_a_player(api):
    response = api.post("/api/players", '{"name": "Flat Ann", "extra": [[[1]]]}', content_type="application/json")
    assert response.status_code == 201, response.content
