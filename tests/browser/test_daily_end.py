"""The first minute and the last of the daily game in Chromium: the rules card of a first
visit, the name prompt's words, the end panel's standing (rank of how many, top share,
streak, the day's histogram with your bar marked, when replays open), the spoiler-free
share, the pace setting, the home page's status and the leaderboard's marked bar."""

from __future__ import annotations

import math
import re

import pytest

from tests.conftest import new_player

from .conftest import screenshot
from .test_daily import start_as_guest, wait_my_turn_or_end
from .test_leaderboard import finish_game

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FAST = "window.PECHE_STEP_MS = 5; window.PECHE_POLL_MS = 150;"
SQUARES = set("🟩🟦⬜")
CARD_NAMED = re.compile(r"[♠♥♦♣]|\b(?:10|[2-9AJQK])[SHDC]\b")


def play_to_the_end(page):
    while not wait_my_turn_or_end(page):
        page.keyboard.press("Enter")
        page.wait_for_function("document.querySelector('#turn').dataset.turn !== 'busy'")


def test_a_first_visit_shows_the_rules_card_once_then_the_prompt_says_what_is_at_stake(new_page):
    page = new_page(first_visit=True)
    page.goto(page.base + "/daily/")
    card = page.locator("#rules-card")
    card.wait_for()
    assert page.evaluate("document.activeElement.id") == "rules-ok"
    assert page.locator("#name-prompt").is_hidden()
    assert "1000" in card.text_content() and "30" in card.text_content()
    assert card.locator("a[href='/rules/']").count() == 1
    screenshot(page, "daily-rules-card")
    page.keyboard.press("Enter")  # "Got it"
    page.wait_for_selector("#name-input:focus")
    assert card.is_hidden()
    prompt = page.text_content("#name-prompt")
    assert "This game is ranked" in prompt and "only your first game of the day counts" in prompt
    assert page.locator("#name-prompt a[href='/rules/']").count() == 1
    # Remembered: the next visit goes straight to the prompt.
    page.reload()
    page.wait_for_selector("#name-input:focus")
    assert page.locator("#rules-card").is_hidden()


def test_the_end_panel_tells_where_the_game_stands_and_shares_no_card(new_page, verifier):
    from challenges.models import Attempt

    for n in range(4):  # the day's other players
        finish_game(new_player(f"Other {n}"))
    page = new_page()
    page.add_init_script(FAST)
    start_as_guest(page, "Ending Eve")
    play_to_the_end(page)
    page.wait_for_selector("#end-status[data-status=verified]", timeout=20000)
    page.wait_for_selector("#end-rank:not([hidden])")
    attempt = Attempt.objects.get(player__name="Ending Eve")
    result = attempt.result
    api = page.request.get(page.base + f"/api/leaderboard/{attempt.challenge.date.isoformat()}/me").json()
    assert api["players"] == 5
    assert page.text_content("#end-rank") == f"{api['rank']} of 5"
    # Rank 1 is said as the first, any other rank as the top share holding it, rounded up
    # (the last's "top 100 %" is left unsaid: "5 of 5" says it).
    top = math.ceil(100 * api["rank"] / 5)
    assert api["top_percent"] == top
    standing = "First of today's players." if api["rank"] == 1 else f"In the top {top} % of today's players."
    if top == 100:
        assert page.locator("#end-standing").is_hidden()
    else:
        assert page.text_content("#end-standing") == standing
    assert page.text_content("#end-streak") == "1 day in a row · best 1"
    # The day's histogram: the bar of your score is marked, every bar's count is written.
    bars = page.locator("#end-histogram rect")
    marked = page.locator("#end-histogram rect[aria-current='true']")
    assert marked.count() == 1 and marked.get_attribute("data-score") == str(result.score)
    counts = page.locator("#end-histogram text.count").all_text_contents()
    assert len(counts) == bars.count() and sum(int(c) for c in counts) == 5
    assert page.locator("#end-histogram text.count").first.is_visible()
    # When the replays open, and the link to yours.
    replays = page.locator("#end-replays")
    assert "analysis and the public replays open when the day closes" in replays.text_content()
    assert replays.locator("a").get_attribute("href") == f"/replays/{attempt.pk}/"
    # The share: one square per ask in the order of the asks, no card named.
    text = page.text_content("#share-text")
    lines = text.splitlines()
    assert lines[0] == f"Pêche {attempt.challenge.date.isoformat()}: {result.score} points"
    squares = "".join(ch for line in lines if set(line) <= SQUARES for ch in line)
    view = page.request.get(page.base + f"/api/attempts/{attempt.pk}").json()
    mine = [h for h in view["history"] if h["seat"] == 0]
    assert len(squares) == result.asks == len(mine)
    assert squares == "".join("🟩" if h["given"] else "🟦" if h["caught"] else "⬜" for h in mine)
    assert (
        f"Rank {api['rank']} of 5" if api["rank"] == 1 or top == 100 else f"Rank {api['rank']} of 5 · top {top} %"
    ) in lines
    # Beside the squares, what each one means.
    legend = page.locator("#end .share-legend li").all_text_contents()
    assert [item.split(" ", 1)[0] for item in legend] == ["🟩", "🟦", "⬜"]
    assert page.locator("#end .share-legend").is_visible()
    assert lines[-1].endswith("/daily/")
    assert not CARD_NAMED.search(text), text
    screenshot(page, "daily-end-panel")


def test_your_replay_link_says_when_it_opens_before_the_close(new_page):
    from .test_leaderboard import log_in

    page = new_page()
    client = new_player("Early Ed")
    view = finish_game(client)
    # For anyone but its player, the game does not exist while the deal is secret.
    assert page.request.get(page.base + f"/replays/{view['id']}/").status == 404
    log_in(page, client)
    response = page.goto(page.base + f"/replays/{view['id']}/")
    assert response.status == 200
    assert "opens here when the day closes" in page.text_content("#opens")

    # The end panel says when in the reader's own zone, named (a French reader in Paris),
    # from the ISO moment the server sends; never the server's UTC.
    import datetime as dt
    from zoneinfo import ZoneInfo

    from challenges.models import Attempt

    reveals = Attempt.objects.select_related("challenge").get(pk=view["id"]).challenge.reveals_at
    paris = new_page(locale="fr-FR", timezone_id="Europe/Paris")
    log_in(paris, client)
    paris.goto(paris.base + "/daily/")
    paris.wait_for_selector("#end-replays:not([hidden])", timeout=20000)
    local = reveals.astimezone(ZoneInfo("Europe/Paris"))
    offset = local.utcoffset() // dt.timedelta(hours=1)
    assert f"{local:%Y-%m-%d %H:%M} UTC+{offset}" in paris.text_content("#end-replays")


def test_the_pace_is_a_setting_remembered_by_the_browser(new_page):
    page = new_page()
    start_as_guest(page, "Pacey Pam")
    assert page.input_value("#pace") == "normal"
    page.select_option("#pace", "instant")
    page.reload()
    page.wait_for_selector("#hand button:focus")
    assert page.input_value("#pace") == "instant"
    assert page.evaluate("localStorage.getItem('casual:daily:pace')") == '"instant"'
    # Instant: a whole turn, the opponent's included, is on the table at once.
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('#turn').dataset.turn !== 'busy'", timeout=2000)


def test_the_home_page_says_where_you_stand_today(new_page, verifier):
    page = new_page()
    page.goto(page.base + "/")
    assert page.get_attribute("#today-status", "data-state") == "new"
    assert re.fullmatch(r"\d\d:\d\d:\d\d", page.text_content(".next-deal time"))
    start_as_guest(page, "Home Hana")
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('#turn').dataset.turn !== 'busy'")
    page.goto(page.base + "/")
    assert page.get_attribute("#today-status", "data-state") == "playing"
    assert re.search(r"in progress: \d+ asks? so far", page.text_content("#today-status"))
    page.goto(page.base + "/daily/")
    page.add_init_script(FAST)
    page.reload()
    play_to_the_end(page)
    page.wait_for_selector("#end-status[data-status=verified]", timeout=20000)
    page.goto(page.base + "/")
    assert page.get_attribute("#today-status", "data-state") == "done"
    assert page.text_content("#today-rank") == "1 of 1"
    assert page.text_content("#today-standing") == "First of today's players."  # never "better than 0 %"
    assert page.text_content("#today-streak") == "1 day"
    screenshot(page, "home-done")


def test_the_leaderboard_marks_your_bar_and_writes_its_counts(new_page):
    from challenges import days

    from .test_leaderboard import log_in

    for n in range(3):
        finish_game(new_player(f"Bar {n}"))
    me = new_player("Bar Me")
    mine = finish_game(me)["result"]
    page = new_page()
    log_in(page, me)
    page.goto(page.base + f"/leaderboard/{days.today().isoformat()}/")
    marked = page.locator("#histogram rect[aria-current='true']")
    assert marked.count() == 1 and marked.get_attribute("data-score") == str(mine["score"])
    assert page.locator("#histogram text.count").count() == page.locator("#histogram rect").count()
    assert "Your bar" in page.text_content("#histogram figcaption")
    # Dates are written one way (ISO), the day field included.
    assert page.input_value("#day-input") == days.today().isoformat()
    assert page.get_attribute("#day-input", "type") == "text"
