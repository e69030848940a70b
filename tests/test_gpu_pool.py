"""`run --workers` on a GPU (run/pool.py): each worker process pinned to its GPU makes its own CUDA context and runs
GPU implementations there, every solve verified, and the pool records when each worker's context was ready (marker
`gpu`; skipped without CuPy or a usable GPU)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("cupy")

from gpu_battery import gpu_device  # noqa: E402, F401
from runs import make_config, read_rows, solves_all_ok  # noqa: E402
from sssp_bench.run.pool import visible_gpus  # noqa: E402
from sssp_bench.run.workers import run_on_workers  # noqa: E402

pytestmark = pytest.mark.gpu

CONFIG = """
    graphs:
      - {graph: "road:n=6000,seed=2", label: road}
      - {graph: "rmat:n=4096,m=32768,seed=3", label: rmat}
    implementations: [hbf, bfs4k, cpu-dijkstra]
    sources: {count: 6, seed: 1}
    verification: {reference_sources: 2}
"""


def test_a_gpu_worker_makes_its_own_context_and_verifies_every_solve(tmp_path, gpu_device):
    gpu = visible_gpus()[:1]
    outcome = run_on_workers(make_config(tmp_path, CONFIG), workers=1, run_id="gpu-pool", gpus=gpu)
    rows = read_rows(outcome.run_dir)
    assert len(solves_all_ok(rows)) == 2 * 3 * 6
    assert {row["device"] for row in rows if row["variant"] in ("hbf", "bfs4k")} == {"gpu"}
    attempts = [json.loads((task / "attempts.jsonl").read_text()) for task in (outcome.run_dir / "shards").iterdir()]
    assert {attempt["gpu"] for attempt in attempts} == set(gpu)
    clock = json.loads((outcome.run_dir / "manifest.json").read_text())["timing"]["coordinator"]
    (context,) = clock["contexts"]
    assert 0 < context["initialised_s"] <= context["ready_s"]  # made in the worker, from its own start
