"""PACE 2016 graphs (`.gr`, the treewidth track's format), as this parser implements them.

    c any comment                 anywhere, also before the p line
    p tw <n> <m>                  exactly one, before any edge: 0 <= n < 2^31, m >= 0
    <u> <v>                       one undirected edge per line, 1 <= u, v <= n

The DIMACS 9 road networks are published in this format too (ben-strasser/road-graphs-pace16: the same vertex ids
as the DIMACS `.gr` files, no weights, parallel edges and self-loops removed), under the same `.gr` suffix as
DIMACS 9 files: `sniff_format` tells the two apart by the problem the `p` line names (`p tw` here, `p sp` there).

* Tokens are separated by spaces or tabs; a line may start with blanks and end with '\\r'; blank lines are
  skipped. Any other line (a `p` line of another problem, a DIMACS `a` line, a third token) is an error.
* The edges must number m: the first edge beyond m is an error at its own line, fewer edges an error naming the
  `p` line and both counts. A second `p` line, or an edge before the `p` line, is an error.
* Undirected and unweighted: each edge becomes both its arcs (one per (u, v) pair, as with `symmetrize`); ids
  shifted to 0-based. Parallel edges and self-loops in the file are kept once. A run gives the graph weights
  with a weights spec (`uniform:...`), or runs BFS on it.
* `directed=True` keeps the edges as arcs in the direction written (a graph of one arc per edge).
"""

from __future__ import annotations

from .dimacs9 import DimacsParser


class PaceParser(DimacsParser):
    """DIMACS 9's header, records and counts (the `p` line, comments, m records), whose records here are
    undesignated and unweighted: edges 'u v' (dimacs9._record_line)."""

    format_name = "pace"
    suffix = ".gr"
    problem = "tw"
    record_fields = "u v"
    weighted = False
    natural_directed = False
    record = "edge"
    record_shape = "an edge 'u v'"
    record_line = "an edge 'u v'"
    least_record_bytes = len("1 1\n")
