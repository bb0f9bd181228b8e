"""What every benchmark shares: the machine and the commit it prints next to its figures, and
the medians over rounds. (The processes a benchmark starts, a redis-server and a Celery
worker, are the tests' own: harness/servers.py.)"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
from collections.abc import Iterable
from pathlib import Path

# --- the machine -----------------------------------------------------------------------


def cpu_model() -> str:
    """The CPU's model name (/proc/cpuinfo), else what the platform says."""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        model = ""
    return model or platform.processor() or platform.machine()


def cpu() -> str:
    """The CPU and its cores: "AMD EPYC, 2 cores"."""
    return f"{cpu_model()}, {os.cpu_count()} cores"


def machine() -> str:
    """One line: the CPU, its cores and the Python that ran."""
    return f"{cpu()}, python {platform.python_version()}"


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def machine_rows(pg_url: str) -> list[tuple[str, str]]:
    """The machine in full, for a report's header: CPU, memory, kernel, Python, the Postgres
    at ``pg_url`` (version and the settings that move figures) and redis-server's version."""
    import psycopg

    mem_kib = int(
        next(line.split()[1] for line in Path("/proc/meminfo").read_text().splitlines() if "MemTotal" in line)
    )
    with psycopg.connect(f"{pg_url}/postgres") as conn:
        pg = {
            name: conn.execute(f"show {name}").fetchone()[0]
            for name in (
                "server_version",
                "shared_buffers",
                "work_mem",
                "max_connections",
                "synchronous_commit",
                "fsync",
                "wal_level",
                "jit",
            )
        }
    redis_version = subprocess.run(
        ["redis-server", "--version"], capture_output=True, text=True, timeout=60, check=True
    ).stdout.strip()
    return [
        ("CPU", cpu()),
        ("memory", f"{mem_kib / 2**20:.1f} GiB"),
        ("kernel", platform.release()),
        ("Python", platform.python_version()),
        (
            "Postgres",
            "{server_version}; shared_buffers {shared_buffers}, work_mem {work_mem}, "
            "max_connections {max_connections}, synchronous_commit {synchronous_commit}, fsync {fsync}, "
            "wal_level {wal_level}, jit {jit}".format(**pg),
        ),
        ("Redis", f"{redis_version}; each benchmark's own redis-server (harness/servers.py: no persistence)"),
        ("load average at start", load_average()),
    ]


# --- the code --------------------------------------------------------------------------


def commit(*paths: str, length: int = 7) -> str:
    """HEAD's short hash, "+ uncommitted …" when ``paths`` (or, with none, any tracked file)
    differ from it, or "unknown" outside a git checkout."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", f"--short={length}", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", *paths],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    if not dirty:
        return head
    return f"{head} + uncommitted {' or '.join(paths) if paths else 'changes'}"


# --- rounds ----------------------------------------------------------------------------


def round_medians(runs: list[dict]) -> dict[str, float]:
    """The median over rounds of a load run's throughput, p50, p99 and web CPU per ask
    (bench.play_load's results)."""
    med = {k: statistics.median(r[k] for r in runs) for k in ("asks_per_s", "p50", "p99")}
    med["web"] = statistics.median(r["cpu_ms_per_ask"].get("web", 0.0) for r in runs)
    return med


def median_ratio(pairs: Iterable[tuple[float, float]]) -> float | None:
    """The median of each round's ratio (a / b), rounds whose b is 0 left out; None if none
    is left. Each round's pair was measured minutes apart at most: the ratio of the pair is
    steadier than the ratio of medians on a machine whose speed drifts."""
    ratios = [a / b for a, b in pairs if b]
    return statistics.median(ratios) if ratios else None
