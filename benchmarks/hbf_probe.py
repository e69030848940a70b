"""Speed probe for `hbf` (H-BF): median solve time over a few sources, with CUDA events, and MTEPS, for every
optimization on, each one alone, all off, some tuning variants, and workfront and lonestar for comparison. Run on
a GPU machine:

    python3 benchmarks/hbf_probe.py                       # the four default graphs
    python3 benchmarks/hbf_probe.py --graphs road --sources 5 --variants all-on,all-off
    python3 benchmarks/hbf_probe.py --graphs msdoor,flickr      # a catalog name: its synthetic stand-in,
                                                                # weighted as configs/hbf-table2.yaml weights it
    python3 benchmarks/hbf_probe.py --define WF_MIN_BLOCKS=5    # a -D for every kernel (an experiment)

MTEPS = arcs out of the vertices a source reaches / median solve time / 1e6 (the H-BF paper's Table 2 unit; its
H-BF row on a GTX 780: rmat.3Mv.20Me 201, USA-road-d.CAL 6.4). Not a benchmark run (no manifest, no
verification beyond a distance check against the first variant): use configs and the runner for that.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from sssp_bench.datasets import catalog
from sssp_bench.graph.generators import generate
from sssp_bench.gpu import runtime
from sssp_bench.impls import canonical_distances
from sssp_bench.impls import hbf as hbf_module
from sssp_bench.impls.hbf import HBF
from sssp_bench.impls import workfront as workfront_module
from sssp_bench.impls.lonestar import LoneStar
from sssp_bench.impls.workfront import WorkfrontSweep
from sssp_bench.graph.weights import apply_weights

GRAPHS = {
    "rmat": "rmat:n=3000000,m=20000000,directed=false,seed=1",    # H-BF's rmat.3Mv.20Me (GTGraph R-MAT shape)
    "random": "random:n=2000000,m=128000000,directed=false,seed=1",  # H-BF's random 2Mv.128Me (Table 3)
    "road": "road:n=2000000,seed=1",
    "kron": "kron:scale=21,seed=1",
}
OFF = {"edge_classification": False, "dedup64": False, "coalesced_enqueue": False, "virtual_warps": False,
       "cache_hints": False, "dynamic_parallelism": "off", "block_expansion": False,
       "grid_expansion": "off"}
PAPER = {"block_expansion": False, "grid_expansion": "off"}  # the paper's expansion: dynamic virtual warps
BLOCK = {"grid_expansion": "off"}  # the block expansion whatever the degrees (its tuning variants below)
VARIANTS = {
    "all-on": ("hbf", {}),
    "all-on-tdp64": ("hbf", {**BLOCK, "tdp": 64}),
    "all-on-tdp128": ("hbf", {**BLOCK, "tdp": 128}),
    "all-on-tdp256": ("hbf", {**BLOCK, "tdp": 256}),
    "all-on-tdp512": ("hbf", {**BLOCK, "tdp": 512}),
    "all-on-tdp1024": ("hbf", {**BLOCK, "tdp": 1024}),
    "all-on-child": ("hbf", {**BLOCK, "dynamic_parallelism": "child"}),
    "all-on-bps4": ("hbf", {**BLOCK, "blocks_per_sm": 4}),
    "all-on-bps5": ("hbf", {**BLOCK, "blocks_per_sm": 5}),
    "all-on-bps6": ("hbf", {**BLOCK, "blocks_per_sm": 6}),
    "all-on-bps8": ("hbf", {**BLOCK, "blocks_per_sm": 8}),
    "all-on-bps6-tdp1024": ("hbf", {**BLOCK, "blocks_per_sm": 6, "tdp": 1024}),
    "all-on-bps8-tdp1024": ("hbf", {**BLOCK, "blocks_per_sm": 8, "tdp": 1024}),
    "all-on-nographs": ("hbf", {"graphs": False}),
    "all-on-no-hints": ("hbf", {"cache_hints": False}),
    "all-on-no-coalesce": ("hbf", {"coalesced_enqueue": False}),
    "all-on-no-classify": ("hbf", {"edge_classification": False}),
    "paper": ("hbf", PAPER),
    "paper-child": ("hbf", {**PAPER, "dynamic_parallelism": "child"}),
    "paper-vpw-auto": ("hbf", {**PAPER, "vertices_per_vw": 0}),
    "paper-vpw4": ("hbf", {**PAPER, "vertices_per_vw": 4}),
    "paper-tdp256": ("hbf", {**PAPER, "tdp": 256}),
    "all-off": ("hbf", OFF),
    "+classification": ("hbf", {**OFF, "edge_classification": True}),
    "+dedup64": ("hbf", {**OFF, "dedup64": True}),
    "+coalesced": ("hbf", {**OFF, "coalesced_enqueue": True}),
    "+virtual-warps": ("hbf", {**OFF, "virtual_warps": True}),
    "+cache-hints": ("hbf", {**OFF, "cache_hints": True}),
    "+cooperative": ("hbf", {**OFF, "dynamic_parallelism": "cooperative"}),
    "+child": ("hbf", {**OFF, "dynamic_parallelism": "child"}),
    "+block": ("hbf", {**OFF, "block_expansion": True}),
    "+dedup64+grid": ("hbf", {**OFF, "dedup64": True, "grid_expansion": "on"}),
    "all-on-grid": ("hbf", {"grid_expansion": "on"}),
    "all-on-block": ("hbf", {"grid_expansion": "off"}),
    "all-on-grid-no-classify": ("hbf", {"grid_expansion": "on", "edge_classification": False}),
    "all-on-grid-no-hints": ("hbf", {"grid_expansion": "on", "cache_hints": False}),
    **{f"all-on-chunk{c}": ("hbf", {**BLOCK, "chunk_entries": c}) for c in (32, 64, 128)},
    **{f"all-on-chunk{c}-tdp1024": ("hbf", {**BLOCK, "chunk_entries": c, "tdp": 1024}) for c in (32, 64, 128)},
    "workfront": ("workfront", {}),
    "lonestar": ("lonestar", {}),
}
TABLE2_WEIGHTS = "uniform:min=1,max=101,seed=1"
"""configs/hbf-table2.yaml's weights, given to the catalog stand-ins."""
CLASSES = {"hbf": HBF, "workfront": WorkfrontSweep, "lonestar": LoneStar}


def pick_sources(graph, count: int, seed: int = 1) -> list[int]:
    """Sources with out-arcs, seeded."""
    candidates = np.flatnonzero(graph.out_degrees() > 0)
    rng = np.random.default_rng(seed)
    return [int(v) for v in rng.choice(candidates, size=min(count, len(candidates)), replace=False)]


def time_variant(name: str, params: dict, graph, sources: list[int], reference: dict | None):
    implementation = CLASSES[name](**params)  # not the registry: other modules may be mid-edit
    started = time.perf_counter()
    try:
        implementation.prepare(graph)
    except Exception as error:  # noqa: BLE001 - a probe reports and goes on
        return None, f"{type(error).__name__}: {str(error)[:160]}", None
    prepare_s = time.perf_counter() - started
    try:
        implementation.solve(sources[0])  # warm-up
        implementation.synchronize()
        times, results = [], {}
        for source in sources:
            start = runtime.record_event()
            result = implementation.solve(source)
            end = runtime.record_event()
            times.append(runtime.elapsed_seconds(start, end))
            distances = canonical_distances(result)
            results[source] = distances
            if reference is not None and not np.array_equal(reference[source], distances):
                return None, f"distances differ from the first variant's from source {source}", None
            iterations = result.counters.get("iterations")
        note = ""
        if name == "hbf":
            expansion = "grid expansion" if implementation.grid else "iteration kernel"
            blocks = implementation.grid_blocks if implementation.grid else implementation.iteration_blocks
            note = f"{expansion}: {blocks} blocks"
        return (statistics.median(times), prepare_s, iterations), note, results
    finally:
        implementation.teardown()


def work_profile(name: str, params: dict, graph, source: int, arcs: float) -> str:
    """One counted solve: relax attempts per reached arc and the frontier sizes (where the work of a solve is)."""
    implementation = CLASSES[name](**{**params, "count_relaxations": True})
    try:
        implementation.prepare(graph)
        counters = implementation.solve(source).counters
    finally:
        implementation.teardown()
    sizes = sorted(counters.get("frontier_sizes") or [0])
    attempts = counters.get("relax_attempts_per_iteration") or [0]
    busiest = sorted(range(len(attempts)), key=lambda i: -attempts[i])[:3]
    return (f"attempts/arc {counters['relax_attempts'] / max(arcs, 1):.2f}, frontier median {sizes[len(sizes) // 2]} "
            f"max {sizes[-1]}, busiest iterations " + ", ".join(f"#{i}: {attempts[i]}" for i in busiest))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", default=",".join(GRAPHS))
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--sources", type=int, default=10)
    parser.add_argument("--budget", type=float, default=1e9, help="seconds per graph; later variants are skipped after it")
    parser.add_argument("--road-sources", type=int, default=5, help="sources on the road graph (many iterations)")
    parser.add_argument("--random-m", type=int, default=128_000_000)
    parser.add_argument("--batch-sizes", default=None, help="hbf's iterations per batch, e.g. 1,2,4,8,16,32,64 "
                        "(the status words are read back once per batch)")
    parser.add_argument("--counters", action="store_true", help="also one counted solve per variant: attempts per "
                        "reached arc and frontier sizes")
    parser.add_argument("--define", action="append", default=[], help="NAME=VALUE: a -D for every kernel compile "
                        "(an experiment, e.g. HBF_CHUNK_ENTRIES=64)")
    parser.add_argument("--workfront-batch-sizes", default=None, help="workfront's rounds per batch, e.g. 16")
    arguments = parser.parse_args()
    if arguments.workfront_batch_sizes:
        workfront_module.BATCH_SIZES = tuple(int(size) for size in arguments.workfront_batch_sizes.split(","))
        print(f"workfront batch sizes: {workfront_module.BATCH_SIZES}")
    runtime.COMPILE_OPTIONS = (*runtime.COMPILE_OPTIONS, *(f"-D{define}" for define in arguments.define))
    if arguments.batch_sizes:
        hbf_module.BATCH_SIZES = tuple(int(size) for size in arguments.batch_sizes.split(","))
        print(f"hbf batch sizes: {hbf_module.BATCH_SIZES}")
    print(f"device: {runtime.gpu_status()[1]}")
    for label in arguments.graphs.split(","):
        started = time.perf_counter()
        if label in GRAPHS:
            spec = GRAPHS[label]
            if label == "random":
                spec = f"random:n=2000000,m={arguments.random_m},directed=false,seed=1"
            graph = generate(spec)
        else:  # a catalog graph's stand-in, with hbf-table2's weights
            spec = catalog.lookup(label).stand_in
            graph = apply_weights(generate(spec), TABLE2_WEIGHTS)
        print(f"\n{label}: {spec}  n={graph.n} m={graph.m}  (generated in {time.perf_counter() - started:.1f} s)")
        sources = pick_sources(graph, arguments.road_sources if label == "road" else arguments.sources)
        degrees = graph.out_degrees()
        reference, arcs = None, None
        began = time.perf_counter()
        print(f"  {'variant':<16} {'median ms':>10} {'MTEPS':>9} {'iters':>7} {'prepare s':>10}  note")
        for variant in arguments.variants.split(","):
            name, params = VARIANTS[variant]
            if time.perf_counter() - began > arguments.budget:
                print(f"  {variant:<16} skipped: the probe's --budget of {arguments.budget:.0f} s is spent")
                continue
            timing, note, results = time_variant(name, params, graph, sources, reference)
            if timing is None:
                print(f"  {variant:<16} {'-':>10} {'-':>9} {'-':>7} {'-':>10}  {note}")
                continue
            if reference is None:
                reference = results
                arcs = statistics.median(int(degrees[np.isfinite(results[s])].sum()) for s in sources)
            median_s, prepare_s, iterations = timing
            print(f"  {variant:<16} {median_s * 1e3:>10.2f} {arcs / median_s / 1e6:>9.1f} {iterations!s:>7} "
                  f"{prepare_s:>10.2f}  {note}", flush=True)
            if arguments.counters:
                print(f"  {'':<16} {work_profile(name, params, graph, sources[0], arcs)}", flush=True)
        runtime.release_device_graphs()


if __name__ == "__main__":
    main()
