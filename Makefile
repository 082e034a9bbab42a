# Set-up and everyday commands. `make run` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test test-fast abuse faults lint bench translations clean
.PHONY: bench-sweep bench-load licences diplomacy-long

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)  ## web app, worker, scheduler and mail catcher on the embedded defaults
	$(BIN)/pbem dev

test: $(STAMP)  ## lint and types, then the whole test suite
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/pytest -n auto

test-fast: $(STAMP)  ## the suite without the tests marked slow
	$(BIN)/pytest -n auto -m "not slow"

abuse: $(STAMP)  ## the abuse suite's long series: 20 times the examples, new ones each run
	PBEM_ABUSE_FACTOR=20 $(BIN)/pytest -n auto tests/security

RUNS ?= 3
faults: $(STAMP)  ## the fault suite's long series: RUNS runs on each topology, fresh seeds
	PBEM_FAULT_LONG=1 PBEM_FAULT_RUNS=$(RUNS) $(BIN)/pytest -n 2 -p no:cacheprovider tests/faults

diplomacy-long: $(STAMP)  ## Diplomacy against the diplomacy package: 100 random games of 10 years, by the rules and through the server (API and mail)
	PBEM_DIPLOMACY_GAMES=100 $(BIN)/pytest -n 2 -p no:cacheprovider tests/unit/test_diplomacy_differential.py
	PBEM_DIPLOMACY_SERVER_GAMES=100 $(BIN)/pytest -n 2 -p no:cacheprovider tests/integration/test_diplomacy_server_differential.py

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

licences: $(STAMP)  ## every runtime dependency's licence, checked against AGPL-3.0-or-later
	$(BIN)/python tools/licences.py

translations: $(STAMP)  ## add new strings to every catalog, then list what is untranslated
	$(BIN)/python -m pbem.catalogs update
	$(BIN)/python -m pbem.catalogs check

bench: $(STAMP)
	$(BIN)/python bench/engine.py

bench-sweep: $(STAMP)  ## the sweep against 10k to 1M games (PostgreSQL: PBEM_BENCH_DATABASE_URL)
	$(BIN)/python bench/sweep.py

bench-load: $(STAMP)  ## gunicorn, workers, scheduler, Redis and SMTP under 1,000 games
	$(BIN)/python bench/load.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .ruff_cache .mypy_cache
