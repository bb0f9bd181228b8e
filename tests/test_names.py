"""Look-alike names: compared by two keys, the fold (NFKC, case, the confusables of Unicode
TS #39 with 0/O, 1/l, 5/S and Greek and Cyrillic letters, spaces and - _ . ' left out) and
the look (the same shapes in the case shown: capital I, small l, 1 and a small i alike);
names that mix scripts to imitate another are refused. Names whose capitals differ where
the other has an l (Lia and Ila, LIA and ILA) are two names. Players whose names looked alike before the fold
keep them: the migrations share their key and a command lists them."""

import io

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from challenges.models import Player
from challenges.names import fold, look, look_alike, name_key, name_look
from challenges.services import player_authenticate, player_set_password
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


@pytest.mark.django_db
@pytest.mark.parametrize(
    "existing, look_alike",
    [
        ("AltS60", "AltS6O"),  # letter O for zero
        ("AltS6O", "AltS60"),
        ("AltS60", "AltS 60"),
        ("PerfectMain", "Perfect Main"),
        ("PerfectMain", "Perfect-Main"),
        ("PerfectMain", "perfect.main"),
        ("BIll", "B1ll"),  # capital I and 1, as shown
        ("Bill", "BIll"),  # the same letters in another case
        ("Paul", "PauI"),  # capital I for l
        ("Ila", "lla"),
        ("Alex", "A1ex"),
        ("PayPal", "pay pal"),
        ("PayPal", "Pay-Pal"),
        ("Sam", "5am"),
        ("O'Neil", "ONeil"),
        ("Papa", "Рара"),  # every letter Cyrillic: one script, and it looks Latin
        ("NINA", "ΝΙΝΑ"),  # every letter Greek
        ("ВОВА", "вова"),  # one Cyrillic name in two cases
        ("ВОВА", "BOBA"),  # the Latin capitals it looks like
    ],
)
def test_look_alike_names_are_one_name(api, existing, look_alike):
    new_player(existing)
    response = api.post("/api/players", {"name": look_alike}, format="json")
    assert response.status_code == 409, response.content
    assert response.json()["error"] == "name_taken"
    assert list(Player.objects.values_list("name", flat=True)) == [existing]


@pytest.mark.parametrize(
    "one, other",
    [
        ("Ann", "Anne"),
        ("Вова", "Bova"),
        ("Alex", "Alexa"),
        ("Sam", "Som"),
        # A small i reads as l, but capitals keep them apart: L and I differ (Lia / Ila,
        # LIA / ILA).
        ("Lia", "Ila"),
        ("LIA", "ILA"),
        ("Vivian", "Viviane"),
        ("Will", "Walt"),
    ],
)
def test_names_that_do_not_look_alike_are_two_names(one, other):
    assert not look_alike(one, other)
    assert (name_key(one), name_look(one)) != (name_key(other), name_look(other))


@pytest.mark.django_db
@pytest.mark.parametrize("existing, other", [("Lia", "Ila"), ("Ila", "Lia"), ("LIA", "ILA")])
def test_names_that_only_the_old_fold_joined_are_free(api, existing, other):
    """The first fold joined i with l once case folded (capital I looks like l): Ila was
    refused beside Lia. Each is now someone's name."""
    new_player(existing)
    response = api.post("/api/players", {"name": other}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["name"] == other


def test_the_look_keeps_case_and_joins_shapes():
    assert look("PauI") == look("Paul") and fold("PauI") != fold("Paul")
    assert look("AltS6O") == look("AltS60") == look("AltS 60")
    assert look("Lia") != look("LIA") and fold("Lia") == fold("LIA")  # one name by its fold


def test_fold_is_a_plain_function_of_any_text():
    """Leagues (or anything else people must tell apart) fold their names the same way."""
    assert fold("Perfect_Main") == fold("PERFECT MAIN") == fold("Perfect–Main".replace("–", "-"))
    assert fold("Ｐｅｒｆｅｃｔ Ｍａｉｎ") == fold("perfectmain")
    assert fold("") == ""


@pytest.mark.django_db
def test_a_rename_to_a_look_alike_is_refused(api):
    new_player("AltS60")
    renamer = new_player("Someone Else")
    response = renamer.patch("/api/players/me", {"name": "AltS6O"}, format="json")
    assert response.status_code == 409 and response.json()["error"] == "name_taken"
    assert renamer.patch("/api/players/me", {"name": "Someone-Else"}, format="json").status_code == 200


@pytest.mark.django_db
def test_a_name_that_only_looks_alike_as_shown_is_refused_and_a_deleted_players_is_free(api):
    paul = new_player("Paul")
    renamer = new_player("Someone Else")
    response = renamer.patch("/api/players/me", {"name": "PauI"}, format="json")  # capital I
    assert response.status_code == 409 and response.json()["error"] == "name_taken"
    assert new_player_response("PauI").status_code == 409
    # A deleted account's name goes with it: its fold and its look are free again.
    assert paul.delete("/api/players/me").status_code == 204
    assert renamer.patch("/api/players/me", {"name": "PauI"}, format="json").status_code == 200
    assert new_player_response("Paul").status_code == 409  # now PauI's look


# --- players from before the fold -----------------------------------------------------------


def migrate_to(target: str | None) -> None:
    """``challenges`` back to ``target``, or (None) every app forward to its latest: going
    back also unapplies what depends on it in other apps, and the tests after this one need
    the whole schema again."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([("challenges", target)] if target else executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_look_alikes_from_before_the_fold_are_kept_listed_and_renamed_by_nobody():
    """Under 0003 these were three names; the migration neither fails nor renames them.
    The oldest holds the key; the others share it and still log in by their own name; a
    newcomer cannot take the key; the command lists the group and changes nothing."""
    migrate_to("0003_accounts")
    try:
        from django.db.migrations.loader import MigrationLoader

        old = MigrationLoader(connection).project_state(("challenges", "0003_accounts")).apps
        OldPlayer = old.get_model("challenges", "Player")
        for i, name in enumerate(["AltS60", "Other Name", "AltS6O", "AltS 60"]):
            OldPlayer.objects.create(name=name, name_key=f"old key {i}", token_hash=f"token {i}".ljust(64, "x"))
    finally:
        migrate_to(None)  # through 0004_name_fold, the migration under test, to the latest

    players = {p.name: p for p in Player.objects.all()}
    assert set(players) == {"AltS60", "Other Name", "AltS6O", "AltS 60"}
    assert {name: p.name_key_shared for name, p in players.items()} == {
        "AltS60": False,
        "Other Name": False,
        "AltS6O": True,
        "AltS 60": True,
    }
    assert len({players[name].name_key for name in ("AltS60", "AltS6O", "AltS 60")}) == 1

    # A newcomer cannot take the key, whether spelled like the holder or like a kept one.
    for name in ("ALTS60", "Alt S6O"):
        response = new_player_response(name)
        assert response.status_code == 409 and response.json()["error"] == "name_taken"

    # A kept look-alike logs in by its own name.
    kept = players["AltS6O"]
    from django.contrib.auth import get_user_model

    kept.user = get_user_model().objects.create(username="kept")
    kept.save(update_fields=["user"])
    player_set_password(player=kept, password="a-Fine-pass-77")
    assert player_authenticate(name="AltS6O", password="a-Fine-pass-77").pk == kept.pk

    out = io.StringIO()
    call_command("name_collisions", stdout=out)
    report = out.getvalue()
    assert "3 names look alike" in report, report
    assert "'AltS60'" in report and "holds the key" in report and report.count("kept, shares the key") == 2
    assert "Other Name" not in report
    assert "groups of look-alike names: 1, players in them: 3; nobody renamed" in report
    assert {p.name for p in Player.objects.all()} == set(players)  # renamed nobody

    # A kept player's new name clears the flag; back to the holder's look is refused.
    from challenges.accounts import player_rename

    player_rename(player=Player.objects.get(name="AltS 60"), name="Alt Sixty")
    assert not Player.objects.get(name="Alt Sixty").name_key_shared
    out = io.StringIO()
    call_command("name_collisions", stdout=out)
    assert "2 names look alike" in out.getvalue()


def new_player_response(name: str):
    from rest_framework.test import APIClient

    return APIClient().post("/api/players", {"name": name}, format="json")


@pytest.mark.django_db(transaction=True)
def test_the_two_keys_share_only_what_looks_alike_and_list_the_rest():
    """Under 0005 (one key, i -> l) Ila shared Lia's key and PauI Paul's; migration 0006
    gives everyone their fold and look again, oldest first: Ila holds a key of its own,
    PauI still shares (it looks like Paul), nobody is renamed; going back restores the
    single key, and the command lists the groups that are left."""
    migrate_to("0005_linked_accounts")
    try:
        from django.db.migrations.loader import MigrationLoader

        old = MigrationLoader(connection).project_state(("challenges", "0005_linked_accounts")).apps
        OldPlayer = old.get_model("challenges", "Player")
        held: set[str] = set()
        for i, name in enumerate(["Lia", "Paul", "Ila", "PauI", "Eli", "Ell"]):
            key = fold(name).replace("i", "l")  # 0004's fold
            OldPlayer.objects.create(
                name=name, name_key=key, name_key_shared=key in held, token_hash=f"token {i}".ljust(64, "x")
            )
            held.add(key)
        assert OldPlayer.objects.filter(name_key_shared=True).count() == 3  # Ila, PauI, Ell
    finally:
        migrate_to(None)  # through 0006_name_look, the migration under test

    def state():
        return {p.name: (p.name_key, p.name_look, p.name_key_shared) for p in Player.objects.all()}

    after = state()
    assert {name: shared for name, (_, _, shared) in after.items()} == {
        "Lia": False,
        "Paul": False,
        "Ila": False,
        "PauI": True,
        "Eli": False,
        "Ell": True,  # 0011: a small i reads as l, as shown
    }
    assert all(after[name][:2] == (name_key(name), name_look(name)) for name in after)
    # A newcomer meets both keys: Paul's look in PauI's capital I, Lia's fold in LIA.
    assert new_player_response("PaulI").status_code == 201
    for name in ("PauI", "LIA", "ILA"):
        response = new_player_response(name)
        assert response.status_code == 409 and response.json()["error"] == "name_taken", name
    out = io.StringIO()
    call_command("name_collisions", stdout=out)
    report = out.getvalue()
    assert "'Paul'" in report and "'PauI'" in report and "kept, shares the key" in report, report
    assert "'Lia'" not in report and "'Ila'" not in report
    assert "'Eli'" in report and "'Ell'" in report
    assert "groups of look-alike names: 2, players in them: 4; nobody renamed" in report

    # Back to 0005: the single key of 0004 again, Ila sharing Lia's.
    migrate_to("0005_linked_accounts")
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT name, name_key, name_key_shared FROM challenges_player")
            back = {name: (key, shared) for name, key, shared in cursor.fetchall()}
        assert back["Ila"] == ("lla", True) and back["Lia"] == ("lla", False)
        assert back["PauI"] == ("paul", True) and back["PaulI"] == ("paull", False)
    finally:
        migrate_to(None)
