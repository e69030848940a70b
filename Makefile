# sssp-bench: `make run` runs the quick config end to end; `make test` runs the tests.
# Each target installs what it needs into .venv first (once; again when pyproject.toml changes).
# `make gpu-test` is for a machine with a GPU and CuPy but no package index (the device machine): it installs
# into that machine's Python without dependencies and runs the tests marked `gpu`.
# `make shard`, `make merge` and `make gate` are the steps of the reproduction workflow
# (.github/workflows/reproduce.yml): one shard of a config, the shards joined with their report, and the
# regression gate against a stored baseline run; each runs here as it runs in CI.

PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
CONFIG ?= configs/quick.yaml
EXTRAS ?= test,dask

.PHONY: run test gpu-test install clean shard merge gate

$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[$(EXTRAS)]'
	touch $@

install: $(VENV)/.installed

run: $(VENV)/.installed
	$(BIN)/sssp-bench run $(CONFIG) --report

test: $(VENV)/.installed
	$(BIN)/python -m pytest -q

# One shard of CONFIG (SHARD=I/N) into SHARDS_DIR/<config>-shard-I-of-N; a folder that an earlier attempt began
# is resumed, so a re-run job never repeats a finished solve.
SHARD      ?= 1/1
SHARDS_DIR ?= results/shards
MERGED     ?= results/merged
BASELINE   ?=
shard_id    = $(basename $(notdir $(CONFIG)))-shard-$(subst /,-of-,$(SHARD))

shard: $(VENV)/.installed
	@if [ -f "$(SHARDS_DIR)/$(shard_id)/manifest.json" ]; then \
	  set -x; $(BIN)/sssp-bench run $(CONFIG) --shard $(SHARD) --resume "$(SHARDS_DIR)/$(shard_id)" --no-progress; \
	else \
	  set -x; $(BIN)/sssp-bench run $(CONFIG) --shard $(SHARD) --output "$(SHARDS_DIR)" --run-id $(shard_id) --no-progress; \
	fi

# Every shard run in SHARDS_DIR joined into MERGED (refused when one is missing), and its report.
merge: $(VENV)/.installed
	$(BIN)/sssp-bench merge "$(SHARDS_DIR)" --into "$(MERGED)" --report

# Fails (exit 1) when MERGED is slower than BASELINE on any graph and variant both ran, as `compare` judges it.
gate: $(VENV)/.installed
	@test -n "$(BASELINE)" || { echo "make gate: name the stored baseline run: BASELINE=<run folder>" >&2; exit 2; }
	$(BIN)/sssp-bench compare "$(BASELINE)" "$(MERGED)" --fail-on-slower --csv "$(MERGED)/compare.csv"

GPU_PYTHON ?= python3

gpu-test:
	$(GPU_PYTHON) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	$(GPU_PYTHON) -m compileall -q sssp_bench  # images that set PYTHONDONTWRITEBYTECODE: each process reads, not compiles
	$(GPU_PYTHON) -m pytest -m gpu -q

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
