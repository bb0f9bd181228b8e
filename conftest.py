"""Before anything loads Django's settings: with REDIS_URL given, the test session starts a
redis-server of its own and points REDIS_URL at it.

The tests flush Redis databases and fault tests kill Redis; the Redis that REDIS_URL
names on this machine may hold anyone's data, so the session never talks to it.
config/settings/test.py reads REDIS_URL as usual, and every process a test starts
(Celery workers, gunicorn, scripts/stack) inherits os.environ, so all of them use the
session's server too. It goes when the session ends (or when pytest dies: harness/servers.py).

This is the rootdir conftest, imported after pytest-django's first hook: that hook loads
the settings when DJANGO_SETTINGS_MODULE is known by then, so pyproject.toml does not
name it; it is set here, after REDIS_URL, and pytest-django's pytest_configure then sets
Django up. (An early `-p` plugin would do too, but is not importable when pytest runs
as the `pytest` script rather than `python -m pytest`.)"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from harness.servers import RedisServer, free_port

_server: RedisServer | None = None
_given: str | None = None  # the REDIS_URL this session was given (and does not use)


def _start_own_redis() -> None:
    global _server
    # Under pytest-xdist each worker process runs tests of its own, so each has a server of
    # its own: a worker inherits the controller's environment, server included, and must
    # not flush the databases its sibling is using.
    me = os.environ.get("PYTEST_XDIST_WORKER", "main")
    if os.environ.get("TESTS_OWN_REDIS_PORT"):
        if os.environ.get("TESTS_OWN_REDIS_FOR") == me:
            return  # already this process's (a re-import)
        given = os.environ.get("TESTS_GIVEN_REDIS_URL")
    else:
        given = os.environ.get("REDIS_URL")
    if not given:
        return
    import django.conf

    if django.conf.settings.configured:  # DJANGO_SETTINGS_MODULE came from outside: too late
        raise pytest.UsageError(
            "REDIS_URL is set and Django's settings were loaded before the tests could start a redis-server "
            "of their own (DJANGO_SETTINGS_MODULE set in the environment?): unset it, the tests set it"
        )
    if not shutil.which("redis-server"):
        raise pytest.UsageError(
            "REDIS_URL is set but redis-server is not on PATH: the tests run a Redis of their own "
            "(they flush and kill it), never the machine's"
        )
    _server = RedisServer(free_port())
    _server.start()
    global _given
    _given = given
    os.environ["TESTS_GIVEN_REDIS_URL"] = given  # for the report header; nothing connects to it
    os.environ["TESTS_OWN_REDIS_PORT"] = str(_server.port)
    os.environ["TESTS_OWN_REDIS_FOR"] = me
    os.environ["REDIS_URL"] = _server.url


_start_own_redis()
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
# Loaded now (as pytest-django would have): its pytest_configure sets Django up only if so.
__import__("django.conf").conf.settings.DATABASES  # noqa: B018 (the access loads the settings)

# The markers of pyproject.toml, from where a test lives and what it starts. `make test`
# runs everything; `make test-quick` deselects these (-m "not browser and not stack ...").
MARK_BY_FOLDER = {"browser": "browser", "faults": "fault"}
MARK_BY_FIXTURE = {
    "celery_worker_process": "worker",  # a real Celery worker (tests/conftest.py)
    "stack": "stack",  # scripts/stack: gunicorn, worker, beat (tests/test_ops_stack.py)
    "web_stack": "stack",  # scripts/stack's web behind nginx (tests/test_ops_proxy.py)
    "stack_factory": "stack",  # full stacks for fault injection (tests/faults/conftest.py)
    "gunicorn": "stack",  # two gunicorn workers (tests/test_ops_ratelimit.py)
    "fake_clock_server": "stack",  # runserver under libfaketime (tests/test_day_close.py)
    "monitored_stack": "stack",  # scripts/stack and Prometheus (tests/test_monitoring.py)
}


# The tests that take longest, in seconds each (setup, call and teardown, with `make test`'s
# two workers on this machine: `pytest --durations=60`, 2026-12-03, Chromium's headless
# shell); a node id or the start of one. Only the order of the run depends on them
# (slowest_first): a figure out of date costs minutes, never a test.
SLOW = {
    "tests/faults/test_outages.py::test_redis_stopped_30s": 51,
    "tests/faults/test_socket_faults.py::test_redis_down_30s": 45,
    "tests/browser/test_kitten.py::test_every_control_acts": 27,
    "tests/faults/test_schemathesis.py::": 21,
    "tests/faults/test_socket_faults.py::test_postgres_restarted": 23,
    "tests/faults/test_socket_faults.py::test_a_client_opening_1000_sockets": 22,
    "tests/test_day_close.py::test_across_a_real_midnight": 19,
    "tests/test_ops_stack.py::test_stack_starts": 17,
    "tests/browser/test_csp.py::test_no_page_violates": 13,
    "tests/faults/test_outages.py::test_postgres_restarted": 13,
    "tests/faults/test_worker_kill.py::": 12,
    "tests/browser/test_accessibility.py::": 9,
    "tests/faults/test_socket_faults.py::test_a_frame_of_1mb": 10,
    "tests/test_input_fuzz.py::test_a_players_requests_anywhere": 10,
    "tests/faults/test_socket_kill.py::": 9,
    "tests/test_ops_proxy.py::test_slow_clients": 8,
    "tests/test_ops_stack.py::test_two_web_instances": 7,
    "tests/test_input_fuzz.py::test_anonymous_requests_anywhere": 7,
    "tests/browser/test_kitten.py::test_a_whole_game_on_auto": 6,
    "tests/browser/test_daily_end.py::": 5,
    "tests/browser/test_leagues.py::test_a_league_made_in_one_browser": 5,
}


def pytest_collection_modifyitems(config, items):
    tests = Path(__file__).resolve().parent / "tests"
    for item in items:
        path = Path(str(item.path))
        folder = path.parent.name if path.parent.parent == tests else None
        names = {MARK_BY_FOLDER.get(folder)} | {MARK_BY_FIXTURE.get(f) for f in item.fixturenames}
        for name in sorted(n for n in names if n):
            if item.get_closest_marker(name) is None:
                item.add_marker(name)
    workerinput = getattr(config, "workerinput", {})
    if workerinput.get("workercount", 0) > 1 and workerinput.get("dist") == "worksteal":
        items[:] = slowest_first(items, workerinput["workercount"])


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """(pytest-xdist, in the process that hands out the tests.) A worker's own options say
    "no" distribution: it is told the mode here, for slowest_first."""
    node.workerinput["dist"] = node.config.getoption("dist")


def slowest_first(items: list, workers: int) -> list:
    """The order for pytest-xdist's worksteal: it hands worker k the k-th of ``workers``
    consecutive slices of the list, and a worker that runs out takes the far end of
    another's slice. Each slice begins with its share of the slow tests (the longest first,
    each to the slice with the least so far): none is left to start alone at the end, while
    the quick ones, in their usual order, fill the slices and the ends that are taken.
    Every worker collects the same list, so all compute the same order."""
    weight = {item.nodeid: next((s for key, s in SLOW.items() if item.nodeid.startswith(key)), 0) for item in items}
    slow = sorted((item for item in items if weight[item.nodeid]), key=lambda item: -weight[item.nodeid])
    quick = iter(item for item in items if not weight[item.nodeid])
    sizes, left = [], len(items)
    for k in range(workers):  # as xdist's worksteal cuts the slices
        sizes.append(left // (workers - k))
        left -= sizes[-1]
    slices: list[list] = [[] for _ in range(workers)]
    loads = [0] * workers
    for item in slow:
        open_ = [k for k in range(workers) if len(slices[k]) < sizes[k]]
        k = min(open_, key=lambda k: loads[k])
        slices[k].append(item)
        loads[k] += weight[item.nodeid]
    for k in range(workers):
        slices[k] += [next(quick) for _ in range(sizes[k] - len(slices[k]))]
    return [item for part in slices for item in part]


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    """Under pytest-xdist this process only hands out tests, and its workers start before
    any test runs: they start as this process did, from the environment it was given, so
    each loads the settings after starting a redis-server of its own (_start_own_redis)."""
    config = session.config
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        for name in ("TESTS_OWN_REDIS_PORT", "TESTS_OWN_REDIS_FOR", "DJANGO_SETTINGS_MODULE"):
            os.environ.pop(name, None)
        if given := os.environ.pop("TESTS_GIVEN_REDIS_URL", None):
            os.environ["REDIS_URL"] = given


def pytest_report_header(config):
    if _server is not None:
        return f"redis: the session's own redis-server on 127.0.0.1:{_server.port} (the given {_given} is not used)"
    return None


def pytest_unconfigure(config):
    global _server
    if _server is not None:
        _server.kill()
        _server = None
