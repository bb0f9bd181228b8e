"""Kitten fishing in Chromium: every bullet of the seeds as a behaviour check.

Most tests set window.KITTEN_TIMING to zero durations; the animation test keeps the real
ones (the page's data attributes)."""

from __future__ import annotations

import json
import re

import pytest

from casual.models import CasualGame
from games.rules.kitten import ENGINE

from .conftest import no_horizontal_scroll, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FAST = {"deal": 0, "flip": 0, "highlight": 0, "slide": 0, "opponent": 0, "auto": 0}
CAPTURE_SEED = "kt14"  # first="player": the player's second flip (move 3) fishes
SHORT_SEED = "kt4809"  # first="player": the player's pile runs out after 51 moves
SEEDS = {  # the seeds' wording (shared/seeds/000 fr, 003 de, 002 ja), word for word (French: vous)
    "fr-FR": {
        "opponent_first": "Dans cette partie, l’adversaire retourne en premier",
        "hint": "Touchez votre pile pour retourner",
        "wait": "Attendez l’adversaire",
        "limit": "Limite de coups : le plus de cartes l’emporte",
        "fished": r"Pêché ! Vous prenez \d+ cartes",
        "see": "Voir le résultat",
        "title": "La pêche du chaton",
    },
    "de-DE": {
        "opponent_first": "In diesem Spiel deckt der Gegner zuerst auf",
        "hint": "Tippe auf deinen Stapel",
        "wait": "Warte auf den Gegner",
        "limit": "Zuglimit erreicht – Kartenzahl entscheidet",
        "fished": r"Geangelt! Du nimmst \d+ Karten",
        "see": "Zum Ergebnis",
        "title": "Kätzchen-Angeln",
    },
    "ja-JP": {
        "opponent_first": "この対局は相手が先にめくります",
        "hint": "山札をタップしてめくろう",
        "wait": "相手を待っています",
        "limit": "手数の上限に達したため枚数で判定",
        "fished": r"釣れた！あなたが \d+ 枚獲得",
        "see": "結果を見る",
        "title": "子猫の魚釣り",
    },
}


WAIT = {"en-US": "Wait for the opponent"} | {locale: words["wait"] for locale, words in SEEDS.items()}


def open_kitten(new_page, locale="en-US", timing=FAST, viewport=None):
    page = new_page(locale=locale, viewport=viewport)
    if timing is not None:
        page.add_init_script(f"window.KITTEN_TIMING = {json.dumps(timing)};")
    page.goto(page.base + "/kitten/")
    return page


def wait_phase(page, *phases, timeout=10_000):
    selector = ", ".join(f'#kitten[data-phase="{p}"][data-animating="false"]' for p in phases)
    page.wait_for_selector(selector, timeout=timeout)


def current(page) -> CasualGame:
    return CasualGame.objects.get(pk=int(page.get_attribute("#kitten", "data-game-id")))


def shown(page) -> dict:
    return page.evaluate("""() => ({
        piles: [+document.querySelector('#kt-count-0').textContent, +document.querySelector('#kt-count-1').textContent],
        table: [...document.querySelectorAll('#kt-table .kt-card')].map(c => c.dataset.card),
        moves: +document.querySelector('#kt-moves').textContent,
        turn: document.querySelector('#kt-turn').dataset.turn })""")


def server_view(game: CasualGame) -> dict:
    state = ENGINE.replay({"seed": game.seed, **game.options}, len(game.moves), partial=True)
    return ENGINE.view(state, 0)


def restart_with(page, seed: str, **options):
    """Give the page's current (unplayed) game a chosen deal, then reload: it resumes."""
    game = current(page)
    assert game.moves == []
    game.seed, game.options = seed, {"first": "player", **options}
    game.save()
    page.reload()
    wait_phase(page, "idle")


def test_flip_by_tap_space_enter_and_button_with_the_first_game_hint(new_page):
    page = open_kitten(new_page)
    wait_phase(page, "idle")
    assert page.is_visible("#kt-hint") and page.inner_text("#kt-hint") == "Tap your pile to flip"
    assert page.inner_text("#kt-first") == "In this game, you flip first"
    assert shown(page) == {"piles": [26, 26], "table": [], "moves": 0, "turn": "player"}
    page.click("#kt-pile-0")  # tap the pile
    wait_phase(page, "idle", "over")
    assert len(current(page).moves) == 1
    assert not page.is_visible("#kt-hint")
    page.keyboard.press("Space")
    wait_phase(page, "idle", "over")
    page.locator("#kt-pile-0").focus()
    page.keyboard.press("Enter")
    wait_phase(page, "idle", "over")
    page.click("#kt-flip")
    wait_phase(page, "idle", "over")
    game = current(page)
    assert game.moves == ["flip"] * 4
    view = server_view(game)
    # Always visible: both piles, whose turn, every table card, moves played.
    assert shown(page) == {"piles": view["piles"], "table": view["table"], "moves": view["moves"], "turn": "player"}
    assert page.inner_text("#kt-turn") == "Your turn"
    assert page.get_attribute("#kt-status", "aria-live") == "polite"
    assert page.inner_text("#kt-tally").split() == ["Won", "0", "Lost", "0", "Drawn", "0"]
    screenshot(page, "kitten-desktop")


def test_kitten_waits_then_flips_and_a_tap_meanwhile_only_says_wait(new_page):
    page = open_kitten(new_page, "fr-FR", {**FAST, "opponent": 1500})
    wait_phase(page, "idle")
    page.click("#kt-pile-0")
    page.wait_for_selector('#kitten[data-phase="opponent"]')
    assert page.get_attribute("#kt-turn", "data-turn") == "opponent"
    assert page.inner_text("#kt-turn") == "Au tour de Chaton"
    page.click("#kt-pile-0")
    page.keyboard.press("Space")
    page.click("#kt-flip")
    assert page.inner_text("#kt-status") == SEEDS["fr-FR"]["wait"]
    screenshot(page, "kitten-waiting-fr")
    wait_phase(page, "idle", "over")
    assert current(page).moves == ["flip"]  # the taps changed nothing
    assert shown(page)["moves"] == 2 and page.inner_text("#kt-turn") == "À vous"


def test_a_key_or_tap_during_deal_or_capture_animation_only_finishes_it(new_page):
    page = open_kitten(new_page, "fr-FR", timing=None)  # real durations
    page.wait_for_selector('#kitten[data-phase="dealing"]')
    assert page.is_visible("#kt-skip") and page.inner_text("#kt-skip") == "Passer"
    page.keyboard.press("Space")  # during the deal: finishes it, flips nothing
    wait_phase(page, "idle", timeout=1000)
    assert shown(page)["piles"] == [26, 26] and not page.is_visible("#kt-skip")
    assert current(page).moves == []

    restart_with(page, CAPTURE_SEED)
    page.click("#kt-pile-0")
    wait_phase(page, "idle")
    before = shown(page)
    page.keyboard.press("Enter")  # move 3: the player fishes
    page.wait_for_selector("#kt-table .kt-match", timeout=3000)
    assert page.locator("#kt-table .kt-match").count() == 2  # the two matching cards
    assert re.fullmatch(SEEDS["fr-FR"]["fished"], page.inner_text("#kt-status"))
    screenshot(page, "kitten-capture-fr")
    page.keyboard.press("Space")  # during the capture: only finishes it
    page.wait_for_selector('#kitten[data-animating="false"]', timeout=300)
    assert page.locator("#kt-table .kt-match").count() == 0
    assert shown(page)["piles"][0] > before["piles"][0]
    page.wait_for_selector('#kitten[data-phase="opponent"]', timeout=300)  # Kitten thinks next
    wait_phase(page, "idle", timeout=5000)
    assert current(page).moves == ["flip", "flip"]  # no extra flip from the key
    assert shown(page) == {
        **{k: v for k, v in server_view(current(page)).items() if k in ("piles", "table", "moves")},
        "turn": "player",
    }


def test_a_tap_finishes_the_deal_and_skip_skips_it(new_page):
    page = open_kitten(new_page, timing={**FAST, "deal": 4000})
    page.wait_for_selector('#kitten[data-phase="dealing"]')
    page.click("#kt-pile-0")  # a tap during the deal: no flip
    wait_phase(page, "idle", timeout=1000)
    assert shown(page)["piles"] == [26, 26] and current(page).moves == []
    page.click("#kt-new")
    page.click("#kt-confirm-ok")
    page.wait_for_selector('#kitten[data-phase="dealing"]')
    page.click("#kt-skip")
    wait_phase(page, "idle", timeout=1000)
    assert shown(page)["moves"] == 1 and current(page).moves == []  # Kitten opened this one


@pytest.mark.parametrize("locale", ["fr-FR", "de-DE", "ja-JP"])
def test_first_player_alternates_with_its_message(new_page, locale):
    texts = SEEDS[locale]
    page = open_kitten(new_page, locale)
    wait_phase(page, "idle")
    assert page.inner_text("#kt-title") == texts["title"]
    assert page.inner_text("#kt-hint") == texts["hint"]
    assert page.inner_text("#kt-first") != texts["opponent_first"]
    assert page.inner_text("#kt-result") == texts["see"]
    first_id = current(page).pk
    page.click("#kt-new")  # mid-game: asks first
    page.wait_for_selector("#kt-confirm[open]")
    page.click("#kt-confirm-cancel")
    assert current(page).pk == first_id
    page.click("#kt-new")
    page.click("#kt-confirm-ok")
    page.wait_for_function(f"document.querySelector('#kitten').dataset.gameId !== '{first_id}'")
    wait_phase(page, "idle", "over")
    game = current(page)
    assert game.options["first"] == "opponent"
    assert page.inner_text("#kt-first") == texts["opponent_first"]
    assert not page.is_visible("#kt-hint")  # only the first game shows the hint
    assert shown(page)["moves"] == 1 and len(shown(page)["table"]) == 1  # Kitten's opening flip
    screenshot(page, f"kitten-opponent-first-{locale[:2]}")
    page.click("#kt-new")
    page.click("#kt-confirm-ok")
    page.wait_for_function(f"document.querySelector('#kitten').dataset.gameId !== '{game.pk}'")
    wait_phase(page, "idle")
    assert current(page).options["first"] == "player"
    assert page.inner_text("#kt-first") != texts["opponent_first"]


def test_reload_rotation_and_resize_resume_exactly(new_page):
    page = open_kitten(new_page, viewport={"width": 390, "height": 844})
    wait_phase(page, "idle")
    for _ in range(5):
        page.keyboard.press("Space")
        wait_phase(page, "idle", "over")
    before = shown(page)
    game_id = current(page).pk
    page.set_viewport_size({"width": 844, "height": 390})  # rotation: no reload, same game
    assert shown(page) == before and no_horizontal_scroll(page)
    page.reload()
    wait_phase(page, "idle", "over")
    assert shown(page) == before and current(page).pk == game_id
    assert not page.is_visible("#kt-hint") and page.locator("#kt-end").is_hidden()
    page.keyboard.press("Space")
    wait_phase(page, "idle", "over")
    assert len(current(page).moves) == 6


def test_auto_by_hand_and_see_result_give_the_same_true_result(new_page):
    page = open_kitten(new_page)
    wait_phase(page, "idle")
    restart_with(page, SHORT_SEED)
    page.click("#kt-auto")  # Auto flips the player's cards too
    assert page.get_attribute("#kt-auto", "aria-pressed") == "true"
    page.wait_for_function("+document.querySelector('#kt-moves').textContent >= 9")
    page.click("#kt-auto")  # switchable any time
    wait_phase(page, "idle")
    paused = len(current(page).moves)
    page.wait_for_timeout(200)
    assert len(current(page).moves) == paused
    page.click("#kt-auto")
    wait_phase(page, "over", timeout=20_000)
    by_hand = current(page)
    assert by_hand.status == "over"
    hand_outcome = server_view(by_hand)["outcome"]
    assert (
        hand_outcome == ENGINE.outcome(ENGINE.replay({"seed": SHORT_SEED, "first": "player"}, by_hand.moves)).as_dict()
    )
    assert page.inner_text("#kt-end-title") == "You lose"
    assert page.inner_text("#kt-end-reason") == "Your pile ran out"
    assert page.inner_text("#kt-end-player") == "0" and page.inner_text("#kt-end-opponent") == "51"
    assert page.inner_text("#kt-end-moves") == "51"
    assert "kt-low" in page.get_attribute("#kt-count-0", "class")  # a small pile stands out
    assert page.inner_text("#kt-tally").split() == ["Won", "0", "Lost", "1", "Drawn", "0"]
    screenshot(page, "kitten-end-desktop")
    page.click("#kt-auto")

    page.click("#kt-replay")  # Replay: the next game at once (Kitten first)
    page.wait_for_function(f"document.querySelector('#kitten').dataset.gameId !== '{by_hand.pk}'")
    wait_phase(page, "idle")
    game = current(page)
    game.seed, game.options, game.moves = SHORT_SEED, {"first": "player"}, []
    game.save()
    page.reload()
    wait_phase(page, "idle")
    page.click("#kt-pile-0")
    wait_phase(page, "idle")
    page.click("#kt-result")
    page.wait_for_selector("#kt-confirm[open]")
    page.click("#kt-confirm-ok")
    wait_phase(page, "over")
    at_once = current(page)
    assert at_once.moves == by_hand.moves and at_once.result == by_hand.result == "loss"
    assert server_view(at_once)["outcome"] == hand_outcome
    assert page.inner_text("#kt-end-moves") == "51" and page.inner_text("#kt-end-player") == "0"
    assert page.inner_text("#kt-tally").split() == ["Won", "0", "Lost", "2", "Drawn", "0"]


def test_move_limit_result_panel_in_french(new_page):
    page = open_kitten(new_page, "fr-FR")
    wait_phase(page, "idle")
    restart_with(page, "limit-deal", limit=40)
    page.click("#kt-result")
    page.click("#kt-confirm-ok")
    wait_phase(page, "over")
    outcome = ENGINE.conformance({"seed": "limit-deal", "first": "player", "limit": 40})
    assert outcome["reason"] == "limit"
    assert page.inner_text("#kt-end-reason") == SEEDS["fr-FR"]["limit"]
    assert (
        page.inner_text("#kt-end-title")
        == {"player": "Victoire !", "opponent": "Défaite", "draw": "Égalité"}[outcome["winner"]]
    )
    assert page.inner_text("#kt-end-moves") == "40"
    assert page.inner_text("#kt-end-player") == str(outcome["player_cards"])
    assert page.inner_text("#kt-end-opponent") == str(outcome["opponent_cards"])
    assert page.inner_text("#kt-replay") == "Rejouer"
    page.click("#kt-new")  # over: no confirmation needed
    page.wait_for_function("document.querySelector('#kitten').dataset.phase === 'idle'")
    assert not page.is_visible("#kt-confirm")


@pytest.mark.parametrize(
    "locale,viewport,name",
    [
        ("ja-JP", {"width": 390, "height": 844}, "portrait-ja"),
        ("de-DE", {"width": 844, "height": 390}, "landscape-de"),
    ],
)
def test_phone_portrait_and_landscape_fit_without_horizontal_scroll(new_page, locale, viewport, name):
    page = open_kitten(new_page, locale, viewport=viewport)
    wait_phase(page, "idle")
    page.click("#kt-auto")
    page.wait_for_function("document.querySelectorAll('#kt-table .kt-card').length >= 4", timeout=15_000)
    page.click("#kt-auto")
    wait_phase(page, "idle", "over")
    assert no_horizontal_scroll(page)
    # See result says so in words on every screen (an icon alone was not understood on
    # phones); in phone portrait its icon stands beside the words.
    assert page.is_visible("#kt-result .kt-label") and page.inner_text("#kt-result") == SEEDS[locale]["see"]
    assert page.is_visible("#kt-result .kt-icon") == (name == "portrait-ja")
    for selector in ("#kt-pile-0", "#kt-flip", "#kt-count-0", "#kt-count-1", "#kt-moves", "#kt-table"):
        box = page.locator(selector).bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], selector
    screenshot(page, f"kitten-{name}")


LONG_ROW_SEED = "kt1140"  # first="player": the table holds 12 cards after move 12
SLOW_FLIP = {**FAST, "flip": 4000}  # every flip animates for 4 s: long enough to click into


def wait_animating(page):
    page.wait_for_selector('#kitten[data-animating="true"]', timeout=5000)


def test_every_control_acts_on_the_first_click_or_key_during_an_animation(new_page):
    page = open_kitten(new_page, timing=SLOW_FLIP)
    wait_phase(page, "idle")
    page.click("#kt-pile-0")  # a tap on the table starts a flip
    wait_animating(page)
    page.click("#kt-auto")  # Auto on: at once, and the flip finishes
    assert page.get_attribute("#kt-auto", "aria-pressed") == "true"
    # The 4 s flip was finished: Kitten's flip (move 2) is already on the table.
    page.wait_for_function("+document.querySelector('#kt-moves').textContent >= 2", timeout=1500)
    wait_animating(page)  # Auto keeps flipping…
    page.click("#kt-auto")  # …and one click turns it off, mid-animation
    assert page.get_attribute("#kt-auto", "aria-pressed") == "false"
    wait_phase(page, "idle")
    stopped = len(current(page).moves)
    page.wait_for_timeout(300)  # a flip Auto would have made is due by now
    assert len(current(page).moves) == stopped

    page.locator("#kt-auto").focus()  # the same with the keyboard
    page.click("#kt-pile-0")
    wait_animating(page)
    page.locator("#kt-auto").focus()
    page.keyboard.press("Enter")
    assert page.get_attribute("#kt-auto", "aria-pressed") == "true"
    page.keyboard.press("Enter")
    assert page.get_attribute("#kt-auto", "aria-pressed") == "false"
    wait_phase(page, "idle")

    for control in ("#kt-result", "#kt-new"):  # both ask first, at once
        page.click("#kt-pile-0")
        wait_animating(page)
        page.click(control)
        assert page.locator("#kt-confirm[open]").count() == 1, control
        page.click("#kt-confirm-cancel")
        wait_phase(page, "idle")
    page.click("#kt-pile-0")
    wait_animating(page)
    page.click("#kt-result")
    page.click("#kt-confirm-ok")  # See result goes all the way
    wait_phase(page, "over")
    assert current(page).status == "over"


def test_the_pace_is_remembered_and_instant_plays_without_animation(new_page):
    page = open_kitten(new_page, timing=SLOW_FLIP)
    wait_phase(page, "idle")
    assert page.input_value("#kt-pace") == "normal"
    page.select_option("#kt-pace", "instant")
    page.reload()
    wait_phase(page, "idle")
    assert page.input_value("#kt-pace") == "instant"
    page.click("#kt-pile-0")  # 4 s at normal pace, none at instant
    wait_phase(page, "idle", timeout=2000)
    assert len(current(page).moves) == 1


# The end in each language: the title and the status line say the same words as the end
# panel's reason, and the turn label names a game as the page's New game button does.
VOICE = {
    "fr-FR": {
        "title": "Défaite",
        "status": "Défaite — votre pile est épuisée",
        "reason": "Votre pile est épuisée",
        "turn": "Partie terminée",
        "game": "partie",
    },
    "de-DE": {
        "title": "Niederlage",
        "status": "Niederlage: Dein Stapel ist leer",
        "reason": "Dein Stapel ist leer",
        "turn": "Spiel vorbei",
        "game": "Spiel",
    },
    "ja-JP": {
        "title": "あなたの負け",
        "status": "あなたの負け：あなたの山札がなくなりました",
        "reason": "あなたの山札がなくなりました",
        "turn": "対局終了",
        "game": "対局",
    },
}


@pytest.mark.parametrize("locale", list(VOICE))
def test_the_end_speaks_with_the_pages_own_voice_and_survives_a_reload(new_page, locale):
    words = VOICE[locale]
    page = open_kitten(new_page, locale)
    wait_phase(page, "idle")
    restart_with(page, SHORT_SEED)
    page.click("#kt-flip")
    wait_phase(page, "idle")
    during = page.inner_text("#kt-status")
    assert during  # the last flip, in words
    page.reload()
    wait_phase(page, "idle")
    assert page.inner_text("#kt-status") == during  # resumed as it was
    page.click("#kt-result")
    page.click("#kt-confirm-ok")
    wait_phase(page, "over")
    assert page.inner_text("#kt-end-title") == words["title"]
    assert page.inner_text("#kt-end-reason") == words["reason"]
    assert page.inner_text("#kt-status") == words["status"]
    assert page.inner_text("#kt-turn") == words["turn"]
    game_word = words["game"].casefold()
    assert game_word in page.inner_text("#kt-new").casefold() and game_word in words["turn"].casefold()
    assert words["status"].startswith(words["title"]) and words["status"].endswith(words["reason"][1:])
    page.reload()
    wait_phase(page, "over")
    assert page.inner_text("#kt-status") == words["status"]
    assert page.inner_text("#kt-end-title") == words["title"]


@pytest.mark.parametrize(
    "viewport", [{"width": 390, "height": 844}, {"width": 844, "height": 390}, {"width": 1280, "height": 800}]
)
def test_the_controls_stay_still_over_a_game_and_card_labels_never_wrap(new_page, viewport):
    page = open_kitten(new_page, "de-DE", viewport=viewport)
    wait_phase(page, "idle")
    place = """s => { const r = document.querySelector(s).getBoundingClientRect();
                      return [Math.round(r.left + scrollX), Math.round(r.top + scrollY)]; }"""
    controls = ("#kt-flip", "#kt-pile-0", "#kt-auto", "#kt-new", "#kt-pace")
    start = {c: page.evaluate(place, c) for c in controls}
    restart_with(page, LONG_ROW_SEED)  # the hint was there; now it is not
    widest = 0
    for _ in range(7):  # up to 12 cards on the table
        page.click("#kt-flip")
        wait_phase(page, "idle")
        assert {c: page.evaluate(place, c) for c in controls} == start
        # One line per card: the label's height is one line box.
        lines = page.evaluate("""() => [...document.querySelectorAll('#kt-table .kt-card')].map(c => {
            const range = document.createRange(); range.selectNodeContents(c);
            return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size; })""")
        assert set(lines) <= {1}, lines
        widest = max(widest, len(lines))
    assert widest >= 9
    assert no_horizontal_scroll(page)


SHORT_GAME_SEED = "kt2121"  # first="player": over after 29 flips, the table reaching 10 cards


@pytest.mark.parametrize(
    "viewport", [{"width": 390, "height": 844}, {"width": 844, "height": 390}, {"width": 1280, "height": 800}]
)
def test_a_whole_game_on_auto_moves_no_control_and_wraps_no_card(new_page, viewport):
    """A full game at each viewport. The page itself records, on
    every change of the table and every animation frame until the game is over, where each
    control is and how many lines each card label takes."""
    page = open_kitten(new_page, "fr-FR", timing={**FAST, "flip": 60, "slide": 60}, viewport=viewport)
    wait_phase(page, "idle")
    restart_with(page, SHORT_GAME_SEED)
    page.evaluate("""() => {
        const controls = ["#kt-flip", "#kt-pile-0", "#kt-auto", "#kt-new", "#kt-pace"];
        const root = document.getElementById("kitten");
        const seen = window.__still = { places: new Set(), wrapped: 0, widest: 0, samples: 0 };
        const sample = () => {
            if (root.dataset.phase === "over") return;
            seen.samples++;
            seen.places.add(controls.map(s => { const r = document.querySelector(s).getBoundingClientRect();
                                                return [Math.round(r.left + scrollX), Math.round(r.top + scrollY)]; }).join(" "));
            const cards = [...document.querySelectorAll("#kt-table .kt-card")];
            seen.widest = Math.max(seen.widest, cards.length);
            for (const c of cards) {
                const range = document.createRange(); range.selectNodeContents(c);
                if (new Set([...range.getClientRects()].map(r => Math.round(r.top))).size > 1) seen.wrapped++;
            }
        };
        new MutationObserver(sample).observe(root, { subtree: true, childList: true, attributes: true });
        const frame = () => { sample(); if (root.dataset.phase !== "over") requestAnimationFrame(frame); };
        requestAnimationFrame(frame);
    }""")
    page.click("#kt-auto")
    wait_phase(page, "over", timeout=60_000)
    seen = page.evaluate("() => ({ ...window.__still, places: [...window.__still.places] })")
    assert current(page).status != "playing" and len(current(page).moves) >= 29
    assert seen["samples"] > 29 and seen["widest"] >= 10
    assert len(seen["places"]) == 1, seen["places"]  # one layout of the controls, all game long
    assert seen["wrapped"] == 0
    assert no_horizontal_scroll(page)


# --- the first click, Replay, See result's words, the pace "instant", axe

DEALING_SLOWLY = {**FAST, "deal": 4000}  # the deal lasts long enough to click into


def server_moves(page) -> int:
    """The number of moves the server stored for the page's game (the player's flips),
    asked of the API: its ``move``, the count a next move sends back."""
    return page.evaluate("""async () => {
        const id = document.querySelector('#kitten').dataset.gameId;
        return (await (await fetch(`/api/casual/kitten/games/${id}`)).json()).move; }""")


def test_the_first_click_on_flip_is_a_flip_during_the_deal_and_kittens_flip(new_page):
    page = open_kitten(new_page, "fr-FR", timing=DEALING_SLOWLY)
    page.wait_for_selector('#kitten[data-phase="dealing"]')
    assert server_moves(page) == 0
    page.click("#kt-flip")  # one click, mid-deal: the deal jumps to its end and the flip is made
    page.wait_for_selector('#kitten[data-server-moves="1"]', timeout=3000)
    wait_phase(page, "idle")
    assert server_moves(page) == 1 and current(page).moves == ["flip"]
    assert shown(page)["moves"] == 2 and shown(page)["piles"][0] < 26  # the player's flip, then Kitten's

    page.click("#kt-new")  # the next game is Kitten's to open: the click waits for the player's turn
    page.click("#kt-confirm-ok")
    page.wait_for_selector('#kitten[data-phase="dealing"]')
    assert current(page).options["first"] == "opponent"
    page.click("#kt-flip")
    page.wait_for_selector('#kitten[data-server-moves="1"]', timeout=3000)
    wait_phase(page, "idle")
    assert server_moves(page) == 1 and shown(page)["moves"] == 3  # Kitten, the player, Kitten

    # During Kitten's flip (4 s here) a click on Flip is the player's next flip.
    page.add_init_script(f"window.KITTEN_TIMING = {json.dumps(SLOW_FLIP)};")  # runs after the first one
    page.reload()
    wait_phase(page, "idle")
    page.click("#kt-pile-0")
    page.wait_for_selector('#kitten[data-phase="opponent"][data-animating="true"]', timeout=8000)
    page.click("#kt-flip")
    page.wait_for_selector('#kitten[data-server-moves="3"]', timeout=3000)
    assert server_moves(page) == 3


# It deals a new game at once: "New game" in English (not "Replay", which would promise the
# same deal again), the seeds' words in theirs.
@pytest.mark.parametrize(
    ("locale", "word"), [("en-US", "New game"), ("fr-FR", "Rejouer"), ("de-DE", "Neue Runde"), ("ja-JP", "もう一局")]
)
def test_replay_keeps_the_seeds_word_and_starts_again_at_once(new_page, locale, word):
    page = open_kitten(new_page, locale)
    wait_phase(page, "idle")
    page.click("#kt-result")
    page.click("#kt-confirm-ok")
    wait_phase(page, "over")
    assert page.inner_text("#kt-replay") == word
    over = current(page)
    # Right after the click, before the server answered: no question, the end panel gone,
    # Flip enabled and focused for the keyboard.
    after = page.evaluate("""() => {
        document.querySelector('#kt-replay').click();
        const a = document.activeElement;
        return { end: document.querySelector('#kt-end').hidden, focus: a.id, disabled: a.disabled,
                 dialog: document.querySelector('#kt-confirm').open }; }""")
    assert after == {"end": True, "focus": "kt-flip", "disabled": False, "dialog": False}
    page.keyboard.press("Enter")  # the first key in the new game flips
    page.wait_for_selector('#kitten[data-server-moves="1"]', timeout=3000)
    assert current(page).pk != over.pk and server_moves(page) == 1


@pytest.mark.parametrize("locale", ["fr-FR", "ja-JP"])
def test_see_result_has_visible_words_on_a_phone(new_page, locale):
    page = open_kitten(new_page, locale, viewport={"width": 390, "height": 844})
    wait_phase(page, "idle")
    label = page.locator("#kt-result .kt-label")
    assert label.is_visible() and label.inner_text() == SEEDS[locale]["see"]
    box, button = label.bounding_box(), page.locator("#kt-result").bounding_box()
    assert box["width"] > 20 and box["x"] >= button["x"] and box["x"] + box["width"] <= button["x"] + button["width"]
    assert button["x"] >= 0 and button["x"] + button["width"] <= 390 and no_horizontal_scroll(page)


LONG_GAME_SEED = "kt0"  # first="player": 515 flips


def test_auto_at_the_pace_instant_plays_a_whole_game_in_one_request_without_animation(new_page):
    """500 flips one request each took minutes even at the fastest pace; at "instant" Auto
    asks the server for the rest at once (POST …/finish) and animates nothing on the way:
    the page's own durations (not KITTEN_TIMING), every Web Animation it starts counted."""
    page = new_page(viewport={"width": 390, "height": 844})
    page.add_init_script("""
        window.__motion = { ms: 0, count: 0 };
        const animate = Element.prototype.animate;
        Element.prototype.animate = function (frames, options) {
            const o = typeof options === "number" ? { duration: options } : options || {};
            window.__motion.ms += (o.duration || 0) + (o.delay || 0);
            window.__motion.count += 1;
            return animate.call(this, frames, options);
        };""")
    calls = []
    page.on("request", lambda r: r.method == "POST" and calls.append(r.url.rsplit("/", 1)[-1]))
    page.goto(page.base + "/kitten/")
    wait_phase(page, "idle")
    restart_with(page, LONG_GAME_SEED)
    page.select_option("#kt-pace", "instant")
    page.evaluate("window.__motion = { ms: 0, count: 0 }")
    calls.clear()
    page.click("#kt-auto")
    wait_phase(page, "over", timeout=15_000)
    game = current(page)
    assert game.status == "over" and page.inner_text("#kt-end-moves") == "515"
    assert (
        server_view(game)["outcome"]
        == ENGINE.outcome(ENGINE.replay({"seed": LONG_GAME_SEED, "first": "player"}, game.moves)).as_dict()
    )
    assert calls == ["finish"]  # one request for the 515 flips (not 258 of …/moves)
    motion = page.evaluate("window.__motion")
    assert motion["ms"] <= 5000, motion  # at most 5 s of animation for the whole game
    assert page.get_attribute("#kt-auto", "aria-pressed") == "true"


@pytest.mark.parametrize("locale", ["en-US", "fr-FR", "de-DE", "ja-JP"])
@pytest.mark.parametrize("viewport", [{"width": 390, "height": 844}, {"width": 1280, "height": 800}])
def test_no_serious_axe_violation_in_any_state(new_page, locale, viewport):
    """The deal, the first-game hint, Kitten's turn with its "wait", a capture shown, a
    game under way with a low pile, the dialog, the end (Auto on), and Replay's new game:
    no serious or critical axe violation and no sideways scroll, at both sizes, in every
    language of the site. One game walks through the states."""
    from .test_accessibility import violations

    size = f"{locale[:2]}-{viewport['width']}"
    # Slow where a state must last while axe looks at it (the deal, Kitten's thinking, a
    # capture shown); the pace "instant" once they are seen.
    timing = {**FAST, "deal": 60_000, "opponent": 2000, "highlight": 2500}
    page = open_kitten(new_page, locale, timing=timing, viewport=viewport)
    found = {}

    def check(state, shot=False):
        found[state] = violations(page)
        assert no_horizontal_scroll(page), state
        if shot:
            screenshot(page, f"kitten-29-{state}-{size}")

    page.wait_for_selector('#kitten[data-phase="dealing"]')
    check("dealing")
    page.click("#kt-skip")
    wait_phase(page, "idle")
    assert page.is_visible("#kt-hint")
    check("start", shot=True)
    restart_with(page, CAPTURE_SEED)
    page.click("#kt-flip")
    page.wait_for_selector('#kitten[data-phase="opponent"]')
    page.click("#kt-pile-0")
    assert page.inner_text("#kt-status") == WAIT[locale]
    check("waiting")
    wait_phase(page, "idle")
    page.click("#kt-flip")  # move 3 fishes
    page.wait_for_selector("#kt-table .kt-match")
    check("capture", shot=True)
    page.select_option("#kt-pace", "instant")  # Kitten's next thought takes no time
    page.keyboard.press("Escape")  # and the capture shown ends
    wait_phase(page, "idle")
    game = current(page)
    game.seed, game.options, game.moves = SHORT_SEED, {"first": "player"}, ["flip"] * 23
    game.save()
    page.reload()
    wait_phase(page, "idle")
    page.wait_for_selector("#kt-count-0.kt-low")
    check("mid-game", shot=True)
    page.click("#kt-result")
    page.wait_for_selector("#kt-confirm[open]")
    check("dialog")
    page.click("#kt-confirm-cancel")
    page.click("#kt-auto")  # at the pace instant, Auto plays the rest at once
    wait_phase(page, "over")
    assert page.get_attribute("#kt-auto", "aria-pressed") == "true"
    check("end", shot=True)
    page.click("#kt-auto")  # off again: the next game waits for a flip
    page.click("#kt-replay")
    page.wait_for_function(f"document.querySelector('#kitten').dataset.gameId !== '{game.pk}'")
    wait_phase(page, "idle")
    check("replay")
    assert not any(found.values()), found
