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

from numba import njit

from .dimacs9 import E_ARC_RANGE, E_ARC_SYNTAX, E_SECOND_P, E_TOO_MANY_ARCS, DimacsParser
from .parsing import (LINE_BLANK, LINE_COMMENT, LINE_NEED_SPACE, LINE_STORED, NEWLINE, S_ARC_LIMIT, S_BLOCK_START,
                      S_N, TOKEN_OK, TOKEN_TOO_LARGE, line_loop_kernel, next_record, parse_lines, read_integer,
                      skip_blanks, stored_arc)

_EDGE_SHAPE = "'u v'"


@njit(inline="always", cache=True)
def _edge_line(lines, buffer, at, end, first, cursor):
    """A blank line, a 'c' comment, or an edge 'u v'. `lines`: the p line's n and m, the output block."""
    n, limit, block_start, sources, targets = lines
    if first == NEWLINE:
        return at, LINE_BLANK, 0, cursor
    if first == 99:  # 'c'
        return at, LINE_COMMENT, 0, cursor
    if first == 112:  # 'p'
        return at, LINE_STORED, E_SECOND_P, cursor
    if cursor.arcs >= limit:
        return at, LINE_STORED, E_TOO_MANY_ARCS, cursor
    slot = cursor.arcs - block_start
    if slot >= len(targets):
        return at, LINE_NEED_SPACE, 0, cursor
    source, at, source_token = read_integer(buffer, at, end)
    target, at, target_token = read_integer(buffer, at, end)
    at = skip_blanks(buffer, at, end)
    extra = at < end and buffer[at] != NEWLINE
    bad_ids = source_token == TOKEN_TOO_LARGE or target_token == TOKEN_TOO_LARGE
    if not bad_ids and (source_token != TOKEN_OK or target_token != TOKEN_OK or extra):
        return at, LINE_STORED, E_ARC_SYNTAX, cursor
    if bad_ids or source < 1 or source > n or target < 1 or target > n:
        return at, LINE_STORED, E_ARC_RANGE, cursor
    sources[slot] = source - 1
    targets[slot] = target - 1
    return at, LINE_STORED, 0, next_record(stored_arc(cursor, source - 1, target - 1))


@line_loop_kernel
def _parse_edge_lines(buffer, position, state, irregular, lines):
    return parse_lines(buffer, position, state, irregular, _edge_line, lines)


class PaceParser(DimacsParser):
    """DIMACS 9's header and counts (the `p` line, comments, m records), PACE's edge lines."""

    format_name = "pace"
    suffix = ".gr"
    line_kernel = staticmethod(_parse_edge_lines)
    problem = "tw"
    record_fields = "u v"
    weighted = False
    natural_directed = False

    def line_grammar(self):
        return (self.state[S_N], self.state[S_ARC_LIMIT], self.state[S_BLOCK_START], self.arcs.sources,
                self.arcs.targets)

    def explain(self, code: int, text: str) -> str:
        n = self.header["n"]
        if code == E_ARC_SYNTAX:
            return f"expected an edge {_EDGE_SHAPE} with integers u and v, got {text!r}"
        if code == E_ARC_RANGE:
            return f"expected an edge {_EDGE_SHAPE} with 1 <= u, v <= {n}, got {text!r}"
        if code == E_TOO_MANY_ARCS:
            return (f"edge number {self.header['m'] + 1}, but the 'p tw' line (line {self.p_line}) says "
                    f"m={self.header['m']}: expected no more edges, got {text!r}")
        if code == E_SECOND_P:
            return f"a second 'p' line (the first is line {self.p_line}), expected one only, got {text!r}"
        return f"expected a 'c' comment or an edge {_EDGE_SHAPE}, got {text!r}"
