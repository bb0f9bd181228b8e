"""Fair play against a field (issue 47's measurement): does a player who knows the deal,
and knows the detector, take the top of a day's board unflagged? And does the honest side
of the detector hold for table-only policies built to break it? A Markdown report.

    .venv/bin/python -m bench.fairplay_field [--deals 30] [--field 2000] [--out docs/reports/...]

- **The field.** On each deal (seeds ``fairplay-field-<base + i>``), ``--field`` simulated
  players of the honest panel (``players.PANEL``, round-robin, each with its own rng): the
  day's score distribution.
- **The cheaters.** A deal-knowing search (``beam_line``) that evaluates the real detector
  on every line it keeps and drops a line once its figure (all channels, the partial game
  ``suspicion``) reaches its budget: the game threshold less ``--margin``, a fifth of the
  week threshold, and no budget at all. It keeps the better of the search's line and the
  best of ``--lines`` table-only lines it plays itself (panel and adversaries) under the
  same budget. Beside them the budgeted cheaters of ``players.budgeted`` and honest greedy.
  For each: its rank in the field on each deal, the detector's figures by channel, its gain
  over honest greedy on the same deals.
- **The honest side.** Every panel and adversary policy on ``--honest`` deals (seeds
  ``fairplay-honest-<base + i>``): games, five-game weeks and 60-game histories flagged;
  and how long a budgeted cheater's history survives.

Deterministic given the arguments (every random choice comes from a ``random.Random``
seeded by deal and player); only the times vary. At most two worker processes.
"""

from __future__ import annotations

import argparse
import copy
import datetime as dt
import math
import random
import shlex
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from bench.provenance import commit, cpu
from games import fairplay
from games.fairplay import detector, players
from games.rules import peche
from games.rules.cards import shuffled_deck
from games.rules.peche import OPPONENT, PLAYER, PecheState
from harness.stats import wilson

WEEK = 5
HISTORY = 60
SURVIVAL = 200  # the longest history a budgeted cheater is followed for
TOP_SHARE = 0.001  # "above the field's top 0.1 %"
GREEDY = "greedy on chances, ties leftmost"
BUDGETS = (0.3, 0.5)
AIMS = {  # issue 47
    "honest game": 0.005,
    "honest week": 0.002,
    "honest history": 0.001,
    "rank 1 under the game budget": 0.10,
    "rank 1 under the week budget": 0.05,
}
CHANNELS = tuple(name for name, _, _ in fairplay.SEGMENTS)


# --- The deal-knowing, detector-aware search --------------------------------------------


def _copy_watcher(watcher: fairplay.Watcher) -> fairplay.Watcher:
    """A watcher to play on without touching this one. Its evidence records are frozen, so
    they are shared, not copied: a plain deepcopy spent most of its time on them (0.4 ms
    against 0.06 ms per copy mid-game)."""
    memo: dict[int, Any] = {id(x): x for x in watcher.asks}
    memo.update((id(x), x) for x in watcher.outcomes)
    return copy.deepcopy(watcher, memo)


def _figure(watcher: fairplay.Watcher) -> fairplay.GameAssessment:
    return fairplay.GameAssessment(watcher.asks, watcher.outcomes)


def _key(state: PecheState) -> tuple:
    """What decides the rest of the game: two lines that reach the same key play on alike
    (the search keeps the one with the lower figure)."""
    k = state.knowledge
    return (
        state.lake_next,
        state.turn,
        tuple(state.hands[PLAYER]),
        tuple(state.hands[OPPONENT]),
        len(state.pairs[PLAYER]),
        frozenset(k.known),
        tuple(sorted(k.absent.items())),
        k.draws,
    )


def _value(state: PecheState) -> float:
    """How a line stands, for the search's cut: its pair difference, and half a pair for
    each card of the player's the opponent holds (a hit in reserve for the player) less
    each of the opponent's the player holds that the opponent knows of (a find it will
    make)."""
    mine, theirs = state.hands[PLAYER], state.hands[OPPONENT]
    reserve = sum(1 for r in mine if r in theirs)
    exposed = sum(1 for r in state.knowledge.known if r in theirs)
    return len(state.pairs[PLAYER]) - len(state.pairs[OPPONENT]) + 0.5 * (reserve - exposed)


@dataclass(slots=True)
class Line:
    moves: tuple[str, ...]
    score: int
    suspicion: float
    source: str  # "search" or the table-only policy it came from


@dataclass(slots=True)
class SearchCost:
    lines: int = 0  # candidate lines judged
    seconds: float = 0.0  # CPU of the whole search
    judging: float = 0.0  # CPU of the detector on them (copies of the watcher and figures)


def beam_line(
    deck: list[str], budget: float, width: int, cost: SearchCost, limits: list[tuple[tuple[float, ...], float]] = ()
) -> Line | None:
    """The best line the search finds with the deck known whose figure stays under
    ``budget`` at every ask (so at the end). A beam over the player's asks: each kept line
    is extended by every rank in hand, played by the rules with the detector's watcher,
    judged, dropped at the budget; the ``width`` best by ``_value`` (lower figure first
    among equals) go on. ``limits``: more budgets a line must keep at every ask, each the sum
    of the profiles of earlier games (of its week, of its history) and the threshold that
    the sum with this game's profile so far must stay under, as the week and history rules
    read them."""
    started = time.process_time()
    watcher = fairplay.Watcher()
    state = peche.deal(list(deck), watcher)
    beam: list[tuple[PecheState, fairplay.Watcher, tuple[str, ...], float]] = [(state, watcher, (), 0.0)]
    best: Line | None = None
    while beam:
        kept: dict[tuple, tuple[float, float, PecheState, fairplay.Watcher, tuple[str, ...]]] = {}
        for state, watcher, moves, _ in beam:
            for rank in list(state.hands[PLAYER]):
                twin = state.copy()
                t0 = time.process_time()
                seen = _copy_watcher(watcher)
                peche.ask(twin, rank, seen)
                judged = _figure(seen)
                suspicion = judged.suspicion
                over = any(
                    fairplay.figure([a + b for a, b in zip(before, judged.profile)]) >= threshold
                    for before, threshold in limits
                )
                cost.judging += time.process_time() - t0
                cost.lines += 1
                if over or suspicion >= budget:
                    continue
                line = (*moves, rank)
                if twin.over:
                    score = peche.outcome_of(twin).score
                    if best is None or (score, -suspicion) > (best.score, -best.suspicion):
                        best = Line(line, score, suspicion, "search")
                    continue
                key = _key(twin)
                value = _value(twin)
                if key not in kept or suspicion < kept[key][1]:
                    kept[key] = (value, suspicion, twin, seen, line)
        ranked = sorted(kept.values(), key=lambda v: (-v[0], v[1]))[:width]
        beam = [(s, w, m, f) for _, f, s, w, m in ranked]
    cost.seconds += time.process_time() - started
    return best


def table_lines(seed: str, deck: list[str], count: int) -> list[Line]:
    """``count`` table-only lines the cheater plays itself on the deal (panel and
    adversaries, round-robin, its own rngs), judged as verification judges them."""
    policies = players.PANEL + players.ADVERSARIES
    out = []
    for j in range(count):
        name, chooser = policies[j % len(policies)]
        moves, assessed, outcome = players.play(deck, chooser, random.Random(f"{seed}/cheater-line/{j}"))
        assert outcome.score is not None  # a finished Pêche game always has its score
        out.append(Line(tuple(moves), outcome.score, assessed.suspicion, name))
    return out


def best_under(lines: list[Line | None], budget: float) -> Line:
    fit = [x for x in lines if x is not None and x.suspicion < budget]
    return max(fit, key=lambda x: (x.score, -x.suspicion))


# --- The jobs: a deal, an honest policy, a budgeted cheater's history -----------------------


def _judged(seed: str, moves: list[str], source: str) -> dict[str, Any]:
    """A line as verification judges it: replayed from the seed and judged from scratch."""
    state, assessed = fairplay.replay_assessed(seed, moves)
    tally = assessed.tallies().get("opponent", {"count": 0, "good": 0, "expected": 0.0})
    # The most the opponent's asks could say of this line, had none of them found a card:
    # each answer's weight grows with ρ toward 1/(the table's chance of no find).
    ceiling = sum(-math.log(o.p) for o in assessed.outcomes if o.channel == "opponent" and o.counted)
    return {
        "score": peche.outcome_of(state).score,
        "suspicion": assessed.suspicion,
        "channels": dict(assessed.channels),
        "flagged": assessed.flagged,
        "profile": assessed.profile,
        # the opponent's counted asks, how many found a card of the player's, and how many
        # the table expected to
        "opponent": (tally["count"], tally["count"] - tally["good"], tally["count"] - tally["expected"]),
        "source": source,
        "ceiling": ceiling,
    }


def _deal(job: tuple[str, int, int, int, float]) -> dict[str, Any]:
    """One deal: the field's scores, honest greedy, the cheaters."""
    seed, field, width, lines, margin = job
    deck = shuffled_deck(seed)
    started = time.process_time()
    scores = []
    finds = [0, 0, 0.0]
    for j in range(field):
        _, chooser = players.PANEL[j % len(players.PANEL)]
        _, assessed, outcome = players.play(deck, chooser, random.Random(f"{seed}/field/{j}"))
        scores.append(outcome.score)
        tally = assessed.tallies().get("opponent")
        if tally:
            finds[0] += tally["count"]
            finds[1] += tally["count"] - tally["good"]
            finds[2] += tally["count"] - tally["expected"]
    field_cpu = time.process_time() - started
    cheaters: dict[str, dict[str, Any]] = {}
    greedy_moves, _, _ = players.play(deck, dict(players.PANEL)[GREEDY], random.Random(f"{seed}/greedy"))
    cheaters[f"honest: {GREEDY}"] = _judged(seed, greedy_moves, "table")
    own = table_lines(seed, deck, lines)
    costs = {}
    for name, budget in _search_budgets(margin):
        cost = SearchCost()
        found = beam_line(deck, budget, width, cost)
        line = best_under([found, *own], budget)
        cheaters[name] = _judged(seed, list(line.moves), line.source)
        costs[name] = (cost.lines, cost.seconds, cost.judging)
    for t in BUDGETS:
        moves, _, _ = players.play(deck, players.budgeted(t), random.Random(f"{seed}/budgeted/{t}"))
        cheaters[_budgeted_name(t)] = _judged(seed, moves, "table")
    return {
        "seed": seed,
        "scores": scores,
        "finds": finds,
        "cheaters": cheaters,
        "costs": costs,
        "field_cpu": field_cpu,
    }


def _search_budgets(margin: float) -> list[tuple[str, float]]:
    return [
        (f"search, figure under the game threshold less {margin:g}", fairplay.FLAG_THRESHOLD - margin),
        ("search, no budget", math.inf),
    ]


WEEK_SEARCH = "search, its week's figure under the week threshold less the margin"
HISTORY_SEARCH = "search, its history's and its week's figures under their thresholds less the margin"


def _sequence(job: tuple[list[str], int, int, float, bool]) -> dict[str, Any]:
    """A cheater who plays the deals in order, the deck known, and knows the rules it must
    pass: each game under the game threshold, the week (its block of ``WEEK`` deals so far)
    under the week threshold, and with ``history`` every game so far under the history
    threshold, each less ``margin``, at every ask. Where nothing fits it plays honest
    greedy. Its line of each deal, judged."""
    seeds, width, lines, margin, history = job
    zero = (0.0,) * detector.PROFILE_LENGTH
    lifetime, week = zero, zero
    out: dict[str, dict[str, Any]] = {}
    costs = {}
    for i, seed in enumerate(seeds):
        if i % WEEK == 0:
            week = zero
        limits = [(week, fairplay.WEEK_THRESHOLD - margin)]
        if history:
            limits.append((lifetime, fairplay.HISTORY_THRESHOLD - margin))
        deck = shuffled_deck(seed)
        cost = SearchCost()
        found = beam_line(deck, fairplay.FLAG_THRESHOLD - margin, width, cost, limits)
        own = [x for x in table_lines(seed, deck, lines) if _within(seed, x, limits, margin)]
        fit = [x for x in (found, *own) if x is not None]
        if fit:
            line = max(fit, key=lambda x: (x.score, -x.suspicion))
        else:
            moves, _, _ = players.play(deck, dict(players.PANEL)[GREEDY], random.Random(f"{seed}/greedy"))
            line = Line(tuple(moves), 0, 0.0, "honest greedy: nothing fit")
        out[seed] = _judged(seed, list(line.moves), line.source)
        profile = out[seed]["profile"]
        week = tuple(a + b for a, b in zip(week, profile))
        lifetime = tuple(a + b for a, b in zip(lifetime, profile))
        costs[seed] = (cost.lines, cost.seconds, cost.judging)
    return {"lines": out, "costs": costs}


def _within(seed: str, line: Line, limits: list[tuple[tuple[float, ...], float]], margin: float) -> bool:
    """Whether a table-only line the cheater played itself keeps every budget."""
    if line.suspicion >= fairplay.FLAG_THRESHOLD - margin:
        return False
    _, assessed = fairplay.replay_assessed(seed, list(line.moves))
    return all(fairplay.figure([a + b for a, b in zip(before, assessed.profile)]) < t for before, t in limits)


def _budgeted_name(t: float) -> str:
    return f"budgeted, a held rank only where the table gives ≥ {t:g}"


def _honest(job: tuple[str, int, int]) -> dict[str, Any]:
    """One table-only policy on ``deals`` deals: each game's profile, figure and channels."""
    name, deals, base = job
    chooser = dict(players.PANEL + players.ADVERSARIES)[name]
    games = []
    started = time.process_time()
    for i in range(base, base + deals):
        seed = f"fairplay-honest-{i}"
        _, assessed, _ = players.play(shuffled_deck(seed), chooser, random.Random(f"{seed}/{name}"))
        games.append((assessed.profile, assessed.suspicion, dict(assessed.channels)))
    return {"name": name, "games": games, "cpu": time.process_time() - started}


def _survival(job: tuple[int, int, float]) -> dict[str, Any]:
    """A budgeted cheater's history, game after game: when it first flags (None: never
    within SURVIVAL games), and its games and five-game weeks flagged."""
    run, base, t = job
    chooser = players.budgeted(t)
    total: list[float] | None = None
    flagged_at = None
    games_flagged = 0
    week: list[tuple[float, ...]] = []
    weeks = weeks_flagged = 0
    for g in range(SURVIVAL):
        seed = f"fairplay-survival-{base + run * SURVIVAL + g}"
        _, assessed, _ = players.play(shuffled_deck(seed), chooser, random.Random(f"{seed}/budgeted/{t}"))
        games_flagged += assessed.flagged
        week.append(assessed.profile)
        if len(week) == WEEK:
            weeks += 1
            weeks_flagged += fairplay.accumulate(week).flagged
            week = []
        total = list(assessed.profile) if total is None else [a + b for a, b in zip(total, assessed.profile)]
        # a history is the sum of its games' profiles: read it as one stored profile
        if flagged_at is None and fairplay.accumulate([total], threshold=fairplay.HISTORY_THRESHOLD).flagged:
            flagged_at = g + 1
    return {
        "flagged_at": flagged_at,
        "games": SURVIVAL,
        "games_flagged": games_flagged,
        "weeks": weeks,
        "weeks_flagged": weeks_flagged,
    }


# --- The report ------------------------------------------------------------------------------


def _rate(hits: int, n: int) -> str:
    if not n:
        return "–"
    lo, hi = wilson(hits, n)
    return f"{hits}/{n} = {hits / n:.1%} ({lo:.1%}–{hi:.1%})"


def _finds(parts: list[tuple[float, float, float]]) -> str:
    count = sum(p[0] for p in parts)
    found = sum(p[1] for p in parts)
    expected = sum(p[2] for p in parts)
    if not count:
        return "–"
    return f"{found / count:.1%} (table {expected / count:.1%})"


def _channels(rows: list[dict[str, float]]) -> str:
    return " / ".join(f"{statistics.mean(r[c] for r in rows):+.2f}" for c in CHANNELS)


def _cheaters_section(deals: list[dict[str, Any]], field: int) -> list[str]:
    names = list(deals[0]["cheaters"])
    greedy = [d["cheaters"][f"honest: {GREEDY}"]["score"] for d in deals]
    top_count = max(1, math.ceil(TOP_SHARE * field))
    lines = [
        "## Who takes the top: the cheaters against the field",
        "",
        f"Rank 1 outright: a score above every one of the field's {field:,}. Above the top "
        f"{TOP_SHARE:.1%}: above the lowest score of the field's best {top_count}. Weeks: the deals "
        f"taken {WEEK} at a time in order, at the week threshold. Figures: the mean of each channel "
        "of the game's figure (nats: " + " / ".join(CHANNELS) + "). Opponent finds: the share of "
        "the opponent's counted asks that found a card of the player's, beside the table's expectation. "
        "Ceiling: the most the opponent's asks could have said of the line had none of them found a card "
        "(the sum of −log of each no-find's chance), the mean over deals.",
        "",
        "| player | rank 1 outright | above the top 0.1 % | games flagged | weeks flagged | mean score "
        "| gain over greedy | mean figure | figures by channel | opponent finds | ceiling |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name in names:
        rows = [d["cheaters"][name] for d in deals]
        first = top = 0
        for d, row in zip(deals, rows):
            ordered = sorted(d["scores"], reverse=True)
            first += row["score"] > ordered[0]
            top += row["score"] > ordered[top_count - 1]
        profiles = [row["profile"] for row in rows]
        weeks = [profiles[w : w + WEEK] for w in range(0, len(profiles) - WEEK + 1, WEEK)]
        gain = statistics.mean(row["score"] - g for row, g in zip(rows, greedy))
        lines.append(
            f"| {name} | {_rate(first, len(rows))} | {_rate(top, len(rows))} "
            f"| {_rate(sum(row['flagged'] for row in rows), len(rows))} "
            f"| {_rate(sum(fairplay.accumulate(w).flagged for w in weeks), len(weeks))} "
            f"| {statistics.mean(row['score'] for row in rows):.0f} | {gain:+.0f} "
            f"| {statistics.mean(row['suspicion'] for row in rows):+.2f} (max {max(row['suspicion'] for row in rows):.2f}) "
            f"| {_channels([row['channels'] for row in rows])} | {_finds([row['opponent'] for row in rows])} "
            f"| {statistics.mean(row['ceiling'] for row in rows):.2f} |"
        )
    field_scores = [s for d in deals for s in d["scores"]]
    lines += [
        "",
        f"The field: mean score {statistics.mean(field_scores):.0f}, the day's best "
        f"{statistics.mean(max(d['scores']) for d in deals):.0f} on average; the opponent found a card of "
        f"the player's on {_finds([tuple(d['finds']) for d in deals])} of its counted asks.",
        "",
    ]
    for name in [*(n for n, _ in _search_budgets(_margin_of(names))), WEEK_SEARCH, HISTORY_SEARCH]:
        sources = [d["cheaters"][name]["source"] for d in deals]
        own = sum(s != "search" for s in sources)
        cost = [d["costs"][name] for d in deals]
        judged = sum(c[0] for c in cost)
        lines.append(
            f"- {name}: the search's own line on {len(sources) - own} deals, a table-only line it played "
            f"itself on {own}; {judged / len(cost):,.0f} candidate lines judged a deal, "
            f"{statistics.mean(c[1] for c in cost):.1f} s of CPU a deal, of which the detector "
            f"(copying the watcher, playing the ask under it, the figure) {sum(c[2] for c in cost) / sum(c[1] for c in cost):.0%}, "
            f"{sum(c[2] for c in cost) / judged * 1000:.2f} ms a line."
        )
    return lines


def _margin_of(names: list[str]) -> float:
    # the margin is in the game-budget search's name (the job's argument): read it back
    name = next(n for n in names if n.startswith("search, figure under the game threshold less "))
    return float(name.rsplit(" ", 1)[1])


def _honest_section(results: list[dict[str, Any]], survival: list[dict[str, Any]], t: float) -> list[str]:
    lines = [
        "## The honest side: table-only policies",
        "",
        f"Each policy on the same deals; weeks of {WEEK} and histories of {HISTORY} consecutive deals "
        f"(week threshold {fairplay.WEEK_THRESHOLD:.2f} nats, history {fairplay.HISTORY_THRESHOLD:.2f}). "
        "Mean evidence ratio: the mean over games of exp(figure) of each channel ("
        + " / ".join(CHANNELS)
        + "), at most 1 in expectation for a table-only policy (Ville's premise); "
        "the largest game figure in the last column.",
        "",
        "| policy | games flagged | weeks flagged | histories flagged | mean evidence ratio by channel | largest figure |",
        "|---|---|---|---|---|---|",
    ]
    totals = [0, 0, 0, 0, 0, 0]
    for r in results:
        games = r["games"]
        profiles = [g[0] for g in games]
        weeks = [profiles[w : w + WEEK] for w in range(0, len(profiles) - WEEK + 1, WEEK)]
        histories = [profiles[h : h + HISTORY] for h in range(0, len(profiles) - HISTORY + 1, HISTORY)]
        flagged = sum(g[1] >= fairplay.FLAG_THRESHOLD for g in games)
        weeks_flagged = sum(fairplay.accumulate(w).flagged for w in weeks)
        histories_flagged = sum(fairplay.accumulate(h, threshold=fairplay.HISTORY_THRESHOLD).flagged for h in histories)
        for i, v in enumerate((flagged, len(games), weeks_flagged, len(weeks), histories_flagged, len(histories))):
            totals[i] += v
        ratios = " / ".join(f"{statistics.mean(math.exp(min(g[2][c], 50.0)) for g in games):.3f}" for c in CHANNELS)
        kind = "adversary" if r["name"] in dict(players.ADVERSARIES) else "panel"
        lines.append(
            f"| {r['name']} ({kind}) | {_rate(flagged, len(games))} | {_rate(weeks_flagged, len(weeks))} "
            f"| {_rate(histories_flagged, len(histories))} | {ratios} | {max(g[1] for g in games):.2f} |"
        )
    lines += [
        f"| **all** | {_rate(totals[0], totals[1])} | {_rate(totals[2], totals[3])} | {_rate(totals[4], totals[5])} | | |",
        "",
        f"Aims (issue 47): each policy ≤ {AIMS['honest game']:.1%} of games, ≤ {AIMS['honest week']:.1%} of "
        f"weeks, ≤ {AIMS['honest history']:.1%} of {HISTORY}-game histories.",
        "",
    ]
    if survival:
        at = [s["flagged_at"] for s in survival]
        n = len(at)
        within = sorted(math.inf if a is None else a for a in at)
        median = within[(n - 1) // 2] if n % 2 else (within[n // 2 - 1] + within[n // 2]) / 2
        games = sum(s["games"] for s in survival)
        lines += [
            f"### How long a budgeted cheater (t = {t:g}) survives its history",
            "",
            f"{n} histories of {SURVIVAL} games each (seeds `fairplay-survival-…`), the history flagged at "
            f"{fairplay.HISTORY_THRESHOLD:.2f} nats, read after every game.",
            "",
            f"- games played before the history flags: median {f'{median:g}' if math.isfinite(median) else f'> {SURVIVAL}'}"
            f" (first flags at {', '.join(str(a) for a in sorted(a for a in at if a is not None)) or 'none'})",
            f"- never flagged within {HISTORY} games: {_rate(sum(a is None or a > HISTORY for a in at), n)}",
            f"- never flagged within {SURVIVAL} games: {_rate(sum(a is None for a in at), n)}",
            f"- its games flagged: {_rate(sum(s['games_flagged'] for s in survival), games)}; its {WEEK}-game weeks "
            f"flagged: {_rate(sum(s['weeks_flagged'] for s in survival), sum(s['weeks'] for s in survival))}",
            "",
        ]
    return lines


def report(
    argv: list[str],
    deals: list[dict[str, Any]],
    honest: list[dict[str, Any]],
    survival: list[dict[str, Any]],
    seconds: float,
    args: argparse.Namespace,
) -> str:
    lines = [
        f"# Fair play against a field, {dt.date.today().isoformat()}, at {commit()}",
        "",
        f"Machine: {cpu()}. Command: `{shlex.join(['python', '-m', 'bench.fairplay_field', *argv])}`; "
        f"{seconds / 60:.1f} min of wall time (nice 15, at most 2 processes).",
        f"{len(deals)} deals (`fairplay-field-{args.base}` on), a field of {args.field:,} panel players each; "
        f"the search {args.width} wide, with {args.lines} table-only lines of its own. "
        f"Thresholds: a game {fairplay.FLAG_THRESHOLD:.2f} nats, a week {fairplay.WEEK_THRESHOLD:.2f}, "
        f"a history {fairplay.HISTORY_THRESHOLD:.2f}.",
        "",
        *_cheaters_section(deals, args.field),
        "",
        *_honest_section(honest, survival, BUDGETS[0]),
        f"CPU: the field {statistics.mean(d['field_cpu'] for d in deals) / args.field * 1000:.1f} ms a game "
        f"(play and judgement); the honest policies "
        f"{sum(r['cpu'] for r in honest) / max(1, sum(len(r['games']) for r in honest)) * 1000:.1f} ms a game.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=30)
    parser.add_argument("--field", type=int, default=2000)
    parser.add_argument("--base", type=int, default=0)
    parser.add_argument("--width", type=int, default=256, help="the search's beam width")
    parser.add_argument("--lines", type=int, default=1000, help="table-only lines the cheater plays itself")
    parser.add_argument("--margin", type=float, default=0.25, help="nats kept under the game threshold")
    parser.add_argument("--honest", type=int, default=3000, help="deals for each table-only policy")
    parser.add_argument("--runs", type=int, default=20, help="budgeted cheater's histories followed")
    parser.add_argument("--out", default="", help="write the report there too")
    args = parser.parse_args(argv)
    started = time.monotonic()
    deal_jobs = [
        (f"fairplay-field-{args.base + i}", args.field, args.width, args.lines, args.margin) for i in range(args.deals)
    ]
    names = [name for name, _ in players.PANEL + players.ADVERSARIES]
    with ProcessPoolExecutor(max_workers=2) as pool:
        # the longest jobs first, so that the two processes end together
        whole = len(deal_jobs) // WEEK * WEEK  # whole weeks only
        seeds = [job[0] for job in deal_jobs[:whole]]
        # one job plays every deal in order: the longest, so it starts first
        history_f = pool.submit(_sequence, (seeds, args.width, args.lines, args.margin, True))
        deals_f = [pool.submit(_deal, job) for job in deal_jobs]
        honest_f = [pool.submit(_honest, (name, args.honest, args.base)) for name in names]
        survival_f = [pool.submit(_survival, (run, args.base, BUDGETS[0])) for run in range(args.runs)]
        week_f = [
            pool.submit(_sequence, (seeds[w : w + WEEK], args.width, args.lines, args.margin, False))
            for w in range(0, whole, WEEK)
        ]
        deals = [f.result() for f in deals_f]
        for name, done in [*((WEEK_SEARCH, f.result()) for f in week_f), (HISTORY_SEARCH, history_f.result())]:
            for deal in deals:
                if deal["seed"] in done["lines"]:
                    deal["cheaters"][name] = done["lines"][deal["seed"]]
                    deal["costs"][name] = done["costs"][deal["seed"]]
        deals = [d for d in deals if WEEK_SEARCH in d["cheaters"]]  # whole weeks only
        honest = [f.result() for f in honest_f]
        survival = [f.result() for f in survival_f]
    text = report(argv, deals, honest, survival, time.monotonic() - started, args)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
