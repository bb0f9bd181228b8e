"""Every conformance vector through the real command, the repository's copies of the
published spec and vectors, and the rules library's purity. The tests read only the
repository's own copies; scripts/check-published compares them with the published ones."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VECTOR_FILES = sorted((ROOT / "tests" / "vectors").glob("*.jsonl"))


def test_the_repository_holds_the_rules_and_every_vector():
    assert {p.name for p in VECTOR_FILES} == {"peche.jsonl", "kitten.jsonl", "gofish.jsonl"}
    assert (ROOT / "docs" / "rules.md").read_text().startswith("# Rules specification")


@pytest.mark.parametrize("path", VECTOR_FILES, ids=[p.name for p in VECTOR_FILES])
def test_replay_command_matches_every_vector(path):
    cases = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    out = subprocess.run(
        [sys.executable, "manage.py", "replay", "--jsonl", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout.splitlines()
    assert len(out) == len(cases)
    wrong = []
    for n, (case, line) in enumerate(zip(cases, out), 1):
        got = json.loads(line)
        if {k: got.get(k) for k in case["expect"]} != case["expect"]:
            wrong.append((n, case["expect"], got))
    assert not wrong, wrong[:3]


def test_malformed_lines_give_an_error_and_the_run_goes_on(tmp_path):
    lines = [
        '{"game":"peche","seed":"a","moves":[]}',
        "not json",
        "[]",
        '{"game":"chess"}',
        '{"game":"peche","seed":"","moves":[]}',
        '{"game":"kitten","seed":5}',
        '{"game":"gofish","players":9,"seed":"x","moves":[]}',
        '{"game":"peche","seed":"a","moves":[]}',
    ]
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n")
    out = subprocess.run(
        [sys.executable, "manage.py", "replay", "--jsonl", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.splitlines()
    results = [json.loads(line) for line in out]
    assert len(results) == len(lines)
    assert results[0] == results[-1] == {"error": "incomplete", "index": 0}
    assert all(r["error"] == "bad_input" for r in results[1:-1])


def _imports(package: str) -> list[tuple[str, str]]:
    """(file, module) for every absolute import of every module of games/<package>/."""
    out = []
    for path in sorted((ROOT / "games" / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            out += [(str(path.relative_to(ROOT)), n) for n in names]
    return out


STDLIB = set(sys.stdlib_module_names) | {"__future__"}


def test_the_rules_library_imports_only_the_standard_library():
    """Every module of games/rules/, with no exception: the standard library, __future__ and
    the package itself (relative imports or games.rules.*). The casual app is beside it, and
    so are the detector and whatever else reads the rules: rules are rules."""
    modules = {p.name for p in (ROOT / "games" / "rules").rglob("*.py")}
    assert {"base.py", "cards.py", "peche.py", "kitten.py", "gofish.py", "registry.py"} <= modules
    offenders = [
        f"{path}: {n}"
        for path, n in _imports("rules")
        if n.split(".")[0] not in STDLIB and n != "games.rules" and not n.startswith("games.rules.")
    ]
    assert not offenders


def test_the_fair_play_detector_is_pure_and_beside_the_rules():
    """games/fairplay/: the standard library and the rules library, nothing else (no
    Django, no app); and no module of the rules imports it."""
    offenders = [
        f"{path}: {n}"
        for path, n in _imports("fairplay")
        if n.split(".")[0] not in STDLIB and not n.startswith(("games.rules", "games.fairplay"))
    ]
    assert not offenders
    assert _imports("fairplay"), "the detector's modules were found"
    assert not [n for _, n in _imports("rules") if n.startswith("games.fairplay")]


def test_the_analysis_engine_is_pure_and_beside_the_rules():
    """games/analysis/: the standard library, the rules and the table's chances of the
    fair-play package, nothing else; and no module of the rules imports it."""
    offenders = [
        f"{path}: {n}"
        for path, n in _imports("analysis")
        if n.split(".")[0] not in STDLIB and not n.startswith(("games.rules", "games.fairplay", "games.analysis"))
    ]
    assert not offenders
    assert {"engine.py", "game.py"} <= {p.name for p in (ROOT / "games" / "analysis").rglob("*.py")}
    assert not [n for _, n in _imports("rules") if n.startswith("games.analysis")]


def test_games_holds_the_pure_libraries_alone():
    """The Django apps built on the rules (challenges, casual) live beside games/, not in
    it: games/ holds the rules and the pure libraries that read them."""
    entries = {p.name for p in (ROOT / "games").iterdir() if p.name != "__pycache__"}
    assert entries == {"__init__.py", "rules", "fairplay", "analysis"}
