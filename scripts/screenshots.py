"""Pictures of the main pages for the README, taken with Debian's Chromium.

    .venv/bin/python scripts/screenshots.py [--out docs/screenshots]

    .venv/bin/python scripts/screenshots.py --review /tmp/shots   # every page to look at

Starts its own server on a fresh SQLite database (nothing of yours is touched), lets a few
players finish the day's game through the API so the leaderboard has rows, plays part of
a game in the browser, and saves the daily table (desktop and phone), a finished game's end
panel, the home page and the leaderboard. ``--review`` saves instead the pages a newcomer
meets (home, the rules card, the daily table, the end panel, the leaderboard, How to play)
in each language at phone and desktop sizes, whole pages, to look at before a UI is done.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.servers import free_port  # noqa: E402  (the repository's root, put on the path above)

CHROMIUM = "/usr/bin/chromium"
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


def call(base: str, method: str, path: str, body=None, token=None):
    request = urllib.request.Request(
        base + path,
        method=method,
        headers={"Content-Type": "application/json"},
        data=None if body is None else json.dumps(body).encode(),
    )
    if token:
        request.add_header("Authorization", f"Token {token}")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def finish_games(base: str, names: list[str]) -> None:
    """Each player asks, in turn, for the i-th card of their hand: games of all strengths."""
    for n, name in enumerate(names):
        token = call(base, "POST", "/api/players", {"name": name})["token"]
        view = call(base, "POST", "/api/challenges/today/attempt", token=token)
        while not view["over"]:
            rank = view["hand"][(n + view["move"]) % len(view["hand"])][:-1]
            view = call(
                base, "POST", f"/api/attempts/{view['id']}/asks", {"rank": rank, "move": view["move"]}, token=token
            )


# A returning visitor (no rules card) whose cards move fast.
RETURNING = "window.PECHE_STEP_MS = 5; localStorage.setItem('peche:rules-seen', '1');"
VIEWPORTS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}
LOCALES = {"en": "en-US", "fr": "fr-FR", "de": "de-DE", "ja": "ja-JP"}


def finish_in_browser(page) -> None:
    """Plays the page's game to its end (the focused card each turn), until the end
    panel shows where the game stands."""
    while True:
        page.wait_for_function(
            "document.querySelector('#turn').dataset.turn === 'player' || !document.querySelector('#end').hidden"
        )
        if page.locator("#end").is_visible():
            break
        page.keyboard.press("Enter")
        page.wait_for_function("document.querySelector('#turn').dataset.turn !== 'busy'")
    page.wait_for_selector("#end-rank:not([hidden])", timeout=20000)
    page.wait_for_timeout(300)


def whole_page(page, out: Path, suffix: str, name: str) -> None:
    page.screenshot(path=str(out / f"{name}-{suffix}.png"), full_page=True)


def review(browser, base: str, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for lang, locale in LOCALES.items():
        for size, viewport in VIEWPORTS.items():
            context = browser.new_context(
                viewport=viewport,
                locale=locale,
                device_scale_factor=1,
                extra_http_headers={"Accept-Language": locale},
                bypass_csp=True,  # the waits below evaluate scripts; the CSP is tested in tests/browser
            )
            page = context.new_page()
            page.add_init_script("window.PECHE_STEP_MS = 5;")
            shot = partial(whole_page, page, out, f"{lang}-{size}")

            page.goto(base + "/")
            shot("home-guest")
            page.goto(base + "/daily/")
            page.wait_for_selector("#rules-ok:focus")
            shot("daily-rules-card")
            page.click("#rules-ok")
            page.wait_for_selector("#name-input:focus")
            shot("daily-prompt")
            page.fill("#name-input", f"Look {lang} {size}")
            page.press("#name-input", "Enter")
            page.wait_for_selector("#hand button:focus")
            for _ in range(6):
                page.wait_for_function("document.querySelector('#turn').dataset.turn === 'player'")
                page.keyboard.press("Enter")
                page.wait_for_function("document.querySelector('#turn').dataset.turn !== 'busy'")
            shot("daily-table")
            page.goto(base + "/")
            shot("home-playing")
            page.goto(base + "/daily/")
            finish_in_browser(page)
            shot("daily-end")
            page.goto(base + "/")
            shot("home-done")
            page.goto(base + "/leaderboard/")
            shot("leaderboard")
            page.goto(base + "/rules/")
            shot("rules")
            context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument(
        "--review", type=Path, help="every page a newcomer meets, each language and size, into this folder"
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
        env.update(
            DJANGO_SETTINGS_MODULE="config.settings.local",
            DATABASE_URL=f"sqlite:///{tmp}/db.sqlite3",
            LOCAL_SECRETS_DIR=f"{tmp}/secrets",
            RATE_LIMIT_PLAYERS="off",
            DJANGO_DEBUG="false",
            # Its players are all new: listed on the board from their first day (the site
            # lists a player after 3 days: docs/fairplay.md "Newcomers").
            ESTABLISHED_DAYS="0",
        )
        subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
        server = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            for _ in range(100):
                try:
                    urllib.request.urlopen(base + "/healthz", timeout=1)
                    break
                except OSError:
                    time.sleep(0.1)
            finish_games(base, ["Camille", "Haruto", "Lena", "Noah", "Inès", "Yuki", "Jonas", "Zoé"])
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                if args.review:
                    review(browser, base, args.review)
                    browser.close()
                    return
                for name, viewport, locale in (
                    ("daily-desktop", {"width": 1280, "height": 800}, "fr-FR"),
                    ("daily-phone", {"width": 390, "height": 844}, "en-US"),
                ):
                    page = browser.new_context(
                        viewport=viewport,
                        locale=locale,
                        device_scale_factor=1,
                        extra_http_headers={"Accept-Language": locale},
                        bypass_csp=True,  # the waits evaluate scripts; the CSP is tested in tests/browser
                    ).new_page()
                    page.add_init_script(RETURNING)
                    page.goto(base + "/daily/")
                    page.fill("#name-input", f"Photo {name[-5:]}")
                    page.press("#name-input", "Enter")
                    for _ in range(7):
                        page.wait_for_function("document.querySelector('#turn').dataset.turn === 'player'")
                        page.keyboard.press("ArrowRight")
                        page.keyboard.press("Enter")
                        page.wait_for_function("document.querySelector('#turn').dataset.turn !== 'busy'")
                    page.wait_for_timeout(800)  # the last cards land
                    page.screenshot(path=str(args.out / f"{name}.png"))
                    if name == "daily-desktop":
                        page.goto(base + "/leaderboard/")
                        page.screenshot(path=str(args.out / "leaderboard.png"))
                    else:
                        finish_in_browser(page)
                        page.locator("#end").screenshot(path=str(args.out / "end-phone.png"))
                        page.goto(base + "/")
                        page.screenshot(path=str(args.out / "home-phone.png"))
                browser.close()
        finally:
            server.terminate()
            server.wait(10)
    print("\n".join(str(p) for p in sorted(args.out.glob("*.png"))))


if __name__ == "__main__":
    main()
