"""`sssp-bench probe`: a quick look at a few parameter settings of some implementations, through the runner.

    sssp-bench probe hbf near-far --graph rmat:n=1M,m=8M --param tdp=64,128 --sources 5 --counters

A probe is a run whose config is made from the command line instead of a file: the implementations named, each
`--param` swept as a config's list of values sweeps it (one variant per combination, named `hbf[tdp=64]`), the
`--graph`s (a generator spec, a .csr path, or a catalog name: a generated entry's spec, else the real graph when
it is fetched and its stand-in when not), a few shared sources. It goes through the same `Runner` as `run`, so a
probe's times are the benchmark's times: CUDA events around each solve, a warm-up first, fresh distances per
solve, every solve certified and the first `reference_sources` compared with the reference, and a normal run
folder (manifest.json, rows.jsonl) under the output folder that `report` and `compare` read. The table printed
is the report's summary table; `--counters` adds each variant's solve counters.

`--energy` measures each GPU variant's energy per solve through NVML after its timed solves, as a config's
`energy: true` does (run/energy.py); the runner's log says the joules per solve, the report shows them.

`--define NAME=VALUE` passes -DNAME=VALUE to every kernel compiled during the probe (an experiment with a
kernel's compile-time constant); the defines are recorded in the manifest's config, so a probe with them never
resumes or passes for one without.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import yaml

from .. import impls
from ..errors import SpecError, UserError
from .config import Config, parse_config
from .outcome import RunOutcome
from .runner import start_run

PROBE_CONFIG = "sssp-bench probe"
"""What a probe's config is called in messages and its manifest's `config_path`."""

TRUE_WORDS, FALSE_WORDS = {"true", "on", "yes", "1"}, {"false", "off", "no", "0"}


@dataclass
class Probe:
    """A probe as the command line gives it; `config()` turns it into a run config."""

    implementations: Sequence[str]
    graphs: Sequence[str]
    params: Sequence[str] = ()          # "KEY=V1,V2" (every named implementation with KEY) or "IMPL.KEY=V1,V2"
    sources: int = 10
    seed: int = 1
    min_reached: int | None = None      # None: the runner's default, min(10^5, 10% of V)
    repetitions: int = 1
    warmup: int = 1
    weights: str = "keep"
    reference_sources: int = 1
    baseline: str | None = None
    time_limit: float = 600
    defines: Sequence[str] = ()         # "NAME=VALUE", a -D for every kernel compile
    output: Path = Path("results")
    datasets: Path = Path("datasets")
    description: str = field(default="")
    energy: bool = False                # config `energy: true`: each GPU variant's energy per solve through NVML

    def config(self) -> Config:
        """The run config of this probe; a mistake in any option is a one-line UserError naming the option."""
        classes = _implementations(self.implementations)
        sweeps = parse_params(self.params, classes)
        _check_weights(self.weights)
        _check_graphs(self.graphs)
        defines = [_check_define(define) for define in self.defines]
        data: dict[str, Any] = {
            "name": "probe",
            "description": self.description or f"{PROBE_CONFIG} {' '.join(self.implementations)}",
            "graphs": [_graph_entry(graph) for graph in self.graphs],
            "implementations": [{"name": name, "params": sweeps[name]} if sweeps[name] else name for name in classes],
            "sources": {"count": self.sources, "seed": self.seed,
                        "min_reached": "auto" if self.min_reached is None else self.min_reached},
            "repetitions": self.repetitions,
            "warmup": self.warmup,
            "weights": self.weights,
            "verification": {"reference": "auto", "reference_sources": self.reference_sources},
            "time_limit": self.time_limit,
            "output": str(self.output),
            "datasets": str(self.datasets),
        }
        if self.baseline is not None:
            data["baseline"] = self.baseline
        if self.energy:
            data["energy"] = True
        config = parse_config(yaml.safe_dump(data, sort_keys=False), PROBE_CONFIG, default_name="probe")
        if defines:
            config.raw["defines"] = defines
        return config


def run_probe(config: Config, run_id: str | None = None, show_progress: bool = True,
              log: Callable[[str], None] | None = None) -> RunOutcome:
    """Run a probe's config through the runner, with its defines (if any) on every kernel compile."""
    with compile_defines(config.raw.get("defines", [])):
        return start_run(config, run_id, show_progress=show_progress, log=log)


@contextlib.contextmanager
def compile_defines(defines: Sequence[str]) -> Iterator[None]:
    """-DNAME=VALUE for every kernel compiled inside the block: the runtime's compile options, extended and then
    restored (compiled modules are cached by their options, so a kernel compiled with the defines is never
    taken for one without)."""
    if not defines:
        yield
        return
    from ..gpu import runtime

    saved = runtime.COMPILE_OPTIONS
    runtime.COMPILE_OPTIONS = (*saved, *(f"-D{define}" for define in defines))
    try:
        yield
    finally:
        runtime.COMPILE_OPTIONS = saved


def parse_params(texts: Sequence[str], classes: dict[str, type[impls.Implementation]]) -> dict[str, dict[str, list]]:
    """`--param` values as each implementation's sweeps: name -> {key: [typed values]}.

    "KEY=V1,V2" applies to every named implementation that has KEY; "IMPL.KEY=V1,V2" to IMPL only. Values are
    read with the parameter's type (true/false, on/off for switches) and checked as a config's would be."""
    sweeps: dict[str, dict[str, list]] = {name: {} for name in classes}
    for text in texts:
        target, equals, values = text.partition("=")
        name, dot, key = target.rpartition(".") if "." in target else ("", "", target)
        if not equals or not key or not values:
            raise UserError(f"--param {text}: expected KEY=VALUE[,VALUE...] or IMPLEMENTATION.KEY=VALUE[,...]")
        if dot and name not in classes:
            raise UserError(f"--param {text}: {name!r} is not one of the implementations probed "
                            f"({', '.join(classes)})")
        takers = [name] if dot else [other for other, cls in classes.items() if key in cls.parameters]
        if not takers or key not in classes[takers[0]].parameters:
            owners = ", ".join(takers or classes)
            raise UserError(f"--param {text}: {owners} has no parameter {key!r}")
        for taker in takers:
            parameter = classes[taker].parameters[key]
            typed = [_typed_value(item.strip(), parameter.type, text) for item in values.split(",")]
            for value in typed:
                classes[taker].validate_parameters({key: value}, f"--param {text}")
            if key in sweeps[taker]:
                raise UserError(f"--param {text}: {taker}'s {key!r} is given twice")
            sweeps[taker][key] = typed
    return sweeps


def _typed_value(text: str, kind: type, where: str) -> Any:
    if kind is bool:
        if text.lower() in TRUE_WORDS | FALSE_WORDS:
            return text.lower() in TRUE_WORDS
        raise UserError(f"--param {where}: {text!r} is not a switch value (true/false, on/off, yes/no, 1/0)")
    if kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            raise UserError(f"--param {where}: {text!r} is not {'an integer' if kind is int else 'a number'}") from None
    return text


def _implementations(names: Sequence[str]) -> dict[str, type[impls.Implementation]]:
    repeated = sorted({name for name in names if list(names).count(name) > 1})
    if repeated:
        raise UserError(f"probe: {repeated[0]!r} is named twice; sweep its parameters with --param instead")
    return {name: impls.get(name, "probe") for name in names}


def _check_weights(spec: str) -> None:
    from ..graph.weights import parse_weight_spec

    try:
        parse_weight_spec(spec)
    except SpecError as error:
        raise UserError(f"--weights: {error}") from None


def _check_graphs(graphs: Sequence[str]) -> None:
    """A generator spec parses before anything runs (a catalog name or a file is checked by the runner)."""
    from ..graph import generators
    from ..graph.load import is_generator_spec

    for graph in graphs:
        if is_generator_spec(graph):
            generators.parse_spec(graph)


def _check_define(define: str) -> str:
    name, _, _ = define.partition("=")
    if not name or not (name[0].isalpha() or name[0] == "_") or not all(c.isalnum() or c == "_" for c in name):
        raise UserError(f"--define {define}: expected NAME=VALUE (or NAME) with a C identifier for NAME")
    return define


def _graph_entry(graph: str) -> str | dict[str, Any]:
    """A config's graph entry: a downloaded catalog graph with a stand-in allows it (stand_in: auto)."""
    from ..datasets import catalog

    entry = catalog.find(graph)
    if entry is not None and not entry.generated and entry.stand_in is not None:
        return {"graph": graph, "stand_in": "auto"}
    return graph
