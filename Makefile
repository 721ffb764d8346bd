# Two commands on a fresh machine with Python 3.10+ and git:
#   make lab    set everything up, then open the course in JupyterLab
#   make test   set everything up, then run the whole test suite (what CI runs)
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
STAMP   = $(VENV)/.installed
CLASS   = $(VENV)/.installed-class
HUB_DIR = deploy/jupyterhub

.PHONY: setup lab test test-fast bench-sim clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	$(PY) -m pip check
	touch $(STAMP)

# test-only extras: JupyterHub + Playwright (pip extra "class") and configurable-http-proxy (npm, local)
$(CLASS): $(STAMP) pyproject.toml $(HUB_DIR)/package.json
	$(PY) -m pip install -q -e ".[class]"
	if command -v npm >/dev/null; then cd $(HUB_DIR) && npm ci --no-audit --no-fund --loglevel=error; \
	else echo "npm 이 없어 JupyterHub 테스트는 건너뜁니다 / no npm: the JupyterHub test will skip"; fi
	touch $(CLASS)

setup: $(STAMP)

lab: $(STAMP)
	$(VENV)/bin/jupyter lab notebooks/

test: $(STAMP) $(CLASS)
	$(PY) -m pytest -q tests notebooks --nbval-lax --nbval-current-env -p no:randomly

test-fast: $(STAMP)
	$(PY) -m pytest -q tests

bench-sim: $(STAMP)
	$(PY) benchmarks/bench_sim.py

clean:
	rm -rf $(VENV)
