"""Benchmark (not a test): where Near-Far Pile's time goes on a graph, against its roofline floor.

    python benchmarks/near_far_probe.py [--graph SPEC] [--sources 10] [--deltas 0,x4,x32,60] [--workfront]
                                        [--refill 1,4096] [--rounds [--list-rounds]] [--define NAME=VALUE]

For each variant (workfront, near-far at each delta and each refill_arcs of --refill): the median CUDA-event
solve time over the sources (warm-up first, graph resident, fresh distances per solve), the rounds, and from a
second counting pass the relax attempts per reached arc (the work beyond one pass) and the splits. Every solve is
compared with the CPU reference on the first source. The floor is the roofline's relax pass (reached arcs x time
per arc).

--define: a -D for every kernel compile (an experiment, e.g. WF_MIN_BLOCKS=5).
--rounds: for the first source, each round alone (a one-round graph replay between two CUDA events, queued
behind a spinning kernel so the host's launch gaps are not timed), summed by the size of the round's input
queue in arcs: where the time of a solve goes, and what an empty round costs. --list-rounds: every round too.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sssp_bench import impls
from sssp_bench.run import roofline  # noqa: E402
from sssp_bench.graph.generators import generate  # noqa: E402
from sssp_bench.gpu import runtime  # noqa: E402
from sssp_bench.impls import canonical_distances  # noqa: E402
from sssp_bench.graph.sources import pick_sources  # noqa: E402
from sssp_bench.run.verify import compare, reference_distances  # noqa: E402


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


SPIN = r"""extern "C" __global__ void spin(long long cycles) {
    long long start = clock64(); while (clock64() - start < cycles) {} }"""
SIZE_BINS = (0, 512, 8192, 65536, 524288, 1 << 62)


def round_profile(name: str, params: dict, graph, source: int, list_rounds: bool = False) -> None:
    """Each round of one solve timed alone; printed as a histogram over the input queue's arcs (and with
    list_rounds, every round's input arcs and time in order)."""
    from sssp_bench.impls import workfront

    cp = runtime.cupy_module()
    spin = cp.RawKernel(SPIN, "spin")
    saved = workfront.BATCH_SIZES
    workfront.BATCH_SIZES = (1,)  # captured and replayed one round at a time
    try:
        implementation = impls.get(name)(**params)
        implementation.prepare(graph)
        implementation.solve(source)  # warm-up
        rounds: list[tuple[int, float]] = []  # (input arcs, us)
        launch_batch, read_words = implementation.launch_batch, implementation.read_words
        pending: dict = {}

        def timed_batch(first_round, size, count):
            words = implementation.readback.host  # the words as of the last readback: this round's input
            pending["arcs"] = input_arcs(implementation, words, first_round)
            spin((1,), (1,), (np.int64(200_000),))
            pending["start"], pending["end"] = cp.cuda.Event(), cp.cuda.Event()
            pending["start"].record()
            launch_batch(first_round, size, count)
            pending["end"].record()

        def timed_read(src):
            words = read_words(src)
            pending["end"].synchronize()
            rounds.append((pending["arcs"], cp.cuda.get_elapsed_time(pending["start"], pending["end"]) * 1e3))
            return words

        implementation.launch_batch, implementation.read_words = timed_batch, timed_read
        implementation.readback.host[:] = 0
        result = implementation.solve(source)
        implementation.teardown()
    finally:
        workfront.BATCH_SIZES = saved
    total = sum(us for _, us in rounds)
    print(f"  {name} {params}: {len(rounds)} rounds launched, {result.counters.get('iterations')} with work, "
          f"{total:.0f} us in all (the first round's input is unknown to the profile: counted as 0 arcs)")
    bins = [("empty", [us for arcs, us in rounds if arcs == 0])]
    for low, high in zip(SIZE_BINS, SIZE_BINS[1:]):
        bins.append((f"[{low + 1}, {high}]" if high < SIZE_BINS[-1] else f"> {low}",
                     [us for arcs, us in rounds if low < arcs <= high]))
    if list_rounds:
        print("    each round, input arcs:us  " + " ".join(f"{arcs}:{us:.0f}" for arcs, us in rounds))
    for label, inside in bins:
        if inside:
            print(f"    input arcs {label:<16} {len(inside):>4} rounds, {sum(inside):>8.0f} us, "
                  f"{statistics.median(inside):>7.1f} us median", flush=True)


def input_arcs(implementation, words: np.ndarray, round_index: int) -> int:
    """Arcs of round `round_index`'s input queue in the host copy of the words (near queue or workfront queue)."""
    if implementation.name == "near-far":
        from sssp_bench.impls.near_far import NF_NEAR, NF_SLOT0, NF_SLOT_WORDS
        packed = int(words[NF_SLOT0 + NF_SLOT_WORDS * (round_index % 3) + NF_NEAR])
    else:
        from sssp_bench.impls.workfront import WF_QUEUE0
        packed = int(words[WF_QUEUE0 + round_index % 3])
    return packed & ((1 << implementation.shift) - 1)


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
    parser.add_argument("--refill", default=str(impls.get("near-far").parameters["refill_arcs"].default),
                        help="refill_arcs values, comma-separated (default: near-far's)")
    parser.add_argument("--workfront", action="store_true")
    parser.add_argument("--rounds", action="store_true", help="time each round of the first source alone")
    parser.add_argument("--list-rounds", action="store_true", help="with --rounds: every round's arcs and time")
    parser.add_argument("--define", action="append", default=[], help="NAME=VALUE: a -D for every kernel")
    args = parser.parse_args()
    runtime.COMPILE_OPTIONS = (*runtime.COMPILE_OPTIONS, *(f"-D{define}" for define in args.define))
    graphs = args.graph or ["rmat:n=3000000,m=20000000,directed=false,seed=1",
                            "random:n=2000000,m=128000000,directed=false,seed=1"]
    print(f"{'graph':<10} {'variant':<20} {'median ms':>9} {'floor ms':>8} {'eff':>6} {'rounds':>6} "
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
        deltas = [delta_value(graph, delta) for delta in args.deltas.split(",")]
        near_far = [("near-far", {"delta": delta, "refill_arcs": int(refill)})
                    for delta in deltas for refill in args.refill.split(",")]
        if args.rounds:
            for name, params in variants + near_far:
                round_profile(name, params, graph, sources[0], args.list_rounds)
        variants += near_far
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
            label = name if name == "workfront" else f"nf d={counters.get('delta')} r={params['refill_arcs']}"
            print(f"{spec.split(':')[0]:<10} {label:<20} {median * 1e3:>9.3f} {floor * 1e3:>8.3f} "
                  f"{floor / median:>6.1%} {statistics.median(rounds):>6.0f} "
                  f"{counters['relax_attempts'] / max(reached_arcs, 1):>12.2f} {counters.get('splits', 0):>6}",
                  flush=True)
        runtime.release_device_graphs()
    return 0


if __name__ == "__main__":
    sys.exit(main())
