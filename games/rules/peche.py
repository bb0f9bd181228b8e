"""Pêche — the daily challenge game: 2-player pairs Go Fish (RULES.md §2).

Seat 0 is the player (the only decisions: which rank to ask), seat 1 the
perfect-memory opponent, which plays inside ``apply`` as an automatic step.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .base import GameError, ReplayError, deck_for
from .cards import RANK_SET, RANKS

PLAYER, OPPONENT = 0, 1
ALL_PAIRS = 26
_RANK_OF = {r + s: r for r in RANKS for s in "SHDC"}


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
        "knowledge",
        "over",
        "reasons",
    )

    def __init__(self, deck: list[str]) -> None:
        self.deck = deck
        self.lake_next = 10  # the lake is deck[lake_next:]
        # rank -> card; a dict keeps insertion order, which is acquisition order.
        self.hands: list[dict[str, str]] = [{}, {}]
        self.pairs: list[list[str]] = [[], []]  # ranks, in the order formed
        self.pairs_by_rank = dict.fromkeys(RANKS, 0)
        self.turn = PLAYER
        self.asks = [0, 0]
        self.history: list[tuple[int, str, bool, bool]] = []  # every ask: seat, rank, given, fished
        self.knowledge = Knowledge()
        self.over = False
        self.reasons: list[dict[str, Any]] | None = None  # replays only: why the opponent asked

    @property
    def lake_size(self) -> int:
        return 52 - self.lake_next


def _receive(state: PecheState, seat: int, card: str, from_deck: bool, events: list | None) -> None:
    """A card joins ``seat``'s hand; a second card of its rank pairs at once."""
    rank = _RANK_OF[card]
    hand = state.hands[seat]
    if rank in hand:
        del hand[rank]
        state.pairs[seat].append(rank)
        state.pairs_by_rank[rank] += 1
        if seat == PLAYER:
            state.knowledge.known.discard(rank)
            state.knowledge.absent[rank] = state.knowledge.draws
        if events is not None:
            events.append({"type": "pair", "seat": seat, "rank": rank})
        if len(state.pairs[0]) + len(state.pairs[1]) == ALL_PAIRS:
            state.over = True
        return
    hand[rank] = card
    if seat == PLAYER and from_deck:
        state.knowledge.draws += 1


def _draw(state: PecheState, seat: int, why: str, events: list | None) -> None:
    card = state.deck[state.lake_next]
    state.lake_next += 1
    if events is not None:
        events.append({"type": "draw", "seat": seat, "card": card, "why": why})
    _receive(state, seat, card, True, events)


def _ask(state: PecheState, seat: int, rank: str, events: list | None) -> None:
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
        events.append({"type": "ask", "seat": seat, "rank": rank, "given": given is not None})
    if given is not None:
        _receive(state, seat, given, False, events)
        return  # the same mover plays again
    if fished:
        _draw(state, seat, "fish", events)
    state.turn = other


@cache
def _miss_chance(total: int, unseen: int, k: int) -> tuple[int, int]:
    """N/D = Π_{i<k} (total − unseen − i) / (total − i): the chance that none of the
    ``unseen`` cards of a rank is among ``k`` of ``total`` unknown cards (exact)."""
    if k > total - unseen:
        return 0, 1  # a factor reaches 0: the rank must turn up among k unknown cards
    n = d = 1
    for i in range(k):
        n *= total - unseen - i
        d *= total - i
    return n, d


def opponent_choice(state: PecheState) -> str:
    """The perfect-memory opponent's ask (RULES.md §2), from public knowledge only."""
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
    pairs_by_rank = state.pairs_by_rank
    best_rank = None
    # P(r) = 1 - N/D; the highest P is the lowest N/D, compared as integers.
    best_n = best_d = 1
    for rank in hand:
        seen_at = absent.get(rank)
        k = m if seen_at is None or draws - seen_at > m else draws - seen_at
        n, d = _miss_chance(total, 3 - 2 * pairs_by_rank[rank], k)
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
        n, d = _miss_chance(total, 3 - 2 * state.pairs_by_rank[held], k)
        chances[held] = 1 - n / d
    return {"rank": rank, "known": False, "chances": chances}


def _advance(state: PecheState, events: list | None) -> None:
    """Play every step that needs no decision of the player."""
    hands = state.hands
    while not state.over:
        seat = state.turn
        if not hands[seat]:
            if state.lake_next < 52:
                _draw(state, seat, "empty_hand", events)
            elif events is not None:
                events.append({"type": "pass", "seat": seat})
            state.turn = 1 - seat
        elif seat == PLAYER:
            return
        else:
            if state.reasons is not None:
                state.reasons.append(opponent_reasons(state))
            _ask(state, OPPONENT, opponent_choice(state), events)
    if events is not None:
        events.append({"type": "end", **outcome_of(state)})


def _table(state: PecheState) -> dict[str, Any]:
    """Everything on the table, both hands and the lake face up (a finished day only)."""
    return {
        "hands": [list(state.hands[PLAYER].values()), list(state.hands[OPPONENT].values())],
        "lake": state.deck[state.lake_next :],
        "pairs": [list(state.pairs[PLAYER]), list(state.pairs[OPPONENT])],
        "asks": list(state.asks),
        "over": state.over,
        "outcome": outcome_of(state) if state.over else None,
    }


def outcome_of(state: PecheState) -> dict[str, Any]:
    mine, theirs = len(state.pairs[PLAYER]), len(state.pairs[OPPONENT])
    return {
        "outcome": "win" if mine > theirs else "loss" if mine < theirs else "draw",
        "player_pairs": mine,
        "opponent_pairs": theirs,
        "score": 1000 + 30 * (mine - theirs),
        "player_asks": state.asks[PLAYER],
        "opponent_asks": state.asks[OPPONENT],
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

    def apply(self, state: PecheState, move: Any) -> list[dict[str, Any]]:
        if state.over:
            raise GameError("game_over", "the game is over")
        _check_ask(state, move)
        events: list[dict[str, Any]] = []
        _ask(state, PLAYER, move, events)
        _advance(state, events)
        return events

    def is_over(self, state: PecheState) -> bool:
        return state.over

    def outcome(self, state: PecheState) -> dict[str, Any]:
        if not state.over:
            raise GameError("not_over", "the game is not over")
        return outcome_of(state)

    def view(self, state: PecheState, seat: int) -> dict[str, Any]:
        other = 1 - seat
        mine, theirs = ("player", "opponent") if seat == PLAYER else ("opponent", "player")
        return {
            "hand": list(state.hands[seat].values()),
            f"{mine}_pairs": list(state.pairs[seat]),
            f"{theirs}_pairs": list(state.pairs[other]),
            f"{theirs}_hand_size": len(state.hands[other]),
            "lake_size": state.lake_size,
            "asks": state.asks[seat],
            f"{theirs}_asks": state.asks[other],
            "history": [{"seat": s, "rank": r, "given": g, "fished": f} for s, r, g, f in state.history],
            "turn": None if state.over else ("player" if state.turn == PLAYER else "opponent"),
            "over": state.over,
            "outcome": outcome_of(state) if state.over else None,
        }

    def event_view(self, event: dict[str, Any], seat: int) -> dict[str, Any]:
        if event["type"] == "draw" and event["seat"] != seat:
            return {k: v for k, v in event.items() if k != "card"}
        return dict(event)

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
            events: list[dict[str, Any]] = []
            state.reasons = []
            _ask(state, PLAYER, move, events)
            _advance(state, events)
            steps.append({"ask": move, "events": events, "reasons": state.reasons, **_table(state)})
        state.reasons = None
        return steps

    def conformance(self, case: dict[str, Any]) -> dict[str, Any]:
        try:
            moves: Any = case.get("moves")  # as given: replay refuses a malformed one (bad_input)
            return outcome_of(self.replay(case, moves))
        except ReplayError as exc:
            return exc.as_dict()


ENGINE = PecheEngine()
