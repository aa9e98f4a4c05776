# unoplay: the two README commands, plus proto generation, lint and bench.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(VENV)/bin/pip
STAMP  := $(VENV)/.installed

.PHONY: install test bench play clean proto

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -e '.[dev,bench]'
	touch $(STAMP)

install: $(STAMP)  ## create .venv and install the project with its test and bench extras

test: $(STAMP)  ## run the whole test suite
	$(PY) -m pytest

bench: $(STAMP)  ## engine benchmark (rounds/s, actions/s, ratio to RLCard)
	$(VENV)/bin/uno bench

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis

proto: $(STAMP)  ## regenerate the committed Python code from proto/ (a test fails when it is stale)
	cd proto && ../$(PY) -m grpc_tools.protoc -I. --python_out=. --pyi_out=. --grpc_python_out=. unoplay/v1/*.proto
