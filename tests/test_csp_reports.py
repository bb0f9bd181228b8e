"""CSP violations reported to the site: the policy names the endpoint; POST /csp-reports
takes both report shapes browsers send, answers 204, keeps them briefly and counts them for
the operators (`manage.py csp_reports`); a body too large, not a report, or too many from
one address get a clear 4xx and change nothing."""

from __future__ import annotations

import json

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.test import override_settings

from config import csp_reports

pytestmark = pytest.mark.django_db

OLD_SHAPE = {
    "csp-report": {
        "document-uri": "https://peche.example/daily/",
        "effective-directive": "script-src-elem",
        "violated-directive": "script-src-elem",
        "blocked-uri": "inline",
        "source-file": "https://peche.example/daily/",
        "line-number": 12,
        "disposition": "enforce",
    }
}
REPORTING_API = [
    {
        "type": "csp-violation",
        "age": 3,
        "url": "https://peche.example/rules/",
        "body": {
            "documentURL": "https://peche.example/rules/",
            "effectiveDirective": "img-src",
            "blockedURL": "https://tracker.example/pixel.gif",
            "sourceFile": None,
            "lineNumber": 0,
            "disposition": "enforce",
        },
    }
]


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


def send(client, body, content_type="application/csp-report", address="10.8.0.1"):
    data = body if isinstance(body, bytes | str) else json.dumps(body)
    return client.post("/csp-reports", data=data, content_type=content_type, REMOTE_ADDR=address)


def test_the_policy_names_where_its_violations_go(client):
    response = client.get("/")
    directives = dict((d.split()[0], d.split()[1:]) for d in response.headers["Content-Security-Policy"].split("; "))
    assert directives["report-uri"] == ["/csp-reports"]


def test_both_shapes_are_taken_kept_and_counted(client, capsys, caplog):
    with caplog.at_level("WARNING", logger="config.csp_reports"):
        assert send(client, OLD_SHAPE).status_code == 204
        assert send(client, REPORTING_API, "application/reports+json").status_code == 204
    kept = csp_reports.recent()
    assert [(r["effectiveDirective"], r["blockedURL"]) for r in kept] == [
        ("script-src-elem", "inline"),
        ("img-src", "https://tracker.example/pixel.gif"),
    ]
    assert kept[0]["documentURL"] == "https://peche.example/daily/" and kept[0]["lineNumber"] == 12
    assert list(csp_reports.counts().values())[0] == 2
    assert "csp violation directive=img-src blocked=https://tracker.example/pixel.gif" in caplog.text
    call_command("csp_reports", "--json")
    shown = json.loads(capsys.readouterr().out)
    assert list(shown["counts"].values())[0] == 2 and len(shown["recent"]) == 2


def test_a_strangers_text_is_bounded(client):
    long = {"csp-report": {**OLD_SHAPE["csp-report"], "blocked-uri": "https://x.example/" + "a" * 5000}}
    assert send(client, long).status_code == 204
    assert len(csp_reports.recent()[-1]["blockedURL"]) == csp_reports.MAX_FIELD
    assert send(client, "x" * (csp_reports.MAX_BODY + 1)).status_code == 413
    for junk in ("not json", "[]", '{"csp-report": "x"}', json.dumps([{"type": "deprecation", "body": {}}])):
        answer = send(client, junk)
        assert answer.status_code == 400 and answer.json()["error"] == "bad_report"
    assert list(csp_reports.counts().values())[0] == 1  # only the real report counted
    assert client.get("/csp-reports").status_code == 405


def test_reports_are_limited_per_address(client):
    with override_settings(RATE_LIMITS={"csp_reports": "3/hour"}):
        assert [send(client, OLD_SHAPE).status_code for _ in range(4)] == [204, 204, 204, 429]
        assert send(client, OLD_SHAPE, address="10.8.0.2").status_code == 204
    assert list(csp_reports.counts().values())[0] == 4
    assert len(csp_reports.recent()) == 4


def test_only_the_latest_are_kept(client):
    with override_settings(RATE_LIMITS={"csp_reports": "off"}):
        for n in range(csp_reports.RECENT_KEPT + 5):
            report = {"csp-report": {**OLD_SHAPE["csp-report"], "line-number": n}}
            assert send(client, report).status_code == 204
    kept = csp_reports.recent()
    assert len(kept) == csp_reports.RECENT_KEPT and kept[-1]["lineNumber"] == csp_reports.RECENT_KEPT + 4
