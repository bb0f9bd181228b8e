"""Names folded across diacritics (Ánna is Anna, Cleø is Cleo), names that read as the
site's own refused in every spelling that folds to them, and text that is not text (a lone
surrogate, valid JSON) refused with a code on every JSON body, never a 500. Players whose
names already collide keep them."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.loader import MigrationLoader
from rest_framework.test import APIClient

from challenges.models import Player
from challenges.names import name_key, name_look, reserved
from challenges.services import player_authenticate, player_set_password
from tests.conftest import new_player


def create(name: str):
    return APIClient().post("/api/players", {"name": name}, format="json")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "existing, newcomer",
    [
        ("Ánna", "Anna"),
        ("Anna", "Ánna"),
        ("Cléo", "Cleo"),
        ("Cleo", "Cléo"),
        ("Cleø", "Cleo"),
        ("Cleo", "Cleø"),
        ("Cleo", "Cleo\u0307"),  # a trailing combining dot above
        ("Zoë", "ZOE"),
        ("José", "Jose"),
        ("Łukasz", "Lukasz"),
    ],
)
def test_a_name_and_its_diacritics_are_one_name(existing, newcomer):
    assert create(existing).status_code == 201
    response = create(newcomer)
    assert response.status_code == 409 and response.json()["error"] == "name_taken", response.content
    assert Player.objects.count() == 1


@pytest.mark.django_db
def test_marks_that_make_another_letter_stay():
    # The kana voicing mark makes が another syllable than か: two names.
    assert create("がっこう").status_code == 201
    assert create("かっこう").status_code == 201


@pytest.mark.django_db
@pytest.mark.parametrize(
    "name",
    [
        "admin",
        "Administrator",
        "MODERATOR",
        "mod",
        "Staff",
        "support",
        "System",
        "Pêche",
        "peche",
        "Official",
        "root",
        "Adm1n",
        "ADMIN2",
        "Peche Staff",
        "Official Pêche",
        "R00t",
        "Ádmin",
    ],
)
def test_official_looking_names_are_reserved(name):
    assert reserved(name)
    response = create(name)
    assert response.status_code == 400 and response.json()["error"] == "reserved_name", response.content
    assert not Player.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["Modest", "Rooted", "Admiral", "Helper", "Supporter", "Carol", "Pecheur Jo"])
def test_names_that_only_contain_a_reserved_word_are_fine(name):
    assert create(name).status_code == 201, name


@pytest.mark.django_db
def test_a_rename_to_a_reserved_name_is_refused():
    client = new_player("Plain Jane")
    response = client.patch("/api/players/me", {"name": "Admin"}, format="json")
    assert response.status_code == 400 and response.json()["error"] == "reserved_name"
    assert Player.objects.get().name == "Plain Jane"


# --- text that is not text -------------------------------------------------------------------

SURROGATE = '{"name": "\\ud800x", "password": "\\udfffa long enough one", "code": "\\ud800", "rank": "\\udc00"}'


@pytest.mark.django_db
@pytest.mark.parametrize(
    "method, path, as_player",
    [
        ("post", "/api/session", False),
        ("post", "/api/players", False),
        ("patch", "/api/players/me", True),
        ("post", "/api/players/me/password", True),
        ("post", "/api/leagues", True),
        ("post", "/api/leagues/join", True),
        ("post", "/api/session/code", False),
    ],
)
def test_a_lone_surrogate_is_a_400_with_a_code_everywhere(method, path, as_player):
    client = new_player("Sue Rogate") if as_player else APIClient()
    before = list(Player.objects.values_list("name", "name_key"))
    response = getattr(client, method)(path, SURROGATE, content_type="application/json")
    assert response.status_code == 400, (path, response.status_code, response.content[:300])
    assert response.json()["error"] == "bad_text"
    assert list(Player.objects.values_list("name", "name_key")) == before  # nothing changed


@pytest.mark.django_db
def test_a_paired_surrogate_is_text():
    # An emoji written as a surrogate pair is one character: judged as a name, not refused as text.
    response = APIClient().post("/api/players", '{"name": "Ann \\ud83d\\ude00"}', content_type="application/json")
    assert response.status_code == 400 and response.json()["error"] == "bad_name"


# --- players whose names already collide ---------------------------------------------------


def migrate(app_targets) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(app_targets or executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_players_whose_names_now_fold_alike_keep_them():
    """Under 0006 Ánna and Anna were two names (and Admin a name like any); migration 0007
    folds everyone again, oldest first: Ánna holds the key, Anna shares it and keeps its name
    and log-in; Admin keeps its name; newcomers meet both."""
    migrate([("challenges", "0006_name_look")])
    try:
        old = MigrationLoader(connection).project_state(("challenges", "0006_name_look")).apps
        OldPlayer = old.get_model("challenges", "Player")
        for i, name in enumerate(["Ánna", "Anna", "Admin"]):
            # 0006's keys: they differed (the old fold kept the acute accent).
            OldPlayer.objects.create(
                name=name, name_key=f"{name.casefold()} {i}", name_look=name, token_hash=f"t {i}".ljust(64, "x")
            )
    finally:
        migrate(None)

    players = {p.name: p for p in Player.objects.all()}
    assert set(players) == {"Ánna", "Anna", "Admin"}  # renamed nobody
    assert {n: (p.name_key, p.name_key_shared) for n, p in players.items()} == {
        "Ánna": (name_key("Anna"), False),
        "Anna": (name_key("Anna"), True),
        "Admin": (name_key("Admin"), False),
    }
    assert players["Admin"].name_look == name_look("Admin")
    for name in ("ANNA", "Ánna", "Admin"):
        assert create(name).status_code in (400, 409), name
    kept = players["Anna"]
    kept.user = get_user_model().objects.create(username="kept-anna")
    kept.save(update_fields=["user"])
    player_set_password(player=kept, password="a-Fine-pass-77")
    assert player_authenticate(name="Anna", password="a-Fine-pass-77").pk == kept.pk
