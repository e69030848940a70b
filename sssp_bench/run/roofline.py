"""The roofline: a floor under every solve's time, measured on the same device in the same run.

Four measurements (`roofline.cu` holds the kernels):

(a) copy bandwidth: a large device-to-device copy timed with CUDA events, bytes read + written over the
    median time of several copies. Reported beside the floor (the ceiling the memory system gives).
(b) the relax pass: one load-balanced pass that relaxes every arc of the graph exactly once with atomicMin
    (one thread per arc through an arc-tail array built first; the tails' distances are a separate read-only
    array so every arc is live), on the shared device graph; the median over several passes, over m, is the
    time per arc. This is the least work any SSSP must do: every arc out of a reached vertex is relaxed at
    least once.
(c) chain latency: one thread following a random cyclic permutation much larger than L2, ns per dependent
    global load (the median of several launches, each continuing where the last stopped).
(d) hop depth: the BFS depth of the graph from each source (the CPU numba BFS), with the arcs out of the
    vertices the source reaches. A solver needs at least that many dependent rounds of global loads.

floor per solve = max(reached arcs x time per arc, hop depth x chain latency), and an implementation's
efficiency is floor / measured time. It can exceed 100% where an implementation skips the atomic on arcs
that cannot win (a plain read first), which the pass never does.

`measure_device()` gives (a) and (c) (once per run), `measure_relax_pass(graph)` (b) (once per graph),
`hop_depths(graph, sources)` (d), and `graph_roofline` puts (b) and (d) together with the device constants
into the per-graph record the manifest keeps. `floor_seconds` is the arithmetic. (d) depends on the graph and the
sources alone, so the runner keeps it in the per-graph cache (run/per_graph.py) and a rerun or another shard reads
it; (a) to (c) are this device's, measured in every run (a Dask worker measures them once for all its tasks).
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from ..graph.csr import CSRGraph
from ..gpu import runtime

CU_FILE = Path(__file__).with_name("roofline.cu")

COPY_BYTES = 1 << 30
"""Bytes of each buffer of the bandwidth copy (1 GiB; less when the device has less free)."""
COPY_REPEATS = 10
CHAIN_BYTES = 1 << 30
"""Bytes of the pointer-chasing permutation (1 GiB of uint32: about 20x the L2 of an H100 or H200)."""
CHAIN_MIN_L2_MULTIPLE = 4
"""The chain is skipped (latency unknown) when free memory allows no chain this many times larger than L2."""
CHAIN_STEPS = 1 << 16
CHAIN_REPEATS = 5
RELAX_REPEATS = 10
WARMUP = 2
ARC_BLOCK = 256
ARC_TILE = 256 * 8  # ARC_BLOCK * ARC_ITEMS in gpu/arcs.cuh
RELAX_BLOCK = 256


# ---------------------------------------------------------------------------------------------- arithmetic


def floor_seconds(reached_arcs: int, hop_depth: int, time_per_arc_s: float | None,
                  chain_latency_s: float | None) -> float | None:
    """max(reached arcs x time per arc, hop depth x chain latency); a missing term counts 0, both missing None."""
    if time_per_arc_s is None and chain_latency_s is None:
        return None
    arcs_bound = reached_arcs * time_per_arc_s if time_per_arc_s is not None else 0.0
    latency_bound = hop_depth * chain_latency_s if chain_latency_s is not None else 0.0
    return float(max(arcs_bound, latency_bound))


def source_floor(item: dict[str, Any], time_per_arc_ns: float | None, chain_latency_ns: float | None) -> dict[str, Any]:
    """A per-source record ({"source", "hop_depth", "reached_arcs", ...}) with its two bounds and floor added."""
    per_arc_s = None if time_per_arc_ns is None else time_per_arc_ns * 1e-9
    latency_s = None if chain_latency_ns is None else chain_latency_ns * 1e-9
    arcs_bound = None if per_arc_s is None else item["reached_arcs"] * per_arc_s
    latency_bound = None if latency_s is None else item["hop_depth"] * latency_s
    floor = floor_seconds(item["reached_arcs"], item["hop_depth"], per_arc_s, latency_s)
    bound = None
    if floor is not None:
        bound = "arcs" if (arcs_bound or 0.0) >= (latency_bound or 0.0) else "latency"
    return {**item, "arcs_bound_s": arcs_bound, "latency_bound_s": latency_bound, "floor_s": floor, "bound": bound}


def median_floor(per_source: Sequence[dict[str, Any]]) -> float | None:
    floors = [item["floor_s"] for item in per_source if item.get("floor_s") is not None]
    return float(statistics.median(floors)) if floors else None


# ---------------------------------------------------------------------------------------------- hop depth


def hop_depths(graph: CSRGraph, sources: Sequence[int]) -> list[dict[str, Any]]:
    """For each source: BFS depth (the largest level), reached vertices and the arcs out of them (CPU BFS, the
    sources in parallel)."""
    from ..kernels.bfs import bfs_depths

    depths, reached_vertices, reached_arcs = bfs_depths(graph, sources)
    return [{"source": int(source), "hop_depth": int(depth), "reached_vertices": int(vertices),
             "reached_arcs": int(arcs)}
            for source, depth, vertices, arcs in zip(sources, depths, reached_vertices, reached_arcs)]


# ---------------------------------------------------------------------------------------------- the device


def _module():
    return runtime.load_module(CU_FILE)


def _median_ms(samples_s: list[float]) -> float:
    return float(statistics.median(samples_s)) * 1e3


def measure_copy_bandwidth(nbytes: int = COPY_BYTES, repeats: int = COPY_REPEATS) -> dict[str, Any]:
    """(a) A device-to-device copy of `nbytes` (less if memory is short): GB/s of bytes read + written."""
    cp = runtime.cupy_module()
    free, _ = runtime.free_device_bytes()
    nbytes = int(min(nbytes, max(free - runtime.MEMORY_HEADROOM_BYTES, 0) // 4)) // 4096 * 4096
    if nbytes < 1 << 24:
        raise MemoryError(f"too little free device memory for the bandwidth copy ({free / 2**30:.2f} GiB free)")
    source = cp.arange(nbytes // 4, dtype=np.uint32)
    target = cp.empty_like(source)
    stream = cp.cuda.get_current_stream()
    samples = []
    for index in range(WARMUP + repeats):
        start = runtime.record_event()
        target.data.copy_from_device_async(source.data, nbytes, stream)
        end = runtime.record_event()
        seconds = runtime.elapsed_seconds(start, end)
        if index >= WARMUP:
            samples.append(seconds)
    if not bool((target[-4:] == source[-4:]).all()):
        raise RuntimeError("the bandwidth copy did not copy")
    del source, target
    median_s = statistics.median(samples)
    return {
        "copy_bandwidth_gbs": 2 * nbytes / median_s / 1e9,
        "copy_bytes": nbytes,
        "copy_repeats": repeats,
        "copy_ms": median_s * 1e3,
        "copy_samples_ms": [s * 1e3 for s in samples],
    }


def measure_chain_latency(nbytes: int = CHAIN_BYTES, steps: int = CHAIN_STEPS, repeats: int = CHAIN_REPEATS,
                          seed: int = 1) -> dict[str, Any]:
    """(c) ns per dependent global load over a random cyclic permutation of `nbytes` of uint32 (one thread)."""
    cp = runtime.cupy_module()
    attributes = runtime.device_attributes()
    l2_bytes = int(attributes.get("L2CacheSize", 0))
    free, _ = runtime.free_device_bytes()
    # Building the cycle takes about 40 bytes per entry at its peak (random keys, argsort and its scratch).
    entries = int(min(nbytes // 4, max(free - runtime.MEMORY_HEADROOM_BYTES, 0) // 48))
    entries = 1 << (entries.bit_length() - 1) if entries > 0 else 0
    if entries * 4 < CHAIN_MIN_L2_MULTIPLE * max(l2_bytes, 1 << 20):
        raise MemoryError(f"too little free device memory for a pointer chain {CHAIN_MIN_L2_MULTIPLE}x the L2 "
                          f"({free / 2**30:.2f} GiB free, L2 {l2_bytes / 2**20:.0f} MiB)")
    order = cp.argsort(cp.random.RandomState(seed).random_sample(entries))  # a random order of the entries
    cp.get_default_memory_pool().free_all_blocks()
    chain = cp.empty(entries, dtype=np.uint32)
    chain[order[:-1]] = order[1:].astype(np.uint32)  # a single cycle through every entry, in that order
    chain[order[-1:]] = order[:1].astype(np.uint32)
    position = order[:1].astype(np.uint32)
    del order
    cp.get_default_memory_pool().free_all_blocks()
    kernel = _module().function("roofline_chase")
    samples = []
    for index in range(1 + repeats):  # the first launch warms the module and the TLB, untimed
        start = runtime.record_event()
        runtime.launch(kernel, 1, 1, (chain, np.int64(steps), position))
        end = runtime.record_event()
        seconds = runtime.elapsed_seconds(start, end)
        if index >= 1:
            samples.append(seconds)
    del chain, position
    median_s = statistics.median(samples)
    return {
        "chain_latency_ns": median_s / steps * 1e9,
        "chain_bytes": entries * 4,
        "chain_steps": steps,
        "chain_repeats": repeats,
        "chain_samples_ns": [s / steps * 1e9 for s in samples],
        "l2_bytes": l2_bytes,
    }


def measure_device() -> dict[str, Any]:
    """(a) and (c) on the current device, for the manifest's "roofline" (a missing part says why)."""
    ok, description = runtime.gpu_status()
    if not ok:
        raise runtime.GpuUnavailableError(description)
    started = time.perf_counter()
    record: dict[str, Any] = {"available": True, "device": description}
    for name, measure in (("copy", measure_copy_bandwidth), ("chain", measure_chain_latency)):
        try:
            record.update(measure())
        except MemoryError as error:
            record[f"{name}_skipped"] = str(error)
    record.setdefault("copy_bandwidth_gbs", None)
    record.setdefault("chain_latency_ns", None)
    runtime.cupy_module().get_default_memory_pool().free_all_blocks()
    record["measure_s"] = time.perf_counter() - started
    return record


def measure_relax_pass(graph: CSRGraph, repeats: int = RELAX_REPEATS, seed: int = 1) -> dict[str, Any]:
    """(b) The median time of one pass relaxing every arc of `graph` once, on the shared device graph."""
    cp = runtime.cupy_module()
    n, m = graph.n, graph.m
    if m == 0:
        return {"relax_pass_ms": 0.0, "time_per_arc_ns": None, "arcs": 0, "relax_repeats": 0,
                "relax_samples_ms": []}
    dgraph = runtime.device_graph(graph, per_vertex_bytes=16, per_arc_bytes=4, who="roofline relax pass")
    module = _module()
    tails = cp.empty(m, dtype=np.int32)
    runtime.launch(module.function("roofline_arc_tails"), runtime.blocks_for(m, ARC_TILE), ARC_BLOCK,
                   (dgraph.row_offsets, np.int64(n), np.int64(m), tails))
    tail_dist = cp.random.RandomState(seed).randint(0, 1 << 20, size=n, dtype=np.int64)
    dist = cp.empty(n, dtype=np.int64)
    words = cp.zeros(8, dtype=np.uint64)
    weights = dgraph.weights.view(np.int32) if dgraph.float_weights else dgraph.weights
    unit = np.int32(1 if dgraph.unit_weights else 0)
    kernel = module.function("roofline_relax_all")
    samples = []
    for index in range(WARMUP + repeats):
        dist.fill(runtime.DIST_INF)
        start = runtime.record_event()
        runtime.launch(kernel, runtime.blocks_for(m, RELAX_BLOCK), RELAX_BLOCK,
                       (tails, dgraph.column_ids, weights, unit, np.int64(m), tail_dist, dist, words))
        end = runtime.record_event()
        seconds = runtime.elapsed_seconds(start, end)
        if index >= WARMUP:
            samples.append(seconds)
    if int(words[0].item()) != 1:
        raise RuntimeError("the relax pass improved no distance")
    if graph.m <= 1 << 20:  # a spot check of the tails on small graphs (cheap on the host)
        if not np.array_equal(tails.get(), graph.arc_sources()):
            raise RuntimeError("roofline_arc_tails computed wrong arc tails")
    del tails, tail_dist, dist, words
    median_s = statistics.median(samples)
    return {
        "relax_pass_ms": median_s * 1e3,
        "time_per_arc_ns": median_s / m * 1e9,
        "arcs": m,
        "relax_repeats": repeats,
        "relax_samples_ms": [s * 1e3 for s in samples],
        "upload_s": dgraph.upload_s,
    }


def graph_roofline(graph: CSRGraph, sources: Sequence[int], device: dict[str, Any],
                   cached_depths: Callable[[Sequence[int], Callable[[], list[dict[str, Any]]]],
                                           tuple[list[dict[str, Any]], bool]] | None = None,
                   relax: dict[str, Any] | None = None) -> dict[str, Any]:
    """The per-graph record: (b) on the device, (d) per source, and each source's floor.

    `cached_depths(sources, compute)`: where (d) comes from when it was computed before (the per-graph cache,
    run/per_graph.py: (records, whether they were cached)); `relax`: (b) as measured earlier on this graph and
    device (by an earlier run: device_cache.py). The floors are always worked out here, from this device's
    numbers."""
    relax = relax if relax is not None else measure_relax_pass(graph)
    started = time.perf_counter()
    if cached_depths is None:
        depths, cached = hop_depths(graph, sources), False
    else:
        depths, cached = cached_depths(sources, lambda: hop_depths(graph, sources))
    hop_depth_s = time.perf_counter() - started
    per_source = [source_floor(item, relax["time_per_arc_ns"], device.get("chain_latency_ns")) for item in depths]
    return {
        "available": True,
        **relax,
        "chain_latency_ns": device.get("chain_latency_ns"),
        "hop_depth_s": hop_depth_s,
        "hop_depths_cached": cached,
        "median_floor_s": median_floor(per_source),
        "per_source": per_source,
    }
