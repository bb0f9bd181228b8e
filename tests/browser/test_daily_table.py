"""The daily table's behaviour beyond a plain game: motion a key can finish (and that
reduced motion turns off), a stale tab that catches up in words, ranks in each
language's grammar."""

from __future__ import annotations

import pytest

from .conftest import screenshot
from .test_daily import start_as_guest, wait_my_turn_or_end

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def chosen_deal():
    """Today's challenge dealt from a chosen seed: a real day's seed changes with the date,
    and with it when the opponent plays or the game ends; this one is the same every run."""
    from challenges import days, services
    from challenges.models import DailyChallenge

    seed = "browser-daily-table"
    today = services.challenge_for_day(day=days.today())
    DailyChallenge.objects.filter(pk=today.pk).update(seed=seed, commitment=days.commitment(seed))


SLOW = "window.PECHE_STEP_MS = 600000; window.PECHE_POLL_MS = 150;"  # ten minutes between two events
FAST = "window.PECHE_STEP_MS = 5; window.PECHE_POLL_MS = 150;"
# Counts the cards that fly across the table (they are removed once landed).
COUNT_FLYERS = """window.flyers = 0;
new MutationObserver((changes) => { for (const c of changes) for (const n of c.addedNodes)
  if (n.classList && n.classList.contains('flyer')) window.flyers += 1; })
  .observe(document, {childList: true, subtree: true});"""


def ask_until_the_opponent_plays(page):
    """Ask until an ask's playback has more than one event (the opponent's turn follows)."""
    for _ in range(40):
        wait_my_turn_or_end(page)
        before = page.locator("#log p").count()
        page.keyboard.press("Enter")
        page.wait_for_function(f"document.querySelectorAll('#log p').length > {before}")
        if page.evaluate("document.querySelector('#turn').dataset.turn") == "busy":
            return
    raise AssertionError("the opponent never played")


def test_a_key_finishes_the_playback_and_never_asks(new_page):
    from challenges.models import Attempt

    page = new_page()
    page.add_init_script(SLOW)
    start_as_guest(page, "Hasty Hugo")
    ask_until_the_opponent_plays(page)
    asks = len(Attempt.objects.get(player__name="Hasty Hugo").moves)
    page.keyboard.press("Enter")  # ten minutes of playback are left: the key shows them at once
    page.wait_for_function("document.querySelector('#turn').dataset.turn !== 'busy'", timeout=15000)
    assert len(Attempt.objects.get(player__name="Hasty Hugo").moves) == asks, "the key did not ask"


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_cards_travel_unless_motion_is_reduced(new_page, motion):
    page = new_page(reduced_motion=motion)
    page.add_init_script("window.PECHE_STEP_MS = 200; window.PECHE_POLL_MS = 150;")
    page.add_init_script(COUNT_FLYERS)
    start_as_guest(page, f"Mover {motion}")
    for _ in range(3):
        assert not wait_my_turn_or_end(page)  # the chosen deal lasts longer than three asks
        page.keyboard.press("Enter")
        page.wait_for_function("document.querySelector('#turn').dataset.turn !== 'busy'")
    flown = page.evaluate("window.flyers")
    assert flown > 0 if motion == "no-preference" else flown == 0


def test_a_tap_finishes_the_playback_too(new_page):
    page = new_page()
    page.add_init_script(SLOW)
    start_as_guest(page, "Tapping Tess")
    ask_until_the_opponent_plays(page)
    page.mouse.click(5, 5)
    page.wait_for_function("document.querySelector('#turn').dataset.turn !== 'busy'", timeout=15000)


def test_a_stale_tab_catches_up_and_says_so(new_page, browser, live_server):
    page = new_page(locale="fr-FR")
    page.add_init_script(FAST)
    start_as_guest(page, "Deux Onglets")
    other = page.context.new_page()  # the same browser: the same player, the same game
    other.add_init_script(FAST)
    other.goto(page.base + "/daily/")
    other.wait_for_selector("#hand button")
    wait_my_turn_or_end(page)
    page.keyboard.press("Enter")
    page.wait_for_function(
        "document.getElementById('asks').textContent === '1' && document.querySelector('#turn').dataset.turn !== 'busy'"
    )
    page.expected_errors.append("409 (Conflict)")
    other.locator("#hand button").first.click()  # this tab still shows the game before that ask
    other.wait_for_selector("#notice:not([hidden])")
    assert other.text_content("#notice") == (
        "Cette partie a avancé dans un autre onglet : la voici telle qu'elle est maintenant."
    )
    assert other.locator("#error").is_hidden()
    assert other.text_content("#asks") == page.text_content("#asks")
    assert other.locator("#history li").all_text_contents() == page.locator("#history li").all_text_contents()
    screenshot(other, "daily-stale-tab-fr")


RANK_SENTENCES = """async () => {
  const { eventText } = await import('/static/frontend/render.js');
  const ranks = ['A', '2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K'];
  return ranks.map((rank) => [eventText({type: 'ask', seat: 0, rank, given: false}),
                              eventText({type: 'pair', seat: 1, rank})]);
}"""


@pytest.mark.parametrize(
    "locale, expected",
    [
        (
            "en-US",
            {
                "A": ("You ask for an ace: the opponent has none.", "The opponent lays down a pair of aces."),
                "8": ("You ask for an eight: the opponent has none.", "The opponent lays down a pair of eights."),
                "J": ("You ask for a jack: the opponent has none.", "The opponent lays down a pair of jacks."),
            },
        ),
        (
            "fr-FR",
            {
                "A": (
                    "Vous réclamez un as : l'adversaire n'en a pas, allez à la pêche !",
                    "L'adversaire pose une paire d'as dans son seau.",
                ),
                "Q": (
                    "Vous réclamez une dame : l'adversaire n'en a pas, allez à la pêche !",
                    "L'adversaire pose une paire de dames dans son seau.",
                ),
            },
        ),
        (
            "de-DE",
            {
                "J": (
                    "Du verlangst einen Buben: Der Gegner hat keine solche Karte, geh fischen!",
                    "Der Gegner legt ein Paar Buben ab.",
                ),
                "A": (
                    "Du verlangst ein Ass: Der Gegner hat keine solche Karte, geh fischen!",
                    "Der Gegner legt ein Paar Asse ab.",
                ),
            },
        ),
        (
            "ja-JP",
            {
                "K": (
                    "あなたはキングを要求：相手は持っていません。釣りに行きましょう！",
                    "相手がキングのペアを置きました。",
                )
            },
        ),
    ],
)
def test_ranks_are_words_of_the_language(new_page, locale, expected):
    page = new_page(locale=locale)
    page.goto(page.base + "/daily/")
    page.wait_for_selector("#name-input")
    sentences = dict(
        zip(
            ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"],
            map(tuple, page.evaluate(RANK_SENTENCES)),
        )
    )
    for rank, pair in expected.items():
        assert sentences[rank] == pair
    assert not any("%(" in s for pair in sentences.values() for s in pair)
