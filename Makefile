# sssp-bench: `make run` runs the quick config end to end; `make test` runs the tests.
# Each target installs what it needs into .venv first (once; again when pyproject.toml changes).
# `make gpu-test` is for a machine with a GPU and CuPy but no package index (the device machine): it installs
# into that machine's Python without dependencies and runs the tests marked `gpu`.

PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
CONFIG ?= configs/quick.yaml

.PHONY: run test gpu-test install clean

$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

install: $(VENV)/.installed

run: $(VENV)/.installed
	$(BIN)/sssp-bench run $(CONFIG) --report

test: $(VENV)/.installed
	$(BIN)/python -m pytest -q

GPU_PYTHON ?= python3

gpu-test:
	$(GPU_PYTHON) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	$(GPU_PYTHON) -m pytest -m gpu -q

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
