"""Linked accounts: throwaway players who map the day's deal for a main account that then
plays it knowing the cards (docs/fairplay.md, "Linked accounts" and "Linked accounts across
networks").

**Ties** put accounts in one group on a day, by equal keyed hashes (challenges/origins.py):
- ``address``: their ranked games of the day started from one address;
- ``network``: from one network (the address's /24, or /64 for IPv6);
- ``device``: one device cookie, seen at a ranked game's start or at a sign-up;
- ``burst``: they were created in one burst of sign-ups from one network.
An address or network shared by more than CROWD players of the day (a campus, a carrier's
shared address) ties nobody: there, sharing it says nothing.

A tie alone flags nobody (a family shares an address, and signs up together). What flags is
the **move line**: a game that, on the day, (1) wins (score above 1000) and scores at least
as well as every earlier game of the accounts tied to it, (2) after those accounts explored
the deal (at least EXPLORED_MIN_LINES different lines played before it finished), (3) and
replays or extends one of those lines: the asks they share from the start hold at least
COPY_MIN_CHOICES asks at which the hand held more than one rank (a forced ask is no
choice: everybody makes it). Honest players rarely do that by chance (docs/fairplay.md
gives the measured rates). The late game's result is then held with reason
``linked_accounts`` (services.holds), before it is ever public.

It is judged when the late game is verified (services.results_record): every game it could
have copied finished before it did, so their asks are in the database then. The reads are
bounded: the day's ranked games sharing one of its keys (each through its partial index,
at most CROWD + 1 rows an address or network, LINKED_READ a device or burst), then those
players' games of the day. ``manage.py fairplay --recompute`` judges a day again.

**Copies**, whatever the addresses (throwaways on other networks, or among a crowd, tie
nobody) and whatever either account's age: a winning game is also held when it **replays**
a line another player finished first on the day, or **extends** a line **fresh accounts**
(FRESH_DAYS: fewer ranked days before this one) left unfinished, before it finished.
Precisely, the copied line E is another player's game of the day done before the copy with
- E's asks, all of them, are the first asks of the copy;
- E holds at least COPY_MIN_CHOICES choices (a short common start proves nothing: every
  honest player of one habit shares it);
- E finished, whoever played it (E is then the copy's whole line: a finished game cannot be
  extended; and as the deal and the opponent's rule are fixed, E scored as the copy did, so
  E won too: requiring it would add nothing); or E is unfinished, its player is fresh, and
  no established player's game done before E began with E's asks. An unfinished start
  counts only so: honest games of one style share long starts, any player may stop, and an
  established player who played the start first made it theirs; a throwaway that maps
  half the deal and stops is what the rule is for;
- the copy is not a line (and E not the start of one) that a habit the copier keeps plays
  on the deal (``HABITS``, ``own_habits``: the habit's line on at least half of its last
  HISTORY_DAYS ranked days; any of HABITS for a fresh copier, whose habits are unknown):
  two honest players of one habit play one line, whatever their ages; a main that
  replays whichever habit's line its throwaways found best keeps none.
Several finished E: the first one finished is the copied game. No score is compared: a
better game of the accounts copied does not clear the copy. The read is one query on the
copy's first asks (the day's ranked games that begin as it does, up to its
COPY_MIN_CHOICES-th choice, at most COPY_READ); only when one of those rows is the copy's
start (its whole line, or an unfinished one) does more follow: the copier's ranked days if
a habit's line is in play (``own_habits``), and, if no finished game is copied, the
players' ranked days before it (``fresh_players``). The day's rows are found through the
index of their first LINE_START asks (``Attempt.line_start``, a column the database works
out from the asks), the rest of the start checked on those rows.
"""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from django.db.models import Count

from challenges.models import LINE_START, Attempt, SignUp
from games.fairplay import players
from games.rules.base import GameError
from games.rules.cards import RANK_INDEX
from games.rules.peche import ENGINE, PLAYER

from .models import Result

CROWD = 30
EXPLORED_MIN_LINES = 2
COPY_MIN_CHOICES = 8
WON = 1000
LINKED_READ = 200
# Fewer ranked days than this before the day: a fresh account (a throwaway, or a newcomer).
FRESH_DAYS = 3
# The ranked days before this one that show a player's habits (``own_habits``).
HISTORY_DAYS = 7
# The games read that begin as a copy does: a cheater would need this many accounts of
# the day, each playing that start, to push its throwaway's line out of the read.
COPY_READ = 500
# The rules of ``judge_copy``'s evidence: "copy", and "fresh" as results judged before stored it.
COPY_RULES = ("copy", "fresh")
KEYS = (("address", "client_key"), ("network", "network_key"), ("device", "browser_key"))


@dataclass(frozen=True)
class Line:
    """One ranked game of the day as linking sees it."""

    attempt_id: int
    player_id: int
    moves: tuple[str, ...]
    # When its asks were made by: the finish, or for an unfinished game its start (the
    # only time known; a throwaway may stop halfway).
    done_at: dt.datetime
    finished: bool
    score: int | None  # its result's (None: not verified yet, or not over)


def _score(seed: str, moves: Iterable[str]) -> int | None:
    try:
        state = ENGINE.replay({"seed": seed}, list(moves), partial=True)
    except GameError:  # a tampered game: it explored nothing anybody could replay
        return None
    return ENGINE.outcome(state).score if state.over else None


def choices_along(seed: str, moves: Iterable[str]) -> list[bool]:
    """For each ask of the line, whether the hand held more than one rank (a choice)."""
    state = ENGINE.new(seed=seed)
    flags: list[bool] = []
    for rank in moves:
        flags.append(len(state.hands[PLAYER]) > 1)
        try:
            ENGINE.apply(state, rank)
        except GameError:
            break
    return flags


def shared(late: tuple[str, ...], other: tuple[str, ...], choices: list[bool]) -> tuple[int, int]:
    """(asks, choices) the two lines share from the start."""
    asks = 0
    for a, b in zip(late, other):
        if a != b:
            break
        asks += 1
    return asks, sum(choices[:asks])


def judge(
    seed: str, late: Line, earlier: list[Line], ties: dict[int, set[str]], choices: list[bool] | None = None
) -> dict[str, Any] | None:
    """The evidence that ``late`` copies a line its linked accounts explored, or None.
    ``earlier``: the tied players' games of the day that were done before ``late`` was;
    ``choices``: ``choices_along`` of ``late``, if known."""
    if late.score is None or late.score <= WON:
        return None
    earlier = [line for line in earlier if line.moves and line.player_id != late.player_id]
    lines = {line.moves for line in earlier}
    if len(lines) < EXPLORED_MIN_LINES:
        return None
    choices = choices_along(seed, late.moves) if choices is None else choices
    best: tuple[int, int, Line] | None = None
    for line in earlier:
        asks, chosen = shared(late.moves, line.moves, choices)
        if best is None or (chosen, asks) > best[:2]:
            best = (chosen, asks, line)
    assert best is not None
    chosen, asks, copied = best
    if chosen < COPY_MIN_CHOICES:
        return None
    # Last, as it may replay games (a finished one not verified yet has no result): one of
    # them did better, and this game gained nothing from them.
    for line in earlier:
        score = line.score if line.score is not None or not line.finished else _score(seed, line.moves)
        if score is not None and score > late.score:
            return None
    return {
        "rule": "ties",
        "copied": copied.attempt_id,
        "shared_asks": asks,
        "shared_choices": chosen,
        # The whole line; or all of an unfinished one, and on; or its first asks only.
        "how": "replays" if late.moves == copied.moves else "extends" if asks == len(copied.moves) else "shares",
        "lines": len(lines),
        "earlier": sorted(line.attempt_id for line in earlier),
        "ties": sorted(ties.get(copied.player_id, ())),
    }


# --- copies of another account's line (whatever the ties and the ages) ------------------


def habit(order: Callable[[Sequence[str]], list[str]], memory: str) -> players.Chooser:
    """A deterministic table-only player: the first rank of ``order`` that ``memory`` (one
    of MEMORIES) picks. It reads the table only: ranks, what the opponent must hold, chances."""

    def choose(table: players.Table, truth: players.Truth, rng: random.Random) -> str:
        ranks = order(table.ranks())
        if memory == "none":
            return ranks[0]
        known = table.known()
        for rank in ranks:
            if rank in known:
                return rank
        if memory == "known":
            return ranks[0]
        if memory == "unseen":
            most = max(table.unseen(rank) for rank in ranks)
            return next(rank for rank in ranks if table.unseen(rank) == most)
        chances = table.chances(tuple(ranks))
        top = max(chances)
        return next(rank for rank, chance in zip(ranks, chances) if chance >= top - 1e-12)

    return choose


# The hand as the table shows it (the order the cards came in), and by rank.
ORDERS: dict[str, Callable[[Sequence[str]], list[str]]] = {
    "leftmost": list,
    "rightmost": lambda ranks: list(reversed(ranks)),
    "lowest": lambda ranks: sorted(ranks, key=RANK_INDEX.__getitem__),
    "highest": lambda ranks: sorted(ranks, key=RANK_INDEX.__getitem__, reverse=True),
}
# What a habit remembers: nothing; the ranks the opponent is known to hold (asked for and
# not given), else the order's first; those, else a rank with the most copies unseen; those,
# else the likeliest rank by the table's chances.
MEMORIES = {
    "none": "always the {}",
    "known": "memory, else the {}",
    "unseen": "memory, else most unseen, ties {}",
    "likeliest": "memory, else likeliest, ties {}",
}
# Habits that honest players share: each plays one line on a deal, whoever plays it, and
# copying that line gains nothing anyone could not play.
HABITS: dict[str, players.Chooser] = {
    words.format(name): habit(order, memory) for memory, words in MEMORIES.items() for name, order in ORDERS.items()
}


@lru_cache(maxsize=16)
def habit_lines(seed: str) -> dict[str, tuple[str, ...]]:
    """The line each of HABITS plays on the deal, by name (kept for a day's verifications
    and the days before it that ``own_habits`` reads)."""
    lines = {}
    deck = ENGINE.new(seed=seed).deck
    for name, choose in HABITS.items():
        moves, _, _ = players.play(deck, choose, random.Random(0))  # deterministic: no draw is made
        lines[name] = tuple(moves)
    return lines


def habit_start(line: tuple[str, ...], habits: Iterable[tuple[str, ...]]) -> bool:
    """Whether ``line`` is one of ``habits``' lines or the start of one."""
    return any(habit[: len(line)] == line for habit in habits)


def own_habits(player_id: int, day: dt.date) -> set[str] | None:
    """``kept_habits`` of a player's last HISTORY_DAYS ranked days before ``day`` (a
    disqualified day does not count)."""
    played = Attempt.objects.filter(
        player_id=player_id, ranked=True, challenge__date__lt=day, result__disqualified=False
    ).order_by("-challenge__date")
    return kept_habits(
        [(seed, tuple(moves)) for seed, moves in played.values_list("challenge__seed", "moves")[:HISTORY_DAYS]]
    )


def kept_habits(played: list[tuple[str, tuple[str, ...]]]) -> set[str] | None:
    """The habits a player keeps, from its (seed, moves) of earlier days: those of HABITS
    whose line it played on at least half of them; None for a fresh player (fewer than
    FRESH_DAYS), whose habits nobody knows yet."""
    if len(played) < FRESH_DAYS:
        return None
    kept: Counter[str] = Counter()
    for seed, moves in played:
        kept.update(name for name, line in habit_lines(seed).items() if line == moves)
    return {name for name, days in kept.items() if 2 * days >= len(played)}


def exempt_lines(seed: str, habits: set[str] | None) -> list[tuple[str, ...]]:
    """The habits' lines of the deal that are nobody's copy for a player of ``habits``
    (``own_habits``): every known habit's for a fresh player, else only its own."""
    return [line for name, line in habit_lines(seed).items() if habits is None or name in habits]


def fresh_players(day: dt.date, player_ids: Iterable[int]) -> set[int]:
    """Those of ``player_ids`` with fewer than FRESH_DAYS ranked days before ``day`` (a
    disqualified day does not count)."""
    ids = set(player_ids)
    days = dict(
        Attempt.objects.filter(player_id__in=ids, ranked=True, challenge__date__lt=day, result__disqualified=False)
        .values("player_id")
        .annotate(days=Count("pk"))
        .values_list("player_id", "days")
    )
    return {player_id for player_id in ids if days.get(player_id, 0) < FRESH_DAYS}


def judge_copy(
    seed: str,
    late: Line,
    earlier: list[Line],
    fresh: Collection[int] | Callable[[], Collection[int]],
    habits: list[tuple[str, ...]],
    choices: list[bool] | None = None,
) -> dict[str, Any] | None:
    """The evidence that ``late`` replays another player's line of the day, or extends a
    line fresh accounts left unfinished (the module's docstring), or None. ``earlier``:
    games of the day done before ``late`` (at least every one that begins as it does);
    ``fresh``: the fresh players among theirs, or what reads them (asked only when no
    finished game is copied); ``habits``: the lines that are nobody's copy for ``late``'s
    player (``exempt_lines``)."""
    choices = choices_along(seed, late.moves) if choices is None else choices
    if habit_start(late.moves, habits):
        return None
    earlier = [line for line in earlier if line.player_id != late.player_id and line.done_at < late.done_at]
    # Every game whose asks, all of them, are the late game's first asks, with enough choices.
    copied = [
        line
        for line in earlier
        if line.moves
        and late.moves[: len(line.moves)] == line.moves
        and sum(choices[: len(line.moves)]) >= COPY_MIN_CHOICES
        and not habit_start(line.moves, habits)
    ]
    # A finished game, whoever played it: the whole line, the same score (the deal and the
    # opponent's rule are fixed). The first one played is the one copied.
    found = min((line for line in copied if line.finished), key=lambda line: line.done_at, default=None)
    unfinished = [line for line in copied if not line.finished]
    if found is None and unfinished:
        # Only a fresh account's start counts, and only a start no established player's game
        # done before it began with: honest games of one style share long starts, and any
        # player may stop.
        young = set(fresh() if callable(fresh) else fresh)
        for line in sorted(unfinished, key=lambda line: (-len(line.moves), line.done_at)):  # the longest first
            n = len(line.moves)
            theirs = any(
                o.player_id not in young and o.done_at < line.done_at and o.moves[:n] == line.moves for o in earlier
            )
            if line.player_id in young and not theirs:
                found = line
                break
    if found is None:
        return None
    n = len(found.moves)
    return {
        "rule": "copy",
        "copied": found.attempt_id,
        "shared_asks": n,
        "shared_choices": sum(choices[:n]),
        "how": "replays" if late.moves == found.moves else "extends",
        "lines": len({line.moves for line in copied}),
        "earlier": sorted(line.attempt_id for line in copied),
        "ties": ["copy"],  # nothing but the line: day_groups puts the two games in one group
    }


def copies(
    attempt: Attempt,
    late: Line,
    habits: list[tuple[str, ...]] | None = None,
    choices: list[bool] | None = None,
) -> dict[str, Any] | None:
    """At verification: ``judge_copy`` on the day's ranked games that begin as ``late``
    does, up to its COPY_MIN_CHOICES-th choice (every line it could copy begins so);
    ``habits``: ``exempt_lines`` for its player, read here if a habit's line is in play
    and not given; ``choices``: ``choices_along`` of ``late``, worked out here if not given."""
    seed = attempt.challenge.seed
    choices = choices_along(seed, late.moves) if choices is None else choices
    asked_with_choice = [index for index, chosen in enumerate(choices) if chosen]
    if len(asked_with_choice) < COPY_MIN_CHOICES:
        return None
    start = late.moves[: asked_with_choice[COPY_MIN_CHOICES - 1] + 1]  # longer than LINE_START: 8 choices
    begins = {f"moves__{i}": rank for i, rank in enumerate(start) if i >= LINE_START}
    rows = (
        Attempt.objects.filter(
            challenge_id=attempt.challenge_id,
            ranked=True,
            started_at__lt=late.done_at,
            line_start=" ".join(start[:LINE_START]),
            **begins,
        )
        .exclude(player_id=late.player_id)
        .order_by("started_at")
    )
    earlier = [
        Line(pk, player_id, tuple(moves), finished_at or started_at, finished_at is not None, score)
        for pk, player_id, moves, finished_at, started_at, score in rows.values_list(
            "pk", "player_id", "moves", "finished_at", "started_at", "result__score"
        )[:COPY_READ]
    ]
    if not any(late.moves[: len(line.moves)] == line.moves for line in earlier):
        return None  # nobody's whole line is its start: the common case, one query
    if habits is None:
        # The player's habits matter only if a line it may copy is a habit's (or its start).
        every = habit_lines(seed).values()
        in_play = any(habit_start(line.moves, every) for line in earlier if late.moves[: len(line.moves)] == line.moves)
        habits = exempt_lines(seed, own_habits(late.player_id, attempt.challenge.date)) if in_play else []
    day = attempt.challenge.date
    return judge_copy(
        seed, late, earlier, lambda: fresh_players(day, {line.player_id for line in earlier}), habits, choices
    )


# --- ties of one game (at verification: bounded, indexed reads) -----------------------


def ties_of(attempt: Attempt) -> dict[int, set[str]]:
    """The players tied to ``attempt``'s player on its day, each with the kinds of tie."""
    day = Attempt.objects.filter(challenge_id=attempt.challenge_id, ranked=True).exclude(player_id=attempt.player_id)
    ties: dict[int, set[str]] = defaultdict(set)
    for kind, key in KEYS[:2]:
        value = getattr(attempt, key)
        if value:
            players = list(day.filter(**{key: value}).values_list("player_id", flat=True)[:CROWD])
            if len(players) < CROWD:  # with this player, at most CROWD: not a crowd
                for player_id in players:
                    ties[player_id].add(kind)
    signup = SignUp.objects.filter(player_id=attempt.player_id).first()
    devices = {attempt.browser_key, signup.browser_key if signup else ""} - {""}
    if devices:
        for player_id in day.filter(browser_key__in=devices).values_list("player_id", flat=True)[:LINKED_READ]:
            ties[player_id].add("device")
        signed = SignUp.objects.filter(browser_key__in=devices).exclude(player_id=attempt.player_id)
        for player_id in signed.values_list("player_id", flat=True)[:LINKED_READ]:
            ties[player_id].add("device")
    if signup is not None and signup.burst is not None:
        burst = SignUp.objects.filter(burst=signup.burst).exclude(player_id=attempt.player_id)
        for player_id in burst.values_list("player_id", flat=True)[:LINKED_READ]:
            ties[player_id].add("burst")
    return dict(ties)


def day_lines(challenge_id: int, player_ids: Iterable[int]) -> list[Line]:
    """The ranked games of the day of these players (one each), with their results' scores."""
    rows = Attempt.objects.filter(challenge_id=challenge_id, ranked=True, player_id__in=list(player_ids)[:LINKED_READ])
    return [
        Line(
            attempt_id=pk,
            player_id=player_id,
            moves=tuple(moves),
            done_at=finished_at or started_at,
            finished=finished_at is not None,
            score=score,
        )
        for pk, player_id, moves, finished_at, started_at, score in rows.values_list(
            "pk", "player_id", "moves", "finished_at", "started_at", "result__score"
        )
    ]


def assess(attempt: Attempt, score: int, choices: list[bool] | None = None) -> dict[str, Any] | None:
    """At verification: the evidence that this ranked game copies a line its linked
    accounts explored (``judge``), or another account's line (``copies``), or None. Only a winning game costs any query; a habit's line, one
    for its player's last days (``own_habits``) first. ``choices``: ``choices_along`` of
    its asks if the caller has them (verification's fair-play replay saw every hand)."""
    if not attempt.ranked or score <= WON or attempt.finished_at is None:
        return None
    late = Line(attempt.pk, attempt.player_id, tuple(attempt.moves), attempt.finished_at, True, score)
    habits = None  # the player's (``exempt_lines``), read only when a habit's line is in play
    if habit_start(late.moves, habit_lines(attempt.challenge.seed).values()):
        habits = exempt_lines(attempt.challenge.seed, own_habits(attempt.player_id, attempt.challenge.date))
        if habit_start(late.moves, habits):
            return None  # the line of a habit its player keeps: nobody's copy, under either rule
    ties = ties_of(attempt)
    if ties:
        earlier = [line for line in day_lines(attempt.challenge_id, ties) if line.done_at < attempt.finished_at]
        link = judge(attempt.challenge.seed, late, earlier, ties, choices)
        if link is not None:
            return link
    return copies(attempt, late, habits, choices)


# --- the day's groups (the review queue, the fairplay command) ------------------------


@dataclass
class Group:
    id: int  # its first game's attempt id
    attempts: list[int] = field(default_factory=list)
    ties: dict[int, set[str]] = field(default_factory=dict)  # attempt -> kinds tying it to the others


def day_groups(challenge_id: int) -> dict[int, Group]:
    """Every group of tied players of the day (two players or more), by attempt id: the same
    ties as ``ties_of``, and a held copy with the game it copied (``copy``),
    joined (a tie of a tie is in the group too)."""
    games = list(
        Attempt.objects.filter(challenge_id=challenge_id, ranked=True).values_list(
            "pk", "player_id", "client_key", "network_key", "browser_key"
        )
    )
    signups = dict(
        (player_id, (browser_key, burst))
        for player_id, browser_key, burst in SignUp.objects.filter(
            player__attempts__challenge_id=challenge_id, player__attempts__ranked=True
        ).values_list("player_id", "browser_key", "burst")
    )
    holders: dict[tuple[str, Any], set[int]] = defaultdict(set)  # (kind, key) -> attempts
    for pk, player_id, client_key, network_key, browser_key in games:
        browser_signup, burst = signups.get(player_id, ("", None))
        for node in (
            ("address", client_key),
            ("network", network_key),
            ("device", browser_key),
            ("device", browser_signup),
            ("burst", burst),
        ):
            if node[1] not in ("", None):
                holders[node].add(pk)
    parent = {pk: pk for pk, *_ in games}
    # A copy (``judge_copy``; "fresh": its rule's name on results judged before it read
    # every account's lines) ties the copy to the game it copied.
    copies = Result.objects.filter(challenge_id=challenge_id, ranked=True, linked_accounts=True)
    for pk, evidence in copies.values_list("attempt_id", "link_evidence"):
        if evidence and evidence.get("rule") in COPY_RULES:
            holders[("copy", pk)] |= {pk, evidence["copied"]} & parent.keys()

    def root(pk: int) -> int:
        while parent[pk] != pk:
            parent[pk] = parent[parent[pk]]
            pk = parent[pk]
        return pk

    kinds: dict[int, set[str]] = defaultdict(set)
    for (kind, _), members in holders.items():
        if len(members) < 2 or (kind in ("address", "network") and len(members) > CROWD):
            continue
        first, *rest = sorted(members)
        for pk in members:
            kinds[pk].add(kind)
        for pk in rest:
            a, b = root(first), root(pk)
            if a != b:
                parent[max(a, b)] = min(a, b)
    components: dict[int, list[int]] = defaultdict(list)
    for pk in sorted(parent):
        components[root(pk)].append(pk)
    groups: dict[int, Group] = {}
    for component in components.values():
        if len(component) < 2:
            continue
        group = Group(id=component[0], attempts=component, ties={pk: kinds[pk] for pk in component})
        for pk in component:
            groups[pk] = group
    return groups
