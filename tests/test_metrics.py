"""/metrics (config/metrics.py): answered to the bearer of METRICS_TOKEN alone, and its
counters move exactly with the asks made over either transport."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from asgiref.sync import sync_to_async
from django.db import OperationalError
from django.test import override_settings
from prometheus_client import CollectorRegistry, multiprocess
from prometheus_client.parser import text_string_to_metric_families

from config import metrics
from leaderboard.models import Result
from tests.conftest import ROOT, new_player, verified_game
from tests.test_game_socket import ORIGIN, ask, browser_player, cookie_of, opened, run, socket, start

pytestmark = pytest.mark.django_db(transaction=True)

TOKEN = "a-long-random-metrics-token"


def scrape(client) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of /metrics: (name, sorted labels) -> value."""
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain")
    found = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def asks(samples, transport: str, outcome: str) -> float:
    return samples.get(("peche_ask_seconds_count", (("outcome", outcome), ("transport", transport))), 0.0)


@pytest.mark.parametrize(
    "token, header",
    [
        ("", f"Bearer {TOKEN}"),  # unset: nobody gets it
        ("", "Bearer "),
        (TOKEN, None),
        (TOKEN, "Bearer wrong-token"),
        (TOKEN, f"Token {TOKEN}"),
        (TOKEN, f"Bearer {TOKEN}x"),
    ],
)
def test_metrics_are_a_404_without_the_token(client, token, header):
    headers = {} if header is None else {"HTTP_AUTHORIZATION": header}
    with override_settings(METRICS_TOKEN=token):
        response = client.get("/metrics", **headers)
    assert response.status_code == 404
    assert b"peche_" not in response.content


@override_settings(METRICS_TOKEN=TOKEN)
def test_the_bearer_gets_every_metric(client):
    samples = scrape(client)
    names = {name for name, _ in samples}
    for name in (
        "peche_verification_backlog",
        "peche_next_challenge_ready",
        "peche_day_closes_timestamp_seconds",
        "peche_results",
        "peche_sockets_open",
    ):
        assert name in names, name
    assert samples[("peche_next_challenge_ready", ())] in (0.0, 1.0)


@override_settings(METRICS_TOKEN=TOKEN)
def test_http_asks_move_the_counters_by_exactly_the_asks_made(client):
    player = new_player("Counted")
    view = player.post("/api/challenges/today/attempt").json()
    before = scrape(client)
    made = 0
    for _ in range(3):
        view = player.post(
            f"/api/attempts/{view['id']}/asks", {"rank": view["hand"][0][:-1], "move": view["move"]}, format="json"
        ).json()
        made += 1
    stale = player.post(f"/api/attempts/{view['id']}/asks", {"rank": "7", "move": 0}, format="json")
    assert stale.status_code == 409 and stale.json()["error"] == "stale_move"
    unknown = player.post(f"/api/attempts/{view['id']}/asks", {"rank": "7", "move": 3, "x": 1}, format="json")
    assert unknown.json()["error"] == "unknown_field"
    after = scrape(client)
    assert asks(after, "http", "ok") - asks(before, "http", "ok") == made
    assert asks(after, "http", "stale_move") - asks(before, "http", "stale_move") == 1
    assert asks(after, "http", "unknown_field") - asks(before, "http", "unknown_field") == 1
    assert asks(after, "socket", "ok") == asks(before, "socket", "ok")
    route = (("status", "2xx"), ("view", "api/attempts/<int:attempt_id>/asks"))
    assert after[("peche_request_seconds_count", route)] - before.get(("peche_request_seconds_count", route), 0) == made


@override_settings(METRICS_TOKEN=TOKEN)
def test_socket_asks_move_the_counters_and_the_open_sockets(client):
    alice = browser_player("Sockets")
    view = start(alice)
    before = scrape(client)

    async def scenario():
        communicator = socket(view["id"], ORIGIN, cookie_of(alice))
        await opened(communicator)
        during = await sync_to_async(scrape)(client)
        answer = await ask(communicator, {"move": 0, "rank": view["hand"][0][:-1]})
        answer = await ask(communicator, {"move": 1, "rank": answer["hand"][0][:-1]})
        refused = await ask(communicator, {"move": 0, "rank": "7"})
        await communicator.disconnect()
        return during, refused

    during, refused = run(scenario())
    assert refused["error"] == "stale_move"
    after = scrape(client)
    assert during[("peche_sockets_open", ())] - before[("peche_sockets_open", ())] == 1
    assert after[("peche_sockets_open", ())] == before[("peche_sockets_open", ())]
    assert asks(after, "socket", "ok") - asks(before, "socket", "ok") == 2
    assert asks(after, "socket", "stale_move") - asks(before, "socket", "stale_move") == 1
    assert asks(after, "http", "ok") == asks(before, "http", "ok")


@override_settings(METRICS_TOKEN=TOKEN)
def test_a_verified_game_is_counted_ranked_and_its_lag_observed(client):
    before = scrape(client)
    verified_game("Ranked one")
    after = scrape(client)
    ranked = ("peche_results", (("outcome", "ranked"), ("reason", "")))
    assert after[ranked] - before[ranked] == 1
    lag = ("peche_verification_lag_seconds_count", ())
    assert after[lag] - before.get(lag, 0) == 1


def count_in_child(directory: str, times: int) -> subprocess.CompletedProcess:
    """A process of its own counting ``times`` HTTP asks into ``directory`` (config/metrics.py)."""
    code = (
        "from config import metrics\n"
        "import time\n"
        f"for _ in range({times}):\n"
        "    metrics.ask_done('http', 'ok', time.perf_counter())\n"
        "metrics.SOCKETS_OPEN.inc()\n"
        "print(metrics.MULTIPROCESS_DIR)\n"
    )
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": directory}
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)


def test_every_process_counts_into_the_directory_and_the_sum_is_theirs(tmp_path):
    for times in (3, 4):
        done = count_in_child(str(tmp_path), times)
        assert done.returncode == 0 and done.stdout.strip() == str(tmp_path), done.stderr
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, str(tmp_path))
    asks = registry.get_sample_value("peche_ask_seconds_count", {"transport": "http", "outcome": "ok"})
    assert asks == 7
    # Both processes have ended, yet nobody marked them dead: their open sockets still count.
    assert registry.get_sample_value("peche_sockets_open") == 2
    for path in tmp_path.glob("gauge_livesum_*.db"):
        metrics.multiprocess.mark_process_dead(path.stem.rsplit("_", 1)[1], str(tmp_path))
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, str(tmp_path))
    assert registry.get_sample_value("peche_sockets_open") in (None, 0)
    assert registry.get_sample_value("peche_ask_seconds_count", {"transport": "http", "outcome": "ok"}) == 7


def test_a_directory_it_cannot_write_leaves_the_process_counting_for_itself(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    done = count_in_child(str(blocked / "metrics"), 2)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""
    assert "not a writable directory" in done.stderr


@override_settings(METRICS_TOKEN=TOKEN)
def test_held_and_disqualified_results_are_counted_with_why(client):
    verified_game("Flagged one")
    verified_game("Linked one")
    verified_game("Out")
    before = scrape(client)
    flagged, linked, out = Result.objects.order_by("pk")[:3]
    Result.objects.filter(pk=flagged.pk).update(flagged=True, held=True)
    Result.objects.filter(pk=linked.pk).update(linked_accounts=True, held=True)
    Result.objects.filter(pk=out.pk).update(disqualified=True)
    after = scrape(client)

    def moved(outcome: str, reason: str = "") -> float:
        key = ("peche_results", (("outcome", outcome), ("reason", reason)))
        return after[key] - before[key]

    assert moved("ranked") == -3
    assert (moved("held", "flagged"), moved("held", "linked"), moved("disqualified")) == (1, 1, 1)


@override_settings(METRICS_TOKEN=TOKEN)
def test_with_the_database_down_the_counters_are_still_served(client, monkeypatch):
    def down():
        raise OperationalError("connection refused")

    monkeypatch.setattr("challenges.selectors.operations_gauges", down)
    samples = scrape(client)
    assert ("peche_verification_backlog", ()) not in samples
    assert ("peche_sockets_open", ()) in samples and any(name == "peche_results" for name, _ in samples)
