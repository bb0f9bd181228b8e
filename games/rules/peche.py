"""Pêche — the daily challenge game: 2-player pairs Go Fish (docs/rules.md §2).

Seat 0 is the player (the only decisions: which rank to ask), seat 1 the
perfect-memory opponent, which plays inside ``apply`` as an automatic step. The state, the
observers' hooks and what one seat knows of the other's hand (``Knowledge``: the state's is
the opponent's of the player's, which its choice reads) are games/rules/peche_state.py.

The game is played by one loop: ``deal``, then ``ask`` for each of the player's asks
(the ask and every step after it up to the player's next decision). Whoever watches a
game is an ``Observer`` that the loop tells of each step as it is played: ``apply``'s
events are an observer's record (``Recorder``), so are the face-up ``steps`` and
``trace`` of a finished day, and so is the fair-play watcher (games/fairplay/),
which sees the opponent's choices before its asks. ``replay`` is the loop over stored
moves, with an observer if one is given.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

from .base import EndsWithOutcome, GameError, ReplayError, deck_for
from .cards import RANK_OF, RANK_SET, miss_chance
from .cards import RANKS as RANKS  # the ranks in order, as callers have read them here
from .events import Ask, Draw, End, Event, Outcome, Pair, Pass, event_json, event_view

# The table's names are this module's too (``peche.PecheState``, ``peche.Knowledge``…): one
# door to the game for its callers.
from .peche_state import OPPONENT as OPPONENT
from .peche_state import PLAYER as PLAYER
from .peche_state import Knowledge as Knowledge
from .peche_state import Observer as Observer
from .peche_state import Observers as Observers
from .peche_state import PecheState as PecheState

ALL_PAIRS = 26


class Recorder(Observer):
    """The events of the steps it watches (full information), as ``apply`` returns them;
    with ``reasons``, also why the opponent asked what it asked (``opponent_reasons``)."""

    __slots__ = ("events", "reasons")

    def __init__(self, *, reasons: bool = False) -> None:
        self.events: list[Event] = []
        self.reasons: list[dict[str, Any]] | None = [] if reasons else None

    def choice(self, state: PecheState, rank: str) -> None:
        if self.reasons is not None:
            self.reasons.append(opponent_reasons(state))

    def asked(self, state: PecheState, seat: int, rank: str, given: str | None, fished: bool) -> None:
        other = 1 - seat
        self.events.append(Ask(seat, other, rank, 0, ()) if given is None else Ask(seat, other, rank, 1, (given,)))

    def drew(self, state: PecheState, seat: int, card: str, reason: str) -> None:
        self.events.append(Draw(seat, card, reason))

    def received(self, state: PecheState, seat: int, card: str, from_deck: bool, paired: bool) -> None:
        if paired:
            self.events.append(Pair(seat, RANK_OF[card]))

    def passed(self, state: PecheState, seat: int) -> None:
        self.events.append(Pass(seat))

    def ended(self, state: PecheState) -> None:
        self.events.append(End(outcome_of(state)))


def _receive(state: PecheState, seat: int, card: str, from_deck: bool, obs: Observer | None) -> None:
    """A card joins ``seat``'s hand; a second card of its rank pairs at once."""
    rank = RANK_OF[card]
    hand = state.hands[seat]
    if rank in hand:
        del hand[rank]
        state.pairs[seat].append(rank)
        state.pairs_by_rank[rank] += 1
        state.knowledge.received(state, seat, card, from_deck, True)
        if len(state.pairs[0]) + len(state.pairs[1]) == ALL_PAIRS:
            state.over = True
        if obs is not None:
            obs.received(state, seat, card, from_deck, True)
        return
    hand[rank] = card
    state.knowledge.received(state, seat, card, from_deck, False)
    if obs is not None:
        obs.received(state, seat, card, from_deck, False)


def _draw(state: PecheState, seat: int, reason: str, obs: Observer | None) -> None:
    card = state.deck[state.lake_next]
    state.lake_next += 1
    if obs is not None:
        obs.drew(state, seat, card, reason)
    _receive(state, seat, card, True, obs)


def _ask(state: PecheState, seat: int, rank: str, obs: Observer | None) -> None:
    """``seat`` asks for ``rank`` (precondition: it holds one); turn passes on go fish."""
    other = 1 - seat
    state.asks[seat] += 1
    given = state.hands[other].pop(rank, None)
    fished = given is None and state.lake_next < 52
    state.knowledge.asked(state, seat, rank, given, fished)
    state.history.append((seat, rank, given is not None, fished))
    if obs is not None:
        obs.asked(state, seat, rank, given, fished)
    if given is not None:
        _receive(state, seat, given, False, obs)
        return  # the same mover plays again
    if fished:
        if RANK_OF[state.deck[state.lake_next]] == rank:
            state.caught.add(len(state.history) - 1)
        _draw(state, seat, "fish", obs)
    state.turn = other


def opponent_miss(state: PecheState, rank: str) -> tuple[int, int]:
    """The rules' chance that the player holds no ``rank``, as (N, D) (docs/rules.md §2):
    of the player's m unknown cards, the k that arrived since it was last known to hold no
    ``rank`` are each one of U = lake + m unknown cards, u = 3 − 2 × pairs(rank) of them
    ``rank``: N/D = Π_{i<k} (U−u−i)/(U−i). Public knowledge only: the one statement of
    the opponent's chance, for its choice, its reasons and whoever mirrors it."""
    knowledge = state.knowledge
    m = len(state.hands[PLAYER]) - len(knowledge.known)
    seen_at = knowledge.absent.get(rank)
    k = m if seen_at is None or knowledge.draws - seen_at > m else knowledge.draws - seen_at
    return miss_chance(52 - state.lake_next + m, 3 - 2 * state.pairs_by_rank[rank], k)


def opponent_choice(state: PecheState) -> str:
    """The perfect-memory opponent's ask (docs/rules.md §2), from public knowledge only."""
    hand = state.hands[OPPONENT]
    known = state.knowledge.known
    for rank in hand:
        if rank in known:
            return rank
    best_rank = None
    # P(r) = 1 - N/D; the highest P is the lowest N/D, compared as integers.
    best_n = best_d = 1
    for rank in hand:
        n, d = opponent_miss(state, rank)
        if best_rank is None or n * best_d < best_n * d:
            best_rank, best_n, best_d = rank, n, d
    assert best_rank is not None
    return best_rank


def opponent_reasons(state: PecheState) -> dict[str, Any]:
    """Why the opponent asks what ``opponent_choice`` picks, for public replays: a rank it
    knows the player holds, or for each rank of its hand the chance (public knowledge
    only) that the player holds one. The choice itself stays ``opponent_choice``'s."""
    rank = opponent_choice(state)
    if rank in state.knowledge.known:
        return {"rank": rank, "known": True, "chances": {}}
    chances = {}
    for held in state.hands[OPPONENT]:
        n, d = opponent_miss(state, held)
        chances[held] = 1 - n / d
    return {"rank": rank, "known": False, "chances": chances}


def _advance(state: PecheState, obs: Observer | None) -> None:
    """Play every step that needs no decision of the player."""
    hands = state.hands
    while not state.over:
        seat = state.turn
        if not hands[seat]:
            if state.lake_next < 52:
                _draw(state, seat, "empty_hand", obs)
            elif obs is not None:
                obs.passed(state, seat)
            state.turn = 1 - seat
        elif seat == PLAYER:
            return
        else:
            rank = opponent_choice(state)
            if obs is not None:
                obs.choice(state, rank)
            _ask(state, OPPONENT, rank, obs)
    if obs is not None:
        obs.ended(state)


# --- The loop: a deal, then the player's asks ------------------------------------------


def deal(deck: list[str], observer: Observer | None = None) -> PecheState:
    """Deal ``deck`` (checked by the caller) and play the steps before the player's first
    ask; ``observer`` watches them (the fair-play watcher needs the opponent's dealt
    pairs; the deal plays nothing a seat is shown, so ``new`` records no event)."""
    state = PecheState(deck)
    for i in range(10):
        _receive(state, i % 2, deck[i], True, observer)
    _advance(state, observer)
    return state


def check_ask(state: PecheState, rank: Any) -> None:
    """GameError unless the player may ask ``rank`` now (the game goes on, it holds one)."""
    if state.over:
        raise GameError("game_over", "the game is over")
    if not isinstance(rank, str) or rank not in RANK_SET:
        raise GameError("bad_move", "a rank is one of A 2 … 10 J Q K")
    if rank not in state.hands[PLAYER]:
        raise GameError("illegal_ask", f"you hold no {rank}")


def ask(state: PecheState, rank: Any, observer: Observer | None = None) -> None:
    """The player asks ``rank``, then every step up to its next decision or the end: the
    one step of the loop (``apply``, ``replay``, ``steps``, fair play). GameError if the
    rules refuse the ask; then nothing changed."""
    check_ask(state, rank)
    if observer is not None:
        observer.before_ask(state, rank)
    _ask(state, PLAYER, rank, observer)
    _advance(state, observer)


def _ask_at(state: PecheState, index: int, move: Any, observer: Observer | None) -> None:
    """``ask`` as move ``index`` of a stored list: a refusal is a ReplayError naming it."""
    try:
        ask(state, move, observer)
    except GameError as exc:
        if exc.code == "game_over":
            raise ReplayError("extra_moves", index) from None
        raise ReplayError(exc.code, index, exc.detail) from None


class Step(NamedTuple):
    """One step of a game face up (``steps``): ``at`` (the ask's index in the moves) and
    ``ask`` None for the deal;
    the events and the opponent's reasons of that ask; ``state`` the state after it (the
    same object at every step: read it before the next)."""

    at: int | None  # not ``index``: a tuple's method of that name
    ask: str | None
    events: list[Event]
    reasons: list[dict[str, Any]]
    state: PecheState


def steps(
    seed: str | None, moves: list[Any], *, deck: list[str] | None = None, observer: Observer | None = None
) -> Iterator[Step]:
    """The game ask by ask, for face-up replays (``trace``, the admin's inspector): the
    deal, then after each of the player's asks the events it led to, why the opponent
    asked what it asked, and the state. ``observer`` also watches (e.g. the fair-play
    watcher). Raises ReplayError at a move the rules refuse, after the steps before it."""
    state = deal(deck_for(seed, deck), observer)
    yield Step(None, None, [], [], state)
    if not isinstance(moves, list):
        raise GameError("bad_input", "moves is a list of ranks")
    for index, move in enumerate(moves):
        recorder = Recorder(reasons=True)
        _ask_at(state, index, move, recorder if observer is None else Observers(recorder, observer))
        assert recorder.reasons is not None
        yield Step(index, move, recorder.events, recorder.reasons, state)


def _table(state: PecheState) -> dict[str, Any]:
    """Everything on the table, both hands and the lake face up (a finished day only)."""
    return {
        "hands": [list(state.hands[PLAYER].values()), list(state.hands[OPPONENT].values())],
        "lake": state.deck[state.lake_next :],
        "pairs": [list(state.pairs[PLAYER]), list(state.pairs[OPPONENT])],
        "asks": list(state.asks),
        "over": state.over,
        "outcome": outcome_of(state).as_dict() if state.over else None,
    }


def outcome_of(state: PecheState) -> Outcome:
    counts = (len(state.pairs[PLAYER]), len(state.pairs[OPPONENT]))
    top = max(counts)
    return Outcome(
        winners=tuple(seat for seat, n in enumerate(counts) if n == top),
        counts=counts,
        asks=(state.asks[PLAYER], state.asks[OPPONENT]),
        moves=state.asks[PLAYER] + state.asks[OPPONENT],
        reason="pairs",
        score=1000 + 30 * (counts[PLAYER] - counts[OPPONENT]),
    )


def result_line(state: PecheState) -> dict[str, Any]:
    """The output line of docs/rules.md §2/§5 for a finished game."""
    outcome = outcome_of(state)
    return {
        "outcome": outcome.side(PLAYER),
        "player_pairs": outcome.counts[PLAYER],
        "opponent_pairs": outcome.counts[OPPONENT],
        "score": outcome.score,
        "player_asks": outcome.asks[PLAYER],
        "opponent_asks": outcome.asks[OPPONENT],
        "opponent_asked": ",".join(rank for seat, rank, _, _ in state.history if seat == OPPONENT),
    }


class PecheEngine(EndsWithOutcome):
    name = "peche"
    rules_version = 1

    def new(self, *, seed: str | None = None, deck: list[str] | None = None, **options: Any) -> PecheState:
        if options:
            raise GameError("bad_input", f"unknown options {sorted(options)}")
        return deal(deck_for(seed, deck))

    def to_move(self, state: PecheState) -> int | None:
        return None if state.over else PLAYER

    def legal_moves(self, state: PecheState) -> list[str]:
        if state.over:
            return []
        return list(state.hands[PLAYER])

    def apply(self, state: PecheState, move: Any) -> list[Event]:
        recorder = Recorder()
        ask(state, move, recorder)
        return recorder.events

    outcome_of = staticmethod(outcome_of)

    def view(self, state: PecheState, seat: int) -> dict[str, Any]:
        """The player's view (the API's attempt view). The opponent is simulated: what it
        knows is ``state.knowledge``, so no seat but the player has a view."""
        if seat != PLAYER:
            raise GameError("bad_seat", "only the player (seat 0) views a Pêche game")
        return {
            "hand": list(state.hands[PLAYER].values()),
            "player_pairs": list(state.pairs[PLAYER]),
            "opponent_pairs": list(state.pairs[OPPONENT]),
            "opponent_hand_size": len(state.hands[OPPONENT]),
            "lake_size": state.lake_size,
            "asks": state.asks[PLAYER],
            "opponent_asks": state.asks[OPPONENT],
            # An ask as everywhere else (the Ask event, Go Fish's ask_history): who asked whom
            # for what, and how many cards came (0 or 1 here: a hand holds one card a rank).
            "history": [
                {"seat": s, "target": 1 - s, "rank": r, "given": int(g), "fished": f, "caught": i in state.caught}
                for i, (s, r, g, f) in enumerate(state.history)
            ],
            "turn": None if state.over else ("player" if state.turn == PLAYER else "opponent"),
            "over": state.over,
            "outcome": outcome_of(state).as_dict() if state.over else None,
        }

    def event_view(self, event: Event, seat: int) -> dict[str, Any]:
        return event_view(event, seat)

    def replay(
        self, config: dict[str, Any], moves: list[Any], *, partial: bool = False, observer: Observer | None = None
    ) -> PecheState:
        """Deal and play ``moves`` (no events built); ``partial``: a game still in progress
        is fine (the server's state of an attempt being played). ``observer`` watches the
        deal and every step (fair play's watcher)."""
        state = deal(deck_for(config.get("seed"), config.get("deck")), observer)
        if not isinstance(moves, list):
            raise GameError("bad_input", "moves is a list of ranks")
        for index, move in enumerate(moves):
            _ask_at(state, index, move, observer)
        if not state.over and not partial:
            raise ReplayError("incomplete", len(moves))
        return state

    def trace(self, seed: str, moves: list[str]) -> list[dict[str, Any]]:
        """The whole game face up, for public replays once the seed is public (``steps``
        as JSON): the deal, then for each of the player's asks every event it led to
        (cards included), why the opponent asked what it asked, and the table after it.
        Stops before a move the rules refuse."""
        out = []
        try:
            for step in steps(seed, moves):
                out.append(
                    {
                        "ask": step.ask,
                        "events": [event_json(e) for e in step.events],
                        "reasons": step.reasons,
                        **_table(step.state),
                    }
                )
        except ReplayError:
            pass
        return out

    def conformance(self, case: dict[str, Any]) -> dict[str, Any]:
        try:
            moves: Any = case.get("moves")  # as given: replay refuses a malformed one (bad_input)
            return result_line(self.replay(case, moves))
        except ReplayError as exc:
            return exc.as_dict()


ENGINE = PecheEngine()
