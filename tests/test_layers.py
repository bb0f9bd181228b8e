"""The seams: services and selectors know nothing of HTTP; one table gives a refusal its status."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from config.errors import STATUS, status_of
from games.rules.base import DomainError, GameOver, StaleMove

ROOT = Path(__file__).resolve().parents[1]
DOMAIN_MODULES = sorted(p for p in ROOT.glob("*/**/*.py")
                        if p.stem in ("services", "selectors", "accounts", "play", "rank_index")
                        and ".venv" not in p.parts and "tests" not in p.parts)


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def test_the_domain_modules_are_found():
    assert {"challenges/services.py", "leaderboard/selectors.py", "challenges/accounts.py"} <= {
        str(p.relative_to(ROOT)) for p in DOMAIN_MODULES}


@pytest.mark.parametrize("path", DOMAIN_MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_services_and_selectors_import_nothing_of_http(path):
    http = {name for name in _imports(path)
            if name.split(".")[0] in ("rest_framework", "drf_spectacular") or name == "config.errors"}
    assert not http


def test_a_refusal_gets_its_status_from_its_code_alone():
    assert status_of(StaleMove().code) == status_of(GameOver().code) == 409
    assert status_of("not_found") == 404 and status_of("bad_login") == 401
    assert status_of("anything_else") == 400
    assert all(400 <= s < 600 for s in STATUS.values())
    assert not hasattr(DomainError("x"), "status_code")
