"""A password changed on one device ends the player's sessions on every other device at
once, and the device that changed it stays signed in."""

import pytest

from .test_logout import sign_up, signed_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_password_change_on_one_device_signs_the_other_out_at_once(new_page):
    phone, laptop = new_page(viewport={"width": 390, "height": 844}), new_page()
    sign_up(phone, "Two Devices", password="first password 1")

    laptop.goto(laptop.base + "/me/")  # the other device logs in with the page's form
    laptop.fill("#login-name", "Two Devices")
    laptop.fill("#login-password", "first password 1")
    with laptop.expect_navigation():
        laptop.click("#login-form button[type=submit]")
    assert signed_in(laptop) and laptop.locator(".logout-button").count() == 1

    phone.goto(phone.base + "/me/")
    phone.fill("#password-input", "second password 2")
    phone.click("#password-form button[type=submit]")
    phone.locator("#password-form .form-status", has_text="Password saved.").wait_for()

    assert signed_in(phone)  # the device that changed it keeps its session
    laptop.reload()  # its very next request: signed out, the log-in form is back
    assert laptop.locator("#login-form").is_visible() and laptop.locator(".logout-button").count() == 0
    assert not signed_in(laptop)
    old = laptop.request.post(
        laptop.base + "/api/session", data={"name": "Two Devices", "password": "first password 1"}
    )
    assert old.status == 401
    assert laptop.request.post(
        laptop.base + "/api/session", data={"name": "Two Devices", "password": "second password 2"}
    ).ok
