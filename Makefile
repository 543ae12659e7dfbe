# Two commands for a newcomer: `make run` and `make test`. Everything lands in .venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: install run test test-fast test-text lint format bench clean

# Parallel test workers: each has its own test database, Redis database and media folder
# (reviewapp/settings/test.py). The slow tests mostly wait on processes and browsers, so four
# workers keep two cores busy.
TEST_WORKERS ?= 4
# Compiled bytecode is kept (even where the environment turns it off): each worker, web server
# and Celery process the tests start would otherwise compile the whole app again.
test test-fast test-text: export PYTHONDONTWRITEBYTECODE =
PYTEST := $(BIN)/python -m pytest --dist loadgroup

$(STAMP): pyproject.toml constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

run: install
	$(BIN)/python -m reviewapp.launcher

test: install
	$(PYTEST) -n $(TEST_WORKERS) $(PYTEST_ARGS)

# The unit tests only: no browser, no process of their own, no CUAD corpus. They keep the CPU
# busy, so one worker per core is quickest.
FAST_WORKERS ?= 2
test-fast: install
	$(PYTEST) -n $(FAST_WORKERS) -m "not slow" $(PYTEST_ARGS)

# The text core's own tests, without Django: its pytest plugin off and the suite's conftest
# (users, matters, settings) not loaded.
test-text: install
	$(BIN)/python -m pytest -p no:django --confcutdir=tests/text -n $(FAST_WORKERS) tests/text $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy reviewapp
	$(BIN)/lint-imports --no-cache

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: install
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf var/test-media* var/test-clausewise-*.sqlite3* var/redis-test

# Chinese catalogues: collect marked strings from templates, Python and static JS, then compile
# the .mo files (committed, so a machine without GNU gettext still shows Chinese).
I18N_IGNORE := --ignore=.venv --ignore=var --ignore=tests --ignore=benchmarks \
	--ignore=node_modules --ignore=static/vendor
.PHONY: messages
messages: install
	$(BIN)/python manage.py makemessages -l zh_Hans -d django --no-obsolete --add-location=file $(I18N_IGNORE)
	$(BIN)/python manage.py makemessages -l zh_Hans -d djangojs --no-obsolete --add-location=file $(I18N_IGNORE)
	$(BIN)/python manage.py compilemessages -l zh_Hans $(I18N_IGNORE)
