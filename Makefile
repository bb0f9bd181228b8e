# The two commands of the README: `make run` serves the site, `make test` runs every test.
# Each target installs the lock it needs (requirements/*.txt, pinned with hashes):
# run -> runtime.txt; test, test-quick, lint -> test.txt (runtime + test); bench -> bench.txt.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
REQ := requirements
# The tests that start no browser, server, stack or worker of their own (README.md).
QUICK := not browser and not stack and not fault and not worker
# pytest-xdist's worker processes for `make test` and `make test-quick` (TEST_PROCS=0: one
# process). Each worker has its own test database and its own redis-server (./conftest.py);
# much of a browser or stack test is spent waiting on another process, so the two cores take
# two workers without either starving: the whole suite on a quiet machine, 2026-12-03, took
# 420 s with 489 s of machine CPU out of 844 (docs/reports/tests-2026-12-03.md). A third
# worker is not used: when the cores were full (before the headless shell), three gained 8 %
# and pushed Redis calls past the hot path's 100 ms (503s). worksteal: a worker that runs
# out takes tests queued for the other; ./conftest.py starts each worker on its share of the
# slowest tests, so none is left to run alone at the end.
TEST_PROCS ?= 2
# -rfE: a failed run ends with the short summary of its failures and errors (which test, which
# phase — setup, call or teardown — and why), so a CI log names what broke without a rerun.
PYTEST := $(BIN)/python -m pytest -q -n $(TEST_PROCS) --dist worksteal --durations=20 -rfE
# 1: lint also checks the formatting (`ruff format --check`).
FORMAT_CHECK ?= 1

.PHONY: install install-test install-bench run lint test test-quick browser-deps stack-deps messages bench lock

$(BIN)/python:
	$(PY) -m venv $(VENV)

install: $(BIN)/python
	$(BIN)/pip install -q -r $(REQ)/runtime.txt

install-test: $(BIN)/python
	$(BIN)/pip install -q -r $(REQ)/test.txt

install-bench: $(BIN)/python
	$(BIN)/pip install -q -r $(REQ)/bench.txt

# After editing requirements/*.in: the locks again, from the current pins where they still
# fit (pip-compile keeps them; `make lock LOCK_ARGS=--upgrade` moves them all).
# pip-tools lives in a venv of its own (.venv-lock), out of the site's.
lock:
	test -x .venv-lock/bin/pip-compile || ($(PY) -m venv .venv-lock && .venv-lock/bin/pip install -q pip-tools==7.6.2)
	for name in runtime test bench; do \
	  CUSTOM_COMPILE_COMMAND="make lock" .venv-lock/bin/pip-compile -q --generate-hashes --strip-extras --allow-unsafe \
	    --no-emit-index-url --no-emit-find-links $(LOCK_ARGS) -o $(REQ)/$$name.txt $(REQ)/$$name.in || exit 1; \
	done

messages: install
	cd frontend && ../$(BIN)/python ../manage.py compilemessages -v0

# uvicorn serves the pages, the API and the daily game's WebSocket from one process
# (config/asgi.py; static files from the app in DEBUG), on PORT (`make run PORT=8080`).
PORT ?= 8000
run: install messages
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py ensure_challenges
	$(BIN)/python -m uvicorn config.asgi:application --host 127.0.0.1 --port $(PORT) --ws-max-size 65536 --lifespan off

# Debian's Chromium for the browser tests (Playwright cannot download browsers here), its
# CJK and emoji fonts, libfaketime for the test that runs a server through midnight, and axe-core (pinned in
# package-lock.json) for the accessibility test.
browser-deps:
	@command -v chromium >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq chromium fonts-noto-cjk)
	@# The tests drive the headless shell of the same build: under half the CPU (tests/browser/conftest.py).
	@command -v chromium-headless-shell >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq chromium-headless-shell)
	@command -v faketime >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq faketime)
	@# The daily share's squares (🟩🟦⬜) are emoji: without a colour font, screenshots show boxes.
	@fc-list 2>/dev/null | grep -q "Noto Color Emoji" || (apt-get update -qq && apt-get install -y -qq fonts-noto-color-emoji)

# Debian's nginx and Prometheus: scripts/stack puts nginx in front of gunicorn, and the stack and proxy tests
# (tests/test_ops_proxy.py) run through it, each with a config and pid of its own. Where
# systemd runs, Debian also starts its packaged nginx on port 80 (`systemctl disable --now
# nginx` if unwanted); nothing here uses that one.
stack-deps:
	@command -v nginx >/dev/null 2>&1 || test -x /usr/sbin/nginx || (apt-get update -qq && apt-get install -y -qq nginx)
	@# Debian's Prometheus (2.42, with promtool): tests/test_monitoring.py scrapes the stack with it
	@# and checks the alert rules (config/monitoring/). Debian starts no server of its own here
	@# without systemd (`systemctl disable --now prometheus` where it does).
	@command -v promtool >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq prometheus)

node_modules/axe-core/axe.min.js: package.json package-lock.json
	npm ci --no-audit --no-fund --silent

# ruff (lint, and format with FORMAT_CHECK=1) and mypy, as configured in pyproject.toml.
lint: install-test
	$(BIN)/ruff check .
	$(if $(filter 1,$(FORMAT_CHECK)),$(BIN)/ruff format --check .)
	$(BIN)/mypy

# lint first: a finding fails the run before any test starts.
test: lint messages browser-deps stack-deps node_modules/axe-core/axe.min.js
	$(PYTEST) $(PYTEST_ARGS)

test-quick: lint messages
	$(PYTEST) -m "$(QUICK)" $(PYTEST_ARGS)

# The whole benchmark set, one report in docs/reports/ (bench/report.py; ~20 min, quiet machine).
# BENCH_ARGS="--against COMMIT" runs the full stack side by side with that commit.
bench: install-bench stack-deps
	@command -v valgrind >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq valgrind)
	$(BIN)/python -m bench.report $(BENCH_ARGS)
