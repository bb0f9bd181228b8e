"""Page status codes, languages, and the daily page's JS+CSS budget (no browser)."""

import datetime as dt
import posixpath
import re
from pathlib import Path

import pytest

from challenges import days

STATIC = Path(__file__).resolve().parents[1] / "frontend" / "static" / "frontend"
pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "path,status",
    [
        ("/", 200),
        ("/daily/", 200),
        ("/daily/archive/", 200),
        ("/me/", 200),
        ("/leaderboard/", 302),
        ("/daily/not-a-day/", 404),
        ("/players/999999/", 404),
    ],
)
def test_status_codes(client, path, status):
    assert client.get(path).status_code == status


def test_dated_pages(client):
    past = (days.today() - dt.timedelta(days=2)).isoformat()
    future = (days.today() + dt.timedelta(days=2)).isoformat()
    assert client.get(f"/daily/{past}/").status_code == 200
    assert client.get(f"/leaderboard/{past}/").status_code == 200
    assert client.get(f"/leaderboard/{days.today().isoformat()}/").status_code == 200
    assert client.get(f"/daily/{future}/").status_code == 404
    assert client.get(f"/leaderboard/{future}/").status_code == 404
    assert client.get(f"/daily/{days.today().isoformat()}/").status_code == 302


@pytest.mark.parametrize(
    "lang,text", [("fr", "Votre main"), ("de", "Deine Hand"), ("ja", "あなたの手札"), ("en", "Your hand")]
)
def test_accept_language(client, lang, text):
    assert text in client.get("/daily/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()


def test_js_catalog_is_complete(client):
    for lang in ("fr", "de", "ja"):
        assert client.get("/jsi18n/", HTTP_ACCEPT_LANGUAGE=lang).status_code == 200
        for domain in ("django", "djangojs"):
            po = (STATIC.parents[2] / "frontend" / "locale" / lang / "LC_MESSAGES" / f"{domain}.po").read_text()
            assert "#, fuzzy" not in po
            # Every msgstr after the header is filled.
            assert not re.search(r'^msgstr ""\n\n', po.split("\n\n", 1)[1] + "\n\n", re.M), (lang, domain)


def own_assets(html: str) -> dict[str, int]:
    """The page's own static files and their sizes: its stylesheets and scripts, and every
    module those scripts import (the translation catalogue is the server's, not counted)."""
    from django.contrib.staticfiles import finders

    todo = re.findall(r'(?:src|href)="/static/([\w./-]+\.(?:js|css))"', html)
    sizes: dict[str, int] = {}
    while todo:
        name = todo.pop()
        if name in sizes:
            continue
        path = Path(finders.find(name))
        sizes[name] = path.stat().st_size
        if name.endswith(".js"):
            # Relative to the module, as the browser resolves it: the casual pages import
            # the site's shared modules from ../frontend/.
            base = name.rsplit("/", 1)[0]
            for imported in re.findall(r'^(?:import|export)\b[^"]*"(\.\.?/[\w./-]+\.js)"', path.read_text(), re.M):
                todo.append(posixpath.normpath(f"{base}/{imported}"))
    return sizes


# The daily page carries the game, its Start, its end panel (standing, histogram, share, a
# newcomer's provisional rank, a closed day's accuracy and par) and its pace: 82.2 kB of
# its own files before compression (2026-12-05); every other page stays within 60 kB.
BUDGET = {"/daily/": 82_500}


@pytest.mark.parametrize("path", ["/", "/daily/", "/daily/archive/", "/me/", "/kitten/", "/gofish/"])
def test_each_page_weighs_at_most_60_kb_and_uses_no_third_party_host(client, path):
    html = client.get(path).content.decode()
    assets = own_assets(html)
    assert "frontend/site.css" in assets
    assert sum(assets.values()) <= BUDGET.get(path, 60_000), assets
    assert not re.search(r'(?:src|href)="(?:https?:)?//', html)
    from django.contrib.staticfiles import finders

    for name in assets:
        text = Path(finders.find(name)).read_text()
        assert "http://" not in text and "https://" not in text, name


def test_the_daily_page_counts_its_modules():
    html = '<script type="module" src="/static/frontend/daily.js"></script>'
    assert {
        "frontend/daily.js",
        "frontend/render.js",
        "frontend/state.js",
        "frontend/api.js",
        "frontend/dom.js",
    } <= own_assets(html).keys()


@pytest.mark.django_db(transaction=True)
def test_the_leaderboard_says_how_it_breaks_ties(client):
    from challenges import services
    from challenges.models import Attempt
    from tests.test_admin import verified_attempt

    first = verified_attempt("Tie Late")
    second = verified_attempt("Tie Early")
    # The same deal played the same way: the same score in the same number of asks.
    Attempt.objects.filter(pk=second.pk).update(finished_at=first.finished_at - dt.timedelta(minutes=3))
    services.attempt_reverify(attempt_id=second.pk, reason="test: an earlier finish")
    services.attempt_verify(attempt_id=second.pk)
    page = client.get(f"/leaderboard/{days.today().isoformat()}/").content.decode()
    assert "on equal scores, fewer asks first; then the earlier finish" in page
    assert page.index("Tie Early") < page.index("Tie Late")
    late = first.finished_at.astimezone(days.zone()).strftime("%H:%M:%S")
    assert f">{late}</time>" in page


def test_the_rules_specification_is_served_as_the_repository_keeps_it(client):
    from tests.conftest import ROOT

    response = client.get("/rules/spec.md")
    assert response.status_code == 200 and response["Content-Type"] == "text/markdown; charset=utf-8"
    assert response.content == (ROOT / "docs" / "rules.md").read_bytes()
    closed = (days.today() - dt.timedelta(days=2)).isoformat()  # its seed is public: the page says how to check it
    assert b'href="/rules/spec.md"' in client.get(f"/leaderboard/{closed}/").content


def test_a_look_at_the_daily_page_starts_nothing_and_a_started_game_is_resumed(client):
    from challenges import services
    from challenges.models import Attempt

    services.challenge_for_day(day=days.today())
    assert client.post("/api/players", {"name": "Glancer"}, content_type="application/json").status_code == 201
    for path in ("/", "/daily/", "/daily/", "/leaderboard/"):
        client.get(path)
    assert not Attempt.objects.exists(), "a look spends nothing"
    page = client.get("/daily/").content.decode()
    assert "data-attempt" not in page and 'id="start-button"' in page
    started = client.post("/api/challenges/today/attempt")  # the Start button's request, as any API client's
    assert started.status_code == 201
    assert f'data-attempt="{started.json()["id"]}"' in client.get("/daily/").content.decode()
    # A past day's page is practice: today's game is not its to resume.
    past = (days.today() - dt.timedelta(days=2)).isoformat()
    assert "data-attempt" not in client.get(f"/daily/{past}/").content.decode()


def test_the_hub_says_a_rank_as_the_top_share_holding_it_and_the_last_without_one(client):
    from challenges import services
    from challenges.models import Player
    from tests.conftest import verified_game

    closes = services.challenge_for_day(day=days.today()).closes_at
    assert client.post("/api/players", {"name": "Hub Middle"}, content_type="application/json").status_code == 201
    me = Player.objects.get(name="Hub Middle")
    # The same asks, so the same score: the earlier finish ranks first.
    verified_game("Hub Early", finished=closes - dt.timedelta(hours=3))
    verified_game(player=me, finished=closes - dt.timedelta(hours=2))
    verified_game("Hub Late", finished=closes - dt.timedelta(hours=1))
    page = client.get("/").content.decode()
    assert re.search(r'id="today-rank">2 of 3<', page)
    assert "In the top 67 % of today's players." in page  # 66.7 rounded up: never better than it is
    client.logout()
    assert client.post("/api/players", {"name": "Hub Last"}, content_type="application/json").status_code == 201
    verified_game(player=Player.objects.get(name="Hub Last"), finished=closes - dt.timedelta(minutes=30))
    page = client.get("/").content.decode()
    assert re.search(r'id="today-rank">4 of 4<', page) and "today-standing" not in page


@pytest.mark.parametrize("lang", ["en", "fr", "de", "ja"])
def test_every_public_page_has_a_description_in_its_language(client, lang):
    import html

    from challenges import services

    services.challenge_for_day(day=days.today())
    pages = ["/", "/daily/", "/daily/archive/", "/rules/", f"/leaderboard/{days.today().isoformat()}/", "/me/"]
    pages += ["/kitten/", "/gofish/", "/leagues/", "/api/docs"]
    described = {}
    for path in pages:
        page = client.get(path, HTTP_ACCEPT_LANGUAGE=lang).content.decode()
        found = re.findall(r'<meta name="description" content="([^"]+)">', page)
        assert len(found) == 1 and len(html.unescape(found[0])) >= 50, (path, found)
        described[path] = html.unescape(found[0])
    # The pages a search lists on their own say what they are, in the page's language.
    assert len({described[p] for p in ("/", "/rules/", f"/leaderboard/{days.today().isoformat()}/", "/kitten/")}) == 4
    assert (lang == "en") == ("the daily card challenge" in described["/"])
