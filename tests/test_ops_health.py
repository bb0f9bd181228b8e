"""/healthz and /readyz. Readiness is checked against a Redis of the test's own
(a second redis-server on a free port), killed and restarted; the shared one is never touched."""

from __future__ import annotations

import time

import pytest
from django.db import OperationalError
from django.test import override_settings

from tests.conftest import free_port


def test_healthz_answers_without_the_database(client, monkeypatch):
    def no_database(*args, **kwargs):
        raise AssertionError("healthz touched the database")

    monkeypatch.setattr("django.db.backends.base.base.BaseDatabaseWrapper.ensure_connection", no_database)
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.django_db
def test_readyz_is_ok_when_the_database_and_redis_answer(client):
    response = client.get("/readyz")
    assert response.status_code == 200, response.content
    assert response.json()["checks"]["database"] == "ok"


@pytest.mark.django_db
def test_readyz_is_503_without_the_database(client, monkeypatch):
    def down():
        raise OperationalError("connection refused")

    monkeypatch.setattr("config.health.check_database", down)
    response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["error"] == "not_ready" and "database" in body["detail"]
    assert response["Retry-After"]


@pytest.mark.django_db
def test_readyz_follows_redis_going_down_and_coming_back(client, own_redis):
    with override_settings(REDIS_URL=own_redis.url, CELERY_BROKER_URL=own_redis.url):
        assert client.get("/readyz").status_code == 200
        assert client.get("/readyz").json()["checks"] == {"database": "ok", "redis": "ok"}

        own_redis.kill()
        started = time.monotonic()
        response = client.get("/readyz")
        assert time.monotonic() - started < 5, "the probe must not hang"
        assert response.status_code == 503
        assert response.json() == {"error": "not_ready", "detail": "redis unreachable (ConnectionError)"}
        assert client.get("/healthz").status_code == 200  # alive all the same

        own_redis.start()
        assert client.get("/readyz").status_code == 200


@pytest.mark.django_db
def test_readyz_checks_a_separate_broker_too(client, own_redis):
    dead = f"redis://127.0.0.1:{free_port()}/0"
    with override_settings(REDIS_URL=own_redis.url, CELERY_BROKER_URL=dead):
        response = client.get("/readyz")
    assert response.status_code == 503
    assert "redis unreachable" in response.json()["detail"]


def test_probes_answer_get_only(client):
    assert client.post("/healthz").status_code == 405
