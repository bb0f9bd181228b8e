"""The header's log-out button (base.html, logout.js): on every page for a signed-in player;
a player without a password is warned in the page first, in their language."""

import pytest

from .conftest import no_horizontal_scroll, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def sign_up(page, name: str, password: str | None = None) -> None:
    """The browser creates a player (its session is logged in), as the daily page does."""
    created = page.request.post(page.base + "/api/players", data={"name": name})
    assert created.status == 201, created.text()
    if password:
        csrf = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
        changed = page.request.post(
            page.base + "/api/players/me/password", data={"password": password}, headers={"X-CSRFToken": csrf}
        )
        assert changed.ok, changed.text()


def signed_in(page) -> bool:
    return page.request.get(page.base + "/api/players/me").status == 200


def test_a_player_without_a_password_is_warned_then_logged_out(new_page):
    page = new_page()
    sign_up(page, "Passwordless Leaver")
    page.goto(page.base + "/leaderboard/")
    button = page.locator(".logout-button")
    dialog = page.locator("#logout-dialog")
    assert button.is_visible() and not dialog.is_visible()

    button.click()  # the warning first, nothing ended yet
    assert dialog.is_visible() and "Passwordless Leaver" in dialog.text_content()
    assert "cannot sign in as Passwordless Leaver again" in dialog.text_content()
    page.locator(".logout-cancel").click()
    assert not dialog.is_visible() and signed_in(page)

    button.click()
    with page.expect_navigation():
        page.locator(".logout-confirm").click()
    assert page.locator(".logout-button").count() == 0  # the same page, signed out
    assert not signed_in(page)


def test_a_player_with_a_password_logs_out_at_once(new_page):
    page = new_page()
    sign_up(page, "Keyed Leaver", password="keyed leaver pass 1")
    page.goto(page.base + "/")
    with page.expect_navigation():
        page.locator(".logout-button").click()
    assert page.locator(".logout-button").count() == 0 and not signed_in(page)
    # They can come back with their name and password.
    assert page.request.post(
        page.base + "/api/session", data={"name": "Keyed Leaver", "password": "keyed leaver pass 1"}
    ).ok


def test_no_log_out_button_when_signed_out(new_page):
    page = new_page()
    page.goto(page.base + "/")
    assert page.locator(".logout-button").count() == 0 and page.locator("#logout-dialog").count() == 0


TITLES = {
    "en-US": "Log out without a password?",
    "fr-FR": "Vous déconnecter sans mot de passe ?",
    "de-DE": "Ohne Passwort abmelden?",
    "ja-JP": "パスワードなしでログアウトしますか？",
}


@pytest.mark.parametrize("locale", list(TITLES))
def test_the_warning_is_translated_and_fits_a_phone_and_a_desktop(new_page, locale):
    for width, height in ((390, 844), (1280, 800)):
        page = new_page(locale=locale, viewport={"width": width, "height": height})
        sign_up(page, f"Warned {locale[:2]} {width}")
        page.goto(page.base + "/")
        page.locator(".logout-button").click()
        dialog = page.locator("#logout-dialog")
        assert dialog.locator("h2").text_content() == TITLES[locale]
        box = dialog.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width and box["y"] + box["height"] <= height
        assert no_horizontal_scroll(page)
        screenshot(page, f"logout-warning-{locale[:2]}-{width}")
