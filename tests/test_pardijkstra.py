"""pardijkstra without a GPU: parameters, refusals, the heap's memory estimate, the kernel's word layout, and the kernel
itself run on the host (tests/emulation: pardijkstra.cu compiled with g++ against a CUDA shim, one OS thread per
CUDA thread) against the bucket-heap model: the same distances, extractions, bulkUpdates and Resolves per level.

The emulation checks the kernel's logic (indexing, scans, selects, the schedule between level blocks); the GPU
memory model, occupancy and timing are tests/test_gpu_pardijkstra.py's (device only)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from sssp_bench import impls
from sssp_bench.errors import ConfigError, UnsupportedGraphError
from sssp_bench.graph.generators import generate
from sssp_bench.graph.weights import apply_weights
from sssp_bench.impls import pardijkstra
from sssp_bench.kernels.bucket_heap import default_d, level_count, par_dijkstra_model, sorted_rows

NAME = "pardijkstra"
REPO = Path(__file__).resolve().parents[1]
CU = REPO / "sssp_bench" / "impls" / "pardijkstra.cu"
EMULATION = REPO / "tests" / "emulation"


def test_registered_with_its_parameters_and_docstring():
    cls = impls.get(NAME)
    assert cls.device == "gpu" and cls.kind == "sssp" and not cls.negative_weights
    assert set(cls.parameters) == {"d", "warps_per_block", "settled_check", "count_relaxations"}
    implementation = cls()
    assert implementation.params == {"d": 0, "warps_per_block": 8, "settled_check": True, "count_relaxations": False}
    for word in ("Resolve", "Theorem 3.1", "DEL", "settled_check", "resolve0_ns", "resolves_per_level"):
        assert word in pardijkstra.__doc__


def test_parameters_are_validated():
    assert impls.get(NAME)(d=7, warps_per_block=32, settled_check=False).params["d"] == 7
    for bad in ({"d": -1}, {"warps_per_block": 0}, {"warps_per_block": 33}):
        with pytest.raises(ConfigError):
            impls.get(NAME)(**bad)
    with pytest.raises(ConfigError, match="bool"):
        impls.get(NAME)(settled_check=1)


def test_negative_weights_are_refused_before_anything_touches_a_device():
    graph = apply_weights(generate("grid:rows=10,cols=10,seed=1"), "negative:min=1,max=100,potential=50,seed=1")
    with pytest.raises(UnsupportedGraphError, match="non-negative weights.*negative weight"):
        impls.get(NAME)().prepare(graph)


def test_the_heap_memory_estimate():
    # levels: the least L with d 4^(L-1) >= n; P_L = d (4^L - 1) / 3 signal elements, 3 P_L bucket and scratch each
    assert pardijkstra.heap_elements(30000, 4096) == (3, 4096 * 21)
    assert pardijkstra.heap_elements(30000, 8) == (level_count(30000, 8), 8 * (4 ** 7 - 1) // 3)
    levels, signals = pardijkstra.heap_elements(1_000_000, 8)
    assert 8 * 4 ** (levels - 1) >= 1_000_000 > 8 * 4 ** (levels - 2)
    assert 7 * signals * pardijkstra.ELEMENT_BYTES < 500 * 1_000_000  # under 500 bytes a vertex


def test_the_python_word_layout_is_the_kernels():
    source = CU.read_text()
    defines = dict(re.findall(r"^#define (PD_\w+) (-?\d+)", source, flags=re.MULTILINE))
    for name in ("PD_FINISHED", "PD_ERROR", "PD_ITERATIONS", "PD_STALE", "PD_BULK", "PD_EMPTY_OPS",
                 "PD_RESOLVE0_NS", "PD_RESOLVE0_COUNT", "PD_WORDS", "PD_CTL_STRIDE", "PD_DONE"):
        assert int(defines[name]) == getattr(pardijkstra, name), name
    for code in pardijkstra.ERRORS:
        assert code in {int(v) for k, v in defines.items() if k.startswith("PD_ERR_")}


# --- the kernel on the host ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def host_kernel(tmp_path_factory):
    compiler = shutil.which("g++")
    if compiler is None:
        pytest.skip("no g++ for the host emulation")
    binary = tmp_path_factory.mktemp("pardijkstra") / "pardijkstra_host"
    command = [compiler, "-std=c++20", "-O1", "-pthread", "-I", str(REPO / "sssp_bench" / "gpu"), "-o", str(binary),
               str(EMULATION / "pardijkstra_host.cpp")]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if completed.returncode != 0 and "barrier" in completed.stderr:
        pytest.skip(f"the compiler lacks C++20 <barrier>: {completed.stderr[:200]}")
    assert completed.returncode == 0, completed.stderr
    return binary


def run_host_kernel(binary, graph, source, d=0, settled_check=True, threads=32, tmp_path=None):
    """(distances, words, per-level control words, per-extraction counts) of pardijkstra.cu run on the host with the
    arrays prepare would upload."""
    d = d or default_d(graph)
    offsets, columns, weights, unit = sorted_rows(graph)
    n, m = graph.n, graph.m
    levels = level_count(n, d)
    header = np.array([n, m, source, d, levels, int(settled_check), threads, 1,
                       pardijkstra.operation_cap(n, m, levels), int(unit)], np.int64)
    weights = np.zeros(m, np.int32) if unit else np.asarray(weights, np.int32)
    given, got = tmp_path / "in.bin", tmp_path / "out.bin"
    given.write_bytes(header.tobytes() + offsets.astype(np.int64).tobytes() + columns.astype(np.int32).tobytes()
                      + weights.tobytes())
    subprocess.run([str(binary), str(given), str(got)], check=True, timeout=600)
    raw = got.read_bytes()
    distances = np.frombuffer(raw, np.int64, n, 0)
    at = 8 * n
    words = np.frombuffer(raw, np.uint64, pardijkstra.PD_WORDS, at)
    at += 8 * pardijkstra.PD_WORDS
    ctl = np.frombuffer(raw, np.int64, levels * pardijkstra.PD_CTL_STRIDE, at).reshape(levels, -1)
    at += 8 * ctl.size
    per_iteration = np.frombuffer(raw, np.uint64, 2 * (n + m + 1), at).reshape(-1, 2)
    return distances, words, ctl, per_iteration


CASES = [  # graph, source, d, settled_check, threads a block
    ("random:n=100,m=600,seed=2", 0, 0, True, 32),
    ("random:n=100,m=600,seed=2", 0, 1, True, 32),      # six levels, a bulkUpdate per arc
    ("random:n=100,m=600,seed=2", 0, 3, False, 32),     # re-extractions dropped
    ("dag:n=80,degree=6,seed=1", 0, 0, False, 64),      # the paper's DAG mode; two warps a block
    ("complete:n=24,chain_shortest=false,seed=3", 1, 5, False, 32),
    ("grid:rows=6,cols=8,seed=5", 1, 2, True, 96),      # three warps: block scans across warps
]


@pytest.mark.slow
@pytest.mark.parametrize("spec, source, d, settled_check, threads", CASES)
def test_the_kernel_on_the_host_is_the_model_step_for_step(host_kernel, tmp_path, spec, source, d, settled_check,
                                                           threads):
    graph = generate(spec)
    distances, words, ctl, per_iteration = run_host_kernel(host_kernel, graph, source, d, settled_check, threads,
                                                           tmp_path)
    model = par_dijkstra_model(graph, source, d, settled_check)
    assert words[pardijkstra.PD_ERROR] == 0 and words[pardijkstra.PD_FINISHED] == 1
    assert np.array_equal(distances, model.distances)
    assert int(words[pardijkstra.PD_ITERATIONS]) == model.iterations
    assert int(words[pardijkstra.PD_STALE]) == model.stale_extractions
    assert int(words[pardijkstra.PD_BULK]) == model.bulk_updates
    assert int(words[pardijkstra.PD_EMPTY_OPS]) == model.empty_ops
    assert ctl[:, pardijkstra.PD_DONE].tolist() == model.resolves_per_level
    assert int(words[pardijkstra.PD_RESOLVE0_COUNT]) == model.resolves_per_level[0]
    assert int(words[pardijkstra.PD_RESOLVE0_NS]) > 0
    # per extraction: arcs examined (settled vertices' out-degrees), updates emitted (one per bulkUpdate element)
    counts = per_iteration[: model.iterations].astype(np.int64)
    degrees = np.diff(graph.row_offsets)
    assert counts[:, 0].sum() == degrees[model.extracted].sum()
    assert counts[:, 1].sum() >= len(model.extracted) - 1


@pytest.mark.slow
def test_odd_graphs_on_the_host(host_kernel, tmp_path):
    # parallel arcs (a bulkUpdate with a repeated value), zero-weight arcs and cycles, a self-loop, unreachable
    # vertices, a source without out-arcs, one vertex: a single-level heap
    from sssp_bench.graph.csr import from_arcs

    arcs = [(0, 1, 4), (0, 2, 3), (0, 2, 1), (2, 1, 2), (1, 3, 1), (2, 3, 5), (3, 3, 0), (3, 4, 0), (6, 0, 1)]
    diamond = from_arcs(7, *zip(*arcs), name="diamond")
    one = from_arcs(1, [0], [0], [3], name="one-vertex-self-loop")
    for graph, sources in ((diamond, (0, 6, 5)), (one, (0,))):
        for source in sources:
            for d, settled_check in ((0, True), (1, False)):
                distances, words, ctl, _ = run_host_kernel(host_kernel, graph, source, d, settled_check, 32, tmp_path)
                model = par_dijkstra_model(graph, source, d, settled_check)
                assert np.array_equal(distances, model.distances)
                assert ctl[:, pardijkstra.PD_DONE].tolist() == model.resolves_per_level
    distances, *_ = run_host_kernel(host_kernel, diamond, 0, 0, True, 32, tmp_path)
    assert distances.tolist()[:5] == [0, 3, 1, 4, 4]
