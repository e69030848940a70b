"""What the CuPy GPU implementations share: the graph upload and memory check in prepare, the distance and
status-word arrays, the per-round readback, negative-cycle handling and counters.

Each GPU implementation module holds one `GpuSsspBase` subclass and its `.cu` file beside it. Its `solve`
launches `sssp_init`, then runs rounds on the current stream: each round's kernels, then one readback of the
status words (`common.cuh`: changed flags, the negative-cycle floor flag, counters, frontier size). The
runner times solve with CUDA events; implementations never time themselves.

Distances are int64 on the device with `DIST_INF` (INT64_MAX) as the unreached sentinel. A reachable negative
cycle is reported as `NegativeCycleError` in one of two ways: a round cap (no change after n rounds of
Bellman-Ford unless a negative cycle is reachable) or a distance falling to `DIST_FLOOR` (-2^62), which no
shortest distance can reach. float32 weights are refused with UnsupportedGraphError for now.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from ..graph.csr import CSRGraph
from ..errors import ConfigError, NegativeCycleError, UnsupportedGraphError
from ..gpu import runtime
from .base import Implementation, Parameter, SolveResult
from ..kernels.arrays import check_source

N_WORDS = 8
W_CHANGED0, W_CHANGED1, W_FLOOR, W_ATTEMPTS, W_RELAXATIONS, W_QUEUE = range(6)
"""Status word indices, as in common.cuh."""

BLOCK = 256

COOPERATIVE_OR_PLAIN = (("cooperative", (), True), ("plain", (), False))
"""`cooperative_modes` of a persistent kernel whose blocks wait on each other: a cooperative launch guarantees every
block is resident; where CuPy cannot launch cooperatively here, a plain launch, the grid sized to one resident wave
(the implementation checks it; its counter `launch` says which)."""


def persistent_grid(kernel, block: int, blocks_per_sm: int) -> int:
    """A persistent kernel's grid: `blocks_per_sm` blocks per SM, at most one resident wave (0: the whole wave)."""
    resident = runtime.resident_grid(kernel, block)
    if not blocks_per_sm:
        return resident
    sms = int(runtime.device_attributes().get("MultiProcessorCount", 1))
    return min(resident, blocks_per_sm * sms)


def check_blocks_per_sm(name: str, value: int) -> None:
    if value < 0:
        raise ConfigError(f"{name}: blocks_per_sm must be 0 (as many as fit) or positive, got {value}")


COUNT_RELAXATIONS = Parameter(
    bool, False,
    "count relax attempts and relaxations (distance improvements), in total and per iteration; off when timing",
)

GRAPHS = Parameter(
    bool, True,
    "replay each batch of rounds as a CUDA graph captured in prepare (a few us per round instead of a Python "
    "launch per kernel); plain launches when counting relaxations",
)


def packing_bounds(graph: CSRGraph) -> tuple[int, int]:
    """(low, high): bounds of every simple path's length from any vertex, for packed distance words (hbf's dedup64,
    near-far's packed_dedup).

    A simple path has at most n - 1 arcs, each out of a different vertex: (n - 1) x the extreme weight bounds
    it, and so does the sum over vertices of each one's most extreme out-weight; the tighter of the two is used.
    """
    n = graph.n
    if graph.weights is None or graph.m == 0:
        return 0, max(n - 1, 0) * (1 if graph.m else 0)
    weights = np.asarray(graph.weights)
    low = (n - 1) * min(0, int(weights.min()))
    high = (n - 1) * max(0, int(weights.max()))
    starts = np.asarray(graph.row_offsets[:-1])
    nonempty = np.diff(np.asarray(graph.row_offsets)) > 0
    if nonempty.any():
        row_max = np.maximum.reduceat(weights, starts[nonempty]).astype(np.int64)
        row_min = np.minimum.reduceat(weights, starts[nonempty]).astype(np.int64)
        high = min(high, int(np.clip(row_max, 0, None).sum()))
        low = max(low, int(np.clip(row_min, None, 0).sum()))
    return low, high


class GpuImplementation(Implementation):
    """What every CuPy implementation shares (not registered): availability, the graph upload with its memory
    check, the module compiled from the `.cu` beside the subclass's module, the status words and their pinned
    readback, and the lifecycle. Subclasses (GpuSsspBase, gpu_bfs_common.GpuBfsBase) add the result array."""

    device = "gpu"
    cu_file: ClassVar[str]               # the .cu beside the module
    name_expressions: ClassVar[tuple[str, ...]] = ()  # kernel template instances it looks up by name (NVRTC)
    per_vertex_bytes: ClassVar[int] = 0  # device bytes per vertex beyond the CSR
    per_arc_bytes: ClassVar[int] = 0     # device bytes per arc beyond the CSR
    status_words: ClassVar[int] = N_WORDS
    result_name: ClassVar[str]           # the attribute holding the result array (released in teardown)
    # A persistent kernel's ways to compile and launch its module, best first (runtime.load_cooperative_module:
    # every block resident, so blocks may wait on each other); None: a plain module (runtime.load_module).
    cooperative_modes: ClassVar[tuple[tuple[str, tuple[str, ...], bool], ...] | None] = None

    @classmethod
    def available(cls) -> tuple[bool, str]:
        return runtime.gpu_status()

    def upload(self, graph: CSRGraph) -> None:
        """The device graph (shared with the other implementations), this class's module and status words."""
        if graph.n < 1:
            raise UnsupportedGraphError(f"{self.name}: the graph has no vertices")
        self.cp = runtime.cupy_module()
        cu_path = Path(__file__).with_name(self.cu_file)
        if self.cooperative_modes is None:
            self.module = runtime.load_module(cu_path, self.name_expressions, self.module_options())
            self.launch_mode = "plain"
        else:  # launch_mode: the name of the mode that compiled here
            self.module, self.launch_mode = runtime.load_cooperative_module(cu_path, modes=self.cooperative_modes)
        self.dgraph = runtime.device_graph(graph, self.per_vertex_bytes, self.per_arc_bytes, who=self.name)
        self.words = self.cp.zeros(self.status_words, dtype=np.uint64)
        self.readback = runtime.HostReadback(self.words)

    def module_options(self) -> tuple[str, ...]:
        """Subclasses: compile options of a plain module beyond the shared ones (e.g. -D sizes)."""
        return ()

    def prepare_device(self) -> None:
        """Subclasses: kernels and working arrays beyond the result array."""

    def synchronize(self) -> None:
        runtime.cupy_module().cuda.get_current_stream().synchronize()

    def teardown(self) -> None:
        for name in (self.result_name, "words", "readback", "dgraph", "module"):
            if hasattr(self, name):
                setattr(self, name, None)
        self.teardown_device()
        self.graph = None

    def teardown_device(self) -> None:
        """Subclasses: drop their own device arrays."""


class GpuSsspBase(GpuImplementation):
    """Base of the CuPy Bellman-Ford family: int32 or unit weights, negative weights allowed."""

    kind = "sssp"
    negative_weights = True
    parameters: ClassVar[dict[str, Parameter]] = {"count_relaxations": COUNT_RELAXATIONS}
    per_vertex_bytes: ClassVar[int] = 8  # device bytes per vertex beyond the CSR (the int64 distances)
    result_name = "dist"
    # why float32 weights are refused, in the refusal's words
    integer_distances_why: ClassVar[str] = "the device distances are int64 and relaxed with 64-bit integer atomicMin"

    # -- prepare ---------------------------------------------------------------------------------------------

    def prepare(self, graph: CSRGraph) -> None:
        self.graph = graph
        self.refuse_float_weights(graph)
        self.upload(graph)
        self.dist = self.cp.empty(graph.n, dtype=np.int64)
        self._init_kernel = self.module.function("sssp_init")
        self.prepare_device()
        self.synchronize()

    def refuse_float_weights(self, graph: CSRGraph) -> None:
        """UnsupportedGraphError for a graph with float32 weights (the kernels solve integer distances)."""
        if graph.weights is not None and graph.weights.dtype.kind == "f":
            raise UnsupportedGraphError(
                f"{self.name}: float32 weights are not supported yet ({self.integer_distances_why}); use an "
                f"int32-weighted graph (e.g. weights: uniform)"
            )

    # -- solve helpers ---------------------------------------------------------------------------------------

    def weight_args(self) -> tuple[Any, np.int32]:
        return self.dgraph.weights, np.int32(1 if self.dgraph.unit_weights else 0)

    def init_distances(self, source: int) -> None:
        n = self.graph.n
        runtime.launch(self._init_kernel, runtime.blocks_for(n, BLOCK, cap=4096), BLOCK,
                       (self.dist, np.int64(n), np.int64(source), self.words))

    def read_words(self, source: int) -> np.ndarray:
        """The status words after a round; raises NegativeCycleError when a distance reached the floor."""
        words = self.readback.read()
        if words[W_FLOOR]:
            self.negative_cycle(source, f"a distance fell below {runtime.DIST_FLOOR}, which no shortest path reaches")
        return words

    def negative_cycle(self, source: int, how: str) -> None:
        raise NegativeCycleError(f"{self.name}: negative cycle reachable from source {source} ({how})")

    def counting(self) -> bool:
        return bool(self.params["count_relaxations"])

    def result(self, iterations: int, attempts: list[int], relaxations: list[int], **extra: Any) -> SolveResult:
        counters: dict[str, Any] = {"iterations": int(iterations)}
        if self.counting():
            counters.update(
                relax_attempts=int(sum(attempts)), relaxations=int(sum(relaxations)),
                relax_attempts_per_iteration=attempts, relaxations_per_iteration=relaxations, **extra,
            )
        return SolveResult(self.dist, runtime.DIST_INF, counters)

    def solve(self, source: int) -> SolveResult:
        source = check_source(self.graph, source)
        self.init_distances(source)
        return self.run_rounds(source)

    def run_rounds(self, source: int) -> SolveResult:
        raise NotImplementedError


class CumulativeCounts:
    """Per-iteration attempts and relaxations from the cumulative counters of the status words."""

    def __init__(self) -> None:
        self.attempts: list[int] = []
        self.relaxations: list[int] = []
        self._seen = (0, 0)

    def add(self, words: np.ndarray) -> None:
        attempts, relaxations = int(words[W_ATTEMPTS]), int(words[W_RELAXATIONS])
        self.attempts.append(attempts - self._seen[0])
        self.relaxations.append(relaxations - self._seen[1])
        self._seen = (attempts, relaxations)


def run_changed_flag_rounds(implementation: GpuSsspBase, source: int, launch_round) -> SolveResult:
    """Rounds until one changes nothing: `launch_round(parity)` launches a round that sets
    words[W_CHANGED0 + parity] on a change and zeroes the other parity's word. A change in round n means a
    reachable negative cycle (n - 1 rounds settle every shortest path of a graph without one)."""
    n = implementation.graph.n
    counts = CumulativeCounts() if implementation.counting() else None
    for round_index in range(n):
        parity = round_index & 1
        launch_round(np.int32(parity))
        words = implementation.read_words(source)
        if counts is not None:
            counts.add(words)
        if not words[W_CHANGED0 + parity]:
            return implementation.result(round_index + 1, *(
                (counts.attempts, counts.relaxations) if counts else ([], [])))
    implementation.negative_cycle(source, f"distances still changed in round {n} of n={n}")
    raise AssertionError("unreachable")
