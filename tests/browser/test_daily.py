"""The daily Pêche page in real Chromium: a whole game with the keyboard only, checked
against the engine's replay of the stored asks; reload resumes; phone viewports."""

from __future__ import annotations

import re

import pytest

from .conftest import no_horizontal_scroll, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FAST = "window.PECHE_STEP_MS = 5; window.PECHE_POLL_MS = 150;"
SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def card(c: str) -> str:
    return c[:-1] + SUITS[c[-1]]


A_RANK = dict(
    zip(
        ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"],
        [
            "an ace",
            "a two",
            "a three",
            "a four",
            "a five",
            "a six",
            "a seven",
            "an eight",
            "a nine",
            "a ten",
            "a jack",
            "a queen",
            "a king",
        ],
    )
)
RANKS_OF = {r: (w.split(" ", 1)[1] + ("es" if w.endswith("x") else "s")) for r, w in A_RANK.items()}


def event_text(e: dict) -> str:
    """English announcement of an event (mirrors render.js eventText): ranks in words."""
    me = e.get("seat") == 0
    if e["type"] == "ask":
        a_rank = A_RANK[e["rank"]]
        if me:
            return (
                f"You ask for {a_rank}: the opponent gives you theirs."
                if e["given"]
                else f"You ask for {a_rank}: the opponent has none."
            )
        return (
            f"The opponent asks for {a_rank}: you give yours."
            if e["given"]
            else f"The opponent asks for {a_rank}: you have none."
        )
    if e["type"] == "draw":
        if me:
            return (
                f"You go fishing and draw {card(e['card'])}."
                if e["reason"] == "fish"
                else f"Your hand is empty: you draw {card(e['card'])}."
            )
        return (
            "The opponent goes fishing." if e["reason"] == "fish" else "The opponent's hand is empty: it draws a card."
        )
    if e["type"] == "pair":
        ranks = RANKS_OF[e["rank"]]
        return f"You lay down a pair of {ranks}." if me else f"The opponent lays down a pair of {ranks}."
    if e["type"] == "pass":
        return "You pass." if me else "The opponent passes."
    mine, theirs = e["outcome"]["counts"]
    return f"Game over: {mine} pairs to {theirs}."


def history_lines(history: list[dict]) -> list[str]:
    """What the log says of earlier asks after a reload (mirrors state.js announcementsOf)."""
    lines = []
    for h in history:
        lines.append(event_text({"type": "ask", "seat": h["seat"], "rank": h["rank"], "given": h["given"]}))
        if h["fished"]:
            lines.append("You go fishing." if h["seat"] == 0 else "The opponent goes fishing.")
    return lines


def history_text(h: dict) -> str:
    who = "You" if h["seat"] == 0 else "Opponent"
    what = "given" if h["given"] else "went fishing" if h["fished"] else "none"
    return f"{who}: {h['rank']} — {what}"


def replay_events(seed: str, moves: list[str]) -> list[list[dict]]:
    from games.rules.registry import engine

    game = engine("peche")
    state = game.new(seed=seed)
    return [[game.event_view(e, 0) for e in game.apply(state, m)] for m in moves]


def snapshot(page) -> dict:
    return page.evaluate("""() => ({
        hand: [...document.querySelectorAll('#hand button')].map(b => b.dataset.card),
        history: [...document.querySelectorAll('#history li')].map(li => li.textContent),
        counters: ['player-pairs','opponent-pairs','opponent-hand-size','lake-size','asks']
            .map(id => document.getElementById(id).textContent),
    })""")


def attempt_id(page) -> int:
    return page.evaluate(
        "fetch('/api/challenges/today/attempt', {method: 'POST', headers: {'X-CSRFToken': "
        "document.cookie.match(/csrftoken=([^;]+)/)[1]}}).then(r => r.json()).then(v => v.id)"
    )


def buckets(page) -> tuple[list[str], list[str]]:
    return (
        page.eval_on_selector_all("#player-bucket li", "ls => ls.map(l => l.dataset.rank)"),
        page.eval_on_selector_all("#opponent-bucket li", "ls => ls.map(l => l.dataset.rank)"),
    )


def wait_my_turn_or_end(page):
    page.wait_for_function(
        "document.querySelector('#turn')?.dataset.turn === 'player' || !document.querySelector('#end').hidden"
    )
    return page.locator("#end").is_visible()


def named_before(page, name: str):
    """A returning player: named on an earlier visit (the session kept), today not started."""
    page.goto(page.base + "/daily/")
    page.wait_for_selector("#name-input")
    status = page.evaluate(
        "name => fetch('/api/players', {method: 'POST', body: JSON.stringify({name}), headers: {"
        "'Content-Type': 'application/json', 'X-CSRFToken': document.cookie.match(/csrftoken=([^;]+)/)[1]}})"
        ".then(r => r.status)",
        name,
    )
    assert status == 201


def start_the_day(page):
    """A returning player's Start: today's ranked game begins on that press only."""
    page.goto(page.base + "/daily/")
    page.wait_for_selector("#start-button:focus")
    page.keyboard.press("Enter")
    page.wait_for_selector("#hand button:focus")


def start_as_guest(page, name: str):
    page.goto(page.base + "/daily/")
    page.wait_for_selector("#name-input:focus")  # the prompt takes the focus: no mouse needed
    page.keyboard.type(name)
    page.keyboard.press("Enter")
    page.wait_for_selector("#hand button:focus")


def test_full_game_with_the_keyboard_only(new_page, verifier):
    from challenges.models import Attempt

    page = new_page()
    page.add_init_script(FAST)
    # A name the site keeps for itself is refused in a sentence that says why (errors.js,
    # loaded when such a code comes), not "Something went wrong. Reload the page.".
    page.expected_errors = ["400"]
    page.goto(page.base + "/daily/")
    page.wait_for_selector("#name-input:focus")
    page.keyboard.type("Admin")
    page.keyboard.press("Enter")
    page.wait_for_selector("#error:not([hidden])")
    assert page.text_content("#error") == "This name reads as the site's own (its staff or its name): choose another."
    start_as_guest(page, "Keyboard Kim")
    screenshot(page, "daily-desktop-start")
    log_from = 0  # moves whose events the log on screen has announced start here
    asks = 0
    while not wait_my_turn_or_end(page):
        focused = page.evaluate("document.activeElement.dataset.card")
        assert focused, "a card of the hand keeps the focus"
        if asks % 3 == 1:
            page.keyboard.press("ArrowRight")
            assert (
                page.evaluate("document.activeElement.dataset.card") != focused
                or page.locator("#hand button").count() == 1
            )
        page.keyboard.press("Enter" if asks % 2 == 0 else " ")
        asks += 1
        page.wait_for_function(
            f"document.getElementById('asks').textContent === '{asks}' && "
            "document.querySelector('#turn').dataset.turn !== 'busy'"
        )
        # The pairs laid on the table, on both sides, are the server's.
        view = page.request.get(page.base + f"/api/attempts/{attempt_id(page)}").json()
        assert buckets(page) == (view["player_pairs"], view["opponent_pairs"])
        assert page.locator("#opponent-hand .back").count() == view["opponent_hand_size"]
        if asks == 4:
            before = snapshot(page)
            page.reload()
            page.wait_for_selector("#hand button:focus")
            assert snapshot(page) == before, "reload resumes exactly"
            log_from = asks
        assert asks < 80
    screenshot(page, "daily-desktop-end")
    attempt = Attempt.objects.get(player__name="Keyboard Kim")
    assert attempt.ranked and len(attempt.moves) == asks
    # The history on screen is the engine's history of the stored asks.
    from challenges.selectors import attempt_view

    history = attempt_view(attempt)["history"]
    assert page.locator("#history li").all_text_contents() == [history_text(h) for h in history]
    # The log: rebuilt from the history by the reload, then every event announced since.
    from games.rules.peche import ENGINE

    events = [e for batch in replay_events(attempt.challenge.seed, attempt.moves)[log_from:] for e in batch]
    at_reload = ENGINE.view(ENGINE.replay({"seed": attempt.challenge.seed}, attempt.moves[:log_from], partial=True), 0)[
        "history"
    ]
    assert page.locator("#log p").all_text_contents() == history_lines(at_reload) + [event_text(e) for e in events]
    assert page.get_attribute("#log", "aria-live") == "polite"
    # The game over, the focus is on the end panel, not lost to <body>.
    assert page.evaluate("document.activeElement.id") == "end-title"
    # End panel: numbers, then the rank appears without a reload.
    outcome = events[-1]["outcome"]
    assert page.text_content("#end-score") == str(outcome["score"])
    assert page.text_content("#end-asks") == str(asks)
    page.wait_for_selector("#end-status[data-status=verified]", timeout=20000)
    assert re.fullmatch(r"Verified: rank 1\.", page.text_content("#end-status"))
    # Alone on the day: a win, said as one (neither "better than 0 %" nor "top 100 %").
    page.wait_for_selector("#end-standing:not([hidden])")
    assert page.text_content("#end-standing") == "First of today's players."
    share = page.text_content("#share-text")
    assert "Rank 1 of 1" in share.splitlines() and "%" not in share
    assert share.splitlines()[0].endswith(f": {outcome['score']} points")
    assert sum(share.count(square) for square in "🟩🟦⬜") == asks  # a square an ask
    assert re.search(r"Next deal in \d\d:\d\d:\d\d", page.text_content("#countdown"))
    assert page.get_attribute("#leaderboard-link", "href") == f"/leaderboard/{attempt.challenge.date.isoformat()}/"
    screenshot(page, "daily-desktop-verified")


@pytest.mark.parametrize(
    "name,viewport", [("portrait", {"width": 390, "height": 844}), ("landscape", {"width": 844, "height": 390})]
)
def test_phone_viewports(new_page, name, viewport):
    page = new_page(viewport=viewport, has_touch=True, is_mobile=True)
    page.add_init_script(FAST)
    start_as_guest(page, f"Phone {name}")
    for _ in range(3):
        wait_my_turn_or_end(page)
        page.locator("#hand button").first.tap()
        page.wait_for_function("document.querySelector('#turn').dataset.turn !== 'busy'")
    assert no_horizontal_scroll(page)
    box = page.locator("#hand button").first.bounding_box()
    assert box and 0 <= box["y"] and box["y"] + box["height"] <= viewport["height"], "hand visible without scrolling"
    assert page.locator("#history li").count() >= 3 and page.locator("#history").is_visible()
    screenshot(page, f"daily-{name}")


def test_practice_on_a_past_day_is_unranked(new_page):
    import datetime as dt

    from challenges import days

    page = new_page()
    page.add_init_script(FAST)
    day = (days.today() - dt.timedelta(days=3)).isoformat()
    page.goto(page.base + "/daily/archive/")
    page.click(f"a[href='/daily/{day}/']")
    page.fill("#name-input", "Practice Pat")
    page.press("#name-input", "Enter")
    page.wait_for_selector("#hand button:focus")
    assert "not ranked" in page.text_content("#mode")


@pytest.mark.parametrize(
    "lang,viewport", [("en", {"width": 390, "height": 844}), ("fr", {"width": 1280, "height": 800})]
)
def test_a_returning_players_look_spends_nothing_and_start_begins_the_ranked_game(new_page, lang, viewport):
    from challenges.models import Attempt

    page = new_page(locale={"en": "en-US", "fr": "fr-FR"}[lang], viewport=viewport)
    page.add_init_script(FAST)
    named_before(page, f"Back Again {lang}")
    page.goto(page.base + "/")
    # The hub's main action is a button as tall as the Start below (44 px), the day's date is
    # one line (never broken at its hyphens), and How to play is there once.
    play = page.locator("#today-status a.primary")
    assert play.bounding_box()["height"] >= 44
    date = page.locator("#daily-title .muted")
    assert date.bounding_box()["height"] < 1.5 * float(
        date.evaluate("d => parseFloat(getComputedStyle(d).lineHeight) || 24")
    )
    assert page.locator("main a[href='/rules/']").count() == 1
    page.goto(page.base + "/daily/")
    page.wait_for_selector("#start-button:focus")  # Enter starts: no mouse needed
    stakes = page.text_content("#start-stakes")
    assert (
        "only your first game of the day counts" if lang == "en" else "seule votre première partie du jour compte"
    ) in stakes
    assert page.locator("#table").is_hidden()
    assert page.evaluate("document.getElementById('start-button').getBoundingClientRect().height") >= 44
    assert not Attempt.objects.filter(player__name=f"Back Again {lang}").exists(), "looking is not playing"
    assert no_horizontal_scroll(page)
    screenshot(page, f"daily-start-{lang}-{viewport['width']}")
    page.keyboard.press("Enter")
    page.wait_for_selector("#hand button:focus")
    attempt = Attempt.objects.get(player__name=f"Back Again {lang}")
    assert attempt.ranked and attempt.moves == []
    assert page.locator("#start").is_hidden()
    # A started game is resumed by a reload, asks or not, and never started twice.
    page.reload()
    page.wait_for_selector("#hand button:focus")
    assert page.locator("#start").is_hidden()
    page.keyboard.press("Enter")
    page.wait_for_function(
        "document.querySelector('#turn').dataset.turn !== 'busy' && document.getElementById('asks').textContent !== '0'"
    )
    before = snapshot(page)
    page.reload()
    page.wait_for_selector("#hand button:focus")
    assert snapshot(page) == before
    assert Attempt.objects.filter(player__name=f"Back Again {lang}").count() == 1


@pytest.mark.parametrize("locale", ["en-US", "ja-JP"])
def test_the_links_beside_the_game_are_targets_of_at_least_24_px(new_page, locale):
    page = new_page(
        locale=locale, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, first_visit=True
    )
    page.add_init_script(FAST)
    page.goto(page.base + "/daily/")
    page.wait_for_selector("#rules-card:not([hidden])")
    sizes = {"rules card": page.locator("#rules-card p a").bounding_box()}
    page.keyboard.press("Enter")  # "Got it"
    page.wait_for_selector("#name-input:focus")
    page.keyboard.type(f"Target {locale}")
    page.keyboard.press("Enter")
    page.wait_for_selector("#hand button:focus")
    sizes["table"] = page.locator("#table .rules-link").bounding_box()
    small = {where: box for where, box in sizes.items() if box["width"] < 24 or box["height"] < 24}
    assert not small, small
