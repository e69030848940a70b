"""The GPU BFS comparators of BFS-4K's Table 2 without a GPU: registration, kind, parameters, availability, and
that the Python side's status-word indices match the #defines of bfs_sweep.cuh; and bfs4k's head_degree rule."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

from sssp_bench import impls
from sssp_bench.run.config import parse_config
from sssp_bench.errors import ConfigError
from sssp_bench.graph.generators import generate
from sssp_bench.gpu import runtime
from sssp_bench.gpu.runtime import module_source
from sssp_bench.impls import bfs_harish, bfs_vwarp, gpu_bfs_common
from sssp_bench.impls.bfs4k import head_degree

IMPLS = Path(bfs_harish.__file__).resolve().parent
# BFS-4K's comparators: every registered GPU BFS but bfs4k itself (tested in test_gpu_bfs4k.py).
COMPARATORS = [name for name, cls in impls.registry().items() if cls.kind == "bfs" and cls.device == "gpu"
               and name != "bfs4k"]


@pytest.mark.parametrize("name", COMPARATORS)
def test_each_is_a_registered_gpu_bfs(name):
    cls = impls.get(name)
    assert cls.kind == "bfs" and cls.device == "gpu"
    assert cls.negative_weights  # weights are never read
    assert (IMPLS / cls.cu_file).is_file() and cls.description
    assert cls.parameters["count_frontiers"].default is False
    ok, why = cls.available()
    assert ok or why  # unavailable only with a reason


def test_only_vwarp_has_a_warp_size_and_it_defaults_to_8():
    assert set(impls.get("bfs-harish").parameters) == {"count_frontiers"}
    assert set(impls.get("bfs-edge").parameters) == {"count_frontiers"}
    assert set(impls.get("bfs-vwarp").parameters) == {"count_frontiers", "warp_size"}
    assert impls.get("bfs-vwarp")().params["warp_size"] == 8


def test_edge_counts_its_arc_tails_in_the_memory_check():
    assert impls.get("bfs-edge").per_arc_bytes == 4
    assert impls.get("bfs-harish").per_arc_bytes == impls.get("bfs-vwarp").per_arc_bytes == 0


@pytest.mark.parametrize("warp_size", [1, 2, 4, 8, 16, 32])
def test_every_power_of_two_warp_size_up_to_32_is_accepted(warp_size):
    assert bfs_vwarp.VirtualWarpBfs(warp_size=warp_size).params["warp_size"] == warp_size


@pytest.mark.parametrize("warp_size", [0, 3, 6, 64, -8])
def test_a_bad_warp_size_is_refused_when_constructed(warp_size):
    with pytest.raises(ConfigError, match=rf"bfs-vwarp parameter 'warp_size' must be a power of two from 1 to 32, "
                                          rf"got {warp_size}$"):
        impls.get("bfs-vwarp")(warp_size=warp_size)


def test_a_bad_warp_size_is_refused_when_a_config_is_parsed(tmp_path):
    text = 'graphs: ["grid:rows=4"]\nimplementations: [{name: bfs-vwarp, params: {warp_size: [8, 64]}}]\n'
    with pytest.raises(ConfigError, match=r"warp_size' must be a power of two from 1 to 32, got 64"):
        parse_config(text, str(tmp_path / "bad.yaml"), default_name="bad")


def test_a_warp_size_of_the_wrong_type_is_refused():
    with pytest.raises(ConfigError, match="must be int"):
        impls.get("bfs-vwarp")(warp_size=8.0)
    with pytest.raises(ConfigError, match="no parameter 'warp_size'"):
        impls.get("bfs-harish")(warp_size=8)


@pytest.mark.parametrize("name", COMPARATORS)
def test_without_cupy_available_says_why(name, monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)  # makes CuPy look absent
    monkeypatch.setattr(runtime, "_status", None)   # restored afterwards, with the real cached status
    ok, why = impls.get(name).available()
    assert not ok and "CuPy not installed" in why


def test_status_words_agree_with_the_kernels():
    source, _ = module_source(IMPLS / "bfs_harish.cu")
    defines = {name: int(value) for name, value in re.findall(r"^#define (BFS_\w+) (\d+)", source, re.MULTILINE)}
    assert (defines["BFS_DISCOVERED0"], defines["BFS_DISCOVERED1"], defines["BFS_COUNTED"], defines["BFS_ARCS"]) == (
        gpu_bfs_common.W_DISCOVERED0, gpu_bfs_common.W_DISCOVERED1, gpu_bfs_common.W_COUNTED, gpu_bfs_common.W_ARCS)
    for cu_file in ("bfs_harish.cu", "bfs_vwarp.cu", "bfs_edge.cu"):  # all three share the header
        assert '#include "bfs_sweep.cuh"' in (IMPLS / cu_file).read_text()


def test_bfs4k_head_degree_tells_skewed_graphs_from_regular_ones():
    """bfs4k spreads a small multi-block frontier over every virtual warp only where a vertex reached through an
    arc has many out-arcs (head_degree >= spread_degree, 32 by default): a star's hub is reached through every leaf
    arc, a grid's vertices all have four neighbours. head_degree takes numpy as well as CuPy."""
    star = generate("star:n=101")  # hub 0 with 100 leaves, both directions: (100 x 100 + 100 x 1) / 200
    assert head_degree(np, star, star.n) == pytest.approx(50.5)
    grid = generate("grid:rows=30,cols=30,seed=1")
    assert head_degree(np, grid, grid.n) < 4.0
    assert impls.get("bfs4k").parameters["spread_degree"].default == 32.0
