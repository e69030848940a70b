"""DIMACS 9th challenge shortest-path graphs (`.gr`), as this parser implements them.

    c any comment                 anywhere, also before the p line
    p sp <n> <m>                  exactly one, before any arc: 0 <= n < 2^31, m >= 0
    a <u> <v> <w>                 1 <= u, v <= n; w a signed integer that fits int32

* Tokens are separated by spaces or tabs; a line may start with blanks and end with '\\r'; blank lines are
  skipped. Any other line (another designator, a `p` line of another problem such as `p max`) is an error.
* An arc line has exactly four tokens. Parallel arcs and self-loops are kept as read.
* The arcs must number m: the first arc beyond m is an error at its own line, fewer arcs an error naming the
  `p` line and both counts. A second `p` line, or an arc before the `p` line, is an error.
* Directed: arcs are stored as read, ids shifted to 0-based; weights int32.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...graph.build import csr_from_arcs
from .parsing import (HEADER_DONE, HEADER_MORE, INT32_MAX, INT32_MIN, LINE_BLANK, LINE_COMMENT, LINE_NEED_SPACE,
                      LINE_STORED, NEWLINE, S_ARCS, S_ARC_LIMIT, S_BLOCK_START, S_N, S_SELF_LOOPS, S_SORTED, TOKEN_OK,
                      TOKEN_TOO_LARGE, ArcStore, FormatParser, integer_tokens, is_separator, line_loop_kernel,
                      next_record, parse_lines, read_integer, skip_blanks, stored_arc)

E_ARC_SYNTAX = 1
E_ARC_RANGE = 2
E_WEIGHT_RANGE = 3
E_TOO_MANY_ARCS = 4
E_SECOND_P = 5
E_UNKNOWN_LINE = 6

@njit(inline="always", cache=True)
def _record_line(lines, buffer, at, end, first, cursor):
    """A blank line, a 'c' comment, or a record: an arc 'a u v w' (DIMACS 9: records designated by 'a' and
    weighted) or an edge 'u v' (PACE, pace.py: neither). `lines`: the p line's n and m, whether records start with
    'a' and carry a weight, the output block (weights empty when none are kept)."""
    n, limit, designated, weighted, block_start, sources, targets, weights = lines
    if first == NEWLINE:
        return at, LINE_BLANK, 0, cursor
    if first == 99:  # 'c'
        return at, LINE_COMMENT, 0, cursor
    if first == 112:  # 'p'
        return at, LINE_STORED, E_SECOND_P, cursor
    if designated:
        if first != 97 or (at + 1 < end and not is_separator(buffer[at + 1])):  # not 'a'
            return at, LINE_STORED, E_UNKNOWN_LINE, cursor
        at += 1
    if cursor.arcs >= limit:
        return at, LINE_STORED, E_TOO_MANY_ARCS, cursor
    slot = cursor.arcs - block_start
    if slot >= len(targets):
        return at, LINE_NEED_SPACE, 0, cursor
    source, at, source_token = read_integer(buffer, at, end)
    target, at, target_token = read_integer(buffer, at, end)
    weight, weight_token = np.int64(0), TOKEN_OK
    if weighted:
        weight, at, weight_token = read_integer(buffer, at, end)
    at = skip_blanks(buffer, at, end)
    extra = at < end and buffer[at] != NEWLINE
    bad_ids = (source_token == TOKEN_TOO_LARGE or target_token == TOKEN_TOO_LARGE)
    if not bad_ids and (source_token != TOKEN_OK or target_token != TOKEN_OK
                        or (weight_token != TOKEN_OK and weight_token != TOKEN_TOO_LARGE) or extra):
        return at, LINE_STORED, E_ARC_SYNTAX, cursor
    if bad_ids or source < 1 or source > n or target < 1 or target > n:
        return at, LINE_STORED, E_ARC_RANGE, cursor
    if weight_token == TOKEN_TOO_LARGE or weight < INT32_MIN or weight > INT32_MAX:
        return at, LINE_STORED, E_WEIGHT_RANGE, cursor
    sources[slot] = source - 1
    targets[slot] = target - 1
    if len(weights) > 0:
        weights[slot] = weight
    return at, LINE_STORED, 0, next_record(stored_arc(cursor, source - 1, target - 1))


@line_loop_kernel
def _parse_record_lines(buffer, position, state, irregular, lines):
    return parse_lines(buffer, position, state, irregular, _record_line, lines)


class DimacsParser(FormatParser):
    format_name = "dimacs9"
    suffix = ".gr"
    line_kernel = staticmethod(_parse_record_lines)
    # What the 'p' line names and what a record is: the PACE format (pace.py) shares this parser, with its own.
    problem = "sp"
    record_fields = "u v w"
    weighted = True              # records start with 'a' and end with a weight
    record = "arc"
    record_shape = "'a u v w'"   # as messages name a record
    record_line = "an 'a u v w' arc line"
    least_record_bytes = len("a 1 1 0\n")  # the shortest record line (the last one may lack its newline)

    def __init__(self, label, options):
        super().__init__(label, options)
        self.p_line = None

    @classmethod
    def recognizes(cls, head: bytes) -> bool:
        """Whether the file's first bytes hold this problem's 'p' line (or no 'p' line yet: nothing against it)."""
        for text in head.splitlines():
            tokens = text.split()
            if tokens and tokens[0] == b"p":
                return tokens[1:2] == [cls.problem.encode()]
            if tokens and tokens[0] != b"c":
                return True
        return True

    def header_line(self, text: bytes, line: int) -> str:
        stripped = text.strip()
        if not stripped:
            return HEADER_MORE
        shown = text.decode("utf-8", errors="replace")
        if stripped[:1] == b"c":
            self.header_comments += 1
            return HEADER_MORE
        tokens = stripped.split()
        p_shape = f"'p {self.problem} n m'"
        if tokens[0] == b"a":
            raise self.fail(line, f"an arc before the {p_shape} line, expected {p_shape} first, got {shown!r}")
        if tokens[0] != b"p":
            raise self.fail(line, f"expected a 'c' comment or the {p_shape} line, got {shown!r}")
        numbers = integer_tokens(tokens[2:])
        if (len(tokens) != 4 or tokens[1] != self.problem.encode() or numbers is None
                or not 0 <= numbers[0] <= INT32_MAX or numbers[1] < 0):
            raise self.fail(line, f"expected {p_shape} with integers 0 <= n <= {INT32_MAX} and m >= 0, got {shown!r}")
        n, m = numbers
        self.p_line = line
        self.header.update({"n": n, "m": m, "problem": self.problem, "fields": self.record_fields, "line": line})
        self.state[S_N] = n
        self.announce_arcs(m, line, "arcs")
        weight_dtype = None if self.options.binarize or not self.weighted else np.int32
        self.check_declared(line, f"m={m:,} {self.record}s", m * self.least_record_bytes - 1, n, m,
                            0 if weight_dtype is None else 4)
        self.arcs = ArcStore(with_sources=True, weight_dtype=weight_dtype, expected=m)
        return HEADER_DONE

    def line_grammar(self):
        return (self.state[S_N], self.state[S_ARC_LIMIT], self.weighted, self.weighted, self.state[S_BLOCK_START],
                self.arcs.sources, self.arcs.targets, self.arcs.weights_or_empty())

    def explain(self, code: int, text: str) -> str:
        n, m = self.header["n"], self.header["m"]
        if code == E_ARC_SYNTAX:
            names = self.record_fields.split()
            return f"expected {self.record_shape} with integers {', '.join(names[:-1])} and {names[-1]}, got {text!r}"
        if code == E_ARC_RANGE:
            return f"expected {self.record_shape} with 1 <= u, v <= {n}, got {text!r}"
        if code == E_WEIGHT_RANGE:
            return f"expected {self.record_shape} with {INT32_MIN} <= w <= {INT32_MAX} (int32 weights), got {text!r}"
        if code == E_TOO_MANY_ARCS:
            return (f"{self.record} number {m + 1}, but the 'p {self.problem}' line (line {self.p_line}) says m={m}: "
                    f"expected no more {self.record}s, got {text!r}")
        if code == E_SECOND_P:
            return f"a second 'p' line (the first is line {self.p_line}), expected one only, got {text!r}"
        return f"expected a 'c' comment or {self.record_line}, got {text!r}"

    def finish(self):
        p_shape = f"'p {self.problem} n m'"
        if not self.header_done:
            if self.line == 0:
                raise self.fail(1, f"empty file, expected a DIMACS {p_shape} line")
            raise self.fail(self.line, f"the file ends without a {p_shape} line (only comments and blank lines)")
        arcs = int(self.state[S_ARCS])
        if arcs != self.header["m"]:
            raise self.fail(self.p_line, f"the 'p {self.problem}' line says m={self.header['m']} {self.record}s, "
                                         f"the file has {arcs}")
        row_offsets, column_ids, weights, _ = csr_from_arcs(
            self.header["n"], self.arcs.take(self.state), bool(self.state[S_SORTED]))
        stats = {
            **self.line_stats(), "arcs_read": arcs,
            "self_loops": int(self.state[S_SELF_LOOPS]), "sorted_by_source": bool(self.state[S_SORTED]),
        }
        return row_offsets, column_ids, weights, None, stats
