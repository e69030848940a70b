"""Benchmark (not a test): generate BFS-4K's rmat.2Mv.128Me and write it as CSR; report time and peak memory.

    python experiments/harness/generate_rmat.py [--n 2000000] [--m 128000000] [--out /tmp/rmat-bench.csr] [--keep]

Target (the generator issue): under a minute on 2 cores, peak RSS under three times the CSR file size.
numba compile time is measured apart: the first call builds a tiny graph, which compiles the kernels (or loads
them from numba's on-disk cache, which the report says).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numba

from sssp_bench.graph.csr import write_csr
from sssp_bench.graph.generators import generate


def peak_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kilobytes on Linux


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", default="2000000")
    parser.add_argument("--m", default="128000000")
    parser.add_argument("--seed", default="1")
    parser.add_argument("--out", default="/tmp/rmat-bench.csr")
    parser.add_argument("--keep", action="store_true", help="leave the written graph in place")
    args = parser.parse_args()
    spec = f"rmat:n={args.n},m={args.m},seed={args.seed}"
    gib = 1 << 30

    started = time.perf_counter()
    generate("rmat:n=1000,m=8000,seed=1")  # compiles (or loads) the R-MAT count/scatter kernels
    compile_seconds = time.perf_counter() - started
    rss_after_compile = peak_rss_bytes()

    started = time.perf_counter()
    graph = generate(spec)
    generate_seconds = time.perf_counter() - started
    rss_after_generate = peak_rss_bytes()

    started = time.perf_counter()
    path = write_csr(graph, args.out, {"provenance": graph.meta["provenance"]})
    write_seconds = time.perf_counter() - started
    size = os.path.getsize(path)
    peak = peak_rss_bytes()

    total = generate_seconds + write_seconds
    print(f"spec            {spec}   (n={graph.n:,}, m={graph.m:,}, {numba.get_num_threads()} numba threads)")
    print(f"numba warm-up   {compile_seconds:6.2f} s   (compile, or load from numba's cache, on a tiny graph)")
    print(f"generate        {generate_seconds:6.2f} s")
    print(f"write_csr       {write_seconds:6.2f} s")
    print(f"total           {total:6.2f} s   (target < 60 s)  {'OK' if total < 60 else 'MISSED'}")
    print(f"CSR file        {size / gib:6.3f} GiB ({size:,} bytes)")
    print(f"peak RSS        {peak / gib:6.3f} GiB = {peak / size:.2f} x file   (target < 3 x)  "
          f"{'OK' if peak < 3 * size else 'MISSED'}")
    print(f"  after warm-up {rss_after_compile / gib:6.3f} GiB;  after generate {rss_after_generate / gib:6.3f} GiB")
    if not args.keep:
        path.unlink()
        Path(str(path) + ".json").unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
