"""Which channel spoke: the fair-play figures (a game's, a week's, a history's) in words a
reviewer reads, built from what the detector stores (games/fairplay: each channel's share of
the figure, ``channels``, and the counts behind it, ``tallies``). The one place those words
are made: the replay inspector, the review queue and ``manage.py fairplay`` all call
``channel_words``. Pure: no database, no Django (staff-facing English: the admin is not
translated)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

# The order a figure's channels are named in when their shares tie (the larger share first).
ORDER = ("asks", "opponent", "player_draws")


def asks_tally(asks: Iterable[Any]) -> dict[str, float]:
    """The player's own asks as the other channels' ``tallies`` count theirs: of ``count``
    asks with a choice (the detector's ``counted``), ``good`` found a card of the opponent,
    where the table expected ``expected`` (the sum of the asked ranks' chances). ``asks``:
    the detector's AskEvidence (``counted``, ``held``, ``public_chance``)."""
    counted = [a for a in asks if a.counted]
    return {
        "count": len(counted),
        "good": sum(1 for a in counted if a.held),
        "expected": round(sum(a.public_chance for a in counted), 2),
    }


def tallies_sum(tallies: Iterable[Mapping[str, Mapping[str, float]] | None]) -> dict[str, dict[str, float]]:
    """Several games' ``tallies`` added up, channel by channel (a week's, a history's)."""
    out: dict[str, dict[str, float]] = {}
    for game in tallies:
        for channel, tally in (game or {}).items():
            total = out.setdefault(channel, {"count": 0, "good": 0, "expected": 0.0})
            for key in ("count", "good", "expected"):
                total[key] += tally.get(key, 0)
    for total in out.values():
        total["expected"] = round(total["expected"], 2)
    return out


def _number(value: float) -> str:
    """4, 4.5, 0.3: one decimal at most, none when it is a whole number."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _times(n: float) -> str:
    return "1 time" if n == 1 else f"{_number(n)} times"


def _phrase(channel: str, tally: Mapping[str, float] | None) -> str:
    """One channel's words, with its counts when the tally is there."""
    if channel == "asks":
        words = "your asks found the opponent's cards more often than the table allowed"
        if tally and tally.get("count"):
            words += f" ({_number(tally['good'])} of {_number(tally['count'])}, expected {_number(tally['expected'])})"
        return words
    if channel == "opponent":
        # Its tally counts the opponent's asks that served the player: those that found none
        # of its cards. A reviewer reads the other side: how often the opponent found one.
        if tally and tally.get("count"):
            count = tally["count"]
            found, expected = count - tally["good"], count - tally["expected"]
            return (
                f"the opponent found your cards {_times(found)} in {_number(count)}"
                f" where the table expected {_number(expected)}"
            )
        return "the opponent found your cards less often than the table allowed"
    if channel == "player_draws":
        words = "your draws paired more often than the table allowed"
        if tally and tally.get("count"):
            words += f" ({_number(tally['good'])} of {_number(tally['count'])}, expected {_number(tally['expected'])})"
        return words
    if channel == "opponent_draws":
        words = "the opponent's draws paired less often than the table allowed"
        if tally and tally.get("count"):
            count = tally["count"]
            words += f" ({_number(count - tally['good'])} of {_number(count)}, expected {_number(count - tally['expected'])})"
        return words
    return f"the channel {channel} weighed against the table"


def channel_words(
    channels: Mapping[str, float | None] | None, tallies: Mapping[str, Mapping[str, float]] | None = None
) -> list[str]:
    """The channels that carry a figure, largest share first, each in words with its share
    in nats, e.g. "the opponent found your cards 1 time in 14 where the table expected 4
    (+2.31)". A channel whose share is 0 or less (or unknown) is not named: it did not speak
    for the figure. ``channels``: each channel's share (nats, the detector's ``channels``);
    ``tallies``: the counts behind each (``tallies``), where stored."""
    spoke = [(name, share) for name, share in (channels or {}).items() if share is not None and share > 0]
    rank = {name: i for i, name in enumerate(ORDER)}
    spoke.sort(key=lambda item: (-item[1], rank.get(item[0], len(ORDER)), item[0]))
    return [f"{_phrase(name, (tallies or {}).get(name))} (+{share:.2f})" for name, share in spoke]


def figure_words(evidence: Mapping[str, Any] | None) -> list[str]:
    """``channel_words`` of a stored figure (a result's ``evidence``, ``week_evidence`` or
    ``history_evidence``): none for one stored before the channels were."""
    evidence = evidence or {}
    return channel_words(evidence.get("channels"), evidence.get("tallies"))
