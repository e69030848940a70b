"""Block 0's level profile of delta-stepping-cluster on USA-road-d.NY (device machine; DATASETS folder as argv[1]):
for a few settings, the solve time (CUDA events, counting on) and where block 0's levels spent it."""
import sys
from pathlib import Path

import cupy

from sssp_bench import impls
from sssp_bench.datasets.resolve import load_graph
from sssp_bench.impls import canonical_distances
from sssp_bench.run.verify import compare, reference_distances

graph = load_graph("USA-road-d.NY", "USA-road-d.NY", "keep", Path(sys.argv[1])).graph
sources = [0, graph.n // 3, 2 * graph.n // 3]
references = {source: reference_distances(graph, source) for source in sources}
for params in ({}, {"delta": 60000}, {"delta": 60000, "lanes_per_vertex": 8}, {"delta": 60000, "cluster_size": 2},
               {"delta": 60000, "cluster_size": 1, "block": 1024}):
    implementation = impls.get("delta-stepping-cluster")(count_relaxations=True, **params)
    implementation.prepare(graph)
    implementation.solve(sources[0])  # warm-up
    for source in sources:
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        result = implementation.solve(source)
        end.record()
        end.synchronize()
        counters = result.counters
        ok = compare(references[source], canonical_distances(result)).ok
        print(f"{params} src {source}: {cupy.cuda.get_elapsed_time(start, end):.2f} ms {'ok' if ok else 'WRONG'} "
              f"levels {counters['levels']} pops {counters['pops']} barrier {counters['profile_barrier_ms']:.2f} "
              f"counts {counters['profile_counts_ms']:.2f} work(max warp) {counters['profile_work_ms']:.2f} ms")
    implementation.teardown()
