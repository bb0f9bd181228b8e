"""Kitten fishing engine benchmark (not a test).

    .venv/bin/python -m bench.kitten_bench [--repeat N] [--vectors PATH] [--search START STOP]

Target: a full 5000-move game in at most 5 ms on one core. Natural games almost
always end sooner; ``LIMIT_GAME`` is a seed found by ``--search`` (seeds
``bench-<i>``) whose game really runs to the 5000-move limit. If it ever stopped
doing so, the benchmark falls back to 5000 moves across consecutive games and says so.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from games.rules.kitten import DEFAULT_LIMIT, ENGINE, play_to_end

LIMIT_GAME = {"seed": "bench-55798", "first": "opponent"}  # 5000 moves, reason "limit"
TARGET_MS = 5.0
DEFAULT_VECTORS = Path(__file__).resolve().parents[1] / "tests" / "vectors" / "kitten.jsonl"


def _timed(fn, repeat: int) -> list[float]:
    """Seconds per call of ``fn(state)`` on a freshly dealt state (dealing not timed).
    The garbage collector stays on: its cost on event dicts is part of the real price."""
    times = []
    for _ in range(repeat):
        state = ENGINE.new(**LIMIT_GAME)
        t = time.perf_counter()
        fn(state)
        times.append(time.perf_counter() - t)
    return times


def _by_hand(state) -> None:
    while not state.over:
        ENGINE.apply(state, "flip")


def _report(label: str, times: list[float], moves: int) -> float:
    med = statistics.median(times)
    print(
        f"  {label:<34} median {med * 1e3:7.3f} ms  min {min(times) * 1e3:7.3f} ms  ({med / moves * 1e6:.3f} µs/move)"
    )
    return med


def limit_game(repeat: int) -> None:
    state = ENGINE.new(**LIMIT_GAME)
    play_to_end(state, record=False)
    if state.reason == "limit" and state.moves == DEFAULT_LIMIT:
        print(
            f"5000-move game: {LIMIT_GAME} reaches the limit naturally "
            f"(winner {state.winner}, piles {len(state.player_pile)}/{len(state.opponent_pile)})"
        )
        moves = state.moves
        fast = _report("fast path (no events)", _timed(lambda s: play_to_end(s, record=False), repeat), moves)
        _report("See result (events recorded)", _timed(play_to_end, max(3, repeat // 10)), moves)
        _report("flip by hand (apply each flip)", _timed(_by_hand, max(3, repeat // 10)), moves)
    else:
        print(
            f"{LIMIT_GAME} no longer reaches the limit; measuring 5000 moves across "
            "consecutive games (seeds bench-0, bench-1, ...) instead"
        )
        fast = consecutive_moves(DEFAULT_LIMIT, repeat)
    verdict = "met" if fast * 1e3 <= TARGET_MS else "NOT met"
    print(f"  target ≤ {TARGET_MS} ms per 5000-move game: {verdict} ({fast * 1e3:.3f} ms)")


def consecutive_moves(total: int, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        moves, i, elapsed = 0, 0, 0.0
        while moves < total:
            state = ENGINE.new(seed=f"bench-{i}", limit=total - moves)
            t = time.perf_counter()
            play_to_end(state, record=False)
            elapsed += time.perf_counter() - t
            moves += state.moves
            i += 1
        times.append(elapsed)
    return _report(f"{total} moves over consecutive games", times, total)


def conformance_rate(path: Path, repeat: int) -> None:
    cases = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    inputs = [{k: v for k, v in case.items() if k != "expect"} for case in cases]
    wrong = sum(ENGINE.conformance(i) != c["expect"] for i, c in zip(inputs, cases))
    moves = sum(c["expect"]["moves"] for c in cases)
    best = float("inf")
    for _ in range(max(3, repeat // 10)):
        t = time.perf_counter()
        for case in inputs:
            ENGINE.conformance(case)
        best = min(best, time.perf_counter() - t)
    print(f"conformance over {path.name}: {len(cases)} cases ({wrong} wrong), {moves} moves")
    print(
        f"  {len(cases) / best:,.0f} cases/s  ({best * 1e3:.1f} ms for the file, "
        f"seeded shuffle included; {moves / best / 1e6:.2f} M moves/s)"
    )


def search(start: int, stop: int) -> None:
    """Seeds ``bench-<i>`` whose natural game reaches the limit, and the longest seen."""
    longest = (0, None)
    for i in range(start, stop):
        for first in ("player", "opponent"):
            state = ENGINE.new(seed=f"bench-{i}", first=first)
            play_to_end(state, record=False)
            if state.moves > longest[0]:
                longest = (state.moves, (f"bench-{i}", first))
            if state.reason == "limit":
                print("reaches the limit:", {"seed": f"bench-{i}", "first": first}, flush=True)
    print("longest:", longest)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--vectors", type=Path, default=DEFAULT_VECTORS)
    parser.add_argument("--search", type=int, nargs=2, metavar=("START", "STOP"))
    args = parser.parse_args()
    if args.search:
        search(*args.search)
        return
    limit_game(args.repeat)
    consecutive_moves(DEFAULT_LIMIT, max(3, args.repeat // 10))
    if args.vectors.exists():
        conformance_rate(args.vectors, args.repeat)
    else:
        print(f"no vectors at {args.vectors}")


if __name__ == "__main__":
    main()
