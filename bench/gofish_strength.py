"""How strong is the Go Fish perfect-memory opponent? ``python -m bench.gofish_strength``

Plays seeded games between the simulated seats of games/rules/gofish.py and a *random
asker* (a random rank it holds, of a random seat holding cards; drawn from a
``random.Random`` seeded here — randomness is fine outside games/). Seats rotate
across games so that no side always starts. Reports, for the seat(s) of interest,
outright wins, shared wins (ties on books) and losses, with a 95 % Wilson interval
on the outright-win rate, against the rate equal play would give (1 / players).
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass

from games.rules.cards import RANK_INDEX, rank_of
from games.rules.gofish import ENGINE
from harness.stats import wilson


def random_ask(state, rng: random.Random) -> dict:
    seat = ENGINE.to_move(state)
    hand = state.hands[seat]
    ranks = sorted({rank_of(c) for c in hand}, key=RANK_INDEX.__getitem__)
    targets = [t for t in range(state.players) if t != seat and state.hands[t]]
    return {"seat": seat, "target": rng.choice(targets), "rank": rng.choice(ranks)}


def play(players: int, random_seats: frozenset[int], seed: str, rng: random.Random) -> dict:
    """One game: ``random_seats`` ask at random, every other seat is the engine's."""
    state = ENGINE.new(seed=seed, players=players, scripted=random_seats)
    while not ENGINE.is_over(state):
        ENGINE.apply(state, random_ask(state, rng))
    return ENGINE.outcome(state)


@dataclass
class Tally:
    games: int = 0
    wins: int = 0  # sole winner
    shared: int = 0  # among tied winners
    books: int = 0

    def add(self, winners: list[int], books: int, seat_set: set[int]) -> None:
        self.games += 1
        self.books += books
        ours = [w for w in winners if w in seat_set]
        if ours and len(winners) == len(ours) and len(ours) == 1:
            self.wins += 1
        elif ours:
            self.shared += 1

    def row(self, label: str, fair: float) -> str:
        lo, hi = wilson(self.wins, self.games)
        losses = self.games - self.wins - self.shared
        return (
            f"{label:<44} {self.games:>6} {self.wins / self.games:>7.1%}  [{lo:.1%}, {hi:.1%}]"
            f" {self.shared / self.games:>7.1%} {losses / self.games:>7.1%} {fair:>6.1%}"
            f" {self.books / self.games:>6.2f}"
        )


def scenario(players: int, n_random: int, focus: str, games: int, seed_prefix: str) -> Tally:
    """``focus`` is "engine" (one engine seat watched) or "random" (one random seat watched)."""
    rng = random.Random(f"{seed_prefix}/{players}/{n_random}/{focus}")
    tally = Tally()
    for g in range(games):
        rotation = g % players
        random_seats = frozenset((rotation + i) % players for i in range(n_random))
        if focus == "random":
            watched = rotation  # one of the random seats
        else:
            watched = (rotation + n_random) % players  # one engine seat
        outcome = play(players, random_seats, f"{seed_prefix}-{players}p-{g}", rng)
        tally.add(list(outcome.winners), outcome.counts[watched], {watched})
    return tally


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed-prefix", default="bench-gofish")
    args = parser.parse_args(argv)

    rows = [
        # (label, players, random seats, watched side)
        ("2p: engine vs random  (engine's result)", 2, 1, "engine"),
        ("2p: random vs random  (control, one seat)", 2, 2, "random"),
        ("4p: 1 engine vs 3 random (engine's result)", 4, 3, "engine"),
        ("4p: 1 random vs 3 engine (random's result)", 4, 1, "random"),
        ("4p: 4 random (control, one seat)", 4, 4, "random"),
    ]
    print(f"Go Fish opponent strength, {args.games} seeded games per row, seats rotated\n")
    header = f"{'match-up':<44} {'games':>6} {'wins':>7}  {'95% Wilson':<16} {'shared':>7} {'losses':>7} {'fair':>6} {'books':>6}"
    print(header)
    print("-" * len(header))
    started = time.perf_counter()
    for label, players, n_random, focus in rows:
        tally = scenario(players, n_random, focus, args.games, args.seed_prefix)
        print(tally.row(label, 1 / players), flush=True)
    print(
        f"\n'wins' = sole winner (Wilson interval on it); 'shared' = tied for most books;"
        f" 'fair' = 1/players; with 4 players ties happen, so the all-random row is the"
        f" like-for-like reference; 'books' = mean books of the watched seat."
        f" {time.perf_counter() - started:.1f}s"
    )


if __name__ == "__main__":
    main()
