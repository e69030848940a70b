"""Benchmark (not a test): BFS-4K's Table 2 comparators (bfs-harish, bfs-vwarp at several warp sizes, bfs-edge)
on three large graphs; a table of the median BFS time (CUDA events around solve, one warm-up solve first) and
MTEPS over the same sources for every variant, every result checked against cpu-bfs.

    python benchmarks/bfs_comparators_probe.py [--sources 10] [--graphs "kron:scale=20;road:n=2000000"]

Run it with the package importable (pip install -e ., or PYTHONPATH=.).

MTEPS counts the arcs out of reached vertices (the runner's `reached_arcs`) per microsecond, median over sources.
Sources: random vertices with out-arcs (seed 1), the same for every variant.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from sssp_bench import impls
from sssp_bench.graph.generators import generate
from sssp_bench.gpu import runtime
from sssp_bench.impls.cpu_bfs import CpuBfs

GRAPHS = "kron:scale=20;rmat:n=3000000,m=20000000,seed=1;road:n=2000000"
VARIANTS = [("bfs-harish", {}), ("bfs-vwarp", {"warp_size": 4}), ("bfs-vwarp", {"warp_size": 8}),
            ("bfs-vwarp", {"warp_size": 32}), ("bfs-edge", {})]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=int, default=10)
    parser.add_argument("--graphs", default=GRAPHS, help="generator specs separated by ';'")
    args = parser.parse_args()
    ok, device = runtime.gpu_status()
    if not ok:
        print(f"no GPU: {device}")
        return 1
    print(f"GPU: {device}; {args.sources} sources, CUDA-event solve times (median), 1 warm-up solve")
    print(f"{'graph':<34} {'n':>8} {'m':>9} {'variant':<13} {'median ms':>10} {'MTEPS':>8} {'levels':>6} {'ok':>5}")
    failures = 0
    for spec in args.graphs.split(";"):
        started = time.perf_counter()
        graph = generate(spec)
        degrees = graph.out_degrees()
        rng = np.random.default_rng(1)
        sources = [int(v) for v in rng.choice(np.flatnonzero(degrees > 0), size=args.sources, replace=False)]
        cpu = CpuBfs()
        cpu.prepare(graph)
        expected = {source: cpu.solve(source).distances for source in sources}  # int32, -1 unreached
        reached_arcs = {source: int(degrees[expected[source] >= 0].sum()) for source in sources}
        print(f"# {spec}: generated and cpu-bfs levels in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        for name, params in VARIANTS:
            label = name if not params else f"{name}[{params['warp_size']}]"
            implementation = impls.get(name)(**params)
            implementation.prepare(graph)
            try:
                implementation.solve(sources[0])  # warm-up
                times, mteps, good, depths = [], [], 0, []
                for source in sources:
                    start = runtime.record_event()
                    result = implementation.solve(source)
                    end = runtime.record_event()
                    seconds = runtime.elapsed_seconds(start, end)
                    levels = result.distances.get()
                    cpu_levels = expected[source]
                    good += bool(np.array_equal(np.where(levels == result.unreached, -1, levels), cpu_levels))
                    times.append(seconds)
                    mteps.append(reached_arcs[source] / seconds / 1e6)
                    depths.append(result.counters["iterations"])
            finally:
                implementation.teardown()
            failures += len(sources) - good
            print(f"{spec:<34} {graph.n:>8} {graph.m:>9} {label:<13} {statistics.median(times) * 1e3:>10.2f} "
                  f"{statistics.median(mteps):>8.1f} {statistics.median(depths):>6.0f} {good:>2}/{len(sources):<2}")
        runtime.release_device_graphs()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
