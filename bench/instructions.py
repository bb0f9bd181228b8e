"""Instructions per request (not a test): the ask's cost counted, not timed.

    .venv/bin/python -m bench.instructions                    # this tree
    .venv/bin/python -m bench.instructions --against 7670327  # side by side with a commit

CPU time on this machine swings by ±30 % between runs minutes apart (docs/benchmarks.md),
more than most changes to the ask. valgrind's callgrind counts the instructions the
interpreter executes instead: the same for the same code and inputs whatever else the
machine does, so two trees compare to the percent in one run, and a rerun gives the same
figure. Instructions are not time (a cache miss or a syscall's kernel side costs nothing
here), so `bench.ask_cpu` stays the figure of record; this one is the ratio.

Each tree runs `bench/instructions_child.py` (this tree's file, the other tree's code) under
callgrind, collecting only inside ``sys.call_tracing``, once per subject: everything before
(start-up, migrations, warm-up, making the games) is not counted. The child speaks only
the public API (POST /api/players, POST .../attempt, POST .../asks), so it runs any commit
that has them. Each tree gets a database of its own (created fresh, dropped at the end)
and both share one redis-server of this process's own, a database number each.

Subjects, per request (the median over --asks requests would need timing; this is the
mean, which is what instructions add up to):
- token ask: ``Authorization: Token``, the whole request through every middleware;
- browser ask: the session cookie and the CSRF header;
- GET /healthz: the floor.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.pgdb import drop_databases, fresh_database
from bench.provenance import commit as provenance_commit
from bench.provenance import cpu
from bench.report import worktree
from harness.servers import RedisServer, free_port

ROOT = Path(__file__).resolve().parents[1]
CHILD = ROOT / "bench" / "instructions_child.py"
SUBJECTS = ("token ask", "browser ask", "healthz")
SEED_SECRET = os.environ.get("DAILY_SEED_SECRET") or "bench-instructions"


def count(tree: Path, db_url: str, redis_url: str, asks: int) -> dict[str, float]:
    """Instructions per request of each subject, in ``tree``'s code."""
    out = Path(tempfile.mkdtemp(prefix="instr-"))
    env = {
        **os.environ,
        "PYTHONPATH": str(tree),
        "DATABASE_URL": db_url,
        "REDIS_URL": redis_url,
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        # As production: no query log kept per request.
        "DJANGO_DEBUG": "false",
        "LOG_LEVEL": "WARNING",
        # One client makes every player and every ask.
        "RATE_LIMIT_PLAYERS": "off",
        "RATE_LIMIT_ASKS": "off",
        # The same deal in every tree (each checkout has a seed secret file of its own): the
        # ask's cost depends on the deal, how many events each ask leads to.
        "DAILY_SEED_SECRET": SEED_SECRET,
    }
    try:
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--collect-atstart=no",
                "--toggle-collect=sys_call_tracing",
                # One dump per measured subject: callgrind.out.1, .2, ... in subject order.
                "--dump-after=sys_call_tracing",
                f"--callgrind-out-file={out}/callgrind.out",
                sys.executable,
                str(CHILD),
                str(asks),
                *SUBJECTS,
            ],
            cwd=tree,
            env=env,
            check=True,
            capture_output=True,
            text=True,
            timeout=3600,
        )
        parts = sorted(out.glob("callgrind.out.*"), key=lambda p: int(p.suffix[1:]))
        totals = []
        for part in parts:
            match = re.search(r"^summary: (\d+)", part.read_text(), re.M)
            totals.append(int(match.group(1)) if match else 0)
        measured = [t for t in totals if t > 0]
        if len(measured) != len(SUBJECTS):
            raise SystemExit(f"{tree}: expected {len(SUBJECTS)} measured parts, got {totals}")
        return {name: total / asks for name, total in zip(SUBJECTS, measured, strict=True)}
    except subprocess.CalledProcessError as error:
        raise SystemExit(f"{tree}: the child failed\n{error.stdout[-3000:]}\n{error.stderr[-3000:]}") from None
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", help="a commit measured beside this tree (a git worktree of it)")
    parser.add_argument("--asks", type=int, default=200, help="requests counted per subject")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind not found (apt-get install valgrind)")
    trees = [("this tree", ROOT)]
    if args.against:
        trees.insert(0, (args.against, worktree(args.against)))
    redis = RedisServer(free_port())
    redis.start()
    results: dict[str, dict[str, float]] = {}
    try:
        for number, (name, tree) in enumerate(trees, start=1):
            db = f"bench_instr_{os.getpid()}_{number}"
            try:
                results[name] = count(tree, fresh_database(db), redis.url_for(number), args.asks)
            finally:
                drop_databases(db)
    finally:
        redis.kill()
    print(f"commit {provenance_commit()}, {cpu()}; {args.asks} requests per subject")
    print("Instructions per request (callgrind, thousands):")
    header = "".join(f"{name:>16}" for name, _ in trees)
    ratio = "           ratio" if args.against else ""
    print(f"  {'':<14}{header}{ratio}")
    for subject in SUBJECTS:
        row = "".join(f"{results[name][subject] / 1000:16,.1f}" for name, _ in trees)
        if args.against:
            row += f"{results['this tree'][subject] / results[args.against][subject]:15.3f}x"
        print(f"  {subject:<14}{row}")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
