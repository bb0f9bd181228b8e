"""Rate limits: players per client IP, asks per player, counted in the shared
cache so that several web processes together let exactly the limit through."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import override_settings
from rest_framework.test import APIClient

from config import rates
from config.rates import parse_rate
from tests.conftest import ROOT, wait_for, worker_env
from tests.test_ops_health import free_port


@pytest.fixture(autouse=True)
def fresh_counters():
    """Counters outlive a test run (a window lasts up to an hour) and ids repeat: start at zero."""
    if "RedisCache" in settings.CACHES["default"]["BACKEND"]:
        import redis

        client = redis.Redis.from_url(settings.CACHES["default"]["LOCATION"])
        prefix = settings.CACHES["default"].get("KEY_PREFIX", "")
        for key in client.scan_iter(f"{prefix}:*:rl:*"):
            client.delete(key)
    else:
        cache.clear()
    rates._HERE.clear()  # the per-process fallback's counts, too


_ip_counter = iter(range(1, 250))


@pytest.fixture
def client_ip():
    """An address of this test's own."""
    return f"10.77.{os.getpid() % 250}.{next(_ip_counter)}"


def test_parse_rate():
    assert parse_rate("30/hour") == (30, 3600)
    assert parse_rate("600/minute") == (600, 60)
    assert parse_rate("5/s") == (5, 1)
    assert parse_rate("2/day") == (2, 86400)
    assert parse_rate("off") is None and parse_rate(None) is None and parse_rate("") is None
    with pytest.raises(ValueError):
        parse_rate("3/fortnight")


def test_a_mistyped_limit_stops_the_process_at_start_not_every_ask():
    """RATE_LIMIT_ASKS=on is not a rate: the process refuses to start and names the setting
    (otherwise every ask would be a 500)."""
    env = {**os.environ, "RATE_LIMIT_ASKS": "on", "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    done = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0
    assert "RATE_LIMIT_ASKS" in done.stderr and "N/minute" in done.stderr


def test_the_limits_are_generous_by_default_and_off_in_tests():
    from config.settings import base

    assert parse_rate(base.RATE_LIMITS["players"])[0] >= 30
    players, period = parse_rate(base.RATE_LIMITS["asks"])
    assert players / period >= 5  # asks per second
    assert all(parse_rate(rate) is None for rate in settings.RATE_LIMITS.values())


@pytest.mark.django_db
def test_player_creation_is_limited_per_client_ip(client_ip):
    api = APIClient(REMOTE_ADDR=client_ip)
    with override_settings(RATE_LIMITS={"players": "3/hour"}):
        codes = [api.post("/api/players", {"name": f"Ip player {i}"}, format="json").status_code for i in range(3)]
        assert codes == [201, 201, 201]
        refused = api.post("/api/players", {"name": "Ip player 4"}, format="json")
        assert refused.status_code == 429
        assert refused.json()["error"] == "rate_limited"
        assert 1 <= int(refused["Retry-After"]) <= 3601
        # A forged X-Forwarded-For does not make a new client (no proxy is trusted by default).
        forged = api.post("/api/players", {"name": "Ip player 5"}, format="json", HTTP_X_FORWARDED_FOR="1.2.3.4")
        assert forged.status_code == 429
        other = APIClient(REMOTE_ADDR=client_ip.rsplit(".", 1)[0] + ".251")
        assert other.post("/api/players", {"name": "Other ip"}, format="json").status_code == 201


@pytest.mark.django_db
def test_password_logins_are_limited_per_client_ip(client_ip, player_factory):
    player_factory("Login Target")
    api = APIClient(REMOTE_ADDR=client_ip)
    with override_settings(RATE_LIMITS={"logins": "2/hour"}):
        codes = [
            api.post("/api/session", {"name": "Login Target", "password": f"guess {i}"}, format="json").status_code
            for i in range(4)
        ]
    assert codes == [401, 401, 429, 429], codes


@pytest.mark.django_db
def test_asks_are_limited_per_player(player_factory):
    alice, bob = player_factory("Asker A"), player_factory("Asker B")
    with override_settings(RATE_LIMITS={"asks": "3/minute"}):
        for client in (alice, bob):
            view = client.post("/api/challenges/today/attempt").json()
            codes = []
            for _ in range(5):
                response = client.post(
                    f"/api/attempts/{view['id']}/asks", {"rank": view["hand"][0][:-1], "move": 99}, format="json"
                )
                codes.append(response.status_code)
            # Refused asks count too (here: stale moves); the fourth is over the limit.
            assert codes == [409, 409, 409, 429, 429], codes
        body = response.json()
        assert body["error"] == "rate_limited" and body["detail"]


def dead_store():
    """A cache (as configured with REDIS_URL) on a Redis address where nothing listens."""
    return {
        "default": {
            "BACKEND": "config.cache.GuardedRedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",
            "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
        }
    }


@pytest.mark.django_db
def test_an_unreachable_store_still_limits_signups_and_logins(client_ip, player_factory):
    """Redis down must not mean unlimited sign-ups and password guesses: each process
    counts in its own memory meanwhile."""
    player_factory("Guarded Name")
    api = APIClient(REMOTE_ADDR=client_ip)
    with override_settings(CACHES=dead_store(), RATE_LIMITS={"players": "1/hour", "logins": "2/hour"}):
        codes = [api.post("/api/players", {"name": f"Open {i}"}, format="json").status_code for i in range(3)]
        assert codes == [201, 429, 429], codes
        guesses = [
            api.post("/api/session", {"name": "Guarded Name", "password": f"guess {i}"}, format="json").status_code
            for i in range(4)
        ]
        assert guesses == [401, 401, 429, 429], guesses
        refused = api.post("/api/session", {"name": "Guarded Name", "password": "x"}, format="json")
        assert refused.json()["error"] == "rate_limited" and 1 <= int(refused["Retry-After"]) <= 3601
        # Another address has a window of its own.
        other = APIClient(REMOTE_ADDR=client_ip.rsplit(".", 1)[0] + ".252")
        assert other.post("/api/players", {"name": "Open other"}, format="json").status_code == 201


def test_without_its_store_a_limit_opens_new_windows_and_forgets_the_oldest_clients_first(monkeypatch):
    """The per-process fallback, seen as a client sees it: over the limit it waits for its
    window to close, then passes again; and a process remembers a bounded number of clients
    (the oldest go first), never one more."""
    monkeypatch.setattr(rates, "_HERE_MAX", 50)  # the bound (100,000), small enough to reach here
    clock = [1000.0]
    monkeypatch.setattr(rates.time, "monotonic", lambda: clock[0])
    with override_settings(CACHES=dead_store(), RATE_LIMITS={"logins": "2/minute"}):
        assert [rates.hit("logins", "first") for _ in range(3)] == [None, None, 61]
        clock[0] += 30
        assert rates.hit("logins", "first") == 31  # the same window, 30 s later
        clock[0] += 31  # the window closed: counting starts again
        assert [rates.hit("logins", "first") for _ in range(3)] == [None, None, 61]
        for i in range(60):  # more clients than the process remembers
            assert rates.hit("logins", f"client {i}") is None
        assert rates.hit("logins", "first") is None  # the oldest was forgotten
        assert [rates.hit("logins", "client 59") for _ in range(2)] == [None, 61]  # a recent one was not


# --- the admin's log-in ----------------------------------------------------------------

ADMIN_LOGIN = "/admin/login/?next=/admin/"


@pytest.fixture
def admin_user(db):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_superuser("keeper", "keeper@example.com", "pw-Keeper-123")


def admin_try(client_ip: str, username: str, password: str):
    from django.test import Client

    return Client(REMOTE_ADDR=client_ip).post(
        ADMIN_LOGIN, {"username": username, "password": password, "next": "/admin/"}
    )


def logged_in(response) -> bool:
    return response.status_code == 302 and response["Location"] == "/admin/"


@pytest.mark.parametrize("store", ["shared", "unreachable"])
def test_the_admin_login_is_limited_per_address_with_a_clear_message(admin_user, client_ip, store):
    """25 wrong passwords, then the right one: refused, and the page says why. With the
    store unreachable too."""
    caches = dead_store() if store == "unreachable" else settings.CACHES
    with override_settings(CACHES=caches, RATE_LIMITS={"admin_logins": "10/hour", "admin_logins_name": "off"}):
        assert logged_in(admin_try(client_ip, "keeper", "pw-Keeper-123"))  # a success counts for nothing
        wrong = [admin_try(client_ip, "keeper", f"guess {i}") for i in range(25)]
        assert all(r.status_code == 200 for r in wrong)
        right = admin_try(client_ip, "keeper", "pw-Keeper-123")
        assert not logged_in(right) and right.status_code == 200
        page = right.content.decode()
        assert "Too many log-in attempts" in page and "Try again in 60 minutes" in page, page
        assert "Too many log-in attempts" not in wrong[9].content.decode()  # the 10th failure is still tried
        assert "Too many log-in attempts" in wrong[10].content.decode()
        # Another address is not refused for this one's tries.
        assert logged_in(admin_try(client_ip.rsplit(".", 1)[0] + ".253", "keeper", "pw-Keeper-123"))


def test_the_admin_login_is_limited_per_address_and_username(admin_user, client_ip):
    """One address guessing one name is stopped before the address's own limit; the same
    address may still log in as someone else."""
    get_user_model().objects.create_superuser("other", "other@example.com", "pw-Other-123")
    with override_settings(RATE_LIMITS={"admin_logins": "50/hour", "admin_logins_name": "3/hour"}):
        wrong = [admin_try(client_ip, "Keeper ", f"guess {i}") for i in range(3)]  # case and spaces: one name
        assert all(r.status_code == 200 and "Too many" not in r.content.decode() for r in wrong)
        right = admin_try(client_ip, "keeper", "pw-Keeper-123")
        assert not logged_in(right) and "Too many log-in attempts" in right.content.decode()
        assert logged_in(admin_try(client_ip, "other", "pw-Other-123"))


@pytest.mark.parametrize("store", ["shared", "unreachable"])
def test_the_staff_log_in_as_often_as_they_like_and_only_failures_lock(admin_user, client_ip, store):
    """Successes count for nothing: 30 log-ins in a row from one address, past both limits
    (10 an address, 5 an address and name), all get in. Failures still lock: after 4
    wrong passwords and a log-in, the 5th wrong one is the last tried, and then even the
    right password is refused (a guesser's last try being the right one tells nothing)."""
    caches = dead_store() if store == "unreachable" else settings.CACHES
    with override_settings(CACHES=caches, RATE_LIMITS={"admin_logins": "10/hour", "admin_logins_name": "5/hour"}):
        assert all(logged_in(admin_try(client_ip, "keeper", "pw-Keeper-123")) for _ in range(30))
        for i in range(4):
            assert "Too many" not in admin_try(client_ip, "keeper", f"guess {i}").content.decode()
        assert logged_in(admin_try(client_ip, "keeper", "pw-Keeper-123"))
        fifth = admin_try(client_ip, "keeper", "guess 4")
        assert not logged_in(fifth) and "Too many" not in fifth.content.decode()
        refused = admin_try(client_ip, "keeper", "pw-Keeper-123")
        assert not logged_in(refused) and "Too many log-in attempts" in refused.content.decode()


def round_robin_guesses(addresses, tries, attempt):
    """``tries`` wrong passwords, one address after the other: a guesser spreading its tries."""
    return [attempt(addresses[i % len(addresses)], f"guess {i}") for i in range(tries)]


def test_guessers_on_three_addresses_do_not_lock_the_staff_out(admin_user, caplog):
    """Once ~30 wrong passwords for the staff account from 3 addresses locked it for an
    hour, from everywhere. 36 here, with the default limits: the guessing addresses are refused,
    the right password from a 4th address gets in, and the burst is logged with the
    addresses."""
    from config.settings import base

    attackers = [f"10.79.{os.getpid() % 250}.{i}" for i in (1, 2, 3)]
    with override_settings(RATE_LIMITS=base.RATE_LIMITS, LOGIN_FAILURE_BURST=base.LOGIN_FAILURE_BURST):
        with caplog.at_level("WARNING", logger="config.throttling"):
            wrong = round_robin_guesses(attackers, 36, lambda address, guess: admin_try(address, "keeper", guess))
        assert not any(logged_in(r) for r in wrong)
        assert "Too many log-in attempts" in wrong[-1].content.decode()  # the attackers are throttled
        for address in attackers:  # even with the right password
            refused = admin_try(address, "keeper", "pw-Keeper-123")
            assert not logged_in(refused) and "Too many log-in attempts" in refused.content.decode()
        assert logged_in(admin_try(f"10.79.{os.getpid() % 250}.4", "keeper", "pw-Keeper-123"))
    bursts = [r for r in caplog.records if r.levelname == "WARNING" and "login failures burst" in r.getMessage()]
    assert bursts, caplog.text
    message = bursts[0].getMessage()
    assert "scope=admin_logins" in message and "'keeper'" in message
    assert all(address in message for address in attackers), message


@pytest.mark.django_db
def test_guessers_on_three_addresses_do_not_lock_a_player_out(player_factory, caplog):
    """The same at the site's own password log-in (POST /api/session)."""
    from config.settings import base

    owner = player_factory("Guarded Owner")
    assert owner.post("/api/players/me/password", {"password": "a-Fine-pass-77"}, format="json").status_code == 200
    attackers = [f"10.80.{os.getpid() % 250}.{i}" for i in (1, 2, 3)]

    def session(address, password):
        return APIClient(REMOTE_ADDR=address).post(
            "/api/session", {"name": "guarded owner", "password": password}, format="json"
        )

    with override_settings(RATE_LIMITS=base.RATE_LIMITS, LOGIN_FAILURE_BURST=base.LOGIN_FAILURE_BURST):
        with caplog.at_level("WARNING", logger="config.throttling"):
            codes = [r.status_code for r in round_robin_guesses(attackers, 36, session)]
        assert set(codes) == {401, 429} and codes[-3:] == [429, 429, 429], codes
        assert all(session(address, "a-Fine-pass-77").status_code == 429 for address in attackers)
        fresh = session(f"10.80.{os.getpid() % 250}.4", "a-Fine-pass-77")
        assert fresh.status_code == 200 and fresh.json()["name"] == "Guarded Owner"
    bursts = [r.getMessage() for r in caplog.records if "login failures burst" in r.getMessage()]
    assert bursts and "scope=logins" in bursts[0] and all(a in bursts[0] for a in attackers), caplog.text


# --- across processes ----------------------------------------------------------------


def http_request(port: int, method: str, path: str, body: dict | None = None, token: str | None = None):
    """(status, JSON body) of a request to 127.0.0.1:port; (0, None) if nothing answers."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")
    except OSError:
        return 0, None


class Gunicorn:
    """`gunicorn config.wsgi` with 2 workers on a free port, on the test database."""

    def __init__(self, env: dict, log_path) -> None:
        self.port = free_port()
        self.log_path = log_path
        self.access_log = log_path.with_name("access.log")
        self.env = env
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "config.wsgi",
                "--bind",
                f"127.0.0.1:{self.port}",
                "--workers",
                "2",
                "--access-logfile",
                str(self.access_log),
                "--access-logformat",
                "pid=%(p)s %(r)s %(s)s",
            ],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_for(lambda: self.request("GET", "/healthz")[0] == 200, timeout=40, interval=0.2)
        # Both workers up before a test counts on them: the second may still be loading
        # Django when the first answers (on a busy machine, for seconds), and the first
        # then takes every request.
        wait_for(self.both_serving, timeout=40, interval=0.2)

    def both_serving(self) -> bool:
        hammer([lambda: self.request("GET", "/healthz")] * 8)
        return len(self.serving_pids("GET")) == 2

    def request(self, method: str, path: str, body: dict | None = None, token: str | None = None):
        return http_request(self.port, method, path, body, token)

    def serving_pids(self, methods: str = "POST|GET") -> Counter:
        return Counter(re.findall(rf"pid=<?(\d+)>? (?:{methods})", self.access_log.read_text(errors="replace")))

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)


@pytest.fixture
def gunicorn(transactional_db, tmp_path):
    if not settings.REDIS_URL or "postgresql" not in settings.DATABASES["default"]["ENGINE"]:
        pytest.skip("needs DATABASE_URL (Postgres) and REDIS_URL: run through .ci/run")
    from django.db import connection

    env = worker_env(connection.settings_dict["NAME"])
    # Exact counts across the two workers: a Redis call that the busy machine delays past
    # the hot path's 100 ms would be counted in one worker's memory instead (by design).
    env.update(RATE_LIMIT_PLAYERS="5/hour", RATE_LIMIT_ASKS="8/hour", REDIS_HOT_TIMEOUT="5")
    server = Gunicorn(env, tmp_path / "gunicorn.log")
    server.start()
    yield server
    server.stop()


def hammer(calls, threads: int = 8) -> list:
    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(lambda call: call(), calls))


def test_limits_hold_in_total_across_two_gunicorn_workers(gunicorn):
    created = hammer([lambda i=i: gunicorn.request("POST", "/api/players", {"name": f"Crowd {i}"}) for i in range(14)])
    codes = Counter(code for code, _ in created)
    assert codes == {201: 5, 429: 9}, codes
    assert all(body == {"error": "rate_limited", "detail": body["detail"]} for code, body in created if code == 429)

    token = next(body["token"] for code, body in created if code == 201)
    code, view = gunicorn.request("POST", "/api/challenges/today/attempt", token=token)
    assert code == 201, view
    rank = view["hand"][0][:-1]
    lock = threading.Lock()
    moves = iter(range(1000))

    def ask():
        with lock:
            move = next(moves)
        return gunicorn.request(
            "POST", f"/api/attempts/{view['id']}/asks", {"rank": rank, "move": move % 3}, token=token
        )

    asked = hammer([ask for _ in range(20)])
    codes = Counter(code for code, _ in asked)
    assert codes[429] == 12 and sum(codes.values()) == 20, codes
    assert 0 not in codes and 500 not in codes
    # Both worker processes took part in the counting.
    assert len(gunicorn.serving_pids("POST")) == 2, gunicorn.serving_pids("POST")
