"""The leagues' pages rendered by Django: mine (create, join), one league (its day board,
its week, its members, the owner's forms), the invite link, in the reader's language; 404
for anyone but a member."""

from __future__ import annotations

import datetime as dt

import pytest
from rest_framework.test import APIClient

from challenges import days
from challenges.models import Player
from tests.test_leagues_api import create, join, result

pytestmark = pytest.mark.django_db


def browser(name: str) -> APIClient:
    """A client with a session, as a browser has (pages read the session, not a token)."""
    client = APIClient()
    response = client.post("/api/players", {"name": name}, format="json")
    assert response.status_code == 201
    client.player = response.json()
    return client


def test_my_leagues_page_lists_them_with_todays_place_and_asks_a_visitor_for_a_name_first():
    anonymous = APIClient().get("/leagues/")
    assert anonymous.status_code == 200 and 'id="no-name"' in anonymous.content.decode()
    ann, bob = browser("Ann"), browser("Bob")
    made = create(ann, "Family")
    join(bob, made["code"])
    result(Player.objects.get(name="Bob"), days.today(), 1100, 30)
    page = ann.get("/leagues/").content.decode()
    assert f'href="/leagues/{made["id"]}/"' in page and "Family" in page
    assert "Today: not on the board yet" in page
    assert "Today: 1 of 1" in bob.get("/leagues/").content.decode()
    assert 'id="create-form"' in page and 'id="join-form"' in page
    french = bob.get("/leagues/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Mes ligues" in french and "Aujourd’hui : 1 sur 1" in french


def test_a_league_page_shows_the_day_board_the_week_and_the_members():
    ann, bob = browser("Ann"), browser("Bob")
    made = create(ann, "Family")
    join(bob, made["code"])
    today = days.today()
    result(Player.objects.get(name="Ann"), today, 1100, 30)
    page = bob.get(f"/leagues/{made['id']}/")
    assert page.status_code == 200 and page["Cache-Control"] == "private, no-store"
    html = page.content.decode()
    assert f"/leagues/join/{made['code']}/" in html
    assert 'data-name="Ann" data-rank="1"' in html  # on the day's board
    assert 'id="not-played"' in html and '<li data-name="Bob">Bob</li>' in html
    assert 'id="league-week"' in html and "1100" in html
    assert 'id="rename-form"' not in html  # Bob is not the owner
    assert 'id="rename-form"' in ann.get(f"/leagues/{made['id']}/").content.decode()
    # A past day and a past week are browsable; a bad one is a 400 page.
    yesterday = (today - dt.timedelta(days=1)).isoformat()
    past = bob.get(f"/leagues/{made['id']}/?day={yesterday}&week=2026-W40")
    assert past.status_code == 200 and "No member is on this day" in past.content.decode()
    assert "Week 2026-W40 (2026-09-28 – 2026-10-04)" in past.content.decode()
    assert bob.get(f"/leagues/{made['id']}/?week=2026-W99").status_code == 400
    assert browser("Eve").get(f"/leagues/{made['id']}/").status_code == 404
    assert APIClient().get(f"/leagues/{made['id']}/").status_code == 404


def test_the_join_page_asks_a_visitor_without_a_name_to_choose_one_and_joins_nothing_by_itself():
    ann = browser("Ann")
    code = create(ann, "Family")["code"]
    visitor = APIClient().get(f"/leagues/join/{code}/").content.decode()
    assert 'id="choose-first"' in visitor and 'id="join-name"' in visitor and f'data-code="{code}"' in visitor
    assert "Family" not in visitor  # nothing is looked up before the API's counted join
    player = browser("Bob").get(f"/leagues/join/{code.lower()}/").content.decode()
    assert 'id="join-now"' in player and f'data-code="{code}"' in player
    assert Player.objects.get(name="Bob").league_memberships.count() == 0


def test_every_string_of_the_leagues_pages_is_translated_in_french_german_and_japanese():
    import re
    from pathlib import Path

    app = Path(__file__).resolve().parents[1] / "leagues"
    templates = "".join(p.read_text() for p in (app / "templates").rglob("*.html"))
    scripts = "".join(p.read_text() for p in (app / "static").rglob("*.js"))
    wanted = {
        "django": set(re.findall(r'{% translate "([^"]+)" %}', templates)),
        "djangojs": set(re.findall(r'gettext\("([^"]+)"\)', scripts)),
    }
    assert len(wanted["django"]) > 40 and len(wanted["djangojs"]) > 10
    for lang in ("fr", "de", "ja"):
        for domain, msgids in wanted.items():
            po = (app / "locale" / lang / "LC_MESSAGES" / f"{domain}.po").read_text()
            assert "#, fuzzy" not in po
            assert not re.search(r'^msgstr ""\n\n', po.split("\n\n", 1)[1] + "\n\n", re.M), (lang, domain)
            found = {m.replace('\\"', '"') for m in re.findall(r'^msgid "(.+)"$', po, re.M)}
            assert msgids <= found, (lang, domain, msgids - found)
            assert (app / "locale" / lang / "LC_MESSAGES" / f"{domain}.mo").stat().st_mtime >= (
                app / "locale" / lang / "LC_MESSAGES" / f"{domain}.po"
            ).stat().st_mtime - 1


def test_the_home_page_shows_the_players_place_in_each_league_today():
    ann, bob = browser("Ann"), browser("Bob")
    family = create(ann, "Family")
    create(bob, "Office")
    join(bob, family["code"])
    result(Player.objects.get(name="Ann"), days.today(), 1100, 30)
    result(Player.objects.get(name="Bob"), days.today(), 1200, 30)
    home = ann.get("/").content.decode()
    assert 'id="home-leagues"' in home and f'href="/leagues/{family["id"]}/"' in home and "Today: 2 of 2" in home
    bobs = bob.get("/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert bobs.count("Heute: 1 von") == 2  # Family (1 of 2) and Office (1 of 1)
    nobody = browser("Cid").get("/").content.decode()
    assert 'id="home-leagues"' not in nobody and 'href="/leagues/"' in nobody
