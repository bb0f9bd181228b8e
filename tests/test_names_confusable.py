"""Look-alikes that differ by a small i and l, I or 1 (issue 50): ``Vivlan`` beside
``Vivian``, ``W1ll`` beside ``Will``, ``Vlvian``. The look reads a small letter whose
capital Unicode's confusables skeleton (UTS #39) reads as l as l; players who already hold
such names keep them (migration 0011), and ``manage.py name_collisions`` lists them."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.loader import MigrationLoader
from rest_framework.test import APIClient

from challenges import names
from challenges.models import Player
from tests.conftest import new_player
from tests.test_names_folded import migrate


def create(name: str):
    return APIClient().post("/api/players", {"name": name}, format="json")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "existing, newcomer", [("Vivian", "Vivlan"), ("Will", "W1ll"), ("Vivian", "Vlvian"), ("Vivlan", "Vivian")]
)
def test_names_that_differ_by_i_and_l_or_1_are_one_name(existing, newcomer):
    new_player(existing)
    response = create(newcomer)
    assert response.status_code == 409, response.content
    assert response.json()["error"] == "name_taken"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "existing, newcomer", [("Vivian", "Viviane"), ("Vivian", "Vivien"), ("Will", "Walt"), ("Lia", "Ila")]
)
def test_an_honest_distinct_name_still_passes(existing, newcomer):
    new_player(existing)
    response = create(newcomer)
    assert response.status_code == 201, response.content
    assert response.json()["name"] == newcomer


def test_the_reading_comes_from_unicode_s_data():
    """The small letters read as l are those whose capital confusables.txt reads as l, and
    the data's version is known."""
    assert names.data_version() == "13.0.0"
    assert names.skeleton("I") == names.skeleton("1") == "l" and names.skeleton("i") == "i"
    assert names.look("i") == names.look("ı") == names.look("l") == "l"
    assert names.look("j") == "j" and names.look("L") == "L"  # nothing else moves


@pytest.mark.django_db(transaction=True)
def test_players_who_already_hold_look_alikes_keep_them_and_a_moderator_sees_them():
    """Under 0010 Vivian, Vivlan and W1ll beside Will were four names; migration 0011 looks
    at everyone again, oldest first: the first of each group holds the key, the others share
    it and keep their names; the command lists both groups and renames nobody."""
    migrate([("challenges", "0010_attempt_line_start_column")])
    try:
        old = MigrationLoader(connection).project_state(("challenges", "0010_attempt_line_start_column")).apps
        OldPlayer = old.get_model("challenges", "Player")
        for i, name in enumerate(["Vivian", "Will", "Vivlan", "W1ll", "Ann"]):
            # 0010's look: a small i was i.
            OldPlayer.objects.create(
                name=name,
                name_key=names.name_key(name),
                name_look=names.name_look(name).replace("l", "i") + f" {i}",
                token_hash=f"t {i}".ljust(64, "x"),
            )
    finally:
        migrate(None)

    players = {p.name: (p.name_look, p.name_key_shared) for p in Player.objects.all()}
    assert players == {
        "Vivian": (names.name_look("Vivian"), False),
        "Will": (names.name_look("Will"), False),
        "Vivlan": (names.name_look("Vivian"), True),
        "W1ll": (names.name_look("Will"), True),
        "Ann": (names.name_look("Ann"), False),
    }
    out = io.StringIO()
    call_command("name_collisions", stdout=out)
    report = out.getvalue()
    for name in ("Vivian", "Vivlan", "Will", "W1ll"):
        assert f"'{name}'" in report, report
    assert "'Ann'" not in report
    assert "groups of look-alike names: 2, players in them: 4; nobody renamed" in report
    # A newcomer meets the shared keys too.
    assert create("Vlvian").status_code == 409 and create("Wi1l").status_code == 409
