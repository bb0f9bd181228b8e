"""Accept-Language picks the language; the picker remembers it; JS strings are translated too."""

import pytest

from .conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FAST = "window.PECHE_STEP_MS = 5; window.PECHE_POLL_MS = 150;"


def play_one_ask(page, name):
    page.add_init_script(FAST)
    page.goto(page.base + "/daily/")
    page.wait_for_selector("#name-input:focus")
    page.keyboard.type(name)
    page.keyboard.press("Enter")
    page.wait_for_selector("#hand button:focus")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "document.getElementById('asks').textContent === '1' && document.querySelector('#turn').dataset.turn !== 'busy'"
    )


def test_french_browser_sees_french(new_page):
    page = new_page(locale="fr-FR")
    play_one_ask(page, "Camille")
    assert page.get_attribute("html", "lang") == "fr"
    assert page.text_content("#hand-title") == "Votre main"
    assert page.text_content("#history-title") == "Historique des demandes"
    assert "Vous réclamez un" in page.text_content("#log")  # from the JS catalog
    assert page.text_content("#turn") in ("À vous : réclamez un rang de votre main.", "Partie terminée")
    screenshot(page, "daily-fr")


def test_japanese_browser_sees_japanese(new_page):
    page = new_page(locale="ja-JP")
    play_one_ask(page, "Haruki")
    assert page.get_attribute("html", "lang") == "ja"
    assert page.text_content("#hand-title") == "あなたの手札"
    assert "あなたは" in page.text_content("#log")
    screenshot(page, "daily-ja")


def test_picker_remembers_the_language(new_page):
    page = new_page(locale="en-US")
    page.goto(page.base + "/")
    assert page.text_content("h1") == "Today's card games"
    # Moving through the choices changes nothing; only an explicit choice does.
    page.focus(".lang button[value=fr]")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Tab")
    assert page.text_content("h1") == "Today's card games"
    with page.expect_navigation():
        page.click(".lang button[value=de]")
    assert page.text_content("h1") == "Die Kartenspiele des Tages"
    assert page.get_attribute(".lang button[value=de]", "aria-current") == "true"
    page.goto(page.base + "/daily/archive/")
    assert page.text_content("h1") == "Vergangene Tage"
