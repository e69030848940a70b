"""The shortest-path certificate on the device: `verify.certificate`'s checks on a CuPy distance array.

The runner uses it for every solve whose distances come back as a CuPy array (`supports` says when it
applies; otherwise the host certificate runs on the canonical copy). It checks, on the implementation's own
array (int64 or int32, with the implementation's own "unreached" sentinel) and the shared device graph:

  1. BFS levels: every reached level is >= 0 (integers are whole numbers already);
  2. d[source] == 0;
  3. no arc can still be relaxed (an arc from a reached u with v unreached, or d[u] + w < d[v]);
  4. every reached vertex other than the source has a tight in-arc d[u] + w == d[v] from a reached u != v;
  5. where a reached arc weighs <= 0 (so a cycle of tight arcs can exist) and 2-4 hold: every reached vertex is
     reached from the source over tight arcs (`verify.certificate`'s condition 4, anchored the same way where no
     reached arc is negative, so that both count the same vertices).

Unreached vertices are exactly those holding the sentinel: condition 3 catches a sentinel where a path exists
and condition 4 a finite value where none does; condition 5 a value that only a cycle of weight-0 tight arcs
vouches for. The kernels (`certificate.cu`) make one load-balanced pass over the arcs and one over the vertices
and leave counts and the first offender of each kind in a few words; the host reads those back once and words
the result exactly as `verify.certificate` does (same message, same counts), reading the few values a failure
message names. Its result also carries the reached vertices and their out-arcs (`CheckResult.reached`), which the
vertex pass counts anyway: the runner's reached counts (MTEPS) for a result that never leaves the device.
Condition 5 takes rounds of its own (a pass over the arcs choosing tight parents, ceil(log2 n)
pointer-jumping passes over the vertices, a settling pass; one readback each) and 12 bytes per vertex more.
Measured on an H100: R-MAT with 1M vertices and 16M arcs took 1 to 3 rounds (1.1 to 2.4 ms for the whole
certificate, against 0.4 ms without condition 5) with 1% to 25% weight-0 arcs, and 1 round with H-BF's negative
weights; a 1000 x 1000 grid with 25% weight-0 arcs 17 rounds (4.9 ms, against 0.2 ms). Graphs whose reached arcs
all weigh > 0 (and BFS levels) never pay for it.
Integer distances are compared exactly in int64 (the host twin converts to float64, which is exact below
2^53); float-weighted graphs and float distances are left to the host certificate and its tolerance.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..graph.csr import CSRGraph
from ..run.verify import CheckResult, certificate_verdict, format_value
from . import runtime

CU_FILE = Path(__file__).with_name("certificate.cu")
ARC_BLOCK = 256
ARC_TILE = 256 * 8  # ARC_BLOCK * ARC_ITEMS in arcs.cuh
VERTEX_BLOCK = 256
N_WORDS = 16
(C_BAD, C_FIRST_BAD, C_VIOLATIONS, C_FIRST_ARC, C_UNSUPPORTED, C_FIRST_UNSUPPORTED, C_REACHED, C_SOURCE_VALUE,
 C_REACHED_ARCS, C_LIGHT_ARCS, C_NEWLY_ROOTED, C_UNROOTED, C_FIRST_UNROOTED, C_NEGATIVE_ARCS) = range(14)
"""Result word indices, as in certificate.cu."""

_SUFFIX = {np.dtype(np.int64): "i64", np.dtype(np.int32): "i32"}


def is_device_array(distances: Any) -> bool:
    """True for a CuPy array (without importing CuPy where it is not already loaded)."""
    return type(distances).__module__.startswith("cupy") and hasattr(distances, "get")


def supports(graph: CSRGraph, distances: Any, unreached: Any, kind: str = "sssp") -> tuple[bool, str]:
    """(True, "") when the device certificate can check `distances`; else (False, why) and the host one must."""
    if not is_device_array(distances):
        return False, "the distances are not on the device"
    dtype = np.dtype(distances.dtype)
    if dtype not in _SUFFIX:
        return False, f"{dtype} distances are checked on the host"
    if kind == "sssp" and graph.weights is not None and graph.weights.dtype.kind == "f":
        return False, "float weights are checked on the host, with its tolerance"
    if isinstance(unreached, (bool, np.bool_)) or not isinstance(unreached, (int, np.integer)):
        return False, f"unreached sentinel {unreached!r} is not an integer"
    info = np.iinfo(dtype)
    if not info.min <= int(unreached) <= info.max:
        return False, f"unreached sentinel {unreached} does not fit {dtype}"
    return True, ""


TIGHT_PATH_BYTES_PER_VERTEX = 12
"""Condition 5's arrays: a 64-bit parent key and a 32-bit jump pointer per vertex (the rooted marks reuse the
tight-in-arc marks, which condition 4 no longer needs by then)."""


class _Workspace:
    """The module, the tight-in-arc marks, condition 5's arrays and the result words, kept between calls."""

    def __init__(self) -> None:
        self.module = None
        self.tight = None
        self.parent_key = None
        self.up = None
        self.words = None
        self.readback = None

    def get(self, n: int):
        cp = runtime.cupy_module()
        if self.module is None:
            self.module = runtime.load_module(CU_FILE)
        if self.tight is None or self.tight.size < max(n, 1):
            self.tight = None
            self.tight = cp.empty(max(n, 1), dtype=np.uint8)
        if self.words is None:
            self.words = cp.zeros(N_WORDS, dtype=np.uint64)
            self.readback = runtime.HostReadback(self.words)
        return self

    def tight_path_arrays(self, graph: CSRGraph):
        """(parent keys, jump pointers) for condition 5, allocated on first use, after a check that they fit."""
        cp = runtime.cupy_module()
        n = graph.n
        if self.parent_key is None or self.parent_key.size < max(n, 1):
            self.parent_key = self.up = None
            runtime.require_device_memory(graph, TIGHT_PATH_BYTES_PER_VERTEX, who="device certificate (tight paths)",
                                          include_graph=False)
            self.parent_key = cp.empty(max(n, 1), dtype=np.uint64)
            self.up = cp.empty(max(n, 1), dtype=np.int32)
        return self.parent_key, self.up

    def kernels(self, suffix: str):
        """(arc kernel, vertex kernel) for int64 ("i64") or int32 ("i32") distances."""
        module = self.module
        if suffix == "i64":
            return module.function("certificate_arcs_i64"), module.function("certificate_vertices_i64")
        return module.function("certificate_arcs_i32"), module.function("certificate_vertices_i32")

    def release(self) -> None:
        self.tight = self.parent_key = self.up = None


_workspace = _Workspace()


def release() -> None:
    """Drop the per-vertex marks (the runner calls it with the device graphs, between graphs)."""
    _workspace.release()


def certificate(graph: CSRGraph, source: int, distances: Any, unreached: Any, kind: str = "sssp") -> CheckResult:
    """`verify.certificate(graph, source, canonical(distances), kind)` computed on the device.

    `distances`: the implementation's CuPy array (int64 or int32), `unreached` its sentinel. Raises ValueError
    where `supports` says no.
    """
    if kind not in ("sssp", "bfs"):
        raise ValueError(f"kind must be 'sssp' or 'bfs', not {kind!r}")
    ok, why = supports(graph, distances, unreached, kind)
    if not ok:
        raise ValueError(f"device certificate: {why}")
    n, m = graph.n, graph.m
    what = "level" if kind == "bfs" else "distance"
    if tuple(distances.shape) != (n,):
        return CheckResult(False, f"{what}s have shape {tuple(distances.shape)}, expected ({n},) for n={n}")
    if not 0 <= source < n:
        return CheckResult(False, f"source {source} is not a vertex (n={n})")

    cp = runtime.cupy_module()
    dgraph = runtime.device_graph(graph, per_vertex_bytes=1, who="device certificate")
    work = _workspace.get(n)
    dist = cp.ascontiguousarray(distances)
    suffix = _SUFFIX[np.dtype(dist.dtype)]
    sentinel = np.int64(int(unreached))
    unit = np.int32(1 if kind == "bfs" or dgraph.unit_weights else 0)
    weights = dgraph.weights if not dgraph.float_weights else dgraph.weights.view(np.int32)  # never read (unit)
    runtime.launch(work.module.function("certificate_reset"), runtime.blocks_for(n, VERTEX_BLOCK, cap=4096),
                   VERTEX_BLOCK, (work.words, work.tight, np.int64(n)))
    kernel_arcs, kernel_vertices = work.kernels(suffix)
    runtime.launch(kernel_arcs, runtime.blocks_for(m, ARC_TILE), ARC_BLOCK, (
        dgraph.row_offsets, dgraph.column_ids, weights, unit, np.int64(n), np.int64(m), dist, sentinel,
        work.tight, work.words,
    ))
    runtime.launch(kernel_vertices, runtime.blocks_for(n, VERTEX_BLOCK, cap=4096), VERTEX_BLOCK, (
        dgraph.row_offsets, np.int64(n), np.int64(source), dist, sentinel, np.int32(1 if kind == "bfs" else 0),
        work.tight, work.words,
    ))
    words = work.readback.read().copy()
    # What the vertex pass counted as it read every distance: the row's reached counts, given with every verdict
    reached = (int(words[C_REACHED]), int(words[C_REACHED_ARCS]))

    def canonical(raw: int) -> float:
        return np.inf if raw == int(unreached) else float(raw)

    def value_at(vertex: int) -> float:
        return canonical(int(dist[vertex].item()))

    if words[C_BAD]:
        v = int(words[C_FIRST_BAD])
        return CheckResult(False, f"vertex {v}: level {format_value(value_at(v))} is not a whole number >= 0",
                           {"bad_values": int(words[C_BAD])}, reached)
    source_value = canonical(int(words.view(np.int64)[C_SOURCE_VALUE]))
    if source_value != 0:
        return CheckResult(False, f"vertex {source} (the source): {what} is {format_value(source_value)}, expected 0",
                           reached=reached)

    relax_violations = int(words[C_VIOLATIONS])
    violation = None
    if relax_violations:
        arc = int(words[C_FIRST_ARC])
        u = int(np.searchsorted(np.asarray(graph.row_offsets), arc, side="right")) - 1
        v = int(graph.column_ids[arc])
        w_arc = 1.0 if kind == "bfs" or graph.weights is None else float(graph.weights[arc])
        violation = (u, v, w_arc, value_at(u), value_at(v))
    unsupported = int(words[C_UNSUPPORTED])
    orphan = None
    if unsupported:
        v = int(words[C_FIRST_UNSUPPORTED])
        orphan = (v, value_at(v))
    unrooted, first_unrooted = 0, None
    if words[C_LIGHT_ARCS] and not relax_violations and not unsupported:
        anchored = not words[C_NEGATIVE_ARCS]
        unrooted, first = _tight_paths(work, graph, dgraph, dist, suffix, sentinel, unit, weights, source, anchored)
        first_unrooted = (first, value_at(first)) if unrooted else None
    verdict = certificate_verdict(n, kind, relax_violations, violation, unsupported, orphan, int(words[C_REACHED]),
                                  unrooted=unrooted, first_unrooted=first_unrooted)
    verdict.reached = reached
    return verdict


def _tight_paths(work: _Workspace, graph: CSRGraph, dgraph, dist, suffix: str, sentinel, unit, weights,
                 source: int, anchored: bool) -> tuple[int, int]:
    """Condition 5 in rounds (certificate.cu says how): (reached vertices left unrooted, the smallest of them, or
    -1). `anchored` (no reached arc is negative): the heads of tight arcs of weight > 0 are rooted from the start,
    as in the host's anchored search, so both count the same vertices."""
    n, m = graph.n, graph.m
    parent_key, up = work.tight_path_arrays(graph)
    rooted = work.tight  # the tight-in-arc marks, read by the vertex pass already, become the rooted marks
    module = work.module
    vertex_blocks = runtime.blocks_for(n, VERTEX_BLOCK, cap=4096)
    runtime.launch(module.function("tight_paths_reset"), vertex_blocks, VERTEX_BLOCK,
                   (rooted, parent_key, np.int64(n), np.int64(source)))
    if anchored:
        runtime.launch(module.function(f"tight_anchors_{suffix}"), runtime.blocks_for(m, ARC_TILE), ARC_BLOCK, (
            dgraph.row_offsets, dgraph.column_ids, weights, unit, np.int64(n), np.int64(m), dist, sentinel, rooted,
        ))
    jumps = max(1, (n - 1).bit_length())  # 2^jumps >= n: every pointer chain is followed to its end
    while True:
        runtime.launch(module.function(f"tight_parents_{suffix}"), runtime.blocks_for(m, ARC_TILE), ARC_BLOCK, (
            dgraph.row_offsets, dgraph.column_ids, weights, unit, np.int64(n), np.int64(m), dist, sentinel, rooted,
            parent_key,
        ))
        runtime.launch(module.function("tight_jump_init"), vertex_blocks, VERTEX_BLOCK,
                       (rooted, parent_key, up, np.int64(n), work.words))
        for _ in range(jumps):
            runtime.launch(module.function("tight_jump"), vertex_blocks, VERTEX_BLOCK, (up, np.int64(n)))
        runtime.launch(module.function(f"tight_settle_{suffix}"), vertex_blocks, VERTEX_BLOCK,
                       (np.int64(n), dist, sentinel, rooted, up, work.words))
        words = work.readback.read()
        unrooted, newly = int(words[C_UNROOTED]), int(words[C_NEWLY_ROOTED])
        if not unrooted:
            return 0, -1
        if not newly:  # a fixed point: no unrooted vertex has a tight in-arc from a rooted one
            return unrooted, int(words[C_FIRST_UNROOTED])

