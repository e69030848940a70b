"""Benchmark (not a test): where a bfs4k solve's levels go, next to the comparators' times on the same graph.

    python benchmarks/bfs4k_levels.py --graphs com-youtube,Gen-SmallWorld [--config "k1=32;k4=0"] [--sources 5]

For each graph (a catalog name: its spec or stand-in, or a short name of bfs4k_probe.py) and the first of the
sources a config with seed 1 draws (sssp_bench.sources.pick_sources), a table per level: the distinct vertices of
the level (from the levels array), the F entries bfs4k expanded there (duplicates included, counter
`frontier_sizes`) and their out-arcs (`arcs_per_level`), the distinct vertices' out-arcs, and the duplication
factor (arcs walked / distinct arcs). Then the median CUDA-event ms over those sources of bfs4k (counters off) and
of each comparator, so a level profile can be read against who wins.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bfs4k_probe import config_params, graph_spec  # noqa: E402

from sssp_bench import impls  # noqa: E402
from sssp_bench.graph.generators import generate  # noqa: E402
from sssp_bench.gpu import runtime  # noqa: E402
from sssp_bench.graph.sources import pick_sources  # noqa: E402

COMPARATORS = ("bfs-harish", "bfs-edge", "bfs-vwarp")


def median_ms(implementation, sources: list[int]) -> float:
    implementation.solve(sources[0])  # warm-up
    times = []
    for source in sources:
        start = runtime.record_event()
        implementation.solve(source)
        times.append(runtime.elapsed_seconds(start, runtime.record_event()))
    return statistics.median(times) * 1e3


def level_table(graph, degrees: np.ndarray, params: dict, source: int) -> None:
    implementation = impls.get("bfs4k")(**params, count_frontiers=True)
    implementation.prepare(graph)
    try:
        result = implementation.solve(source)
        levels = result.distances.get()
        counters = result.counters
    finally:
        implementation.teardown()
    reached = levels != result.unreached
    print(f"  source {source}: {int(reached.sum())} reached, {counters['iterations']} levels, "
          f"single-block levels {counters['single_block_levels']} in {counters['single_block_launches']} launches, "
          f"heavy list entries {counters['heavy_list_entries']}, child grids {counters['child_grids']}")
    print(f"  {'level':>5} {'distinct':>9} {'F entries':>9} {'dist. arcs':>10} {'arcs walked':>11} {'dup':>5}")
    for level, (entries, arcs) in enumerate(zip(counters["frontier_sizes"], counters["arcs_per_level"])):
        members = levels == level
        distinct_arcs = int(degrees[members].sum())
        factor = arcs / distinct_arcs if distinct_arcs else float("nan")
        print(f"  {level:>5} {int(members.sum()):>9} {entries:>9} {distinct_arcs:>10} {arcs:>11} {factor:>5.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", default="com-youtube,Gen-SmallWorld")
    parser.add_argument("--config", default="all-on", help="bfs4k knobs, as bfs4k_probe.py takes them")
    parser.add_argument("--sources", type=int, default=5)
    parser.add_argument("--vwarp", type=int, default=4, help="bfs-vwarp's warp size")
    args = parser.parse_args()
    params = config_params(args.config)
    for label in args.graphs.split(","):
        graph = generate(graph_spec(label, 128_000_000))
        degrees = np.asarray(graph.out_degrees(), dtype=np.int64)
        sources = pick_sources(graph, args.sources, seed=1)  # the first sources of a config run with seed 1
        print(f"# {label}: n {graph.n}, m {graph.m}, max out-degree {int(degrees.max())}, bfs4k {args.config}",
              flush=True)
        level_table(graph, degrees, params, sources[0])
        timings = []
        for name in ("bfs4k", *COMPARATORS):
            options = params if name == "bfs4k" else {"warp_size": args.vwarp} if name == "bfs-vwarp" else {}
            implementation = impls.get(name)(**options)
            implementation.prepare(graph)
            try:
                timings.append(f"{name} {median_ms(implementation, sources):.3f}")
            finally:
                implementation.teardown()
        print(f"  median ms over {len(sources)} sources: " + ", ".join(timings), flush=True)
        del graph
        runtime.release_device_graphs()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
