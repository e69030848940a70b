"""`bfs-vwarp`: BFS with Hong et al.'s static virtual warps (PPoPP 2011), BFS-4K Table 2's "Static Virtual Warp
[5]" column.

bfs4k-bfs-kepler, related work: instead of a thread per vertex, "thread groups (which they call virtual warps)"
of typically 2, 4, 8, 16 or 32 threads explore the vertices, which eases Harish's workload imbalance; the size
is static and "has to be properly set depending on each graph characteristics". Table 2 reports, per graph, the
size that ran best (W1 on the road, mesh and most SNAP graphs, W2, W4 on rmat.2Mv.128Me and as-skitter, W16 on
random.2Mv.128Me, W32 on kron_g500-logn20), so the paper gives no single default; ours is 8.

Here: level-synchronous and topology-driven like bfs-harish (same level array, done flag, one status-word
readback per level; see bfs_harish.py), but `bfs_vwarp.cu` gives each vertex a virtual warp of `warp_size`
lanes (a power of two, 1 to 32; 1 is Harish's thread per vertex): the lanes all check the vertex's level, and
those of a frontier vertex stride over its arcs together (lane i takes arcs i, i + warp_size, ...). The grid
holds n x warp_size threads. Weights are ignored. Counters as bfs-harish's, plus `warp_size`.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ..errors import ConfigError
from ..gpu import runtime
from .base import Parameter, SolveResult
from .gpu_bfs_common import BLOCK, COUNT_FRONTIERS, GpuBfsBase, run_level_sweeps

WARP_SIZES = (1, 2, 4, 8, 16, 32)


class VirtualWarpBfs(GpuBfsBase):
    name = "bfs-vwarp"
    description = (
        "BFS with Hong et al.'s static virtual warps (CuPy/CUDA): topology-driven levels, a virtual warp of "
        "warp_size lanes per vertex striding over its arcs; BFS-4K Table 2's 'Static Virtual Warp' column."
    )
    parameters: ClassVar[dict[str, Parameter]] = {
        "count_frontiers": COUNT_FRONTIERS,
        "warp_size": Parameter(int, 8, "lanes per vertex: a power of two from 1 to 32 (BFS-4K Table 2 tunes it "
                                       "per graph)"),
    }
    cu_file = "bfs_vwarp.cu"

    @classmethod
    def validate_parameters(cls, params: dict[str, Any], where: str = "") -> dict[str, Any]:
        """As every implementation's, and warp_size must be 1, 2, 4, 8, 16 or 32 (checked by the constructor and
        when a config is parsed)."""
        values = super().validate_parameters(params, where)
        warp_size = values["warp_size"]
        if warp_size not in WARP_SIZES:
            prefix = f"{where}: " if where else ""
            raise ConfigError(f"{prefix}{cls.name} parameter 'warp_size' must be a power of two from 1 to 32, "
                              f"got {warp_size}")
        return values

    def prepare_device(self) -> None:
        self._level = self.module.function("bfs_vwarp_level")

    def run_levels(self, source: int) -> SolveResult:
        dgraph, warp_size = self.dgraph, self.params["warp_size"]
        grid = runtime.blocks_for(self.graph.n * warp_size, BLOCK)  # a virtual warp per vertex
        n, count = np.int64(self.graph.n), np.int32(1 if self.counting() else 0)
        warp_shift = np.int32(warp_size.bit_length() - 1)

        def launch_level(level: np.int32) -> None:
            runtime.launch(self._level, grid, BLOCK, (dgraph.row_offsets, dgraph.column_ids, n, self.levels, level,
                                                      warp_shift, self.words, count))

        result = run_level_sweeps(self, launch_level)
        result.counters["warp_size"] = int(warp_size)
        return result
