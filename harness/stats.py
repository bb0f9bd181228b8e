"""The figures the benchmarks (and a simulated player's run) report, and the CPU counts they
come from, written once."""

from __future__ import annotations

import math
import os
import statistics
from collections.abc import Sequence

# Clock ticks a second: the unit of /proc's CPU times.
TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def quantile(ordered: Sequence[float], p: float) -> float:
    """The ``p`` quantile of samples already sorted (the nearest rank at or below it)."""
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def percentiles(samples: Sequence[float]) -> tuple[float, float]:
    """(median, p99) of durations in seconds, in milliseconds."""
    ordered = sorted(samples)
    return statistics.median(ordered) * 1000, quantile(ordered, 0.99) * 1000


def mean_interval(values: Sequence[float], z: float = 1.959964) -> tuple[float, float]:
    """(mean, half width of its 95 % interval), the normal approximation; 0 for one value."""
    mean = statistics.fmean(values)
    half = z * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return mean, half


def wilson(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95 % Wilson score interval for a binomial proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def proc_stat(pid: int | str) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name (state first: [1] is the parent,
    [2] the process group, [3] the session, [11] and [12] user and system ticks); None once
    the process is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].decode().split()
    except OSError:
        return None


def stat_cpu(fields: list[str]) -> float:
    """CPU seconds (user + system) of a process, from its proc_stat fields."""
    return (int(fields[11]) + int(fields[12])) / TICK


def process_cpu(pid: int | str) -> float | None:
    """CPU seconds a live process has used; None once it is gone."""
    fields = proc_stat(pid)
    return None if fields is None else stat_cpu(fields)


def redis_cpu(client) -> float:
    """CPU seconds redis-server has used, by its own count (INFO cpu)."""
    info = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
