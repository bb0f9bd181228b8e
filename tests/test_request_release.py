"""An answered request's objects are freed as soon as the server lets go of them, not left in
cycles for Python's collector, whose pauses then land on later requests
(config.middleware.ReleaseRequestMiddleware). Requests are made as a WSGI server makes them
(harness.wsgi_client): Django's test client keeps cycles of its own around each response.
A page still leaves its request to the collector: Django's template context and its dicts
hold each other, and the request."""

from __future__ import annotations

import gc

import pytest
from django.core.handlers.wsgi import WSGIHandler

from harness.wsgi_client import Client
from tests.conftest import new_player
from tests.test_leagues_api import create

# Committed rows: each request opens and closes its connection as a server's would.
pytestmark = pytest.mark.django_db(transaction=True)


def left_for_the_collector(request) -> tuple[int, set[str]]:
    """What one more such request leaves in cycles: how many objects, of which types."""
    for _ in range(3):  # the first ones fill caches that live on
        request()
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        request()
        found = gc.collect()
        kinds = {type(o).__name__ for o in gc.garbage}
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    return found, kinds


def test_an_api_request_leaves_its_request_view_and_answer_to_be_freed_at_once():
    ann = new_player("Ann")
    league = create(ann)
    token = ann.player["token"]
    client = Client(WSGIHandler())

    def board():
        status, _ = client("GET", f"/api/leagues/{league['id']}/leaderboard/today", token=token, parse=False)
        assert status == 200

    found, kinds = left_for_the_collector(board)
    # The player's account and its player refer to each other (Django's cache of a one-to-one
    # relation, both ways): those two, their states and fields, nothing of the request.
    assert not kinds & {"WSGIRequest", "Request", "LeagueBoardView", "Response", "ResolverMatch", "partial"}, kinds
    assert found <= 12, kinds


def test_an_anonymous_api_request_too():
    client = Client(WSGIHandler())

    def today():
        status, _ = client("GET", "/api/challenges/today", parse=False)
        assert status == 200

    found, kinds = left_for_the_collector(today)
    assert found == 0, kinds
