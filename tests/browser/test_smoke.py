import pytest

from .conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_home_lists_the_games(new_page):
    page = new_page()
    page.goto(page.base + "/")
    assert page.locator("h1").count() == 1
    assert "Kitten" in page.content()
    screenshot(page, "home-desktop")


def test_the_api_schema_opens_as_text_in_the_browser(new_page):
    page = new_page()
    response = page.goto(page.base + "/api/schema")  # a download would raise here
    assert response.status == 200 and response.headers["content-type"].startswith("text/yaml")
    assert page.locator("body").inner_text().startswith("openapi: ")
