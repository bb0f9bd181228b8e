"""Look-alike names: compared after NFKC and the confusables skeleton of Unicode TS #39;
names that mix scripts to imitate another are refused."""

import pytest

from challenges.models import Player
from tests.conftest import new_player


@pytest.mark.django_db
@pytest.mark.parametrize(
    "look_alike, code",
    [
        ("Alice", "name_taken"),
        ("ALICE", "name_taken"),
        ("Ａlice", "name_taken"),  # full-width A
        ("𝐀lice", "name_taken"),  # mathematical bold A
        ("  alice ", "name_taken"),
        ("Аlice", "bad_name"),  # Cyrillic А among Latin letters: mixed scripts
        ("Alіce", "bad_name"),  # Ukrainian і
    ],
)
def test_look_alikes_of_an_existing_name_are_refused(api, look_alike, code):
    new_player("Alice")
    response = api.post("/api/players", {"name": look_alike}, format="json")
    assert response.status_code == (409 if code == "name_taken" else 400), response.content
    assert response.json()["error"] == code
    assert Player.objects.count() == 1


@pytest.mark.django_db
def test_confusable_letters_within_one_script_are_one_name(api):
    new_player("rnaria")
    assert api.post("/api/players", {"name": "maria"}, format="json").json()["error"] == "name_taken"


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["山田太郎", "やまだ Taro", "Алиса", "José", "Ἀλέξανδρος"])
def test_names_in_one_script_or_written_together_are_fine(api, name):
    response = api.post("/api/players", {"name": name}, format="json")
    assert response.status_code == 201, response.content


@pytest.mark.django_db
def test_names_are_shown_in_their_plain_form(api):
    assert api.post("/api/players", {"name": "Ｍａｒｉｅ"}, format="json").json()["name"] == "Marie"
