"""What a run folder holds, field by field: the contract between the runner, which writes it, and everything that
reads it (summary, compare, claims, the report).

A run folder holds `manifest.json` (one JSON object: the config, provenance, graphs, baseline) and `rows.jsonl`
(one JSON object per line: a row per prepare and per solve, appended as each ends, so a crash loses at most the
line being written). The manifest records the schema's version; a manifest without one is version 1, the version
every run had before manifests recorded it. A reader refuses a version newer than it knows.

Versions: 1, prepare and solve rows. 2 (config `energy`): rows of phase "energy", one per GPU (graph, variant) whose
energy per solve was measured after its timed solves (run/energy.py), with the fields energy_j (joules per solve),
power_w, idle_power_w, energy_solves, energy_method and power_trace (its power trace, `power/*.csv` in the run
folder; results/energy.py), and the manifest's `energy`. A version-1 reader would refuse the new phase, hence the
new version; every version-1 run reads as before.

A solve is *verified* when its status is "ok", its certificate passed and its reference compare, when made, did not
disagree (`solve_outcome`); only verified solves count toward any timing.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

SCHEMA_VERSION = 2

MANIFEST_FILE = "manifest.json"
POWER_FOLDER = "power"
"""A run folder's power traces (config `energy`): POWER_FOLDER/<graph>__<variant>.csv, named by `trace_file`."""
ROWS_FILE = "rows.jsonl"

MANIFEST_KEYS = {
    "schema_version": "the version of this schema the run was written in (absent: 1)",
    "run_id": "the run folder's name",
    "config": "the validated config (run/config.py's raw form), with any --graph/--variant selection",
    "config_hash": "the hash a resumed run must match",
    "config_path": "the config file the run began from",
    "started": "UTC time the run began",
    "finished": "UTC time the run (or its last session) ended; null while running",
    "status": "running, complete, interrupted (Ctrl-C or SIGTERM; --resume continues it) or failed (an exception "
              "of the harness, in `error`); a merge of shards: complete, or incomplete while one is not",
    "error": "a failed run's exception, one line (dropped when it is resumed)",
    "baseline": "the name speedups divide by, or one per problem kind (results/names.py resolves it); null for none",
    "provenance": "host, CPU, GPU, packages, git commit and code digest (run/provenance.py)",
    "graphs": "per graph label: size, origin, Table 1 facts, the shared sources, roofline; for a stand-in, its spec, "
              "the catalog's note and what is known of the real graph's Table 1 (real_graph); variant_order: the "
              "variants in the order they ran on it (run/order.py; a merge: every shard's); exports: where an external "
              "program's copy of the graph lies in the run folder, per format (path, bytes, export_s; impls/external.py); "
              "per_graph_cache: what the per-graph cache gave and what was computed (run/per_graph.py)",
    "not_loaded": "graph label -> why it could not be loaded (its variants' prepare rows say the same); `run` exits "
                  "with status 2 when there is any; absent when every graph loaded",
    "skipped": "variant -> why it could not run here",
    "resumed": "UTC times of each --resume",
    "roofline": "the device constants the floors use, or why they were not measured",
    "statuses": "how many rows ended with each status",
    "code_changes": "a resume with other code than the run began with: when, and the new code digest",
    "shard": "a shard's place in its split: index, count, cells, the source ranges of the cells it runs in part, the "
             "unsplit config's hash, the split's method, estimate and digest (run/shards.py)",
    "merged_from": "a merge of shards: each shard's run, host, status and attempts (run/shards.py)",
    "timing": "where the wall time went: start-up, per-graph preparation, per-cell setup, solve loops, timed solves, "
              "verification, the rest, and per-cell records; a merge: summed, per shard and elapsed (run/timing.py)",
    "energy": "config energy on: its settings, whether NVML could measure here (available, reason), the GPU and "
              "driver NVML saw, the backend (pynvml or ctypes), energy counter or sampled power (run/energy.py)",
    "gpu_sharing": "a GPU run: whether NVML could list the processes computing on its GPU (checked, reason), how "
                   "many looks, the most other processes one look saw and their ids (run/gpu_sharing.py)",
}

# Every row has these fields, in this order (the order they are written in).
ROW_FIELDS = (
    "run_id", "phase", "graph", "implementation", "variant", "params", "device", "kind", "source",
    "source_index", "repetition", "status", "message", "time_s", "end_to_end_s", "timer", "reached_vertices",
    "reached_arcs", "mteps", "certificate", "reference", "counters", "floor_s", "stand_in_for", "stand_in",
    "energy_j", "power_w", "idle_power_w", "energy_solves", "energy_method", "power_trace",
)
# An energy row (phase "energy"; null elsewhere): time_s is its window, energy_j the joules per solve in it, power_w
# the mean power over it, idle_power_w the mean before it, energy_solves the solves in it, energy_method "energy
# counter" or "sampled power", power_trace the trace's path in the run folder. Status "unavailable" (with why in
# message) where NVML cannot measure, "error" where the phase failed; neither is a failed solve.
# A row's `timer` says which clock its time_s is: "cuda-event" (a GPU implementation, events around the solve on its
# stream), "host" (a CPU implementation, or a failed or prepare row: the host clock), "process" (an external
# program: the wall time of its process, spawn to exit, by the runner's host clock; `per: run`, the one process's
# divided among its sources) or "program" (an external program's own reported time, the process's wall time beside
# it in counters.process_s). Values added without a version bump: a reader that does not know one reads time_s.
CHECKED_SOLVE_FIELDS = ("certificate_device",)  # only on a solve whose answer was checked: "gpu" or "cpu"
REQUIRED_ROW_FIELDS = ("phase", "graph", "implementation", "status")
NUMERIC_ROW_FIELDS = ("time_s", "end_to_end_s", "reached_vertices", "reached_arcs", "mteps", "floor_s", "energy_j",
                      "power_w", "idle_power_w", "energy_solves")
PHASES = ("prepare", "solve", "energy")

# The statuses the runner writes: "ok", or the kind of failure (LDBC-style; the run goes on after each).
STATUSES = ("ok", "wrong_answer", "timeout", "out_of_memory", "error", "unsupported", "negative_cycle", "unavailable")

# Why a solve is not verified: the runner's failure statuses, plus three ways an "ok" solve falls short.
FAILURE_OUTCOMES = (
    "wrong_answer", "certificate_failed", "reference_mismatch", "unchecked", "timeout", "out_of_memory",
    "error", "unsupported", "negative_cycle", "unavailable",
)

# Said in the report when a failed row carries no message of its own.
OUTCOME_EXPLANATIONS = {
    "unchecked": "status ok but the answer was not checked (certificate null)",
    "certificate_failed": "status ok but the certificate rejected the distances",
    "reference_mismatch": "status ok but the distances differ from the reference implementation's",
}


def new_manifest(**values: Any) -> dict[str, Any]:
    """A new run's manifest: the schema's version, then `values` (keys of MANIFEST_KEYS only)."""
    unknown = [key for key in values if key not in MANIFEST_KEYS]
    if unknown:
        raise KeyError(f"{unknown[0]!r} is not a manifest key of schema version {SCHEMA_VERSION}")
    return {"schema_version": SCHEMA_VERSION, **values}


def new_row(**values: Any) -> dict[str, Any]:
    """A row with every field of ROW_FIELDS, in order: `values` where given, else null."""
    unknown = [key for key in values if key not in ROW_FIELDS]
    if unknown:
        raise KeyError(f"{unknown[0]!r} is not a row field of schema version {SCHEMA_VERSION}")
    return {field: values.get(field) for field in ROW_FIELDS}


def schema_version(manifest: dict[str, Any]) -> int:
    """The version a manifest was written in: its `schema_version`, 1 when it has none."""
    return manifest.get("schema_version", 1)


def solve_outcome(status: str, certificate: bool | None, reference: bool | None) -> str:
    """"verified", or why not: the status itself, or how an "ok" solve fell short."""
    if status != "ok":
        return status
    if certificate is False:
        return "certificate_failed"
    if reference is False:
        return "reference_mismatch"
    if certificate is True:
        return "verified"
    return "unchecked"


_UNSAFE = re.compile(r"[^A-Za-z0-9._=+-]")


def safe_name(text: str) -> str:
    """A file-name stem for any label: unsafe characters become '_', plus a short hash when any did, so two labels
    never share a file."""
    cleaned = _UNSAFE.sub("_", text)
    return cleaned if cleaned == text else f"{cleaned}-{hashlib.sha256(text.encode()).hexdigest()[:8]}"


def trace_file(graph: str, variant: str) -> str:
    """The power trace's path inside the run folder: power/<graph>__<variant>.csv."""
    return f"{POWER_FOLDER}/{safe_name(graph)}__{safe_name(variant)}.csv"
