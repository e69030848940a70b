"""Shards: one config split into n runs that together make the whole run, for several GPUs, nodes or CI jobs.

A config's cells are its (graph, variant) pairs. `run CONFIG --shard i/n` runs the cells of shard i of a
deterministic split into n: the same config (and the same code) gives the same split on every machine, so n
separate jobs, each running one shard, cover every cell exactly once. Each shard is a complete run folder,
resumable with `--resume` as any run is, whose manifest records `shard: {index, count, cells, config_hash}`
(config_hash: the hash of the config before the split, so shards of different configs are never merged). The
runner runs only a shard's cells on each graph, and never loads a graph none of them needs.

The split balances the cells' expected cost, estimated from the config alone (never from what one machine has
cached, which would give two machines two different splits):

    cost = arcs x (sources x repetitions + warm-up) x weight of the implementation

- arcs: a catalog graph's size from the catalog (its stand-in has the same size by design); a generator spec's
  from its parameters without generating it (`estimated_arcs`: exact for grid, chain, star, complete, fixed-degree
  and small-world, m for random and rmat, edgefactor x 2^scale for kron, the mean degree for road and
  communities, a near-interior count for mesh, n^1.143 for forest-fire, fitted to Gen-ForestFire); a .csr
  file's from its header.
- sources: the config's count, or the variant's own `sources: N` when smaller.
- weight: IMPLEMENTATION_WEIGHTS, the wall time per reached arc relative to cpu-dijkstra (end-to-end times of
  the H200 reports in experiments/*/measured/, geometric mean over graphs); 1 for an implementation not listed.
  A Bellman-Ford's cost grows with the graph's hop diameter, which the estimate does not know: the split is a
  good guess, not a schedule (`run --workers` evens the rest out by running more shards than workers).

Cells go to shards longest-first, each to the shard with the least cost so far (ties to the lower index), and
run graph by graph in the config's order within a shard, each graph's variants in the order the unsplit run
gives them (order.py). A graph's cells may land in several shards: each shard then loads the
graph and picks its sources (the same ones: they are seeded), which is the price of the balance.

`merge_shards` joins a complete set of shard folders into one run folder (rows concatenated, manifests combined,
`merged_from` naming each shard and where it ran) that `report` and `compare` read like any run, e.g. for a
regression gate against a stored baseline. results/shards.py says which shards of a split a set of manifests lacks.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..errors import UserError
from ..jsonfile import read_json, write_json_atomic
from ..results.energy import POWER_FOLDER
from ..results.shards import shard_problems
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


@dataclass(frozen=True)
class Cell:
    """One (graph, variant) pair of a config and its expected cost (arbitrary units; only ratios matter)."""

    graph: str
    variant: str
    cost: float


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


def config_cells(config: Config) -> list[Cell]:
    """Every cell the config runs, in its order (graph-major), with its expected cost."""
    sizes = {entry.label: estimated_arcs(entry, config.datasets) for entry in config.graphs}
    cells = []
    for entry in config.graphs:
        for variant in config.variants_on(entry.label):
            sources = min(variant.max_sources or config.source_count, config.source_count)
            solves = sources * config.repetitions + config.warmup
            weight = IMPLEMENTATION_WEIGHTS.get(variant.implementation, 1.0)
            cells.append(Cell(entry.label, variant.name, sizes[entry.label] * solves * weight))
    return cells


def split_cells(config: Config, count: int) -> list[list[Cell]]:
    """The config's cells dealt into `count` shards, longest first to the least loaded, each in config order."""
    cells = config_cells(config)
    order = {(cell.graph, cell.variant): position for position, cell in enumerate(cells)}
    shards: list[list[Cell]] = [[] for _ in range(count)]
    loads = [0.0] * count
    for cell in sorted(cells, key=lambda cell: (-cell.cost, order[(cell.graph, cell.variant)])):
        lightest = min(range(count), key=lambda index: (loads[index], index))
        shards[lightest].append(cell)
        loads[lightest] += cell.cost
    return [sorted(shard, key=lambda cell: order[(cell.graph, cell.variant)]) for shard in shards]


def select_shard(config: Config, index: int, count: int) -> Config:
    """The config restricted to shard `index` of `count` (from 1): only its cells run, only its graphs load.

    The shard (index, count, cells) joins the config's hash, so `--resume` continues only the same shard."""
    shards = split_cells(config, count)
    mine = shards[index - 1]
    total = sum(cell.cost for shard in shards for cell in shard)
    pairs = [[cell.graph, cell.variant] for cell in mine]
    config.shard = {
        "index": index, "count": count, "cells": pairs, "config_hash": config.hash,
        "estimated_share": sum(cell.cost for cell in mine) / total if total else 0.0,
    }
    config.cells = frozenset((graph, variant) for graph, variant in pairs)
    config.graphs = [entry for entry in config.graphs if any(cell.graph == entry.label for cell in mine)]
    config.variants = [variant for variant in config.variants if any(cell.variant == variant.name for cell in mine)]
    config.raw["shard"] = {"index": index, "count": count, "cells": pairs}
    return config


def shard_run_id(config_name: str, index: int, count: int) -> str:
    return f"{config_name}-shard-{index}-of-{count}"


# -- merging --------------------------------------------------------------------------------------------------


def merge_shards(shard_dirs: list[Path], into: Path, log: Callable[[str], None] | None = None) -> Path:
    """Join one complete split's shard folders into the run folder `into`: rows concatenated in the config's order,
    one manifest for the whole config (the config before the split and its hash, the graphs of every shard, the
    statuses counted from the rows) with `merged_from` recording each shard's run, host, GPU, rows and attempts. `into` may hold an earlier
    merge of the same shards, which is replaced; never another run."""
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
    problems = shard_problems([manifest for _, manifest in loaded])
    if problems:
        raise UserError(f"cannot merge: {problems[0]}" + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
    loaded.sort(key=lambda item: item[1]["shard"]["index"])
    _check_into(into, {str(manifest.get("run_id")) for _, manifest in loaded})

    rows, merged_from = [], []
    for shard_dir, manifest in loaded:
        lines = complete_lines(shard_dir / "rows.jsonl")
        rows += lines
        shard = manifest["shard"]
        provenance = manifest.get("provenance") or {}
        merged_from.append({
            "run_id": manifest.get("run_id"), "path": os.path.relpath(shard_dir.resolve(), into.resolve()),
            "shard": {"index": shard["index"], "count": shard["count"], "cells": shard["cells"]},
            "status": manifest.get("status"), "started": manifest.get("started"), "finished": manifest.get("finished"),
            "host": provenance.get("host"), "gpu": provenance.get("gpu"), "rows": len(lines),
            "statuses": row_statuses(lines), "resumed": manifest.get("resumed", []),
            "attempts": _attempts(shard_dir),
        })
        if manifest.get("status") != "complete":
            log(f"warning: shard {shard['index']}/{shard['count']} ({shard_dir}) is {manifest.get('status')}: "
                f"the merged run covers only what it finished")

    merged = _merged_manifest(into, [manifest for _, manifest in loaded], merged_from)
    rows = _in_config_order(rows, merged["config"])
    merged["statuses"] = row_statuses(rows)
    into.mkdir(parents=True, exist_ok=True)
    rows_path = into / "rows.jsonl"
    temporary = rows_path.with_name(f".rows.jsonl.{os.getpid()}.tmp")
    temporary.write_text("".join(line + "\n" for line in rows), encoding="utf-8")
    os.replace(temporary, rows_path)
    _copy_power_traces([shard_dir for shard_dir, _ in loaded], into)
    write_json_atomic(into / "manifest.json", merged)
    return into


def _copy_power_traces(shard_dirs: list[Path], into: Path) -> None:
    """The shards' power traces (config `energy`, results/energy.py) into the merged run's power/, where its energy
    rows name them: each (graph, variant) ran in one shard, so their names never clash."""
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


def _in_config_order(lines: list[str], config: dict[str, Any]) -> list[str]:
    """The rows ordered graph-major by the config's graphs and variants, as one unsplit run writes them (each
    cell's rows keep their order), so the merged run's tables list graphs and variants as the unsplit run's do."""
    graphs = {graph["label"]: index for index, graph in enumerate(config.get("graphs", []))}
    variants = {variant["name"]: index for index, variant in enumerate(config.get("variants", []))}

    def position(line: str) -> tuple[int, int]:
        row = json.loads(line)
        return graphs.get(row.get("graph"), len(graphs)), variants.get(row.get("variant"), len(variants))

    return sorted(lines, key=position)


def row_statuses(lines: list[str]) -> dict[str, int]:
    """Counted as the runner counts them (every solve, the prepares that failed), but from the rows: a shard's
    manifest counts only its last session's, and a shard that was resumed had several."""
    counted: dict[str, int] = {}
    for line in lines:
        row = json.loads(line)
        if row.get("phase") == "solve" or (row.get("phase") == "prepare" and row.get("status") != "ok"):
            counted[row["status"]] = counted.get(row["status"], 0) + 1
    return counted


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


def _merged_manifest(into: Path, manifests: list[dict[str, Any]], merged_from: list[dict[str, Any]]) -> dict[str, Any]:
    first = manifests[0]
    graphs: dict[str, Any] = {}
    for manifest in manifests:
        for label, record in (manifest.get("graphs") or {}).items():
            earlier = graphs.get(label)
            if earlier is None:
                graphs[label] = dict(record)
                continue
            for key in ("sources", "stand_in_for", "n", "m"):
                if earlier.get(key) != record.get(key):
                    raise UserError(f"cannot merge: graph {label!r} has other {key} in run {manifest.get('run_id')} "
                                    f"than in an earlier shard (did one machine have the real graph and another "
                                    f"its stand-in?)")
            if "variant_order" in earlier or "variant_order" in record:  # each shard ran its cells of one order
                seed = ((first.get("config") or {}).get("sources") or {}).get("seed", 1)
                names = {*earlier.get("variant_order", []), *record.get("variant_order", [])}
                earlier["variant_order"] = variant_run_order(names, seed, label)
    config = {key: value for key, value in (first.get("config") or {}).items() if key != "shard"}
    # the device constants of the first shard that measured them (a record without "available" is a measurement)
    measured = next((m["roofline"] for m in manifests
                     if m.get("roofline") and m["roofline"].get("available", True)), first.get("roofline"))
    # likewise the energy meter's record: the first shard where NVML could measure
    energy = next((m["energy"] for m in manifests if (m.get("energy") or {}).get("available")), first.get("energy"))
    complete = all(manifest.get("status") == "complete" for manifest in manifests)
    merged = {key: value for key, value in first.items()
              if key not in ("shard", "resumed", "code_changes", "not_loaded", "error")}
    merged.update({
        "run_id": into.name, "config": config, "config_hash": first["shard"]["config_hash"],
        "started": min(str(m.get("started") or "") for m in manifests) or None,
        "finished": max(str(m.get("finished") or "") for m in manifests) or None,
        "status": "complete" if complete else "incomplete",
        "graphs": graphs, "roofline": measured,
        **({"energy": energy} if energy is not None else {}),
        "skipped": {name: why for manifest in manifests for name, why in (manifest.get("skipped") or {}).items()},
        "merged_from": merged_from,
    })
    # Shards that ran other code than the first (or were resumed with other code) are recorded as a resume with
    # other code is, so the report names every digest behind its rows.
    changes = [change for manifest in manifests for change in manifest.get("code_changes", [])]
    changes += [{"at": manifest.get("started"), "sha256": _code_digest(manifest), "run_id": manifest.get("run_id")}
                for manifest in manifests[1:] if _code_digest(manifest) not in (None, _code_digest(first))]
    if changes:
        merged["code_changes"] = changes
    not_loaded = {label: why for manifest in manifests for label, why in (manifest.get("not_loaded") or {}).items()}
    if not_loaded:  # any shard's graph that failed to load: `run --workers` exits with status 2 for it
        merged["not_loaded"] = not_loaded
    return merged


def _code_digest(manifest: dict[str, Any]) -> str | None:
    return ((manifest.get("provenance") or {}).get("code") or {}).get("sha256")


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


def describe_split(config: Config, count: int) -> list[str]:
    """One line per shard: its cells and its share of the expected cost, for `--dry-run`-like listings."""
    shards = split_cells(config, count)
    total = sum(cell.cost for shard in shards for cell in shard) or math.inf
    return [f"shard {index}/{count}: {sum(cell.cost for cell in shard) / total:.0%} of the expected cost, "
            f"{len(shard)} cell(s): " + ", ".join(f"{cell.graph}/{cell.variant}" for cell in shard)
            for index, shard in enumerate(shards, start=1)]
