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


def _module_of(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _file_of(module: str) -> Path | None:
    """The project's file of a module (None: not the project's, or not a module)."""
    base = ROOT.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file() and ".venv" not in candidate.parts:
            return candidate
    return None


def _imports(path: Path) -> set[str]:
    """The modules the file imports, anywhere in it, relative imports resolved against its
    package: in challenges/accounts.py ``from .auth import forget_user`` is challenges.auth
    and ``from . import hooks`` challenges.hooks. ``from package import module`` is the
    module; ``from module import name`` the module."""
    package = _module_of(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or "" if node.level == 0 else ".".join(package[: len(package) - node.level + 1])
            module = base if node.level == 0 else ".".join(p for p in (base, node.module) if p)
            named = [f"{module}.{a.name}" for a in node.names if module and _file_of(f"{module}.{a.name}")]
            found |= set(named) if named and len(named) == len(node.names) else {module, *named}
    return found - {""}


def _reached(path: Path) -> dict[str, Path]:
    """Every module of the project the file imports, directly or through the modules it
    imports (module name -> file); and the names of the outside modules they import."""
    reached: dict[str, Path] = {}
    todo = [path]
    while todo:
        for name in _imports(todo.pop()):
            found = _file_of(name)
            if name not in reached and (found is None or found != path):
                reached[name] = found  # type: ignore[assignment]
                if found is not None:
                    todo.append(found)
    return reached


def test_the_domain_modules_are_found():
    assert {"challenges/services.py", "leaderboard/selectors.py", "challenges/accounts.py", "leagues/selectors.py"} <= {
        str(p.relative_to(ROOT)) for p in DOMAIN_MODULES
    }


def _http(name: str) -> bool:
    return name.split(".")[0] in ("rest_framework", "drf_spectacular") or name == "config.errors"


@pytest.mark.parametrize("path", DOMAIN_MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_services_and_selectors_import_nothing_of_http(path):
    """Nor through the modules they import (accounts.py imported auth.py, which imported DRF)."""
    assert not {name for name in _reached(path) if _http(name)}


def test_a_refusal_gets_its_status_from_its_code_alone():
    assert status_of(StaleMove().code) == status_of(GameOver().code) == 409
    assert status_of("not_found") == 404 and status_of("bad_login") == 401
    assert status_of("anything_else") == 400
    assert all(400 <= s < 600 for s in STATUS.values())
    assert not hasattr(DomainError("x"), "status_code")


# --- one-way dependencies: games <- challenges <- leaderboard <- leagues <- frontend -------
# (casual, the casual app, sits beside leaderboard: it stores its games with challenges.play;
# config/ holds the project's wiring (settings, urls, wsgi, asgi, Celery's app) and, beside it, the
# plumbing every app shares, which imports no app.)

APPS = ("challenges", "leaderboard", "leagues", "casual", "frontend")
PACKAGES = ("config", "challenges", "leaderboard", "leagues", "casual", "games", "frontend")
# The wiring that may import an app: the ASGI application (the game socket's consumer).
# The urls include each app's urls.py by name, and import none.
WIRING = {"config/wsgi.py", "config/asgi.py", "config/celery_app.py", "config/__init__.py"}

# The imports inside a function that stay, each for its reason. Anything else found inside
# a function of these apps is an import dodging a cycle: move the seam instead (e.g.
# challenges/hooks.py, which the apps above fill from their AppConfig.ready).
FUNCTION_IMPORTS_ALLOWED = {
    # AppConfig.ready: Django's place for imports that need the apps' models loaded.
    ("challenges/apps.py", "ready"): {"django.conf", "django.core.exceptions", "config.throttling", "tasks", "auth"},
    ("leaderboard/apps.py", "ready"): {"selectors", "services", "tasks"},
    ("casual/apps.py", "ready"): {"accounts"},
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
    """The app or package a file belongs to (games/rules is one of its own)."""
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
        "def export():\n    from casual.models import CasualGame\n    from leaderboard import selectors\n"
        "def enqueue():\n    from . import tasks\n"
    )
    assert _function_imports(sample) == [
        ("export", "casual.models", 0),
        ("export", "leaderboard", 0),
        ("enqueue", "tasks", 1),
    ]
    assert _module_package("casual.models") == "casual" != _package("challenges/accounts.py")
    assert _module_package("leaderboard") == "leaderboard" and _module_package("redis") is None


# What a layer may not import at module level (the lower layers never see the upper ones).
ABOVE = {
    "challenges": ("leaderboard", "leagues", "frontend", "casual"),
    "leaderboard": ("leagues", "frontend"),
    "leagues": ("frontend", "casual"),
    # The casual games sit beside leaderboard: built on challenges (play.py, auth, hooks).
    "casual": ("leaderboard", "leagues", "frontend"),
    # What the tests and the benchmarks share: players and games made through challenges.
    "harness": ("leaderboard", "leagues", "frontend", "casual"),
    "games/rules": ("config", "challenges", "leaderboard", "leagues", "frontend", "casual", "games/analysis"),
    "games/analysis": ("config", "challenges", "leaderboard", "leagues", "frontend", "casual"),
    # The shared plumbing: no app (the project's wiring, WIRING and settings, is exempt).
    "config": ("challenges", "leaderboard", "leagues", "frontend", "casual"),
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


def test_tests_and_bench_do_not_import_each_other():
    """What both need (servers, simulated players, figures) lives in harness/, which imports
    neither: a benchmark never depends on a test's code, nor a test on a benchmark's."""
    crossing = [
        f"{rel}: {name}"
        for folder, other in (("tests", "bench"), ("bench", "tests"), ("harness", "tests"), ("harness", "bench"))
        for p in sorted((ROOT / folder).rglob("*.py"))
        for name in _imports(p)
        if name.split(".")[0] == other
        for rel in [str(p.relative_to(ROOT))]
    ]
    assert not crossing


def test_the_upward_imports_that_were_removed_stay_removed():
    """The seams that were moved down, named: the account's export and deletion (casual games,
    ranks: challenges/hooks.py), the attempts' admin (leaderboard/admin.py), the embedded
    sweeper (challenges/embedded_sweep.py), and the services' tasks (Celery's registry)."""
    accounts = _imports(ROOT / "challenges/accounts.py")
    assert not {m for m in accounts if _module_package(m) in ("casual", "leaderboard")}
    assert not {m for m in _imports(ROOT / "challenges/admin.py") if _module_package(m) == "leaderboard"}
    assert not (ROOT / "config/embedded_sweep.py").exists()
    services = [m for f, m, _ in _function_imports(ROOT / "challenges/services.py")]
    assert "tasks" not in services and not _function_imports(ROOT / "challenges/auth.py")


def test_every_hook_of_challenges_is_provided():
    assert set(hooks._provided) == set(hooks.NAMES)


# --- the API layer: DRF in the API modules only; views call services and selectors --------

# Modules of the API layer: each app's api.py and *_api.py (account_api.py, auth_api.py).
# Besides them, the project's HTTP plumbing for DRF in config/ (errors, bodies, schema,
# throttles, content negotiation, rendering) and its settings name DRF.
DRF_PLUMBING = {
    "config/errors.py",
    "config/inputs.py",
    "config/negotiation.py",
    "config/openapi.py",
    "config/parsers.py",
    "config/renderers.py",
    "config/throttling.py",
    "config/urls.py",
    "config/settings/base.py",
}


def _api_module(rel: str) -> bool:
    stem = Path(rel).stem
    return stem == "api" or stem.endswith("_api") or rel in DRF_PLUMBING


def _drf_outside_the_api(paths: list[Path]) -> list[str]:
    return [
        f"{rel}: {name}"
        for p in paths
        if not _api_module(rel := str(p.relative_to(ROOT)))
        for name in sorted(_imports(p))
        if name.split(".")[0] in ("rest_framework", "drf_spectacular")
    ]


def test_no_drf_below_the_api_layer():
    assert not _drf_outside_the_api(_modules(*PACKAGES))


# A view (an API's or a page's) reads through selectors and writes through services: no
# query of its own, no replay of a game. Django's admin (admin.py) is not a view here.
VIEW_MODULES = [p for p in _modules(*APPS) if p.stem in ("api", "views") or p.stem.endswith("_api")]
# The rules modules that replay a game (a view asks a selector for what they give).
REPLAYS = {"games.analysis.game", "games.analysis.engine", "games.rules.registry", "games.rules.session"}


def _view_leaks(path: Path) -> list[str]:
    leaks = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and node.attr == "objects":
            leaks.append(f"line {node.lineno}: .objects")
        elif isinstance(node, ast.Name | ast.Attribute) and getattr(node, "id", getattr(node, "attr", "")) in (
            "get_object_or_404",
            "get_list_or_404",
        ):
            leaks.append(f"line {node.lineno}: get_object_or_404")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("state", "replay", "trace")
        ):
            leaks.append(f"line {node.lineno}: .{node.func.attr}() replays a game")
    leaks += [f"imports {name}" for name in sorted(_imports(path) & REPLAYS)]
    return leaks


def test_the_views_are_found():
    assert {"challenges/api.py", "casual/api.py", "frontend/views.py", "challenges/account_api.py"} <= {
        str(p.relative_to(ROOT)) for p in VIEW_MODULES
    }


@pytest.mark.parametrize("path", VIEW_MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_views_run_no_query_and_no_replay_of_their_own(path):
    assert not _view_leaks(path)


SELECTORS = sorted(p for p in DOMAIN_MODULES if p.stem == "selectors")


def _selector_writes(path: Path) -> list[str]:
    """What a selector must not hold: a task (imported directly or through what it
    imports), Celery itself, or a call that enqueues."""
    reached = [name for name in _reached(path) if name.endswith(".tasks")]
    reached += [name for name in _imports(path) if name.split(".")[0] == "celery"]
    calls = [
        f"line {node.lineno}: .{node.func.attr}()"
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("apply_async", "delay", "send_task")
    ]
    return sorted(reached) + calls


@pytest.mark.parametrize("path", SELECTORS, ids=lambda p: str(p.relative_to(ROOT)))
def test_selectors_only_read(path):
    """No task: a read that wants something done says so to its caller (e.g. a leaderboard
    page answered by SQL says ``indexed``: false; the beat builds the day's index)."""
    assert not _selector_writes(path)


def test_the_layer_checks_see_what_they_must_refuse(tmp_path):
    """Each check above refuses the leaks it exists for, written as they once were in the code."""
    app = tmp_path / "app"
    app.mkdir()
    (app / "auth.py").write_text("from rest_framework import authentication\n")
    (app / "accounts.py").write_text("from .auth import forget_user\n")
    (app / "views.py").write_text(
        "from games.analysis.game import analyse\n"
        "def player(request, pk):\n    shown = get_object_or_404(Player, pk=pk)\n"
        "    return Result.objects.filter(player=shown), game.state()\n"
    )
    (app / "selectors.py").write_text("from .tasks import rebuild\ndef page():\n    rebuild.apply_async((1,))\n")
    global ROOT
    root, ROOT = ROOT, tmp_path
    try:
        assert _imports(app / "accounts.py") == {"app.auth"}
        assert "rest_framework" in _reached(app / "accounts.py")
        assert _drf_outside_the_api([app / "auth.py"]) == ["app/auth.py: rest_framework"]
        assert len(_view_leaks(app / "views.py")) == 4
        assert _selector_writes(app / "selectors.py") == ["app.tasks", "line 3: .apply_async()"]
    finally:
        ROOT = root
