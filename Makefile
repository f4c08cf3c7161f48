# Bluff League: the two commands a newcomer needs are `make run` and `make test`.
# Both create the virtualenv in .venv on first use; only Python 3.11+ and make are required.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)

.PHONY: run ladder test setup bench clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11) and "Python 3.11+ is required")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@rm -f $(VENV)/.installed-*
	@touch $@

setup: $(STAMP)

## Set up, migrate, and start the web server, one Celery worker and beat (Ctrl-C stops all).
run: $(STAMP)
	$(BIN)/python scripts/run.py

## A local ladder to try a bot on (docs/ladder.md): the reference bots join dice cup's ladder,
## then everything `make run` starts; put your bot on with POST /api/ladders/dice_cup/entries/
## ({"bot": id}), or from its page. The reference pair plays its day's cap, then waits for you.
ladder: $(STAMP)
	$(BIN)/python manage.py migrate --verbosity 0
	$(BIN)/python manage.py ladder join dice_cup --reference heuristic --reference random
	$(BIN)/python scripts/run.py

## Set up, lint (ruff, and import-linter's layers: [tool.ruff] and [tool.importlinter] in
## pyproject.toml), and run the whole test suite. Tests keep their files (broker queue, results)
## apart from the platform's, in a folder emptied first, so no test message reaches `make run`'s
## worker. The 30 slowest tests are listed at the end (where the suite's time goes).
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache
	rm -rf var/test
	BLUFF_VAR_DIR=var/test $(BIN)/python -m pytest -n auto --durations=30 $(PYTEST_ARGS)

## Engine speed figures.
bench: $(STAMP)
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) var .pytest_cache .hypothesis
