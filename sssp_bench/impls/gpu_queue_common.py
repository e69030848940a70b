"""What the queue-based GPU implementations share (the Workfront Sweep and the Near-Far Pile): the queue arrays,
the packed-counter shift, the wider status words, and the round loop driven from the device in batches, each batch
a replay of a CUDA graph captured in prepare.

Their rounds read their work from the status words (queue counters, the round base), so the host launches rounds
in batches (1, 2, 4, ... up to 16) and reads the status words back once per batch; rounds after the work runs out
do nothing. A Python launch costs more than a small round's kernel, so by default (`graphs`) each batch is one
replay of a CUDA graph captured in prepare: the kernels read their round as a base word plus a fixed argument, and
the graph ends by moving the base on (`advance_bump_base`, queue.cuh). With count_relaxations, plain launches and
one readback per round (for the per-round counts). All buffers are allocated once in prepare and reused.
"""

from __future__ import annotations

from typing import Any, Callable, ClassVar

import numpy as np

from ..errors import UnsupportedGraphError
from ..gpu import runtime
from ..gpu.queues import ADVANCE_BLOCK, packed_queue_shift, tiles_per_queue
from .gpu_common import CumulativeCounts, GpuSsspBase

BATCH_SIZES = (1, 2, 4, 8, 16)
"""Rounds launched between two readbacks of the status words: doubling up to 16 (one when counting)."""
STATUS_WORDS = 32
"""The status words of these kernels: common.cuh's 8, then each module's control words."""


class QueueAdvanceBase(GpuSsspBase):
    """What Workfront Sweep and Near-Far Pile share: the queue arrays, the packed-counter shift, the wider status
    words, the batched round loop and its CUDA graphs. Not registered (it has no `name`).

    Subclasses give `round_kernels(round_offset, count)`, the kernels of one round, `base_word`, the status
    word their kernels add to the round argument, and `advance_kernel`, whose occupancy sizes the grid."""

    stamp_arrays: ClassVar[int] = 1  # per-vertex int32 stamp arrays (near-far: near and far)
    status_words = STATUS_WORDS
    base_word: ClassVar[int]
    advance_kernel: ClassVar[str]  # the kernel whose occupancy sizes the grid

    def prepare_device(self) -> None:
        cp, graph = self.cp, self.graph
        n, m = graph.n, graph.m
        self.shift = packed_queue_shift(n, m)
        if self.shift is None:
            raise UnsupportedGraphError(
                f"{self.name}: n={n} and m={m} do not fit the packed 64-bit queue counter "
                f"(n must be below 2^{64 - max(1, int(m).bit_length())})"
            )
        self.tiles_per_queue = tiles_per_queue(m)
        self.vertices = cp.empty(2 * n, dtype=np.int32)
        self.starts = cp.empty(2 * n, dtype=np.int64)
        self.tile_first = cp.empty(2 * self.tiles_per_queue, dtype=np.int32)
        self.stamps = cp.empty(self.stamp_arrays * n, dtype=np.int32)
        self.host_degrees = np.asarray(graph.out_degrees())
        # one wave of resident blocks: a grid larger than the device holds leaves a partial wave that starts its
        # share of the tiles late
        self.grid = runtime.resident_grid(self.module.function(self.advance_kernel), ADVANCE_BLOCK)
        self.init_grid = runtime.blocks_for(self.stamp_arrays * n, ADVANCE_BLOCK, cap=4096)
        self._bump = self.module.function("advance_bump_base")
        self.batch_graphs = runtime.BatchGraphs(self.name)

    def round_kernels(self, round_offset: np.int64, count: np.int32) -> list[tuple[Any, tuple]]:
        raise NotImplementedError

    def capture_graphs(self) -> None:
        """With `graphs` (and not counting): one CUDA graph per batch size, each `size` rounds (round arguments
        0 .. size - 1) and the bump of the base word by `size`. Called at the end of a subclass's prepare."""
        if not self.params["graphs"] or self.counting():
            return

        def record(size: int) -> None:
            for offset in range(size):
                for kernel, args in self.round_kernels(np.int64(offset), np.int32(0)):
                    runtime.captured_launch(kernel, self.grid, ADVANCE_BLOCK, args)
            runtime.captured_launch(self._bump, 1, 32, (self.words, np.int32(self.base_word), np.int64(size)))

        self.batch_graphs.capture(BATCH_SIZES, record)

    def launch_batch(self, first_round: int, size: int, count: np.int32) -> None:
        """Rounds first_round .. first_round + size - 1: a graph replay, or plain checked launches."""
        if self.batch_graphs:
            self.batch_graphs.replay(size)
            return
        for round_index in range(first_round, first_round + size):
            for kernel, args in self.round_kernels(np.int64(round_index), count):
                runtime.launch(kernel, self.grid, ADVANCE_BLOCK, args)

    def drive_rounds(self, source: int, finished: Callable[[np.ndarray, int], bool], rounds_word: int,
                     queue_word: Callable[[int], int], cap: int, at_cap: Callable[[int], None]):
        """Launch rounds 0, 1, ... in batches of 1, 2, 4, ... 16 until `finished(words, rounds launched)`.

        Returns (iterations = words[rounds_word], attempts, relaxations, frontier sizes). With counting, one
        round per batch; `queue_word(r)` is the index of round r's input queue counter. `at_cap(iterations)`
        is called (and must raise) when `cap` rounds with work did not finish.
        """
        counting = self.counting()
        count = np.int32(1 if counting else 0)
        counts = CumulativeCounts() if counting else None
        sizes: list[int] = []
        launched, batch = 0, 0
        while True:
            self.launch_batch(launched, BATCH_SIZES[batch], count)
            launched += BATCH_SIZES[batch]
            words = self.read_words(source)
            worked = int(words[rounds_word])
            if counts is not None:
                counts.add(words)
                sizes.append(int(words[queue_word(launched - 1)]) >> self.shift)
            if finished(words, launched):
                if counts is None:
                    return worked, [], [], []
                return worked, counts.attempts, counts.relaxations, sizes
            if worked >= cap:
                at_cap(worked)
            if not counting:
                batch = min(batch + 1, len(BATCH_SIZES) - 1)

    def teardown_device(self) -> None:
        self.vertices = self.starts = self.tile_first = self.stamps = None
        self.batch_graphs = None  # teardown may follow a prepare that failed before creating it
