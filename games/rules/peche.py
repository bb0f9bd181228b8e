"""Pêche — the daily challenge game: 2-player pairs Go Fish (docs/rules.md §2).

Seat 0 is the player (the only decisions: which rank to ask), seat 1 the
perfect-memory opponent, which plays inside ``apply`` as an automatic step.
"""

from __future__ import annotations

from typing import Any

from .base import GameError, ReplayError, deck_for
from .cards import RANK_OF, RANK_SET, RANKS, miss_chance
from .events import Ask, Draw, End, Event, Outcome, Pair, Pass, event_json, event_view

PLAYER, OPPONENT = 0, 1
ALL_PAIRS = 26


class Knowledge:
    """What the opponent knows about the player's hand, from public information only.

    ``known``: ranks the player must hold; ``absent[r]``: value of ``draws`` when the
    player was last known to hold no r; ``draws``: deck cards the player received that
    did not pair at once.
    """

    __slots__ = ("known", "absent", "draws")

    def __init__(self) -> None:
        self.known: set[str] = set()
        self.absent: dict[str, int] = {}
        self.draws = 0

    def snapshot(self) -> dict[str, Any]:
        return {
            "known": sorted(self.known, key=RANKS.index),
            "absent": dict(self.absent),
            "draws": self.draws,
        }


class PecheState:
    __slots__ = (
        "deck",
        "lake_next",
        "hands",
        "pairs",
        "pairs_by_rank",
        "turn",
        "asks",
        "history",
        "caught",
        "knowledge",
        "over",
        "reasons",
        "opening_events",
    )

    def __init__(self, deck: list[str]) -> None:
        self.deck = deck
        self.lake_next = 10  # the lake is deck[lake_next:]
        # rank -> card, not a list of cards: "holds an r?" and "give the r" are one lookup,
        # no scan (docs/benchmarks.md); a dict keeps insertion order, the acquisition order.
        self.hands: list[dict[str, str]] = [{}, {}]
        self.pairs: list[list[str]] = [[], []]  # ranks, in the order formed
        self.pairs_by_rank = dict.fromkeys(RANKS, 0)
        self.turn = PLAYER
        self.asks = [0, 0]
        # every ask: seat, rank, given, fished; tuples, as they are built on every replay
        self.history: list[tuple[int, str, bool, bool]] = []
        # the asks (indices in history) whose go fish drew the rank asked for: the mover saw
        # the card, and the pair it formed at once told the table (the share's blue square)
        self.caught: set[int] = set()
        self.knowledge = Knowledge()
        self.over = False
        self.reasons: list[dict[str, Any]] | None = None  # replays only: why the opponent asked
        self.opening_events: list[Event] = []  # the deal plays nothing that a seat sees

    @property
    def lake_size(self) -> int:
        return 52 - self.lake_next


def _receive(state: PecheState, seat: int, card: str, from_deck: bool, events: list[Event] | None) -> None:
    """A card joins ``seat``'s hand; a second card of its rank pairs at once."""
    rank = RANK_OF[card]
    hand = state.hands[seat]
    if rank in hand:
        del hand[rank]
        state.pairs[seat].append(rank)
        state.pairs_by_rank[rank] += 1
        if seat == PLAYER:
            state.knowledge.known.discard(rank)
            state.knowledge.absent[rank] = state.knowledge.draws
        if events is not None:
            events.append(Pair(seat, rank))
        if len(state.pairs[0]) + len(state.pairs[1]) == ALL_PAIRS:
            state.over = True
        return
    hand[rank] = card
    if seat == PLAYER and from_deck:
        state.knowledge.draws += 1


def _draw(state: PecheState, seat: int, reason: str, events: list[Event] | None) -> None:
    card = state.deck[state.lake_next]
    state.lake_next += 1
    if events is not None:
        events.append(Draw(seat, card, reason))
    _receive(state, seat, card, True, events)


def _ask(state: PecheState, seat: int, rank: str, events: list[Event] | None) -> None:
    """``seat`` asks for ``rank`` (precondition: it holds one); turn passes on go fish."""
    other = 1 - seat
    state.asks[seat] += 1
    knowledge = state.knowledge
    if seat == PLAYER:
        knowledge.known.add(rank)
    given = state.hands[other].pop(rank, None)
    if seat == OPPONENT:
        # Whether or not the player had one, afterwards it holds none.
        knowledge.known.discard(rank)
        knowledge.absent[rank] = knowledge.draws
    fished = given is None and state.lake_next < 52
    state.history.append((seat, rank, given is not None, fished))
    if events is not None:
        events.append(Ask(seat, other, rank, 0, ()) if given is None else Ask(seat, other, rank, 1, (given,)))
    if given is not None:
        _receive(state, seat, given, False, events)
        return  # the same mover plays again
    if fished:
        if RANK_OF[state.deck[state.lake_next]] == rank:
            state.caught.add(len(state.history) - 1)
        _draw(state, seat, "fish", events)
    state.turn = other


def opponent_choice(state: PecheState) -> str:
    """The perfect-memory opponent's ask (docs/rules.md §2), from public knowledge only."""
    hand = state.hands[OPPONENT]
    knowledge = state.knowledge
    known = knowledge.known
    for rank in hand:
        if rank in known:
            return rank
    m = len(state.hands[PLAYER]) - len(known)
    total = 52 - state.lake_next + m
    absent = knowledge.absent
    draws = knowledge.draws
    pairs_by_rank = state.pairs_by_rank  # locals: this loop runs for every opponent ask of every replay
    best_rank = None
    # P(r) = 1 - N/D; the highest P is the lowest N/D, compared as integers.
    best_n = best_d = 1
    for rank in hand:
        seen_at = absent.get(rank)
        k = m if seen_at is None or draws - seen_at > m else draws - seen_at
        n, d = miss_chance(total, 3 - 2 * pairs_by_rank[rank], k)
        if best_rank is None or n * best_d < best_n * d:
            best_rank, best_n, best_d = rank, n, d
    assert best_rank is not None
    return best_rank


def opponent_reasons(state: PecheState) -> dict[str, Any]:
    """Why the opponent asks what ``opponent_choice`` picks, for public replays: a rank it
    knows the player holds, or for each rank of its hand the chance (public knowledge
    only) that the player holds one. The choice itself stays ``opponent_choice``'s."""
    rank = opponent_choice(state)
    knowledge = state.knowledge
    if rank in knowledge.known:
        return {"rank": rank, "known": True, "chances": {}}
    m = len(state.hands[PLAYER]) - len(knowledge.known)
    total = 52 - state.lake_next + m
    chances = {}
    for held in state.hands[OPPONENT]:
        seen_at = knowledge.absent.get(held)
        k = m if seen_at is None or knowledge.draws - seen_at > m else knowledge.draws - seen_at
        n, d = miss_chance(total, 3 - 2 * state.pairs_by_rank[held], k)
        chances[held] = 1 - n / d
    return {"rank": rank, "known": False, "chances": chances}


def _advance(state: PecheState, events: list[Event] | None) -> None:
    """Play every step that needs no decision of the player."""
    hands = state.hands
    while not state.over:
        seat = state.turn
        if not hands[seat]:
            if state.lake_next < 52:
                _draw(state, seat, "empty_hand", events)
            elif events is not None:
                events.append(Pass(seat))
            state.turn = 1 - seat
        elif seat == PLAYER:
            return
        else:
            if state.reasons is not None:
                state.reasons.append(opponent_reasons(state))
            _ask(state, OPPONENT, opponent_choice(state), events)
    if events is not None:
        events.append(End(outcome_of(state)))


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


def _check_ask(state: PecheState, rank: Any) -> None:
    if not isinstance(rank, str) or rank not in RANK_SET:
        raise GameError("bad_move", "a rank is one of A 2 … 10 J Q K")
    if rank not in state.hands[PLAYER]:
        raise GameError("illegal_ask", f"you hold no {rank}")


class PecheEngine:
    name = "peche"
    rules_version = 1

    def new(self, *, seed: str | None = None, deck: list[str] | None = None, **options: Any) -> PecheState:
        if options:
            raise GameError("bad_input", f"unknown options {sorted(options)}")
        state = PecheState(deck_for(seed, deck))
        deck_ = state.deck
        for i in range(10):
            _receive(state, i % 2, deck_[i], True, None)
        _advance(state, None)
        return state

    def to_move(self, state: PecheState) -> int | None:
        return None if state.over else PLAYER

    def legal_moves(self, state: PecheState) -> list[str]:
        if state.over:
            return []
        return list(state.hands[PLAYER])

    def apply(self, state: PecheState, move: Any) -> list[Event]:
        if state.over:
            raise GameError("game_over", "the game is over")
        _check_ask(state, move)
        events: list[Event] = []
        _ask(state, PLAYER, move, events)
        _advance(state, events)
        return events

    def is_over(self, state: PecheState) -> bool:
        return state.over

    def outcome(self, state: PecheState) -> Outcome:
        if not state.over:
            raise GameError("not_over", "the game is not over")
        return outcome_of(state)

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

    def replay(self, config: dict[str, Any], moves: list[Any], *, partial: bool = False) -> PecheState:
        """Deal and play ``moves`` without building events; ``partial``: a game still in
        progress is fine (the server's state of an attempt being played)."""
        state = self.new(seed=config.get("seed"), deck=config.get("deck"))
        if not isinstance(moves, list):
            raise GameError("bad_input", "moves is a list of ranks")
        for index, move in enumerate(moves):
            if state.over:
                raise ReplayError("extra_moves", index)
            try:
                _check_ask(state, move)
            except GameError as exc:
                raise ReplayError(exc.code, index, exc.detail) from None
            _ask(state, PLAYER, move, None)
            _advance(state, None)
        if not state.over and not partial:
            raise ReplayError("incomplete", len(moves))
        return state

    def trace(self, seed: str, moves: list[str]) -> list[dict[str, Any]]:
        """The whole game face up, for public replays once the seed is public: the deal,
        then for each of the player's asks every event it led to (cards included), why
        the opponent asked what it asked, and the table after it. Stops before a move
        the rules refuse."""
        state = self.new(seed=seed)
        steps = [{"ask": None, "events": [], "reasons": [], **_table(state)}]
        for move in moves:
            if state.over:
                break
            try:
                _check_ask(state, move)
            except GameError:
                break
            events: list[Event] = []
            state.reasons = []
            _ask(state, PLAYER, move, events)
            _advance(state, events)
            steps.append(
                {"ask": move, "events": [event_json(e) for e in events], "reasons": state.reasons, **_table(state)}
            )
        state.reasons = None
        return steps

    def conformance(self, case: dict[str, Any]) -> dict[str, Any]:
        try:
            moves: Any = case.get("moves")  # as given: replay refuses a malformed one (bad_input)
            return result_line(self.replay(case, moves))
        except ReplayError as exc:
            return exc.as_dict()


ENGINE = PecheEngine()
