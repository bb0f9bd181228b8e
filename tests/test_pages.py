"""Page status codes, languages, and the daily page's JS+CSS budget (no browser)."""
import datetime as dt
import re
from pathlib import Path

import pytest

from challenges import days

STATIC = Path(__file__).resolve().parents[1] / "frontend" / "static" / "frontend"
pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path,status", [
    ("/", 200), ("/daily/", 200), ("/daily/archive/", 200), ("/me/", 200),
    ("/leaderboard/", 302), ("/daily/not-a-day/", 404), ("/players/999999/", 404),
])
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


@pytest.mark.parametrize("lang,text", [("fr", "Ta main"), ("de", "Deine Hand"), ("ja", "あなたの手札"),
                                       ("en", "Your hand")])
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


def test_daily_page_budget_and_no_third_party_hosts(client):
    html = client.get("/daily/").content.decode()
    assets = re.findall(r'(?:src|href)="/static/frontend/([\w.]+)"', html)
    assert "daily.js" in assets and "site.css" in assets
    files = {"daily.js", "site.css", "api.js", "state.js", "render.js"}
    total = sum((STATIC / name).stat().st_size for name in files)
    assert total <= 100_000, total
    assert not re.search(r'(?:src|href)="(?:https?:)?//', html)
    for name in files:
        assert "http://" not in (STATIC / name).read_text() and "https://" not in (STATIC / name).read_text()
