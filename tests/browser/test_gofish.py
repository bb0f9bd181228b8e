"""Go Fish with books in Chromium: a whole game with the keyboard only, the
6-player phone layout, resume after reload, the seeds' French wording.

Every test sets window.GOFISH_STEP_MS = 0: the simulated seats play out at once."""

from __future__ import annotations

import itertools
import re

import pytest
from django.db.models.signals import pre_save

from casual.models import CasualGame
from games.rules.gofish import ENGINE

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
    """The asks so far, as the log says them."""
    return page.evaluate("""() => [...document.querySelectorAll('#gf-log [data-type="ask"]')].map(li => ({
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


def finish_on_the_server(game: CasualGame):
    """The rest of ``game`` played by the first legal ask of each turn and stored: a reload
    shows its end. Returns the engine's state at the end."""
    state = engine_state(game)
    while not ENGINE.is_over(state):
        game.moves.append(ENGINE.legal_moves(state)[0])
        ENGINE.apply(state, game.moves[-1])
    game.save()
    return state


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
    assert page.locator("#gf-seats .gf-seat:visible").count() == 2
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
    # Every seat's books face up on the table, the winners ringed in gold.
    seats = sorted(table(page)["seats"], key=lambda s: s["seat"])
    assert [s["laid"] for s in seats] == list(outcome.counts) and sum(outcome.counts) == 13
    assert [s["seat"] for s in seats if s["ringed"]] == list(outcome.winners)
    assert page.get_attribute("#gf-end-title", "data-winners") == ",".join(map(str, outcome.winners))
    title = page.inner_text("#gf-end-title")
    assert title == ("You win!" if outcome.winners == (0,) else title)
    assert page.evaluate("document.activeElement.id") == "gf-end"
    # The end panel names each seat's books and cards left, not the winner alone.
    left = [len(hand) for hand in state.hands]
    assert page.locator("#gf-end-seats li").all_inner_texts() == [
        f"{name}: {books} book{'s' if books != 1 else ''}, {cards} card{'s' if cards != 1 else ''} left"
        for name, books, cards in zip(["You", "Ada"], outcome.counts, left, strict=True)
    ]
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
    assert names == ["Ada", "Bo", "Cleo", "Dan", "Eve", "You"]  # you sit at the bottom of the table
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
        document.querySelectorAll('#gf-log [data-type="ask"]').length, document.querySelector('#gofish').dataset.phase))
        .observe(document.querySelector('#gf-log'), { childList: true })""")
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
    counts = [n for n, _ in seen]
    assert counts == sorted(counts) and sorted(set(counts)) == list(range(1, total + 1)), seen
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
        ("fr-FR", ["Pêche aux cartes", "Talon", "« Va à la pêche ! »", "carré"]),
        ("de-DE", ["Go Fish mit Quartetten", "Teich", "„Geh angeln!“", "Quartett"]),
        ("ja-JP", ["ブック付きゴーフィッシュ", "山札", "「ゴー・フィッシュ！」", "ブック"]),
    ],
)
def test_localized_wording(new_page, locale, words):
    page = open_gofish(new_page, locale=locale)
    deal_with_keyboard(page, 2)
    # Play until some ask went fishing, so that the table said the words.
    while page.get_attribute("#gofish", "data-phase") == "idle" and words[2] not in page.inner_text("#gf-log"):
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
    targets = page.locator("#gf-seats button.gf-seat:visible, #gf-hand button.gf-rank")
    assert targets.count() >= 4
    for i in range(targets.count()):
        button = targets.nth(i)
        visible = " ".join(button.inner_text().split())
        expect(button).to_have_accessible_name(re.compile("^" + re.escape(visible)))
    assert [v for v in violations(page) if v["id"] in ("color-contrast", "label-content-name-mismatch")] == []


def watch_controls(page):
    """From now on the page notes, on every change, where Skip, the pace and New game are
    (until the game is over): one place in the end is a game that moved no control."""
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


def controls_seen(page) -> dict:
    return page.evaluate("() => ({ ...window.__still, places: [...window.__still.places] })")


def table(page) -> dict:
    """The table as drawn: each opponent's backs and count, each seat's books laid face up,
    the pond's count and the backs of its pile."""
    return page.evaluate("""() => ({
        seats: [...document.querySelectorAll('#gf-seats .gf-seat')].filter(s => !s.closest('[hidden]')).map(s => ({
            seat: +s.dataset.seat, backs: s.querySelectorAll('.gf-backs .back').length, ringed: s.matches('.gf-active'),
            cards: +s.querySelector('.gf-seat-cards').dataset.cards,
            laid: document.querySelectorAll(`[data-books-of="${s.dataset.seat}"] .book`).length })),
        pond: +document.querySelector('#gf-pond').textContent,
        pile: document.querySelectorAll('#gf-pond-pile .back').length })""")


def check_table_against_server(page, state):
    drawn = table(page)
    assert sorted(s["seat"] for s in drawn["seats"]) == list(range(state.players))
    for seat in drawn["seats"]:
        n = len(state.hands[seat["seat"]])
        assert seat["cards"] == n, seat
        # Every card of an opponent's hand is a back on the table (yours are face up below).
        assert seat["backs"] == (n if seat["seat"] else 0), seat
        assert seat["laid"] == len(state.books[seat["seat"]]), seat
    assert drawn["pond"] == len(state.pond)
    assert drawn["pile"] == -(-len(state.pond) // 4)  # the pile's thickness: a back for four cards
    return drawn


def ask_first_rank(page):
    """A click on the first rank of the hand; back when the server's answer is played out."""
    moves = int(page.get_attribute("#gofish", "data-server-moves"))
    page.locator("#gf-hand button").first.click()
    page.wait_for_function(
        f"() => +document.querySelector('#gofish').dataset.serverMoves > {moves}"
        " && ['idle', 'over'].includes(document.querySelector('#gofish').dataset.phase)"
    )


@pytest.mark.parametrize(
    "viewport,locale",
    [
        ({"width": 390, "height": 844}, "en-US"),
        ({"width": 844, "height": 390}, "en-US"),
        ({"width": 1280, "height": 800}, "ja-JP"),
    ],
)
def test_a_whole_game_at_the_table_moves_no_control(new_page, viewport, locale):
    """A full game at each size, the table checked against the server
    after every turn (the backs count each hand, the books are laid, the pond shrinks as
    its pile thins), the page recording on every change where the controls are."""
    page = open_gofish(new_page, locale=locale, viewport=viewport)
    deal_with_keyboard(page, 3)
    watch_controls(page)
    ponds = [check_table_against_server(page, engine_state(current(page)))["pond"]]
    turns = 0
    size = f"{viewport['width']}x{viewport['height']}"
    while page.get_attribute("#gofish", "data-phase") != "over":
        ask_first_rank(page)
        turns += 1
        assert no_horizontal_scroll(page)
        ponds.append(check_table_against_server(page, engine_state(current(page)))["pond"])
        if turns == 4:
            screenshot(page, f"gofish-table-middle-{locale}-{size}")
        # The log shows whole lines: none cut at the top, under its heading (any scroll).
        cut = page.eval_on_selector("#gf-log", "l => l.scrollTop % parseFloat(getComputedStyle(l).lineHeight)")
        assert (
            cut < 0.5
            or cut > float(page.eval_on_selector("#gf-log", "l => parseFloat(getComputedStyle(l).lineHeight)")) - 0.5
        ), cut
        assert turns < 200
    assert current(page).status == "over"
    assert ponds == sorted(ponds, reverse=True) and ponds[-1] < ponds[0] == 52 - 3 * 7, ponds
    seen = controls_seen(page)
    assert seen["samples"] > turns
    assert len(seen["places"]) == 1, seen["places"]
    screenshot(page, f"gofish-table-over-{locale}-{size}")


# The check's words in each language (the seeds' wording of the deck and the hand).
DECK_CHECK = {
    "en-US": "6 players × 26 cards = 156: the deck has 52 cards. At most 8 cards each.",
    "fr-FR": "6 joueurs × 26 cartes = 156 : le jeu n’a que 52 cartes. Au plus 8 cartes par main.",
    "de-DE": "6 Spieler × 26 Karten = 156: Das Spiel hat nur 52 Karten. Höchstens 8 Karten pro Hand.",
    "ja-JP": "6人 × 26枚 = 156枚：カードは全部で52枚です。1人8枚までにしてください。",
}


@pytest.mark.parametrize("locale", list(DECK_CHECK))
def test_the_setup_refuses_six_hands_of_26_beside_the_field_without_a_request(new_page, locale):
    page = open_gofish(new_page, locale=locale)
    wait_phase(page, "setup")
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.select_option("#gf-players", "6")
    page.fill("#gf-hand-size", "26")
    # Said as it is typed, before Deal, beside the field it is about.
    check = page.locator("#gf-deck-check")
    assert check.inner_text() == DECK_CHECK[locale]
    assert page.get_attribute("#gf-hand-size", "aria-invalid") == "true"
    field, message = page.locator("#gf-hand-size").bounding_box(), check.bounding_box()
    assert 0 <= message["y"] - (field["y"] + field["height"]) < 30, (field, message)
    assert labels_beside_fields(page)  # the message does not push the fields away
    page.click("#gf-start")
    assert page.get_attribute("#gofish", "data-phase") == "setup"
    assert page.evaluate("document.activeElement.id") == "gf-hand-size"
    assert page.is_visible("#gf-deck-check") and not page.is_visible("#gf-error")
    screenshot(page, f"gofish-setup-refused-{locale}")
    page.keyboard.press("Enter")  # the form's submit by key is refused the same way
    # Choosing the players after the hand size checks it again: 2 × 26 is the whole deck.
    page.select_option("#gf-players", "2")
    assert check.inner_text() == "" and page.get_attribute("#gf-hand-size", "aria-invalid") == "false"
    assert requests == [], requests
    page.click("#gf-start")  # a deal the deck can make is sent
    wait_phase(page, "idle", "over")
    assert current(page).options == {"players": 2, "hand_size": 26}
    assert any("/api/casual/gofish/games" in url for url in requests), requests


def labels_beside_fields(page) -> bool:
    """Each field of the setup on its label's line, at most 40 px after it (it was once
    ~700 px on a desktop), within the screen."""
    for field in ("gf-players", "gf-hand-size"):
        label = page.locator(f"label[for='{field}']").bounding_box()
        box = page.locator(f"#{field}").bounding_box()
        gap = box["x"] - (label["x"] + label["width"])
        assert 0 <= gap <= 40 and abs(box["y"] - label["y"]) < box["height"], (field, label, box)
        assert box["x"] + box["width"] <= page.viewport_size["width"]
    return no_horizontal_scroll(page)


def open_slow_table(new_page, locale, viewport, **kwargs):
    page = new_page(locale=locale, viewport=viewport, **kwargs)
    page.add_init_script(f"window.GOFISH_STEP_MS = {SLOW_STEP};")
    page.goto(page.base + "/gofish/")
    wait_phase(page, "setup")
    return page


@pytest.mark.parametrize("locale", list(DECK_CHECK))
@pytest.mark.parametrize("viewport", [{"width": 390, "height": 844}, {"width": 1280, "height": 800}])
def test_every_state_of_the_table_passes_axe(new_page, viewport, locale):
    """Setup, the setup refusing a deal, playing (a seat chosen), a seat being asked while
    the others play, game over: no serious or critical axe violation and no sideways
    scroll, at both sizes, in every language of the site (German's long words, Japanese's
    script); the setup's labels beside their fields. One game walks through the states."""
    from .test_accessibility import violations

    page = open_slow_table(new_page, locale, viewport)
    size = f"{viewport['width']}x{viewport['height']}"
    found = {}

    def check(name):
        found[name] = violations(page)
        assert no_horizontal_scroll(page), name
        screenshot(page, f"gofish-{name}-{locale}-{size}")

    check("setup")
    page.select_option("#gf-players", "4")
    hand_size = page.input_value("#gf-hand-size")  # the deal the chosen seed is played with
    assert labels_beside_fields(page)
    page.select_option("#gf-players", "6")
    page.fill("#gf-hand-size", "26")
    assert page.get_attribute("#gf-hand-size", "aria-invalid") == "true"
    assert page.inner_text("#gf-deck-check") == DECK_CHECK[locale]
    assert labels_beside_fields(page)  # the message beside the field pushes nothing away
    check("refused")
    page.select_option("#gf-players", "4")
    page.fill("#gf-hand-size", hand_size)
    page.click("#gf-start")
    wait_phase(page, "idle")
    page.click("#gf-others .gf-seat >> nth=1")
    check("playing")
    assert ask_until_playback(page)
    # The seat being asked: one, framed, the target of the last ask on the table.
    page.wait_for_selector("#gf-others .gf-seat.gf-asked")
    asked = page.locator("#gf-seats .gf-asked")
    assert asked.count() == 1
    last = history(page)[-1]
    assert asked.get_attribute("data-seat") == str(last["target"])
    check("asked")
    page.click("#gf-skip")
    wait_phase(page, "idle", "over", timeout=SLOW_STEP // 2)
    assert page.locator("#gf-seats .gf-asked").count() == 0  # nobody is being asked on your turn
    state = finish_on_the_server(current(page))
    page.reload()
    page.wait_for_selector("#gf-end:not([hidden])")
    check_table_against_server(page, state)
    check("over")
    assert found == {name: [] for name in found}, found


def count_flights(page):
    """From now on the page counts the cards put in flight across the table."""
    page.evaluate("""() => { window.__flights = 0;
        new MutationObserver((changes) => { for (const c of changes) for (const n of c.addedNodes)
            if (n.classList && n.classList.contains('flyer')) window.__flights++; })
        .observe(document.body, { childList: true }); }""")


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_cards_fly_between_seats_unless_motion_is_reduced_and_a_key_ends_them(new_page, motion):
    page = open_slow_table(new_page, "en-US", {"width": 1280, "height": 800}, reduced_motion=motion)
    page.select_option("#gf-players", "3")
    page.click("#gf-start")
    wait_phase(page, "idle")
    count_flights(page)
    assert ask_until_playback(page)  # your go fish on the table; next, your draw from the pond
    page.evaluate("window.__flights = 0")  # not the cards given to you before it
    lines = page.locator("#gf-log p").count()
    page.wait_for_function(f"document.querySelectorAll('#gf-log p').length > {lines}", timeout=2 * SLOW_STEP)
    assert "You fish" in page.locator("#gf-log p").last.inner_text()
    flights = page.evaluate("window.__flights")
    assert flights == 0 if motion == "reduce" else flights >= 1, flights
    page.keyboard.press("Escape")  # any key: the rest of their turn at once, no card in the air
    wait_phase(page, "idle", "over", timeout=SLOW_STEP // 2)
    page.wait_for_function("!document.querySelector('.flyer')", timeout=1000)
    check_table_against_server(page, engine_state(current(page)))
