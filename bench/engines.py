"""Engine benchmark (not a test): Pêche replays/s over the public vectors, on one core,
and the time of a 5000-move Kitten fishing game.

    .venv/bin/python -m bench.engines [--seconds 3]

Targets: >= 8,000 complete Pêche replays/s; a 5000-move kitten game <= 5 ms.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

from games.rules.cards import _shuffled
from games.rules.conformance import run_case
from games.rules.kitten import ENGINE as KITTEN
from games.rules.kitten import play_to_end
from games.rules.peche import ENGINE as PECHE

VECTORS = Path(__file__).resolve().parents[1] / "tests" / "vectors"  # the published vectors, copied
LIMIT_GAME = {"seed": "bench-55798", "first": "opponent"}  # reaches the 5000-move limit


def peche_cases() -> list[dict]:
    cases = [json.loads(line) for line in (VECTORS / "peche.jsonl").read_text().splitlines() if line.strip()]
    return [c for c in cases if "error" not in c["expect"]]


def replays_per_second(cases: list[dict], seconds: float, fn) -> float:
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for case in cases:
            fn(case)
        done += len(cases)
    return done / (time.perf_counter() - start)


def kitten_limit_game_ms(repeat: int = 50) -> tuple[float, int]:
    times, moves = [], 0
    for _ in range(repeat):
        state = KITTEN.new(**LIMIT_GAME)
        t = time.perf_counter()
        play_to_end(state, record=False)
        times.append(time.perf_counter() - t)
        moves = KITTEN.outcome(state).moves
    return statistics.median(times) * 1000, moves


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    cases = peche_cases()
    print(f"machine: {platform.machine()} {platform.processor() or ''} python {platform.python_version()}")
    # Side by side in one run: the bare engine replay and the full conformance path.
    # Each replay shuffles afresh (the deck cache emptied first), as the figures before the
    # cache did; then the same with the deck cached, as a day's asks and verifications
    # replay it (every game of a day deals one seed).
    bare = replays_per_second(cases, args.seconds, lambda c: (_shuffled.cache_clear(), PECHE.replay(c, c["moves"])))
    full = replays_per_second(cases, args.seconds, lambda c: (_shuffled.cache_clear(), run_case(c)))
    cached = replays_per_second(cases, args.seconds, lambda c: PECHE.replay(c, c["moves"]))
    print(
        f"peche complete replays ({len(cases)} public vectors): {bare:,.0f}/s engine.replay, "
        f"{full:,.0f}/s via conformance (target >= 8,000/s); ratio {bare / full:.2f}; "
        f"deck cached: {cached:,.0f}/s engine.replay"
    )
    ms, moves = kitten_limit_game_ms()
    print(f"kitten game of {moves} moves (seed {LIMIT_GAME['seed']}): {ms:.2f} ms median (target <= 5 ms)")


if __name__ == "__main__":
    main()
