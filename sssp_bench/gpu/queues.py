"""Sizes of the load-balanced vertex queues (`queue.cuh`, `advance.cuh` in this folder), for the host side.

A queue entry carries the exclusive prefix sum of the queue's out-degrees, and one 64-bit counter packs the
entries and the arcs (entries << shift | arcs), so one atomicAdd reserves both; every ADVANCE_TILE queue arcs have
a tile-owner slot. The Workfront Sweep, the Near-Far Pile and H-BF's grid expansion size their queues here.
"""

from __future__ import annotations

ADVANCE_BLOCK = 256
"""Threads per block of the advance kernels and of every kernel that pushes into a queue (ADVANCE_BLOCK)."""
TILE = 512
"""Queue arcs per advance tile (ADVANCE_TILE = ADVANCE_BLOCK x ADVANCE_ITEMS)."""


def packed_queue_shift(n: int, m: int) -> int | None:
    """The shift of the packed queue counter (entries << shift | arcs): the bit length of m, since a queue holds
    each vertex at most once (at most m arcs); None when n entries do not fit above it in 64 bits."""
    shift = max(1, int(m).bit_length())
    return shift if int(n) < 2 ** (64 - shift) else None


def tiles_per_queue(m: int) -> int:
    """Tile-owner slots one queue needs: one per TILE arcs of at most m, and the one past the last tile."""
    return int(m) // TILE + 2
