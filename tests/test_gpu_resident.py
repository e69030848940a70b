"""A worker's resident GPU implementations (run/resident.py) solve later tasks verified, prepared once per cell
(marker `gpu`; skipped without CuPy or a usable GPU)."""

from __future__ import annotations

import pytest

pytest.importorskip("cupy")

from gpu_battery import gpu_device  # noqa: E402, F401
from runs import make_config, read_rows  # noqa: E402
from sssp_bench import impls  # noqa: E402
from sssp_bench.run.resident import PROCESS_MEMO  # noqa: E402
from sssp_bench.run.runner import start_run  # noqa: E402
from sssp_bench.run.shards import apply_shard, queue_split  # noqa: E402

pytestmark = pytest.mark.gpu

CONFIG = """
    graphs:
      - {graph: "road:n=6000,seed=2", label: road}
      - {graph: "rmat:n=4096,m=32768,seed=3", label: rmat}
    implementations: [hbf, bfs4k, delta-stepping-async]
    sources: {count: 12, seed: 1}
    verification: {reference_sources: 3}
"""


def test_resident_gpu_implementations_solve_every_task_verified_and_prepare_once_per_cell(tmp_path, gpu_device,
                                                                                           monkeypatch):
    prepared = []
    for name in ("hbf", "bfs4k", "delta-stepping-async"):
        cls = impls.get(name)
        monkeypatch.setattr(cls, "prepare", lambda self, graph, original=cls.prepare, name=name:
                            prepared.append(name) or original(self, graph))
    split = queue_split(make_config(tmp_path, CONFIG), 3)
    PROCESS_MEMO.keep_between_runs()
    try:
        rows = []
        for index in range(1, split.count + 1):
            config = apply_shard(make_config(tmp_path, CONFIG), split, index)
            rows += read_rows(start_run(config, run_id=f"task-{index}", show_progress=False).run_dir)
    finally:
        PROCESS_MEMO.clear()
        PROCESS_MEMO.enabled = False
    solves = [row for row in rows if row["phase"] == "solve"]
    assert len(solves) == 2 * 3 * 12
    assert all(row["status"] == "ok" and row["certificate"] and row["reference"] is not False for row in solves)
    assert sorted(prepared) == sorted(["hbf", "bfs4k", "delta-stepping-async"] * 2)  # once per graph and variant
    assert split.count > 2
