"""What every benchmark prints next to its figures: the commit it measured and the CPU."""

from __future__ import annotations

import platform
import subprocess


def cpu_model() -> str:
    """The CPU's model name (/proc/cpuinfo), else what the platform says."""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        model = ""
    return model or platform.processor() or platform.machine()


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
