"""Matrix Market coordinate files (`.mtx`, as in SuiteSparse's `<Name>/<Name>.mtx`), as this parser implements them.

    %%MatrixMarket matrix coordinate <field> <symmetry>     line 1, keywords in any case
    % comments, and an optional '%%GraphBLAS type <type>' line (LAGraph's: the entries' C type)
    <rows> <cols> <entries>                                 the size line
    <i> <j> [<value>]                                       one entry per line, 1-based

* field: `real` (values become float32 weights), `integer` (int32 weights: a value outside int32 is an error),
  `pattern` (no value: an unweighted graph). symmetry: `general`, `symmetric` (every off-diagonal entry also
  stands for its mirror (j, i); the diagonal is not doubled), `skew-symmetric` (mirrored with the value
  negated; a diagonal entry is an error, as is pattern skew-symmetric).
* Refused with the reason: `array` (dense) layout, `complex` field, `hermitian` symmetry, any other object
  than `matrix`, an unknown keyword, a non-square size (a graph's adjacency matrix is square), rows >= 2^31.
* `%%GraphBLAS type`: bool, int8_t .. int64_t, uint8_t .. uint64_t, float, double. Integer values must fit the
  type as well as int32; an integer type with a real field, skew-symmetric with an unsigned or bool type, an
  unknown or complex type are errors.
* Entries: exactly 2 tokens (pattern) or 3; 1 <= i, j <= rows; real values are decimal numbers
  ([+-]digits[.digits][e|E|d|D[+-]digits]; no inf or nan) within float32 range (smaller ones round to a
  subnormal or zero, as float32() does). Exactly `entries` entries: the first extra one is an error at its
  line, fewer an error naming the size line. The same (i, j) twice (also through mirroring: (i, j) and (j, i)
  in a symmetric file) is an error naming both lines; an upper-triangle entry of a symmetric file is otherwise
  mirrored like any other. Blank and '%' lines between entries are skipped.
* With `binarize` the values are dropped: they must still be there and well-formed, but a real value may then be
  nan, inf or infinity (any case, signed) or beyond float32 (LAGraph's test matrices hold nan values).
* A real value becomes the float32 nearest to the float64 nearest to it, as `scipy.io.mmread(...).astype
  (float32)` gives: numba rounds exactly when it can (<= 19 digits, exponent within +-22), or when the float64
  it computed is not near a float32 rounding boundary; otherwise Python's float() converts that one value.
* A graph: entry (i, j) is the arc i -> j. symmetric => undirected (both arcs stored); general and
  skew-symmetric => directed (skew's two arcs have opposite weights).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...graph.build import csr_from_arcs
from .parsing import (HEADER_DONE, HEADER_MORE, INT32_MAX, INT32_MIN, LINE_BLANK, LINE_COMMENT, LINE_FALLBACK,
                      LINE_NEED_SPACE, LINE_STORED, NEWLINE, S_ARCS, S_ARC_LIMIT, S_BLOCK_START, S_FORMAT, S_LINE, S_N,
                      S_RECORDS, S_SELF_LOOPS, S_SORTED, TOKEN_BAD, TOKEN_MISSING, TOKEN_OK, ArcStore, FormatParser,
                      integer_tokens, is_separator, line_loop_kernel, next_record, parse_lines, read_integer,
                      skip_blanks, skip_token, stored_arc)

FIELD_PATTERN = 0
FIELD_INTEGER = 1
FIELD_REAL = 2
SYMMETRY_GENERAL = 0
SYMMETRY_SYMMETRIC = 1
SYMMETRY_SKEW = 2

S_FALLBACK_SLOT = S_FORMAT       # block slot of the arc whose value Python converts
S_FALLBACK_START = S_FORMAT + 1  # the value's bytes in the chunk
S_FALLBACK_END = S_FORMAT + 2

E_SYNTAX = 1
E_INDEX_RANGE = 2
E_SKEW_DIAGONAL = 3
E_MISSING_VALUE = 4
E_VALUE_SYNTAX = 5
E_VALUE_INT32 = 6
E_VALUE_TYPE = 7
E_VALUE_FLOAT32 = 8
E_EXTRA_TOKENS = 9
E_TOO_MANY_ENTRIES = 10

FLOAT32_MIN_NORMAL = 1.1754943508222875e-38
FLOAT32_MAX = 3.4028234663852886e38
_INFINITY = np.frombuffer(b"infinity", dtype=np.uint8)  # a global array: numba compiles it in as a constant
_POWERS_OF_TEN = np.array([10.0**k for k in range(23)], dtype=np.float64)  # all exact in float64

# LAGraph's %%GraphBLAS types: the integer range a value must fit (None: a real type)
GRAPHBLAS_TYPES = {
    "bool": (0, 1), "int8_t": (-(2**7), 2**7 - 1), "int16_t": (-(2**15), 2**15 - 1),
    "int32_t": (-(2**31), 2**31 - 1), "int64_t": (-(2**63), 2**63 - 1), "uint8_t": (0, 2**8 - 1),
    "uint16_t": (0, 2**16 - 1), "uint32_t": (0, 2**32 - 1), "uint64_t": (0, 2**64 - 1),
    "float": None, "double": None,
}
_COMPLEX_TYPES = ("float complex", "double complex", "GxB_FC32_t", "GxB_FC64_t")
_FIELDS = {"pattern": FIELD_PATTERN, "integer": FIELD_INTEGER, "real": FIELD_REAL}
_SYMMETRIES = {"general": SYMMETRY_GENERAL, "symmetric": SYMMETRY_SYMMETRIC, "skew-symmetric": SYMMETRY_SKEW}
_BANNER = "'%%MatrixMarket matrix coordinate <real|integer|pattern> <general|symmetric|skew-symmetric>'"


@njit(inline="always", cache=True)
def read_real(buffer, position, end, powers_of_ten):
    """A decimal real after optional blanks: (value, position after it, TOKEN_*, exact).

    `exact` says the float64 is the correctly rounded value (Clinger's fast path: a mantissa of at most 2^53
    times or over an exact power of ten is one correctly rounded operation).
    """
    position = skip_blanks(buffer, position, end)
    if position >= end or buffer[position] == NEWLINE:
        return 0.0, position, TOKEN_MISSING, True
    negative = False
    byte = buffer[position]
    if byte == 45 or byte == 43:
        negative = byte == 45
        position += 1
    mantissa = np.uint64(0)
    kept = 0
    exponent = 0
    inexact = False
    digits = 0
    while position < end:
        digit = np.int64(buffer[position]) - 48
        if digit < 0 or digit > 9:
            break
        digits += 1
        if mantissa != 0 or digit != 0:
            if kept < 19:
                mantissa = mantissa * np.uint64(10) + np.uint64(digit)
                kept += 1
            else:
                exponent += 1
                inexact = inexact or digit != 0
        position += 1
    if position < end and buffer[position] == 46:  # '.'
        position += 1
        while position < end:
            digit = np.int64(buffer[position]) - 48
            if digit < 0 or digit > 9:
                break
            digits += 1
            if mantissa != 0 or digit != 0:
                if kept < 19:
                    mantissa = mantissa * np.uint64(10) + np.uint64(digit)
                    kept += 1
                    exponent -= 1
                else:
                    inexact = inexact or digit != 0
            else:
                exponent -= 1
            position += 1
    if digits == 0:
        return 0.0, position, TOKEN_BAD, True
    if position < end and (buffer[position] | 32 == 101 or buffer[position] | 32 == 100):  # e E d D (Fortran)
        position += 1
        exponent_negative = False
        if position < end and (buffer[position] == 45 or buffer[position] == 43):
            exponent_negative = buffer[position] == 45
            position += 1
        exponent_digits = 0
        exponent_value = 0
        while position < end:
            digit = np.int64(buffer[position]) - 48
            if digit < 0 or digit > 9:
                break
            exponent_digits += 1
            if exponent_value < 100000:
                exponent_value = exponent_value * 10 + digit
            position += 1
        if exponent_digits == 0:
            return 0.0, position, TOKEN_BAD, True
        exponent += -exponent_value if exponent_negative else exponent_value
    if position < end and not is_separator(buffer[position]):
        return 0.0, position, TOKEN_BAD, True
    exact = True
    if mantissa == 0:
        value = 0.0
    elif not inexact and mantissa <= np.uint64(1 << 53) and -22 <= exponent <= 22:
        if exponent >= 0:
            value = np.float64(mantissa) * powers_of_ten[exponent]
        else:
            value = np.float64(mantissa) / powers_of_ten[-exponent]
    else:
        exact = False
        value = np.float64(mantissa) * 10.0 ** max(min(exponent, 400), -400)
    return (-value if negative else value), position, TOKEN_OK, exact


@njit(inline="always", cache=True)
def _near_float32_boundary(value, scratch_float, scratch_bits):
    """True when a float64 a few ulps off might round to another float32 than the exact value: it lies near a
    float32 rounding midpoint, or outside the normal float32 range (subnormal, zero by underflow, overflow)."""
    magnitude = abs(value)
    if not (FLOAT32_MIN_NORMAL <= magnitude <= FLOAT32_MAX):
        return True
    scratch_float[0] = magnitude
    dropped = np.int64(scratch_bits[0] & np.uint64((1 << 29) - 1))  # the 29 bits float32 drops
    return abs(dropped - (1 << 28)) <= 64


@njit(inline="always", cache=True)
def _non_finite_word(buffer, position, end):
    """Whether the token at `position` is nan, inf or infinity (any case, optionally signed): what a binarized
    file's values may be besides numbers, since they are dropped. (The line kernel allocates nothing: bytes are
    compared one by one.)"""
    if position < end and (buffer[position] == 45 or buffer[position] == 43):  # '-' '+'
        position += 1
    length = 0
    while position + length < end and not is_separator(buffer[position + length]):
        length += 1
    if length == 3:
        first, second, third = buffer[position] | 32, buffer[position + 1] | 32, buffer[position + 2] | 32
        return (first == 110 and second == 97 and third == 110) or (first == 105 and second == 110 and third == 102)
    if length != 8:
        return False
    for index in range(8):
        if buffer[position + index] | 32 != _INFINITY[index]:
            return False
    return True


@njit(inline="always", cache=True)
def _entry_line(lines, buffer, at, end, first, cursor):
    """A blank line, a '%' comment, or an entry 'i j [value]' (two arcs when mirrored off the diagonal). `lines`:
    the size line's numbers, field and symmetry, the %%GraphBLAS type's range, the output block (the other field's
    weights, or a binarized file's, empty), scratch space for the float32 rounding check, and the state array,
    where a value Python must convert is described."""
    (n, limit, field, symmetry, value_min, value_max, block_start, sources, targets, int_weights, real_weights,
     powers_of_ten, scratch_float, scratch_bits, state) = lines
    if first == NEWLINE:
        return at, LINE_BLANK, 0, cursor
    if first == 37:  # '%'
        return at, LINE_COMMENT, 0, cursor
    if cursor.records >= limit:
        return at, LINE_STORED, E_TOO_MANY_ENTRIES, cursor
    n, symmetry = n, symmetry
    mirrored = symmetry != SYMMETRY_GENERAL
    row, at, row_token = read_integer(buffer, at, end)
    column, at, column_token = read_integer(buffer, at, end)
    if row_token == TOKEN_BAD or column_token == TOKEN_BAD or column_token == TOKEN_MISSING:
        return at, LINE_STORED, E_SYNTAX, cursor
    if row_token != TOKEN_OK or column_token != TOKEN_OK or row < 1 or row > n or column < 1 or column > n:
        return at, LINE_STORED, E_INDEX_RANGE, cursor
    if symmetry == SYMMETRY_SKEW and row == column:
        return at, LINE_STORED, E_SKEW_DIAGONAL, cursor
    slot = cursor.arcs - block_start
    if slot + (2 if mirrored and row != column else 1) > len(targets):
        return at, LINE_NEED_SPACE, 0, cursor
    integer_value = np.int64(0)
    real_value = np.float32(0.0)
    fallback = False
    value_start = skip_blanks(buffer, at, end)
    if field == FIELD_INTEGER:
        integer_value, at, value_token = read_integer(buffer, at, end)
        if value_token == TOKEN_MISSING:
            return at, LINE_STORED, E_MISSING_VALUE, cursor
        if value_token == TOKEN_BAD:
            return at, LINE_STORED, E_VALUE_SYNTAX, cursor
        if value_token == TOKEN_OK and (integer_value < value_min or integer_value > value_max):
            return at, LINE_STORED, E_VALUE_TYPE, cursor  # the declared type's range first: the more specific reason
        if (value_token != TOKEN_OK or integer_value < INT32_MIN or integer_value > INT32_MAX
                or (symmetry == SYMMETRY_SKEW and integer_value == INT32_MIN)):
            return at, LINE_STORED, E_VALUE_INT32, cursor
    elif field == FIELD_REAL:
        value, at, value_token, exact = read_real(buffer, at, end, powers_of_ten)
        values_dropped = len(real_weights) == 0  # binarize: the value is read, not kept
        if value_token == TOKEN_MISSING:
            return at, LINE_STORED, E_MISSING_VALUE, cursor
        if value_token != TOKEN_OK and values_dropped and _non_finite_word(buffer, value_start, end):
            at, _ = skip_token(buffer, value_start, end)
        elif value_token != TOKEN_OK:
            return at, LINE_STORED, E_VALUE_SYNTAX, cursor
        elif values_dropped:
            pass  # a dropped value need not fit float32
        elif exact or not _near_float32_boundary(value, scratch_float, scratch_bits):
            real_value = np.float32(value)
            if np.isinf(real_value):
                return at, LINE_STORED, E_VALUE_FLOAT32, cursor
        else:
            fallback = True
    at = skip_blanks(buffer, at, end)
    if at < end and buffer[at] != NEWLINE:
        return at, LINE_STORED, E_EXTRA_TOKENS, cursor
    keep_int = len(int_weights) > 0
    keep_real = len(real_weights) > 0
    sources[slot] = row - 1
    targets[slot] = column - 1
    if keep_int:
        int_weights[slot] = integer_value
    if keep_real:
        real_weights[slot] = real_value
    cursor = stored_arc(cursor, row - 1, column - 1)  # a diagonal entry counts as a self-loop
    if mirrored and row != column:
        sources[slot + 1] = column - 1
        targets[slot + 1] = row - 1
        if keep_int:
            int_weights[slot + 1] = -integer_value if symmetry == SYMMETRY_SKEW else integer_value
        if keep_real:
            real_weights[slot + 1] = -real_value if symmetry == SYMMETRY_SKEW else real_value
        cursor = stored_arc(cursor, column - 1, row - 1)
    cursor = next_record(cursor)
    if not fallback:
        return at, LINE_STORED, 0, cursor
    state[S_FALLBACK_SLOT] = slot
    state[S_FALLBACK_START] = value_start
    value_end = value_start
    while value_end < end and not is_separator(buffer[value_end]):
        value_end += 1
    state[S_FALLBACK_END] = value_end
    return at, LINE_FALLBACK, 0, cursor


@line_loop_kernel
def _parse_entry_lines(buffer, position, state, irregular, lines):
    return parse_lines(buffer, position, state, irregular, _entry_line, lines)


@njit(cache=True)
def _first_repeated_arc(row_offsets, column_ids):
    """(earlier, later) CSR positions of the first arc that repeats one of its row, or (-1, -1)."""
    n = len(row_offsets) - 1
    last_seen = np.full(n, -1, dtype=np.int64)
    for vertex in range(n):
        start = row_offsets[vertex]
        for arc in range(start, row_offsets[vertex + 1]):
            target = column_ids[arc]
            if last_seen[target] >= start:
                return last_seen[target], np.int64(arc)
            last_seen[target] = arc
    return np.int64(-1), np.int64(-1)


@njit(cache=True)
def _emission_of_position(positions, position):
    for arc in range(len(positions)):
        if positions[arc] == position:
            return arc
    return -1


@njit(cache=True)
def _entry_of_emission(emission, positions, row_offsets, column_ids):
    """Entry number of arc number `emission` when every off-diagonal entry emitted two arcs, diagonal ones one."""
    diagonal_before = 0
    for arc in range(emission):
        at = positions[arc]
        source = np.searchsorted(row_offsets, at, side="right") - 1
        if column_ids[at] == source:
            diagonal_before += 1
    return diagonal_before + (emission - diagonal_before) // 2


class MatrixMarketParser(FormatParser):
    format_name = "mtx"
    suffix = ".mtx"
    line_kernel = staticmethod(_parse_entry_lines)

    def __init__(self, label, options):
        super().__init__(label, options)
        self.size_line = None
        self.graphblas_type = None
        self.scratch_float = np.zeros(1, dtype=np.float64)
        self.scratch_bits = self.scratch_float.view(np.uint64)
        self.values_converted_by_python = 0
        self.entry_kinds = None  # (field, symmetry, least and greatest integer value), from the header

    # --- header
    def header_line(self, text: bytes, line: int) -> str:
        shown = text.decode("utf-8", errors="replace")
        if line == 1:
            self._banner(shown, line)
            return HEADER_MORE
        stripped = text.strip()
        if not stripped:
            return HEADER_MORE
        if stripped.startswith(b"%"):
            if stripped.startswith(b"%%GraphBLAS"):
                self._graphblas_line(shown, line)
            else:
                self.header_comments += 1
            return HEADER_MORE
        self._size_line(stripped, shown, line)
        return HEADER_DONE

    def _banner(self, shown: str, line: int) -> None:
        words = shown.split()
        if not words or words[0].lower() != "%%matrixmarket":
            raise self.fail(line, f"expected the banner {_BANNER}, got {shown!r}")
        if len(words) != 5:
            raise self.fail(line, f"expected the banner {_BANNER} (five words), got {shown!r}")
        obj, layout, field, symmetry = (word.lower() for word in words[1:])
        if obj != "matrix":
            raise self.fail(line, f"expected object 'matrix' in the banner {_BANNER}, got {words[1]!r} in {shown!r}")
        if layout == "array":
            raise self.fail(line, f"a dense 'array' matrix is not a graph: expected layout 'coordinate', got {shown!r}")
        if layout != "coordinate":
            raise self.fail(line, f"expected layout 'coordinate' in the banner {_BANNER}, got {words[2]!r}")
        if field == "complex":
            raise self.fail(line, f"complex values are not graph weights: expected field real, integer or pattern, "
                                  f"got {shown!r}")
        if field not in _FIELDS:
            raise self.fail(line, f"expected field real, integer or pattern in the banner, got {words[3]!r}")
        if symmetry == "hermitian":
            raise self.fail(line, "hermitian matrices are complex: expected symmetry general, symmetric or "
                                  f"skew-symmetric, got {shown!r}")
        if symmetry not in _SYMMETRIES:
            raise self.fail(line, f"expected symmetry general, symmetric or skew-symmetric in the banner, "
                                  f"got {words[4]!r}")
        if field == "pattern" and symmetry == "skew-symmetric":
            raise self.fail(line, "'pattern skew-symmetric' is no valid combination (a pattern has no values to "
                                  f"negate): expected pattern general or pattern symmetric, got {shown!r}")
        self.header.update({"object": obj, "layout": layout, "field": field, "symmetry": symmetry,
                            "fields": f"{field} {symmetry}"})

    def _graphblas_line(self, shown: str, line: int) -> None:
        words = shown.split(None, 2)
        if len(words) < 3 or words[1] != "type":
            raise self.fail(line, f"expected '%%GraphBLAS type <type>', got {shown!r}")
        name = words[2].strip()
        field, symmetry = self.header["field"], self.header["symmetry"]
        if name in _COMPLEX_TYPES:
            raise self.fail(line, f"complex values are not graph weights: expected a real or integer "
                                  f"%%GraphBLAS type, got {name!r}")
        if name not in GRAPHBLAS_TYPES:
            raise self.fail(line, f"unknown %%GraphBLAS type {name!r}, expected one of {', '.join(GRAPHBLAS_TYPES)}")
        integral = GRAPHBLAS_TYPES[name] is not None
        if integral and field == "real":
            raise self.fail(line, f"%%GraphBLAS type {name} holds integers, but the banner (line 1) says field "
                                  "'real': expected field integer or pattern")
        if symmetry == "skew-symmetric" and integral and GRAPHBLAS_TYPES[name][0] == 0:
            raise self.fail(line, f"%%GraphBLAS type {name} cannot hold the negated values of a skew-symmetric "
                                  "matrix: expected a signed type")
        self.graphblas_type = name
        self.header["graphblas_type"] = name

    def _size_line(self, stripped: bytes, shown: str, line: int) -> None:
        numbers = integer_tokens(stripped.split())
        if numbers is None or len(numbers) != 3 or min(numbers) < 0:
            raise self.fail(line, f"expected the size line 'rows columns entries' (three non-negative integers), "
                                  f"got {shown!r}")
        rows, columns, entries = numbers
        if rows != columns:
            raise self.fail(line, f"a graph's adjacency matrix is square: expected rows = columns, got {rows} rows "
                                  f"and {columns} columns in {shown!r}")
        if rows > INT32_MAX:
            raise self.fail(line, f"expected at most {INT32_MAX} rows (int32 vertex ids), got {rows}")
        field, symmetry = _FIELDS[self.header["field"]], _SYMMETRIES[self.header["symmetry"]]
        self.size_line = line
        self.header.update({"n": rows, "m": entries, "rows": rows, "columns": columns, "entries": entries,
                            "line": line})
        self.state[S_N] = rows
        self.announce_arcs(entries, line, "entries")
        low, high = GRAPHBLAS_TYPES.get(self.graphblas_type) or (-(2**63), 2**63 - 1)
        self.entry_kinds = (field, symmetry, max(low, -(2**63)), min(high, 2**63 - 1))  # the kernel's view
        weight_dtype = None
        if not self.options.binarize:
            weight_dtype = {FIELD_PATTERN: None, FIELD_INTEGER: np.int32, FIELD_REAL: np.float32}[field]
        entry_bytes = len("1 1\n") if field == FIELD_PATTERN else len("1 1 0\n")
        self.check_declared(line, f"{entries:,} entries", entries * entry_bytes - 1, rows, entries,
                            0 if weight_dtype is None else 4)
        mirrored = symmetry != SYMMETRY_GENERAL
        self.arcs = ArcStore(with_sources=True, weight_dtype=weight_dtype, expected=entries * (2 if mirrored else 1))

    # --- body
    def line_grammar(self):
        return (
            self.state[S_N], self.state[S_ARC_LIMIT], *self.entry_kinds, self.state[S_BLOCK_START], self.arcs.sources,
            self.arcs.targets, self.arcs.weights_or_empty(np.int32), self.arcs.weights_or_empty(np.float32),
            _POWERS_OF_TEN, self.scratch_float, self.scratch_bits, self.state,
        )

    def at_fallback(self, chunk):
        """Convert one value with Python's correctly rounded float(), then let the kernel go on."""
        token = chunk[self.state[S_FALLBACK_START] : self.state[S_FALLBACK_END]].tobytes()
        with np.errstate(over="ignore"):
            value = np.float32(float(token.translate(bytes.maketrans(b"dD", b"ee"))))
        if not np.isfinite(value):
            line = int(self.state[S_LINE])
            raise self.fail(line, self.explain(E_VALUE_FLOAT32, token.decode("ascii", errors="replace")))
        self.values_converted_by_python += 1
        slot = int(self.state[S_FALLBACK_SLOT])
        if self.arcs.weights is not None:
            self.arcs.weights[slot] = value
            if int(self.state[S_ARCS] - self.state[S_BLOCK_START]) > slot + 1:  # its mirror follows
                self.arcs.weights[slot + 1] = -value if self.header["symmetry"] == "skew-symmetric" else value

    def explain(self, code: int, text: str) -> str:
        n = self.header["n"]
        field = self.header["field"]
        shape = "'i j'" if field == "pattern" else "'i j value'"
        if code == E_SYNTAX:
            return f"expected an entry {shape} with integer indices, got {text!r}"
        if code == E_INDEX_RANGE:
            return f"expected an entry {shape} with 1 <= i, j <= {n}, got {text!r}"
        if code == E_SKEW_DIAGONAL:
            return f"a skew-symmetric matrix has a zero diagonal: expected i != j, got {text!r}"
        if code == E_MISSING_VALUE:
            return f"expected an entry {shape} (field {field}), the value is missing: got {text!r}"
        if code == E_VALUE_SYNTAX:
            kind = "an integer" if field == "integer" else "a finite decimal number"
            return f"expected an entry {shape} with {kind} value, got {text!r}"
        if code == E_VALUE_INT32:
            mirror = " (and its negation, for the mirrored entry)" if self.header["symmetry"] == "skew-symmetric" else ""
            return f"expected integer values within int32, {INT32_MIN}..{INT32_MAX}{mirror}, got {text!r}"
        if code == E_VALUE_TYPE:
            low, high = GRAPHBLAS_TYPES[self.graphblas_type]
            return (f"expected values of %%GraphBLAS type {self.graphblas_type}, {low}..{high}, got {text!r}")
        if code == E_VALUE_FLOAT32:
            return f"expected a value within float32 range (|v| <= {FLOAT32_MAX:.8g}), got {text!r}"
        if code == E_EXTRA_TOKENS:
            return f"expected an entry {shape} (field {field}), got more tokens: {text!r}"
        entries = self.header["entries"]
        return (f"entry number {entries + 1}, but the size line (line {self.size_line}) says {entries} entries: "
                f"expected no more, got {text!r}")

    # --- the end
    def finish(self):
        if not self.header_done:
            if self.line == 0:
                raise self.fail(1, f"empty file, expected the banner {_BANNER}")
            raise self.fail(self.line, "the file ends before the size line 'rows columns entries'")
        entries = int(self.state[S_RECORDS])
        if entries != self.header["entries"]:
            raise self.fail(self.size_line, f"the size line says {self.header['entries']} entries, "
                                            f"the file has {entries}")
        arcs = int(self.state[S_ARCS])
        row_offsets, column_ids, weights, positions = csr_from_arcs(
            self.header["n"], self.arcs.take(self.state), bool(self.state[S_SORTED]), keep_positions=True)
        self._check_no_repeated_entry(row_offsets, column_ids, positions)
        del positions
        diagonal = int(self.state[S_SELF_LOOPS])  # the diagonal entries
        stats = {
            **self.line_stats(), "entries": entries, "diagonal_entries": diagonal,
            "entries_mirrored": arcs, "arcs_read": arcs, "self_loops": diagonal,
            "sorted_by_source": bool(self.state[S_SORTED]),
            "values_converted_by_python": self.values_converted_by_python,
        }
        return row_offsets, column_ids, weights, None, stats

    def _check_no_repeated_entry(self, row_offsets, column_ids, positions):
        earlier, later = _first_repeated_arc(row_offsets, column_ids)
        if earlier < 0:
            return
        mirrored = self.header["symmetry"] != "general"
        if positions is None:  # the arcs did not move
            positions = np.arange(len(column_ids), dtype=np.int64)
        lines = []
        for position in (earlier, later):
            emission = _emission_of_position(positions, position)
            entry = _entry_of_emission(emission, positions, row_offsets, column_ids) if mirrored else emission
            lines.append(self.line_of_record(int(entry)))
        first, second = sorted(lines)
        source = int(np.searchsorted(row_offsets, later, side="right") - 1)
        target = int(column_ids[later])
        if mirrored:
            raise self.fail(second, f"entry ({source + 1}, {target + 1}) or its mirror is already on line {first}: "
                                    f"expected each entry once (a {self.header['symmetry']} file lists only one "
                                    "of (i, j) and (j, i))")
        raise self.fail(second, f"entry ({source + 1}, {target + 1}) is already on line {first}: expected each "
                                "entry once")

    @property
    def natural_directed(self) -> bool:
        return self.header.get("symmetry") != "symmetric"

    @property
    def arcs_symmetric(self) -> bool:
        return self.header.get("symmetry") == "symmetric"  # both arcs of an off-diagonal entry are stored
