# Two entry points for a new user (see README):
#   make repro   set everything up, then run the pipeline (dvc repro) on the embedded demo
#   make test    set everything up, then lint, type-check and run the test suite
# Re-running either is cheap: installation is guarded by a stamp file that is only
# rebuilt when pyproject.toml changes.

SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.prescient-installed

# Stage commands in dvc.yaml call `python`: it must be the project's interpreter.
export VIRTUAL_ENV := $(CURDIR)/$(VENV)
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
export LITELLM_LOCAL_MODEL_COST_MAP := True
export HF_HUB_OFFLINE := 1
export MPLBACKEND := Agg
export TOKENIZERS_PARALLELISM := false
# llama-cpp-python is an sdist built here. Its llama.cpp is built for one fixed x86-64
# instruction set (AVX2, FMA, F16C; no AVX-512, no host tuning, no run-time kernel choice)
# so the embedded model writes the same tokens on every machine that can run it. The
# LLaVA target does not build here and is not needed.
export CMAKE_ARGS := -DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_CPU_ALL_VARIANTS=OFF \
  -DGGML_BACKEND_DL=OFF -DGGML_SSE42=ON -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON \
  -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AVX_VNNI=OFF -DGGML_AVX512=OFF \
  -DGGML_AVX512_VBMI=OFF -DGGML_AVX512_VNNI=OFF -DGGML_AVX512_BF16=OFF

.PHONY: install params repro pull test test-fast lint typecheck unit integration bench clean-venv

install: $(STAMP)

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "error: $(PYTHON) not found; install Python 3.11 or run 'make PYTHON=/path/to/python3.11 ...'"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip wheel setuptools
	$(PY) -m pip install --no-cache-dir -e '.[local-llm,dev,scale]'
	$(VENV)/bin/dvc config --local core.analytics false 2>/dev/null || true
	# Every dvc of this environment (typed by hand, queue workers) writes dvc.lock
	# atomically: a .pth file adds an import hook (prescient/plumbing/dvc_hook.py).
	$(PY) -m prescient lock install-hook
	touch $(STAMP)

# conf/ is the single source of truth; params.yaml is composed from it (as dvc exp run does).
params: $(STAMP)
	$(PY) -m prescient params compose

# dvc repro, with dvc.lock written to a temporary file and renamed over the old one, so a
# run killed while DVC records a stage never leaves a torn lock (prescient/plumbing/dvc_atomic.py;
# it holds without the environment's hook too).
repro: $(STAMP) params
	$(PY) -m prescient.plumbing.dvc_atomic repro

# dvc pull from the project's remote; a remote folder that does not exist is named, with
# the fix (prescient/plumbing/remote.py), where DVC alone says "Is your cache up to date?".
pull: $(STAMP)
	$(PY) -m prescient pull

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(STAMP)
	$(VENV)/bin/mypy

# The unit tests alone (tests/unit: no stage run, no server, no model): with lint and
# types, the fast lane a developer runs before committing (make test-fast).
unit: $(STAMP)
	$(VENV)/bin/pytest tests/unit

# The integration tests alone (tests/integration: stages, DVC, servers on 127.0.0.1, the
# embedded model, the browser).
integration: $(STAMP)
	$(VENV)/bin/pytest tests/integration

test-fast: lint typecheck unit

# Everything: what CI runs (.ci/run).
test: lint typecheck
	$(VENV)/bin/pytest

bench: $(STAMP)
	$(PY) bench/run_all.py

clean-venv:
	rm -rf $(VENV)
