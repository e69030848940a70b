"""Benchmark (not a test): DIMACS .gr -> CSR file, the speed and memory of `sssp_bench.formats`.

    python experiments/harness/convert_dimacs.py [--ny PATH] [--n 2000000] [--m 70000000] [--text /tmp/...gr] [--keep]
                                                  [--remove-text]

Targets (the formats issue):
  1. USA-road-d.NY.gr.gz -> CSR file on disk, gzip decompression included: under 2 s.
  2. a ~1 GB random DIMACS file (n vertices, m uniform random arcs, weights 1..100, arcs in random order, so the
     CSR needs the full counting sort) -> CSR: at least 50 MB/s of text on 2 cores, peak RSS under 2.5x the
     CSR file's size.

Each conversion runs in a fresh child process on 2 cores (NUMBA_NUM_THREADS=2, CPU affinity 2 cores), so its
peak RSS (getrusage ru_maxrss) is the conversion's own: the Python interpreter, numpy and numba included. The
child first converts a tiny file, which loads (or compiles) the numba kernels; that time is reported apart.
The random text file is generated once (by a numba formatter) and kept in /tmp for the next run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

MB = 1e6
DEFAULT_NY = REPO.parent / "shared" / "datasets" / "USA-road-d.NY.gr.gz"


# ---------------------------------------------------------------------------------------------------------
# The child: one conversion, measured
# ---------------------------------------------------------------------------------------------------------

def child(source: str, out: str) -> None:
    import gzip
    import io
    import resource

    import numba

    from sssp_bench.graph.csr import write_csr
    from sssp_bench.datasets.formats import convert_stream

    started = time.perf_counter()
    convert_stream(io.BytesIO(b"p sp 3 3\na 2 3 1\na 1 2 5\na 3 1 -2\n"), "dimacs9", "warm-up.gr")  # unsorted: all kernels
    warm_up = time.perf_counter() - started

    started = time.perf_counter()
    opener = gzip.open if source.endswith(".gz") else open
    with opener(source, "rb") as stream:
        converted = convert_stream(stream, "dimacs9", Path(source).name)
    converted_at = time.perf_counter()
    path = write_csr(converted.graph, out, {"header": converted.header, "stats": converted.stats})
    written_at = time.perf_counter()
    print(json.dumps({
        "warm_up_s": warm_up, "convert_s": converted_at - started, "write_s": written_at - converted_at,
        "total_s": written_at - started, "text_bytes": converted.stats["bytes"], "n": converted.graph.n,
        "m": converted.graph.m, "csr_bytes": os.path.getsize(path),
        "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "threads": numba.get_num_threads(),
    }))


def run_child(source: Path, out: Path) -> dict:
    environment = {**os.environ, "NUMBA_NUM_THREADS": "2", "PYTHONPATH": str(REPO)}
    cores = sorted(os.sched_getaffinity(0))[:2]
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, __file__, "--child", str(source), str(out)], env=environment, capture_output=True,
        text=True, preexec_fn=lambda: os.sched_setaffinity(0, cores), check=False,
    )
    if result.returncode != 0:
        sys.exit(f"the conversion failed:\n{result.stderr}")
    return {**json.loads(result.stdout.strip().splitlines()[-1]), "process_s": time.perf_counter() - started}


# ---------------------------------------------------------------------------------------------------------
# The random DIMACS file
# ---------------------------------------------------------------------------------------------------------

def generate_text(path: Path, n: int, m: int, seed: int = 1) -> None:
    import numpy as np
    from numba import njit

    @njit(cache=True)
    def format_arcs(sources, targets, weights, out):
        at = 0
        digits = np.empty(20, dtype=np.uint8)
        for index in range(len(sources)):
            out[at] = 97  # 'a'
            at += 1
            for value in (sources[index], targets[index], weights[index]):
                out[at] = 32
                at += 1
                count = 0
                while True:
                    digits[count] = 48 + value % 10
                    value //= 10
                    count += 1
                    if value == 0:
                        break
                for k in range(count - 1, -1, -1):
                    out[at] = digits[k]
                    at += 1
            out[at] = 10
            at += 1
        return at

    rng = np.random.default_rng(seed)
    step = 1 << 22
    buffer = np.empty(step * 32, dtype=np.uint8)
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "wb") as out:
        out.write(f"c random arcs: n={n} m={m} seed={seed}, weights 1..100\np sp {n} {m}\n".encode())
        for start in range(0, m, step):
            count = min(step, m - start)
            sources = rng.integers(1, n + 1, count, dtype=np.int64)
            targets = rng.integers(1, n + 1, count, dtype=np.int64)
            weights = rng.integers(1, 101, count, dtype=np.int64)
            used = format_arcs(sources, targets, weights, buffer)
            out.write(buffer[:used].tobytes())
    os.replace(temporary, path)


# ---------------------------------------------------------------------------------------------------------

def report(title: str, result: dict, target: str) -> None:
    rate = result["text_bytes"] / result["convert_s"] / MB
    rate_total = result["text_bytes"] / result["total_s"] / MB
    ratio = result["peak_rss_bytes"] / result["csr_bytes"]
    print(f"{title}")
    print(f"  graph          n={result['n']:,}  m={result['m']:,}  ({result['threads']} numba threads)")
    print(f"  warm-up        {result['warm_up_s']:6.2f} s   (numba kernels: load from cache, or compile)")
    print(f"  text           {result['text_bytes'] / MB:8.1f} MB")
    print(f"  convert        {result['convert_s']:6.2f} s   {rate:7.1f} MB/s  (read + parse + CSR)")
    print(f"  write CSR      {result['write_s']:6.2f} s")
    print(f"  total          {result['total_s']:6.2f} s   {rate_total:7.1f} MB/s")
    print(f"  whole process  {result['process_s']:6.2f} s   (Python start, imports and warm-up included)")
    print(f"  CSR file       {result['csr_bytes'] / MB:8.1f} MB")
    print(f"  peak RSS       {result['peak_rss_bytes'] / MB:8.1f} MB   = {ratio:.2f}x the CSR file")
    print(f"  target         {target}")


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ny", default=str(DEFAULT_NY), help="USA-road-d.NY.gr.gz")
    parser.add_argument("--n", type=int, default=2_000_000)
    parser.add_argument("--m", type=int, default=70_000_000)
    parser.add_argument("--text", default=None, help="where the random .gr file goes (default /tmp/...)")
    parser.add_argument("--out", default="/tmp/sssp-bench-convert.csr")
    parser.add_argument("--keep", action="store_true", help="keep the CSR file written")
    parser.add_argument("--remove-text", action="store_true", help="delete the random text file afterwards")
    args = parser.parse_args()
    out = Path(args.out)
    passed = True

    ny = Path(args.ny)
    if ny.is_file():
        result = run_child(ny, out)
        report(f"1. {ny.name} -> CSR", result, "total under 2 s")
        passed &= result["total_s"] < 2.0
    else:
        print(f"1. skipped: {ny} not found")

    text = Path(args.text or f"/tmp/sssp-bench-random-n{args.n}-m{args.m}.gr")
    if not text.exists():
        started = time.perf_counter()
        generate_text(text, args.n, args.m)
        print(f"\n(generated {text}: {text.stat().st_size / MB:.0f} MB in {time.perf_counter() - started:.1f} s)")
    result = run_child(text, out)
    print()
    report(f"2. {text.name} -> CSR", result, ">= 50 MB/s on 2 cores, peak RSS < 2.5x the CSR file")
    rate = result["text_bytes"] / result["convert_s"] / MB
    passed &= rate >= 50 and result["peak_rss_bytes"] < 2.5 * result["csr_bytes"]

    leftovers = ([] if args.keep else [out, Path(str(out) + ".json")]) + ([text] if args.remove_text else [])
    for path in leftovers:
        path.unlink(missing_ok=True)
    print(f"\n{'all targets met' if passed else 'TARGET MISSED'}")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
