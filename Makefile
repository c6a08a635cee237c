# Set-up in two commands on a fresh machine with only Python and make:
#   make demo   -- creates .venv, installs the project, runs the reader on samples/
#   make test   -- creates .venv, installs with test extras, runs the test suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: demo test bench install clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/python scripts/demo.py

test: $(STAMP)
	bash scripts/ensure_chromium.sh
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python bench/bench_reader.py

clean:
	rm -rf $(VENV) out build *.egg-info
