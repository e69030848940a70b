"""What the CPU kernels share: how a CSRGraph (possibly read-only memmaps) becomes the plain arrays numba takes,
the compile-outside-timing trick, the source check, and the relax counters' form."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..graph.csr import CSRGraph

INT_UNREACHED = int(np.iinfo(np.int64).max)
"""The "unreached" sentinel of int64 distance arrays (integer-weighted and unweighted graphs)."""


class KernelArrays(NamedTuple):
    """A graph as numba kernel arguments: C-contiguous ndarrays (read-only when the graph's are)."""

    row_offsets: np.ndarray   # int64[n + 1]
    column_ids: np.ndarray    # int32[m]
    weights: np.ndarray       # int32[m] or float32[m]; int32[0] when unit_weights
    unit_weights: bool        # True for an unweighted graph: every arc weighs 1, `weights` is unused

    @property
    def n(self) -> int:
        return len(self.row_offsets) - 1

    @property
    def float_weights(self) -> bool:
        return self.weights.dtype.kind == "f"

    def new_distances(self) -> tuple[np.ndarray, int | float]:
        """A fresh all-unreached distance array and its sentinel: float64/inf for float weights, else int64.

        Integer weights accumulate in int64: a path of up to 2^31 arcs of int32 weights cannot overflow it.
        """
        if self.float_weights:
            return np.full(self.n, np.inf, dtype=np.float64), np.inf
        return np.full(self.n, INT_UNREACHED, dtype=np.int64), INT_UNREACHED


def kernel_arrays(graph: CSRGraph) -> KernelArrays:
    """The graph's arrays for the kernels, copied only when they are not already contiguous with the right dtype.

    `np.ascontiguousarray` also turns a memmap into a plain ndarray view, keeping it read-only.
    """
    row_offsets = np.ascontiguousarray(graph.row_offsets, dtype=np.int64)
    column_ids = np.ascontiguousarray(graph.column_ids, dtype=np.int32)
    if graph.weights is None:
        return KernelArrays(row_offsets, column_ids, np.zeros(0, dtype=np.int32), True)
    weights = np.ascontiguousarray(graph.weights)
    if weights.dtype.kind == "f":
        weights = np.ascontiguousarray(weights, dtype=np.float32)
    else:
        weights = np.ascontiguousarray(weights, dtype=np.int32)
    return KernelArrays(row_offsets, column_ids, weights, False)


def tiny_graph_like(arrays: KernelArrays) -> KernelArrays:
    """A 2-vertex graph (0 -> 1, 1 -> 0, weight 1) whose arrays have exactly the numba types of `arrays`.

    Running a kernel on it in `prepare` compiles (or loads from numba's cache) the specialisation that solve()
    will use: numba specialises on dtype, layout and read-only-ness, so a memmapped graph needs its own.
    """

    def like(array: np.ndarray, values: list) -> np.ndarray:
        tiny = np.array(values, dtype=array.dtype)
        tiny.flags.writeable = array.flags.writeable
        return tiny

    weights = like(arrays.weights, [] if arrays.unit_weights else [1, 1])
    row_offsets = like(arrays.row_offsets, [0, 1, 2])
    return KernelArrays(row_offsets, like(arrays.column_ids, [1, 0]), weights, arrays.unit_weights)


def check_source(graph: CSRGraph, source: int) -> int:
    """`source` as an int, or a ValueError naming the graph's vertex range."""
    if not 0 <= int(source) < graph.n:
        raise ValueError(f"source {source} is not a vertex of {graph.name or 'the graph'} (n={graph.n})")
    return int(source)


def relax_counters(attempts, relaxations) -> dict:
    """The count_relaxations counters from per-iteration attempt and relaxation arrays (numpy)."""
    return {
        "relax_attempts": int(attempts.sum()), "relaxations": int(relaxations.sum()),
        "relax_attempts_per_iteration": attempts.tolist(), "relaxations_per_iteration": relaxations.tolist(),
    }
