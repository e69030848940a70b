"""Benchmark (not a test): bfs4k's speed per technique on large graphs; a table of median ms and MTEPS.

    python benchmarks/bfs4k_probe.py [--graphs kron,random,rmat,road,grid] [--sources 20] [--configs all-on,...]

A configuration is a name of CONFIGS or knobs written out, "k1=32;k4=0;k2=0.3".

Graphs: kron scale 21 (edge factor 16), random n=2M m=128M (--random-m), rmat n=3M m=20M, road n=2M, grid 1414 x 1414
(road and grid: about 2000 levels of 1000-2000 vertices, the single-block kernel's case), or any catalog name
(rmat.2Mv.128Me, kron_g500-logn20, ...): a generated entry's spec, a downloaded one's stand-in. For each
configuration (all techniques on, all off, each technique alone), one prepare, a warm-up solve, then the median
CUDA-event time of `solve` over the sources (the same sources for every configuration: random vertices with
out-arcs; 5 of them where the warm-up solve took over 50 ms). MTEPS = arcs out of reached vertices / time. One solve per configuration is checked with the device
certificate. Reference columns: the issue's roofline floor (one atomicMin pass over all arcs, 0.017 ns per arc
on an H200) and BFS-4K's Table 2 time on a GTX 780 scaled by memory bandwidth (/ 16.67), where the paper has a
comparable graph.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sssp_bench.datasets import catalog
from sssp_bench import impls
from sssp_bench.graph.generators import generate
from sssp_bench.gpu import certificate as device_certificate
from sssp_bench.gpu import runtime
from sssp_bench.impls.bfs4k import SWITCHES

FLOOR_NS_PER_ARC = 0.017
PAPER_SCALED_MS = {"kron": 34.4 / 16.67, "random": 52.0 / 16.67, "rmat": 43.4 / 16.67, "road": 5.5 / 16.67,
                   "kron_g500-logn20": 34.4 / 16.67, "random.2Mv.128Me": 52.0 / 16.67,
                   "rmat.2Mv.128Me": 43.4 / 16.67, "roadNet-CA": 5.5 / 16.67}
"""Table 2 (GTX 780) / 16.67: kron-g500-lon20, random.2Mv.128Me, rmat.2Mv.128Me, roadNet-CA (the nearest graphs
for the short names)."""

ALL_OFF = {**{switch: False for switch in SWITCHES}, "dynamic_parallelism": "off"}
CONFIGS = {
    "all-on": {},
    "all-on-child": {"dynamic_parallelism": "child"},
    "all-on-dp-off": {"dynamic_parallelism": "off"},
    "all-on-q4": {"local_queue": 4},
    "all-on-q16": {"local_queue": 16},
    "all-on-k4=0": {"k4": 0.0},
    "all-on-k4=1": {"k4": 1.0},
    "all-on-k5=0": {"k5": 0.0},
    "all-on-k5=2": {"k5": 2.0},
    "all-on-k1=8": {"k1": 8},
    "all-on-k1=16": {"k1": 16},
    "all-on-k1=32": {"k1": 32},
    "all-on-k1=32-k4=0": {"k1": 32, "k4": 0.0},
    "all-on-no-claim": {"heavy_claim": False},
    "all-on-k1=32-k4=0-no-claim": {"k1": 32, "k4": 0.0, "heavy_claim": False},
    "all-on-k1=16-k4=1": {"k1": 16, "k4": 1.0},
    "all-off": ALL_OFF,
    **{f"{switch}": {**ALL_OFF, switch: True} for switch in SWITCHES},
    "dp-cooperative": {**ALL_OFF, "dynamic_parallelism": "cooperative"},
    "dp-child": {**ALL_OFF, "dynamic_parallelism": "child"},
}


def config_params(name: str) -> dict:
    """A named configuration, else knobs written out: "k1=32;k4=0;k2=0.3" (bfs4k's parameter types)."""
    if name in CONFIGS:
        return CONFIGS[name]
    parameters = impls.get("bfs4k").parameters
    params = {}
    for item in name.split(";"):
        key, _, text = item.partition("=")
        kind = parameters[key].type
        params[key] = text.lower() in ("1", "true", "on") if kind is bool else kind(text) if kind is not str else text
    return params


def graph_spec(label: str, random_m: int) -> str:
    """A short name's generator spec, else the catalog entry's spec or stand-in."""
    short = {
        "kron": "kron:scale=21,seed=1",
        "random": f"random:n=2000000,m={random_m},seed=1",
        "rmat": "rmat:n=3000000,m=20000000,seed=1",
        "road": "road:n=2000000,seed=1",
        "grid": "grid:rows=1414,cols=1414,seed=1",
    }
    if label in short:
        return short[label]
    entry = catalog.lookup(label)
    return entry.spec or entry.stand_in


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", default="kron,random,rmat,road,grid")
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--sources", type=int, default=20)
    parser.add_argument("--random-m", type=int, default=128_000_000)
    args = parser.parse_args()
    cp = runtime.cupy_module()
    print(f"GPU: {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, {args.sources} sources, "
          f"median CUDA-event ms per solve")
    print(f"{'graph':<16} {'n':>8} {'m':>10} {'config':<26} {'ok':>3} {'median ms':>9} {'MTEPS':>7} {'levels':>6} "
          f"{'floor ms':>8} {'%floor':>6} {'paper/16.67':>11}")
    for label in args.graphs.split(","):
        spec = graph_spec(label, args.random_m)
        started = time.perf_counter()
        graph = generate(spec)
        generated_s = time.perf_counter() - started
        degrees = np.asarray(graph.out_degrees())
        rng = np.random.default_rng(1)
        candidates = np.flatnonzero(degrees > 0)
        sources = [int(s) for s in rng.choice(candidates, size=min(args.sources, len(candidates)), replace=False)]
        floor_ms = graph.m * FLOOR_NS_PER_ARC * 1e-6
        device_degrees = cp.asarray(degrees)
        print(f"# {label}: {spec} generated in {generated_s:.1f} s", flush=True)
        for name in args.configs.split(","):
            params = config_params(name)
            implementation = impls.get("bfs4k")(**params)
            try:
                implementation.prepare(graph)
            except Exception as error:  # noqa: BLE001 - a probe reports every failure and goes on
                print(f"{label:<16} {graph.n:>8} {graph.m:>10} {name:<26} prepare failed: {error}"[:200], flush=True)
                continue
            try:
                start = runtime.record_event()
                result = implementation.solve(sources[0])  # warm-up, and the certificate
                slow = runtime.elapsed_seconds(start, runtime.record_event()) > 0.05
                proof = device_certificate.certificate(graph, sources[0], result.distances, result.unreached, "bfs")
                times, teps, depths = [], [], []
                for source in sources[:5] if slow else sources:  # slow configurations: 5 sources
                    start = runtime.record_event()
                    result = implementation.solve(source)
                    end = runtime.record_event()
                    seconds = runtime.elapsed_seconds(start, end)
                    reached = result.distances != result.unreached
                    arcs = int(device_degrees[reached].sum())
                    times.append(seconds)
                    teps.append(arcs / seconds / 1e6)
                    depths.append(result.counters["iterations"])
                median_ms = statistics.median(times) * 1e3
                print(f"{label:<16} {graph.n:>8} {graph.m:>10} {name:<26} {'yes' if proof.ok else 'NO':>3} "
                      f"{median_ms:>9.3f} {statistics.median(teps):>7.0f} {int(statistics.median(depths)):>6} "
                      f"{floor_ms:>8.3f} {100 * floor_ms / median_ms:>5.0f}% "
                      f"{PAPER_SCALED_MS.get(label, float('nan')):>11.2f}", flush=True)
            except Exception as error:  # noqa: BLE001 - a probe reports every failure and goes on
                print(f"{label:<16} {graph.n:>8} {graph.m:>10} {name:<26} failed: {type(error).__name__}: {error}"[:300],
                      flush=True)
            finally:
                implementation.teardown()
        del graph
        runtime.release_device_graphs()
        device_certificate.release()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
