# Two commands on a fresh machine with Python 3.10+ and git:
#   make lab    set everything up, then open the course in JupyterLab
#   make test   set everything up, then run the whole test suite (what CI runs): our tests, the notebooks,
#               and numba-cuda's own simulator tests against our simulator patch (make test-upstream)
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
STAMP   = $(VENV)/.installed
CLASS   = $(VENV)/.installed-class
HUB_DIR = deploy/jupyterhub

.PHONY: setup lab notebooks test test-gpu-timing test-t4 test-fast test-hopper test-upstream test-hazards bench-sim targets mutants student-read clean

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

# JupyterLab refuses to start as root ("Running as root is not recommended. Use --allow-root to bypass."), the usual
# user in a container or a cloud VM: pass --allow-root only then. LAB_ARGS adds options, e.g. make lab LAB_ARGS=--port=9999
LAB_ROOT := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)
LAB_ARGS ?=

lab: $(STAMP)
	$(VENV)/bin/jupyter lab $(LAB_ROOT) $(LAB_ARGS) notebooks/

# regenerate notebooks/NN_*.ipynb from course/chNN_<slug>/notebook.py (every chapter of course/chapters.py, or
# make notebooks CHAPTERS="08 09"); tests/test_notebooks.py fails while a committed notebook differs from its generator
CHAPTERS ?=
notebooks: $(STAMP)
	$(PY) -m course.nbgen $(CHAPTERS)

# TEST_JOBS pytest-xdist workers, one more than the cores: a worker often waits on a process of its own (a Jupyter
# kernel, Chromium, a compile) and the extra one fills that time (on 2 cores the suite used 1.5 cores with 2 workers).
# Each notebook stays whole on one worker (tests/conftest.py), and each kernel is compiled offline once per run for all
# workers and notebook kernels ($$SGEMM_OFFLINE_CACHE, tests/conftest.py). Notebooks 06-11 run in a real browser
# (tests/test_browser.py: Chromium, one JupyterLab); where that test runs (the simulator, Chromium present) its Run All
# replaces nbval's run of the same notebook (root conftest.py). numba-cuda's simulator suite runs beside it (one
# process); its log follows pytest's, and either failing fails the target.
TEST_JOBS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
test: $(STAMP) $(CLASS)
	@up=$$(mktemp); $(PY) tests/upstream/run_numba_cuda_sim.py > $$up 2>&1 & pid=$$!; \
	$(PY) -m pytest -q -n $(TEST_JOBS) tests notebooks --nbval-lax --nbval-current-env -p no:randomly --durations=25; \
	rc=$$?; wait $$pid; urc=$$?; echo "--- numba-cuda's simulator suite (tests/upstream) ---"; cat $$up; rm -f $$up; \
	test $$rc -eq 0 -a $$urc -eq 0

# on a GPU: the tests that time kernels (live tables against the records, launch cost), alone on the GPU and in one
# process; in a parallel `make test` they skip, since other workers share the GPU
test-gpu-timing: $(STAMP)
	SGEMM_DEVICE=gpu $(PY) -m pytest -q -p no:xdist -p no:randomly tests/test_live_tables.py

# numba-cuda's numba.cuda.tests.cudapy under our simulator; differences on purpose: tests/upstream/known_differences.txt
test-upstream: $(STAMP)
	$(PY) tests/upstream/run_numba_cuda_sim.py

# every student-style bug of issue 25's classes (tests/hazard_cases, ~150 pairs x 3 schedules, about 2 minutes);
# `make test` runs a sample of three pairs per class
test-hazards: $(STAMP)
	HAZARDS_ALL=1 $(PY) -m pytest -q -p no:randomly tests/test_hazard_classes.py

# notebooks 09 and 10 on a simulator that behaves as a CC 7.5 GPU (a T4): their sm_80 kernels go to a simulator
# subprocess (kernels_numba/tools/subsim.py); `make test` runs notebook 10 so through tests/test_t4_notebooks.py
test-t4: $(STAMP)
	SGEMM_DEVICE=sim SGEMM_SIM_CC=7.5 $(PY) -m pytest -q -p no:randomly --nbval-lax --nbval-current-env \
		notebooks/09_cp_async_triple_buffering.ipynb notebooks/10_tensor_core_mma.ipynb

# level 7 (Hopper) on the simulator with larger shapes and bug twins than make test runs (minutes on 2 cores)
test-hopper: $(STAMP)
	SGEMM_FULL_SIM=1 $(PY) -m pytest -q -p no:randomly tests/test_hopper_kernels.py tests/test_hopper_hazards.py

test-fast: $(STAMP)
	$(PY) -m pytest -q -n auto tests

# every mutant of every exercise's solution (tests/mutation.py; `make test` runs a fixed sample of them): generated,
# killed, equivalent (with tests/mutants_equivalent.json rewritten) and missed per exercise; fails below 95 % killed
mutants: $(STAMP)
	SGEMM_DEVICE=sim $(PY) tests/mutation.py --write-equivalents

# a student's read of all exercises, hand-written wrong and right answers run in real Jupyter kernels (a table)
student-read: $(STAMP)
	SGEMM_DEVICE=sim $(PY) tests/student_read.py

bench-sim: $(STAMP)
	$(PY) benchmarks/bench_sim.py

# kernel x target matrix (sm_75 ... sm_120) without a GPU: compiles every registered kernel for every target (measured
# 21 CPU minutes, one process), rewrites kernels_numba/infra/targets.json and its two README tables. Run it after changing a
# kernel; make test recomputes the sm_80/sm_90 rows and a few others and fails while the file is stale.
targets: $(STAMP)
	$(PY) -m kernels_numba.tools.table --write-targets

clean:
	rm -rf $(VENV)
