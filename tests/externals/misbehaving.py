"""misbehaving.py MODE GRAPH.gr SOURCE OUTPUT: an external program that goes wrong in one chosen way, for
tests/test_external.py (every bad setup must end as one clear row, never a crashed run).

It solves the source with experiments/externals/sssp_scipy.py's reader and scipy, then, by MODE:

    ok          writes the right distances to OUTPUT as text ("inf" unreached)
    short       writes all but the last distance
    negative    writes the right distances with one reached vertex's made negative
    garbage     writes a word in place of the second distance
    crash       prints an error to stderr and exits with status 3
    signal      kills itself with SIGSEGV
    silent      writes nothing at all
    hang        sleeps for a minute (a timeout must kill it)
    int32       writes int32 values, -1 where unreached (output format int32, unreached -1)
    float32     writes float32 values, inf where unreached
    files       per: run: SOURCE is a file of sources and OUTPUT a folder: writes OUTPUT/dist-<source>.txt each
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import numpy as np
from scipy.sparse.csgraph import dijkstra

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "experiments" / "externals"))
from sssp_scipy import read_dimacs  # noqa: E402


def text(values: np.ndarray) -> str:
    return "\n".join(np.char.mod("%.17g", values).tolist()) + "\n"


def main() -> None:
    mode, graph, source, output = sys.argv[1:5]
    matrix = read_dimacs(graph)
    if mode == "files":
        for line in Path(source).read_text().split():
            distances = dijkstra(matrix, directed=True, indices=int(line))
            Path(output, f"dist-{int(line)}.txt").write_text(text(distances))
        print("solve time: 0.001 s")  # one for the whole run: divided among the sources
        return
    if mode == "crash":
        print("misbehaving: cannot allocate the frontier", file=sys.stderr)
        sys.exit(3)
    if mode == "signal":
        os.kill(os.getpid(), signal.SIGSEGV)
    if mode == "hang":
        time.sleep(60)
    if mode == "silent":
        return
    distances = dijkstra(matrix, directed=True, indices=int(source))
    if mode == "short":
        distances = distances[:-1]
    if mode == "negative":
        reached = np.flatnonzero(np.isfinite(distances) & (distances > 0))
        distances[reached[0]] = -5
    if mode == "int32":
        levels = np.where(np.isfinite(distances), distances, -1).astype("<i4")
        levels.tofile(output)
        return
    if mode == "float32":
        distances.astype("<f4").tofile(output)
        return
    written = text(distances)
    if mode == "garbage":
        lines = written.split("\n")
        lines[1] = "hello"
        written = "\n".join(lines)
    Path(output).write_text(written)


if __name__ == "__main__":
    main()
