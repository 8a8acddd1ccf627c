# The README's two commands, each setting itself up first: `make run` (the app) and `make test` (the tests).
# The set-up is a virtual environment in .venv with Quire and its development tools installed (made again when
# pyproject.toml changes). ARGS passes options on: `make run ARGS="--web --port 8600"`, `make test ARGS="-n 0 -k chat"`.
PYTHON ?= $(shell command -v python || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin
READY := $(VENV)/.installed

.PHONY: run test setup

run: $(READY)
	$(BIN)/python main.py $(ARGS)

test: $(READY)
	$(BIN)/python -m pytest $(ARGS)

setup: $(READY)

$(READY): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(READY)
