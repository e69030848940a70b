"""sssp_scipy.py GRAPH.gr (--source S | --sources FILE) [--bfs]: shortest distances (or BFS levels) with
scipy.sparse.csgraph on a DIMACS 9 graph, printed one a line on standard output (`inf` where a vertex is
unreached), and this program's own solve time, `solve time: SECONDS s`, one line per source on standard error.

A reference program for sssp-bench's external kind (README: Bring your own implementation): a script as a user
would write one, sharing no code with the harness (numpy and scipy only). With --source it solves one source
(0-based: the harness's {source}); with --sources it solves every source the file lists (0-based, one a line: the
harness's {sources}, `per: run`) and prints each source's n values in turn. configs/externals.yaml runs it beside
cpu-dijkstra; tests/test_external.py runs it both ways.

Reading: `p sp n m`, then `a u v w` per arc with 1-based ids; `c` lines are comments. Parallel arcs keep their
lightest copy (scipy would add them up), self-loops are dropped (they never shorten a path), zero-weight arcs are
kept as explicit entries (which csgraph reads as arcs of weight 0).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra


def read_dimacs(path: str) -> csr_matrix:
    n = None
    arcs: list[bytes] = []
    with open(path, "rb") as handle:
        for line in handle:
            if line.startswith(b"a"):
                arcs.append(line[1:])
            elif line.startswith(b"p"):
                n = int(line.split()[2])
    if n is None:
        sys.exit(f"{path}: no `p sp n m` line")
    table = np.array(b" ".join(arcs).split(), dtype=np.float64).reshape(-1, 3) if arcs else np.empty((0, 3))
    tails, heads, weights = table[:, 0].astype(np.int64) - 1, table[:, 1].astype(np.int64) - 1, table[:, 2]
    keep = tails != heads
    tails, heads, weights = tails[keep], heads[keep], weights[keep]
    order = np.lexsort((weights, heads, tails))  # by arc, lightest copy first
    tails, heads, weights = tails[order], heads[order], weights[order]
    first = np.ones(len(tails), dtype=bool)
    first[1:] = (tails[1:] != tails[:-1]) | (heads[1:] != heads[:-1])
    tails, heads, weights = tails[first], heads[first], weights[first]
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(tails, minlength=n), out=offsets[1:])
    return csr_matrix((weights, heads, offsets), shape=(n, n))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("graph")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--source", type=int, help="the source, 0-based")
    which.add_argument("--sources", help="a file of sources, 0-based, one a line")
    parser.add_argument("--bfs", action="store_true", help="BFS levels (hops) instead of distances")
    arguments = parser.parse_args()

    matrix = read_dimacs(arguments.graph)
    if arguments.source is not None:
        sources = [arguments.source]
    else:
        with open(arguments.sources) as handle:
            sources = [int(line) for line in handle if line.strip()]
    out = sys.stdout
    for source in sources:
        if not 0 <= source < matrix.shape[0]:
            sys.exit(f"source {source} is not a vertex (0-based, n={matrix.shape[0]})")
        started = time.perf_counter()
        distances = dijkstra(matrix, directed=True, indices=source, unweighted=arguments.bfs)
        seconds = time.perf_counter() - started
        text = np.char.mod("%.17g", distances)  # exact for integer path sums below 2^53; inf stays "inf"
        out.write("\n".join(text.tolist()) + "\n")
        print(f"solve time: {seconds:.9f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
