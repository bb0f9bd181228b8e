"""Real Chromium (Debian's) driven by Playwright for Python, against a live server of the ASGI app (tests/asgi_live.py).

Screenshots go to artifacts/screenshots/ (kept by CI as test artifacts)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from django.conf import settings

from tests import asgi_live

# Playwright's sync API keeps an event loop on the test thread; Django's ORM (used by
# fixtures and assertions, never concurrently with the browser's requests) must allow it.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
# Debian's chromium-headless-shell: the same Chromium build without the browser's shell (the
# headless mode Playwright itself uses). Measured on the Kitten browser tests, one process,
# 2026-12-03: 52 s of machine CPU against 93 s with the full `chromium --headless`, the
# suite's largest CPU cost (docs/reports/tests-2026-12-03.md).
CHROMIUM = os.environ.get("CHROMIUM") or next(
    (path for path in map(shutil.which, ("chromium-headless-shell", "chromium")) if path), "/usr/bin/chromium"
)
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]


# The live server speaks ASGI (uvicorn): the daily page's WebSocket opens as under `make run`.
live_server = asgi_live.live_server


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: run `make browser-deps`")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def new_page(browser, live_server):
    """``new_page(locale="fr-FR", viewport={"width": 390, "height": 844})`` -> a page whose
    console errors fail the test. ``page.base`` is the live server's URL. ``first_visit``:
    the browser has not seen the daily page's rules card yet."""
    contexts = []
    errors: list[str] = []

    def make(locale: str = "en-US", viewport: dict | None = None, first_visit: bool = False, **kwargs):
        # The site's Content-Security-Policy forbids eval and inline scripts, which
        # Playwright's wait_for_function and add_script_tag (axe-core) are: tests drive the
        # pages with it bypassed, test_csp.py walks every page with it enforced.
        kwargs.setdefault("bypass_csp", True)
        context = browser.new_context(
            locale=locale,
            viewport=viewport or {"width": 1280, "height": 800},
            extra_http_headers={"Accept-Language": locale},
            **kwargs,
        )
        contexts.append(context)
        page = context.new_page()
        if not first_visit:
            # The daily page's rules card shows on a browser's first visit only: a test that
            # is not about it starts as a returning visitor (``first_visit=True`` to see it).
            page.add_init_script("try { localStorage.setItem('peche:rules-seen', '1'); } catch (_) {}")
        # A test that provokes an error response on purpose lists its text here.
        page.expected_errors = []
        page.on(
            "console",
            lambda m: (
                m.type == "error" and not any(x in m.text for x in page.expected_errors) and errors.append(m.text)
            ),
        )
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.base = live_server.url
        return page

    yield make
    for context in contexts:
        context.close()
    assert not errors, f"console errors: {errors}"


@pytest.fixture
def verifier(request):
    """What verifies a game the browser finishes: with Redis, the session's real Celery
    worker (started once, by whichever test needs it first); without, the eager task in the
    live server itself. A test that waits for "verified" asks for it: a worker left by an
    earlier test of the same process is a matter of order, and one process ran without it."""
    if settings.REDIS_URL:
        request.getfixturevalue("celery_worker_process")


def screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    return path


def no_horizontal_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
