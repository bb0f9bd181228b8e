"""Security headers by default: a strict Content-Security-Policy and a
Permissions-Policy on every response in every setting; HSTS and the https redirect on by
default in production (configurable), whose `check --deploy` is clean."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

# Random-looking, as check --deploy wants a real key to look (W009).
SECRETS = {"DJANGO_SECRET_KEY": "q8Vn2-LzR0xT7mWc4YbH1sKe9JdUaP3fGi6oNtE5yXvBrMl_Zw", "DAILY_SEED_SECRET": "s" * 50}


@pytest.mark.parametrize(
    "path", ["/", "/api/challenges/today", "/healthz", "/no-such-page/", "/static/frontend/site.css"]
)
def test_every_response_carries_the_policies(client, db, path):
    response = client.get(path)
    csp = response.headers["Content-Security-Policy"]
    directives = dict((d.split()[0], d.split()[1:]) for d in csp.split("; "))
    assert directives["default-src"] == ["'self'"]
    # No inline code and no eval may run, from anywhere but this site.
    assert directives["script-src"] == ["'self'"] and directives["style-src"] == ["'self'"]
    assert directives["object-src"] == ["'none'"] and directives["frame-ancestors"] == ["'none'"]
    assert "camera=()" in response.headers["Permissions-Policy"]


def test_the_pages_have_no_inline_script_style_or_handler(client, db):
    """What the policy refuses, none of our templates writes (the browser test proves the
    pages, this the templates the browser test may not reach)."""
    import re

    templates = [p for d in ("frontend", "challenges", "games", "leaderboard") for p in (ROOT / d).rglob("*.html")]
    assert len(templates) > 10
    for template in templates:
        text = template.read_text()
        inline_scripts = [
            m for m in re.findall(r"<script\b[^>]*>", text) if "src=" not in m and "application/json" not in m
        ]
        assert not inline_scripts, template
        assert not re.search(r"<style\b|\sstyle=|\son[a-z]+=", text), template


def _production(code: str, **env_extra) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DAILY_SEED"))}
    env.update(DJANGO_SETTINGS_MODULE="config.settings.production", **SECRETS, **env_extra)
    return subprocess.run([sys.executable, *code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_production_check_deploy_is_clean():
    done = _production(["manage.py", "check", "--deploy", "--fail-level", "WARNING"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


def test_production_sends_hsts_over_https_by_default_and_it_can_be_turned_off():
    probe = (
        "import django; django.setup(); from django.test import Client; "
        "r = Client().get('/healthz', secure=True); print(r.headers.get('Strict-Transport-Security')); "
        "print(Client().get('/api/nothing', HTTP_HOST='localhost').status_code)"
    )
    on = _production(["-c", probe], DJANGO_ALLOWED_HOSTS="localhost,testserver")
    assert on.returncode == 0, on.stderr
    hsts, plain = on.stdout.split()[-2:]
    assert hsts == "max-age=31536000" and plain == "301"  # a plain-http page goes to https
    off = _production(
        ["-c", probe], DJANGO_ALLOWED_HOSTS="localhost,testserver", DJANGO_HSTS_SECONDS="0", DJANGO_SSL_REDIRECT="false"
    )
    assert off.returncode == 0, off.stderr
    assert off.stdout.split()[-2:] == ["None", "404"]
