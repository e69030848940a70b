"""How much faster two Dask workers finish a config than one: `run CONFIG --workers 1` (one shard) against
`--workers 2` (two shards), alternated, each timed from the command's start to its merged run (the issue's target:
two shards on two GPUs in at most 0.55x the time of one).

    python experiments/harness/workers_speedup.py [--config configs/quick.yaml] [--repeats 3] [--workers 2]

On a machine without a GPU the workers are CPU processes running the config's CPU implementations, and the answer
is only as clean as the machine is idle: the load average before each run is printed beside it. The graphs are
generated once before the first timed run, so no run pays for that. Results go under a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path


def timed_run(config: Path, workers: int, run_id: str, output: Path, datasets: Path) -> tuple[float, list[float]]:
    """Wall seconds of one `run --workers N`, and each shard's own seconds (its manifest's start to finish)."""
    command = [sys.executable, "-m", "sssp_bench.cli", "run", str(config), "--workers", str(workers),
               "--run-id", run_id, "--output", str(output), "--datasets", str(datasets), "--no-progress"]
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - started
    shards = []
    for manifest_path in sorted((output / run_id / "shards").glob("*/manifest.json")):
        manifest = json.loads(manifest_path.read_text())
        shards.append((datetime.fromisoformat(manifest["finished"])
                       - datetime.fromisoformat(manifest["started"])).total_seconds())
    return wall, shards


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=Path("configs/quick.yaml"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2, help="the many-worker side (the other is one worker)")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        output, datasets = Path(folder) / "results", Path(folder) / "datasets"
        timed_run(arguments.config, 1, "warm-up", output, datasets)  # generates the graphs, warms numba's cache
        walls: dict[int, list[float]] = {1: [], arguments.workers: []}
        for repeat in range(arguments.repeats):
            for workers in (1, arguments.workers):
                load = os.getloadavg()[0]
                wall, shards = timed_run(arguments.config, workers, f"w{workers}-{repeat}", output, datasets)
                walls[workers].append(wall)
                print(f"workers={workers} repeat={repeat}: {wall:6.1f} s wall; shards "
                      f"{', '.join(f'{seconds:.0f} s' for seconds in shards)}; load average before {load:.2f}",
                      flush=True)
    one, many = statistics.median(walls[1]), statistics.median(walls[arguments.workers])
    print(f"median wall: 1 worker {one:.1f} s, {arguments.workers} workers {many:.1f} s: ratio {many / one:.2f} "
          f"(best of each: {min(walls[arguments.workers]) / min(walls[1]):.2f}); {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
