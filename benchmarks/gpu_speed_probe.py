"""Benchmark (not a test): the GPU Bellman-Ford family through the runner on two graphs; a table of median ms
and MTEPS per implementation (CUDA-event solve times, warm-up first, median over the sources).

    python benchmarks/gpu_speed_probe.py [--sources 20] [--output /tmp/gpu-probe] [--rmat-scale 20]

Graphs: R-MAT with 2^scale vertices and 16 x 2^scale arcs (default 2^20 / 2^24) and a 1000 x 1000 2-D grid,
uniform weights [1, 101). Every solve is verified by the runner (certificate; reference on 2 sources).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sssp_bench.run.config import parse_config  # noqa: E402
from sssp_bench.run.runner import start_run  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=int, default=20)
    parser.add_argument("--output", default="/tmp/gpu-probe")
    parser.add_argument("--rmat-scale", type=int, default=20)
    parser.add_argument("--grid", type=int, default=1000)
    parser.add_argument("--implementations", default="lonestar,bf-edge,bf-frontier,workfront,near-far")
    args = parser.parse_args()
    n = 2**args.rmat_scale
    text = f"""
        name: gpu-probe
        graphs:
          - {{graph: "rmat:n={n},m={16 * n},seed=1", label: rmat-2^{args.rmat_scale}}}
          - {{graph: "grid:rows={args.grid},cols={args.grid},seed=1", label: grid-{args.grid}x{args.grid}}}
        implementations: [{args.implementations}]
        sources: {{count: {args.sources}, seed: 1}}
        warmup: 1
        baseline: null
        time_limit: 120
        verification: {{reference_sources: 2}}
    """
    output = Path(args.output)
    config = parse_config(textwrap.dedent(text), str(output / "probe.yaml"), default_name="gpu-probe")
    config.output, config.datasets = output / "results", output / "datasets"
    outcome = start_run(config, show_progress=False, log=lambda message: print(message, file=sys.stderr))
    rows = [json.loads(line) for line in (outcome.run_dir / "rows.jsonl").read_text().splitlines()]
    manifest = json.loads((outcome.run_dir / "manifest.json").read_text())
    gpu = manifest["provenance"].get("gpu", {})
    print(f"\nGPU: {gpu.get('name')} (sm_{str(gpu.get('compute_capability', '')).replace('.', '')}), "
          f"{args.sources} sources, CUDA-event solve times, median over sources")
    print(f"{'graph':<16} {'n':>9} {'m':>10} {'implementation':<13} {'ok':>5} {'median ms':>10} {'MTEPS':>9} "
          f"{'iters':>6} {'e2e ms':>8}")
    for label, facts in manifest["graphs"].items():
        for variant in config.variants:
            solves = [row for row in rows if row["graph"] == label and row["variant"] == variant.name
                      and row["phase"] == "solve"]
            good = [row for row in solves if row["status"] == "ok"]
            if not good:
                statuses = sorted({row["status"] for row in rows if row["graph"] == label
                                   and row["variant"] == variant.name})
                print(f"{label:<16} {facts['n']:>9} {facts['m']:>10} {variant.name:<13} {0:>5} {statuses}")
                continue
            median_ms = statistics.median(row["time_s"] for row in good) * 1e3
            mteps = statistics.median(row["mteps"] for row in good)
            iterations = statistics.median(row["counters"].get("iterations", 0) for row in good)
            end_to_end = statistics.median(row["end_to_end_s"] for row in good) * 1e3
            print(f"{label:<16} {facts['n']:>9} {facts['m']:>10} {variant.name:<13} {len(good):>2}/{len(solves):<2} "
                  f"{median_ms:>10.2f} {mteps:>9.1f} {iterations:>6.0f} {end_to_end:>8.2f}")
    print(f"statuses: {dict(outcome.statuses)}")
    return 0 if outcome.statuses.keys() <= {"ok"} else 1


if __name__ == "__main__":
    sys.exit(main())
