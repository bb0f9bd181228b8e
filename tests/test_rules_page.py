"""How to play (/rules/): served in each language, and its worked example agrees with the
rules engine to the card (no browser; tests/browser/test_rules_header.py looks at it)."""

import re

import pytest
from django.conf import settings
from django.utils import translation

from frontend import how_to_play
from games.rules.cards import check_deck

pytestmark = pytest.mark.django_db

# A sentence of each language's text, the page's <title>, and how the history names an ask given.
LANGUAGES = {
    "en": ("Whoever laid more pairs wins; 13 to 13 is a draw.", "How to play Pêche", "You: 7 — given"),
    "fr": (
        "Celui qui a posé le plus de paires gagne ; 13 à 13 est un match nul.",
        "Comment jouer à la Pêche",
        "Vous : 7 — donnée",
    ),
    "de": (
        "Wer mehr Paare abgelegt hat, gewinnt; 13 zu 13 ist ein Unentschieden.",
        "So wird Pêche gespielt",
        "Du: 7 — gegeben",
    ),
    "ja": ("ペアの多いほうが勝ち、13対13は引き分けです。", "Pêche の遊び方", "あなた：7 — もらった"),
}


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_the_rules_page_speaks_each_language(client, lang):
    sentence, title, given = LANGUAGES[lang]
    response = client.get("/rules/", HTTP_ACCEPT_LANGUAGE=lang)
    assert response.status_code == 200
    html = response.content.decode()
    assert f'<html lang="{lang}">' in html
    assert f"<title>{title}</title>" in html
    assert sentence in html
    assert given in html
    assert html.count("<h1") == 1
    assert re.search(r'id="score-formula">1000 \+ 30 × \(', html)
    # The day's time zone comes from the settings, not from the text.
    assert "UTC" in html
    for link in ('href="/daily/"', 'href="/leaderboard/"', 'href="/daily/archive/"'):
        assert link in html.split("<main", 1)[1], link


def test_a_language_without_its_own_text_reads_the_english_one():
    with translation.override("pt"):
        assert how_to_play.body_template().origin.template_name == "frontend/rules/rules.en.html"
    with translation.override("ja"):
        assert how_to_play.body_template().origin.template_name == "frontend/rules/rules.ja.html"


def test_the_time_zone_and_the_grace_follow_the_settings(client, settings):
    import datetime as dt

    settings.CHALLENGE_TIMEZONE = "Europe/Paris"
    settings.DAILY_CLOSE_GRACE = dt.timedelta(minutes=10)
    html = client.get("/rules/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "time zone Europe/Paris" in html
    assert "in the 10\xa0minutes that follow" in html


def test_the_example_is_the_engines_game():
    """What the four texts tell: the deal, the 7 given, the 5 sent fishing onto the 3♦ (a
    pair, no extra ask), the opponent's 2 sent fishing, the player's turn again."""
    check_deck(list(how_to_play.DECK))
    deal, given, fished = how_to_play.game()
    assert deal[0]["hand"] == ["7H", "5S", "3C", "9D", "AS"]
    assert list(how_to_play.DECK[1:10:2]) == ["7C", "2D", "10H", "4S", "8C"]  # the opponent's, named in the caption
    assert (deal[0]["opponent_hand_size"], deal[0]["lake_size"], deal[0]["turn"]) == (5, 42, "player")

    view, events = given
    assert [(e["type"], e["seat"], e.get("rank"), e.get("given"), e.get("cards")) for e in events] == [
        ("ask", 0, "7", 1, ["7C"]),
        ("pair", 0, "7", None, None),
    ]
    assert view["player_pairs"] == ["7"] and view["turn"] == "player" and view["hand"] == ["5S", "3C", "9D", "AS"]

    view, events = fished
    assert [(e["type"], e["seat"], e.get("rank") or e.get("card")) for e in events] == [
        ("ask", 0, "5"),
        ("draw", 0, "3D"),
        ("pair", 0, "3"),
        ("ask", 1, "2"),
        ("draw", 1, "KS"),
    ]
    assert not events[0]["given"] and not events[3]["given"]
    assert view["hand"] == ["5S", "9D", "AS"] and view["player_pairs"] == ["7", "3"] and view["opponent_pairs"] == []
    assert (view["opponent_hand_size"], view["lake_size"], view["asks"], view["turn"]) == (5, 40, 2, "player")


def test_the_page_draws_the_engines_cards(client):
    html = client.get("/rules/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    scenes = html.split('class="rules-scene"')[1:]
    assert len(scenes) == 3
    for scene, (view, _) in zip(scenes, how_to_play.game(), strict=True):
        assert re.findall(r'data-card="(\w+)"', scene) == view["hand"]
        assert scene.count('class="back"') == view["opponent_hand_size"] + -(-view["lake_size"] // 4)
        assert re.findall(r'class="pair" data-rank="(\w+)"', scene) == view["opponent_pairs"] + view["player_pairs"]
    # The cards and the ask history in French, as the daily table writes them.
    assert 'aria-label="A♠"' in html and "Vous : 5 — à la pêche" in html and "Adversaire : 2 — à la pêche" in html


LEGEND = {
    "en": ["the opponent gave you the rank", "you drew the rank you asked for", "go fish"],
    "fr": ["l'adversaire vous a donné le rang", "vous avez tiré le rang demandé", "à la pêche"],
    "de": ["der Gegner hat dir den Rang gegeben", "den verlangten Rang gezogen", "fischen gegangen"],
    "ja": ["相手がそのランクを渡した", "要求したランクを引いた", "釣りへ"],
}


@pytest.mark.parametrize("lang", ["en", "fr", "de", "ja"])
def test_the_share_squares_are_explained_on_the_rules_page_and_the_daily_page(client, lang):
    import html as html_lib

    for path in ("/rules/", "/daily/"):
        page = html_lib.unescape(client.get(path, HTTP_ACCEPT_LANGUAGE=lang).content.decode())
        legend = re.search(r'<ul class="share-legend">(.*?)</ul>', page, re.S)
        assert legend, path
        items = re.findall(r'<li><span class="square">(.)</span> ([^<]+)</li>', legend.group(1))
        # The share's own squares (share.js), in the order of SQUARES, each with its words.
        assert [square for square, _ in items] == ["🟩", "🟦", "⬜"], path
        assert all(words in said for words, (_, said) in zip(LEGEND[lang], items, strict=True)), (path, items)
    share_js = (settings.BASE_DIR / "frontend" / "static" / "frontend" / "share.js").read_text()
    assert 'SQUARES = { given: "🟩", caught: "🟦", fish: "⬜" }' in share_js


# What is ranked: reading the table (issue 50), said on the rules page in each language.
SKILL = {
    "en": "Reading the table is the skill.",
    "fr": "Lire la table, c'est tout le jeu.",
    "de": "Den Tisch lesen ist das Können.",
    "ja": "テーブルを読むことが腕前です。",
}


@pytest.mark.parametrize("lang", list(SKILL))
def test_the_rules_page_says_the_table_is_the_players_to_read(client, lang):
    """The opponent reads the whole history with a perfect memory; the ranked table gives no
    aid beyond it, and the analysis values each ask from the table alone: said in the
    section on what "ranked" means."""
    html = client.get("/rules/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    ranked = html.split('id="rules-ranked"', 1)[1].split("</section>", 1)[0]
    assert SKILL[lang] in ranked.replace("&#x27;", "'").replace("&#39;", "'")
