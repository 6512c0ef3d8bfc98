# Two commands do all the set-up on a fresh machine: `make run` and `make test`.
# uv (installed into .tools/ on first use) builds .venv from uv.lock with the machine's Python.
SHELL := /bin/bash
export UV_PYTHON_DOWNLOADS := never
UV := .tools/bin/uv
PY := .venv/bin/python
PYBABEL := .venv/bin/pybabel

.PHONY: run test lint lock browser-deps service-deps bench clean locales messages

.tools/bin/uv:
	python3 -m venv .tools
	.tools/bin/pip install --quiet --disable-pip-version-check uv

# Serving needs only the app's own dependencies; the test tools (pytest, Playwright, mypy,
# ruff...) come with `make test` / `make lint`. --inexact: serving leaves test tools
# already installed alone, so switching between the two reinstalls nothing.
.venv/.served: pyproject.toml uv.lock $(UV)
	$(UV) sync --frozen --inexact --python python3
	touch $@

.venv/.synced: pyproject.toml uv.lock $(UV)
	$(UV) sync --frozen --extra test --python python3
	touch $@ .venv/.served

# After changing pyproject.toml's dependencies: `make lock`, and commit uv.lock.
lock: $(UV)
	$(UV) lock --python python3

run: .venv/.served locales
	$(PY) -m app

# The catalogues (docs/translating.md): each language's .po compiled to the .mo the server
# reads (the .mo files are made here, never committed), and the pseudo-locale made from
# the templates (.pot), for the test that looks for words left untranslated.
locales: .venv/.served
	$(PYBABEL) compile -d app/locales -D messages --statistics
	$(PYBABEL) compile -d app/locales -D js --statistics
	$(PY) -m app.catalogues pseudo

# After changing words in the code, the templates or the scripts: the templates (.pot)
# extracted again, and every language's .po brought up to date with them (then translate
# what is new or fuzzy, and `make locales`).
BABEL_EXTRACT := $(PYBABEL) extract -F app/locales/babel.cfg -c TRANSLATORS: --sort-by-file \
	--project="Piquet table" --no-default-keywords
messages: .venv/.served
	$(BABEL_EXTRACT) -k _ -k N_ -k gettext -k ngettext:1,2 -o app/locales/messages.pot .
	$(BABEL_EXTRACT) -k W:1c,2 -k WN:1c,2,3 -k t -k nt:1,2 -o app/locales/js.pot .
	$(PYBABEL) update -i app/locales/messages.pot -d app/locales -D messages
	$(PYBABEL) update -i app/locales/js.pot -d app/locales -D js

# Debian's chromium for the browser tests (Playwright's own browser download does not work here).
browser-deps:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian's chromium for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# Debian's redis-server and nginx for the tests of several processes behind a proxy
# (tests/cluster.py starts them on free ports; nothing is left running).
service-deps:
	@command -v redis-server >/dev/null 2>&1 && { command -v nginx || test -x /usr/sbin/nginx; } >/dev/null 2>&1 || { \
	  echo "installing Debian's redis-server and nginx for the store and proxy tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server nginx-light >/dev/null; }

lint: .venv/.synced
	.venv/bin/ruff check engine app tests
	.venv/bin/mypy --strict engine app

test: .venv/.synced browser-deps service-deps lint locales
	$(PY) -m pytest

bench: .venv/.synced
	for b in tests/bench/*.py; do echo "== $$b"; $(PY) $$b; done

clean:
	rm -rf .venv .tools .pytest_cache .mypy_cache .ruff_cache
