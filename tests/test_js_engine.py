"""The browser's own Pêche engine (frontend/static/frontend/peche-check.js) agrees
with docs/rules.md: every shared vector, games the Python engine plays (errors included), and the
commitment. Run with Node, as anyone re-checking a day in a browser runs it."""

from __future__ import annotations

import json
import random
import shutil
import subprocess

import pytest

from challenges import days
from games.rules.peche import ENGINE
from tests.conftest import ROOT

NODE = shutil.which("node")
RUNNER = ROOT / "tests" / "js" / "run-peche-vectors.mjs"
VECTORS = ROOT / "tests" / "vectors" / "peche.jsonl"
ENGINE_JS = ROOT / "frontend" / "static" / "frontend" / "peche-check.js"
# Node 20 warns that the repository's package.json declares no module type; harmless here.
QUIET = "--disable-warning=MODULE_TYPELESS_PACKAGE_JSON"

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


def run_vectors(path=None) -> subprocess.CompletedProcess:
    args = [NODE, QUIET, str(RUNNER)] + ([str(path)] if path else [])
    return subprocess.run(args, capture_output=True, text=True, timeout=120, cwd=ROOT)


def test_every_shared_peche_vector_passes():
    cases = sum(1 for line in VECTORS.read_text().splitlines() if line.strip())
    done = run_vectors()
    assert done.returncode == 0, done.stdout + done.stderr
    assert f": {cases} passed, 0 failed" in done.stdout


def test_a_wrong_expectation_is_caught(tmp_path):
    lines = VECTORS.read_text().splitlines()
    case = json.loads(lines[0])
    assert "score" in case["expect"], "the first vector is a finished game"
    case["expect"]["score"] += 30
    errors = [json.loads(line) for line in lines if '"error"' in line]
    errors[0]["expect"]["index"] += 1
    path = tmp_path / "wrong.jsonl"
    path.write_text("\n".join([json.dumps(case), json.dumps(errors[0]), lines[1]]) + "\n")
    done = run_vectors(path)
    assert done.returncode == 1
    assert ": 1 passed, 2 failed" in done.stdout


def python_cases(count: int, rng: random.Random) -> list[dict]:
    """Games played by random legal asks, some cut short, spoiled or run past the end, each
    with the Python engine's output as the expectation."""
    cases = []
    for n in range(count):
        seed = f"js-cross-{n}-{rng.random()}-é✓"  # non-ASCII: the shuffle hashes UTF-8
        state = ENGINE.new(seed=seed)
        moves = []
        while not state.over:
            moves.append(rng.choice(list(state.hands[0])))
            ENGINE.apply(state, moves[-1])
        kind = n % 5
        if kind == 1:
            moves = moves[: rng.randrange(len(moves))]  # incomplete
        elif kind == 2:
            moves = moves + [rng.choice(["A", "7", "K"])]  # extra_moves
        elif kind == 3:
            at = rng.randrange(len(moves))
            moves = moves[:at] + [rng.choice(["1", "k", "11", "", "AS"])] + moves[at + 1 :]  # bad_move
        elif kind == 4:
            # illegal_ask: a rank the player does not hold at that point.
            at = rng.randrange(len(moves))
            state = ENGINE.replay({"seed": seed}, moves[:at], partial=True)
            held = set(state.hands[0])
            moves = moves[:at] + [
                next(r for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K") if r not in held)
            ]
        case = {"game": "peche", "seed": seed, "moves": moves}
        cases.append({**case, "expect": ENGINE.conformance(case)})
    return cases


def test_the_js_engine_plays_as_the_python_engine(tmp_path):
    cases = python_cases(400, random.Random(19))
    assert {c["expect"].get("error") for c in cases} == {None, "incomplete", "extra_moves", "bad_move", "illegal_ask"}
    path = tmp_path / "cross.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in cases))
    done = run_vectors(path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert ": 400 passed, 0 failed" in done.stdout


def test_the_js_commitment_and_deck_are_the_servers():
    from games.rules.cards import shuffled_deck

    seeds = ["2026-11-29", "pub-peche-0", "graine é ✓ 日本", "x" * 200]
    script = (
        f"import {{ commitmentOf, shuffledDeck }} from {json.dumps(ENGINE_JS.as_uri())};\n"
        f"const out = [];\nfor (const s of {json.dumps(seeds)}) out.push([await commitmentOf(s), await shuffledDeck(s)]);\n"
        "console.log(JSON.stringify(out));"
    )
    done = subprocess.run(
        [NODE, QUIET, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got == [[days.commitment(s), shuffled_deck(s)] for s in seeds]
    assert got[0][1][:12] == "5H 3H KS AS 2S AH 9C 10C QC JS KD 6H".split()  # docs/rules.md §1's example


def test_the_js_ranking_order_is_the_leaderboards():
    # docs/rules.md §2: score descending, then asks ascending, then the earlier finish.
    lines = {
        "in_order": [(1, 1060, 20, "10:00"), (2, 1060, 21, "09:00"), (3, 1060, 21, "09:30"), (4, 1000, 5, "08:00")],
        "score_up": [(1, 1000, 20, "10:00"), (2, 1060, 30, "09:00")],
        "asks_down": [(1, 1060, 20, "10:00"), (2, 1060, 19, "11:00")],
        "finish_earlier": [(1, 1060, 20, "10:00"), (2, 1060, 20, "09:59")],
        # A provisional newcomer's rank is a gap in the listed lines.
        "rank_gap": [(1, 1060, 20, "10:00"), (3, 1000, 20, "10:00")],
        "rank_repeated": [(1, 1060, 20, "10:00"), (1, 1000, 20, "10:00")],
        "rank_down": [(2, 1060, 20, "10:00"), (1, 1000, 20, "10:00")],
        "rank_zero": [(0, 1060, 20, "10:00")],
    }
    cases = {
        name: [{"rank": r, "score": s, "asks": a, "finished_at": f"2026-06-02T{t}:00+00:00"} for r, s, a, t in rows]
        for name, rows in lines.items()
    }
    script = (
        f"import {{ firstOutOfOrder }} from {json.dumps(ENGINE_JS.as_uri())};\n"
        f"const cases = {json.dumps(cases)};\n"
        "console.log(JSON.stringify(Object.fromEntries(Object.entries(cases).map(([k, v]) => [k, firstOutOfOrder(v)]))));"
    )
    done = subprocess.run(
        [NODE, QUIET, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "in_order": -1,
        "score_up": 1,
        "asks_down": 1,
        "finish_earlier": 1,
        "rank_gap": -1,
        "rank_repeated": 1,
        "rank_down": 1,
        "rank_zero": 0,
    }
