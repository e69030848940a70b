"""Run configs: YAML checked against a schema before anything runs.

    name: quick                       # optional; defaults to the file's stem
    description: a line for the report
    graphs:                           # catalog names, generator specs or .csr paths
      - rmat:n=4096,m=32768,seed=1
      - {graph: grid:rows=64,cols=64, label: grid-64, weights: uniform:min=1,max=100,seed=2}
      - {graph: asia.osm, stand_in: auto}  # the catalog's synthetic stand-in when asia.osm is not fetched
      - {graph: random.2Mv.128Me, params: {bfs4k: {k1: 32}}}  # a variant's parameters on this graph only
      - {graph: rome99, stand_in: both}    # the real graph and the catalog's stand-in for it, side by side
      - power                              # a graph `sssp-bench import` put into the dataset cache
      - {graph: data/p2p.txt.gz, convert: {directed: true}}  # a graph file, converted on first use
    implementations:                  # names; a list of values sweeps a parameter (one variant per combination)
      - cpu-dijkstra
      - {name: cpu-bf-queue, params: {count_relaxations: [false, true]}}
      - {name: cpu-bf, sources: 10}   # only the first 10 of the shared sources (a slow baseline on a big graph)
      - {name: cpu-bf-queue, label: spfa-counting, params: {count_relaxations: true}}  # a second, named variant
    sources: {count: 100, seed: 1, min_reached: auto}
    repetitions: 1                    # timed passes over the sources
    warmup: 1                         # untimed solves per implementation and graph, before the timed ones
    weights: keep                     # keep | unit | uniform:... | negative:... (see weights.py); per graph too
    verification: {reference: auto, reference_sources: 10}
    baseline: cpu-dijkstra            # the variant speedups divide by; null for none; or one per problem kind:
                                      # {sssp: cpu-dijkstra, bfs: cpu-bfs} (BFS variants divided by a BFS)
    time_limit: 600                   # seconds per solve
    energy: false                     # true, or {min_window_s: 2.0, sample_ms: 100, idle_s: 0.5}: energy per solve
    output: results
    datasets: datasets

An unknown key, a wrong type or an unknown implementation is a ConfigError naming the file, the line, the key
and what is allowed.

Stand-ins: a catalog graph that is downloaded (not generated) may carry `stand_in`: `auto` (the catalog entry's
`stand_in` spec), a generator spec of your own, or `false` (the default: the real graph is required). The
stand-in runs only when the real graph is not in the dataset cache; results keep the paper's label and record
`stand_in_for`, and the report marks the graph (see graphs.choose_graph). `both` runs the real graph (which must
be fetched) and the catalog's stand-in for it, side by side: the entry becomes two graphs, the real one under its
label and the stand-in under `<label>-stand-in` (STAND_IN_SUFFIX), with the same weights and parameters, so the
report's stand-in fidelity section can put each implementation's times and their order on both side by side.

Graph files: a graph entry may name a graph file by its path (any format the parsers read, compressed or not, or
an archive); it is converted on first use and cached by content hash (datasets/user_graphs.py). Its `convert`
says how to read it where the file does not: `format`, `member` (the file inside an archive), `directed` (a SNAP
edge list must be told) and the cleaning options (`symmetrize: true`, ...: catalog.CLEAN_KEYS). A graph that
`sssp-bench import` put into the dataset cache is named by its name, like a catalog graph.

Variants: `label` names one entry's variant(s) instead of the implementation's name, so one implementation can
run with several fixed parameter sets side by side (`{name: hbf, label: hbf-all-off, params: {...}}`); a swept
parameter appends `[key=value]` to the label as it does to the name. `baseline` and `targets` use these names.

External programs: `{name: external, label: my-sssp, params: {command: "./my-sssp {graph} {source1}", ...}}` runs a
program built outside the harness per source (impls/external.py says every parameter). Its `command` and `build`
take a list as their value, not as a sweep (a list of lists sweeps them), and `kind: bfs` makes the entry the
implementation `external-bfs`, whose rows solve bfs. A missing program is a prepare row, not a config error, so a
config parses on a machine that has not built it.

Per-graph parameters: a graph entry's `params` maps a variant name to parameters that replace that variant's on
this graph only (a paper that tuned its knobs per graph, as BFS-4K's Table 2 did). The variant keeps its name;
its rows record the parameters it ran with. A swept parameter cannot be replaced: the sweep is the point.

Targets: what a paper measured or an issue asks of the run, which the report checks (results/summary.py,
results/claims.py):

    targets:
      source: "H-BF paper, Table 2 (GTX 780, 288 GB/s)"
      paper_bandwidth_gbs: 288        # needed with mteps: the paper's MTEPS x device / paper bandwidth
      device_bandwidth_gbs: {H100: 3350, H200: 4800}
      mteps: {rmat.3Mv.20Me: {hbf: 201}}                 # graph -> variant -> the paper's MTEPS
      efficiency: {near-far: {rmat.3Mv.20Me: 0.5}}        # variant -> graph -> least fraction of the roofline floor
      faster_than:                                         # a paper's ordering, judged paired by source
        - {variant: hbf, than: [lonestar, workfront], graphs: [rmat.3Mv.20Me, flickr]}
        - {variant: hbf, than: [fastest-other], by: 2, graphs: [flickr]}  # at least 2x faster than the fastest
                                                                           # other variant of its kind on the graph
      time_ms: {USA-road-d.NY: {hbf: 1.9}}                 # graph -> variant -> the most ms of its median time
      within:                                              # no slower than `factor` x, judged paired by source
        - {variant: hbf, of: [fastest-other], factor: 1.25, graphs: [rmat.3Mv.20Me], or_not_meant_for: true}
      work:                                                # the median of counters[counter] / the row's `per`
        - {variant: hbf, counter: relaxed, per: reached_vertices, max: 1.5, graphs: [USA-road-d.NY]}

`fastest-other` (only on a claim's other side: `than`, `of`) is the fastest other variant of the claimant's problem
kind on each graph. `or_not_meant_for: true` also meets a `within` claim where the variant's implementation declares
(`recommended_for`) graph classes that leave the graph's class out. results/claims.py says how each is judged.

Figures: line plots the report draws from the run, a paper's figure redrawn (report/sections/figures.py):

    figures:
      - name: density                               # figure-density.svg beside report.md
        title: "Speedup over Dijkstra against density (10K vertices)"
        x: arcs                                     # vertices | arcs | average_degree | param:KEY (of a spec)
        y: speedup                                  # speedup (default) | time | mteps | efficiency | counter:NAME
        graphs: [density-20K, density-100K, density-500K]   # the points, in order
        variants: [delta-stepping]                  # default: every variant but the baseline
        paper: {delta-stepping: [1.1, 2.0, 2.9]}    # the paper's values, one per graph (null: none), dashed
      - name: warps                                 # a swept implementation parameter on the x axis
        x: sweep:warps_per_block                    # each variant at its value of that parameter
        y: counter:resolve0_ns                      # the median over verified solves of a numeric counter
        graphs: [dag-30K]                           # one line per graph (one graph is enough)
        variants: [pardijkstra]                     # the sweep's entry; no `paper` (its points are not graphs)

Energy: `energy: true` (or a mapping: `enabled`, default true; `min_window_s`, default 2.0; `sample_ms`, default 100;
`idle_s`, default 0.5) measures each GPU variant's energy per solve through NVML in a phase of its own after its
timed solves on a graph (run/energy.py): `idle_s` of idle power, then its verified sources solved back to back for
at least `min_window_s`, joules per solve = the energy counter's difference / solves; a power trace sampled every
`sample_ms` goes into the run folder's power/ for the report's power-over-time figure. Timed solves are unchanged;
CPU variants get no energy; where NVML cannot measure, the manifest and the energy rows say why.

A name in `baseline`, `targets`, `figures` or `run --variant` stands for variants by one rule (results/names.py: the variant of
that name, else the sweep of the entry it labels, else the implementation's variants), which also says what each
does with a name that stands for several; `graphs` defaults to every graph of the config.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .. import impls, yamlfile
from ..errors import ConfigError, UserError
from ..impls.external import ExternalProgram
from ..results.names import FASTEST_OTHER, default_baseline, stands_for

TOP_LEVEL_KEYS = {
    "name", "description", "graphs", "implementations", "sources", "repetitions", "warmup", "weights",
    "verification", "baseline", "time_limit", "output", "datasets", "targets", "figures", "energy",
}
ENERGY_KEYS = {"enabled", "min_window_s", "sample_ms", "idle_s"}
ENERGY_DEFAULTS = {"min_window_s": 2.0, "sample_ms": 100.0, "idle_s": 0.5}
TARGET_KEYS = {"source", "paper_bandwidth_gbs", "device_bandwidth_gbs", "mteps", "efficiency", "faster_than",
               "time_ms", "within", "work"}
FASTER_THAN_KEYS = {"variant", "than", "graphs", "by"}
WITHIN_KEYS = {"variant", "of", "factor", "graphs", "or_not_meant_for"}
WORK_KEYS = {"variant", "counter", "per", "max", "graphs"}
WORK_PER = ("reached_vertices", "reached_arcs")  # what a `work` claim divides its counter by: a row's column
FIGURE_KEYS = {"name", "title", "x", "y", "graphs", "variants", "paper"}
FIGURE_X = ("vertices", "arcs", "average_degree")  # or param:KEY (a graph's generator parameter), sweep:KEY
FIGURE_Y = ("speedup", "time", "mteps", "efficiency")  # or counter:NAME (the median of a numeric counter)
GRAPH_KEYS = {"graph", "label", "weights", "stand_in", "params", "convert"}
CONVERT_KEYS = {"format", "member", "directed"}  # and the cleaning options, catalog.CLEAN_KEYS
STAND_IN_SUFFIX = "-stand-in"  # the label of the stand-in that `stand_in: both` runs beside the real graph
IMPLEMENTATION_KEYS = {"name", "label", "params", "sources"}
SOURCES_KEYS = {"count", "seed", "min_reached"}
VERIFICATION_KEYS = {"reference", "reference_sources"}


@dataclass(frozen=True)
class GraphEntry:
    graph: str            # catalog name, generator spec or path
    label: str            # the name results and reports use
    weights: Any          # a weight spec (string or dict), "keep" by default
    stand_in: str | None = None  # generator spec to run when the catalog graph is not fetched; None: it is required
    params: dict[str, dict[str, Any]] = field(default_factory=dict)  # variant name -> its parameters on this graph
    convert: dict[str, Any] | None = None  # how a graph file is read (format, member, directed, cleaning options)
    beside: str | None = None  # `stand_in: both`: the label of the real graph this stand-in runs beside (it runs even
                               # where the real graph is fetched)

    def variant(self, variant: Variant) -> Variant:
        """The variant as it runs on this graph: its parameters with this graph's replacements."""
        replaced = self.params.get(variant.name)
        return dataclasses.replace(variant, params={**variant.params, **replaced}) if replaced else variant


@dataclass(frozen=True)
class Variant:
    """One implementation with one set of parameters: a column of the report."""

    name: str             # e.g. "cpu-bf-queue[count_relaxations=true]", or the entry's label
    implementation: str
    params: dict[str, Any]
    max_sources: int | None = None  # solve only the first N of the shared sources (slow baselines on big graphs)


@dataclass
class Config:
    name: str
    description: str
    graphs: list[GraphEntry]
    variants: list[Variant]
    source_count: int
    source_seed: int
    min_reached: int | None          # None: min(10^5, 10% of V)
    repetitions: int
    warmup: int
    reference: str                   # "auto" or an implementation name
    reference_sources: int
    baseline: str | dict[str, str] | None  # one name, or one per problem kind (results/names.baseline_for)
    time_limit: float
    output: Path
    datasets: Path
    targets: dict[str, Any] | None = None   # speed goals: paper MTEPS per graph and implementation, and bandwidths
    raw: dict[str, Any] = field(default_factory=dict)
    path: str = "<config>"
    # A shard (`run --shard i/n`, shards.py) runs only these (graph label, variant name) cells; None: every cell.
    cells: frozenset[tuple[str, str]] | None = None
    # ... and of these cells only the source indexes [first, stop) (a cell the split cut into source ranges)
    source_ranges: dict[tuple[str, str], tuple[int, int]] = field(default_factory=dict)
    shard: dict[str, Any] | None = None     # {index, count, cells, source_ranges, config_hash, split}: the manifest's
    energy: dict[str, float] | None = None  # {min_window_s, sample_ms, idle_s} when energy is measured; None: not

    def gpu_variants(self) -> list[str]:
        """The names of the variants whose implementation runs on the GPU in this process (an external program's own
        GPU is its process's: slurm.needs_gpu counts it, for the GPUs a job asks for)."""
        return [variant.name for variant in self.variants if impls.get(variant.implementation).device == "gpu"]

    def variants_on(self, label: str) -> list[Variant]:
        """The variants this config runs on the graph labelled `label`: all of them, or a shard's cells there."""
        if self.cells is None:
            return list(self.variants)
        return [variant for variant in self.variants if (label, variant.name) in self.cells]

    def source_range(self, label: str, variant: str) -> tuple[int, int] | None:
        """The source indexes [first, stop) a shard solves of this cell, where its split cut the cell; None: all."""
        return self.source_ranges.get((label, variant))

    @property
    def hash(self) -> str:
        """Hash of the validated config: a resumed run must have the same one."""
        canonical = json.dumps(self.raw, sort_keys=True, default=str)
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def select_graphs(config: Config, labels: list[str]) -> Config:
    """The config restricted to the graphs with these labels (in the config's order), e.g. to split a long run
    over several sessions; the selection is part of the config's hash, so a resume must make the same one."""
    known = [graph.label for graph in config.graphs]
    unknown = [label for label in labels if label not in known]
    if unknown:
        raise ConfigError(f"{config.path}: no graph labelled {unknown[0]!r} (graphs: {', '.join(known)})")
    config.graphs = [graph for graph in config.graphs if graph.label in labels]
    config.raw["graphs"] = [entry for entry in config.raw["graphs"] if entry["label"] in labels]
    config.raw["selected_graphs"] = [graph.label for graph in config.graphs]
    # every graph the config holds, which the selection drops from "graphs": a claim on every graph counts them all
    config.raw.setdefault("config_graphs", known)
    return config


def select_variants(config: Config, names: list[str]) -> Config:
    """The config restricted to these variants (in the config's order), e.g. to run again only the implementation
    whose kernel changed. A name takes every variant it stands for (results/names.py): a variant's own name
    ("bfs-vwarp[warp_size=4]"), else an entry's label with all its swept variants, else an implementation's name
    with all its variants ("bfs-vwarp"). Part of the config's hash, like a graph selection; the report borrows
    the baseline from a merged run when this one did not run it."""
    variants = _variant_implementations(config.variants)
    chosen: set[str] = set()
    for name in names:
        named = stands_for(name, variants)
        if not named:
            raise ConfigError(f"{config.path}: no variant named {name!r} (variants: {', '.join(variants)})")
        chosen.update(named)
    config.variants = [variant for variant in config.variants if variant.name in chosen]
    config.raw["selected_variants"] = [variant.name for variant in config.variants]
    return config


class _Locator:
    """Line numbers of YAML nodes by key path, so an error can say where in the file it is."""

    def __init__(self, path: str):
        self.path = path
        self.lines: dict[str, int] = {}

    def where(self, key_path: str) -> str:
        probe = key_path
        while probe and probe not in self.lines:
            probe = probe.rsplit(".", 1)[0] if "." in probe else ""
        line = self.lines.get(probe)
        return f"{self.path}:{line}" if line else self.path

    def fail(self, key_path: str, message: str) -> ConfigError:
        return ConfigError(f"{self.where(key_path)}: {key_path}: {message}" if key_path else f"{self.where('')}: {message}")

    def record(self, node: yaml.Node, key_path: str) -> None:
        self.lines[key_path] = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                child = f"{key_path}.{key_node.value}" if key_path else str(key_node.value)
                self.lines[child] = key_node.start_mark.line + 1
                self.record(value_node, child)
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                self.record(item, f"{key_path}[{index}]")


def load_config(path: str | Path) -> Config:
    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise UserError(f"{path}: no such config file") from None
    except (IsADirectoryError, UnicodeDecodeError) as error:
        raise UserError(f"{path}: cannot read the config ({error.__class__.__name__})") from None
    return parse_config(text, str(path), default_name=path.stem)


def parse_config(text: str, path: str = "<config>", default_name: str = "run") -> Config:
    locator = _Locator(path)
    try:
        node = yaml.compose(text)
        data = yamlfile.safe_load(text)  # a key given twice is refused, with its line
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise ConfigError(f"{path}{line}: not valid YAML ({problem})") from None
    if node is not None:
        locator.record(node, "")
    if not isinstance(data, dict):
        raise locator.fail("", "expected a mapping of keys (graphs, implementations, ...) at the top level")
    return _validate(data, locator, default_name)


def _validate(data: dict[str, Any], locator: _Locator, default_name: str) -> Config:
    _check_keys(data, TOP_LEVEL_KEYS, "", locator)
    for required in ("graphs", "implementations"):
        if required not in data:
            raise locator.fail("", f"missing required key {required!r}")

    name = _typed(data, "name", str, locator, default_name)
    if not name or any(char in name for char in "/\\ ") :
        raise locator.fail("name", f"expected a name without spaces or slashes, got {name!r}")
    description = _typed(data, "description", str, locator, "")
    default_weights = _weights(data.get("weights", "keep"), "weights", locator)
    graphs = _graphs(data["graphs"], default_weights, locator)
    variants = _variants(data["implementations"], locator)
    _check_graph_params(data["graphs"], graphs, variants, locator)

    sources = data.get("sources", {})
    if not isinstance(sources, dict):
        raise locator.fail("sources", "expected a mapping with count, seed, min_reached")
    _check_keys(sources, SOURCES_KEYS, "sources", locator)
    source_count = _positive_int(sources, "count", "sources", locator, 100)
    source_seed = _typed(sources, "seed", int, locator, 1, "sources")
    min_reached_value = sources.get("min_reached", "auto")
    if min_reached_value == "auto":
        min_reached = None
    elif isinstance(min_reached_value, int) and not isinstance(min_reached_value, bool) and min_reached_value >= 1:
        min_reached = min_reached_value
    else:
        raise locator.fail("sources.min_reached", f"expected a positive integer or 'auto', got {min_reached_value!r}")

    repetitions = _positive_int(data, "repetitions", "", locator, 1)
    warmup = _typed(data, "warmup", int, locator, 1)
    if warmup < 0:
        raise locator.fail("warmup", f"expected 0 or more warm-up solves, got {warmup}")

    verification = data.get("verification", {})
    if not isinstance(verification, dict):
        raise locator.fail("verification", "expected a mapping with reference, reference_sources")
    _check_keys(verification, VERIFICATION_KEYS, "verification", locator)
    reference = _typed(verification, "reference", str, locator, "auto", "verification")
    if reference != "auto":
        impls.get(reference, locator.where("verification.reference") + ": verification.reference")
    reference_sources = _typed(verification, "reference_sources", int, locator, 10, "verification")
    if reference_sources < 0:
        raise locator.fail("verification.reference_sources", f"expected 0 or more, got {reference_sources}")

    kinds = {variant.name: (variant.implementation, impls.get(variant.implementation).kind) for variant in variants}
    baseline = data.get("baseline", default_baseline(kinds))
    if isinstance(baseline, dict):
        if not baseline:
            raise locator.fail("baseline", "expected one variant name, or a mapping of problem kind to one, e.g. "
                                           "{sssp: cpu-dijkstra, bfs: cpu-bfs}")
        known_kinds = sorted({implementation.kind for implementation in impls.registry().values()})
        for kind, kind_baseline in baseline.items():
            if kind not in known_kinds:
                raise locator.fail(f"baseline.{kind}", f"not a problem kind (kinds: {', '.join(known_kinds)})")
            chosen = _baseline_variant(kind_baseline, f"baseline.{kind}", variants, locator)
            if kinds[chosen][1] != kind:
                raise locator.fail(f"baseline.{kind}", f"{kind_baseline!r} solves {kinds[chosen][1]}, not {kind}")
    elif baseline is not None:
        _baseline_variant(baseline, "baseline", variants, locator)

    time_limit = data.get("time_limit", 600)
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or time_limit <= 0:
        raise locator.fail("time_limit", f"expected a positive number of seconds per solve, got {time_limit!r}")
    targets = _targets(data.get("targets"), graphs, variants, locator)
    figures = _figures(data.get("figures"), graphs, variants, locator)
    energy = _energy(data.get("energy", False), locator)
    output = Path(_typed(data, "output", str, locator, "results"))
    datasets = Path(_typed(data, "datasets", str, locator, "datasets"))

    raw = {
        "name": name, "description": description,
        "graphs": [_raw_graph(entry) for entry in graphs],
        "variants": [{"name": v.name, "implementation": v.implementation, "params": v.params,
                      "max_sources": v.max_sources} for v in variants],
        "sources": {"count": source_count, "seed": source_seed, "min_reached": min_reached},
        "repetitions": repetitions, "warmup": warmup,
        "verification": {"reference": reference, "reference_sources": reference_sources},
        "baseline": baseline, "time_limit": float(time_limit), "targets": targets,
    }
    if figures:  # only when asked: configs without figures keep their hash
        raw["figures"] = figures
    if energy:  # likewise
        raw["energy"] = energy
    return Config(
        name, description, graphs, variants, source_count, source_seed, min_reached, repetitions, warmup,
        reference, reference_sources, baseline, float(time_limit), output, datasets, targets, raw, locator.path,
        energy=energy,
    )


def _energy(value: Any, locator: _Locator) -> dict[str, float] | None:
    """`energy`: true/false, or a mapping {enabled, min_window_s, sample_ms, idle_s}; the settings with their
    defaults when on, None when off."""
    if isinstance(value, bool):
        return dict(ENERGY_DEFAULTS) if value else None
    if not isinstance(value, dict):
        raise locator.fail("energy", f"expected true, false or a mapping with {', '.join(sorted(ENERGY_KEYS))}, "
                                     f"got {value!r}")
    _check_keys(value, ENERGY_KEYS, "energy", locator)
    enabled = value.get("enabled", True)
    if not isinstance(enabled, bool):
        raise locator.fail("energy.enabled", f"expected true or false, got {enabled!r}")
    settings = {}
    for key, default in ENERGY_DEFAULTS.items():
        number = value.get(key, default)
        if isinstance(number, bool) or not isinstance(number, (int, float)) or not math.isfinite(number) or (
                number < 0 if key == "idle_s" else number <= 0):
            what = "0 or more seconds" if key == "idle_s" else (
                "a positive number of milliseconds" if key == "sample_ms" else "a positive number of seconds")
            raise locator.fail(f"energy.{key}", f"expected {what}, got {number!r}")
        settings[key] = float(number)
    if settings["sample_ms"] < 1:
        raise locator.fail("energy.sample_ms", f"expected at least 1 ms between power samples, got {value['sample_ms']!r}")
    return settings if enabled else None


def _baseline_variant(name: Any, key_path: str, variants: list[Variant], locator: _Locator) -> str:
    """The one variant a baseline name stands for: the report divides by exactly one per graph (results/names.py)."""
    named = stands_for(name, _variant_implementations(variants)) if isinstance(name, str) else []
    if not named:
        raise locator.fail(key_path, f"{name!r} is not one of the implementations run: "
                                     f"{', '.join(variant.name for variant in variants)}")
    if len(named) > 1:
        raise locator.fail(key_path, f"{name!r} stands for {len(named)} variants ({', '.join(named)}); "
                                     "name one of them")
    return named[0]


def _raw_graph(entry: GraphEntry) -> dict[str, Any]:
    raw = {"graph": entry.graph, "label": entry.label, "weights": entry.weights}
    if entry.stand_in is not None:  # only then, so that configs without stand-ins keep their hashes
        raw["stand_in"] = entry.stand_in
    if entry.beside is not None:
        raw["beside"] = entry.beside
    if entry.params:
        raw["params"] = entry.params
    if entry.convert is not None:
        raw["convert"] = entry.convert
    return raw


def _variant_implementations(variants: list[Variant]) -> dict[str, str]:
    """Variant name -> implementation, in the config's order: what a name in the config stands for is resolved
    against these (results/names.py)."""
    return {variant.name: variant.implementation for variant in variants}


def _check_graph_params(entries: list[Any], graphs: list[GraphEntry], variants: list[Variant],
                        locator: _Locator) -> None:
    """Each graph's `params`: variant names of this config, parameters that variant does not sweep, values its
    implementation accepts."""
    by_name = {variant.name: variant for variant in variants}
    swept = _swept_parameters(variants)
    for index, (entry, graph) in enumerate(zip(entries, graphs)):
        key_path = f"graphs[{index}].params"
        for name, replaced in graph.params.items():
            if name not in by_name:
                raise locator.fail(f"{key_path}.{name}", f"not a variant of this config ({', '.join(by_name)})")
            if not isinstance(replaced, dict) or not replaced:
                raise locator.fail(f"{key_path}.{name}", "expected a mapping of parameter names to values")
            for key, value in replaced.items():
                if _sweeps(impls.get(by_name[name].implementation), key, value):
                    raise locator.fail(f"{key_path}.{name}.{key}", "expected one value; sweeps belong in implementations")
                if key in swept[name]:
                    raise locator.fail(f"{key_path}.{name}.{key}", f"{name} sweeps {key!r}; a graph cannot replace it")
            implementation = impls.get(by_name[name].implementation)
            implementation.validate_parameters(graph.variant(by_name[name]).params,
                                               f"{locator.where(key_path + '.' + name)}: {key_path}.{name}")


def _swept_parameters(variants: list[Variant]) -> dict[str, set[str]]:
    """Per variant, the parameters its name's [key=value] suffix sweeps."""
    swept = {}
    for variant in variants:
        suffix = variant.name.partition("[")[2].rstrip("]")
        swept[variant.name] = {pair.partition("=")[0] for pair in suffix.split(",") if pair}
    return swept


def _name_checkers(graphs: list[GraphEntry], variants: list[Variant], locator: _Locator) -> tuple[Any, Any]:
    """(graph_label, variant_name): checks of a name in `targets` or `figures`, each `(name, key path) -> name`
    or a ConfigError naming the key."""
    labels = {graph.label for graph in graphs}
    config_variants = _variant_implementations(variants)

    def graph_label(label: Any, key_path: str) -> str:
        if label not in labels:
            raise locator.fail(key_path, f"not a graph of this config ({', '.join(sorted(labels))})")
        return label

    def variant_name(name: Any, key_path: str) -> str:
        """A name the report resolves (results/names.py): it stands for at least one variant of this config."""
        if not isinstance(name, str) or not stands_for(name, config_variants):
            raise locator.fail(key_path, "not an implementation of this config, nor a variant's name")
        return name

    return graph_label, variant_name


def _figures(figures: Any, graphs: list[GraphEntry], variants: list[Variant], locator: _Locator) -> list | None:
    """Line plots the report draws (the module docstring's `figures`), checked and with their defaults."""
    if figures is None:
        return None
    if not isinstance(figures, list) or not figures:
        raise locator.fail("figures", "expected a list of {name, title, x, y, graphs, variants, paper}")
    graph_label, variant_name = _name_checkers(graphs, variants, locator)
    checked: list[dict[str, Any]] = []
    for index, figure in enumerate(figures):
        path = f"figures[{index}]"
        if not isinstance(figure, dict):
            raise locator.fail(path, "expected a mapping {name, title, x, y, graphs, variants, paper}")
        _check_keys(figure, FIGURE_KEYS, path, locator)
        for required in ("name", "x", "graphs"):
            if required not in figure:
                raise locator.fail(path, f"missing required key {required!r}")
        name = _typed(figure, "name", str, locator, "", path)
        if not name or not all(char.isalnum() or char in "-_" for char in name):
            raise locator.fail(f"{path}.name", f"expected letters, digits, '-' or '_' (a file name), got {name!r}")
        if name in [earlier["name"] for earlier in checked]:
            raise locator.fail(f"{path}.name", f"figure {name!r} appears twice")
        x = _typed(figure, "x", str, locator, "", path)
        if x not in FIGURE_X and not (x.startswith(("param:", "sweep:")) and len(x) > len("param:")):
            raise locator.fail(f"{path}.x", f"expected one of {', '.join(FIGURE_X)}, param:KEY or sweep:KEY, "
                                            f"got {x!r}")
        y = _typed(figure, "y", str, locator, "speedup", path)
        if y not in FIGURE_Y and not (y.startswith("counter:") and len(y) > len("counter:")):
            raise locator.fail(f"{path}.y", f"expected one of {', '.join(FIGURE_Y)} or counter:NAME, got {y!r}")
        swept = x.startswith("sweep:")
        on = figure["graphs"]
        if not isinstance(on, list) or len(on) < (1 if swept else 2):
            raise locator.fail(f"{path}.graphs", "expected a list of one or more graph labels (a line each)" if swept
                               else "expected a list of two or more graph labels (the x axis's points)")
        on = [graph_label(label, f"{path}.graphs") for label in on]
        named = figure.get("variants", [])
        if not isinstance(named, list):
            raise locator.fail(f"{path}.variants", "expected a list of variants (leave it out for every variant)")
        named = [variant_name(variant, f"{path}.variants") for variant in named]
        if swept:
            _check_sweep(x.split(":", 1)[1], named, variants, f"{path}.x", locator)
        paper = figure.get("paper", {})
        if swept and paper:
            raise locator.fail(f"{path}.paper", "published values go with graph points; a sweep:KEY figure has none")
        if not isinstance(paper, dict):
            raise locator.fail(f"{path}.paper", "expected a mapping of variant to the paper's values, one per graph")
        for variant, values in paper.items():
            key_path = f"{path}.paper.{variant}"
            if not isinstance(values, list) or len(values) != len(on) or not all(
                    value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)) for value in values):
                raise locator.fail(key_path, f"expected {len(on)} numbers (or null where the paper gives none), one per "
                                             "graph in the figure's order")
        checked.append({"name": name, "title": _typed(figure, "title", str, locator, name, path), "x": x, "y": y,
                        "graphs": on, "variants": named, "paper": {str(key): value for key, value in paper.items()}})
    return checked


def _check_sweep(key: str, named: list[str], variants: list[Variant], path: str, locator: _Locator) -> None:
    """A sweep:KEY figure's KEY must be a parameter of the variants it draws (all of the config's without a list)."""
    implementations = {variant.name: variant.implementation for variant in variants}
    drawn = {variant for name in named for variant in stands_for(name, implementations)} or set(implementations)
    if not any(key in variant.params for variant in variants if variant.name in drawn):
        raise locator.fail(path, f"no variant the figure draws has a parameter {key!r}")


def _targets(targets: Any, graphs: list[GraphEntry], variants: list[Variant], locator: _Locator) -> dict | None:
    """Speed goals (the module docstring's `targets`): `mteps` maps graph label -> variant -> the paper's MTEPS,
    which the report scales by device bandwidth / paper bandwidth (`device_bandwidth_gbs` maps a GPU name
    fragment to its GB/s); `efficiency`, `faster_than`, `time_ms`, `within` and `work` are claims the report judges
    (results/claims.py). The kinds added later (time_ms, within, work, a faster_than's `by`) are in the checked
    targets only where the config gives them, so that the configs without them keep their hash."""
    if targets is None:
        return None
    if not isinstance(targets, dict):
        raise locator.fail("targets", "expected a mapping with source, paper_bandwidth_gbs, device_bandwidth_gbs, "
                                      "mteps, efficiency, faster_than, time_ms, within, work")
    _check_keys(targets, TARGET_KEYS, "targets", locator)
    source = _typed(targets, "source", str, locator, "", "targets")
    paper_bandwidth = targets.get("paper_bandwidth_gbs")
    if "mteps" in targets or paper_bandwidth is not None:
        if isinstance(paper_bandwidth, bool) or not isinstance(paper_bandwidth, (int, float)) or paper_bandwidth <= 0:
            raise locator.fail("targets.paper_bandwidth_gbs", f"expected the paper's device bandwidth in GB/s, got {paper_bandwidth!r}")
        paper_bandwidth = float(paper_bandwidth)
    devices = targets.get("device_bandwidth_gbs", {})
    if not isinstance(devices, dict) or not all(
            isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 for value in devices.values()):
        raise locator.fail("targets.device_bandwidth_gbs", "expected a mapping of GPU name fragment to GB/s, e.g. {H100: 3350}")
    graph_label, variant_name = _name_checkers(graphs, variants, locator)

    def positive(value: Any, key_path: str, what: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise locator.fail(key_path, f"expected {what}, got {value!r}")
        return float(value)

    def nested(key: str, outer: Any, inner: Any, outer_kind: str, inner_shape: str,
               what: str) -> dict[str, dict[str, float]]:
        """targets.KEY: a mapping outer name -> inner name -> a positive number, each name checked by its checker."""
        goals = targets.get(key, {})
        if not isinstance(goals, dict):
            raise locator.fail(f"targets.{key}", f"expected a mapping of {outer_kind} to {inner_shape}")
        checked: dict[str, dict[str, float]] = {}
        for outer_name, values in goals.items():
            path = f"targets.{key}.{outer_name}"
            outer(outer_name, path)
            if not isinstance(values, dict):
                raise locator.fail(path, f"expected a mapping {inner_shape}")
            checked[outer_name] = {}
            for name, value in values.items():
                inner(name, f"{path}.{name}")
                checked[outer_name][name] = positive(value, f"{path}.{name}", what)
        return checked

    mteps = nested("mteps", graph_label, variant_name, "graph label", "{implementation: MTEPS}", "a positive MTEPS")
    efficiency = nested("efficiency", variant_name, graph_label, "variant", "{graph label: fraction of the floor}",
                        "the least fraction of the roofline floor, e.g. 0.5")
    time_ms = nested("time_ms", graph_label, variant_name, "graph label", "{variant: most milliseconds}",
                     "the most milliseconds of the median time, e.g. 1.9")

    def other_name(name: Any, key_path: str) -> str:
        """A name on a paired claim's other side: a variant's name, or fastest-other (results/claims.py)."""
        if name != FASTEST_OTHER:
            return variant_name(name, key_path)
        if stands_for(FASTEST_OTHER, _variant_implementations(variants)):
            raise locator.fail(key_path, f"{FASTEST_OTHER!r} means the fastest other variant on the graph, but a "
                                         "variant of this config has that name; give it another label")
        return name

    def claim_list(key: str, shape: str) -> list[tuple[str, dict[str, Any]]]:
        """(key path, mapping) of each entry of the list targets.KEY, checked against the keys `shape` names."""
        entries = targets.get(key, [])
        if not isinstance(entries, list):
            raise locator.fail(f"targets.{key}", f"expected a list of {shape}")
        found = []
        for index, entry in enumerate(entries):
            path = f"targets.{key}[{index}]"
            if not isinstance(entry, dict):
                raise locator.fail(path, f"expected a mapping {shape}")
            found.append((path, entry))
        return found

    def graphs_of(entry: dict[str, Any], path: str) -> list[str]:
        on = entry.get("graphs", [])
        if not isinstance(on, list):
            raise locator.fail(f"{path}.graphs", "expected a list of graph labels (leave it out for every graph)")
        return [graph_label(label, f"{path}.graphs") for label in on]

    def factor(entry: dict[str, Any], key: str, path: str, what: str) -> float:
        value = entry.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 1:
            raise locator.fail(f"{path}.{key}", f"expected {what}, got {value!r}")
        return float(value)

    faster_than = []
    for path, claim in claim_list("faster_than", "{variant, than: [...], graphs: [...], by}"):
        _check_keys(claim, FASTER_THAN_KEYS, path, locator)
        variant = variant_name(claim.get("variant"), f"{path}.variant")
        than = claim.get("than")
        if not isinstance(than, list) or not than:
            raise locator.fail(f"{path}.than", "expected a list of the variants it beats")
        others = [other_name(other, f"{path}.than") for other in than]
        if variant in others:
            raise locator.fail(f"{path}.than", f"{variant!r} cannot be faster than itself")
        checked = {"variant": variant, "than": others, "graphs": graphs_of(claim, path)}
        if "by" in claim:  # only when given: configs without it keep their hash
            checked["by"] = factor(claim, "by", path, "how many times faster, a number of at least 1 (for 'no "
                                   "slower than F x' use targets.within)")
        faster_than.append(checked)
    found = {"source": source, "paper_bandwidth_gbs": paper_bandwidth,
             "device_bandwidth_gbs": {key: float(value) for key, value in devices.items()},
             "mteps": mteps, "efficiency": efficiency, "faster_than": faster_than}
    # the kinds added after records existed: only when given, so that configs without them keep their hash
    if "time_ms" in targets:
        found["time_ms"] = time_ms
    if "within" in targets:
        found["within"] = []
        for path, claim in claim_list("within", "{variant, of: [...], factor, graphs: [...], or_not_meant_for}"):
            _check_keys(claim, WITHIN_KEYS, path, locator)
            variant = variant_name(claim.get("variant"), f"{path}.variant")
            of = claim.get("of")
            if not isinstance(of, list) or not of:
                raise locator.fail(f"{path}.of", "expected a list of the variants (or fastest-other) it is within "
                                                 "a factor of")
            others = [other_name(other, f"{path}.of") for other in of]
            if variant in others:
                raise locator.fail(f"{path}.of", f"{variant!r} cannot be compared with itself")
            if "factor" not in claim:
                raise locator.fail(path, "missing required key 'factor' (e.g. 1.25: at most 1.25x the other's time)")
            checked = {"variant": variant, "of": others,
                       "factor": factor(claim, "factor", path, "the most times slower it may be, a number of at "
                                        "least 1 (e.g. 1.25)"),
                       "graphs": graphs_of(claim, path)}
            excused = claim.get("or_not_meant_for", False)
            if not isinstance(excused, bool):
                raise locator.fail(f"{path}.or_not_meant_for", f"expected true or false, got {excused!r}")
            if excused:
                checked["or_not_meant_for"] = True
            found["within"].append(checked)
    if "work" in targets:
        found["work"] = []
        for path, claim in claim_list("work", "{variant, counter, per, max, graphs: [...]}"):
            _check_keys(claim, WORK_KEYS, path, locator)
            for required in ("counter", "max"):
                if required not in claim:
                    raise locator.fail(path, f"missing required key {required!r}")
            variant = variant_name(claim.get("variant"), f"{path}.variant")
            counter = claim["counter"]
            if not isinstance(counter, str) or not counter.strip():
                raise locator.fail(f"{path}.counter", f"expected the name of a counter the rows report, got "
                                                      f"{counter!r}")
            per = claim.get("per", WORK_PER[0])
            if per not in WORK_PER:
                raise locator.fail(f"{path}.per", f"expected one of {', '.join(WORK_PER)}, got {per!r}")
            found["work"].append({"variant": variant, "counter": counter.strip(), "per": per,
                                  "max": positive(claim["max"], f"{path}.max", f"the most of the counter per one "
                                                  f"of {per}, a positive number"),
                                  "graphs": graphs_of(claim, path)})
    return found


def _check_keys(mapping: dict[str, Any], allowed: set[str], key_path: str, locator: _Locator) -> None:
    for key in mapping:
        if key not in allowed:
            child = f"{key_path}.{key}" if key_path else str(key)
            raise locator.fail(child, f"unknown key (allowed: {', '.join(sorted(allowed))})")


def _typed(mapping, key, expected, locator, default, parent: str = ""):
    key_path = f"{parent}.{key}" if parent else key
    value = mapping.get(key, default)
    if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
        raise locator.fail(key_path, f"expected {expected.__name__}, got {type(value).__name__} {value!r}")
    return value


def _positive_int(mapping, key, parent, locator, default) -> int:
    value = _typed(mapping, key, int, locator, default, parent)
    if value < 1:
        raise locator.fail(f"{parent}.{key}" if parent else key, f"expected a positive integer, got {value}")
    return value


def _weights(spec: Any, key_path: str, locator: _Locator) -> Any:
    from ..graph.weights import parse_weight_spec  # the weights module checks its own spec language
    from ..errors import SpecError

    try:
        parse_weight_spec(spec)
    except SpecError as error:
        raise locator.fail(key_path, str(error)) from None
    return spec


def _entries(entries: Any, list_key: str, name_key: str, allowed: set[str], locator: _Locator, what: str,
             one: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(key path, mapping) for each entry of the list at `list_key` (graphs, implementations): a plain string is
    {name_key: it}; a list that is empty or missing, an entry that is neither, or an unknown key is an error naming
    where (`what` the list holds, `one` what an entry may be)."""
    if not isinstance(entries, list) or not entries:
        raise locator.fail(list_key, f"expected a non-empty list of {what}")
    for index, entry in enumerate(entries):
        key_path = f"{list_key}[{index}]"
        if isinstance(entry, str):
            entry = {name_key: entry}
        if not isinstance(entry, dict):
            raise locator.fail(key_path, f"expected {one}, got {entry!r}")
        _check_keys(entry, allowed, key_path, locator)
        yield key_path, entry


def _graphs(entries: Any, default_weights: Any, locator: _Locator) -> list[GraphEntry]:
    graphs: list[GraphEntry] = []
    for key_path, entry in _entries(entries, "graphs", "graph", GRAPH_KEYS, locator,
                                    "graphs (catalog names, generator specs or paths)",
                                    "a graph name, spec or path, or a mapping with 'graph'"):
        if "graph" not in entry:
            raise locator.fail(key_path, "missing required key 'graph'")
        graph = _typed(entry, "graph", str, locator, None, key_path)
        label = _typed(entry, "label", str, locator, _default_label(graph), key_path)
        weights = _weights(entry.get("weights", default_weights), f"{key_path}.weights", locator)
        both = entry.get("stand_in") == "both"
        stand_in = _stand_in("auto" if both else entry.get("stand_in"), graph, f"{key_path}.stand_in", locator)
        params = entry.get("params", {}) or {}
        if not isinstance(params, dict):
            raise locator.fail(f"{key_path}.params", "expected a mapping of variant name to {parameter: value}")
        convert = None
        if "convert" in entry or _names_a_graph_file(graph):
            convert = _convert(entry.get("convert", {}), graph, f"{key_path}.convert", locator) or None
        if both:
            graphs.append(GraphEntry(graph, label, weights, None, params))
            graphs.append(GraphEntry(graph, label + STAND_IN_SUFFIX, weights, stand_in, params, beside=label))
        else:
            graphs.append(GraphEntry(graph, label, weights, stand_in, params, convert))
    labels = [graph.label for graph in graphs]
    duplicates = sorted({label for label in labels if labels.count(label) > 1})
    if duplicates:
        raise locator.fail("graphs", f"graph {duplicates[0]!r} appears twice; give one a different 'label'")
    return graphs


def _stand_in(value: Any, graph: str, key_path: str, locator: _Locator) -> str | None:
    """The generator spec a graph entry's `stand_in` names (auto: the catalog's), or None when it has none."""
    from ..datasets import catalog
    from ..graph import generators
    from ..errors import SpecError

    if value is None or value is False:
        return None
    if not isinstance(value, str) or not value.strip():
        raise locator.fail(key_path, f"expected auto, both, false or a generator spec, got {value!r}")
    entry = catalog.find(graph)
    if entry is None:
        raise locator.fail(key_path, f"{graph!r} is not a catalog graph; only a catalog graph that is downloaded "
                                     "can have a stand-in")
    if entry.generated:
        raise locator.fail(key_path, f"{entry.name} is generated here ({entry.spec}), so it never needs a stand-in")
    if value.strip() == "auto":
        if entry.stand_in is None:
            raise locator.fail(key_path, f"the catalog gives {entry.name} no stand-in; name a generator spec instead")
        return entry.stand_in
    try:
        generators.parse_spec(value)
    except SpecError as error:
        raise locator.fail(key_path, f"expected auto, both, false or a generator spec: {error}") from None
    return value.strip()


def _default_label(graph: str) -> str:
    """A graph's label when its entry gives none: the graph as named, or a graph file's name without its folder
    and suffixes ("data/p2p-Gnutella04.txt.gz" -> "p2p-Gnutella04")."""
    from ..datasets.formats import graph_name

    return graph_name(graph) if _names_a_graph_file(graph) else graph


def _names_a_graph_file(graph: str) -> bool:
    """Whether a config's `graph` is a graph file's path, which is converted on first use (datasets/resolve.py)."""
    from ..datasets import catalog
    from ..datasets.resolve import looks_like_graph_file
    from ..graph.load import is_generator_spec

    if is_generator_spec(graph) or catalog.find(graph) is not None or graph.endswith(".csr"):
        return False
    return "/" in graph or _is_file(graph) or looks_like_graph_file(graph)


def _is_file(name: str) -> bool:
    """Path.is_file, where a name the OS cannot hold (over 255 bytes, say) is no file rather than an OSError."""
    try:
        return Path(name).is_file()
    except OSError:
        return False


def _convert(value: Any, graph: str, key_path: str, locator: _Locator) -> dict[str, Any]:
    """A graph entry's `convert`: how a graph file is read (datasets/user_graphs.Reading), for a graph file only."""
    from ..datasets import catalog
    from ..datasets.formats import FORMATS, sniff_format

    if not _names_a_graph_file(graph):
        raise locator.fail(key_path, f"{graph!r} is not a graph file's path (a generator spec, a catalog graph, an "
                                     "imported graph or a .csr file is read as it is)")
    allowed = CONVERT_KEYS | catalog.CLEAN_KEYS
    if not isinstance(value, dict):
        raise locator.fail(key_path, f"expected a mapping with some of {', '.join(sorted(allowed))}")
    _check_keys(value, allowed, key_path, locator)
    fmt = value.get("format")
    if fmt is not None and fmt not in FORMATS:
        raise locator.fail(f"{key_path}.format", f"expected one of {', '.join(FORMATS)}, got {fmt!r}")
    if value.get("member") is not None:
        _typed(value, "member", str, locator, None, key_path)
    for key in ({"directed"} | catalog.CLEAN_KEYS) & set(value):
        if not isinstance(value[key], bool):
            raise locator.fail(f"{key_path}.{key}", f"expected true or false, got {value[key]!r}")
    if (fmt or sniff_format(graph)) == "snap" and "directed" not in value:
        raise locator.fail(f"{key_path}.directed", "a SNAP edge list does not say whether it is directed: "
                                                   "expected true or false")
    reading = {key: value[key] for key in CONVERT_KEYS if value.get(key) is not None}
    clean = {key: True for key in sorted(catalog.CLEAN_KEYS) if value.get(key)}
    return {**reading, "clean": clean} if clean else reading


def _variant_label(entry: dict[str, Any], name: str, key_path: str, locator: _Locator) -> str:
    label = _typed(entry, "label", str, locator, name, key_path)
    if not label or any(char.isspace() or char in "/[]" for char in label):
        raise locator.fail(f"{key_path}.label", f"expected a name without spaces, slashes or brackets, got {label!r}")
    if label != name and label in impls.registry():
        raise locator.fail(f"{key_path}.label", f"{label!r} is the name of another implementation; pick another label")
    return label


def _variants(entries: Any, locator: _Locator) -> list[Variant]:
    variants: list[Variant] = []
    for key_path, entry in _entries(entries, "implementations", "name", IMPLEMENTATION_KEYS, locator,
                                    "implementation names", "an implementation name or a mapping with 'name'"):
        name = _typed(entry, "name", str, locator, "", key_path)
        implementation = impls.get(name, f"{locator.where(key_path + '.name')}: {key_path}.name")
        label = _variant_label(entry, name, key_path, locator)
        max_sources = entry.get("sources")
        if max_sources is not None and (not isinstance(max_sources, int) or isinstance(max_sources, bool)
                                        or max_sources < 1):
            raise locator.fail(f"{key_path}.sources", f"expected a positive number of sources, got {max_sources!r}")
        params = entry.get("params", {}) or {}
        if not isinstance(params, dict):
            raise locator.fail(f"{key_path}.params", "expected a mapping of parameter names to values or lists of values")
        swept = {key: value for key, value in params.items() if _sweeps(implementation, key, value)}
        fixed = {key: value for key, value in params.items() if key not in swept}
        for key, values in swept.items():
            if not values:
                raise locator.fail(f"{key_path}.params.{key}", "an empty list sweeps nothing; give at least one value")
        for combination in itertools.product(*swept.values()):
            chosen = {**fixed, **dict(zip(swept, combination))}
            chosen_name = _external_kind(implementation, name, chosen)
            impls.get(chosen_name).validate_parameters(chosen, f"{locator.where(key_path + '.params')}: "
                                                               f"{key_path}.params")
            suffix = ",".join(f"{key}={_format_value(value)}" for key, value in zip(swept, combination))
            variants.append(Variant(f"{label}[{suffix}]" if suffix else label, chosen_name, chosen, max_sources))
    names = [variant.name for variant in variants]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise locator.fail("implementations", f"{duplicates[0]!r} is listed twice; give one a different 'label'")
    return variants


def _sweeps(implementation: type, key: str, value: Any) -> bool:
    """Whether a parameter's list of values sweeps it: always, except for an external program's command and build,
    whose value is a list (impls/external.py), and which only a list of lists sweeps."""
    if not isinstance(value, list):
        return False
    if issubclass(implementation, ExternalProgram) and key in ExternalProgram.LIST_PARAMETERS:
        return bool(value) and all(isinstance(item, list) for item in value)
    return True


def _external_kind(implementation: type, name: str, params: dict[str, Any]) -> str:
    """The implementation an entry runs as: its name, except that an external program's `kind` picks external
    (sssp) or external-bfs (bfs), so that its rows have the problem kind it solves."""
    return implementation.implementation_for(params) if issubclass(implementation, ExternalProgram) else name


def _format_value(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
