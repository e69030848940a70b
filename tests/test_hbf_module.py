"""H-BF's module without a GPU: its parameters are checked, and the Python side's status-word indices and tile size
match the #defines of hbf.cu and the shared queue.cuh."""

from __future__ import annotations

import pytest

from sssp_bench.errors import ConfigError
from sssp_bench.gpu import queues
from sssp_bench.impls import hbf

from test_queue_impls import defines


def test_grid_expansion_on_needs_dedup64_and_auto_waits_for_the_graph():
    assert hbf.HBF(grid_expansion="on").grid
    assert not hbf.HBF().grid  # "auto" (the default) decides in prepare, from the degrees and tdp
    assert not hbf.HBF(grid_expansion="auto", dedup64=False).grid
    with pytest.raises(ConfigError, match="'grid_expansion' needs dedup64"):
        hbf.HBF(grid_expansion="on", dedup64=False)
    with pytest.raises(ConfigError, match="grid_expansion"):
        hbf.HBF(grid_expansion=True)


def test_status_words_and_tile_match_the_cuda_source():
    cu = defines("hbf.cu")
    assert (cu["HBF_QUEUE0"], cu["HBF_HEAVY0"], cu["HBF_OVERFLOW"], cu["HBF_CHILD0"], cu["HBF_BASE"],
            cu["HBF_ROUNDS"], cu["HBF_CAPPED"]) == (hbf.QUEUE0, hbf.HEAVY0, hbf.OVERFLOW, hbf.CHILD0, hbf.BASE,
                                                    hbf.ROUNDS, hbf.CAPPED)
    assert cu["HBF_WORDS"] == hbf.STATUS_WORDS and cu["HBF_BLOCK"] == hbf.BLOCK
    assert cu["HBF_SCAN_TILE"] == hbf.SCAN_TILE
    assert cu["ADVANCE_TILE"] == queues.TILE  # the grid expansion's tiles are queue.cuh's
    flags = {"HBF_CLASSIFY": hbf.CLASSIFY, "HBF_DEDUP": hbf.DEDUP, "HBF_COALESCE": hbf.COALESCE,
             "HBF_HINTS": hbf.HINTS, "HBF_DP_COOP": hbf.DP_COOP, "HBF_DP_CHILD": hbf.DP_CHILD, "HBF_COUNT": hbf.COUNT,
             "HBF_VWARPS": hbf.VWARPS, "HBF_BLOCKX": hbf.BLOCKX}
    assert {name: cu[name] for name in flags} == flags
