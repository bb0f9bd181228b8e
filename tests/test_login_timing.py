"""Log-ins take as long for an unknown name as for a known one: the password
hasher runs once either way, so timing tells nothing of which names exist or have a
password. Counted, not timed: under production's hasher one run is ~0.6 s, and it is
the only part of a log-in that costs more than a millisecond."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import MD5PasswordHasher
from django.test import Client, override_settings
from rest_framework.test import APIClient


class CountingHasher(MD5PasswordHasher):
    """MD5 (the tests' fast hasher) that counts its runs: verifying a password and making
    one both go through encode()."""

    runs = 0

    def encode(self, password, salt):
        CountingHasher.runs += 1
        return super().encode(password, salt)


@pytest.fixture
def counting():
    with override_settings(PASSWORD_HASHERS=["tests.test_login_timing.CountingHasher"]):
        yield CountingHasher


def runs_for(counting, call) -> tuple[int, object]:
    before = counting.runs
    outcome = call()
    return counting.runs - before, outcome


@pytest.mark.django_db
def test_the_api_login_hashes_once_whatever_the_name(counting, player_factory):
    with_password = player_factory("Has Password")
    assert (
        with_password.post("/api/players/me/password", {"password": "a-Fine-pass-77"}, format="json").status_code == 200
    )
    player_factory("No Password")  # a guest: an unusable password
    api = APIClient()

    def login(name, password):
        return lambda: api.post("/api/session", {"name": name, "password": password}, format="json").status_code

    runs = {
        case: runs_for(counting, login(name, password))
        for case, name, password in [
            ("unknown name", "Nobody Here", "a-Fine-pass-77"),
            ("name without a password", "No Password", "a-Fine-pass-77"),
            ("wrong password", "Has Password", "not-the-pass-00"),
            ("right password", "Has Password", "a-Fine-pass-77"),
        ]
    }
    assert {case: status for case, (_, status) in runs.items()} == {
        "unknown name": 401,
        "name without a password": 401,
        "wrong password": 401,
        "right password": 200,
    }
    assert {case: n for case, (n, _) in runs.items()} == dict.fromkeys(runs, 1), runs


@pytest.mark.django_db
def test_the_admin_login_hashes_once_whatever_the_name(counting):
    get_user_model().objects.create_superuser("warden", "warden@example.com", "pw-Warden-123")
    get_user_model().objects.create(username="nopass", password="!unusable")  # as every player's user
    browser = Client()

    def login(username, password):
        return lambda: (
            browser.post(
                "/admin/login/?next=/admin/", {"username": username, "password": password, "next": "/admin/"}
            ).status_code
        )

    runs = {
        case: runs_for(counting, login(username, password))
        for case, username, password in [
            ("unknown name", "stranger", "pw-Warden-123"),
            ("name without a password", "nopass", "pw-Warden-123"),
            ("wrong password", "warden", "pw-Wrong-000"),
        ]
    }
    assert {case: n for case, (n, _) in runs.items()} == dict.fromkeys(runs, 1), runs
