"""The API's JSON renderer (config/renderers.py) writes with orjson what DRF's JSONRenderer
would write, byte for byte: what a client reads does not depend on which of the two wrote it."""

from __future__ import annotations

import datetime as dt
import decimal
import json
import uuid
from collections import OrderedDict

import pytest
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy
from rest_framework.renderers import JSONRenderer as DRFRenderer
from rest_framework.utils.serializer_helpers import ReturnDict, ReturnList

from config import renderers

UTC = dt.UTC
PAYLOADS = {
    "a league's day board": {
        "date": "2026-01-29",
        "entries": [
            {"rank": n, "player_id": 7 + n, "name": f"Zoé {n}", "score": 1030, "asks": 21, "global_rank": 9 * n}
            for n in range(1, 201)
        ],
        "not_played": [{"player_id": 3, "name": "小猫"}],
        "indexed": True,
    },
    "unicode, and the two that end a line in JavaScript": {"name": 'Jürgen 🐟 \u2028 and \u2029 " \\ \n \x00'},
    "nesting and empty": {"a": [[], {}, [None, True, False, 0, -1, 2**63 - 1]], "b": ("tuple", 1)},
    "dates and times": {
        "utc": dt.datetime(2026, 12, 4, 12, 30, 1, 250000, tzinfo=UTC),
        "paris": dt.datetime(2026, 12, 4, 13, 30, tzinfo=dt.timezone(dt.timedelta(hours=1))),
        "naive": dt.datetime(2026, 12, 4, 12, 30),
        "day": dt.date(2026, 12, 4),
        "time": dt.time(23, 59, 30),
        "took": dt.timedelta(seconds=90, milliseconds=5),
    },
    "Django's and DRF's own types": {
        "lazy": gettext_lazy("Leagues"),
        "safe": mark_safe("<b>"),
        "ordered": OrderedDict([("z", 1), ("a", 2)]),
        "serializer": ReturnDict({"id": 1, "list": ReturnList([1, 2], serializer=None)}, serializer=None),
        "decimal": decimal.Decimal("12.5"),
        "uuid": uuid.UUID(int=5),
        "bytes": b"abc",
        "generator": (n * n for n in range(3)),
    },
    "what only the standard library writes": {"big": 2**70, "keys": {1: "one", None: "none"}},
    "a list at the top": [1, "two", {"three": 3}],
}


@pytest.mark.parametrize("name", PAYLOADS)
def test_the_same_bytes_as_drf(name):
    ours, theirs = renderers.JSONRenderer(), DRFRenderer()
    # Generators are read once: each renderer gets its own payload.
    assert ours.render(_copy(name)) == theirs.render(_copy(name))


def _copy(name):
    payload = PAYLOADS[name]
    if name == "Django's and DRF's own types":
        return {**payload, "generator": (n * n for n in range(3))}
    return payload


def test_floats_are_the_same_numbers():
    data = {"x": [0.1, 1 / 3, 2.5, 1e-7, 1e16, 123456.789, -0.0]}
    ours = renderers.JSONRenderer().render(data)
    assert json.loads(ours) == json.loads(DRFRenderer().render(data))


def test_an_indented_answer_is_drfs():
    data = {"a": [1, {"b": "é"}]}
    ours = renderers.JSONRenderer().render(data, "application/json; indent=4")
    assert ours == DRFRenderer().render(data, "application/json; indent=4") and b"\n    " in ours


def test_nothing_is_an_empty_body():
    assert renderers.JSONRenderer().render(None) == b""


@pytest.mark.django_db
def test_the_api_answers_with_it(client):
    response = client.get("/api/challenges/today")
    assert response.status_code == 200
    assert isinstance(response.accepted_renderer, renderers.JSONRenderer)
