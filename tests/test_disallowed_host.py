"""A bad Host header: Django answers 400 and logs it at ERROR, traceback included, once per
request — a client could fill the error log. Each is counted in the metrics and logged
once a minute at most, with how many were left out (config/security.py)."""

from __future__ import annotations

import logging

import pytest
from django.test import Client, override_settings

from config import logfmt, security
from tests.test_metrics import TOKEN, scrape

pytestmark = pytest.mark.django_db

LOGGER = "django.security.DisallowedHost"


@pytest.fixture
def host_filter(monkeypatch):
    """The filter the settings put on the logger (once, or twice where Django was set up
    again), with a clock of the test's own."""
    found = [f for f in logging.getLogger(LOGGER).filters if isinstance(f, security.DisallowedHostLogFilter)]
    assert found
    clock = [1000.0]
    monkeypatch.setattr(security.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(security.DisallowedHostLogFilter, "_last", None)
    monkeypatch.setattr(security.DisallowedHostLogFilter, "_suppressed", 0)
    return clock


def counted(client) -> float:
    with override_settings(METRICS_TOKEN=TOKEN):
        return scrape(client).get(("peche_disallowed_host_total", ()), 0.0)


def test_bad_hosts_are_each_answered_400_counted_and_logged_once_a_minute(host_filter, caplog):
    before = counted(Client())
    caplog.set_level(logging.INFO)
    evil = Client(HTTP_HOST="evil.example")
    answers = [evil.get(path).status_code for path in ("/", "/api/challenges/today", "/leaderboard/2026-06-02/") * 20]
    assert answers == [400] * 60
    assert counted(Client()) == before + 60
    logged = [r for r in caplog.records if r.name == LOGGER]
    assert len(logged) == 1, [r.getMessage() for r in logged]
    line = logfmt.StructuredFormatter().format(logged[0])
    assert "\n" not in line and "evil.example" in line and "suppressed=0" in line
    assert logged[0].levelno == logging.ERROR

    # Within the minute: still counted, still 400, not logged. Past it: one line, with the
    # count of those left out since the last.
    host_filter[0] += 59
    assert evil.get("/").status_code == 400
    host_filter[0] += 2
    assert evil.get("/").status_code == 400
    logged = [r for r in caplog.records if r.name == LOGGER]
    assert len(logged) == 2 and "suppressed=60" in logged[1].getMessage()
    assert counted(Client()) == before + 62
    # A good Host is neither counted nor refused.
    assert Client().get("/healthz").status_code == 200 and counted(Client()) == before + 62
