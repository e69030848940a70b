"""The parts of the GPU runtime that need no GPU: include expansion and the cache key, the memory estimate and
refusal message, scalar checking in launch, availability without CuPy, and the runner going on without a GPU."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from sssp_bench import impls
from sssp_bench.graph.csr import from_arcs
from sssp_bench.gpu import runtime
from sssp_bench.run.runner import classify

from runs import make_config, run_rows

HAS_CUPY = importlib.util.find_spec("cupy") is not None


def test_includes_are_expanded_once_and_the_digest_covers_the_header(tmp_path):
    (tmp_path / "shared.cuh").write_text("#define ANSWER 42\n")
    (tmp_path / "other.cuh").write_text('#include "shared.cuh"\n#define TWICE (2 * ANSWER)\n')
    kernel = tmp_path / "kernel.cu"
    kernel.write_text('#include "shared.cuh"\n#include "other.cuh"\nextern "C" __global__ void k() {}\n')
    source, digest = runtime.module_source(kernel)
    assert source.count("#define ANSWER 42") == 1 and "#define TWICE" in source
    assert '#include "' not in source and '#line 1 "shared.cuh"' in source and '#line 3 "kernel.cu"' in source
    (tmp_path / "shared.cuh").write_text("#define ANSWER 43\n")
    _, changed = runtime.module_source(kernel)
    assert changed != digest  # editing a header recompiles every kernel that includes it


def test_the_shared_header_is_found_from_the_impls_folder():
    source, _ = runtime.module_source(runtime.GPU_DIR.parent / "impls" / "lonestar.cu")
    assert "SSSP_BENCH_GPU_COMMON_CUH" in source and "lonestar_round" in source


def test_a_missing_header_names_the_file_line_and_folders(tmp_path):
    kernel = tmp_path / "broken.cu"
    kernel.write_text('// first\n#include "nowhere.cuh"\n')
    with pytest.raises(FileNotFoundError, match=r'broken.cu:2: #include "nowhere.cuh" not found'):
        runtime.module_source(kernel)


def test_device_memory_estimate_and_refusal_message():
    graph = from_arcs(4, [0, 1, 2], [1, 2, 3], [1, 1, 1])
    csr = 8 * 5 + 4 * 3 + 4 * 3
    assert runtime.graph_device_bytes(graph) == csr
    assert runtime.estimate_device_bytes(graph, 8, 4) == csr + 8 * 4 + 4 * 3
    assert runtime.estimate_device_bytes(graph, 8, 4, include_graph=False) == 8 * 4 + 4 * 3
    assert runtime.graph_device_bytes(graph.with_weights(None)) == 8 * 5 + 4 * 3
    error = runtime.DeviceMemoryError("bf-edge", 3 * 2**30, 2**30, 80 * 2**30, "graph CSR 1 GiB")
    assert isinstance(error, MemoryError)
    assert str(error) == "bf-edge: needs 3.00 GiB on the device (graph CSR 1 GiB), but only 1.00 GiB of 80.00 GiB is free"
    assert classify(error)[0] == "out_of_memory"


def test_launch_refuses_python_scalars_before_touching_the_device():
    calls = []

    def kernel(grid, block, args, shared_mem=0):
        calls.append((grid, block, args))

    with pytest.raises(TypeError, match="argument 1 is a Python int"):
        runtime.launch(kernel, 1, 32, (np.zeros(1), 3))
    with pytest.raises(TypeError, match="Python bool"):
        runtime.launch(kernel, 1, 32, (True,))
    runtime.launch(kernel, 0, 32, (np.int32(3),))  # an empty grid launches nothing
    runtime.launch(kernel, (2, 1), 64, (np.int32(3), np.int64(4)))
    assert calls == [((2, 1, 1), (64, 1, 1), (np.int32(3), np.int64(4)))]


def test_launch_failures_name_the_kernel():
    def kernel(grid, block, args, shared_mem=0):
        raise RuntimeError("too many resources requested for launch")

    kernel.name = "lonestar_round"
    with pytest.raises(runtime.KernelLaunchError, match=r"lonestar_round<<<\(1, 1, 1\), \(1024, 1, 1\), 0>>> failed"):
        runtime.launch(kernel, 1, 1024, ())


def test_arch_option_leaves_the_arch_to_cupy_where_cupy_adds_one():
    from types import SimpleNamespace

    def fake_cupy(chooser=None):
        compiler = SimpleNamespace() if chooser is None else SimpleNamespace(_get_arch_for_options_for_nvrtc=chooser)
        return SimpleNamespace(cuda=SimpleNamespace(compiler=compiler))

    assert runtime.arch_option(fake_cupy(lambda: ("-arch=sm_90", "cubin")), "90") == ((), "sm_90")
    assert runtime.arch_option(fake_cupy(lambda: ("-arch=compute_90", "ptx")), "90") == ((), "compute_90")
    assert runtime.arch_option(fake_cupy(), "90") == (("-arch=sm_90",), "sm_90")


def test_blocks_for():
    assert runtime.blocks_for(0, 256) == 0
    assert runtime.blocks_for(1, 256) == 1
    assert runtime.blocks_for(257, 256) == 2
    assert runtime.blocks_for(10**9, 256, cap=1000) == 1000
    assert runtime.blocks_for(0, 256, cap=1000) == 0


def test_the_gpu_implementations_are_registered_with_their_anatomy():
    for name in ("lonestar", "bf-edge", "bf-frontier"):
        implementation_class = impls.get(name)
        assert implementation_class.device == "gpu" and implementation_class.kind == "sssp"
        assert implementation_class.negative_weights is True and implementation_class.description
        assert implementation_class.parameters["count_relaxations"].default is False


@pytest.mark.skipif(HAS_CUPY, reason="CuPy is installed here")
def test_without_cupy_gpu_implementations_are_unavailable_and_nothing_imports_cupy():
    runtime.release_device_graphs()  # a no-op without CuPy
    for name in ("lonestar", "bf-edge", "bf-frontier"):
        available, why = impls.get(name).available()
        assert available is False and "CuPy" in why
    with pytest.raises(runtime.GpuUnavailableError, match="CuPy"):
        runtime.cupy_module()


@pytest.mark.skipif(HAS_CUPY, reason="CuPy is installed here")
def test_a_run_naming_a_gpu_implementation_goes_on_without_a_gpu(tmp_path):
    text = """
        graphs: ["grid:rows=5,cols=5,seed=1"]
        implementations: [cpu-dijkstra, lonestar]
        sources: {count: 3, seed: 1}
        verification: {reference_sources: 1}
    """
    outcome, rows = run_rows(make_config(tmp_path, text, name="t"), run_id="t")
    lonestar = [row for row in rows if row["variant"] == "lonestar"]
    assert [(row["phase"], row["status"]) for row in lonestar] == [("prepare", "unavailable")]
    dijkstra = [row for row in rows if row["variant"] == "cpu-dijkstra" and row["phase"] == "solve"]
    assert len(dijkstra) == 3 and all(row["status"] == "ok" and row["timer"] == "host" for row in dijkstra)
