"""`delta-stepping`: the course project's GPU delta-stepping (course-bellman-ford-delta-stepping, section 3.2), one
persistent kernel per solve.

The paper's design, kept here: the graph (CSR) and the buckets stay on the GPU, and a single kernel, launched once
per solve as a cooperative grid of one wave of resident blocks, loops over the buckets with grid-wide barriers
between its steps; a current queue stands for the bucket being processed and two next queues take the relaxed
vertices, near (still in the bucket) and far (a later bucket); control words in global memory (queue sizes, the far
pile's least bucket, the settled list's size) let every block take the same decision after each barrier, with no
host round trip; pushes are warp-aggregated (ballot, one atomicAdd per warp for the popc, each lane at its rank);
duplicate pushes are filtered by membership maps tagged with a generation number (the phase, or the bucket) instead
of cleared; vertices of low degree are relaxed one per thread, those of more than `heavy_degree` arcs by a whole
warp striding over the adjacency.

What the paper leaves open, decided here (`delta_stepping.cu` has the step-by-step description):
- Light and heavy arcs as Meyer and Sanders have them: a phase relaxes the light arcs (weight <= delta) of the
  vertices new to the bucket; when a phase leaves the near queue empty, one heavy step relaxes the heavy arcs of
  every vertex the bucket settled (each once); the far pile's smallest pushed bucket is then opened (a split of
  the pile). "Near" and "far" are decided by the new distance's bucket: a light arc whose target lands beyond the
  bucket sends it to the far pile too. Each row's arcs are uploaded light first (kernels/delta_stepping.py's
  light_first, in prepare), so a phase reads only light arcs; without a heavy arc the shared device graph is used.
- The far pile holds a vertex at most once (a flag cleared when a split moves or drops it); a split keeps the
  entries of later buckets in the other pile and drops those already settled.
- Grid barriers: cooperative groups' grid sync (CuPy's `RawModule(enable_cooperative_groups=True)`, which compiles
  relocatable code linked with cudadevrt and launches with cuLaunchCooperativeKernel). Where NVRTC cannot include
  cooperative_groups.h, the module is compiled with a barrier of its own (DS_OWN_BARRIER, two status words),
  still launched cooperatively; where cooperative launch itself is unavailable, launched plainly with the grid sized
  to one resident wave. The counter `barrier` says which: "grid-sync", "own", or "own-plain-launch".

delta: the `delta` parameter, or with 0 the rule near-far and cpu-delta-stepping use (C x average arc weight /
average out-degree, C = 32 below average out-degree 5, else 4; kernels/delta_stepping.py says why).
heavy_degree (default 32, a warp's worth of arcs): a vertex with more arcs of the kind being relaxed is relaxed by
its whole warp. blocks_per_sm (default 0: one wave, as many as fit): fewer blocks make each grid barrier cheaper
(one block per SM: 12% to 13% faster on road graphs and grids, 45% slower on a dense random graph, on an H100).

Non-negative weights only (UnsupportedGraphError otherwise: a distance below the current bucket would not be final);
int32 or unit weights (float32 refused, as the other GPU implementations do). Distances int64, unreached INT64_MAX.
Counters: `iterations` (light phases plus heavy steps: the steps that relax arcs), `light_phases`, `heavy_steps`,
`splits`, `buckets` (opened with at least one vertex), `delta`, `heavy_degree`, `barrier`, `blocks` (the grid); with
count_relaxations, relax attempts (arcs examined) and relaxations (improvements), in total and per iteration.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ConfigError
from ..gpu import runtime
from ..graph.csr import CSRGraph
from ..kernels.arrays import check_source, kernel_arrays
from ..kernels.delta_stepping import HEAVY_DEGREE, check_delta, default_delta, light_first
from .base import Parameter, SolveResult
from .gpu_common import COUNT_RELAXATIONS, GpuSsspBase, check_blocks_per_sm, persistent_grid

DS_BLOCK = 256
DS_CUR0, DS_FAR0, DS_FARMIN0, DS_SETTLED0 = 8, 11, 14, 17
DS_LIGHT, DS_HEAVY, DS_SPLITS, DS_BUCKETS, DS_STUCK = 19, 20, 21, 22, 23
DS_WORDS = 32
"""Status words of delta_stepping.cu."""

BARRIER_MODES = (
    ("grid-sync", (), True),                     # cooperative_groups' grid.sync(), cooperative launch
    ("own", ("-DDS_OWN_BARRIER",), True),        # the kernel's own barrier, cooperative launch
    ("own-plain-launch", ("-DDS_OWN_BARRIER",), False),  # the same, a plain launch of one resident wave
)
"""How a persistent kernel's grid-wide barrier is built, best first (runtime.load_cooperative_module tries them in
turn)."""


def step_cap(n: int) -> int:
    """Steps after which a solve is declared stuck (a bug guard): a bucket's light phases are at most its vertices
    plus one, so light phases, heavy steps and splits together stay far below 8n."""
    return 8 * n + 64


class DeltaStepping(GpuSsspBase):
    name = "delta-stepping"
    description = (
        "The course project's GPU delta-stepping (CuPy/CUDA): one persistent cooperative kernel per solve looping "
        "over buckets with grid-wide barriers, a current queue and near/far next queues, light phases and a heavy "
        "step per bucket (Meyer & Sanders), control words in global memory, warp-aggregated enqueue, "
        "generation-tagged membership maps, a warp per heavy vertex. Non-negative weights."
    )
    negative_weights = False
    parameters = {
        "count_relaxations": COUNT_RELAXATIONS,
        "delta": Parameter(int, 0, "bucket width; 0: C x average weight / average out-degree, C = 32 when the "
                           "average out-degree is below 5, else 4"),
        "heavy_degree": Parameter(int, HEAVY_DEGREE, "a vertex with more arcs (of the kind being relaxed) than this "
                                  "is relaxed by a whole warp, the others by one thread each"),
        "blocks_per_sm": Parameter(int, 0, "resident blocks of 256 threads per SM; 0: as many as fit"),
    }
    cu_file = "delta_stepping.cu"
    cooperative_modes = BARRIER_MODES  # how the module's grid barrier is built, best first
    status_words = DS_WORDS
    # distances 8, light ends 8, two queues 4 + 4, two piles 4 + 4, settled list 4, three tags 4 + 4 + 4
    per_vertex_bytes = 48

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        check_delta(self.name, self.params["delta"])
        if self.params["heavy_degree"] < 0:
            raise ConfigError(f"{self.name}: heavy_degree must be 0 or positive, got {self.params['heavy_degree']}")
        check_blocks_per_sm(self.name, self.params["blocks_per_sm"])

    def prepare(self, graph: CSRGraph) -> None:
        self.refuse_negative_weights(graph)
        self.delta = int(self.params["delta"] or default_delta(graph))
        weights = graph.weights
        heavy = weights is not None and weights.dtype.kind != "f" and bool((weights > self.delta).any())
        self.per_arc_bytes = 8 if heavy else 0  # the light-first copy of the column ids and weights
        super().prepare(graph)

    def prepare_device(self) -> None:
        cp, graph, dgraph = self.cp, self.graph, self.dgraph
        n = graph.n
        light_end, columns, weights, heavy_arcs = light_first(kernel_arrays(graph), self.delta)
        self.has_heavy = heavy_arcs > 0
        if self.has_heavy:
            self.light_end = cp.asarray(light_end)
            self.columns = cp.asarray(columns)
            self.weights = cp.asarray(weights)
        else:  # every arc is light: the shared device graph as it is
            self.light_end = dgraph.row_offsets[1:]
            self.columns, self.weights = dgraph.column_ids, dgraph.weights
        self.queues = cp.empty(2 * n, dtype=np.int32)
        self.piles = cp.empty(2 * n, dtype=np.int32)
        self.settled = cp.empty(n, dtype=np.int32)
        self.near_tag = cp.empty(n, dtype=np.uint32)
        self.far_flag = cp.empty(n, dtype=np.int32)
        self.settled_tag = cp.empty(n, dtype=np.uint32)
        self._init = self.module.function("delta_stepping_init")
        self._solve = self.module.function("delta_stepping_solve")
        self.grid = persistent_grid(self._solve, DS_BLOCK, self.params["blocks_per_sm"])
        self.init_grid = runtime.stride_grid(self._init, n, DS_BLOCK)
        self.step_cap = step_cap(n)
        # per relaxing step: attempts and improvements (count_relaxations); a 2-entry dummy otherwise
        self.step_counts = cp.zeros(2 * self.step_cap if self.counting() else 2, dtype=np.uint64)

    def solve(self, source: int) -> SolveResult:
        source = check_source(self.graph, source)
        n = self.graph.n
        runtime.launch(self._init, self.init_grid, DS_BLOCK, (
            self.dist, self.near_tag, self.far_flag, self.settled_tag, self.queues, np.int64(n), np.int64(source),
            self.words))
        if self.counting():
            self.step_counts.fill(0)
        runtime.launch(self._solve, self.grid, DS_BLOCK, (
            self.dgraph.row_offsets, self.light_end, self.columns, self.weights,
            np.int32(1 if self.dgraph.unit_weights else 0), self.dist, self.queues, self.piles, self.settled,
            self.near_tag, self.far_flag, self.settled_tag, np.int64(n), np.int64(self.delta),
            np.int64(self.params["heavy_degree"]), np.int32(1 if self.has_heavy else 0), np.int64(self.step_cap),
            self.words, self.step_counts, np.int32(1 if self.counting() else 0)))
        words = self.read_words(source)
        if words[DS_STUCK]:
            raise RuntimeError(f"{self.name}: the solve from {source} did not finish in {self.step_cap} steps (a bug)")
        light, heavy = int(words[DS_LIGHT]), int(words[DS_HEAVY])
        counters: dict[str, Any] = {
            "iterations": light + heavy, "light_phases": light, "heavy_steps": heavy,
            "splits": int(words[DS_SPLITS]), "buckets": int(words[DS_BUCKETS]), "delta": self.delta,
            "heavy_degree": self.params["heavy_degree"], "barrier": self.launch_mode, "blocks": self.grid,
        }
        if self.counting():
            per_step = self.step_counts[: 2 * (light + heavy)].get().reshape(-1, 2).astype(np.int64)
            counters.update(
                relax_attempts=int(per_step[:, 0].sum()), relaxations=int(per_step[:, 1].sum()),
                relax_attempts_per_iteration=per_step[:, 0].tolist(),
                relaxations_per_iteration=per_step[:, 1].tolist(),
            )
        return SolveResult(self.dist, runtime.DIST_INF, counters)

    def teardown_device(self) -> None:
        self.light_end = self.columns = self.weights = None
        self.queues = self.piles = self.settled = self.near_tag = self.far_flag = self.settled_tag = None
        self.step_counts = None
