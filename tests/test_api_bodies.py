"""Request bodies: each is one Input serializer that the view checks the
body with and that the schema is generated from (config/inputs.py). A malformed body is
refused with its code before any service runs, so nothing changes."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework import serializers

from casual.api import CasualCreateIn, CasualFinishIn, CasualMoveIn
from casual.models import CasualGame, CasualOwner
from challenges.account_api import DeviceCodeIn, RenameIn
from challenges.api import AskIn, LoginIn, PasswordIn, PlayerCreateIn
from challenges.models import Attempt, Player
from config.errors import ApiError
from config.inputs import Choice, Input, Json, Text, Whole, parsed
from games.rules.cards import RANKS
from leagues.api import JoinIn, LeagueNameIn
from tests.conftest import new_player

BODIES = [
    PlayerCreateIn,
    PasswordIn,
    LoginIn,
    AskIn,
    RenameIn,
    DeviceCodeIn,
    CasualCreateIn,
    CasualMoveIn,
    CasualFinishIn,
    LeagueNameIn,
    JoinIn,
]


def refusal(body, data) -> tuple[str, str]:
    with pytest.raises(ApiError) as refused:
        parsed(body, SimpleNamespace(data=data))
    return refused.value.error_code, str(refused.value.detail)


# --- the check ---------------------------------------------------------------------------


@pytest.mark.parametrize("data", [[], ["rank", "move"], "rank", 3, None, True])
def test_a_body_that_is_not_an_object_is_bad_request(data):
    assert refusal(AskIn, data)[0] == "bad_request"


@pytest.mark.parametrize(
    "data, code, field",
    [
        ({}, "missing_field", "rank"),  # the first field in declaration order is named
        ({"move": 0}, "missing_field", "rank"),
        ({"rank": "A"}, "missing_field", "move"),
        ({"rank": 7, "move": 0}, "wrong_type", "rank"),
        ({"rank": None, "move": 0}, "wrong_type", "rank"),
        ({"rank": ["A"], "move": 0}, "wrong_type", "rank"),
        ({"rank": "Z", "move": 0}, "bad_move", "rank"),
        ({"rank": "a", "move": 0}, "bad_move", "rank"),
        ({"rank": " A", "move": 0}, "bad_move", "rank"),
        ({"rank": "A", "move": "0"}, "wrong_type", "move"),
        ({"rank": "A", "move": True}, "wrong_type", "move"),
        ({"rank": "A", "move": 0.0}, "wrong_type", "move"),
        ({"rank": "A", "move": None}, "wrong_type", "move"),
        ({"rank": 7, "move": "0"}, "wrong_type", "rank"),
    ],
)
def test_the_ask_is_refused_with_the_code_of_its_first_wrong_field(data, code, field):
    got, detail = refusal(AskIn, data)
    assert got == code
    assert detail.startswith(f"'{field}' ")


def test_the_checked_body_is_exactly_what_was_sent_and_only_the_declared_fields():
    assert parsed(AskIn, SimpleNamespace(data={"rank": "10", "move": 10**30, "extra": 1})) == {
        "rank": "10",
        "move": 10**30,
    }
    # No trimming, no refusal of "": the services judge names and passwords by their rules.
    assert parsed(LoginIn, SimpleNamespace(data={"name": "  Ann  ", "password": ""})) == {
        "name": "  Ann  ",
        "password": "",
    }


def test_strings_are_not_judged_here():
    assert parsed(LoginIn, SimpleNamespace(data={"name": "a\x00b", "password": "\ud800"})) == {
        "name": "a\x00b",
        "password": "\ud800",
    }


def test_an_input_declares_fields_that_check_themselves_and_nothing_that_would_not_run():
    with pytest.raises(TypeError, match="validate_name"):

        class Checked(Input):
            name = Text()

            def validate_name(self, value):
                return value

    with pytest.raises(TypeError, match="count"):

        class Loose(Input):
            count = serializers.IntegerField()


@pytest.mark.parametrize("play", [None, "flip", {"target": 1, "rank": "Q"}, [1, [2]], 3, False])
def test_a_casual_play_is_any_json_value_for_the_engine_to_judge(play):
    assert parsed(CasualMoveIn, SimpleNamespace(data={"play": play, "move": 2})) == {"play": play, "move": 2}


def test_a_casual_move_names_the_missing_play_first():
    assert refusal(CasualMoveIn, {"move": "x"}) == ("missing_field", "'play' is required")


# --- the schema is the same declaration ------------------------------------------------


@pytest.fixture(scope="module")
def components():
    return SchemaGenerator().get_schema(request=None, public=True)["components"]["schemas"]


KINDS = {Text: {"type": "string"}, Whole: {"type": "integer"}}


@pytest.mark.parametrize("body", BODIES, ids=lambda b: b.__name__)
def test_the_schema_of_a_body_is_generated_from_its_check(components, body):
    schema = components[f"{body.__name__}Request"]
    fields = body().fields
    assert list(schema["properties"]) == list(fields)
    # Required as the check requires it: every field, but one declared optional.
    assert sorted(schema.get("required", [])) == sorted(name for name, f in fields.items() if f.required)
    for name, field in fields.items():
        described = schema["properties"][name]
        if isinstance(field, Choice):
            (ref,) = described["allOf"]
            enum = components[ref["$ref"].rsplit("/", 1)[1]]
            assert enum["enum"] == list(RANKS) and enum["type"] == "string"
        elif isinstance(field, Json):
            assert described.get("nullable") is True and "type" not in described
        else:
            assert {k: described[k] for k in KINDS[type(field)]} == KINDS[type(field)]
            # Nothing the check does not enforce: no length, no pattern.
            assert not {"minLength", "maxLength", "pattern", "minimum", "maximum"} & set(described)


def test_every_body_a_view_takes_is_one_of_these(components):
    requests = {name for name in components if name.endswith("Request")}
    assert requests == {f"{body.__name__}Request" for body in BODIES}


# --- over HTTP: refused before any service, nothing changes ------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("body", [{"name": 7}, {"name": None}, {}, ["Ann"]])
def test_a_malformed_rename_changes_nothing(body):
    ann = new_player("Ann")
    response = ann.patch("/api/players/me", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"] in {"wrong_type", "missing_field", "bad_request"}
    assert Player.objects.get(pk=ann.player["id"]).name == "Ann"


@pytest.mark.django_db
def test_a_malformed_password_sets_none():
    bob = new_player("Bob")
    response = bob.post("/api/players/me/password", {"password": 12345678}, format="json")
    assert response.status_code == 400 and response.json()["error"] == "wrong_type"
    assert not Player.objects.get(pk=bob.player["id"]).user.has_usable_password()


@pytest.mark.django_db
def test_a_rank_that_is_no_rank_is_bad_move_and_the_attempt_is_untouched():
    cleo = new_player("Cleo")
    view = cleo.post("/api/challenges/today/attempt").json()
    response = cleo.post(f"/api/attempts/{view['id']}/asks", {"rank": "Z", "move": 0}, format="json")
    assert response.status_code == 400 and response.json()["error"] == "bad_move"
    assert Attempt.objects.get(pk=view["id"]).moves == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path, body, code",
    [
        ("moves", [], "bad_request"),
        ("moves", {"play": "flip", "move": 0.0}, "wrong_type"),
        ("moves", {"play": None, "move": 0}, "bad_move"),  # the engine's refusal, not the body's
        ("finish", {"move": "0"}, "wrong_type"),
        ("finish", {}, "missing_field"),
    ],
)
def test_a_malformed_casual_body_changes_nothing(path, body, code):
    dora = new_player("Dora")
    view = dora.post("/api/casual/kitten/games", {}, format="json").json()
    response = dora.post(f"/api/casual/kitten/games/{view['id']}/{path}", body, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["error"] == code
    game = CasualGame.objects.get(pk=view["id"])
    assert game.moves == [] and game.status == view["status"]


def test_an_optional_field_absent_is_left_out_and_present_is_checked():
    assert parsed(CasualCreateIn, SimpleNamespace(data={})) == {}
    assert parsed(CasualCreateIn, SimpleNamespace(data={"players": 3, "more": 1})) == {"players": 3}
    assert parsed(CasualCreateIn, SimpleNamespace(data={"hand_size": None})) == {"hand_size": None}


@pytest.mark.django_db
@pytest.mark.parametrize("game", ["kitten", "gofish"])
@pytest.mark.parametrize("body", [[], [{"players": 3}], "gofish", 3])
def test_a_new_casual_game_from_a_body_that_is_not_an_object_is_refused_and_deals_nothing(game, body):
    """Not an options object (a list, a string, a number): 400 ``bad_request``, and no game
    dealt, none abandoned, no owner made; before, it was read as no options at all."""
    eve = new_player("Eve")
    first = eve.post(f"/api/casual/{game}/games", {}, format="json").json()
    owners = CasualOwner.objects.count()
    response = eve.post(f"/api/casual/{game}/games", body, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["error"] == "bad_request"
    assert list(CasualGame.objects.values_list("pk", "status")) == [(first["id"], "playing")]
    assert CasualOwner.objects.count() == owners
