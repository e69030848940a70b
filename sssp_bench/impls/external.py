"""`external` and `external-bfs`: a program built outside the harness (Gunrock, GAPBS, LonestarGPU, a colleague's
binary, a script) run through the same runner as the papers' implementations: the same graphs and weights, the same
seeded sources, the same verification (certificate on every solve, the reference on the sampled sources), the same
rows, tables, claims and `compare`.

    implementations:
      - name: external
        label: my-sssp
        params:
          command: "/opt/my-sssp/sssp -f {graph} -r {source} -o {output}"   # or a list; never run through a shell
          graph_format: dimacs9               # what {graph} is: datasets/export.py's formats (dimacs = dimacs9)
          output: {file: "{output}", format: int64, unreached: max}  # or {file: stdout, format: text} (the default)
          time: {regex: "Trial Time:\\s+([0-9.]+)", unit: s}         # the program's own time, optional
          per: source                          # or run: one process for every source, given in {sources}
          timeout_s: 60

Lifecycle, as for any implementation (base.py). `prepare` (timed apart by the runner) runs the entry's `build`
command once per run (skipped when a finished build of the same command is in the folder) and exports the graph
once per (graph, format) with `datasets.export.write_graph` into the run folder, `<run>/external/graphs/`, where
every external variant on that graph reuses it (the manifest's graph record lists the exports); then it checks
that the program exists (a path must be an executable file, a bare name must be on PATH): a missing program is a
prepare row "error" naming it, and the run goes on. Each `solve` runs the command once, with its `{...}`
placeholders filled in (the only substitution: no shell, no globbing, no variables; `{{` is a literal brace):

    {graph}     the exported graph file            {n}, {m}    its vertices and arcs
    {source}    the source, 0-based                {source1}   the source, 1-based (as DIMACS files number)
    {output}    a file the runner reads back       {workdir}   this variant's folder (build products, scratch)
    {sources}   a file of the sources, one a line, 0-based ({sources1}: 1-based), for `per: run`
    {python}    the Python running the harness (a script's interpreter, with numpy and scipy)

Relative paths in a command are relative to the folder the harness runs in, as a config's graph files are.

Output. `file: stdout` (the default) reads the program's standard output; otherwise the file the template names
(`{output}` or a path of the program's own, which may use {workdir}, {n}, {source}, {source1}), removed before the
process starts and once read, so an old answer is never read as a new one. `format`: `text` (one value per line:
numbers, `inf` or `infinity`; a line that does not parse makes the solve an error row), or raw little-endian
`int32`, `int64`, `float32` or `float64` arrays of n values. `unreached`: the value that marks an unreached
vertex, a number (`-1`) or `max` (the integer type's largest value); default `max` for the integer formats, `inf`
for text and floats, where inf always means unreached. A BFS program (`kind: bfs`, the implementation
`external-bfs`) writes levels the same way. The values are read when the runner asks for the distances, after the process's clock stopped, as a GPU
implementation's copy-back is (pandas' C parser for text, numpy for binary: a few milliseconds a million values).
The wrong number of values or wrong ones are a `wrong_answer` row (the runner's size check, the certificate);
unparsable output, a non-zero exit, a signal, a missing output file or a time rule that does not match are an
`error` row; a process over `timeout_s` (default 60 s, at most the config's `time_limit`) is killed with its process
group and is a `timeout` row, and the variant's later sources on that graph are not run, as for any timeout.

Timing. The runner owns every clock: it times `solve`, which is the process from spawn to exit, with the host
clock; a row's `timer` is "process" and `time_s` that wall time, or, when a `time` rule is given, "program" and
`time_s` the program's own reported time (its regex's one group, in `unit`: s, ms, us or ns; searched in `stream`:
both (default), stdout or stderr; only stderr when the values come on stdout), with the process's wall time beside it
in the counters (`process_s`). Neither is the CUDA-event clock of the GPU implementations, and the report says so
beside these rows. Exactly one match is expected per process (`per: run`: one per source, in the sources' order, or
one for the whole run, divided among them).

`per: run` runs one process for all of a variant's sources on a graph (per repetition): `{sources}` names a file
of them, and the output is either one file per source (`file` with `{source}` or `{source1}`) or one file of n
values per source, source after source. The runner times the process once (`Runner._external_batch`) and records
one row per source, each with the batch's time divided by the sources (`counters.batch_sources`,
`counters.batch_s`); a failed process fails every source's row. Its timeout is `timeout_s` per source, times the
sources.

`device` (cpu or gpu) is what the rows and tables say the program runs on (a GPU program is compared with the best
CPU variant like a GPU implementation); `negative_weights: true` lets the program solve graphs with negative weights
(it is refused them otherwise, as Dijkstra is). A program cannot report a negative cycle: its answer is verified.

Without a runner (tests, a script), an external works in a temporary folder removed at teardown.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import signal
import string
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..errors import ConfigError, UnsupportedGraphError, UserError
from ..graph.csr import CSRGraph
from .base import Implementation, Parameter, SolveResult

OUTPUT_FORMATS = ("text", "int32", "int64", "float32", "float64")
BINARY_DTYPES = {"int32": "<i4", "int64": "<i8", "float32": "<f4", "float64": "<f8"}
TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
TIME_STREAMS = ("both", "stdout", "stderr")
DEFAULT_TIMEOUT_S = 60.0

PLACEHOLDERS = {
    "graph": "the exported graph file",
    "n": "the graph's vertices",
    "m": "the graph's arcs",
    "source": "the source, 0-based (per: source)",
    "source1": "the source, 1-based (per: source)",
    "sources": "a file of the sources, one a line, 0-based (per: run)",
    "sources1": "a file of the sources, one a line, 1-based (per: run)",
    "output": "the file the runner reads the values from",
    "workdir": "this variant's folder in the run",
    "python": "the Python running the harness",
}
_GRAPH_FIELDS = {"graph", "n", "m", "workdir", "python", "output"}
COMMAND_FIELDS = {"source": _GRAPH_FIELDS | {"source", "source1"}, "run": _GRAPH_FIELDS | {"sources", "sources1"}}
BUILD_FIELDS = {"workdir", "python"}
OUTPUT_FILE_FIELDS = {"output", "workdir", "n", "source", "source1"}
OUTPUT_KEYS = {"file", "format", "unreached"}
TIME_KEYS = {"regex", "unit", "stream"}
STDOUT = "stdout"


class ExternalProgramError(RuntimeError):
    """The program could not be run, failed, or left output that cannot be read: an `error` row, in one line."""


class ExternalTimeout(TimeoutError):
    """The program ran past its timeout and was killed: a `timeout` row (the runner's classify)."""


@dataclass(frozen=True)
class ProgramSpec:
    """An external entry's parameters, checked and in the form `solve` uses."""

    kind: str
    command: tuple[str, ...]
    build: tuple[str, ...] | None
    graph_format: str
    output_file: str            # STDOUT or a template
    output_format: str
    unreached: float | str      # a number, "inf" or "max"
    time_regex: re.Pattern | None
    time_unit: float
    time_stream: str
    per: str                    # "source" or "run"
    timeout_s: float
    device: str
    negative_weights: bool


def _fields(template: str) -> list[str]:
    """The placeholder names in a template; ValueError for a malformed one (a lone brace, a format spec)."""
    names = []
    for _, name, spec, conversion in string.Formatter().parse(template):
        if name is None:
            continue
        if spec or conversion:
            raise ValueError(f"{{{name}{'!' + conversion if conversion else ''}{':' + spec if spec else ''}}} has a "
                             "format; only plain {name} placeholders are filled in")
        names.append(name)
    return names


def _arguments(value: Any, key: str, name: str) -> tuple[str, ...]:
    """A command: a list of strings, or a string split as a POSIX shell would split it (shlex), never run by one."""
    if isinstance(value, str):
        try:
            arguments = shlex.split(value)
        except ValueError as error:
            raise ConfigError(f"{name} parameter {key!r}: cannot split {value!r} into arguments ({error})") from None
    elif isinstance(value, list) and all(isinstance(item, (str, int, float)) and not isinstance(item, bool)
                                         for item in value):
        arguments = [str(item) for item in value]
    else:
        raise ConfigError(f"{name} parameter {key!r} must be a command: a list of arguments or a string, got {value!r}")
    if not arguments:
        raise ConfigError(f"{name} parameter {key!r} is empty; give the program and its arguments")
    return tuple(arguments)


def _check_fields(arguments: tuple[str, ...], allowed: set[str], key: str, name: str, why: str = "") -> set[str]:
    found: set[str] = set()
    for argument in arguments:
        try:
            names = _fields(argument)
        except ValueError as error:
            raise ConfigError(f"{name} parameter {key!r}: {argument!r}: {error} (a literal brace is {{{{ or }}}})") \
                from None
        for field_name in names:
            if field_name not in allowed:
                known = "unknown placeholder" if field_name not in PLACEHOLDERS else "placeholder not available here"
                raise ConfigError(f"{name} parameter {key!r}: {{{field_name}}} in {argument!r}: {known}{why} "
                                  f"(allowed: {', '.join('{' + item + '}' for item in sorted(allowed))})")
        found.update(names)
    return found


def parse_spec(params: dict[str, Any], name: str) -> ProgramSpec:
    """The checked form of an external entry's parameters; a ConfigError naming the key (`output.format`) and what
    was expected."""
    from ..datasets.export import FORMATS as GRAPH_FORMATS, canonical_format

    def fail(key: str, message: str) -> ConfigError:
        return ConfigError(f"{name} parameter {key!r} {message}")

    kind = params.get("kind") or "sssp"
    per = params.get("per") or "source"
    if params.get("command") is None:
        raise fail("command", "is required: the program and its arguments, e.g. [./my-sssp, '{graph}', '{source}']")
    command = _arguments(params["command"], "command", name)
    used = _check_fields(command, COMMAND_FIELDS[per], "command", name,
                         " with per: run (the sources come in {sources})" if per == "run" else
                         " with per: source (one process a source: {source})")
    if per == "source" and not used & {"source", "source1"}:
        raise fail("command", "never names the source: give {source} (0-based) or {source1} (1-based), or per: run "
                              "with {sources}")
    if per == "run" and not used & {"sources", "sources1"}:
        raise fail("command", "never names the sources file that per: run gives the program: {sources} or {sources1}")
    build = None
    if params.get("build") is not None:
        build = _arguments(params["build"], "build", name)
        _check_fields(build, BUILD_FIELDS, "build", name, " in a build")

    try:
        graph_format = canonical_format(params.get("graph_format") or "dimacs9")
    except UserError:
        raise fail("graph_format", f"must be one of {', '.join(GRAPH_FORMATS)} (datasets/export.py), got "
                                   f"{params['graph_format']!r}") from None

    output = params.get("output")
    output = {} if output is None else output
    if not isinstance(output, dict):
        raise fail("output", f"must be a mapping with {', '.join(sorted(OUTPUT_KEYS))}, got {output!r}")
    unknown = sorted(set(output) - OUTPUT_KEYS)
    if unknown:
        raise fail(f"output.{unknown[0]}", f"is not a key of output (allowed: {', '.join(sorted(OUTPUT_KEYS))})")
    output_file = output.get("file", STDOUT)
    if not isinstance(output_file, str) or not output_file.strip():
        raise fail("output.file", f"must be stdout or a file name template, got {output_file!r}")
    if output_file != STDOUT:
        names = _check_fields((output_file,), OUTPUT_FILE_FIELDS, "output.file", name)
        if "output" in names and "output" not in used:
            raise fail("output.file", "is {output}, but the command never names {output}: the program would not know "
                                      "where to write")
    elif "output" in used:
        raise fail("output.file", "is stdout, but the command names {output}: set output: {file: '{output}'}")
    output_format = output.get("format", "text")
    if output_format not in OUTPUT_FORMATS:
        raise fail("output.format", f"must be one of {', '.join(OUTPUT_FORMATS)}, got {output_format!r}")
    unreached = output.get("unreached")
    if unreached is None:
        unreached = "max" if output_format.startswith("int") else "inf"
    elif unreached == "max":
        if not output_format.startswith("int"):
            raise fail("output.unreached", f"max is for the integer formats, not {output_format}")
    elif unreached in ("inf", "infinity"):
        unreached = "inf"
    elif isinstance(unreached, bool) or not isinstance(unreached, (int, float)) or not np.isfinite(unreached):
        raise fail("output.unreached", f"must be a number (e.g. -1), max or inf, got {unreached!r}")

    rule = params.get("time")
    time_regex, time_unit, time_stream = None, 1.0, "both"
    if rule is not None:
        if not isinstance(rule, dict):
            raise fail("time", f"must be a mapping with regex (one group around the number), unit, stream, got "
                               f"{rule!r}")
        unknown = sorted(set(rule) - TIME_KEYS)
        if unknown:
            raise fail(f"time.{unknown[0]}", f"is not a key of time (allowed: {', '.join(sorted(TIME_KEYS))})")
        pattern = rule.get("regex")
        if not isinstance(pattern, str) or not pattern:
            raise fail("time.regex", f"must be a regular expression with one group around the number, got {pattern!r}")
        try:
            time_regex = re.compile(pattern, re.MULTILINE)
        except re.error as error:
            raise fail("time.regex", f"is not a regular expression ({error}): {pattern!r}") from None
        if time_regex.groups != 1:
            raise fail("time.regex", f"must have exactly one group, (...), around the number; {pattern!r} has "
                                     f"{time_regex.groups}")
        unit = rule.get("unit", "s")
        if unit not in TIME_UNITS:
            raise fail("time.unit", f"must be one of {', '.join(TIME_UNITS)}, got {unit!r}")
        time_unit = TIME_UNITS[unit]
        time_stream = rule.get("stream", "both")
        if time_stream not in TIME_STREAMS:
            raise fail("time.stream", f"must be one of {', '.join(TIME_STREAMS)}, got {time_stream!r}")

    timeout_s = params.get("timeout_s")
    timeout_s = DEFAULT_TIMEOUT_S if timeout_s is None else timeout_s
    if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) or not timeout_s > 0:
        raise fail("timeout_s", f"must be a positive number of seconds, got {timeout_s!r}")
    return ProgramSpec(kind, command, build, graph_format, output_file, output_format, unreached, time_regex,
                       time_unit, time_stream, per, float(timeout_s), params.get("device") or "cpu",
                       bool(params.get("negative_weights")))


def read_values(data: bytes | Path, output_format: str, unreached: float | str, what: str) -> np.ndarray:
    """The values a program wrote (bytes, or a file), as canonical float64 with np.inf where unreached; an
    ExternalProgramError naming `what` and the first thing that did not parse."""
    if output_format == "text":
        raw = data if isinstance(data, bytes) else Path(data).read_bytes()
        values = _parse_text(raw, what)
    else:
        dtype = np.dtype(BINARY_DTYPES[output_format])
        size = len(data) if isinstance(data, bytes) else Path(data).stat().st_size
        if size % dtype.itemsize:
            raise ExternalProgramError(f"{what} has {size} bytes, not a whole number of {output_format} values")
        raw_values = (np.frombuffer(data, dtype=dtype) if isinstance(data, bytes)
                      else np.fromfile(data, dtype=dtype))
        values = raw_values.astype(np.float64)
        if unreached == "max":
            values[raw_values == np.iinfo(dtype).max] = np.inf
            return values
    if unreached not in ("inf", "max"):
        values[values == float(unreached)] = np.inf
    return values


def _parse_text(raw: bytes, what: str) -> np.ndarray:
    """One number a line, through pandas' C parser (a million values in about 40 ms; numpy's own take 5x longer)."""
    import io

    import pandas as pd

    if not raw.strip():
        return np.empty(0, dtype=np.float64)
    try:
        frame = pd.read_csv(io.BytesIO(raw), header=None, dtype=np.float64, engine="c", na_filter=False,
                            skip_blank_lines=False)
    except (ValueError, pd.errors.ParserError) as error:
        line = _first_bad_line(raw)
        detail = f"line {line[0]}: {line[1]!r}" if line else str(error).splitlines()[0]
        raise ExternalProgramError(f"{what}: not one number a line ({detail})") from None
    if frame.shape[1] != 1:
        line = _first_bad_line(raw)
        detail = f" (line {line[0]}: {line[1]!r})" if line else ""
        raise ExternalProgramError(f"{what}: not one number a line{detail}")
    return frame.iloc[:, 0].to_numpy(dtype=np.float64, copy=True)


def _first_bad_line(raw: bytes) -> tuple[int, str] | None:
    """The first line of a text output that is not one number (for the message only: the slow path)."""
    lines = raw.decode("utf-8", "replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last line
    for number, line in enumerate(lines, 1):
        try:
            value = float(line.strip())
        except ValueError:
            return number, line[:80]
        if value != value:  # nan: no distance
            return number, line[:80]
    return None


class _ProgramOutput:
    """A program's values, read when the runner turns the result into distances (`canonical_distances`), that is,
    after the process's clock has stopped, as a GPU's copy-back is."""

    def __init__(self, load: Callable[[], np.ndarray]):
        self._load = load

    def __array__(self, dtype=None, copy=None):
        values = self._load()
        return values if dtype is None else values.astype(dtype)


def _safe_name(text: str) -> str:
    """A file-name stem for a label (a graph's or a variant's): unsafe characters become '_', with a short hash."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "_", text)
    return cleaned if cleaned == text else f"{cleaned}-{hashlib.sha256(text.encode()).hexdigest()[:8]}"


def _telling_line(path: Path, limit: int = 200) -> str:
    """The line of a program's stderr that says what went wrong: the first naming an error (a compiler's), else
    the last (a Python traceback's exception, an assertion)."""
    try:
        with open(path, "rb") as handle:
            text = handle.read(1 << 20).decode("utf-8", "replace")
    except OSError:
        return ""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    named = [line for line in lines if re.search(r"\berror\b", line, re.IGNORECASE)]
    return (named or lines or [""])[0 if named else -1][:limit]


class ExternalProgram(Implementation):
    name = "external"
    kind = "sssp"
    device = "cpu"    # the harness's side: the host clock times the process; rows say the `device` parameter
    description = (
        "A program built outside the harness, run per source (or once for all sources) on the graph exported in "
        "the format it reads; its distances are read back and verified like any implementation's, its time is "
        "its process's wall time or the time it reports (README: Bring your own implementation)."
    )
    negative_weights = True  # the `negative_weights` parameter decides, in prepare
    timer = "process"        # the row's timer; "program" where a time rule gives the program's own time
    resident = False         # attached to one run folder (its exported graph and scratch): never reused by another
    parameters = {
        "kind": Parameter(str, None, "sssp (distances) or bfs (levels: the implementation external-bfs)",
                          ("sssp", "bfs", None)),
        "command": Parameter(object, None, "the program and its arguments: a list, or a string split by shlex; "
                                           "never a shell; {graph} {source} {source1} {output} {sources} ... "
                                           "filled in"),
        "build": Parameter(object, None, "a command run once per run before the first solve (e.g. a compiler "
                                         "writing into {workdir}); null for none"),
        "graph_format": Parameter(str, "dimacs9", "the format {graph} is written in (datasets/export.py)"),
        "output": Parameter(dict, None, "{file: stdout | {output} | a template, format: text | int32 | int64 | "
                                        "float32 | float64, unreached: a number | max | inf}"),
        "time": Parameter(dict, None, "the program's own time: {regex: one group around the number, unit: s | ms "
                                      "| us | ns, stream: both | stdout | stderr}; null: the process's wall time"),
        "per": Parameter(str, "source", "source: a process per source; run: one for every source ({sources})",
                         ("source", "run")),
        "timeout_s": Parameter(float, DEFAULT_TIMEOUT_S, "seconds before the process group is killed (a timeout "
                                                         "row); at most the config's time_limit"),
        "device": Parameter(str, "cpu", "what the program runs on, as the rows and tables say", ("cpu", "gpu")),
        "negative_weights": Parameter(bool, False, "whether the program solves graphs with negative weights"),
    }

    @classmethod
    def validate_parameters(cls, params: dict[str, Any], where: str = "") -> dict[str, Any]:
        values = super().validate_parameters(params, where)
        kind = values.get("kind") or cls.kind
        if kind != cls.kind:
            other = "external-bfs" if kind == "bfs" else "external"
            prefix = f"{where}: " if where else ""
            raise ConfigError(f"{prefix}{cls.name} solves {cls.kind}; kind {kind} is the implementation {other}")
        try:
            parse_spec({**values, "kind": kind}, cls.name)
        except ConfigError as error:
            raise ConfigError(f"{where}: {error}" if where else str(error)) from None
        return values

    @classmethod
    def implementation_for(cls, params: dict[str, Any]) -> str:
        """The registered name an entry of this implementation runs as: `external` with `kind: bfs` is external-bfs
        (whose rows' kind is bfs); any other entry runs as named (external-bfs refuses kind sssp)."""
        return "external-bfs" if cls.name == "external" and params.get("kind") == "bfs" else cls.name

    LIST_PARAMETERS = ("command", "build")  # a list is their value, not a sweep (a list of lists sweeps them)

    @classmethod
    def row_device(cls, params: dict[str, Any]) -> str:
        """What the rows say the program runs on: the `device` parameter."""
        return params.get("device") or "cpu"

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.spec = parse_spec({**self.params, "kind": self.params.get("kind") or self.kind}, self.name)
        self.root: Path | None = None         # the run's external/ folder (attach), else a temporary one
        self.variant_name = self.name
        self.graph_label = ""
        self.time_limit: float | None = None
        self._temporary: Path | None = None
        self.exports: dict[str, dict[str, Any]] = {}  # format -> what the manifest records of the export
        self.graph_file: Path | None = None
        self._batch: dict[int, Any] = {}      # per: run: source -> its values' loader, or the batch's failure

    # -- the runner's hooks ---------------------------------------------------------------------------------

    def attach(self, run_dir: Path, graph_label: str, variant_name: str, time_limit: float | None) -> None:
        """Work in the run folder: the exported graphs in <run>/external/graphs/, this variant's build and scratch
        in <run>/external/<variant>/; the process is killed at the config's time_limit when timeout_s is longer."""
        self.root = Path(run_dir) / "external"
        self.graph_label, self.variant_name, self.time_limit = graph_label, variant_name, time_limit

    @property
    def timeout_s(self) -> float:
        return min(self.spec.timeout_s, self.time_limit) if self.time_limit else self.spec.timeout_s

    # -- the lifecycle ----------------------------------------------------------------------------------------

    def prepare(self, graph: CSRGraph) -> None:
        if graph.has_negative_weights() and not self.spec.negative_weights:
            raise UnsupportedGraphError(
                f"{self.variant_name} has a negative weight on {graph.name or 'the graph'} (min {graph.weights.min()}) "
                "and its entry does not say the program solves them (negative_weights: true)")
        self.graph = graph
        if self.root is None:
            self._temporary = Path(tempfile.mkdtemp(prefix="sssp-bench-external-"))
            self.root = self._temporary
        self.workdir = self.root / _safe_name(self.variant_name)
        self.scratch = self.workdir / "out"
        self.scratch.mkdir(parents=True, exist_ok=True)
        self._build()
        self._check_program()  # before the export, which can take minutes on a big graph
        self.graph_file = self._export(graph)

    def _build(self) -> None:
        """The entry's `build` command, once per run: a marker holding the command's hash says it finished."""
        if self.spec.build is None:
            return
        arguments = [argument.format_map(self._values()) for argument in self.spec.build]
        marker = self.workdir / ".built"
        digest = hashlib.sha256("\0".join(arguments).encode()).hexdigest()
        if marker.exists() and marker.read_text() == digest:
            return
        code, _ = self._run(arguments, max(self.spec.timeout_s, 600.0), "build")
        if code != 0:
            raise ExternalProgramError(f"build {shlex.join(arguments)} failed: {self._exit_text(code, arguments)}")
        marker.write_text(digest)

    def _export(self, graph: CSRGraph) -> Path:
        """The graph in the program's format, written once per run and graph label (atomically, by export.py)."""
        from ..datasets.export import SUFFIXES, write_graph

        label = self.graph_label or graph.name or "graph"
        folder = self.root / "graphs"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{_safe_name(label)}{SUFFIXES[self.spec.graph_format]}"
        started, reused = time.perf_counter(), path.exists()
        if not reused:
            path = Path(write_graph(graph, self.spec.graph_format, path))
        self.exports[self.spec.graph_format] = {
            "path": str(path.relative_to(self.root.parent)) if self._temporary is None else str(path),
            "bytes": path.stat().st_size, "export_s": None if reused else time.perf_counter() - started,
        }
        return path

    def _check_program(self) -> None:
        """The program exists: a path an executable file, a bare name one on PATH (when the first argument is not
        made from a per-source placeholder)."""
        first = self.spec.command[0]
        if set(_fields(first)) & {"source", "source1", "sources", "sources1", "output", "graph"}:
            return
        program = first.format_map(self._values())
        if os.sep in program or (os.altsep and os.altsep in program):
            if not Path(program).is_file():
                raise ExternalProgramError(f"program {program!r} not found (no such file)")
            if not os.access(program, os.X_OK):
                raise ExternalProgramError(f"program {program!r} is not executable (chmod +x it, or run it "
                                           "through its interpreter)")
        elif shutil.which(program) is None:
            raise ExternalProgramError(f"program {program!r} not found on PATH")

    def solve(self, source: int) -> SolveResult:
        source = int(source)
        if not 0 <= source < self.graph.n:
            raise ValueError(f"source {source} is not a vertex of {self.graph.name or 'the graph'} (n={self.graph.n})")
        if self.spec.per == "run":
            if source not in self._batch:  # a warm-up, or a solve outside the runner's batches: a batch of one
                self.run_batch([source])
            entry = self._batch.pop(source)
            if isinstance(entry, BaseException):
                raise entry
            load, counters = entry
            return SolveResult(_ProgramOutput(load), np.inf, counters)
        values = self._values(source=source)
        output = self._output_path(values)
        arguments = [argument.format_map(values) for argument in self.spec.command]
        code, streams = self._run(arguments, self.timeout_s, "solve")
        if code != 0:
            raise ExternalProgramError(f"{self.variant_name}: {self._exit_text(code, arguments)}")
        counters: dict[str, Any] = {}
        if self.spec.time_regex is not None:
            counters["reported_time_s"] = self._reported_times(streams, 1)[0]
        return SolveResult(_ProgramOutput(lambda: self._read(output, f"{self.variant_name}'s output")), np.inf,
                           counters)

    def run_batch(self, sources: list[int]) -> None:
        """per: run: one process for `sources`; each source's values (or the failure) wait for its `solve`. Never
        raises: a failure fails every source's row."""
        sources = list(dict.fromkeys(int(source) for source in sources))
        self._batch = {}
        try:
            loads = self._run_batch(sources)
        except Exception as error:  # each source's solve raises it, so each gets its row
            self._batch = {source: error for source in sources}
            return
        self._batch = dict(zip(sources, loads))

    def _run_batch(self, sources: list[int]) -> list[tuple[Callable[[], np.ndarray], dict[str, Any]]]:
        n, k = self.graph.n, len(sources)
        values = self._values()
        for name, base in (("sources", 0), ("sources1", 1)):
            path = self.scratch / f"{name}.txt"
            path.write_text("".join(f"{source + base}\n" for source in sources))
            values[name] = str(path)
        per_source_files = set(_fields(self.spec.output_file)) & {"source", "source1"}
        outputs = ([self._output_path(self._values(source=source)) for source in sources] if per_source_files
                   else [self._output_path(values)])
        arguments = [argument.format_map(values) for argument in self.spec.command]
        code, streams = self._run(arguments, self.timeout_s * k, "batch")
        if code != 0:
            raise ExternalProgramError(f"{self.variant_name}: {self._exit_text(code, arguments)}")
        times: list[float | None] = [None] * k
        if self.spec.time_regex is not None:
            times = self._reported_times(streams, k)
        counters = [{"batch_sources": k, **({} if time_s is None else {"reported_time_s": time_s})}
                    for time_s in times]
        what = f"{self.variant_name}'s output"
        if per_source_files:
            return [(lambda path=path: self._read(path, what), counters[index]) for index, path in enumerate(outputs)]
        cache: dict[str, np.ndarray] = {}

        def whole() -> np.ndarray:
            if "values" not in cache:
                cache["values"] = self._read(outputs[0], what)
            return cache["values"]

        def one(index: int) -> np.ndarray:
            everything = whole()
            if len(everything) != n * k:  # the runner's size check says so, for every source
                return everything
            return everything[index * n:(index + 1) * n]

        return [(lambda index=index: one(index), counters[index]) for index in range(k)]

    def teardown(self) -> None:
        self._batch = {}
        if self._temporary is not None:
            shutil.rmtree(self._temporary, ignore_errors=True)
            self._temporary = self.root = None
        elif getattr(self, "scratch", None) is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)
        self.graph = None

    # -- the parts ------------------------------------------------------------------------------------------------

    def _values(self, source: int | None = None) -> dict[str, str]:
        """What the placeholders stand for (per-source ones only when a source is given)."""
        values = {"python": sys.executable, "workdir": str(self.workdir), "output": str(self.scratch / "output")}
        if self.graph is not None:
            values.update(n=str(self.graph.n), m=str(self.graph.m))
        if self.graph_file is not None:
            values["graph"] = str(self.graph_file)
        if source is not None:
            values.update(source=str(source), source1=str(source + 1))
        return values

    def _output_path(self, values: dict[str, str]) -> Path | None:
        """The file the values will be read from (None: standard output), removed now if an earlier solve left it."""
        if self.spec.output_file == STDOUT:
            return None
        path = Path(self.spec.output_file.format_map(values))
        if path.exists() or path.is_symlink():
            path.unlink()
        return path

    def _read(self, path: Path | None, what: str) -> np.ndarray:
        path = self.scratch / "stdout" if path is None else path
        if not path.exists():
            raise ExternalProgramError(f"{what}: the program wrote no {path.name} ({path})")
        values = read_values(path, self.spec.output_format, self.spec.unreached, what)
        path.unlink()  # read: the next solve's output is never this one (an unreadable one stays, to look at)
        return values

    def _run(self, arguments: list[str], timeout_s: float, what: str) -> tuple[int, dict[str, Path]]:
        """Run `arguments` (no shell) with stdout and stderr into files of the scratch folder: (exit status, the
        streams' files). Past `timeout_s` the process group is killed and ExternalTimeout raised."""
        streams = {"stdout": self.scratch / "stdout", "stderr": self.scratch / "stderr"}
        with open(streams["stdout"], "wb") as stdout, open(streams["stderr"], "wb") as stderr:
            try:
                process = subprocess.Popen(arguments, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr,
                                           start_new_session=True)
            except OSError as error:
                raise ExternalProgramError(f"cannot start {arguments[0]!r}: {error.strerror or error}") from None
            try:
                code = process.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                _kill_group(process)
                raise ExternalTimeout(f"{self.variant_name}: the {what} process ran past {timeout_s:g} s "
                                      "(timeout_s, or the config's time_limit) and was killed") from None
            except BaseException:  # Ctrl-C while it runs: leave no process behind
                _kill_group(process)
                raise
        return code, streams

    def _exit_text(self, code: int, arguments: list[str]) -> str:
        stderr = _telling_line(self.scratch / "stderr")
        how = (f"killed by {signal.Signals(-code).name}" if code < 0 and -code in signal.valid_signals()
               else f"exited with status {code}")
        return f"{Path(arguments[0]).name} {how}" + (f": {stderr}" if stderr else "")

    def _reported_times(self, streams: dict[str, Path], count: int) -> list[float]:
        """The program's own time(s), in seconds: `count` matches (one per source), or one divided by `count`."""
        chosen = ["stderr"] if self.spec.output_file == STDOUT else (
            ["stdout", "stderr"] if self.spec.time_stream == "both" else [self.spec.time_stream])
        text = "\n".join(streams[name].read_bytes().decode("utf-8", "replace") for name in chosen)
        found = self.spec.time_regex.findall(text)
        pattern = self.spec.time_regex.pattern
        try:
            numbers = [float(item) * self.spec.time_unit for item in found]
        except ValueError:
            raise ExternalProgramError(f"{self.variant_name}: time.regex {pattern!r} matched {found[0]!r}, not a "
                                       "number") from None
        if len(numbers) == count:
            return numbers
        if len(numbers) == 1:
            return [numbers[0] / count] * count
        expected = "once" if count == 1 else f"once or {count} times (one per source)"
        raise ExternalProgramError(f"{self.variant_name}: time.regex {pattern!r} matched {len(numbers)} times in its "
                                   f"{' and '.join(chosen)}, expected {expected}")


def _kill_group(process: subprocess.Popen) -> None:
    """Kill the process and everything it started (its own session), and reap it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()
    process.wait()


class ExternalBfsProgram(ExternalProgram):
    name = "external-bfs"
    kind = "bfs"
    description = (
        "A BFS program built outside the harness (kind bfs: it writes levels), run and verified like `external` "
        "(README: Bring your own implementation)."
    )
