"""delta-stepping-chain's protocol on the CPU (tests/delta_stepping_chain_model.py): warps interleaved at random at
every shared access reach the reference distances and end, whatever the delta (one bucket per distance to one
bucket), the stripes, the chain length, the warps and the entries a warp takes; every entry pushed is taken once."""

from __future__ import annotations

import random

import numpy as np
import pytest

from sssp_bench.graph.csr import from_arcs
from sssp_bench.graph.generators import generate
from sssp_bench.impls.delta_stepping_chain import ring_delta
from sssp_bench.run.verify import reference_distances

from delta_stepping_chain_model import INF, ChainMachine

GRAPHS = ["road:n=300,seed=1", "grid:rows=12,cols=15,seed=2", "rmat:n=256,m=2048,seed=3", "chain:n=80,seed=4",
          "random:n=200,m=1200,seed=5"]


def solve(graph, source, delta, stripes, chain, warps, take, seed):
    delta, slot_count = ring_delta(graph, delta)
    machine = ChainMachine(graph, source, delta, slot_count, stripes, chain, warps, take, random.Random(seed))
    distances = machine.run()
    return np.array([np.inf if d == INF else d for d in distances], dtype=np.float64), machine


@pytest.mark.parametrize("spec", GRAPHS)
@pytest.mark.parametrize("delta", [1, 0, 2**40], ids=["delta1", "auto", "huge"])
def test_random_schedules_reach_the_reference(spec, delta):
    graph = generate(spec)
    rng = random.Random(hash((spec, delta)) & 0xFFFF)
    for trial in range(3):
        source = rng.randrange(graph.n)
        stripes, chain, warps, take = rng.choice([1, 2, 3]), rng.choice([0, 1, 2**30]), rng.randint(1, 6), \
            rng.randint(1, 4)
        distances, machine = solve(graph, source, delta, stripes, chain, warps, take, seed=trial)
        expected = reference_distances(graph, source)
        assert np.array_equal(distances, expected), (spec, delta, stripes, chain, warps, take)
        counts = machine.counts
        assert counts["pops"] == counts["pushes"] + 1  # every entry pushed (and the source's) taken once
        assert all(not cells for cells in machine.cells)  # nothing left in the ring
        assert sum(machine.finished) == sum(machine.tails)


def test_zero_weight_cycles_and_unreachable_vertices():
    arcs = [(0, 1, 0), (1, 2, 0), (2, 0, 0), (0, 3, 7), (3, 4, 0), (4, 3, 0), (5, 0, 1)]
    graph = from_arcs(6, *zip(*arcs), name="zeros")
    for seed in range(10):
        distances, _ = solve(graph, 0, 1, stripes=2, chain=2**30, warps=4, take=3, seed=seed)
        assert np.array_equal(distances, reference_distances(graph, 0))
