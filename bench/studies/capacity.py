"""A design study, the capacity model (docs/capacity.md): from the measured CPU each process
spends per ask, what 100k, 1M and 10M players a day need at their peak, and what saturates
first.

    .venv/bin/python -m bench.studies.capacity                      # the figures docs/capacity.md quotes
    .venv/bin/python -m bench.studies.capacity --web-ms 4.49        # another machine's web cost
    .venv/bin/python -m bench.studies.capacity --costs report.json  # costs from a bench report

Not a measurement: arithmetic on measurements. The per-ask costs default to the whole
production stack's figures in docs/reports/bench-2026-12-01-970fa684a2.md (`scripts/stack`,
64 browsers offering 500 asks/s, median of 3 rounds). Those runs sign up a new player for
every game, so they over-count signups (a real player signs up once). The
asks per game are not assumed: they are counted by playing the engine (games.rules.peche)
on many seeds with two simple players. The daily curve is an assumption, stated in full.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from dataclasses import asdict, dataclass, fields

from games.rules.peche import ENGINE

# ms of CPU per ask, by process: the make-bench report docs/reports/bench-2026-12-01-970fa684a2.md
# (the full stack, 64 browsers offering 500/s, median of 3 rounds of this tree): web is
# gunicorn (3.32) plus the nginx in front (0.19); the worker's is the verification of
# finished games spread over their asks; Redis counts the session, the ask limit and the
# broker. The load generator's CPU (0.37) is the clients', not the site's.
COSTS_SOURCE = "docs/reports/bench-2026-12-01-970fa684a2.md, full stack at 500 asks/s offered, median of 3 rounds"


@dataclass
class Costs:
    web_ms: float = 3.51
    postgres_ms: float = 0.83
    worker_ms: float = 0.53
    redis_ms: float = 0.23


# Bytes per stored game: a closed day's attempt with 27 asks, heap + indexes, and its result
# (bench.studies.partitioning at ac23121, docs/partitioning.md: 558 and 189 bytes at 30 days x 10,000,
# 570 and 191 at 90 x 5,000), and per result in the Redis rank index (docs/benchmarks.md,
# leaderboard at scale: ~120 bytes per member).
ATTEMPT_BYTES = 570
RESULT_BYTES = 190
RANK_INDEX_BYTES = 120

# The local daily curve of a once-a-day game released at local midnight: the share of a
# time zone's games started in each local hour (0-23). An assumption, shaped like published
# daily-puzzle traffic: a release bump just after midnight, a morning peak (commute and
# breakfast), lunch, and a larger evening peak; quiet from 2 to 6.
LOCAL_HOURLY = [
    3.0, 1.6, 0.6, 0.3, 0.3, 0.6, 2.0, 5.0, 6.5, 5.5, 4.5, 4.5,
    6.0, 5.5, 4.5, 4.0, 4.0, 4.5, 5.5, 6.5, 7.0, 6.5, 5.0, 4.1,
]  # fmt: skip
# Where the players are (UTC offset in hours -> share). A French-named game: mostly Europe,
# then the Americas and some Asia-Pacific. Concentration is what raises the peak: the
# more players share one zone, the more their evening peaks coincide.
ZONES = {1: 0.55, 0: 0.10, 2: 0.10, -5: 0.12, -8: 0.05, 8: 0.05, 10: 0.03}
# Within the peak hour, the busiest minute over the hour's mean: notifications, a release
# at midnight, a link shared at once. Assumed; Poisson noise alone is negligible at these rates.
PEAK_MINUTE_OVER_HOUR = 1.5
# Keep every process below this share of its cores at the peak minute (an assumption: a
# saturated machine only queues; docs/capacity.md, "Headroom").
UTILISATION = 0.6
# Requests of a game that are not asks (the page, the attempt's view, the leaderboard, the
# player's /me) and their web CPU: one request at about the ask's framework cost under load.
OTHER_REQUESTS = 5
OTHER_WEB_MS = 1.0
# Retention (docs/partitioning.md): today, yesterday and a month of closed days stay in
# Postgres as rows; older days live on as their archive files.
LIVE_DAYS = 35
# The largest Postgres primary this plan assumes before sharding by day (cores).
PRIMARY_MAX_CORES = 32
GAMES_PER_PLAYER = 1.2  # the ranked game, and now and then a practice replay of a past day


def asks_per_game(seeds: int) -> dict[str, float]:
    """Asks in a complete game, played by the engine itself on ``seeds`` deals: a player who
    always asks the first rank in hand, and one who asks a random rank in hand."""
    counts: dict[str, list[int]] = {"first rank in hand": [], "random rank in hand": []}
    for i in range(seeds):
        seed = f"capacity-{i}"
        for name, pick in (
            ("first rank in hand", lambda moves, rng: moves[0]),
            ("random rank in hand", lambda moves, rng: rng.choice(moves)),
        ):
            rng = random.Random(seed)
            state = ENGINE.new(seed=seed)
            asks = 0
            while not ENGINE.is_over(state):
                ENGINE.apply(state, pick(ENGINE.legal_moves(state), rng))
                asks += 1
            counts[name].append(asks)
    every = [n for values in counts.values() for n in values]
    out = {f"mean, {name}": statistics.fmean(values) for name, values in counts.items()}
    out["mean, both"] = statistics.fmean(every)
    out["p95, both"] = sorted(every)[int(len(every) * 0.95)]
    return out


def utc_curve() -> list[float]:
    """Share of the day's games per UTC hour: each zone's local curve shifted by its offset."""
    total = sum(LOCAL_HOURLY)
    curve = [0.0] * 24
    for offset, share in ZONES.items():
        for local, weight in enumerate(LOCAL_HOURLY):
            curve[(local - offset) % 24] += share * weight / total
    return curve


@dataclass
class Row:
    players: int
    mean_asks_s: float
    peak_asks_s: float
    web_cores: float
    postgres_cores: float
    worker_cores: float
    redis_cores: float
    attempts_gib_day: float
    rank_index_gib_day: float


def model(players: int, costs: Costs, asks: float, peak_factor: float) -> Row:
    games = players * GAMES_PER_PLAYER
    mean_asks = games * asks / 86_400
    peak_asks = mean_asks * peak_factor
    peak_games = peak_asks / asks

    def cores(ms_per_ask: float, extra_ms_per_game: float = 0.0) -> float:
        return (peak_asks * ms_per_ask + peak_games * extra_ms_per_game) / 1000 / UTILISATION

    return Row(
        players=players,
        mean_asks_s=mean_asks,
        peak_asks_s=peak_asks,
        web_cores=cores(costs.web_ms, OTHER_REQUESTS * OTHER_WEB_MS),
        postgres_cores=cores(costs.postgres_ms),
        worker_cores=cores(costs.worker_ms),
        # Each non-ask request reads the session too: one round trip, as an ask's.
        redis_cores=cores(costs.redis_ms, OTHER_REQUESTS * costs.redis_ms),
        attempts_gib_day=games * (ATTEMPT_BYTES + RESULT_BYTES) / 2**30,
        rank_index_gib_day=players * RANK_INDEX_BYTES / 2**30,
    )


def what_is_added(row: Row) -> str:
    """The deployment a row needs, naming the limit that binds first."""
    steps = []
    if row.web_cores + row.postgres_cores + row.worker_cores + row.redis_cores <= 2:
        return "this machine (2 cores) holds it"
    web_machines = math.ceil(row.web_cores / 8)
    steps.append(f"web: {math.ceil(row.web_cores)} cores (gunicorn sync workers = cores; {web_machines} x 8-core)")
    steps.append(f"workers: {math.ceil(row.worker_cores)} cores")
    pg = math.ceil(row.postgres_cores)
    steps.append(
        f"Postgres primary: {pg} cores" + (" (one primary still; past ~32 cores shard by day)" if pg > 8 else "")
    )
    if row.redis_cores > 1:
        steps.append(
            f"Redis: {row.redis_cores:.1f} cores of single-threaded work -> split sessions/cache, broker and rank index"
            " into separate instances (or Redis Cluster for the cache)"
        )
    else:
        steps.append(f"Redis: one instance ({row.redis_cores:.2f} of its one core)")
    return "; ".join(steps)


def load_costs(path: str | None, overrides: dict[str, float | None]) -> tuple[Costs, str]:
    costs, source = Costs(), COSTS_SOURCE
    if path:
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
        known = {f.name for f in fields(Costs)}
        unknown = set(report) - known
        if unknown:
            raise SystemExit(f"{path}: unknown costs {sorted(unknown)} (known: {sorted(known)})")
        costs = Costs(**{**asdict(costs), **report})
        source = f"{path} (the rest: {COSTS_SOURCE})"
    given = {k: v for k, v in overrides.items() if v is not None}
    if given:
        costs = Costs(**{**asdict(costs), **given})
        source += "; overridden: " + ", ".join(f"{k} = {v}" for k, v in given.items())
    for name, value in asdict(costs).items():
        if not value > 0:
            raise SystemExit(f"{name} = {value}: a cost per ask must be positive")
    return costs, source


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--costs", help="a JSON file of per-ask ms of CPU: web_ms, postgres_ms, worker_ms, redis_ms")
    for field in fields(Costs):
        parser.add_argument(f"--{field.name.replace('_', '-')}", type=float, help=f"override {field.name}")
    parser.add_argument("--seeds", type=int, default=2000, help="deals played to count the asks per game")
    parser.add_argument("--players", type=int, nargs="+", default=[100_000, 1_000_000, 10_000_000])
    parser.add_argument(
        "--peak-factor", type=float, help="the busiest minute over the day's mean (default: the curve's)"
    )
    parser.add_argument("--live-days", type=int, default=LIVE_DAYS, help="closed days kept in Postgres (retention)")
    args = parser.parse_args(argv)
    costs, source = load_costs(args.costs, {f.name: getattr(args, f.name) for f in fields(Costs)})

    asks = asks_per_game(args.seeds)
    per_game = asks["mean, both"]
    curve = utc_curve()
    peak_hour = max(curve) * 24
    peak_factor = args.peak_factor or peak_hour * PEAK_MINUTE_OVER_HOUR
    one_zone = max(LOCAL_HOURLY) / statistics.fmean(LOCAL_HOURLY) * PEAK_MINUTE_OVER_HOUR
    busiest = curve.index(max(curve))

    print("bench.capacity: arithmetic on measured costs (not a measurement)")
    print(f"\nPer-ask CPU, ms: web {costs.web_ms}, Postgres {costs.postgres_ms}, worker {costs.worker_ms}, "
          f"Redis {costs.redis_ms} — from {source}")  # fmt: skip
    print(f"\nAsks per complete game, the engine on {args.seeds:,} deals each:")
    for name, value in asks.items():
        print(f"- {name}: {value:.1f}")
    print(
        f"\nDaily curve: the busiest UTC hour ({busiest:02d}:00) holds {max(curve):.1%} of the day's games "
        f"(x{peak_hour:.2f} the mean hour); busiest minute x{PEAK_MINUTE_OVER_HOUR} its hour: "
        f"peak factor x{peak_factor:.2f} over the day's mean"
        + (" (given by --peak-factor)." if args.peak_factor else ".")
        + f" Were every player in one time zone: x{one_zone:.2f} (every core figure below scales with it)."
    )
    print("UTC hour shares, %: " + " ".join(f"{h:02d}:{100 * s:.1f}" for h, s in enumerate(curve)))
    print(
        f"Sizing: every process at most {UTILISATION:.0%} busy at the peak minute; {GAMES_PER_PLAYER} games per "
        f"player; {OTHER_REQUESTS} other requests per game at {OTHER_WEB_MS} ms web CPU each."
    )

    # The model against the measurement it came from: one 2-core machine's ceiling.
    total_ms = costs.web_ms + costs.postgres_ms + costs.worker_ms + costs.redis_ms
    print(
        f"\nCheck on this machine: 2 cores / {total_ms:.2f} ms per ask = {2000 / total_ms:.0f} asks/s at 100 % "
        # What the costs' own reports measured (docs/reports/sockets-2026-12-03-331f2c3.md and
        # -0f0af0b.md, a quiet machine): to be moved with the costs.
        f"(the socket's closed loop measured 1,033-1,225 asks/s, the load generator on the same cores); "
        f"at {UTILISATION:.0%} busy: {2000 * UTILISATION / total_ms:.0f} asks/s."
    )

    rows = [model(n, costs, per_game, peak_factor) for n in args.players]
    print(
        "\n| players a day | mean asks/s | peak asks/s | web cores | Postgres cores | worker cores | Redis cores "
        "| attempts + results GiB/day | rank index GiB/day |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r.players:,} | {r.mean_asks_s:,.0f} | {r.peak_asks_s:,.0f} | {r.web_cores:.1f} | {r.postgres_cores:.1f} "
            f"| {r.worker_cores:.1f} | {r.redis_cores:.2f} | {r.attempts_gib_day:.2f} | {r.rank_index_gib_day:.2f} |"
        )
    print(f"\nStorage with {args.live_days} closed days live (retention), attempts + results:")
    for r in rows:
        print(f"- {r.players:,}: {r.attempts_gib_day * (args.live_days + 1):.1f} GiB in Postgres")

    # Where each single instance stops, in players a day: the machine as it is (every process
    # on 2 cores), Redis (one thread), the Postgres primary (one writer).
    per_player = model(1, costs, per_game, peak_factor)
    limits = {
        "this machine (2 cores, every process on them)": 2
        / (per_player.web_cores + per_player.postgres_cores + per_player.worker_cores + per_player.redis_cores),
        "one Redis (one core)": 1 / per_player.redis_cores,
        f"one Postgres primary ({PRIMARY_MAX_CORES} cores)": PRIMARY_MAX_CORES / per_player.postgres_cores,
    }
    print(f"\nWhere each single instance saturates ({UTILISATION:.0%} busy at the peak minute), players a day:")
    for name, players in sorted(limits.items(), key=lambda item: item[1]):
        print(f"- {name}: {players:,.0f}")

    print("\nWhat saturates first and what is added:")
    for r in rows:
        shares = {
            "web": r.web_cores,
            "Postgres": r.postgres_cores,
            "worker": r.worker_cores,
            "Redis": r.redis_cores,
        }
        first = max(shares, key=lambda k: shares[k])
        single = " (Redis is one thread: its limit is 1 core, not the machine's)" if r.redis_cores > 1 else ""
        print(f"- {r.players:,}: most CPU in {first}{single}. {what_is_added(r)}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
