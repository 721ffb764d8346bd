# Two commands on a fresh machine with Python 3.10+ and git:
#   make lab    set everything up, then open the course in JupyterLab
#   make test   set everything up, then run the whole test suite (what CI runs)
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
STAMP   = $(VENV)/.installed

.PHONY: setup lab test test-fast bench-sim clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	$(PY) -m pip check
	touch $(STAMP)

setup: $(STAMP)

lab: $(STAMP)
	$(VENV)/bin/jupyter lab notebooks/

test: $(STAMP)
	$(PY) -m pytest -q tests notebooks --nbval-lax --nbval-current-env -p no:randomly

test-fast: $(STAMP)
	$(PY) -m pytest -q tests

bench-sim: $(STAMP)
	$(PY) benchmarks/bench_sim.py

clean:
	rm -rf $(VENV)
