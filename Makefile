# The companion's entry points. `make reproduce` and `make test` are all a new user needs.
PYTHON      ?= python3
VENV        ?= .venv
TORCH_SPEC  ?= torch==2.13.0
PROFILE     ?= default
JOBS        ?=            # notebooks at once; empty: lib run's default (one per core under smoke, else 1)
PY          := $(VENV)/bin/python
export HF_HUB_OFFLINE ?= 1
export MPLBACKEND := Agg

.PHONY: setup reproduce figures report test test-models bench lab lint clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet $(TORCH_SPEC) -e ".[dev]"
	touch $@

setup: $(VENV)/.installed

reproduce: setup
	$(PY) -m lib run --profile $(PROFILE) $(if $(JOBS),--jobs $(JOBS))

figures: setup
	$(PY) -m lib figures --profile $(PROFILE)

# The static companion site (lib.report) of what `make reproduce` left: build/report/$(PROFILE)/index.html.
report: setup
	$(PY) -m lib report --profile $(PROFILE)

# The suite minus the tests that convert the real offline models (minutes on a cold machine); those run apart.
# TEST_WORKERS pytest-xdist processes (2: measured 1.26x faster than serial on 2 cores before loadgroup kept each
# notebook's two tests on one worker); TEST_WORKERS=0 runs it serially.
TEST_WORKERS ?= 2
test: setup
	$(PY) -m pytest -m "not models" $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadgroup)

test-models: setup
	$(PY) -m pytest -m models

bench: setup
	$(PY) benchmarks/run_all.py

# The lab extras are installed once (a stamp, like .installed). The server runs from the repository root, where
# jupytext.toml lives, so saving pairs .py ↔ .ipynb without rewriting the script header; as root (most
# containers) it needs --allow-root.
$(VENV)/.lab-installed: $(VENV)/.installed
	$(PY) -m pip install --quiet $(TORCH_SPEC) -e ".[lab]"
	touch $@

lab: $(VENV)/.lab-installed
	$(PY) -m jupyter lab --ServerApp.root_dir=. --LabApp.default_url=/lab/tree/notebooks $(if $(filter 0,$(shell id -u)),--allow-root)

lint: setup
	$(PY) -m ruff check lib tests benchmarks notebooks

clean:
	rm -rf build results figures
