# The README's two commands are `make run` and `make test`; everything else is here for convenience.
PYTHON ?= python3
export NLTK_DATA ?= $(CURDIR)/var/nltk_data
# The official files: data/recam if present, else the shared copy beside the checkout (../shared/data/recam).
export RECAM_DATA_DIR ?= $(or $(wildcard $(CURDIR)/data/recam),$(wildcard $(abspath $(CURDIR)/../shared/data/recam)),$(CURDIR)/data/recam)
export HF_HUB_OFFLINE = 1
export TRANSFORMERS_OFFLINE = 1
# Development defaults (DEBUG, the built-in SECRET_KEY, plain-HTTP cookies) for every make target;
# production is the default elsewhere (platform/config/settings.py).
export DJANGO_ENV ?= development
HOST ?= 127.0.0.1
PORT ?= 8000
QUEUES ?= scoring,cpu,gpu,celery,maintenance
# The database the second test pass uses; every Django test runs on SQLite and on this PostgreSQL.
TEST_POSTGRES_URL ?= postgres://postgres@127.0.0.1:5432/test
# Tests that touch the database (they run on both backends).
DB_TESTS ?= tests/platform tests/tasks tests/integration tests/api tests/client

.PHONY: setup run worker test test-sqlite test-postgres lint format bench baselines

setup:
	@bash scripts/setup.sh

run: setup
	@bash scripts/ensure_redis.sh
	@bash scripts/run.sh

worker: setup  # one more worker; on a GPU machine: make worker QUEUES=gpu
	@bash scripts/ensure_redis.sh
	$(PYTHON) -m celery -A tasks.app worker -l info -Q $(QUEUES)

test: setup lint
	@bash scripts/ensure_redis.sh
	$(MAKE) test-sqlite test-postgres

test-sqlite:
	env -u DATABASE_URL $(PYTHON) -m pytest -q

test-postgres:
	@pg_isready -q -d "$(TEST_POSTGRES_URL)" || { echo "PostgreSQL at $(TEST_POSTGRES_URL) does not answer"; exit 1; }
	DATABASE_URL=$(TEST_POSTGRES_URL) $(PYTHON) -m pytest -q -p no:cacheprovider $(DB_TESTS)

lint:
	$(PYTHON) -m ruff check .
	$(PYTHON) -m ruff format --check .

format:
	$(PYTHON) -m ruff format .
	$(PYTHON) -m ruff check --fix .

baselines: setup  # trains every baseline, writes var/baselines/report.md, enters them on the practice board
	@bash scripts/ensure_redis.sh
	@bash scripts/baselines.sh

bench: setup
	@bash scripts/ensure_redis.sh
	$(PYTHON) -m bench
