"""Every shared vector through the real command, and the engines' purity."""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
VECTOR_FILES = sorted((SHARED / "vectors").glob("*.jsonl"))


@pytest.mark.parametrize("path", VECTOR_FILES, ids=[p.name for p in VECTOR_FILES])
def test_replay_command_matches_every_vector(path):
    cases = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    out = subprocess.run([sys.executable, "manage.py", "replay", "--jsonl", str(path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, check=True).stdout.splitlines()
    assert len(out) == len(cases)
    wrong = []
    for n, (case, line) in enumerate(zip(cases, out), 1):
        got = json.loads(line)
        if {k: got.get(k) for k in case["expect"]} != case["expect"]:
            wrong.append((n, case["expect"], got))
    assert not wrong, wrong[:3]


def test_shared_check_vectors_tool_passes():
    env = dict(os.environ, REPLAY_CMD=f"{sys.executable} manage.py replay --jsonl")
    run = subprocess.run([str(SHARED / "tools" / "check-vectors")], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert " 0 failed" in run.stdout


def test_malformed_lines_give_an_error_and_the_run_goes_on(tmp_path):
    lines = ['{"game":"peche","seed":"a","moves":[]}', "not json", "[]", '{"game":"chess"}',
             '{"game":"peche","seed":"","moves":[]}', '{"game":"kitten","seed":5}',
             '{"game":"gofish","players":9,"seed":"x","moves":[]}', '{"game":"peche","seed":"a","moves":[]}']
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n")
    out = subprocess.run([sys.executable, "manage.py", "replay", "--jsonl", str(path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=60, check=True).stdout.splitlines()
    results = [json.loads(line) for line in out]
    assert len(results) == len(lines)
    assert results[0] == results[-1] == {"error": "incomplete", "index": 0}
    assert all(r["error"] == "bad_input" for r in results[1:-1])


def test_games_engines_import_only_the_standard_library():
    allowed = set(sys.stdlib_module_names) | {"games", "__future__"}
    offenders = []
    for path in (ROOT / "games").rglob("*.py"):
        if "web" in path.relative_to(ROOT / "games").parts:
            continue  # games/web is the Django app of casual-game sessions
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] not in allowed]
    assert not offenders
