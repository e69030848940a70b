"""Shards: one config split into n runs that together make the whole run, for several GPUs, nodes or CI jobs.

A config's cells are its (graph, variant) pairs. A cell's sources are independent, so a cell may also be cut into
source ranges: contiguous ranges [first, stop) of its source indexes. A split deals pieces (a whole cell, or one
source range of a cell) into n shards, in one of two ways:

- spread (`run CONFIG --shard i/n`, `slurm`): a cell whose expected cost exceeds SPREAD_ABOVE of a fair share
  (the total over n) is cut into one source range per shard (as many as it has sources, at most), so that every
  shard gets a share of every expensive cell and an estimate that is off for one cell is off for every shard alike
  (the cost estimate gave one cell of issue 38's config 64% of the total; it took 24%). Each cut cell's ranges
  are dealt starting from another range, so that the first ranges, which hold the sources compared with the
  reference, go to different shards (dealt alike, one shard got all four first ranges of issue 38's cut cells,
  and twice the others' verification). The other cells go whole, longest first, each to the shard with the
  least cost so far (ties to the lower index).
- queue (`run --workers`, workers.py): many smaller tasks that idle workers pull, each on one graph, in the order
  the unsplit run runs them (graph-major): guided self-scheduling, each task about QUEUE_SHARE of what is left for
  each worker, never less than 1/QUEUE_SMALLEST of a worker's fair share, so the tasks shrink towards the end and
  no worker waits long for the last one, whatever the estimate said. A task ends at its graph's end, so a worker
  loads a graph once for a run of tasks on it (and keeps it between them: resident.py). A task holds at most one
  piece of a cell (a run keeps one source range per cell): a cell cut at a task's end goes on in the next task.

A config that measures energy is never cut (each cell's energy phase solves its verified sources in one go).

Each shard is a complete run folder, resumable with `--resume` as any run is, whose manifest records
`shard: {index, count, cells, source_ranges, config_hash, estimated_share, split}`: its cells (whole or in part,
in config order), the ranges of those it runs in part (`{graph, variant, first, stop, of}`), the hash of the config
before the split (shards of different configs are never merged) and the split's method, estimate and digest (two
shards of one split have one digest). The runner runs only a shard's pieces and never loads a graph none needs.

The split is deterministic from the config alone (never from what one machine has cached, which would give two
machines two different splits), or from the config and the measured costs it is given:

    cost = arcs x (sources x repetitions + warm-up) x weight of the implementation

- arcs: a catalog graph's size from the catalog (its stand-in has the same size by design); a generator spec's
  from its parameters without generating it (`estimated_arcs`: exact for grid, chain, star, complete, fixed-degree
  and small-world, m for random and rmat, edgefactor x 2^scale for kron, the mean degree for road and
  communities, a near-interior count for mesh, n^1.143 for forest-fire, fitted to Gen-ForestFire); a .csr
  file's from its header.
- sources: the config's count, or the variant's own `sources: N` when smaller.
- weight: IMPLEMENTATION_WEIGHTS, the wall time per reached arc relative to cpu-dijkstra (end-to-end times of
  the H200 reports in experiments/*/measured/, geometric mean over graphs); 1 for an implementation not listed.
  A Bellman-Ford's cost grows with the graph's hop diameter, which the estimate does not know, and a GPU cell's
  per-cell setup is not in it at all: the estimate is a guess, which the spread and the queue are built to survive.

Measured costs (`run --costs-from RUN`, `measured_costs`): an earlier run of the same cells, a run folder or a
record: each cell's seconds per solve (its wall time in the run's `timing.cells` less its setup: solves and
verification; or, for a run from before timing, its rows' end-to-end solve times) times this config's solves, plus
its setup per piece (prepare, warm-up and teardown; the prepare rows' times), which every piece of a cut cell pays
again, and (from `timing.cells`) the verification of its first piece, which the piece holding the sources compared
with the reference pays rather than every piece its share. Where that run picked the same sources (count, seed,
min_reached), its rows say how a cell's solve time divides among them, and a range costs its own sources' share
(sources are not alike: a source compared with the reference also copies its distances back, 12 ms end to end on
rmat-1M against 1.5 ms for one checked on the device).
Measure on a warm run: a cold one's setup holds the kernels' compile times. A cell that run lacks keeps the
config's estimate, scaled to seconds by the cells both have. The shard record's `split.estimate` says which was used
(`kind`: config or measured, the run, how many cells each).

`merge_shards` joins a complete set of shard folders into one run folder (rows in the unsplit run's order, a cut
cell's prepare rows reduced to one per outcome, manifests combined, `merged_from` naming each shard and where it
ran) that `report` and `compare` read like any run, e.g. for a regression gate against a stored baseline. It
refuses, in one line, shards of different splits, a missing shard, pieces that overlap or leave a gap, and a solve
two shards both recorded (results/shards.py). One difference from an unsplit run remains: a solve over the time
limit stops only its own source range (the unsplit run records the cell's later sources as "not run"), so a cell
that timed out may hold more measured solves than the unsplit run would.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from ..errors import UserError
from ..jsonfile import read_json, write_json_atomic, write_text_atomic
from ..results.rows import read_rows
from ..results.schema import POWER_FOLDER, ROWS_FILE
from ..results.shards import (coverage_problems, estimate_text, join_problems, joined, row_statuses, shard_entry,
                              shard_problems)
from .config import Config, GraphEntry
from .order import variant_run_order

# Wall time per reached arc relative to cpu-dijkstra's (see the module docstring for where they come from).
IMPLEMENTATION_WEIGHTS: dict[str, float] = {
    "cpu-dijkstra": 1.0, "cpu-bf-queue": 1.8, "cpu-bf": 4.9, "cpu-bfs": 0.14,
    "lonestar": 0.085, "bf-edge": 0.13, "bf-frontier": 0.09, "hbf": 0.036, "near-far": 0.024, "workfront": 0.019,
    "bfs4k": 0.0024, "bfs-vwarp": 0.0039, "bfs-edge": 0.005, "bfs-harish": 0.0053,
}
# A forest fire densifies: arcs ~ n^a. Gen-ForestFire (forward 0.35, backward 0.32): 7,247,463 arcs on 10^6 vertices.
FOREST_FIRE_EXPONENT = 1.143
SPREAD_ABOVE = 0.25
"""spread: a cell expected to cost more than this fraction of a fair share (total / shards) is cut, one source
range per shard."""
QUEUE_SHARE = 0.5
"""queue: each task is about this fraction of what is left per worker..."""
QUEUE_SMALLEST = 16
"""... and at least 1/QUEUE_SMALLEST of a worker's fair share (total / workers)."""
SPLIT_FILE = "split.json"
"""Where `run --workers` keeps the split it began with (RUN/split.json), so that --resume runs the same tasks."""


@dataclass(frozen=True)
class Cell:
    """One (graph, variant) pair of a config, its expected cost (arbitrary units, or seconds when measured; only
    ratios matter) and its sources (per repetition)."""

    graph: str
    variant: str
    cost: float
    sources: int = 0
    setup: float = 0.0  # of `cost`, what each piece of the cell pays once (measured: its prepare and warm-up)
    checked: float = 0.0  # of `cost`, the reference compares of its first `checked_sources` sources (measured)
    checked_sources: int = 0
    shares: tuple[float, ...] = ()  # each source's share of the solves (measured; they sum to 1), else even shares

    def piece_cost(self, first: int, stop: int) -> float:
        """Sources [first, stop) as one piece: a whole setup, its share of the solves and of the reference compares
        (which only the first checked_sources have)."""
        share = sum(self.shares[first:stop]) if self.shares else (stop - first) / max(1, self.sources)
        held = max(0, min(stop, self.checked_sources) - first) / self.checked_sources if self.checked_sources else 0
        return self.setup + (self.cost - self.setup - self.checked) * share + self.checked * held


@dataclass(frozen=True)
class Piece:
    """A cell's source indexes [first, stop) of its `of` (the whole cell when first = 0 and stop = of), and that
    part's expected cost."""

    graph: str
    variant: str
    first: int
    stop: int
    of: int
    cost: float

    @property
    def whole(self) -> bool:
        return self.first == 0 and self.stop == self.of

    @property
    def cell(self) -> tuple[str, str]:
        return self.graph, self.variant


@dataclass(frozen=True)
class Split:
    """A config's pieces dealt into shards (`shards[i]`: shard i + 1's pieces, in config order) by `method`
    ("spread" or "queue"), with the estimate it used (`estimate`: {"kind": "config"} or the measured run's
    record)."""

    method: str
    shards: tuple[tuple[Piece, ...], ...]
    estimate: dict[str, Any] = field(default_factory=lambda: {"kind": "config"})

    @property
    def count(self) -> int:
        return len(self.shards)

    @property
    def digest(self) -> str:
        """Names the split: its method, estimate and every shard's pieces (not their costs)."""
        pieces = [[[p.graph, p.variant, p.first, p.stop, p.of] for p in shard] for shard in self.shards]
        text = json.dumps({"method": self.method, "estimate": self.estimate, "shards": pieces}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def share(self, index: int) -> float:
        """Shard `index`'s (from 1) share of the expected cost."""
        total = sum(piece.cost for shard in self.shards for piece in shard)
        return sum(piece.cost for piece in self.shards[index - 1]) / total if total else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"method": self.method, "estimate": self.estimate, "digest": self.digest,
                "shards": [[[p.graph, p.variant, p.first, p.stop, p.of, p.cost] for p in shard]
                           for shard in self.shards]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Split":
        return cls(data["method"], tuple(tuple(Piece(*item) for item in shard) for shard in data["shards"]),
                   data.get("estimate") or {"kind": "config"})


def parse_shard(text: str, option: str = "--shard") -> tuple[int, int]:
    """'2/4' -> (2, 4): shard 2 of 4, counted from 1."""
    index_text, slash, count_text = text.partition("/")
    try:
        index, count = int(index_text), int(count_text)
    except ValueError:
        index = count = 0
    if not slash or count < 1 or not 1 <= index <= count:
        raise UserError(f"{option} {text}: expected I/N, shard I of N counted from 1 (e.g. 1/4)")
    return index, count


def estimated_arcs(entry: GraphEntry, datasets: Path = Path("datasets")) -> float:
    """The arcs of a config's graph, from the catalog, a generator spec's parameters or a file's header (a graph
    file or an imported graph's, from the dataset cache: a graph file is converted here if it was not yet)."""
    from ..datasets import catalog
    from ..datasets.resolve import resolve_path
    from ..graph.load import is_generator_spec

    if is_generator_spec(entry.graph):
        return spec_arcs(entry.graph)
    found = catalog.find(entry.graph)
    if found is not None:
        if found.generated and found.spec:
            return spec_arcs(found.spec)
        return float(found.arcs)
    from ..graph.csr import read_header

    path, _ = resolve_path(entry.graph, datasets, entry.convert)
    return float(read_header(path)["m"])


def spec_arcs(spec: str) -> float:
    """The arcs a generator spec makes, from its parameters alone (see the module docstring for how exact)."""
    from ..graph import generators

    kind, p = generators.parse_spec(spec)
    both_ways = 1 if p.get("directed", True) else 2
    if kind in ("random", "rmat"):
        return float(p["m"])
    if kind == "kron":
        return float(p["edgefactor"] * 2 ** p["scale"] * both_ways)
    if kind == "grid":
        return 2.0 * (p["rows"] * (p["cols"] - 1) + (p["rows"] - 1) * p["cols"])
    if kind in ("chain", "star"):
        return float((p["n"] - 1) * both_ways)
    if kind == "complete":
        return float(p["n"] * (p["n"] - 1))
    if kind in ("dag", "fixed-degree"):
        return float(p["n"] * p["degree"])
    if kind == "communities":
        return p["n"] * (p["intra_degree"] + p["inter_degree"])
    if kind == "road":
        return p["n"] * p["degree"]
    if kind == "mesh":
        nodes, dofs = p["nx"] * p["ny"] * p["nz"], p["dofs"]
        return float(nodes * (p["neighbours"] * dofs * dofs + dofs * (dofs - 1)) + (nodes * dofs if p["self_loops"] else 0))
    if kind == "small-world":
        return 2.0 * p["n"] * p["k"]
    if kind == "forest-fire":
        return min(float(p["max_arcs"]), float(p["n"]) ** FOREST_FIRE_EXPONENT)
    return float(p.get("m") or p.get("n") or 1)  # a generator this estimate does not know yet


def config_cells(config: Config, measured: "MeasuredCosts | None" = None) -> list[Cell]:
    """Every cell the config runs, in its order (graph-major), with its expected cost: from the config's estimate,
    or from `measured` where it has the cell (see the module docstring)."""
    sizes = {entry.label: estimated_arcs(entry, config.datasets) for entry in config.graphs}
    cells = []
    for entry in config.graphs:
        for variant in config.variants_on(entry.label):
            sources = min(variant.max_sources or config.source_count, config.source_count)
            solves = sources * config.repetitions + config.warmup
            weight = IMPLEMENTATION_WEIGHTS.get(variant.implementation, 1.0)
            cells.append(Cell(entry.label, variant.name, sizes[entry.label] * solves * weight, sources))
    if measured is None:
        return cells
    sources = {"count": config.source_count, "seed": config.source_seed, "min_reached": config.min_reached}
    return measured.costs(cells, config.repetitions, min(config.reference_sources, config.source_count), sources)


@dataclass
class CellMeasure:
    """What an earlier run measured of one cell: the seconds of its solves (verification included) and how many,
    the seconds of its setups (prepare, warm-up, teardown) and how many pieces paid one, and the verification seconds
    of its pieces that began at source 0 (they hold the sources compared with the reference: most of a cell's
    verification, 0.23 s against 0.015 s for the next 25 sources of rmat-1M's delta-stepping-async on an H200) and how
    many such pieces."""

    solve_s: float = 0.0
    solves: int = 0
    setup_s: float = 0.0
    pieces: int = 0
    checked_s: float = 0.0
    first_pieces: int = 0
    per_source: dict[int, float] = field(default_factory=dict)  # source index -> its solves' seconds (the rows)


@dataclass
class MeasuredCosts:
    """Each cell's measured costs in an earlier run (`run --costs-from RUN`), and which run they came from."""

    run: str
    config_hash: str | None
    per_cell: dict[tuple[str, str], CellMeasure]
    source: str  # "timing" (the manifest's cell records) or "rows"
    sources: dict[str, Any] | None = None  # the run's config `sources` (count, seed, min_reached)

    def costs(self, cells: list[Cell], repetitions: int, checked_sources: int = 0,
              sources: dict[str, Any] | None = None) -> list[Cell]:
        """The cells with measured costs where the run has them (their setup and reference compares apart: the
        first `checked_sources` are compared), the others' estimates scaled to seconds. Where the run picked the
        same sources (`sources`: this config's count, seed and min_reached), each cell's solves are shared among
        its sources as they took in that run."""
        known = [cell for cell in cells if self._measured(cell)]
        if not known:
            raise UserError(f"--costs-from {self.run}: that run has no measured solve of this config's cells "
                            f"(graph and variant names must match)")
        same_sources = sources is not None and self.sources == sources
        measured = {(cell.graph, cell.variant): self._cell(cell, repetitions, checked_sources, same_sources)
                    for cell in known}
        estimated = sum(cell.cost for cell in known)
        scale = sum(cell.cost for cell in measured.values()) / estimated if estimated > 0 else 1.0
        return [measured.get((cell.graph, cell.variant)) or Cell(cell.graph, cell.variant, cell.cost * scale,
                                                                 cell.sources) for cell in cells]

    def _measured(self, cell: Cell) -> bool:
        return self.per_cell.get((cell.graph, cell.variant), CellMeasure()).solves > 0

    def _cell(self, cell: Cell, repetitions: int, checked_sources: int, same_sources: bool) -> Cell:
        measure = self.per_cell[(cell.graph, cell.variant)]
        setup = measure.setup_s / max(1, measure.pieces)
        solves = measure.solve_s / measure.solves * max(1, cell.sources * repetitions)
        # The reference compares are a cell's few most expensive checks: the piece holding its first sources pays them
        checked = (min(solves, measure.checked_s / measure.first_pieces) if measure.first_pieces and checked_sources
                   else 0.0)
        return Cell(cell.graph, cell.variant, solves + setup, cell.sources, setup, checked,
                    min(checked_sources, cell.sources) if checked else 0,
                    _shares(measure.per_source, cell.sources) if same_sources else ())

    def record(self, cells: list[Cell]) -> dict[str, Any]:
        measured = sum(1 for cell in cells if self._measured(cell))
        return {"kind": "measured", "run": self.run, "config_hash": self.config_hash, "from": self.source,
                "cells_measured": measured, "cells_estimated": len(cells) - measured}


def measured_costs(path: Path) -> MeasuredCosts:
    """The per-cell costs an earlier run measured: a run folder (a merged one too) or a record folder's runs. A
    cell's setup (prepare, warm-up, teardown) is kept apart from its solves, since every piece of a cut cell pays
    it again: measure on a warm run (kernels compiled, caches filled), or the compile time counts as setup."""
    manifest_path = Path(path) / "manifest.json"
    if manifest_path.is_file():  # a run folder whose manifest times its cells: its rows read without pandas
        manifest = read_json(manifest_path)
        if (manifest.get("timing") or {}).get("cells"):
            rows_path = Path(path) / ROWS_FILE
            rows = read_rows(rows_path)[0] if rows_path.is_file() else []
            return _measured_from([(manifest, rows)], Path(path))
    from ..results.load import load_runs

    return _measured_from(load_runs(path), Path(path))


def _measured_from(runs: list[tuple[dict[str, Any], Any]], path: Path) -> MeasuredCosts:
    """The per-cell costs of (manifest, rows) pairs (rows: a DataFrame or a list of dicts): the manifest's cell
    records, else (older runs) the rows; and each source's solve seconds from the rows."""
    per_cell: dict[tuple[str, str], CellMeasure] = {}
    used = "timing"
    for manifest, rows in runs:
        records = rows.to_dict("records") if hasattr(rows, "to_dict") else list(rows or [])
        for row in records:
            seconds = _row_seconds(row)
            if row.get("phase") == "solve" and seconds is not None and _is_number(row.get("source_index")):
                per_source = per_cell.setdefault((row["graph"], row["variant"]), CellMeasure()).per_source
                index = int(row["source_index"])
                per_source[index] = per_source.get(index, 0.0) + float(seconds)
        timed_cells = (manifest.get("timing") or {}).get("cells")
        if timed_cells:
            for item in timed_cells:
                measure = per_cell.setdefault((item["graph"], item["variant"]), CellMeasure())
                setup = float(item.get("setup_s") or 0.0)
                measure.solve_s += max(0.0, float(item.get("wall_s") or 0.0) - setup)
                measure.solves += int(item.get("solves") or 0)
                measure.setup_s += setup
                measure.pieces += 1
                if int(item.get("first") or 0) == 0:
                    measure.checked_s += float(item.get("verify_s") or 0.0)
                    measure.first_pieces += 1
            continue
        used = "rows"
        for row in records:
            seconds = _row_seconds(row)
            if row.get("phase") not in ("prepare", "solve") or seconds is None:
                continue
            measure = per_cell.setdefault((row["graph"], row["variant"]), CellMeasure())
            if row["phase"] == "solve":
                measure.solve_s += float(seconds)
                measure.solves += 1
            else:
                measure.setup_s += float(seconds)
                measure.pieces += 1
    first = runs[0][0]
    return MeasuredCosts(str(first.get("run_id") or path.name), first.get("config_hash"), per_cell, used,
                         (first.get("config") or {}).get("sources"))


def _shares(per_source: dict[int, float], sources: int) -> tuple[float, ...]:
    """Each of the first `sources` source indexes' share of their summed seconds; () (even shares) unless every one
    was measured."""
    seconds = [per_source.get(index) for index in range(sources)]
    if not sources or any(value is None for value in seconds):
        return ()
    total = sum(seconds)
    return tuple(value / total for value in seconds) if total > 0 else ()


def _row_seconds(row: dict[str, Any]) -> float | None:
    """A row's seconds: end to end where it has them, else its timed seconds; None where it has neither."""
    return next((row[name] for name in ("end_to_end_s", "time_s") if _is_number(row.get(name))), None)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and value == value


def _estimate_record(cells: list[Cell], measured: MeasuredCosts | None) -> dict[str, Any]:
    return {"kind": "config"} if measured is None else measured.record(cells)


def source_ranges(sources: int, parts: int) -> list[tuple[int, int]]:
    """[0, sources) cut into `parts` contiguous ranges whose sizes differ by at most one (the larger first)."""
    parts = max(1, min(parts, sources))
    size, extra = divmod(sources, parts)
    ranges, first = [], 0
    for part in range(parts):
        stop = first + size + (1 if part < extra else 0)
        ranges.append((first, stop))
        first = stop
    return ranges


def spread_split(config: Config, count: int, measured: MeasuredCosts | None = None) -> Split:
    """The `spread` split into `count` shards (module docstring): expensive cells cut into one source range per
    shard, the others dealt whole, longest first, to the least loaded shard."""
    cells = config_cells(config, measured)
    order = {cell_key: position for position, cell_key in enumerate((cell.graph, cell.variant) for cell in cells)}
    total = sum(cell.cost for cell in cells)
    fair = total / count if count else 0.0
    shards: list[list[Piece]] = [[] for _ in range(count)]
    loads = [0.0] * count

    def deal(piece: Piece, allowed: list[int]) -> int:
        lightest = min(allowed, key=lambda index: (loads[index], index))
        shards[lightest].append(piece)
        loads[lightest] += piece.cost
        return lightest

    cut = [cell for cell in cells if count > 1 and not config.energy and cell.sources > 1
           and cell.cost > SPREAD_ABOVE * fair]
    for turn, cell in enumerate(sorted(cut, key=lambda cell: (-cell.cost, order[(cell.graph, cell.variant)]))):
        holding: set[int] = set()
        ranges = source_ranges(cell.sources, count)
        # Each cut cell's ranges dealt from another one on: the first range holds the sources compared with the
        # reference (the costlier checks), and dealt first every time it would go to one shard for every cell
        ranges = ranges[turn % len(ranges):] + ranges[:turn % len(ranges)]
        for first, stop in ranges:
            piece = Piece(cell.graph, cell.variant, first, stop, cell.sources, cell.piece_cost(first, stop))
            holding.add(deal(piece, [index for index in range(count) if index not in holding]))
    cut_cells = {(cell.graph, cell.variant) for cell in cut}
    for cell in sorted((cell for cell in cells if (cell.graph, cell.variant) not in cut_cells),
                       key=lambda cell: (-cell.cost, order[(cell.graph, cell.variant)])):
        deal(Piece(cell.graph, cell.variant, 0, cell.sources, cell.sources, cell.cost), list(range(count)))
    ordered = tuple(tuple(sorted(shard, key=lambda piece: order[piece.cell])) for shard in shards)
    return Split("spread", ordered, _estimate_record(cells, measured))


def queue_split(config: Config, workers: int, measured: MeasuredCosts | None = None) -> Split:
    """The `queue` split for `workers` workers (module docstring): tasks in run order, each on one graph, each about
    QUEUE_SHARE of what is left per worker and at least 1/QUEUE_SMALLEST of a worker's fair share."""
    cells = config_cells(config, measured)
    total = sum(cell.cost for cell in cells)
    smallest = total / (workers * QUEUE_SMALLEST) if total else 0.0
    by_graph: dict[str, dict[str, Cell]] = {}
    for cell in cells:
        by_graph.setdefault(cell.graph, {})[cell.variant] = cell
    tasks: list[tuple[Piece, ...]] = []
    left = total
    task: list[Piece] = []
    task_cost, target = 0.0, None

    def close_task() -> None:
        nonlocal task, task_cost, target, left
        if task:
            tasks.append(tuple(task))
            left -= task_cost
        task, task_cost, target = [], 0.0, None

    for entry in config.graphs:
        named = by_graph.get(entry.label, {})
        running = [named[name] for name in variant_run_order(list(named), config.source_seed, entry.label)]
        for cell in running:
            first = 0
            while first < cell.sources:
                if target is None:
                    target = max(QUEUE_SHARE * left / workers, smallest)
                stop = _largest_stop(cell, first, target - task_cost)
                if stop == first and task:  # the task is full: close it, and this cell opens the next
                    close_task()
                    continue
                stop = max(stop, first + 1)
                rest, take = cell.sources - first, stop - first
                if rest - take <= max(1, rest // 10) and rest - take < take:  # no tail of a source or two
                    stop = cell.sources
                piece = Piece(cell.graph, cell.variant, first, stop, cell.sources, cell.piece_cost(first, stop))
                task.append(piece)
                task_cost += piece.cost
                first = stop
                if first < cell.sources:  # a run keeps one source range per cell, so a task one piece of it:
                    close_task()  # the cell's next piece opens the next task
        close_task()  # a graph's end ends its task
    if not tasks:
        tasks = [()]
    order = {(cell.graph, cell.variant): position for position, cell in enumerate(cells)}
    return Split("queue", tuple(tuple(sorted(queued, key=lambda piece: order[piece.cell])) for queued in tasks),
                 _estimate_record(cells, measured))


def _largest_stop(cell: Cell, first: int, room: float) -> int:
    """The largest stop whose piece [first, stop) of `cell` costs at most `room` (first where none does)."""
    low, high = first, cell.sources  # piece_cost grows with stop: the answer lies in [low, high]
    while low < high:
        middle = (low + high + 1) // 2
        if cell.piece_cost(first, middle) <= room:
            low = middle
        else:
            high = middle - 1
    return low


def split_cells(config: Config, count: int, measured: MeasuredCosts | None = None) -> list[list[Piece]]:
    """The spread split's shards (each a list of pieces in config order)."""
    return [list(shard) for shard in spread_split(config, count, measured).shards]


def select_shard(config: Config, index: int, count: int, measured: MeasuredCosts | None = None) -> Config:
    """The config restricted to shard `index` of `count` (from 1) of the spread split: only its pieces run, only
    their graphs load."""
    return apply_shard(config, spread_split(config, count, measured), index)


def apply_shard(config: Config, split: Split, index: int) -> Config:
    """The config restricted to shard `index` (from 1) of `split`. The shard (index, count, cells, source ranges)
    joins the config's hash, so `--resume` continues only the same shard."""
    mine = split.shards[index - 1]
    pairs = [[piece.graph, piece.variant] for piece in mine]
    ranges = [{"graph": piece.graph, "variant": piece.variant, "first": piece.first, "stop": piece.stop,
               "of": piece.of} for piece in mine if not piece.whole]
    config.shard = {
        "index": index, "count": split.count, "cells": pairs, **({"source_ranges": ranges} if ranges else {}),
        "config_hash": config.hash, "estimated_share": split.share(index),
        "split": {"method": split.method, "estimate": split.estimate, "digest": split.digest},
    }
    _restrict(config, mine)
    config.raw["shard"] = {"index": index, "count": split.count, "cells": pairs,
                           **({"source_ranges": ranges} if ranges else {})}
    return config


def restore_shard(config: Config, record: dict[str, Any]) -> Config:
    """The config restricted to the shard a run's manifest records (`record`: its `shard`), to resume it: the same
    pieces whatever split (and estimate) made them."""
    if record.get("config_hash") not in (None, config.hash):
        raise UserError(f"the shard was split from a config with hash {record.get('config_hash')}, this one has "
                        f"{config.hash}; resume it with the config it was started with")
    config.shard = {**record, "config_hash": config.hash}
    _restrict(config, shard_pieces(record))
    config.raw["shard"] = {key: record[key] for key in ("index", "count", "cells", "source_ranges") if key in record}
    return config


def shard_pieces(record: dict[str, Any]) -> list[Piece]:
    """The pieces a manifest's shard record names (a whole cell's size is not recorded: first = stop = of = 0)."""
    ranges = {(item["graph"], item["variant"]): item for item in record.get("source_ranges") or []}
    pieces = []
    for graph, variant in record["cells"]:
        item = ranges.get((graph, variant))
        pieces.append(Piece(graph, variant, int(item["first"]), int(item["stop"]), int(item["of"]), 0.0) if item
                      else Piece(graph, variant, 0, 0, 0, 0.0))
    return pieces


def _restrict(config: Config, pieces: tuple[Piece, ...] | list[Piece]) -> None:
    cells = [piece.cell for piece in pieces]
    twice = sorted({cell for cell in cells if cells.count(cell) > 1})
    if twice:  # a run keeps one source range per cell: the second would silently replace the first
        raise UserError(f"the shard holds two source ranges of cell {'/'.join(twice[0])}; a run keeps one range per "
                        f"cell, so the split must give a shard at most one piece of each cell")
    config.cells = frozenset(piece.cell for piece in pieces)
    config.source_ranges = {piece.cell: (piece.first, piece.stop) for piece in pieces if not piece.whole}
    config.graphs = [entry for entry in config.graphs if any(piece.graph == entry.label for piece in pieces)]
    config.variants = [variant for variant in config.variants if any(piece.variant == variant.name
                                                                     for piece in pieces)]


def shard_run_id(config_name: str, index: int, count: int) -> str:
    return f"{config_name}-shard-{index}-of-{count}"


def describe_split(config: Config, count: int, measured: MeasuredCosts | None = None) -> list[str]:
    """One line per shard of the spread split: its share of the expected cost and its pieces."""
    split = spread_split(config, count, measured)
    return [f"shard {index}/{count}: {split.share(index):.0%} of the expected cost, {len(shard)} cell(s)"
            + (f" ({sum(not piece.whole for piece in shard)} in part)" if any(not p.whole for p in shard) else "")
            + ": " + ", ".join(describe_piece(piece) for piece in shard)
            for index, shard in enumerate(split.shards, start=1)]


def describe_piece(piece: Piece) -> str:
    text = f"{piece.graph}/{piece.variant}"
    return text if piece.whole else f"{text}[{piece.first}:{piece.stop}]"


# -- merging --------------------------------------------------------------------------------------------------


def merge_shards(shard_dirs: list[Path], into: Path, log: Callable[[str], None] | None = None,
                 coordinator: Callable[[], dict[str, Any]] | None = None) -> Path:
    """Join one complete split's shard folders into the run folder `into`: rows in the unsplit run's order (a cell
    cut into source ranges: one prepare row per outcome, its solves by repetition and source), one manifest for
    the whole config (the config before the split and its hash, the graphs of every shard, the statuses counted
    from the rows, every shard's timing) with `merged_from` recording each shard's run, host, GPU, rows and
    attempts. Refused, in one line, when the folders are not exactly one split whose pieces cover every cell's
    sources once, or when two shards recorded the same solve. `into` may hold an earlier merge of the same shards,
    which is replaced; never another run. `coordinator()`: the clock of a `--workers` run (run/workers.py), kept in
    the merged timing just before the manifest is written, its `elapsed_s` the run's."""
    log = log or (lambda message: None)
    loaded = []
    for shard_dir in shard_dirs:
        manifest_path = Path(shard_dir) / "manifest.json"
        if not manifest_path.is_file():
            raise UserError(f"{shard_dir}: not a run folder (no manifest.json)")
        manifest = read_json(manifest_path)
        manifest.setdefault("run_id", Path(shard_dir).name)
        loaded.append((Path(shard_dir), manifest))
    if not loaded:
        raise UserError("merge: no shard folder given")
    manifests = [manifest for _, manifest in loaded]
    problems = shard_problems(manifests) or coverage_problems(manifests)  # before reading any rows
    if not problems:
        loaded.sort(key=lambda item: item[1]["shard"]["index"])
        lines = [complete_lines(shard_dir / "rows.jsonl") for shard_dir, _ in loaded]
        rows = [[json.loads(line) for line in shard_lines] for shard_lines in lines]
        problems = join_problems([manifest for _, manifest in loaded], rows)
    if problems:
        raise UserError(f"cannot merge: {problems[0]}" + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
    _check_into(into, {str(manifest.get("run_id")) for _, manifest in loaded})
    merged_from = []
    for (shard_dir, manifest), shard_rows in zip(loaded, rows):
        merged_from.append({**shard_entry(manifest, shard_rows),
                            "path": os.path.relpath(shard_dir.resolve(), into.resolve()),
                            "attempts": _attempts(shard_dir)})
        if manifest.get("status") != "complete":
            shard = manifest["shard"]
            log(f"warning: shard {shard['index']}/{shard['count']} ({shard_dir}) is {manifest.get('status')}: "
                f"the merged run covers only what it finished")

    merged, order = joined(into.name, [manifest for _, manifest in loaded], rows, merged_from)
    into.mkdir(parents=True, exist_ok=True)
    write_text_atomic(into / "rows.jsonl", "".join(lines[shard][row] + "\n" for shard, row in order))
    _copy_power_traces([shard_dir for shard_dir, _ in loaded], into)
    if coordinator is not None and merged.get("timing") is not None:
        merged["timing"]["coordinator"] = coordinator()
        merged["timing"]["elapsed_s"] = merged["timing"]["coordinator"]["elapsed_s"]
    write_json_atomic(into / "manifest.json", merged)
    return into


def merge_when_complete(shard_dir: Path, into: Path, log: Callable[[str], None] | None = None) -> Path | None:
    """`run --shard I/N --merge-into INTO`: the split merged into INTO by the last of its shards to finish, in that
    shard's own process, so no `merge` process starts after the last shard (about a second on the device: the
    interpreter, the imports and the rows). The split's shards are the run folders beside `shard_dir` (its
    `--output`) with the same split digest; while one of them is not complete this returns None and a later shard
    merges. Two shards finishing at once take turns on a lock on that folder: the second finds the merge done (INTO's
    `merged_from` names every shard with the finish time it has now) and leaves it."""
    log = log or (lambda message: None)
    shard = read_json(Path(shard_dir) / "manifest.json").get("shard") or {}
    digest, count = (shard.get("split") or {}).get("digest"), int(shard.get("count") or 0)
    folder = Path(shard_dir).parent
    with _folder_lock(folder):
        complete: dict[int, tuple[Path, dict[str, Any]]] = {}
        for candidate in shard_dirs_in(folder):
            manifest = read_json(candidate / "manifest.json")
            record = manifest.get("shard") or {}
            if (record.get("split") or {}).get("digest") == digest and manifest.get("status") == "complete":
                complete[int(record["index"])] = (candidate, manifest)
        if len(complete) < count:
            log(f"shard {shard.get('index')}/{count} complete; {len(complete)} of {count} are: the last to finish "
                f"merges into {into}")
            return None
        if _merged_already(into, [manifest for _, manifest in complete.values()]):
            return None
        return merge_shards([path for path, _ in sorted(complete.values(), key=lambda item: item[1]["shard"]["index"])],
                            into, log=log)


@contextlib.contextmanager
def _folder_lock(folder: Path) -> Iterator[None]:
    """An exclusive lock on a folder (flock on its descriptor, Linux and macOS): held by one process at a time,
    released when it ends, however it ends."""
    import fcntl

    descriptor = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # closing releases the lock


def _merged_already(into: Path, manifests: list[dict[str, Any]]) -> bool:
    manifest_path = into / "manifest.json"
    if not manifest_path.is_file():
        return False
    merged = {entry.get("run_id"): entry.get("finished") for entry in read_json(manifest_path).get("merged_from") or []}
    return merged == {manifest.get("run_id"): manifest.get("finished") for manifest in manifests}


def _copy_power_traces(shard_dirs: list[Path], into: Path) -> None:
    """The shards' power traces (config `energy`, results/energy.py) into the merged run's power/, where its energy
    rows name them: each (graph, variant) ran in one shard (a config that measures energy is never cut), so their
    names never clash."""
    for shard_dir in shard_dirs:
        folder = shard_dir / POWER_FOLDER
        if folder.resolve() == (into / POWER_FOLDER).resolve() or not folder.is_dir():
            continue
        for trace in sorted(folder.glob("*.csv")):
            (into / POWER_FOLDER).mkdir(parents=True, exist_ok=True)
            shutil.copy2(trace, into / POWER_FOLDER / trace.name)


def _attempts(shard_dir: Path) -> list[dict[str, Any]]:
    """What `run --workers` recorded of each attempt at a shard (workers.run_shard); none for a plain `--shard`."""
    path = shard_dir / "attempts.jsonl"
    return [json.loads(line) for line in complete_lines(path)] if path.exists() else []


def _check_into(into: Path, shard_run_ids: set[str]) -> None:
    """`into` is empty, holds only the shards' folders, or holds an earlier merge (which is replaced)."""
    manifest_path = into / "manifest.json"
    if manifest_path.is_file():
        if "merged_from" not in read_json(manifest_path):
            raise UserError(f"{into}: already holds a run that is not a merge of shards; merge into another folder")
    elif into.is_dir() and (into / "rows.jsonl").exists():
        raise UserError(f"{into}: already holds rows.jsonl; merge into another folder")


def complete_lines(rows_path: Path) -> list[str]:
    """The rows of a shard, without the partial last line a crash can leave (a resume would cut it too)."""
    if not rows_path.exists():
        return []
    lines = [line for line in rows_path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if lines:
        try:
            json.loads(lines[-1])
        except json.JSONDecodeError:
            lines.pop()
    return lines


def shard_dirs_in(folder: Path) -> list[Path]:
    """The run folders directly inside `folder` whose manifests say they are shards, in name order."""
    found = []
    for child in sorted(Path(folder).iterdir()) if Path(folder).is_dir() else []:
        manifest_path = child / "manifest.json"
        if manifest_path.is_file():
            try:
                if json.loads(manifest_path.read_text()).get("shard"):
                    found.append(child)
            except (json.JSONDecodeError, OSError):
                continue
    return found


__all__ = [
    "Cell", "IMPLEMENTATION_WEIGHTS", "MeasuredCosts", "Piece", "Split", "apply_shard", "complete_lines",
    "config_cells", "describe_split", "estimated_arcs", "measured_costs", "merge_shards", "parse_shard",
    "queue_split", "restore_shard", "row_statuses", "select_shard", "shard_dirs_in", "shard_pieces",
    "shard_run_id", "spec_arcs", "split_cells", "spread_split",
]
