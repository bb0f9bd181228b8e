"""The seams: services and selectors know nothing of HTTP; one table gives a refusal its status."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from challenges import hooks
from config.errors import STATUS, status_of
from games.rules.base import DomainError, GameOver, StaleMove

ROOT = Path(__file__).resolve().parents[1]
DOMAIN_MODULES = sorted(
    p
    for p in ROOT.glob("*/**/*.py")
    if p.stem in ("services", "selectors", "accounts", "play", "rank_index")
    and ".venv" not in p.parts
    and "tests" not in p.parts
)


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def test_the_domain_modules_are_found():
    assert {"challenges/services.py", "leaderboard/selectors.py", "challenges/accounts.py", "leagues/selectors.py"} <= {
        str(p.relative_to(ROOT)) for p in DOMAIN_MODULES
    }


@pytest.mark.parametrize("path", DOMAIN_MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_services_and_selectors_import_nothing_of_http(path):
    http = {
        name
        for name in _imports(path)
        if name.split(".")[0] in ("rest_framework", "drf_spectacular") or name == "config.errors"
    }
    assert not http


def test_a_refusal_gets_its_status_from_its_code_alone():
    assert status_of(StaleMove().code) == status_of(GameOver().code) == 409
    assert status_of("not_found") == 404 and status_of("bad_login") == 401
    assert status_of("anything_else") == 400
    assert all(400 <= s < 600 for s in STATUS.values())
    assert not hasattr(DomainError("x"), "status_code")


# --- one-way dependencies: games <- challenges <- leaderboard <- leagues <- frontend -------
# (games.web, the casual app, sits beside leaderboard: it stores its games with challenges.play;
# config/ holds the project's wiring (settings, urls, wsgi, asgi, Celery's app) and, beside it, the
# plumbing every app shares, which imports no app.)

APPS = ("challenges", "leaderboard", "leagues", "games/web", "frontend")
PACKAGES = ("config", "challenges", "leaderboard", "leagues", "games", "frontend")
WIRING = {"config/urls.py", "config/wsgi.py", "config/asgi.py", "config/celery_app.py", "config/__init__.py"}

# The imports inside a function that stay, each for its reason. Anything else found inside
# a function of these apps is an import dodging a cycle: move the seam instead (e.g.
# challenges/hooks.py, which the apps above fill from their AppConfig.ready).
FUNCTION_IMPORTS_ALLOWED = {
    # AppConfig.ready: Django's place for imports that need the apps' models loaded.
    ("challenges/apps.py", "ready"): {"django.conf", "django.core.exceptions", "config.throttling", "tasks", "auth"},
    ("leaderboard/apps.py", "ready"): {"selectors", "services"},
    ("games/web/apps.py", "ready"): {"accounts"},
    ("leagues/apps.py", "ready"): {"services"},
}


def _function_imports(path: Path) -> list[tuple[str, str, int]]:
    """(function, module, level) of every import inside a function of the file."""
    found = []
    for func in ast.walk(ast.parse(path.read_text())):
        if isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            for node in ast.walk(func):
                if isinstance(node, ast.Import):
                    found += [(func.name, a.name, 0) for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module:
                    found.append((func.name, node.module, node.level))
                elif isinstance(node, ast.ImportFrom):  # from . import a, b
                    found += [(func.name, a.name, node.level) for a in node.names]
    return found


def _modules(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py") if "migrations" not in p.parts)


def _package(rel: str) -> str:
    """The app or package a file belongs to: games/web and games/rules are two."""
    parts = rel.split("/")
    return "/".join(parts[:2]) if parts[0] == "games" and len(parts) > 2 else parts[0]


def _module_package(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] not in PACKAGES:
        return None
    return "/".join(parts[:2]) if parts[0] == "games" and len(parts) > 1 else parts[0]


def test_no_import_inside_a_function_dodges_a_cycle():
    stray = []
    for path in _modules(*APPS):
        rel = str(path.relative_to(ROOT))
        for func, module, _ in _function_imports(path):
            if module not in FUNCTION_IMPORTS_ALLOWED.get((rel, func), set()):
                stray.append(f"{rel}: {func}() imports {module}")
    assert not stray


def test_no_import_inside_a_function_reaches_another_app():
    """Wherever it is (config/ and management commands included): an import inside a
    function from another app or package of the project, only in an AppConfig.ready."""
    stray = []
    for path in _modules(*PACKAGES):
        rel = str(path.relative_to(ROOT))
        for func, module, level in _function_imports(path):
            other = _module_package(module) if level == 0 else None
            if other is not None and other != _package(rel) and (rel, func) not in FUNCTION_IMPORTS_ALLOWED:
                stray.append(f"{rel}: {func}() imports {module}")
    assert not stray


def test_the_seams_once_crossed_inside_functions_are_found(tmp_path):
    """The checks above see the imports they must refuse (the ones moved out of functions)."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "def export():\n    from games.web.models import CasualGame\n    from leaderboard import selectors\n"
        "def enqueue():\n    from . import tasks\n"
    )
    assert _function_imports(sample) == [
        ("export", "games.web.models", 0),
        ("export", "leaderboard", 0),
        ("enqueue", "tasks", 1),
    ]
    assert _module_package("games.web.models") == "games/web" != _package("challenges/accounts.py")
    assert _module_package("leaderboard") == "leaderboard" and _module_package("redis") is None


# What a layer may not import at module level (the lower layers never see the upper ones).
ABOVE = {
    "challenges": ("leaderboard", "leagues", "frontend", "games/web"),
    "leaderboard": ("leagues", "frontend"),
    "leagues": ("frontend", "games/web"),
    "games/rules": ("config", "challenges", "leaderboard", "leagues", "frontend", "games/web"),
    # The shared plumbing: no app (the project's wiring, WIRING and settings, is exempt).
    "config": ("challenges", "leaderboard", "leagues", "frontend", "games/web"),
}


def _upward(layer: str) -> list[str]:
    return [
        f"{rel}: {name}"
        for p in _modules(layer)
        if (rel := str(p.relative_to(ROOT))) not in WIRING and not rel.startswith("config/settings/")
        for name in _imports(p)
        if _module_package(name) in ABOVE[layer]
    ]


@pytest.mark.parametrize("layer", sorted(ABOVE))
def test_a_layer_imports_nothing_from_the_layers_above(layer):
    assert not _upward(layer)


def test_the_upward_imports_that_were_removed_stay_removed():
    """The seams moved by issue 15, named: the account's export and deletion (casual games,
    ranks: challenges/hooks.py), the attempts' admin (leaderboard/admin.py), the embedded
    sweeper (challenges/embedded_sweep.py), and the services' tasks (Celery's registry)."""
    accounts = _imports(ROOT / "challenges/accounts.py")
    assert not {m for m in accounts if _module_package(m) in ("games/web", "leaderboard")}
    assert not {m for m in _imports(ROOT / "challenges/admin.py") if _module_package(m) == "leaderboard"}
    assert not (ROOT / "config/embedded_sweep.py").exists()
    services = [m for f, m, _ in _function_imports(ROOT / "challenges/services.py")]
    assert "tasks" not in services and not _function_imports(ROOT / "challenges/auth.py")


def test_every_hook_of_challenges_is_provided():
    assert set(hooks._provided) == set(hooks.NAMES)
