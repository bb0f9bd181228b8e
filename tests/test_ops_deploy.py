"""Deployment files: docker-compose.yml, Dockerfile, .env.example, scripts/stack,
production settings and structured logs. There is no Docker engine here: the compose file is
parsed and checked for what `docker compose config` and a working stack need."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys

import pytest
import yaml

from config.logfmt import StructuredFormatter, message_fields
from tests.conftest import ROOT

COMPOSE = ROOT / "docker-compose.yml"


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def test_compose_has_the_ten_services_with_health_checks(compose):
    services = compose["services"]
    assert set(services) == {
        "db",
        "redis",
        "proxy",
        "web",
        "sockets",
        "worker",
        "analysis",
        "beat",
        "prometheus",
        "grafana",
    }
    for name, service in services.items():
        check = service.get("healthcheck")
        assert check and check["test"], f"{name} has no health check"
        assert check["test"][0] in ("CMD", "CMD-SHELL"), name
        assert service.get("restart") == "unless-stopped", name
        assert "image" in service or "build" in service, name


def test_compose_start_order_waits_for_health(compose):
    services = compose["services"]
    for name in ("web", "worker", "beat"):
        deps = services[name]["depends_on"]
        assert deps["db"]["condition"] == "service_healthy"
        assert deps["redis"]["condition"] == "service_healthy"
    for name in ("worker", "beat", "sockets"):  # the web container migrates first
        assert services[name]["depends_on"]["web"]["condition"] == "service_healthy"
    declared = set(compose["volumes"])
    for service in services.values():
        for volume in service.get("volumes", []):
            source = volume.split(":", 1)[0]
            if source.startswith((".", "/")):  # a file of the repository (the proxy's template)
                assert (ROOT / source).exists(), source
                continue
            assert source in declared, f"undeclared volume {source}"
    assert {"pgdata", "redisdata"} <= declared


def test_compose_processes(compose):
    services = compose["services"]
    web, worker, beat = services["web"], services["worker"], services["beat"]
    web_command = " ".join(web["command"])
    assert "migrate --noinput" in web_command and "ensure_challenges" in web_command
    assert "exec gunicorn -c config/gunicorn.py config.wsgi" in web_command
    assert web_command.index("migrate") < web_command.index("ensure_challenges") < web_command.index("gunicorn")
    assert worker["command"][:4] == ["celery", "-A", "config", "worker"]
    # The analyses' workers take their queue alone; the verification workers never see it.
    analysis = services["analysis"]["command"]
    assert analysis[:4] == ["celery", "-A", "config", "worker"] and analysis[analysis.index("-Q") + 1] == "analysis"
    assert "-Q" not in worker["command"]
    assert beat["command"][:4] == ["celery", "-A", "config", "beat"]
    for service in (web, worker, beat):
        env = service["environment"]
        assert env["DJANGO_SETTINGS_MODULE"] == "config.settings.production"
        assert env["DATABASE_URL"].startswith("postgres://") and "@db:5432/" in env["DATABASE_URL"]
        assert env["REDIS_URL"].startswith("redis://redis:6379/")
    assert "readyz" in " ".join(web["healthcheck"]["test"])


def test_compose_redis_never_evicts_and_persists(compose):
    command = compose["services"]["redis"]["command"]
    assert command[0] == "redis-server"
    pairs = dict(zip(command[1::2], command[2::2]))
    assert pairs["--maxmemory-policy"] == "noeviction"
    assert pairs["--appendonly"] == "yes"


def test_compose_variables_are_documented_in_env_example(compose):
    documented = set(re.findall(r"^([A-Z_][A-Z0-9_]*)=", (ROOT / ".env.example").read_text(), re.M))
    used = set(re.findall(r"\$\{([A-Z_][A-Z0-9_]*)", COMPOSE.read_text()))
    assert used - documented == set()
    assert {"DJANGO_SECRET_KEY", "DAILY_SEED_SECRET"} <= documented


def test_dockerfile_builds_the_app_image():
    text = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim\b", text, re.M)
    assert "pip install -r requirements/runtime.txt" in text
    assert "collectstatic" in text and "config.settings.production" in text
    assert re.search(r"^USER (?!root)", text, re.M), "the image runs as root"
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert ".venv" in ignored and ".env" in ignored


def test_gunicorn_workers_freeze_the_loaded_app_out_of_the_garbage_collector():
    """Every start (image, compose, scripts/stack) uses config/gunicorn.py, whose worker hook
    freezes what loading the app created: a full collection then does not scan Django."""
    import gc

    from config import gunicorn as gunicorn_conf

    for path in ("Dockerfile", "docker-compose.yml", "scripts/stack"):
        assert "config/gunicorn.py" in (ROOT / path).read_text(), path
    junk = [[i] for i in range(10_000)]  # stands for the app's long-lived objects
    gc.unfreeze()
    try:
        gunicorn_conf.post_worker_init(None)
        assert gc.get_freeze_count() >= len(junk)
    finally:
        gc.unfreeze()


def test_gunicorn_heartbeat_in_memory_and_the_access_log_can_be_dropped(monkeypatch):
    import importlib

    from config import gunicorn as gunicorn_conf

    monkeypatch.delenv("WEB_ACCESS_LOG", raising=False)
    importlib.reload(gunicorn_conf)
    assert gunicorn_conf.accesslog == "-"
    if os.path.isdir("/dev/shm"):
        assert gunicorn_conf.worker_tmp_dir == "/dev/shm"
    monkeypatch.setenv("WEB_ACCESS_LOG", "off")
    importlib.reload(gunicorn_conf)
    assert gunicorn_conf.accesslog is None
    monkeypatch.delenv("WEB_ACCESS_LOG")
    importlib.reload(gunicorn_conf)


def locked(name: str) -> dict[str, str]:
    """requirements/<name>.txt (pip-compile's output) as {normalized name: version}."""
    lines = (ROOT / "requirements" / f"{name}.txt").read_text().splitlines()
    pins = [line.split()[0].rstrip("\\").split("==") for line in lines if re.match(r"^[A-Za-z0-9]", line)]
    return {re.sub(r"[-_.]+", "-", pkg).lower(): version for pkg, version in pins}


def test_requirements_pin_the_swagger_assets():
    assert "drf-spectacular-sidecar" in locked("runtime")


def test_the_image_installs_no_test_lint_or_benchmark_package():
    runtime, test, bench = locked("runtime"), locked("test"), locked("bench")
    only_tools = {
        "pytest",
        "pytest-django",
        "hypothesis",
        "schemathesis",
        "playwright",
        "ruff",
        "mypy",
        "django-stubs",
        "py-spy",
    }
    assert only_tools <= (test.keys() | bench.keys())
    assert not only_tools & runtime.keys()
    # The test and bench locks repeat the runtime pins exactly (one file to install each).
    for other in (test, bench):
        assert {pkg: other.get(pkg) for pkg in runtime} == runtime


def test_stack_script_is_valid_bash_and_explains_itself():
    script = ROOT / "scripts" / "stack"
    assert os.access(script, os.X_OK)
    subprocess.run(["bash", "-n", str(script)], check=True)
    usage = subprocess.run([str(script)], capture_output=True, text=True, timeout=10)
    assert usage.returncode == 2 and "start" in usage.stdout and "DATABASE_URL" in usage.stdout
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    refused = subprocess.run([str(script), "start"], capture_output=True, text=True, timeout=10, env=env)
    assert refused.returncode != 0 and "DATABASE_URL" in refused.stderr


def _production(env_extra: dict, code: str) -> subprocess.CompletedProcess:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DJANGO_SECRET_KEY", "DAILY_SEED_SECRET", "DJANGO_SETTINGS_MODULE")
    }
    env.update(DJANGO_SETTINGS_MODULE="config.settings.production", **env_extra)
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); " + code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_production_refuses_to_start_without_secrets():
    missing = _production({}, "")
    assert missing.returncode != 0 and "DJANGO_SECRET_KEY must be set" in missing.stderr
    same = _production({"DJANGO_SECRET_KEY": "k" * 50, "DAILY_SEED_SECRET": "k" * 50}, "")
    assert same.returncode != 0 and "must differ" in same.stderr


def test_production_settings_are_safe():
    code = (
        "from django.conf import settings as s; import json; print(json.dumps({"
        "'debug': s.DEBUG, 'session': s.SESSION_COOKIE_SECURE, 'csrf': s.CSRF_COOKIE_SECURE, "
        "'static': s.STORAGES['staticfiles']['BACKEND'], 'finders': s.WHITENOISE_USE_FINDERS, "
        "'formatter': s.LOGGING['formatters']['line'], 'proxy': s.SECURE_PROXY_SSL_HEADER, "
        "'swagger': s.SPECTACULAR_SETTINGS['SWAGGER_UI_DIST']}))"
    )
    done = _production({"DJANGO_SECRET_KEY": "k" * 50, "DAILY_SEED_SECRET": "s" * 50, "LOG_FORMAT": "json"}, code)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["debug"] is False and found["session"] is True and found["csrf"] is True
    assert found["static"] == "whitenoise.storage.CompressedManifestStaticFilesStorage"
    assert found["finders"] is False
    assert found["formatter"]["()"] == "config.logfmt.StructuredFormatter" and found["formatter"]["json"] is True
    assert found["proxy"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert found["swagger"] == "SIDECAR"


def _record(message: str, *args) -> logging.LogRecord:
    return logging.LogRecord("challenges.services", logging.INFO, __file__, 1, message, args, None)


def test_log_lines_are_logfmt_with_the_named_subjects_as_fields():
    line = StructuredFormatter().format(_record("attempt finished attempt=%s challenge=%s asks=%s", 7, 3, 21))
    assert "\n" not in line
    pairs = dict(re.findall(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)', line))
    assert pairs["level"] == "INFO" and pairs["logger"] == "challenges.services"
    assert pairs["attempt"] == "7" and pairs["challenge"] == "3" and pairs["asks"] == "21"
    assert json.loads(pairs["msg"]) == "attempt finished attempt=7 challenge=3 asks=21"
    assert re.match(r"ts=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00 ", line)


def test_log_lines_as_json_keep_exceptions_on_one_line():
    try:
        raise ValueError("boom\nsecond line")
    except ValueError:
        record = _record("could not enqueue verification attempt=%s; the sweeper will retry", 9)
        record.exc_info = sys.exc_info()
    line = StructuredFormatter(json=True).format(record)
    assert "\n" not in line
    data = json.loads(line)
    assert data["attempt"] == "9" and "ValueError: boom" in data["exc"]
    assert message_fields("x=1 x=2 (url=http://a/b?c=d), done") == {"x": "1", "url": "http://a/b?c=d"}


def test_make_run_serves_on_the_port_asked():
    """`make run` serves on 8000 unless PORT says otherwise (8000 may be taken)."""
    import shutil
    import subprocess
    from pathlib import Path

    if not shutil.which("make"):
        pytest.skip("no make")
    root = Path(__file__).resolve().parents[1]

    def served(*args: str) -> str:
        plan = subprocess.run(["make", "-n", "run", *args], cwd=root, capture_output=True, text=True, check=True).stdout
        return next(line for line in plan.splitlines() if "uvicorn" in line)

    assert "--port 8000 " in served()
    assert "--port 8123 " in served("PORT=8123")
