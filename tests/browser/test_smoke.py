import pytest

from .conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_home_lists_the_games(new_page):
    page = new_page()
    page.goto(page.base + "/")
    assert page.locator("h1").count() == 1
    assert "Kitten" in page.content()
    screenshot(page, "home-desktop")
