"""The rank index's public page (not a test): a page of the day's set (rank_index.page, the
ranking with everybody) against a page of its listed set with each entry's true rank
(rank_index.listed_page, what the public board reads now that a provisional newcomer's
result is left out), on a day of N members of which 10 % are provisional; and the same
listed page with one ZRANK per entry (the first form of the script), for comparison.

Redis CPU a page is INFO commandstats' usec (for a script its EVALSHA, whose inner commands
commandstats counts again); wall time is the client's, per call, on this machine's own
redis-server (bench/own_redis.py).

    .venv/bin/python -m bench.listed_page [N]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

import django  # noqa: E402

from bench.own_redis import own_redis  # noqa: E402
from bench.provenance import commit, load_average, machine  # noqa: E402
from harness.stats import quantile  # noqa: E402

PAGE = 50
PROVISIONAL = 0.10
# The listed page's first form: one ZRANK per entry (kept here to compare with).
_A_RANK_EACH = """
if redis.call('EXISTS', KEYS[3]) == 0 then return false end
local out = {redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[2])}
for _, m in ipairs(redis.call('ZRANGE', KEYS[2], ARGV[1], ARGV[2])) do
  out[#out + 1] = m
  out[#out + 1] = redis.call('ZRANK', KEYS[1], m) or -1
end
return out
"""


def main(size: int) -> None:
    url = own_redis("BENCH_REDIS_URL")
    django.setup()
    from django.test import override_settings

    from leaderboard import rank_index

    rng = random.Random(5)
    with override_settings(REDIS_URL=url):
        client = rank_index._redis(bulk=True)
        client.flushdb()
        rows = (
            (
                aid,
                rank_index.sort_key(
                    score=rng.randrange(700, 1300), asks=rng.randrange(15, 60), finished_ms=rng.randrange(86_400_000)
                ),
                rng.random() >= PROVISIONAL,
            )
            for aid in range(1, size + 1)
        )
        started = time.perf_counter()
        count = rank_index.rebuild(1, rows)
        built = time.perf_counter() - started
        listed = client.zcard(rank_index.listed_key(1))
        full_mib = client.memory_usage(rank_index.key(1), samples=0) / 2**20
        listed_mib = client.memory_usage(rank_index.listed_key(1), samples=0) / 2**20
        a_rank_each = client.register_script(_A_RANK_EACH)
        keys = [rank_index.key(1), rank_index.listed_key(1), rank_index.ready_key(1)]
        for offset in (0, 1000, listed // 2):  # both forms give the same ranks
            found = a_rank_each(keys=keys, args=[offset, offset + PAGE - 1])
            expected = [(int(m), r) for m, r in zip(found[2::2], found[3::2], strict=True)]
            assert rank_index.listed_page(1, offset, PAGE)[2] == expected, offset

        print(f"# listed page, {time.strftime('%Y-%m-%d')}, commit {commit()}, {machine()}")
        print(f"load average {load_average()}")
        print(
            f"day of {count:,} members, {listed:,} listed; rebuild {built:.1f} s (both sets);"
            f" memory {full_mib:.1f} MiB (day) + {listed_mib:.1f} MiB (listed)"
        )
        offsets = [0] * 500 + [rng.randrange(0, listed - PAGE) for _ in range(500)]
        forms = (
            ("page (everybody)", lambda o: rank_index.page(1, o, PAGE)),
            ("listed_page", lambda o: rank_index.listed_page(1, o, PAGE)),
            ("listed, a ZRANK each", lambda o: a_rank_each(keys=keys, args=[o, o + PAGE - 1])),
        )
        for name, call in forms:
            for _ in range(200):
                call(0)
            client.config_resetstat()
            walls = []
            for offset in offsets:
                started = time.perf_counter()
                call(offset)
                walls.append((time.perf_counter() - started) * 1e6)
            stats = client.info("commandstats")
            if "cmdstat_evalsha" in stats:
                usec = stats["cmdstat_evalsha"]["usec"]
            else:
                usec = sum(v["usec"] for v in stats.values())
            walls.sort()
            print(
                f"{name}: Redis CPU {usec / len(offsets):.1f} µs a page of {PAGE}; wall median"
                f" {statistics.median(walls):.0f} µs, p99 {quantile(walls, 0.99):.0f} µs"
                " (half at offset 0, half at random offsets)"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("size", type=int, nargs="?", default=1_000_000, help="members of the day's set")
    main(parser.parse_args().size)
