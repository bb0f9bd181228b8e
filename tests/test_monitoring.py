"""The monitoring files (config/monitoring/) and a real Prometheus: Debian's (`make
stack-deps`) scrapes the full stack's /metrics (scripts/stack) with the token while asks
are made over HTTP and the game's socket; the dashboard's queries then answer the numbers
the test caused."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
import yaml
from websockets.sync.client import connect

from harness.servers import RedisServer, free_port, stop_stack
from tests.conftest import ROOT
from tests.test_ops_ratelimit import http_request

MONITORING = ROOT / "config" / "monitoring"
DASHBOARD = MONITORING / "grafana" / "dashboards" / "peche.json"
TOKEN = "stack-metrics-token-for-the-test"
needs_promtool = pytest.mark.skipif(not shutil.which("promtool"), reason="needs Debian's prometheus (make stack-deps)")


def panel_queries() -> list[str]:
    dashboard = json.loads(DASHBOARD.read_text())
    return [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]


@needs_promtool
def test_the_alert_rules_pass_promtool_and_their_unit_tests_fire_them():
    checked = subprocess.run(
        ["promtool", "check", "rules", str(MONITORING / "alerts.yml")], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    tested = subprocess.run(
        ["promtool", "test", "rules", "alerts_test.yml"], cwd=MONITORING, capture_output=True, text=True
    )
    assert tested.returncode == 0, tested.stdout + tested.stderr
    fired = {
        case["alertname"]
        for group in yaml.safe_load((MONITORING / "alerts_test.yml").read_text())["tests"]
        for case in group["alert_rule_test"]
        if case["exp_alerts"]
    }
    assert len(fired) >= 2


def test_the_dashboard_and_provisioning_files_are_valid():
    dashboard = json.loads(DASHBOARD.read_text())
    assert dashboard["uid"] and dashboard["panels"]
    assert all(panel["targets"] for panel in dashboard["panels"])
    assert len({panel["id"] for panel in dashboard["panels"]}) == len(dashboard["panels"])
    provisioning = MONITORING / "grafana" / "provisioning"
    source = yaml.safe_load((provisioning / "datasources" / "prometheus.yml").read_text())["datasources"][0]
    assert {t["datasource"]["uid"] for p in dashboard["panels"] for t in p["targets"]} == {source["uid"]}
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert {"prometheus", "grafana"} <= set(compose["services"])
    mounted = " ".join(compose["services"]["grafana"]["volumes"])
    assert "config/monitoring/grafana/dashboards" in mounted and "config/monitoring/grafana/provisioning" in mounted


class Prometheus:
    """Debian's prometheus on a free port, scraping one target every second."""

    def __init__(self, run_dir: Path, target: str) -> None:
        self.port = free_port()
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "token").write_text(TOKEN)
        shutil.copy(MONITORING / "alerts.yml", run_dir / "alerts.yml")
        config = yaml.safe_load((MONITORING / "prometheus.yml").read_text())
        config["global"] = {"scrape_interval": "1s", "evaluation_interval": "1s"}
        config["rule_files"] = [str(run_dir / "alerts.yml")]
        job = config["scrape_configs"][0]
        job["authorization"]["credentials_file"] = str(run_dir / "token")
        job["static_configs"] = [{"targets": [target]}]
        (run_dir / "prometheus.yml").write_text(yaml.safe_dump(config))
        self.log = open(run_dir / "prometheus.log", "w")  # noqa: SIM115 (closed in stop)
        self.proc = subprocess.Popen(
            [
                "prometheus",
                f"--config.file={run_dir / 'prometheus.yml'}",
                f"--storage.tsdb.path={run_dir / 'data'}",
                f"--web.listen-address=127.0.0.1:{self.port}",
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def query(self, expr: str) -> list[dict]:
        url = f"http://127.0.0.1:{self.port}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
        with urllib.request.urlopen(url, timeout=5) as response:
            answer = json.load(response)
        assert answer["status"] == "success", answer
        return answer["data"]["result"]

    def value(self, expr: str) -> float | None:
        try:
            found = self.query(expr)
        except OSError:
            return None
        return float(found[0]["value"][1]) if found else None

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


def ended(pid: int) -> bool:
    """No such process, or a zombie (scripts/stack's children are reaped by whoever adopted them)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (OSError, IndexError):
        return True


def eventually(read, expected, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while True:
        found = read()
        if found == expected or time.monotonic() > deadline:
            return found
        time.sleep(0.5)


@pytest.fixture
def monitored_stack(tmp_path):
    """scripts/stack (nginx, gunicorn, uvicorn, a worker, beat) on a SQLite file of its own
    and a redis-server of its own, with /metrics behind a token, and Prometheus on it."""
    for needed in ("prometheus", "redis-server"):
        if not shutil.which(needed):
            pytest.skip(f"needs {needed} (make stack-deps)")
    if not (shutil.which("nginx") or os.path.exists("/usr/sbin/nginx")):
        pytest.skip("needs nginx (make stack-deps)")
    redis = RedisServer(free_port())
    redis.start()
    port = free_port()
    run_dir = tmp_path / "run"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'stack.sqlite3'}",
        "REDIS_URL": redis.url_for(0),
        "TEST_REDIS_DB": "0",
        "METRICS_TOKEN": TOKEN,
        "STACK_RUN_DIR": str(run_dir),
        "STACK_BIND": f"127.0.0.1:{port}",
        "STACK_SKIP_SETUP": "1",
        "WORKER_CONCURRENCY": "1",
        "WEB_CONCURRENCY": "2",
        "SWEEP_SECONDS": "2",  # beat's sweep runs within the test
    }
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    for command in (["migrate", "--noinput", "-v0"], ["ensure_challenges"]):
        done = subprocess.run(
            [str(ROOT / ".venv/bin/python"), "manage.py", *command], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stdout + done.stderr
    started = subprocess.run(
        [str(ROOT / "scripts/stack"), "start"], env=env, capture_output=True, text=True, timeout=120
    )
    prometheus = None
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        prometheus = Prometheus(tmp_path / "prometheus", f"127.0.0.1:{port}")
        prometheus.stack_port = port  # type: ignore[attr-defined]
        prometheus.run_dir = run_dir  # type: ignore[attr-defined]
        yield prometheus
    finally:
        if prometheus is not None:
            prometheus.stop()
        stop_stack(run_dir)
        redis.kill()


def asks_to_the_end(port: int, view: dict, token: str) -> tuple[dict, int]:
    """The first rank in hand asked over HTTP until the game ends: its last view, and how
    many asks that took."""
    asks = 0
    while view["status"] == "playing":
        code, view = http_request(
            port,
            "POST",
            f"/api/attempts/{view['id']}/asks",
            {"rank": view["hand"][0][:-1], "move": view["move"]},
            token=token,
        )
        assert code == 200, view
        asks += 1
    return view, asks


def test_prometheus_scrapes_the_stack_and_the_dashboard_counts_the_asks_made(monitored_stack):
    prometheus = monitored_stack
    port = prometheus.stack_port
    # Through the proxy: the bearer of the token gets the sum over every process, anyone else a 404.
    for headers in ({}, {"Authorization": "Bearer not-the-token"}):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(
                urllib.request.Request(f"http://127.0.0.1:{port}/metrics", headers=headers), timeout=10
            )
        assert refused.value.code == 404
    assert eventually(lambda: prometheus.value('up{job="peche"}'), 1.0) == 1.0

    code, player = http_request(port, "POST", "/api/players", {"name": "Scraped"})
    assert code == 201, player
    code, view = http_request(port, "POST", "/api/challenges/today/attempt", token=player["token"])
    assert code == 201, view
    http_asks = 3
    for _ in range(http_asks):
        code, view = http_request(
            port,
            "POST",
            f"/api/attempts/{view['id']}/asks",
            {"rank": view["hand"][0][:-1], "move": view["move"]},
            token=player["token"],
        )
        assert code == 200, view
    code, refused = http_request(
        port, "POST", f"/api/attempts/{view['id']}/asks", {"rank": "7", "move": 0}, token=player["token"]
    )
    assert code == 409 and refused["error"] == "stale_move"

    socket_asks = 0
    with connect(
        f"ws://127.0.0.1:{port}/ws/attempts/{view['id']}",
        additional_headers={"Authorization": f"Token {player['token']}"},
    ) as ws:
        hello = json.loads(ws.recv(timeout=10))
        assert hello["ready"]
        move = hello["move"]
        while view["status"] == "playing" and socket_asks < 4:
            ws.send(json.dumps({"move": move, "rank": view["hand"][0][:-1]}))
            view = json.loads(ws.recv(timeout=10))
            assert "error" not in view, view
            move, socket_asks = view["move"], socket_asks + 1
        open_sockets = eventually(lambda: prometheus.value("sum(peche_sockets_open)"), 1.0)
    assert open_sockets == 1.0
    # The game played to its end over HTTP: the stack's worker verifies and ranks it.
    view, played = asks_to_the_end(port, view, player["token"])
    http_asks += played

    def by_transport(transport: str, outcome: str = "ok") -> float | None:
        return prometheus.value(f'sum(peche_ask_seconds_count{{transport="{transport}",outcome="{outcome}"}})')

    # The dashboard's counter panel, summed over gunicorn's two workers and uvicorn.
    assert eventually(lambda: by_transport("http"), float(http_asks)) == http_asks
    assert eventually(lambda: by_transport("socket"), float(socket_asks)) == socket_asks
    assert by_transport("http", "stale_move") == 1.0
    totals = {r["metric"]["transport"]: float(r["value"][1]) for r in prometheus.query(panel_queries()[1])}
    assert totals == {"http": http_asks + 1, "socket": socket_asks}
    assert eventually(lambda: prometheus.value("sum(peche_sockets_open)"), 0.0) == 0.0
    # Verified once, ranked once; nothing waits.
    assert eventually(lambda: prometheus.value("sum(peche_verification_lag_seconds_count)"), 1.0) == 1.0
    assert eventually(lambda: prometheus.value('max(peche_results{outcome="ranked"})'), 1.0) == 1.0
    assert prometheus.value("max(peche_verification_backlog)") == 0.0
    assert prometheus.value('sum(peche_task_seconds_count{task="challenges.tasks.verify_pending"})') >= 1
    # The beat's sweep ran in the worker, and tomorrow's deal exists.
    assert eventually(lambda: prometheus.value("count(peche_scheduled_task_last_run_timestamp_seconds)"), 1.0) == 1.0
    assert prometheus.value("max(peche_next_challenge_ready)") == 1.0
    assert prometheus.value("max(peche_redis_breaker_open)") == 0.0  # every process's, Redis answering
    assert (
        prometheus.value('sum(peche_request_seconds_count{view="api/attempts/<int:attempt_id>/asks"})') == http_asks + 1
    )
    # Every panel's query is valid PromQL on this Prometheus, and nearly all have data now.
    empty = [expr for expr in panel_queries() if not prometheus.query(expr)]
    assert len(empty) <= 4, empty

    # The worker stopped: a game finished now waits, and the real rule on the real series
    # starts its alert (pending, firing once it has grown for 10 min).
    worker_pid = int((prometheus.run_dir / "worker.pid").read_text())
    os.kill(worker_pid, signal.SIGTERM)
    assert eventually(lambda: ended(worker_pid), True)
    code, other = http_request(port, "POST", "/api/players", {"name": "Waiting"})
    code, view = http_request(port, "POST", "/api/challenges/today/attempt", token=other["token"])
    view, _ = asks_to_the_end(port, view, other["token"])
    assert eventually(lambda: prometheus.value("max(peche_verification_backlog)"), 1.0) == 1.0
    pending = 'count(ALERTS{alertname="VerificationBacklogGrowing", alertstate="pending"})'
    assert eventually(lambda: prometheus.value(pending), 1.0) == 1.0
