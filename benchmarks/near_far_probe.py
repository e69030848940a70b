"""Benchmark (not a test): where Near-Far Pile's time goes on a graph, against its roofline floor.

    python benchmarks/near_far_probe.py [--graph SPEC] [--sources 10] [--deltas 0,x4,x32,60] [--variants ...]

For each variant (workfront, near-far at each delta): the median CUDA-event solve time over the sources (warm-up
first, graph resident, fresh distances per solve), the rounds, and from a second counting pass the relax attempts
per reached arc (the work beyond one pass) and the splits. Every solve is compared with the CPU reference on the
first source. The floor is the roofline's relax pass (reached arcs x time per arc).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sssp_bench import impls, roofline  # noqa: E402
from sssp_bench.generators import generate  # noqa: E402
from sssp_bench.gpu import runtime  # noqa: E402
from sssp_bench.impls import canonical_distances  # noqa: E402
from sssp_bench.sources import pick_sources  # noqa: E402
from sssp_bench.verify import compare, reference_distances  # noqa: E402


def timed_solves(implementation, sources):
    cp = runtime.cupy_module()
    implementation.solve(sources[0])  # warm-up
    times, rounds = [], []
    for source in sources:
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        result = implementation.solve(source)
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end) * 1e-3)
        rounds.append(result.counters.get("iterations", 0))
    return times, rounds


def delta_value(graph, text: str) -> int:
    """An integer delta, or "xF": F x average weight / average out-degree (0: the implementation's default)."""
    if not text.startswith("x"):
        return int(text)
    average_weight = 1.0 if graph.weights is None else float(np.mean(graph.weights, dtype=np.float64))
    return max(1, round(float(text[1:]) * average_weight * graph.n / max(graph.m, 1)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", action="append", default=None)
    parser.add_argument("--sources", type=int, default=10)
    parser.add_argument("--deltas", default="0")
    parser.add_argument("--workfront", action="store_true")
    args = parser.parse_args()
    graphs = args.graph or ["rmat:n=3000000,m=20000000,directed=false,seed=1",
                            "random:n=2000000,m=128000000,directed=false,seed=1"]
    print(f"{'graph':<10} {'variant':<16} {'median ms':>9} {'floor ms':>8} {'eff':>6} {'rounds':>6} "
          f"{'attempts/arc':>12} {'splits':>6}")
    for spec in graphs:
        graph = generate(spec)
        sources = pick_sources(graph, args.sources, seed=1)
        reached_arcs = []
        degrees = graph.out_degrees()
        expected = reference_distances(graph, sources[0])
        reached_arcs = int(degrees[np.isfinite(expected)].sum())
        per_arc_s = roofline.measure_relax_pass(graph)["time_per_arc_ns"] * 1e-9
        floor = reached_arcs * per_arc_s
        variants = [("workfront", {})] if args.workfront else []
        variants += [("near-far", {"delta": delta_value(graph, delta)}) for delta in args.deltas.split(",")]
        for name, params in variants:
            implementation = impls.get(name)(**params)
            implementation.prepare(graph)
            assert compare(expected, canonical_distances(implementation.solve(sources[0]))).ok
            times, rounds = timed_solves(implementation, sources)
            implementation.teardown()
            counting = impls.get(name)(count_relaxations=True, **params)
            counting.prepare(graph)
            counters = counting.solve(sources[0]).counters
            counting.teardown()
            median = statistics.median(times)
            label = name if name == "workfront" else f"nf d={counters.get('delta')}"
            print(f"{spec.split(':')[0]:<10} {label:<16} {median * 1e3:>9.3f} {floor * 1e3:>8.3f} "
                  f"{floor / median:>6.1%} {statistics.median(rounds):>6.0f} "
                  f"{counters['relax_attempts'] / max(reached_arcs, 1):>12.2f} {counters.get('splits', 0):>6}",
                  flush=True)
        runtime.release_device_graphs()
    return 0


if __name__ == "__main__":
    sys.exit(main())
