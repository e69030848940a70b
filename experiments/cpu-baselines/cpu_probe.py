"""Time the CPU baselines of issue 36 on one machine, outside the runner: the numbers in README.md's tables.

    python experiments/cpu-baselines/cpu_probe.py --datasets DIR [--graphs NY,Epinions,rmat] [--deltas 0,5000]
        [--threads 16] [--sources 5] [--repeat 3] [--skip dijkstra,bfs,delta] [--variants "fuse_limit=200;..."]
        [--scaling 1,2,4,8]

For each graph: scipy.sparse.csgraph.dijkstra (one core, on a prebuilt float64 CSR matrix), cpu-dijkstra,
cpu-delta-stepping at every delta asked (0: its rule) on `--threads` threads, in the `--variants` asked, and at the
first delta on each thread count of `--scaling` (one by default), cpu-bfs and cpu-bfs-parallel (on `--threads` and on one). Each time is the median over the sources of each source's
best of `--repeat` solves (solve() only: prepare is apart, as in the runner). Every solve of the first source is
checked against scipy's distances (BFS: against cpu-bfs's levels). The graphs are those of issue 36's table:
USA-road-d.NY (its own lengths), soc-Epinions1 and the catalog's rmat.3Mv.20Me with uniform weights in [1, 100).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numba
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra as scipy_dijkstra

from sssp_bench.graph.csr import read_csr
from sssp_bench.graph.generators import generate
from sssp_bench.graph.weights import apply_weights
from sssp_bench.impls import canonical_distances
from sssp_bench.impls.cpu_bfs import CpuBfs
from sssp_bench.impls.cpu_bfs_parallel import CpuBfsParallel
from sssp_bench.impls.cpu_delta_stepping import CpuDeltaStepping
from sssp_bench.impls.cpu_dijkstra import CpuDijkstra
from sssp_bench.kernels.atomics import threading_layer
from sssp_bench.kernels.delta_stepping import STAT_FRONTIER, STAT_FUSED

UNIFORM = "uniform:min=1,max=100,seed=1"


def load(label: str, datasets: Path):
    if label == "NY":
        return read_csr(datasets / "USA-road-d.NY.csr")
    if label == "Epinions":
        return apply_weights(read_csr(datasets / "soc-Epinions1.csr"), UNIFORM)
    if label == "rmat":
        return apply_weights(generate("rmat:n=3000000,m=20000000,directed=false,seed=1"), UNIFORM)
    return apply_weights(generate(label), UNIFORM)


def best_of(function, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def timed(implementation, graph, sources, repeat, expected=None):
    """(median ms, counters of the first source, ok) of an implementation over the sources."""
    implementation.prepare(graph)
    try:
        first = implementation.solve(sources[0])
        ok = True if expected is None else bool(np.array_equal(canonical_distances(first), expected))
        times = [best_of(lambda s=s: implementation.solve(s), repeat) for s in sources]
        return 1e3 * float(np.median(times)), first.counters, ok
    finally:
        implementation.teardown()


def report_delta_stepping(params, graph, sources, repeat, expected) -> None:
    """One cpu-delta-stepping line: the median time, and how evenly the workers shared the vertices of the last
    solve (the busiest worker's vertices over the mean)."""
    implementation = CpuDeltaStepping(**params)
    implementation.prepare(graph)
    try:
        first = implementation.solve(sources[0])
        ok = bool(np.array_equal(canonical_distances(first), expected))
        times = [best_of(lambda s=s: implementation.solve(s), repeat) for s in sources]
        stats = implementation.workspace.stats
        vertices = stats[:, STAT_FRONTIER] + stats[:, STAT_FUSED]
        spread = float(vertices.max() / max(vertices.mean(), 1))
        print(f"  cpu-delta-stepping {params}  {1e3 * float(np.median(times)):9.2f} ms  ok={ok}  busiest/mean "
              f"{spread:.2f}  reruns={implementation.workspace.reruns}  {short(first.counters)}", flush=True)
    finally:
        implementation.teardown()


def short(counters: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in counters.items() if not isinstance(v, list) and k != "iterations")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--datasets", type=Path, required=True)
    parser.add_argument("--graphs", default="NY,Epinions,rmat")
    parser.add_argument("--deltas", default="0")
    parser.add_argument("--fuse", default="")
    parser.add_argument("--threads", type=int, default=numba.config.NUMBA_NUM_THREADS)
    parser.add_argument("--sources", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip", default="")
    parser.add_argument("--variants", default="", help="more cpu-delta-stepping runs: k=v,k=v;k=v...")
    parser.add_argument("--scaling", default="1", help="thread counts for cpu-delta-stepping at the first delta")
    args = parser.parse_args()
    skip = set(args.skip.split(",")) - {""}
    print(f"cores {os.cpu_count()}, numba {numba.__version__} threads {numba.config.NUMBA_NUM_THREADS}, layer "
          f"{threading_layer()}, --threads {args.threads}", flush=True)
    for label in args.graphs.split(","):
        start = time.perf_counter()
        graph = load(label, args.datasets)
        degrees = np.diff(graph.row_offsets)
        rng = np.random.default_rng(1)
        sources = [int(s) for s in rng.choice(np.flatnonzero(degrees > 0), args.sources, replace=False)]
        matrix = sp.csr_matrix((graph.weights_or_ones().astype(np.float64), np.asarray(graph.column_ids),
                                np.asarray(graph.row_offsets)), shape=(graph.n, graph.n))
        expected = scipy_dijkstra(matrix, indices=sources[0])
        print(f"== {label}: n {graph.n:,} m {graph.m:,} (loaded in {time.perf_counter() - start:.1f} s), "
              f"sources {sources}", flush=True)
        if "dijkstra" not in skip:
            scipy_ms = 1e3 * float(np.median([best_of(lambda s=s: scipy_dijkstra(matrix, indices=s), args.repeat)
                                              for s in sources]))
            print(f"  scipy dijkstra            {scipy_ms:9.2f} ms", flush=True)
            ms, counters, ok = timed(CpuDijkstra(), graph, sources, args.repeat, expected)
            print(f"  cpu-dijkstra              {ms:9.2f} ms  {ms / scipy_ms:.2f}x scipy  ok={ok}  {short(counters)}",
                  flush=True)
        if "delta" not in skip:
            fuse_limits = [int(f) for f in args.fuse.split(",")] if args.fuse else [None]
            for delta in [int(d) for d in args.deltas.split(",")]:
                for fuse in fuse_limits:
                    params = {"delta": delta, "threads": args.threads}
                    if fuse is not None:
                        params["fuse_limit"] = fuse
                    report_delta_stepping(params, graph, sources, args.repeat, expected)
            for variant in filter(None, args.variants.split(";")):
                params = {"threads": args.threads}
                for pair in variant.split(","):
                    key, value = pair.split("=")
                    params[key] = bool(int(value)) if key == "hand_over" else int(value)
                report_delta_stepping(params, graph, sources, args.repeat, expected)
            for threads in [int(t) for t in args.scaling.split(",")]:
                report_delta_stepping({"delta": int(args.deltas.split(",")[0]), "threads": threads}, graph, sources,
                                      args.repeat, expected)
        if "bfs" not in skip:
            bfs = CpuBfs()
            bfs.prepare(graph)
            levels = canonical_distances(bfs.solve(sources[0]))
            bfs.teardown()
            ms, counters, ok = timed(CpuBfs(), graph, sources, args.repeat, levels)
            print(f"  cpu-bfs                   {ms:9.2f} ms  ok={ok}  iterations={counters['iterations']}", flush=True)
            for threads in (args.threads, 1):
                ms, counters, ok = timed(CpuBfsParallel(threads=threads), graph, sources, args.repeat, levels)
                print(f"  cpu-bfs-parallel threads={threads:<3} {ms:9.2f} ms  ok={ok}  {short(counters)}", flush=True)


if __name__ == "__main__":
    main()
