"""The Content-Security-Policy: every page of the site, played through in Chromium
with the policy the settings send, reports no violation — no inline script, style or event
handler anywhere, ours or the admin's or Swagger UI's."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from .test_accessibility import FAST
from .test_daily import start_as_guest
from .test_replay import session_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Every violation, as it happens (a page about to be left would take a list of its own
# along): the page calls back into the test.
REPORT = """document.addEventListener('securitypolicyviolation', e => window.cspViolation({
    page: location.pathname, directive: e.effectiveDirective, blocked: e.blockedURI,
    source: e.sourceFile, line: e.lineNumber, sample: e.sample}));"""


def watch(page) -> tuple[list, dict]:
    """(violations, {path: its Content-Security-Policy}) of every document the page loads."""
    violations, policies = [], {}
    page.expose_function("cspViolation", lambda violation: violations.append(violation))
    page.add_init_script(REPORT)
    page.on(
        "response",
        lambda r: (
            r.request.resource_type == "document"
            and policies.__setitem__(
                r.url.split("?")[0].split("://", 1)[1].split("/", 1)[1], r.headers.get("content-security-policy")
            )
        ),
    )
    return violations, policies


def enforced(new_page):
    """A page with the policy enforced (the other tests bypass it, conftest.py). Waits
    here are selectors only: wait_for_function is an eval, which the policy refuses."""
    return new_page(bypass_csp=False)


def play_the_daily(page):
    """Today's game from the name prompt to its end, by keyboard, the table at each step."""
    start_as_guest(page, "Csp player")
    while True:
        page.wait_for_selector("#turn[data-turn='player'], #end:not([hidden])", state="attached")
        if page.locator("#end").is_visible():
            break
        page.keyboard.press("Enter")
        page.wait_for_selector("#turn:not([data-turn='busy'])", state="attached")
    page.wait_for_selector("#end-status")


def admin_session() -> str:
    """A superuser's session cookie: the admin's pages as a reviewer meets them."""
    from types import SimpleNamespace

    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_superuser("csp-root", "root@example.com", "pw-Admin-123")
    return session_for(SimpleNamespace(player=SimpleNamespace(user=user)))


def test_no_page_violates_the_content_security_policy(new_page, settings):
    from challenges import days
    from tests.test_admin import verified_attempt

    policy = settings.CONTENT_SECURITY_POLICY
    assert "default-src 'self'" in policy and "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy
    page = enforced(new_page)
    page.add_init_script(FAST)
    violations, policies = watch(page)
    page.goto(page.base + "/")
    page.wait_for_load_state("networkidle")
    play_the_daily(page)  # /daily/: before, during and after a game
    seen = ["/", "/daily/"]
    for path in (
        f"/leaderboard/{days.today().isoformat()}/",
        "/daily/archive/",
        "/me/",
        "/kitten/",
        "/gofish/",
        "/admin/login/",
    ):
        page.goto(page.base + path)
        page.wait_for_load_state("networkidle")  # a page's own scripts have run
        seen.append(path)

    # A closed day's game: its public replay and its player's page, seen by a visitor.
    attempt = verified_attempt("Csp replayed", day=dt.date(2026, 6, 2))
    visitor = enforced(new_page)
    visitor_violations, visitor_policies = watch(visitor)
    for path in (
        f"/replays/{attempt.pk}/",
        f"/players/{attempt.player_id}/",
        "/me/",
        "/leaderboard/2026-06-02/",
        "/api/docs",
    ):
        visitor.goto(visitor.base + path)
        visitor.wait_for_load_state("networkidle")
        seen.append(path)
    visitor.wait_for_selector("#swagger-ui .opblock")  # Swagger UI drew the schema

    # The admin's pages, ours (replay inspector, review queue) among them.
    admin = enforced(new_page)
    admin_violations, admin_policies = watch(admin)
    admin.context.add_cookies([{"name": "sessionid", "value": admin_session(), "url": admin.base}])
    for path in (
        "/admin/",
        "/admin/challenges/attempt/",
        f"/admin/challenges/attempt/{attempt.pk}/change/",
        f"/admin/challenges/attempt/{attempt.pk}/replay/",
        "/admin/challenges/attempt/review/",
    ):
        response = admin.goto(admin.base + path)
        assert response.status == 200, path
        admin.wait_for_load_state("networkidle")
        seen.append(path)

    everything = violations + visitor_violations + admin_violations
    assert not everything, json.dumps(everything, indent=1)
    pages = {**policies, **visitor_policies, **admin_policies}
    # The policy was on for every document (else "no violation" would prove nothing).
    assert pages and all(found == policy for found in pages.values()), pages
    assert len(seen) >= 17 and "admin/login/" in pages and "api/docs" in pages


def test_a_violation_in_a_visitors_browser_is_reported_to_the_site(new_page):
    """Something the policy refuses (an injected inline script, as an extension or a proxy
    would add) is reported by the browser itself, and kept for the operators."""
    from django.core.cache import cache

    from config import csp_reports
    from tests.conftest import wait_for

    cache.delete(csp_reports.RECENT_KEY)
    page = enforced(new_page)
    page.expected_errors.append("Content Security Policy")
    page.goto(page.base + "/rules/")
    page.evaluate(
        "() => { const s = document.createElement('script'); s.textContent = 'window.x = 1'; document.head.append(s); }"
    )
    wait_for(lambda: csp_reports.recent(), timeout=15)
    report = csp_reports.recent()[-1]
    assert report["effectiveDirective"].startswith("script-src") and report["documentURL"].endswith("/rules/")
