"""A newcomer's rank in Chromium: the day's public board leaves its row out (its rank a
gap), the newcomer sees its own rank marked provisional, "Check this day" passes over the
gap, at 390 px and 1280 px, with no serious accessibility violation."""

from __future__ import annotations

import datetime as dt

import pytest

from .conftest import no_horizontal_scroll, screenshot
from .test_accessibility import violations
from .test_day_check import run_check
from .test_replay import session_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DAYS = [dt.date(2026, 5, 30) + dt.timedelta(days=n) for n in range(4)]  # closed, their seeds public
DAY = DAYS[-1]


@pytest.fixture
def board(settings):
    """Two established players and a newcomer who finished first on DAY."""
    from challenges import services
    from challenges.models import Player
    from tests.conftest import first_rank, new_player, verified_game

    settings.ESTABLISHED_DAYS = 3

    def play(player, day, minutes):
        closes = services.challenge_for_day(day=day).closes_at
        return verified_game(day=day, player=player, choose=first_rank, finished=closes - dt.timedelta(minutes=minutes))

    vets = [Player.objects.get(pk=new_player(name).player["id"]) for name in ("Vet Ada", "Vet Bram")]
    for day in DAYS[:-1]:
        for minutes, vet in zip((60, 30), vets, strict=True):
            play(vet, day, minutes)
    newbie = play(Player.objects.get(pk=new_player("Newbie Nia").player["id"]), DAY, 90)
    for minutes, vet in zip((60, 30), vets, strict=True):
        play(vet, DAY, minutes)
    return newbie


@pytest.mark.parametrize("width", [390, 1280])
def test_the_public_board_leaves_a_gap_and_the_newcomer_sees_its_rank(new_page, board, width):
    page = new_page(viewport={"width": width, "height": 900}, bypass_csp=True)
    page.goto(page.base + f"/leaderboard/{DAY.isoformat()}/")
    ranks = page.eval_on_selector_all("tr[data-rank]", "rows => rows.map(r => [r.dataset.rank, r.dataset.name])")
    assert ranks == [["2", "Vet Ada"], ["3", "Vet Bram"]]
    assert "listed apart below" in page.text_content("main")
    # The newcomer is listed apart, below the ranks, unnumbered.
    apart = page.eval_on_selector_all(".newcomers-board tbody tr", "rows => rows.map(r => r.dataset.name)")
    assert apart == ["Newbie Nia"]
    found = run_check(page)
    assert found["status"] == "Every check passed.", found
    assert not violations(page) and no_horizontal_scroll(page)
    screenshot(page, f"board-provisional-gap-{width}")

    page.context.add_cookies([{"name": "sessionid", "value": session_for(board), "url": page.base}])
    page.goto(page.base + f"/leaderboard/{DAY.isoformat()}/")
    mine = page.text_content("p.mine")
    assert "Your rank: 1" in mine and "provisional" in mine
    assert page.locator("tr.me[data-rank]").count() == 0  # not on the numbered list, itself included
    assert page.locator(".newcomers-board tr.me").count() == 1  # its row apart, marked as its own
    assert not violations(page) and no_horizontal_scroll(page)
    screenshot(page, f"board-provisional-mine-{width}")


def test_the_rules_page_explains_provisional_in_french(new_page, settings):
    settings.ESTABLISHED_DAYS = 3
    page = new_page(locale="fr-FR", viewport={"width": 390, "height": 900})
    page.goto(page.base + "/rules/")
    item = page.locator("li", has_text="Nouveaux joueurs.")
    assert "Vos parties sont classées" in item.text_content()
    item.scroll_into_view_if_needed()
    screenshot(page, "rules-provisional-fr")


def test_the_end_panel_marks_a_newcomers_rank_provisional(new_page, settings):
    from tests.conftest import verified_game

    settings.ESTABLISHED_DAYS = 3
    attempt = verified_game("Fresh Fay")  # today's ranked game, the account's first
    page = new_page(viewport={"width": 390, "height": 844})
    page.context.add_cookies([{"name": "sessionid", "value": session_for(attempt), "url": page.base}])
    page.goto(page.base + "/daily/")
    page.wait_for_selector("#end-status[data-status=verified]", timeout=20000)
    status = page.text_content("#end-status")
    assert "rank 1, provisional" in status, status
    # The board's words: how many days of how many, not "a few days".
    assert "once they have played on 3 of the 14 days before" in status, status
    page.locator("#end-status").scroll_into_view_if_needed()
    screenshot(page, "daily-end-provisional-390")


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize(
    "locale,words",
    [
        ("en-US", "Provisional: newcomers get a number on the public board once they have played on 3 of the 14"),
        ("fr-FR", "Provisoire\u00a0: les nouveaux joueurs"),
        ("de-DE", "Vorläufig: Neue Spieler"),
        ("ja-JP", "暫定：はじめてのプレイヤー"),
    ],
)
def test_the_hub_marks_a_newcomers_rank_provisional(new_page, settings, locale, words, width):
    from tests.conftest import verified_game

    settings.ESTABLISHED_DAYS = 3
    attempt = verified_game("Fresh Finn")
    page = new_page(locale=locale, viewport={"width": width, "height": 900})
    page.context.add_cookies([{"name": "sessionid", "value": session_for(attempt), "url": page.base}])
    page.goto(page.base + "/")
    rank = page.text_content("#today-rank")
    assert page.locator("#today-rank .provisional").count() == 1, rank
    status = page.text_content("[data-status=provisional]")
    assert words in status, status
    assert not violations(page) and no_horizontal_scroll(page)
    page.locator("#today-rank").scroll_into_view_if_needed()
    screenshot(page, f"home-provisional-{locale}-{width}")
