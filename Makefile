# The two commands of the README: `make run` serves the site, `make test` runs every test.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: install run test browser-deps stack-deps messages bench

$(BIN)/python:
	$(PY) -m venv $(VENV)

install: $(BIN)/python
	$(BIN)/pip install -q -r requirements.txt

messages: install
	cd frontend && ../$(BIN)/python ../manage.py compilemessages -v0

run: install messages
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py ensure_challenges
	$(BIN)/python manage.py runserver 127.0.0.1:8000

# Debian's Chromium for the browser tests (Playwright cannot download browsers here),
# libfaketime for the test that runs a server through midnight, and axe-core (pinned in
# package-lock.json) for the accessibility test.
browser-deps:
	@command -v chromium >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq chromium fonts-noto-cjk)
	@command -v faketime >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq faketime)

# Debian's nginx: scripts/stack puts it in front of gunicorn, and the stack and proxy tests
# (tests/test_ops_proxy.py) run through it, each with a config and pid of its own. Where
# systemd runs, Debian also starts its packaged nginx on port 80 (`systemctl disable --now
# nginx` if unwanted); nothing here uses that one.
stack-deps:
	@command -v nginx >/dev/null 2>&1 || test -x /usr/sbin/nginx || (apt-get update -qq && apt-get install -y -qq nginx)

node_modules/axe-core/axe.min.js: package.json package-lock.json
	npm ci --no-audit --no-fund --silent

test: install messages browser-deps stack-deps node_modules/axe-core/axe.min.js
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

bench: install
	$(BIN)/python -m bench.all
