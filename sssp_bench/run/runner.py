"""The one trial driver: every implementation x graph x source, timed, verified and recorded as it goes.

For each graph: load (mapped, not copied), apply the config's weights, pick the shared sources. For each
variant: prepare once (timed apart), warm up, then solve every source `repetitions` times. A shard (shards.py)
runs only its (graph, variant) cells and loads no graph that has none. Each solve is
timed by the runner: a CPU implementation by the host clock around solve + synchronize; a GPU implementation
(device "gpu") by CUDA events recorded around solve on the current stream (distance initialisation included,
the graph upload, done in prepare, excluded), the row's `timer` saying which; an external program
(impls/external.py) by the host clock around its process (timer "process"), or by the time it reports itself
("program"). The distance copy-back counts only in the host-clock `end_to_end_s`, and happens only where a check
needs the distances on the host: a GPU result that the device certificate checks, at a source without a reference
compare, stays on the device, its reached vertices and arcs counted there. Each solve is then checked by the
certificate (on the device, in `gpu.certificate`, when the distances are a CuPy array; on the host otherwise),
compared with the reference on the sampled sources (on the host; the row's `certificate_device` says where the
certificate ran), and appended to `rows.jsonl` at once. A reported negative cycle is checked at every source: a
wrong answer on a graph with no negative arc, else the reference for that source decides. Rows are appended at once,
so a crash loses at most the solve in flight and `--resume` skips what is done. A failure (time limit, out of
memory, exception, wrong answer, unsupported graph) becomes a row with its status and message, LDBC-style, and the
run goes on.

Variant order: on each graph the variants run in a seeded order of their own (order.py: sorted by a SHA-256 of
the config's source seed, the graph label and the variant name), not always the config's, so that no variant
always inherits the caches the previous variant (or the certificate pass, on a small graph) left warm. The same
config gives the same order on every machine, in a resumed run and in every shard (a shard's variants on a graph
keep their places in the whole run's order); the manifest's graph record keeps it (`variant_order`). The report
still lists variants in the config's order.

Life cycle: a run that is refused (a missing graph file, an unknown graph, an unfetched catalog graph without a
stand-in) is refused by `_preflight` before its folder exists, so it leaves nothing behind; a refused `--resume`
leaves the folder as it was. A graph that fails to load (a bad generator parameter, a damaged .csr) becomes a
prepare row per variant and an entry of the manifest's `not_loaded`, the run goes on, and `RunOutcome.not_loaded`
names it (the CLI then exits with status 2; a later `--resume` does not load it again). A KeyboardInterrupt marks
the manifest "interrupted": under the CLI, Ctrl-C and SIGTERM raise one between two solves, never inside one
(interrupts.py); any other exception marks it "failed" with the error; either way the manifest and every finished
row are written before the exception goes on.

The roofline (`roofline.py`): when the config has a GPU implementation and a GPU is usable, the device's copy
bandwidth and dependent-load latency are measured once per run (`manifest["roofline"]`), the all-arcs relax
pass once per graph on the shared device graph, and each source's hop depth on the CPU
(`manifest["graphs"][label]["roofline"]`); every solve row gets that source's `floor_s`, so the report can give
every implementation's efficiency. Without a GPU (or without a GPU implementation) the manifest says why and
`floor_s` stays null.

Energy (config `energy`, run/energy.py): NVML is opened once per run on the GPU CuPy computes on
(`manifest["energy"]` says whether it could be, and through what); after a GPU variant's timed solves on a graph its
verified sources are solved again back to back in an energy phase of their own, and one row of phase "energy"
records joules per solve, power and the power trace's file (power/). Never around a timed solve; a resumed run
measures what the interrupted one had not. Where NVML cannot measure, the energy row is "unavailable" with why.

A shared GPU (gpu_sharing.py): on a GPU run NVML is asked which other processes compute on the run's GPU once its
context is made (at the first graph loaded), before each later graph and at its end (`manifest["gpu_sharing"]`); the
log warns the first time one shows up.

Stand-ins: a graph entry with a `stand_in` runs its synthetic stand-in when the real catalog graph is not
fetched (graphs.choose_graph). The manifest's graph record and every row of that graph then carry
`stand_in_for` (the catalog name) and `stand_in` (the generator spec); both are null for a real graph. A resumed
run keeps the choice it began with, so one run never mixes the real graph and its stand-in.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .. import impls, jsonfile
from . import device_cache, energy, gpu_sharing, interrupts, per_graph, provenance, roofline, verify
from .config import Config, GraphEntry, Variant
from .order import variant_run_order
from .outcome import RunOutcome, new_run_id
from .resident import PROCESS_MEMO
from ..errors import NegativeCycleError, UnsupportedGraphError, UserError
from ..gpu import certificate as device_certificate
from ..gpu import early_context, nvml
from ..gpu import runtime as gpu_runtime
from ..datasets.resolve import LoadedGraph, choose_graph, resolve_path
from ..graph.load import is_generator_spec
from ..impls.base import Implementation, SolveResult, canonical_distances
from ..impls.external import ExternalProgram
from ..jsonfile import read_json, write_json_atomic
from ..progress import Progress
from ..graph.sources import cached_sources, sources_cache_path
from ..results.schema import (MANIFEST_FILE, ROWS_FILE, STATUSES, new_manifest, new_row, solve_outcome,
                               trace_file)
from .timing import RunTiming

PREFETCH_HOST_BYTES = 4 << 30
"""While the CUDA context is made, the run's next graphs are loaded on the host until they hold this much."""


def classify(error: BaseException) -> tuple[str, str]:
    """The failure taxonomy: which status a solve or prepare that raised gets, and its one-line message."""
    message = str(error) or error.__class__.__name__
    if isinstance(error, TimeoutError):  # an external program killed at its timeout (impls/external.py)
        return "timeout", message
    if isinstance(error, NegativeCycleError):
        return "negative_cycle", message
    if isinstance(error, UnsupportedGraphError):
        return "unsupported", message
    if isinstance(error, MemoryError) or "OutOfMemory" in error.__class__.__name__:
        return "out_of_memory", f"{error.__class__.__name__}: {message}"
    return "error", f"{error.__class__.__name__}: {message}"


class RowWriter:
    """Appends one JSON line per row and flushes it, so the rows survive a crash of the process."""

    def __init__(self, path: Path):
        self.path = path
        if path.exists():
            _drop_partial_last_line(path)
        self.handle = open(path, "a", encoding="utf-8")

    def write(self, row: dict[str, Any]) -> None:
        if row["status"] not in STATUSES:
            raise ValueError(f"status {row['status']!r} is not one of the results schema's: {', '.join(STATUSES)}")
        self.handle.write(jsonfile.dumps(row) + "\n")
        self.handle.flush()

    def close(self) -> None:
        os.fsync(self.handle.fileno())
        self.handle.close()


def _drop_partial_last_line(path: Path) -> None:
    """A crash mid-write can leave half a line at the end; cut it so resumed rows start on a fresh line."""
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with open(path, "r+b") as handle:
            handle.truncate(data.rfind(b"\n") + 1)


@dataclass
class Done:
    """What an interrupted run finished: solves by (graph, variant, repetition, source index), failed prepares and
    energy phases by (graph, variant), and the verified sources by (graph, variant), which an energy phase solves."""
    solved: set[tuple] = field(default_factory=set)
    failed_prepares: set[tuple] = field(default_factory=set)
    energy: set[tuple] = field(default_factory=set)
    verified: dict[tuple, list[int]] = field(default_factory=dict)


def _load_done(rows_path: Path) -> Done:
    done = Done()
    if not rows_path.exists():
        return done
    for line in rows_path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue  # the partial last line of a crash
        if row.get("phase") == "solve":
            done.solved.add((row["graph"], row["variant"], row["repetition"], row["source_index"]))
            if solve_outcome(row["status"], row.get("certificate"), row.get("reference")) == "verified":
                _add_verified(done.verified, (row["graph"], row["variant"]), row["source"])
        elif row.get("phase") == "prepare" and row.get("status") != "ok":
            done.failed_prepares.add((row["graph"], row["variant"]))
        elif row.get("phase") == "energy":
            done.energy.add((row["graph"], row["variant"]))
    return done


def _add_verified(verified: dict[tuple, list[int]], key: tuple, source: int) -> None:
    sources = verified.setdefault(key, [])
    if source not in sources:
        sources.append(source)


class Runner:
    def __init__(self, config: Config, run_dir: Path, resume: bool = False, show_progress: bool = True,
                 log: Callable[[str], None] | None = None):
        self.config = config
        self.run_dir = run_dir
        self.rows_path = run_dir / ROWS_FILE
        self.manifest_path = run_dir / MANIFEST_FILE
        self.log = log or (lambda message: None)
        self.show_progress = show_progress
        self.outcome = RunOutcome(run_dir)
        self.device_roofline: dict[str, Any] | None = None  # the run's device constants, when measured
        self.floors: dict[tuple[str, int], float | None] = {}  # (graph label, source) -> floor seconds
        self.stand_ins: dict[str, tuple[str, str]] = {}  # graph label -> (catalog name, spec), for its rows
        self.done = _load_done(self.rows_path) if resume else Done()
        self.solved, self.failed_prepares = self.done.solved, self.done.failed_prepares
        self.meter: nvml.Meter | None = None  # NVML on the run's GPU, when energy is measured and NVML works here
        self.meter_reason = ""                 # why not, when it is not
        self.sharing: gpu_sharing.SharingWatch | None = None  # looks at who else computes on the run's GPU
        self.device_up = False  # _bring_up_device ran (at the first graph loaded)
        self.loading: set[str] = set()  # graph labels _run_graph has begun on
        self.prefetched: dict[str, tuple[LoadedGraph, float]] = {}  # label -> (graph, load seconds), for _run_graph
        if resume:
            self.manifest = json.loads(self.manifest_path.read_text())
        else:
            self.manifest = new_manifest(
                run_id=run_dir.name,
                config=config.raw,
                config_hash=config.hash,
                config_path=config.path,
                started=_now(),
                finished=None,
                status="running",
                baseline=config.baseline,
                provenance=provenance.collect(gpu=False),  # the GPU's entry at _bring_up_device
                graphs={},
                skipped={},
            )
            if config.shard is not None:  # which cells of which split this run holds: shards.py merges by it
                self.manifest["shard"] = config.shard
        self.manifest["status"] = "running"
        self.manifest.pop("error", None)  # an earlier session's failure; this one writes its own
        self.manifest.setdefault("resumed", [])
        self.outcome.not_loaded.update(self.manifest.get("not_loaded") or {})  # an earlier session's, not retried
        if resume:
            self.manifest["resumed"].append(_now())
            self._note_code_change()

    def _note_code_change(self) -> None:
        """A resume with other code than the run began with mixes rows of both: say so, and record it."""
        began = ((self.manifest.get("provenance") or {}).get("code") or {}).get("sha256")
        now = provenance.code_digest()["sha256"]
        if began and now != began:
            self.manifest.setdefault("code_changes", []).append({"at": _now(), "sha256": now})
            self.log(f"warning: {self.run_dir}: the code changed since this run began (digest {began[:12]}, now "
                     f"{now[:12]}); its rows will come from both")

    # -- the run --------------------------------------------------------------------------------------------

    def run(self) -> RunOutcome:
        self.timing = RunTiming()
        with self.timing.measure_graph("load_s"):  # a graph generated or converted here is per-graph preparation
            self._preflight()  # before the folder exists (or, resuming, is marked running): a refusal leaves nothing
        self.run_dir.mkdir(parents=True, exist_ok=True)
        write_json_atomic(self.manifest_path, self.manifest)
        writer = RowWriter(self.rows_path)
        total = sum(self._solves_per_graph(entry.label, self.config.source_count) for entry in self.config.graphs)
        progress = Progress(total, enabled=self.show_progress)
        try:
            for entry in self.config.graphs:
                interrupts.raise_if_requested()
                if self.sharing is not None:
                    self.sharing.check(f"before graph {entry.label}")
                self._run_graph(entry, writer, progress)
            self._bring_up_device()  # where no graph was loaded: the manifest's GPU and roofline entries all the same
            self.manifest["status"] = "complete"
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM (interrupts.py: between two solves, under the CLI)
            self.manifest["status"] = "interrupted"
            raise
        except Exception as error:  # a fault of the harness itself: the folder says so, not "running"
            self.manifest["status"] = "failed"
            self.manifest["error"] = f"{error.__class__.__name__}: {error}"
            raise
        finally:
            progress.close()
            writer.close()
            if self.meter is not None:
                self.meter.close()
            if "gpu" not in self.manifest["provenance"]:  # the run stopped before it asked for the GPU
                self.manifest["provenance"]["gpu"] = provenance.gpu_entry()
            if self.sharing is not None:
                self.sharing.check("at its end")
                earlier = self.manifest.get("gpu_sharing")  # a resumed run's earlier sessions
                self.manifest["gpu_sharing"] = (gpu_sharing.combined([earlier, self.sharing.record()]) if earlier
                                                else self.sharing.record())
            self.manifest["finished"] = _now()
            self.manifest["statuses"] = dict(self.outcome.statuses)
            self.manifest["timing"] = self.timing.record(self.manifest.get("timing"))
            write_json_atomic(self.manifest_path, self.manifest)
        return self.outcome

    def _solves_per_graph(self, label: str, source_count: int) -> int:
        """Timed solves on one graph with `source_count` shared sources, each variant taking its first N (of
        which a shard's source range takes its part)."""
        return self.config.repetitions * sum(len(self._source_indexes(label, variant, source_count))
                                             for variant in self.config.variants_on(label))

    def _source_indexes(self, label: str, variant: Variant, source_count: int) -> range:
        """The indexes of the shared sources this run solves for `variant` on `label`: its first N (`sources: N`),
        within the shard's source range where the split cut this cell (shards.py)."""
        wanted = min(variant.max_sources or source_count, source_count)
        first, stop = self.config.source_range(label, variant.name) or (0, wanted)
        return range(min(first, wanted), min(stop, wanted))

    def _preflight(self) -> None:
        """Refuse a missing graph file or unfetched catalog name before anything runs (generators, stand-ins
        included, are fine)."""
        for entry in self.config.graphs:
            stand_in, force = self._stand_in_choice(entry)
            chosen, _ = choose_graph(entry.graph, self.config.datasets, stand_in, force)
            if not is_generator_spec(chosen):
                resolve_path(chosen, self.config.datasets, entry.convert)

    def _stand_in_choice(self, entry) -> tuple[str | None, bool]:
        """(the stand-in spec the entry allows, whether to force it): a resumed run keeps what it began with,
        the real graph or the stand-in, even if the dataset cache changed in between; the stand-in half of
        `stand_in: both` is always the stand-in."""
        recorded = self.manifest.get("graphs", {}).get(entry.label)
        if entry.beside is not None:
            return entry.stand_in, True
        if entry.stand_in is None or not recorded:
            return entry.stand_in, False
        if recorded.get("stand_in_for"):
            return entry.stand_in, True
        return None, False

    def _bring_up_device(self) -> None:
        """Once per run, at its first graph loaded (or at its end, where none was): wait for the CUDA context
        (gpu/early_context.py), name the GPU in the provenance, take the device constants, open NVML and look at
        who else computes on the GPU. Not sooner: a process that starts beside others waits about a second for its
        context, which the graph's load, sources and checks on the CPU fill; what is left of that wait goes to
        CuPy's import and the next graphs' loads (_prefetch_graphs)."""
        if self.device_up:
            return
        self.device_up = True
        on_gpu = bool(self.config.gpu_variants())  # else no context is waited for (a worker may be making one)
        if on_gpu and not early_context.ready():  # what needs no context, done while the driver makes it
            with self.timing.measure("device_s"):
                gpu_runtime.import_cupy()
                nvml.import_backend()
            self._prefetch_graphs(until=early_context.ready)
        with self.timing.measure("device_s"):
            if on_gpu:
                early_context.wait()
            self.manifest["provenance"]["gpu"] = provenance.gpu_entry()
            self._measure_device_roofline()
            self._open_meter()
            self._watch_gpu()
        self.timing.context = early_context.record(self.timing.process_started_unix)

    def _prefetch_graphs(self, until: Callable[[], bool]) -> None:
        """Load the run's next graphs on the host, in run order, until `until()` (the context made) or past
        PREFETCH_HOST_BYTES: _run_graph takes them from here. Where several processes start together the driver
        makes their contexts about one at a time, and a run would otherwise wait a second doing nothing (issue 38).
        A graph that fails to load here is left to _run_graph, which loads it again and records why."""
        held = 0
        for entry in self.config.graphs:
            if (entry.label in self.loading or entry.label in self.prefetched or self._graph_finished(entry.label)
                    or entry.label in (self.manifest.get("not_loaded") or {})):
                continue
            if until() or held > PREFETCH_HOST_BYTES:
                return
            started = time.perf_counter()
            try:
                loaded = self._load(entry)
            except (UserError, OSError, MemoryError):
                continue
            finally:
                seconds = time.perf_counter() - started
                self.timing.add_graph("load_s", seconds)
            self.prefetched[entry.label] = (loaded, seconds)
            held += loaded.graph.nbytes

    def _load(self, entry: GraphEntry) -> LoadedGraph:
        stand_in, force = self._stand_in_choice(entry)
        return PROCESS_MEMO.loaded_graph(entry, self.config.datasets, stand_in, force)

    def _measure_device_roofline(self) -> None:
        """(a) and (c) of the roofline, once per run, when a GPU implementation will run on a usable GPU."""
        self.device_roofline = None
        self.device_identity: dict[str, Any] | None = None  # names this GPU for device_cache.py
        if not self.config.gpu_variants():
            self.manifest["roofline"] = {"available": False, "reason": "no GPU implementation in the config"}
            return
        ok, why = gpu_runtime.gpu_status()
        if not ok:
            self.manifest["roofline"] = {"available": False, "reason": f"no GPU: {why}"}
            self.log(f"roofline not measured: no GPU: {why}")
            return
        try:
            self.device_identity = device_cache.identity_of(provenance.gpu_info())
            constants = device_cache.remembered(self.config.datasets / device_cache.DEVICE_FOLDER, "device",
                                                self.device_identity, roofline.measure_device)
        except Exception as error:  # never fails the run
            reason = f"measurement failed: {error.__class__.__name__}: {error}"
            self.manifest["roofline"] = {"available": False, "reason": reason}
            self.log(f"roofline not measured: {reason}")
            return
        self.manifest["roofline"] = constants
        self.device_roofline = constants
        write_json_atomic(self.manifest_path, self.manifest)

    def _open_meter(self) -> None:
        """NVML on the run's GPU, once per run, when the config measures energy; the manifest says what it found."""
        if not self.config.energy:
            return
        record: dict[str, Any] = {"enabled": True, **self.config.energy}
        try:
            self.meter = nvml.open_meter()
        except nvml.NvmlUnavailable as error:
            self.meter_reason = f"unavailable: {error}"
            record.update(available=False, reason=self.meter_reason)
            self.log(f"energy not measured: {self.meter_reason}")
        else:
            record.update(available=True, reason="", **self.meter.record(),
                          method="energy counter" if self.meter.energy_counter else "sampled power")
        self.manifest["energy"] = record
        write_json_atomic(self.manifest_path, self.manifest)

    def _watch_gpu(self) -> None:
        """The first look at who else computes on the run's GPU (gpu_sharing.py), once this process's own context is
        made there, when a GPU implementation will run on a usable GPU."""
        if not self.config.gpu_variants() or not gpu_runtime.gpu_status()[0]:
            return
        self.sharing = gpu_sharing.SharingWatch(self.log)
        try:
            gpu_runtime.cupy_module().cuda.runtime.free(0)  # makes this process's context, so NVML lists it too
        except Exception as error:  # noqa: BLE001 - the run's first GPU call reports it, worded by the runner
            self.sharing.reason = f"no CUDA context: {error.__class__.__name__}: {error}"
            return
        self.sharing.check("at its start")

    def _graph_roofline(self, loaded: LoadedGraph, sources: list[int]) -> None:
        """(b) and (d) of the roofline for this graph, and every source's floor (when the device's is known)."""
        self.floors = {}
        if self.device_roofline is None:
            return
        try:
            record = roofline.graph_roofline(loaded.graph, sources, self.device_roofline, self.per_graph.hop_depths,
                                             self._relax_pass(loaded))
        except Exception as error:  # a graph that does not fit, a fault: recorded, and the run goes on
            status, message = classify(error)
            record = {"available": False, "reason": f"{status}: {message}"}
            self.log(f"{loaded.label}: roofline not measured: {message}")
        self.manifest["graphs"][loaded.label]["roofline"] = record
        for item in record.get("per_source", []):
            self.floors[(loaded.label, item["source"])] = item["floor_s"]
        write_json_atomic(self.manifest_path, self.manifest)

    def _relax_pass(self, loaded: LoadedGraph) -> dict[str, Any]:
        """(b) on this GPU: measured, or kept in the per-graph folder by an earlier process (device_cache.py)."""
        if not self.per_graph.enabled:
            return roofline.measure_relax_pass(loaded.graph)
        return device_cache.remembered(self.per_graph.folder, "relax", self.device_identity,
                                       lambda: roofline.measure_relax_pass(loaded.graph),
                                       parts={"graph": self.per_graph.digest(), "weights": self.per_graph.weights_spec})

    def _graph_finished(self, label: str) -> bool:
        """On resume: every variant solved every source this graph had (or failed to prepare), so the graph need
        not be loaded, nor its sources and roofline measured, again."""
        recorded = self.manifest.get("graphs", {}).get(label)
        if not recorded or "sources" not in recorded:
            return False
        count = len(recorded["sources"])
        for variant in self.config.variants_on(label):
            if (label, variant.name) in self.failed_prepares:
                continue
            if any((label, variant.name, repetition, index) not in self.solved
                   for repetition in range(self.config.repetitions)
                   for index in self._source_indexes(label, variant, count)):
                return False
            if self._energy_due(label, variant):
                return False
        return True

    def _energy_due(self, label: str, variant: Variant) -> bool:
        """Whether this (graph, variant) still needs its energy phase: energy on, a GPU variant, none recorded."""
        return bool(self.config.energy) and impls.get(variant.implementation).device == "gpu" and (
            label, variant.name) not in self.done.energy

    def _run_graph(self, entry, writer: RowWriter, progress: Progress) -> None:
        config = self.config
        if self._graph_finished(entry.label):
            recorded_sources = self.manifest["graphs"][entry.label]["sources"]
            progress.advance(self._solves_per_graph(entry.label, len(recorded_sources)))
            self.log(f"{entry.label}: finished in an earlier session; not loaded again")
            return
        if entry.label in (self.manifest.get("not_loaded") or {}):  # its prepare rows say so already
            progress.advance(self._solves_per_graph(entry.label, config.source_count))
            self.log(f"{entry.label}: not loaded in an earlier session; not tried again")
            return
        progress.describe(entry.label, "loading")
        self.loading.add(entry.label)
        started = time.perf_counter()
        prefetched = self.prefetched.pop(entry.label, None)  # loaded while the context was made: timed then
        try:
            loaded = prefetched[0] if prefetched else self._load(entry)
        except (UserError, OSError, MemoryError) as error:
            self.timing.add_graph("load_s", time.perf_counter() - started)
            status, message = classify(error) if not isinstance(error, UserError) else ("error", str(error))
            for variant in config.variants_on(entry.label):
                self._write_prepare(writer, entry.label, entry.variant(variant), None, status,
                                    f"graph not loaded: {message}")
            progress.advance(self._solves_per_graph(entry.label, config.source_count))
            self.log(f"{entry.label}: graph not loaded: {message}")
            self.outcome.not_loaded[entry.label] = message
            self.manifest.setdefault("not_loaded", {})[entry.label] = message
            write_json_atomic(self.manifest_path, self.manifest)
            return
        if prefetched:
            load_s = prefetched[1]
        else:
            load_s = time.perf_counter() - started
            self.timing.add_graph("load_s", load_s)
        graph = loaded.graph
        if loaded.stand_in_for:
            self.stand_ins[entry.label] = (loaded.stand_in_for, loaded.stand_in)
            self.log(f"{entry.label}: the stand-in {loaded.stand_in} runs beside {entry.beside}" if entry.beside else
                     f"{entry.label}: {loaded.stand_in_for} is not fetched; its stand-in {loaded.stand_in} runs instead")
        progress.describe(entry.label, "picking sources")
        started = time.perf_counter()
        cache = sources_cache_path(loaded.path, config.source_count, config.source_seed, config.min_reached)
        sources = cached_sources(graph, cache, config.source_count, config.source_seed, config.min_reached)
        sources_s = time.perf_counter() - started
        self.timing.add_graph("sources_s", sources_s)
        self._record_graph(entry, loaded, sources, load_s, sources_s)
        self._bring_up_device()
        if len(sources) < config.source_count:
            self.log(f"{entry.label}: only {len(sources)} of {config.source_count} vertices qualify as sources")
            progress.advance(self._solves_per_graph(entry.label, config.source_count)
                             - self._solves_per_graph(entry.label, len(sources)))
        self.per_graph = per_graph.PerGraphCache(loaded.path, graph.n, (graph.meta.get("weights") or {}).get(
            "spec", "keep"), config.reference, enabled=per_graph.enabled())
        progress.describe(entry.label, "roofline")
        with self.timing.measure_graph("roofline_s"):
            self._graph_roofline(loaded, sources)
        references: dict[tuple[str, int], Any] = {}
        with self.timing.measure_graph("load_s"):
            self.out_degrees = graph.out_degrees()  # for the reached-arc count of every solve on this graph
        try:
            for variant in self._variant_order(entry.label):
                interrupts.raise_if_requested()
                self._run_variant(loaded, sources, entry.variant(variant), references, writer, progress)
        finally:
            with self.timing.measure_graph("load_s"):
                device_certificate.release()
                gpu_runtime.release_device_graphs()  # the next graph gets the device memory (no-op without CuPy)
            self.manifest["graphs"][entry.label]["per_graph_cache"] = self.per_graph.record()
            write_json_atomic(self.manifest_path, self.manifest)

    def _record_graph(self, entry: GraphEntry, loaded: LoadedGraph, sources: list[int], load_s: float,
                      sources_s: float) -> None:
        graph = loaded.graph
        self.manifest["graphs"][loaded.label] = {
            "n": graph.n, "m": graph.m, "directed": graph.directed, "weighted": graph.weighted,
            "weight_dtype": None if graph.weights is None else str(graph.weights.dtype),
            "negative_weights": graph.has_negative_weights(),
            "path": str(loaded.path), "origin": loaded.origin,
            "provenance": graph.meta.get("provenance", {}), "weights": graph.meta.get("weights", "keep"),
            "characteristics": graph.meta.get("characteristics", {}), "table1": graph.meta.get("table1", {}),
            "sources": sources, "load_s": load_s, "sources_s": sources_s,
            "stand_in_for": loaded.stand_in_for, "stand_in": loaded.stand_in,
            "stand_in_note": _stand_in_note(loaded), "real_graph": _real_graph(loaded, self.config.datasets),
            "beside": entry.beside,
            "variant_order": [variant.name for variant in self._variant_order(entry.label)],
        }
        write_json_atomic(self.manifest_path, self.manifest)

    def _variant_order(self, label: str) -> list[Variant]:
        """This run's variants on the graph `label`, in the order they run there (variant_run_order)."""
        return variant_run_order(self.config.variants_on(label), self.config.source_seed, label)

    def _run_variant(self, loaded: LoadedGraph, sources: list[int], variant: Variant,
                     references: dict, writer: RowWriter, progress: Progress) -> None:
        """One cell (or the shard's source range of it): prepare, warm up, solve, verify; its seconds go to the
        run's timing and, when it ran anything, into a cell record (timing.py)."""
        indexes = self._source_indexes(loaded.label, variant, len(sources))
        self.cell_clock = dict.fromkeys(("setup_s", "solve_s", "end_to_end_s", "verify_s"), 0.0)
        self.cell_solves = 0
        started = self.timing.net_clock()
        try:
            self._run_cell(loaded, sources, indexes, variant, references, writer, progress)
        finally:
            if self.cell_solves or self.cell_clock["setup_s"]:
                wall_s = self.timing.net_clock() - started
                self.timing.cells.append({
                    "graph": loaded.label, "variant": variant.name, "first": indexes.start, "stop": indexes.stop,
                    "solves": self.cell_solves, **self.cell_clock, "wall_s": wall_s})

    def _run_cell(self, loaded: LoadedGraph, sources: list[int], indexes: range, variant: Variant,
                  references: dict, writer: RowWriter, progress: Progress) -> None:
        config, label = self.config, loaded.label
        work = [(repetition, index, sources[index]) for repetition in range(config.repetitions) for index in indexes]
        remaining = [item for item in work if (label, variant.name, item[0], item[1]) not in self.solved]
        energy_due = self._energy_due(label, variant)
        if not (remaining or energy_due) or (label, variant.name) in self.failed_prepares:
            progress.advance(len(work))
            return
        progress.advance(len(work) - len(remaining))
        implementation_class = impls.get(variant.implementation)
        available, why = implementation_class.available()
        if not available and not remaining:
            return  # solved in an earlier session on another machine; nothing to measure here
        if not available:
            self.manifest["skipped"][variant.name] = why
            self._write_prepare(writer, label, variant, None, "unavailable", why)
            self.log(f"{label}: skipped {variant.name}: {why}")
            progress.advance(len(remaining))
            return

        progress.describe(label, f"{variant.name} prepare")
        resident = PROCESS_MEMO.prepared(loaded, variant)  # a worker's earlier task prepared and warmed it up
        if resident is not None:
            implementation, prepare_s = resident
            self._write_prepare(writer, label, variant, prepare_s, "ok", "")
        else:
            prepared = self._prepare(loaded, sources, variant, writer, progress, len(remaining))
            if prepared is None:
                return
            implementation, prepare_s = prepared
        self._record_exports(label, implementation)
        progress.describe(label, variant.name)
        kept = False
        try:
            clean = self._solve_cell(loaded, implementation, variant, remaining, references, writer, progress)
            if energy_due:
                interrupts.raise_if_requested()
                progress.describe(label, f"{variant.name} energy")
                with self.timing.measure("energy_s"):
                    writer.write(self._energy_phase(label, implementation, variant))
            # kept for a later task only after solves that all went well: an instance that failed one is retired
            kept = clean and implementation.resident and PROCESS_MEMO.keep_prepared(loaded, variant, implementation,
                                                                                    prepare_s)
        finally:
            if not kept:
                PROCESS_MEMO.forget_prepared(loaded, variant)
                started = time.perf_counter()
                implementation.teardown()
                self._add_setup(time.perf_counter() - started)

    def _prepare(self, loaded: LoadedGraph, sources: list[int], variant: Variant, writer: RowWriter,
                 progress: Progress, remaining: int) -> tuple[Implementation, float] | None:
        """(a new implementation of this cell, prepared and warmed up, its prepare seconds), its prepare row
        written; None where the prepare failed (its row says how, and the cell's remaining solves are passed
        over)."""
        config, label, graph = self.config, loaded.label, loaded.graph
        implementation_class = impls.get(variant.implementation)
        started = time.perf_counter()
        implementation = implementation_class(**variant.params)
        if isinstance(implementation, ExternalProgram):  # its exported graph and scratch go into the run folder
            implementation.attach(self.run_dir, label, variant.name, config.time_limit)
        try:
            if graph.has_negative_weights() and not implementation_class.negative_weights:
                raise UnsupportedGraphError(f"{variant.implementation} does not accept negative weights")
            implementation.prepare(graph)
            implementation.synchronize()
            prepare_s = time.perf_counter() - started
            for _ in range(config.warmup if sources else 0):
                try:
                    implementation.solve(sources[0])
                except NegativeCycleError:
                    pass  # an answer, not a failed prepare: the timed solves record it and `_solve` checks it
                implementation.synchronize()
        except Exception as error:  # the failure taxonomy: recorded, and the run goes on
            status, message = classify(error)
            self._write_prepare(writer, label, variant, time.perf_counter() - started, status, message)
            self.log(f"{label}: {variant.name}: {status}: {message}")
            implementation.teardown()
            self._add_setup(time.perf_counter() - started)
            progress.advance(remaining)
            return None
        self._add_setup(time.perf_counter() - started)
        self._write_prepare(writer, label, variant, prepare_s, "ok", "")
        return implementation, prepare_s

    def _solve_cell(self, loaded: LoadedGraph, implementation: Implementation, variant: Variant,
                    remaining: list[tuple[int, int, int]], references: dict, writer: RowWriter,
                    progress: Progress) -> bool:
        """The cell's timed solves, each verified and written as a row; after a timeout, the rest as not run.
        Whether every one of them was ok."""
        config, label = self.config, loaded.label
        implementation_class = type(implementation)
        timed_out, clean = "", True
        batches: dict[int, float] = {}  # an external's `per: run`: repetition -> its one process's seconds
        for repetition, index, source in remaining:
            interrupts.raise_if_requested()  # Ctrl-C or SIGTERM stop the run here, between solves
            solve_started = self.timing.net_clock()
            if timed_out:
                row = self._row(label, variant, implementation_class, source, index, repetition)
                row.update(status="timeout", message=timed_out)
            else:
                batch_s = self._external_batch(implementation, remaining, repetition, batches)
                row = self._solve(loaded, implementation, variant, source, index, repetition, references,
                                  batch_s)
                if row["status"] == "timeout":
                    timed_out = (f"not run: source #{index} exceeded the {config.time_limit:g} s time limit"
                                 if row["time_s"] is not None and row["time_s"] > config.time_limit
                                 else f"not run: source #{index} timed out ({row['message']})")
            writer.write(row)
            clean = clean and row["status"] == "ok"
            self.outcome.statuses[row["status"]] += 1
            if solve_outcome(row["status"], row["certificate"], row["reference"]) == "verified":
                _add_verified(self.done.verified, (label, variant.name), source)
            self._add_solve(row, self.timing.net_clock() - solve_started)
            progress.advance(1)
        return clean

    def _add_setup(self, seconds: float) -> None:
        """Per-cell setup (prepare, warm-up, teardown), to the run's and the cell's clocks."""
        self.timing.add("setup_s", seconds)
        self.cell_clock["setup_s"] += seconds

    def _add_solve(self, row: dict[str, Any], loop_s: float) -> None:
        """One pass of the solve loop (`loop_s`, the reference distances it computed left out) and its row's
        timed and host-clock seconds, to the run's and the cell's clocks (the verification was added by _solve)."""
        self.timing.add("solve_loop_s", loop_s)
        self.cell_solves += 1
        for total, field_name in (("solve_s", "time_s"), ("end_to_end_s", "end_to_end_s")):
            if isinstance(row.get(field_name), (int, float)):
                self.timing.add(total, row[field_name])
                self.cell_clock[total] += row[field_name]

    def _energy_phase(self, label: str, implementation: Implementation, variant: Variant) -> dict[str, Any]:
        """The energy row of this (graph, variant): its verified sources solved back to back (run/energy.py)."""
        row = self._row(label, variant, type(implementation), None, None, None)
        row.update(phase="energy", timer="host")
        sources = self.done.verified.get((label, variant.name), [])
        if self.meter is None:
            row.update(status="unavailable", message=self.meter_reason or "unavailable: NVML not opened")
            return row
        if not sources:
            row.update(status="unavailable", message="unavailable: no verified solve to repeat")
            return row

        def solve(source: int) -> None:
            implementation.solve(source)
            implementation.synchronize()

        trace = trace_file(label, variant.name)
        try:
            measured = energy.measure_energy(solve, sources, self.meter, energy.EnergySettings(**self.config.energy),
                                             self.run_dir / trace)
        except Exception as error:  # recorded, and the run goes on
            status, message = classify(error)
            row.update(status=status, message=f"energy phase: {message}")
            self.log(f"{label}: {variant.name}: energy phase: {status}: {message}")
            return row
        row.update(measured, power_trace=trace)
        self.log(f"{label}: {variant.name}: {row['energy_j']:.4g} J per solve, {row['power_w']:.4g} W "
                 f"({row['energy_solves']} solves in {row['time_s']:.3g} s, {row['energy_method']})")
        return row

    def _solve(self, loaded: LoadedGraph, implementation: Implementation, variant: Variant, source: int,
               index: int, repetition: int, references: dict, batch_s: float | None = None) -> dict[str, Any]:
        config, graph = self.config, loaded.graph
        row = self._row(loaded.label, variant, type(implementation), source, index, repetition)
        events = type(implementation).device == "gpu"
        started = time.perf_counter()
        try:
            if events:
                start_event = gpu_runtime.record_event()
            result: SolveResult = implementation.solve(source)
            if events:
                end_event = gpu_runtime.record_event()
            implementation.synchronize()
            solved = time.perf_counter()
            # The host copy only where a check needs it: a device result the device certificate checks, on a source
            # without a reference compare, is counted on the device (reached_on_device) and never copied
            kind = type(implementation).kind
            on_device = (index >= config.reference_sources and not isinstance(implementation, ExternalProgram)
                         and device_certificate.is_device_array(result.distances)
                         and device_certificate.supports(graph, result.distances, result.unreached, kind)[0])
            distances = None if on_device else canonical_distances(result)
            copied = time.perf_counter()
            solve_s = gpu_runtime.elapsed_seconds(start_event, end_event) if events else solved - started
        except Exception as error:
            status, message = classify(error)
            row.update(status=status, message=message, time_s=time.perf_counter() - started, timer="host")
            if status == "negative_cycle":
                # An answer like any other, checked at every source (not only the sampled ones): where no arc is
                # negative no cycle can be, so no reference is needed; elsewhere the reference decides.
                kind = type(implementation).kind
                if kind == "bfs" or not graph.has_negative_weights():
                    row.update(status="wrong_answer", reference=False,
                               message=f"reported a negative cycle on a graph with no negative arc ({message})")
                elif isinstance(self._reference(loaded, kind, source, references), NegativeCycleError):
                    row["reference"] = True
                else:
                    row.update(status="wrong_answer", reference=False,
                               message=f"reported a negative cycle; the reference found none ({message})")
            return row
        time_s = solve_s
        if isinstance(implementation, ExternalProgram):
            time_s = self._external_time(row, result, solve_s, batch_s)
        row.update(time_s=time_s, end_to_end_s=copied - started, counters=result.counters)
        if time_s > config.time_limit:
            row.update(status="timeout", message=f"took {time_s:.3g} s, over the {config.time_limit:g} s time limit")
            return row

        returned = len(result.distances) if distances is None else len(distances)
        if returned != graph.n:
            row.update(status="wrong_answer", certificate=False,
                       message=f"returned {returned} distances for {graph.n} vertices")
            return row
        if distances is not None:  # a device result is counted by its certificate (_verify)
            _count_reached(row, *self._reached(distances))
        verify_started = self.timing.net_clock()
        try:
            return self._verify(loaded, row, source, index, result, distances, kind, references)
        finally:
            verify_s = self.timing.net_clock() - verify_started
            self.timing.add("verify_s", verify_s)
            self.cell_clock["verify_s"] += verify_s

    def _reached(self, distances: np.ndarray) -> tuple[int, int]:
        """(reached vertices, their out-arcs) of canonical host distances."""
        reached = np.isfinite(distances)
        return int(reached.sum()), int(self.out_degrees[reached].sum())

    def _verify(self, loaded: LoadedGraph, row: dict[str, Any], source: int, index: int, result: SolveResult,
                distances: np.ndarray | None, kind: str, references: dict) -> dict[str, Any]:
        """The certificate, and the reference compare on the sampled sources: the row's verdict. `distances` is
        None where the result stayed on the device (no reference compare at this source)."""
        config, graph = self.config, loaded.graph
        check, row["certificate_device"] = self._certificate(graph, source, result, distances, kind)
        if distances is None:
            # The certificate counted them (_certificate): no CuPy reductions of their own, whose kernels cost a
            # process 0.3 to 0.4 s at their first use (profiled on an H200)
            _count_reached(row, *check.reached)
        row["certificate"] = bool(check.ok)
        problems = [] if check.ok else [f"certificate: {check.message}"]
        if index < config.reference_sources:
            reference = self._reference(loaded, kind, source, references)
            if isinstance(reference, NegativeCycleError):
                row["reference"] = False
                problems.append("the reference found a negative cycle reachable from the source")
            else:
                compared = verify.compare(reference, distances)
                row["reference"] = bool(compared.ok)
                if not compared.ok:
                    problems.append(f"reference: {compared.message}")
        if problems:
            row.update(status="wrong_answer", message="; ".join(problems))
        return row

    # -- external programs (impls/external.py): the runner's clock around their processes ----------------------

    def _external_batch(self, implementation: Implementation, remaining: list[tuple], repetition: int,
                        batches: dict[int, float]) -> float | None:
        """An external with `per: run`: at a repetition's first solve, its one process for the repetition's
        remaining sources, timed here by the host clock (the process from spawn to exit); its seconds, which each
        of those sources' rows shares. None for every other implementation."""
        if not isinstance(implementation, ExternalProgram) or implementation.spec.per != "run":
            return None
        if repetition not in batches:
            sources = [source for item_repetition, _, source in remaining if item_repetition == repetition]
            started = time.perf_counter()
            implementation.run_batch(sources)  # never raises: a failure is each source's solve's
            batches[repetition] = time.perf_counter() - started
        return batches[repetition]

    @staticmethod
    def _external_time(row: dict[str, Any], result: SolveResult, solve_s: float, batch_s: float | None) -> float:
        """An external's time_s and timer: the process's wall time by the host clock ("process"; `per: run`: the
        batch's divided by its sources), or the time the program reported ("program"), with the wall time kept in
        the counters as `process_s`. Neither is a CUDA-event time."""
        counters = result.counters
        process_s = batch_s / counters["batch_sources"] if batch_s is not None else solve_s
        if batch_s is not None:
            counters["batch_s"] = batch_s
        counters["process_s"] = process_s
        if counters.get("reported_time_s") is not None:
            row["timer"] = "program"
            return float(counters["reported_time_s"])
        row["timer"] = "process"
        return process_s

    def _record_exports(self, label: str, implementation: Implementation) -> None:
        """Where an external's graph export lies in the run folder (its format, path, bytes, seconds to write)."""
        if not isinstance(implementation, ExternalProgram) or not implementation.exports:
            return
        record = self.manifest["graphs"].setdefault(label, {}).setdefault("exports", {})
        for graph_format, export in implementation.exports.items():
            if graph_format not in record or export.get("export_s") is not None:
                record[graph_format] = export
        write_json_atomic(self.manifest_path, self.manifest)

    def _certificate(self, graph, source: int, result: SolveResult, distances: np.ndarray | None,
                     kind: str) -> tuple[verify.CheckResult, str]:
        """The certificate and where it ran: on the device for a CuPy distance array it supports, else the host.
        Where `distances` is None (the result left on the device) its verdict also carries the reached counts."""
        if device_certificate.is_device_array(result.distances):
            supported, _ = device_certificate.supports(graph, result.distances, result.unreached, kind)
            if supported:
                try:
                    return device_certificate.certificate(graph, source, result.distances, result.unreached,
                                                          kind), "gpu"
                except Exception as error:  # the host certificate still decides
                    self.log(f"device certificate failed ({error.__class__.__name__}: {error}); checked on the host")
        copied = distances is None  # the device certificate failed: the host one decides, on a copy, and counts on it
        distances = canonical_distances(result) if copied else distances
        check = verify.certificate(graph, source, distances, kind=kind)
        if copied:
            check.reached = self._reached(distances)
        return check, "cpu"

    def _reference(self, loaded: LoadedGraph, kind: str, source: int, references: dict):
        """Reference distances for a source (a sampled one, or one where a solver reported a negative cycle),
        computed once per graph and shared by every variant, and kept in the per-graph cache (per_graph.py) for the
        next run or shard; the NegativeCycleError where the reference found one."""
        key = (kind, source)
        if key not in references:
            def compute() -> np.ndarray:
                if self.config.reference == "auto":
                    return verify.reference_distances(loaded.graph, source, kind=kind)
                reference = impls.get(self.config.reference)()
                reference.prepare(loaded.graph)
                try:
                    return canonical_distances(reference.solve(source))
                finally:
                    reference.teardown()

            with self.timing.measure_graph("references_s"):  # per-graph preparation: computed or read once
                references[key] = self.per_graph.reference(kind, source, compute)
        return references[key]

    def _row(self, label: str, variant: Variant, implementation_class, source, index, repetition) -> dict[str, Any]:
        stand_in_for, stand_in = self.stand_ins.get(label, (None, None))
        return new_row(
            run_id=self.run_dir.name, phase="solve", graph=label,
            implementation=variant.implementation, variant=variant.name, params=variant.params,
            device=implementation_class.row_device(variant.params), kind=implementation_class.kind,
            source=source, source_index=index, repetition=repetition,
            status="ok", message="", timer=_row_timer(implementation_class),
            counters={}, floor_s=None if source is None else self.floors.get((label, source)),
            stand_in_for=stand_in_for, stand_in=stand_in,
        )

    def _write_prepare(self, writer: RowWriter, label: str, variant: Variant, seconds, status: str, message: str):
        implementation_class = impls.get(variant.implementation)
        row = self._row(label, variant, implementation_class, None, None, None)
        row.update(phase="prepare", status=status, message=message, time_s=seconds, timer="host")
        writer.write(row)
        if status != "ok":
            self.outcome.statuses[status] += 1


def _count_reached(row: dict[str, Any], vertices: int, arcs: int) -> None:
    """A solve row's reached vertices and arcs, and its MTEPS from them and its time."""
    time_s = row["time_s"]
    row.update(reached_vertices=vertices, reached_arcs=arcs, mteps=arcs / time_s / 1e6 if time_s > 0 else None)


def _row_timer(implementation_class) -> str:
    """The clock of a row's time_s: CUDA events for a GPU implementation, the host clock for a CPU one, the
    process's wall time for an external program (`_external_time` makes it "program" where it reports its own)."""
    if issubclass(implementation_class, ExternalProgram):
        return ExternalProgram.timer
    return "cuda-event" if implementation_class.device == "gpu" else "host"


def _stand_in_note(loaded: LoadedGraph) -> str:
    """The catalog's reason why a stand-in matches its graph, when the stand-in is the catalog's own."""
    from ..datasets import catalog

    entry = catalog.find(loaded.stand_in_for) if loaded.stand_in_for else None
    return entry.stand_in_note if entry is not None and entry.stand_in == loaded.stand_in else ""


def _real_graph(loaded: LoadedGraph, datasets: Path) -> dict[str, Any] | None:
    """For a stand-in: what is known of the real graph's Table 1, for the report's stand-in fidelity section to put
    beside the stand-in's: the cached real graph's own (`stand_in: both`, or a resumed run that began with the
    stand-in), else the catalog's size and published facts. None for a real graph."""
    from ..datasets import catalog
    from ..graph.csr import read_sidecar

    entry = catalog.find(loaded.stand_in_for) if loaded.stand_in_for else None
    if entry is None:
        return None
    if catalog.is_fetched(entry, datasets):
        table1 = read_sidecar(datasets / f"{entry.name}.csr").get("table1")
        if table1:
            return {"source": "dataset cache", "table1": table1}
    return {"source": "catalog", "table1": entry.published_table1()}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def start_run(config: Config, run_id: str | None = None, show_progress: bool = True,
              log: Callable[[str], None] | None = None) -> RunOutcome:
    output = config.output
    run_id = run_id or new_run_id(config, output)
    run_dir = output / run_id
    if run_dir.exists() and any(run_dir.iterdir()):
        raise UserError(f"{run_dir}: already exists; pick another --run-id or resume it with --resume {run_dir}")
    return Runner(config, run_dir, show_progress=show_progress, log=log).run()


def resume_run(config: Config, run_dir: Path, show_progress: bool = True,
               log: Callable[[str], None] | None = None) -> RunOutcome:
    manifest_path = run_dir / MANIFEST_FILE
    if not manifest_path.exists():
        raise UserError(f"{run_dir}: not a run directory (no {MANIFEST_FILE})")
    manifest = read_json(manifest_path)
    if manifest.get("config_hash") != config.hash:
        raise UserError(
            f"{run_dir}: was started from a different config (hash {manifest.get('config_hash')}, "
            f"{config.path} has {config.hash}); resume it with the config it was started with"
        )
    return Runner(config, run_dir, resume=True, show_progress=show_progress, log=log).run()

