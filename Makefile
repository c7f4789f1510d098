# The companion's entry points. `make reproduce` and `make test` are all a new user needs.
PYTHON      ?= python3
VENV        ?= .venv
TORCH_SPEC  ?= torch==2.13.0
PROFILE     ?= default
JOBS        ?=            # notebooks at once; empty: lib run's default (one per core under smoke and default, else 1)
PY          := $(VENV)/bin/python
export HF_HUB_OFFLINE ?= 1
export MPLBACKEND := Agg

.PHONY: setup reproduce figures report publish test test-models bench lab lint params clean

# $(VENV)/.torch-spec records the TORCH_SPEC the venv was built with. A TORCH_SPEC given to make (command line or
# environment) that differs from it rebuilds the venv, so `make setup TORCH_SPEC=…` swaps torch in an existing one;
# not given, the recorded spec stands: a plain `make setup` stays a no-op and a rebuild keeps the torch you chose.
TORCH_STAMP := $(VENV)/.torch-spec
BUILT_TORCH := $(strip $(shell cat $(TORCH_STAMP) 2>/dev/null))
ifeq ($(origin TORCH_SPEC),file)
TORCH_SPEC := $(or $(BUILT_TORCH),$(TORCH_SPEC))
else ifneq ($(strip $(TORCH_SPEC)),$(BUILT_TORCH))
TORCH_CHANGED := torch-spec-changed
endif
.PHONY: torch-spec-changed

# --no-cache-dir: pip keeps no second copy of every wheel it downloads (a few hundred MB a fresh machine never reads
# again; one CI run stopped at "No space left on device" during this install).
$(VENV)/.installed: pyproject.toml $(TORCH_CHANGED)
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --no-cache-dir --upgrade pip
	$(PY) -m pip install --quiet --no-cache-dir $(TORCH_SPEC) -e ".[dev]"
	echo '$(strip $(TORCH_SPEC))' > $(TORCH_STAMP)
	touch $@

setup: $(VENV)/.installed

reproduce: setup
	$(PY) -m lib run --profile $(PROFILE) $(if $(JOBS),--jobs $(JOBS))

# NOTEBOOKS="A01_audit_your_model E08_leakage" redraws those alone (NOTEBOOKS is declared below, with publish).
figures: setup
	$(PY) -m lib figures --profile $(PROFILE) $(NOTEBOOKS)

# The static companion site (lib.report) of what `make reproduce` left: build/report/$(PROFILE)/index.html.
report: setup
	$(PY) -m lib report --profile $(PROFILE)

# A finished reference run of $(PROFILE) (never smoke) copied into published/: notebooks, claims, manifests,
# CLAIMS.md and the report; it refuses a stale notebook and rewrites the README's results block (lib.publish).
# NOTEBOOKS="E01_regimes K03_task_order" publishes those alone (a run that finished only some); the README's
# block then names the ones left out. ADD=1 keeps the notebooks published/ holds (each must still be current)
# and publishes NOTEBOOKS beside them: a reference run made in pieces, on checkouts that lack each other's results;
# DROP_STALE=1 with ADD=1 leaves the kept ones that a code change staled out (a later piece puts them back).
NOTEBOOKS ?=
ADD ?=
publish: setup
	$(PY) -m lib publish --profile $(PROFILE) $(if $(ADD),--add) $(if $(DROP_STALE),--drop-stale) $(NOTEBOOKS)

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

# The lab extras are installed once (a stamp, like .installed). `python -m lib.lab` first writes the working copies
# lab/<profile>/<name>.ipynb (gitignored): each notebook with that profile's parameters injected, as `lib run`
# injects them, so a notebook runs under any profile in the Lab while notebooks/*.py, the source, stays as it is
# (lib/lab.py). The Lab opens on lab/$(PROFILE)/; another profile is another folder there. The server runs from the
# repository root, where jupytext.toml lives, so saving a script pairs .py ↔ .ipynb and leaves the script's bytes
# alone (the scripts carry no header for the kernel to rewrite); lab/jupytext.toml pairs no working copy. Its
# contents manager, lib.lab.ContentsManager, is jupytext's serving a notebook that names no kernel (a script before
# its pair exists) with the default one, Python 3 (ipykernel), so the Lab starts it without asking. As root (most
# containers) the server needs --allow-root.
# lab/overrides.json opens a .py with jupytext's notebook viewer ("Jupytext Notebook") on double-click or by URL.
# It is installed as the venv's own overrides.json, JupyterLab's file for default settings
# (<sys.prefix>/share/jupyter/lab/settings), so it holds for this venv's Lab only; settings you change in the Lab
# (~/.jupyter) still win. The viewer is chosen by file type, not folder, so lib/*.py opens as a notebook too (Open
# With → Editor for the text): saved from that view it gets no pair and keeps its bytes (jupytext.toml).
# tests/test_lab.py checks all of this, in headless Chromium too.
LAB_SETTINGS := $(VENV)/share/jupyter/lab/settings/overrides.json
LAB_SERVER   := --ServerApp.root_dir=. --ServerApp.contents_manager_class=lib.lab.ContentsManager

$(VENV)/.lab-installed: $(VENV)/.installed
	$(PY) -m pip install --quiet --no-cache-dir $(TORCH_SPEC) -e ".[lab]"
	touch $@

$(LAB_SETTINGS): lab/overrides.json $(VENV)/.lab-installed
	mkdir -p $(@D)
	cp $< $@

lab: $(VENV)/.lab-installed $(LAB_SETTINGS)
	$(PY) -m lib.lab
	$(PY) -m jupyter lab $(LAB_SERVER) --LabApp.default_url=/lab/tree/lab/$(PROFILE) $(if $(filter 0,$(shell id -u)),--allow-root)

lint: setup
	$(PY) -m ruff check lib tests benchmarks notebooks
	$(PY) -m lib.defaults --check
	$(PY) -m lib.claim_catalogue --check

# Every default lives in its notebook's schema (lib/<paper>/schemas.py); this rewrites the copies made from it:
# the notebooks' parameters cells and params/default/. `make lint` fails while one of them has drifted.
params: setup
	$(PY) -m lib.defaults --write

clean:
	rm -rf build results figures
