"""The figures the benchmarks (and a simulated player's run) report, written once."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence


def quantile(ordered: Sequence[float], p: float) -> float:
    """The ``p`` quantile of samples already sorted (the nearest rank at or below it)."""
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def percentiles(samples: Sequence[float]) -> tuple[float, float]:
    """(median, p99) of durations in seconds, in milliseconds."""
    ordered = sorted(samples)
    return statistics.median(ordered) * 1000, quantile(ordered, 0.99) * 1000


def wilson(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95 % Wilson score interval for a binomial proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))
