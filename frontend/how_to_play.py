"""How to play (/rules/): which language's text to show, and the worked example.

The example is the start of a real Pêche game: a chosen deck, dealt and played by the rules
engine itself, so the cards the page draws are the engine's and cannot drift from docs/rules.md.
The prose that tells it (one template per language) is checked against the same game by
tests/test_rules_page.py.
"""

from __future__ import annotations

import datetime as dt
from functools import cache
from typing import Any

from django.conf import settings
from django.template.loader import select_template
from django.utils import translation
from django.utils.timesince import timesince
from django.utils.translation import gettext, pgettext

from games.rules.cards import RANK_OF, UNSHUFFLED
from games.rules.events import event_json
from games.rules.registry import engine

# The top of the deck. You get the even places, the opponent the odd ones (docs/rules.md §2):
# you hold 7♥ 5♠ 3♣ 9♦ A♠, it holds 7♣ 2♦ 10♥ 4♠ 8♣, and the lake starts 3♦ K♠.
DECK_TOP = ("7H", "7C", "5S", "2D", "3C", "10H", "9D", "4S", "AS", "8C", "3D", "KS")
DECK = DECK_TOP + tuple(card for card in UNSHUFFLED if card not in DECK_TOP)
# Your asks: the 7 (given: a pair, ask again), then the 5 (go fish: the 3♦ pairs, the turn
# passes; the opponent asks for a 2, you have none, it fishes; your turn again).
ASKS = ("7", "5")


SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def rank_label(rank: str) -> str:
    """The rank as the cards show it in the page's language (cards.js ``rankLabel``)."""
    labels = {
        "A": pgettext("rank", "A"),
        "J": pgettext("rank", "J"),
        "Q": pgettext("rank", "Q"),
        "K": pgettext("rank", "K"),
    }
    return labels.get(rank, rank)


def _card(card: str) -> dict[str, str]:
    rank, suit = RANK_OF[card], card[-1]
    return {
        "code": card,
        "rank": rank_label(rank),
        "suit": suit,
        "symbol": SUITS[suit],
        "label": rank_label(rank) + SUITS[suit],
    }


def _ask_text(ask: dict[str, Any]) -> str:
    """One line of the table's ask history, as table.js ``historyText`` writes it."""
    who = pgettext("ask history", "You") if ask["seat"] == 0 else gettext("Opponent")
    what = (
        pgettext("ask history", "given")
        if ask["given"]
        else pgettext("ask history", "went fishing")
        if ask["fished"]
        else pgettext("ask history", "none")
    )
    return pgettext("ask history", "%(who)s: %(rank)s — %(what)s") % {
        "who": who,
        "rank": rank_label(ask["rank"]),
        "what": what,
    }


@cache
def game() -> tuple[tuple[dict[str, Any], tuple[dict[str, Any], ...]], ...]:
    """The example as the engine plays it: the player's view after the deal and after each
    of ``ASKS``, with the events (full information) that led there."""
    engine_ = engine("peche")
    state = engine_.new(deck=list(DECK))
    steps: list[tuple[dict[str, Any], tuple[dict[str, Any], ...]]] = [(engine_.view(state, 0), ())]
    for rank in ASKS:
        events = tuple(event_json(event) for event in engine_.apply(state, rank))
        steps.append((engine_.view(state, 0), events))
    return tuple(steps)


def example() -> list[dict[str, Any]]:
    """The table at each step as the player sees it, with the words of the page's language."""
    scenes = []
    for view, events in game():
        pairs = [
            [{"rank": rank, "label": rank_label(rank)} for rank in view[side]]
            for side in ("player_pairs", "opponent_pairs")
        ]
        scenes.append(
            {
                "hand": [_card(card) for card in view["hand"]],
                "player_pairs": pairs[0],
                "opponent_pairs": pairs[1],
                "opponent_backs": range(view["opponent_hand_size"]),
                "opponent_hand_size": view["opponent_hand_size"],
                # The daily table's pile: one back for every four cards of the lake (render.js).
                "lake_backs": range(-(-view["lake_size"] // 4)),
                "lake_size": view["lake_size"],
                "asks": view["asks"],
                "history": [{**ask, "text": _ask_text(ask)} for ask in view["history"]],
                "turn": view["turn"],
                "events": events,
            }
        )
    return scenes


def body_template() -> Any:
    """The page's text in the active language (English when a language has none)."""
    language = (translation.get_language() or settings.LANGUAGE_CODE).split("-")[0]
    return select_template([f"frontend/rules/rules.{language}.html", "frontend/rules/rules.en.html"]).template


def context() -> dict[str, Any]:
    now = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)
    return {
        "body": body_template(),
        "example": example(),
        "timezone": settings.CHALLENGE_TIMEZONE,
        # "5 minutes", in the page's language (Django's own catalogue).
        "grace": timesince(now, now + settings.DAILY_CLOSE_GRACE),
        # Who the public leaderboard lists (leaderboard.services.provisional_of).
        "established_days": settings.ESTABLISHED_DAYS,
        "established_window": settings.ESTABLISHED_WINDOW,
    }
