"""Go Fish with books in Chromium: a whole game with the keyboard only, the
6-player phone layout, resume after reload, the seeds' French wording.

Every test sets window.GOFISH_STEP_MS = 0: the simulated seats play out at once."""

from __future__ import annotations

import itertools
import re

import pytest
from django.db.models.signals import pre_save

from games.rules.gofish import ENGINE
from games.web.models import CasualGame

from .conftest import no_horizontal_scroll, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def chosen_deals():
    """Every game the live server deals here comes from a chosen seed (the n-th game of a
    test from ``browser-gofish-n``), not a random one: what a test plays, and whether the
    others get a turn or the game ends, is the same on every run."""
    numbers = itertools.count()

    def choose(sender, instance, **kwargs):
        if instance.pk is None and instance.game == "gofish":
            instance.seed = f"browser-gofish-{next(numbers)}"

    pre_save.connect(choose, sender=CasualGame, dispatch_uid="browser-gofish-chosen-deals")
    yield
    pre_save.disconnect(sender=CasualGame, dispatch_uid="browser-gofish-chosen-deals")


def open_gofish(new_page, locale="en-US", viewport=None):
    page = new_page(locale=locale, viewport=viewport)
    page.add_init_script("window.GOFISH_STEP_MS = 0;")
    page.goto(page.base + "/gofish/")
    return page


def wait_phase(page, *phases, timeout=10_000):
    page.wait_for_selector(", ".join(f'#gofish[data-phase="{p}"]' for p in phases), timeout=timeout)


def current(page) -> CasualGame:
    return CasualGame.objects.get(pk=int(page.get_attribute("#gofish", "data-game-id")))


def engine_state(game: CasualGame):
    state = ENGINE.new(seed=game.seed, **game.options)
    for move in game.moves:
        ENGINE.apply(state, move)
    return state


def history(page) -> list[dict]:
    return page.evaluate("""() => [...document.querySelectorAll('#gf-history li')].map(li => ({
        seat: +li.dataset.seat, target: +li.dataset.target, rank: li.dataset.rank, given: +li.dataset.given,
        text: li.textContent }))""")


def focused(page) -> dict:
    return page.evaluate("""() => { const a = document.activeElement;
        return { id: a.id, rank: a.dataset.rank || null, seat: a.dataset.seat || null,
                 visible: a.matches(':focus-visible'), outline: getComputedStyle(a).outlineStyle }; }""")


def deal_with_keyboard(page, players: int, hand_size: int | None = None):
    """The setup form with keys only: the players select has the focus when it opens."""
    wait_phase(page, "setup")
    assert focused(page)["id"] == "gf-players"
    select_index = players - 2
    for _ in range(select_index):
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Tab")
    assert focused(page)["id"] == "gf-hand-size"
    if hand_size is not None:
        page.keyboard.press("Control+A")
        page.keyboard.type(str(hand_size))
    page.keyboard.press("Tab")
    assert focused(page)["id"] == "gf-start"
    page.keyboard.press("Enter")
    wait_phase(page, "idle", "over")


def check_history_against_server(page, state):
    shown = history(page)
    expected = state.knowledge.ask_history
    assert [(h["seat"], h["target"], h["rank"], h["given"]) for h in shown] == [
        (a["seat"], a["target"], a["rank"], a["given"]) for a in expected
    ]
    names = ["You", "Ada", "Bo", "Cleo", "Dan", "Eve"]
    for entry in shown:
        text = entry["text"]
        assert names[entry["seat"]] in text and (names[entry["target"]] in text or "you" in text), text
        assert text.endswith(f" {entry['given']}.") if entry["given"] else text.endswith("“Go fish!”"), text


def test_a_whole_two_player_game_with_the_keyboard_only(new_page):
    page = open_gofish(new_page)
    deal_with_keyboard(page, 2)
    game = current(page)
    assert game.options == {"players": 2, "hand_size": 7}
    assert page.locator("#gf-seats .gf-seat").count() == 2
    turns = 0
    while page.get_attribute("#gofish", "data-phase") != "over":
        wait_phase(page, "idle", "over")
        if page.get_attribute("#gofish", "data-phase") == "over":
            break
        f = focused(page)
        assert f["rank"] is not None, f  # the focus is on a rank of the hand, visibly
        assert f["visible"] and f["outline"] != "none"
        if turns % 3 == 1:
            page.keyboard.press("ArrowRight")
            assert focused(page)["rank"] is not None
        if turns == 2:
            # Back to the seats with Shift+Tab: the only opponent is chosen; Enter returns to the ranks.
            page.keyboard.press("Shift+Tab")
            assert focused(page)["seat"] == "1"
            assert page.get_attribute("#gf-seats button[data-seat='1']", "aria-checked") == "true"
            page.keyboard.press("Enter")
            assert focused(page)["rank"] is not None
        moves = int(page.get_attribute("#gofish", "data-server-moves"))
        page.keyboard.press("Enter")
        page.wait_for_function(
            f"() => +document.querySelector('#gofish').dataset.serverMoves > {moves}"
            " && ['idle', 'over'].includes(document.querySelector('#gofish').dataset.phase)"
        )
        turns += 1
        assert turns < 200
    game = current(page)
    state = engine_state(game)
    assert state.over and game.status == "over" and len(game.moves) == turns
    check_history_against_server(page, state)
    outcome = ENGINE.outcome(state)
    assert page.is_visible("#gf-end") and not page.is_visible(".gf-hand-box")
    rows = page.evaluate("() => [...document.querySelectorAll('#gf-end-books tr')].map(r => +r.dataset.books)")
    assert rows == list(outcome.counts) and sum(rows) == 13
    assert page.get_attribute("#gf-end-title", "data-winners") == ",".join(map(str, outcome.winners))
    title = page.inner_text("#gf-end-title")
    assert title == ("You win!" if outcome.winners == (0,) else title)
    assert page.evaluate("document.activeElement.id") == "gf-end"
    # The live region announced every ask and the end.
    log = page.inner_text("#gf-log")
    assert log.count("“Go fish!”") == sum(1 for a in state.knowledge.ask_history if not a["given"])
    assert "Game over" in log
    assert page.inner_text(f"#gf-tally [data-tally='{game.result}']") == "1"
    screenshot(page, "gofish-2-players-end")


def test_six_players_fit_a_phone_screen(new_page):
    page = open_gofish(new_page, viewport={"width": 390, "height": 844})
    deal_with_keyboard(page, 6)
    assert current(page).options == {"players": 6, "hand_size": 5}
    seats = page.locator("#gf-seats .gf-seat")
    assert seats.count() == 6
    assert no_horizontal_scroll(page)
    for i in range(6):
        box = seats.nth(i).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390 and box["y"] + box["height"] <= 844, (i, box)
        assert seats.nth(i).is_visible()
    names = page.locator("#gf-seats .gf-seat-name").all_inner_texts()
    assert names == ["You", "Ada", "Bo", "Cleo", "Dan", "Eve"]
    # Choose Cleo with the arrows, ask her with Enter on a rank.
    page.keyboard.press("Shift+Tab")
    assert focused(page)["seat"] == "1"
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert focused(page)["seat"] == "3"
    page.keyboard.press("Enter")
    assert focused(page)["rank"] is not None
    page.keyboard.press("Enter")
    page.wait_for_function("() => +document.querySelector('#gofish').dataset.serverMoves === 1")
    wait_phase(page, "idle", "over")
    assert current(page).moves[0]["target"] == 3
    assert no_horizontal_scroll(page)
    check_history_against_server(page, engine_state(current(page)))
    screenshot(page, "gofish-6-players-390x844")


def test_simulated_seats_play_out_step_by_step(new_page):
    page = new_page()
    page.add_init_script("window.GOFISH_STEP_MS = 120;")
    page.goto(page.base + "/gofish/")
    wait_phase(page, "setup")
    page.select_option("#gf-players", "5")
    page.click("#gf-start")
    wait_phase(page, "idle")
    seen = []
    page.expose_function("record", lambda n, phase: seen.append((n, phase)))
    page.evaluate("""() => new MutationObserver(() => record(
        document.querySelectorAll('#gf-history li').length, document.querySelector('#gofish').dataset.phase))
        .observe(document.querySelector('#gf-history'), { childList: true })""")
    # Ask until the turn passes (a "go fish"): then the other seats' asks are played out.
    for move in range(1, 30):
        page.keyboard.press("Enter")
        page.wait_for_function(f"() => +document.querySelector('#gofish').dataset.serverMoves === {move}")
        wait_phase(page, "idle", "over")
        history_now = engine_state(current(page)).knowledge.ask_history
        if not history_now[-1]["given"] or history_now[-1]["seat"] != 0:
            break
    total = len(history_now)
    # Every ask appeared on its own (one mutation per ask), most while the page was
    # still playing the events out, and the list ends equal to the server's.
    assert [n for n, _ in seen] == list(range(1, total + 1)), seen
    assert sum(1 for _, phase in seen if phase == "playback") >= 2, seen
    check_history_against_server(page, engine_state(current(page)))


def test_resume_after_reload_and_a_stale_tab(new_page, browser):
    page = open_gofish(new_page)
    deal_with_keyboard(page, 3)
    for _ in range(3):
        moves = int(page.get_attribute("#gofish", "data-server-moves"))
        page.keyboard.press("Enter")
        page.wait_for_function(f"() => +document.querySelector('#gofish').dataset.serverMoves > {moves}")
        wait_phase(page, "idle")  # the chosen deal goes on
    snapshot = page.evaluate("""() => ({
        hand: [...document.querySelectorAll('#gf-hand .gf-card')].map(c => c.dataset.card),
        seats: [...document.querySelectorAll('#gf-seats .gf-seat')].map(s => s.textContent),
        pond: document.querySelector('#gf-pond').textContent })""")
    before = history(page)
    log = page.inner_text("#gf-log")
    assert log
    game = current(page)
    page.reload()
    wait_phase(page, "idle", "over")
    assert int(page.get_attribute("#gofish", "data-game-id")) == game.pk
    assert history(page) == before
    assert page.inner_text("#gf-log") == log  # the log as it was, deal included
    assert (
        page.evaluate("""() => ({
        hand: [...document.querySelectorAll('#gf-hand .gf-card')].map(c => c.dataset.card),
        seats: [...document.querySelectorAll('#gf-seats .gf-seat')].map(s => s.textContent),
        pond: document.querySelector('#gf-pond').textContent })""")
        == snapshot
    )
    state = engine_state(game)
    assert sorted(snapshot["hand"]) == sorted(state.hands[0])
    check_history_against_server(page, state)
    assert not state.over
    # A second tab of the same player, left behind when the first one moves: its ask is
    # stale (409), changes nothing, and the tab resyncs to the stored game. (Its own
    # context: the browser logs the 409 as a console error, which new_page would refuse.)
    context = browser.new_context(storage_state=page.context.storage_state())
    try:
        stale = context.new_page()
        stale.add_init_script("window.GOFISH_STEP_MS = 0;")
        stale.goto(page.base + "/gofish/")
        wait_phase(stale, "idle")
        page.keyboard.press("Enter")
        page.wait_for_function(f"() => +document.querySelector('#gofish').dataset.serverMoves > {len(game.moves)}")
        wait_phase(page, "idle", "over")
        moved = list(current(page).moves)
        assert len(moved) == len(game.moves) + 1
        stale.keyboard.press("Enter")
        stale.wait_for_function(f"() => +document.querySelector('#gofish').dataset.serverMoves === {len(moved)}")
        wait_phase(stale, "idle", "over")
        assert current(stale).moves == moved
        check_history_against_server(stale, engine_state(current(stale)))
    finally:
        context.close()


@pytest.mark.parametrize(
    "locale,words",
    [
        ("fr-FR", ["Pêche aux cartes", "Talon", "« Va à la pêche ! »", "carré"]),
        ("de-DE", ["Go Fish mit Quartetten", "Teich", "„Geh angeln!“", "Quartett"]),
        ("ja-JP", ["ブック付きゴーフィッシュ", "山札", "「ゴー・フィッシュ！」", "ブック"]),
    ],
)
def test_localized_wording(new_page, locale, words):
    page = open_gofish(new_page, locale=locale)
    deal_with_keyboard(page, 2)
    # Play until some ask went fishing, so that the table said the words.
    while page.get_attribute("#gofish", "data-phase") == "idle" and words[2] not in page.inner_text("#gf-history"):
        moves = int(page.get_attribute("#gofish", "data-server-moves"))
        page.keyboard.press("Enter")
        page.wait_for_function(f"() => +document.querySelector('#gofish').dataset.serverMoves > {moves}")
        wait_phase(page, "idle", "over")
    text = page.inner_text("#gofish")
    screenshot(page, f"gofish-{locale}")
    for word in words:
        assert word in text, (word, text[:500])


SLOW_STEP = 3000  # ms between two events of the others: a skipped turn ends well before one


def open_slow(new_page, locale="en-US", viewport=None, players=4):
    page = new_page(locale=locale, viewport=viewport)
    page.add_init_script(f"window.GOFISH_STEP_MS = {SLOW_STEP};")
    page.goto(page.base + "/gofish/")
    wait_phase(page, "setup")
    page.select_option("#gf-players", str(players))
    page.click("#gf-start")
    wait_phase(page, "idle")
    return page


def ask_until_playback(page) -> bool:
    """Ask (a click on a rank) until the others are playing; False if the game ends."""
    for _ in range(40):
        moves = int(page.get_attribute("#gofish", "data-server-moves"))
        page.click("#gf-hand button.gf-rank:not([aria-disabled])")
        # The counter follows the server once the reply has been played out.
        page.wait_for_function(
            f"""() => {{ const g = document.querySelector('#gofish');
            return g.dataset.phase === 'playback' || (+g.dataset.serverMoves > {moves}
                && ['idle', 'over'].includes(g.dataset.phase)); }}""",
            timeout=5000,
        )
        phase = page.get_attribute("#gofish", "data-phase")
        if phase != "idle":
            return phase == "playback"
    raise AssertionError("the turn never passed")


def test_the_others_turn_is_skipped_by_a_key_a_tap_or_skip_and_the_log_stays_in_view(new_page):
    viewport = {"width": 844, "height": 390}
    page = open_slow(new_page, "en-US", viewport)
    assert page.is_disabled("#gf-skip")
    for skip in (
        lambda: page.keyboard.press("Escape"),
        lambda: page.click("#gf-seats"),
        lambda: page.click("#gf-skip"),
    ):
        assert ask_until_playback(page)  # the chosen deal gives the others three turns
        box = page.locator("#gf-log").bounding_box()  # the log is on screen while they play
        assert box["y"] >= 0 and box["y"] + 40 <= viewport["height"], box
        assert page.is_enabled("#gf-skip")
        skip()
        wait_phase(page, "idle", "over", timeout=SLOW_STEP // 2)
        game = current(page)
        check_history_against_server(page, engine_state(game))
        assert int(page.get_attribute("#gofish", "data-server-moves")) == len(game.moves)
        assert page.is_disabled("#gf-skip") or page.get_attribute("#gofish", "data-phase") == "over"


def test_new_game_during_the_others_turn_opens_the_setup_alone(new_page):
    page = open_slow(new_page)
    assert ask_until_playback(page)
    page.click("#gf-new")  # one click, while they play
    wait_phase(page, "setup", "over", "idle", timeout=SLOW_STEP // 2)
    assert page.is_visible("#gf-setup")
    assert not page.is_visible("#gf-game") and not page.is_visible("#gf-hand button")
    page.click("#gf-setup-cancel")  # the game is still there, at its end state
    assert page.is_visible("#gf-game")
    check_history_against_server(page, engine_state(current(page)))


def test_the_pace_is_remembered_and_instant_does_not_wait(new_page):
    page = open_slow(new_page)
    assert page.input_value("#gf-pace") == "normal"
    page.select_option("#gf-pace", "instant")
    page.reload()
    wait_phase(page, "idle")
    assert page.input_value("#gf-pace") == "instant"
    for _ in range(10):  # the others' turns: no step of 3 s
        moves = int(page.get_attribute("#gofish", "data-server-moves"))
        page.click("#gf-hand button.gf-rank:not([aria-disabled])")
        page.wait_for_function(
            f"() => +document.querySelector('#gofish').dataset.serverMoves > {moves}"
            " && ['idle', 'over'].includes(document.querySelector('#gofish').dataset.phase)",
            timeout=SLOW_STEP // 2,
        )
        if page.get_attribute("#gofish", "data-phase") == "over":
            break
    check_history_against_server(page, engine_state(current(page)))


@pytest.mark.parametrize("locale", ["fr-FR", "de-DE", "ja-JP"])
def test_seats_and_ranks_are_named_by_their_visible_text_and_readable(new_page, locale):
    from playwright.sync_api import expect

    from .test_accessibility import violations

    page = open_gofish(new_page, locale, viewport={"width": 390, "height": 844})
    deal_with_keyboard(page, 4)
    targets = page.locator("#gf-seats button.gf-seat, #gf-hand button.gf-rank")
    assert targets.count() >= 4
    for i in range(targets.count()):
        button = targets.nth(i)
        visible = " ".join(button.inner_text().split())
        expect(button).to_have_accessible_name(re.compile("^" + re.escape(visible)))
    assert [v for v in violations(page) if v["id"] in ("color-contrast", "label-content-name-mismatch")] == []


@pytest.mark.parametrize(
    "viewport", [{"width": 390, "height": 844}, {"width": 844, "height": 390}, {"width": 1280, "height": 800}]
)
def test_a_whole_game_moves_no_control(new_page, viewport):
    """Issue 18: a full game at each viewport, the page recording on every change where
    Skip, the pace and New game are, until the game is over."""
    page = open_gofish(new_page, viewport=viewport)
    deal_with_keyboard(page, 3)
    page.evaluate("""() => {
        const controls = ["#gf-skip", "#gf-pace", "#gf-new"];
        const root = document.getElementById("gofish");
        const seen = window.__still = { places: new Set(), samples: 0 };
        const sample = () => {
            if (root.dataset.phase === "over") return;
            seen.samples++;
            seen.places.add(controls.map(s => { const r = document.querySelector(s).getBoundingClientRect();
                                                return [Math.round(r.left + scrollX), Math.round(r.top + scrollY)]; }).join(" "));
        };
        new MutationObserver(sample).observe(root, { subtree: true, childList: true, attributes: true });
        sample();
    }""")
    turns = 0
    while page.get_attribute("#gofish", "data-phase") != "over":
        wait_phase(page, "idle", "over")
        if page.get_attribute("#gofish", "data-phase") == "over":
            break
        moves = int(page.get_attribute("#gofish", "data-server-moves"))
        page.locator("#gf-hand button").first.click()
        page.wait_for_function(
            f"() => +document.querySelector('#gofish').dataset.serverMoves > {moves}"
            " && ['idle', 'over'].includes(document.querySelector('#gofish').dataset.phase)"
        )
        turns += 1
        assert turns < 200
    seen = page.evaluate("() => ({ ...window.__still, places: [...window.__still.places] })")
    assert current(page).status == "over" and seen["samples"] > turns
    assert len(seen["places"]) == 1, seen["places"]
