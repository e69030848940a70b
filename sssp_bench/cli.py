"""The command line: a thin click layer over plain functions. A user mistake is one line and exit status 2."""

from __future__ import annotations

import gc
import shlex
import sys
from pathlib import Path
from typing import Callable

import click

from . import __version__
from .errors import UserError

DATASETS_OPTION = click.option(
    "--datasets", "datasets", type=click.Path(file_okay=False, path_type=Path), default=None,
    envvar="SSSP_BENCH_DATASETS", help="Dataset cache folder (default: the config's, else ./datasets).",
)


class UserFacingError(click.ClickException):
    exit_code = 2


class Cli(click.Group):
    """Turns every UserError raised below into click's one-line error, never a traceback."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except UserError as error:
            raise UserFacingError(str(error)) from None


@click.group(cls=Cli, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sssp-bench")
def cli() -> None:
    """Reproduce the classic GPU SSSP and BFS papers: every implementation x graph x source, timed and verified.

    \b
    sssp-bench generate rmat:n=4096,m=32768      # make a graph (see `sssp-bench list` for kinds)
    sssp-bench run configs/quick.yaml --report   # run a config, verify every solve, write a report
    sssp-bench report results/RUN                # tables and plots from recorded results
    """


@cli.command()
@click.argument("names", nargs=-1, required=True)
@click.option("--mirror", default=None, metavar="BASE",
              help="Fetch the same files from another base URL or local folder (BASE/<url path>, then BASE/<file name>).")
@click.option("--from", "from_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Import a file you already have (one NAME), through the same checks and conversion.")
@click.option("--force", is_flag=True, help="Convert again even if the graph is already fetched.")
@click.option("--progress/--no-progress", default=True, help="Show download progress on a terminal.")
@DATASETS_OPTION
def fetch(names: tuple[str, ...], mirror: str | None, from_file: Path | None, force: bool, progress: bool,
          datasets: Path | None) -> None:
    """Download catalog graphs (DIMACS, SNAP, SuiteSparse), check and convert them to CSR in the dataset cache.

    \b
    sssp-bench fetch USA-road-d.NY wiki-Vote
    sssp-bench fetch USA-road-d.NY --mirror ../shared/datasets
    sssp-bench fetch rome99 --from ~/Downloads/rome99.gr
    """
    from .datasets import catalog
    from .datasets.fetch import fetch as fetch_graph

    if from_file is not None and len(names) != 1:
        raise UserError("--from imports one file: name exactly one graph")
    entries = [catalog.lookup(name) for name in names]  # refuse an unknown name before downloading anything
    folder = datasets or Path("datasets")
    for entry in entries:
        fetched = fetch_graph(entry.name, folder, mirror=mirror, from_file=from_file, force=force, progress=progress,
                              log=lambda message: click.echo(message, err=True))
        click.echo(f"{fetched.name}: {fetched.status}: {fetched.path}")


CLEANING_FLAGS = {  # the cleaning options (catalog.CLEAN_KEYS) as `import` flags; formats/__init__.py says what each does
    "symmetrize": "Add the reverse of every arc, keeping the lightest arc of each pair (an undirected graph).",
    "drop_self_loops": "Remove arcs u -> u.",
    "merge_parallel": "Keep only the lightest of parallel arcs.",
    "binarize": "Drop the values: an unweighted graph (a matrix's pattern).",
    "drop_diagonal": "Remove a matrix's diagonal entries (the same as --drop-self-loops).",
    "largest_component": "Keep the largest weakly connected component, renumbered.",
}


def _cleaning_flags(command):
    for key, help_text in reversed(CLEANING_FLAGS.items()):
        command = click.option(f"--{key.replace('_', '-')}", key, is_flag=True, help=help_text)(command)
    return command


@cli.command(name="import")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--name", default=None, help="The graph's name in the dataset cache and in configs (default: the "
                                             "file's name without its format and compression suffixes).")
@click.option("--format", "fmt", default=None, metavar="FORMAT",
              help="dimacs9, metis, snap, mtx, pace, binary-csr, gapbs-sg or gapbs-wsg (default: from the file's name "
                   "and first bytes).")
@click.option("--member", default=None, help="The file to read inside an archive holding several.")
@click.option("--directed/--undirected", default=None,
              help="Directed or undirected (default: the format's own; a SNAP edge list must be told).")
@_cleaning_flags
@click.option("--force", is_flag=True, help="Replace a graph already imported under NAME.")
@DATASETS_OPTION
def import_command(file: Path, name: str | None, fmt: str | None, member: str | None, directed: bool | None,
                   force: bool, datasets: Path | None, **cleaning: bool) -> None:
    """Convert a graph FILE the catalog does not list into the dataset cache, through the same parsers and checks
    as fetch; a config then names it like a catalog graph, and `info NAME` describes it.

    \b
    sssp-bench import ../shared/datasets/power.graph
    sssp-bench import p2p-Gnutella04.txt.gz --directed --name gnutella04
    sssp-bench import BAY.gr.xz --name bay-roads         # PACE .gr: unweighted; give a config `weights:`
    """
    from .datasets.user_graphs import Reading, import_graph
    from .graph.csr import read_header

    reading = Reading(fmt, member, directed, {key: True for key, on in cleaning.items() if on})
    imported = import_graph(file, datasets or Path("datasets"), name=name, reading=reading, force=force,
                            log=lambda message: click.echo(message, err=True))
    header = read_header(imported.path)
    click.echo(f"{imported.name}: {imported.status}: {imported.path} (n={header['n']:,}, m={header['m']:,} arcs); "
               f"a config names it `{imported.name}`, `sssp-bench info {imported.name}` describes it")


@cli.command()
@click.argument("spec")
@click.argument("params", nargs=-1)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where to write the .csr file (default: the dataset cache's generated/ folder).")
@click.option("--weights", default="keep", show_default=True,
              help="Weight assignment: keep, unit, uniform:min=1,max=100,seed=1 or negative:...")
@DATASETS_OPTION
def generate(spec: str, params: tuple[str, ...], output: Path | None, weights: str, datasets: Path | None) -> None:
    """Generate a graph from SPEC (KIND or KIND:key=value,...) plus optional key=value PARAMS and store it.

    \b
    sssp-bench generate rmat:n=3000000,m=20000000,seed=7
    sssp-bench generate grid rows=1000 cols=1000 --weights uniform:min=1,max=100,seed=2
    """
    from .graph import generators
    from .graph.csr import characteristics, write_csr
    from .graph.load import ensure_generated, generate_checked
    from .graph.weights import apply_weights

    full_spec = spec
    if params:
        full_spec = spec + ("," if ":" in spec else ":") + ",".join(params)
    generators.parse_spec(full_spec)  # refuse a bad spec before any work
    if output is None and weights == "keep":
        path = ensure_generated(full_spec, datasets or Path("datasets"))
    else:
        graph = apply_weights(generate_checked(full_spec), weights)
        path = write_csr(graph, output or Path("datasets") / "generated" / f"{generators.spec_filename(full_spec)}.csr",
                         {"name": graph.name, **graph.meta})
    from .graph.csr import read_csr

    facts = characteristics(read_csr(path))
    click.echo(f"{path}: n={facts['n']:,} m={facts['m']:,} "
               f"{'directed' if facts['directed'] else 'undirected'}, max out-degree {facts['out_degree_max']:,}")


@cli.command(name="export")
@click.argument("graph")
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True,
              help="The file to write (.gz, .bz2 or .xz: compressed).")
@click.option("--format", "fmt", default=None, metavar="FORMAT",
              help="dimacs9, mtx, metis, snap, binary-csr, gapbs-sg or gapbs-wsg (default: from --output's suffix: "
                   ".gr .mtx .graph .txt .csr .sg .wsg).")
@click.option("--weights", default="keep", show_default=True,
              help="Weight assignment applied first, as a config's `weights:`: keep, unit, uniform:min=1,max=100,seed=1 "
                   "or negative:...")
@click.option("--directed/--undirected", default=None,
              help="How to read GRAPH when it is a graph file that does not say (a SNAP edge list).")
@DATASETS_OPTION
def export_command(graph: str, output: Path, fmt: str | None, weights: str, directed: bool | None,
                   datasets: Path | None) -> None:
    """Write GRAPH (a catalog or imported name, a generator spec, a .csr or graph file) in a format other programs
    read, with a config's weight rule applied, so they run on exactly the graph sssp-bench runs.

    \b
    sssp-bench export USA-road-d.NY --format dimacs9 -o NY.gr
    sssp-bench export rmat:n=4096,m=32768 --weights uniform:min=1,max=100,seed=1 -o rmat.wsg
    sssp-bench export wiki-Vote.txt.gz --directed --format binary-csr -o wiki-Vote.csr

    Every format reads back (`import`) to the same arrays; what one cannot hold (float weights in DIMACS, a
    directed graph in METIS, parallel arcs in Matrix Market, isolated vertices in SNAP) is refused, never changed.
    """
    from .datasets.export import FORMATS, SAYS_DIRECTED, canonical_format, format_of_path, load_for_export, write_graph

    chosen = canonical_format(fmt) if fmt is not None else format_of_path(output)
    if chosen is None:
        raise UserError(f"{output}: cannot tell the format from the file's name; give --format ({', '.join(FORMATS)})")
    loaded = load_for_export(graph, datasets or Path("datasets"), weights,
                             None if directed is None else {"directed": directed})
    written = write_graph(loaded.graph, chosen, output)
    exported = loaded.graph
    kind = "directed" if exported.directed else "undirected"
    weighted = f"{exported.weights.dtype} weights" if exported.weighted else "unweighted"
    click.echo(f"{written}: {chosen}, n={exported.n:,}, m={exported.m:,} arcs, {kind}, {weighted}")
    if not exported.directed and chosen not in SAYS_DIRECTED:
        click.echo(f"note: {chosen} has no word for undirected: both arcs of every edge were written, and the file "
                   "reads back as a directed graph of the same arcs", err=True)


@cli.command()
@click.argument("config_path", metavar="CONFIG", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--run-id", default=None, help="Name of the run folder (default: <config name>-<UTC time>).")
@click.option("--resume", "resume_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Continue an interrupted run in this folder, skipping what it finished.")
@click.option("--output", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Results folder (overrides the config's 'output').")
@DATASETS_OPTION
@click.option("--graph", "graph_labels", multiple=True, metavar="LABEL",
              help="Run only this graph of the config (repeatable); `report RUN1 RUN2` merges split runs.")
@click.option("--variant", "variant_names", multiple=True, metavar="NAME",
              help="Run only this variant of the config (repeatable): a variant's name, else an entry's label (all "
                   "its swept variants), else an implementation's name (all its variants).")
@click.option("--shard", "shard_text", default=None, metavar="I/N",
              help="Run only shard I of a deterministic split of the config into N, balanced by expected cost (an "
                   "expensive (graph, variant) cell is cut into source ranges, one per shard); `merge` or `report` "
                   "joins the N shard runs.")
@click.option("--merge-into", "merge_into", type=click.Path(file_okay=False, path_type=Path), default=None,
              metavar="RUN", help="With --shard: the last shard of the split to finish merges the shard runs in its "
                                  "--output folder into RUN, as `merge` would, without a process of its own.")
@click.option("--workers", type=click.IntRange(min=1), default=None, metavar="N",
              help="Run the config on N worker processes here, one per GPU (CPU workers without one), which take "
                   "its tasks as they finish one, and merge their shards into one run folder.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Like --workers, on the running Dask cluster at ADDRESS (e.g. tcp://node:8786, or `sssp-bench "
                   "serve`). Needs the dask extra.")
@click.option("--shards", "shard_count", type=click.IntRange(min=1), default=None, metavar="S",
              help="With --workers or --scheduler: split into S shards as --shard does (default: a queue of smaller "
                   "tasks, each on one graph, that idle workers pull).")
@click.option("--costs-from", "costs_from", type=click.Path(file_okay=False, path_type=Path), default=None,
              metavar="RUN", help="With --shard, --workers or --scheduler: balance the split by the per-cell times "
                                  "an earlier run of these cells measured (a run or record folder), not the "
                                  "config's estimate; the shard's manifest says which was used.")
@click.option("--report/--no-report", "write_report", default=False, help="Write the report when the run ends.")
@click.option("--progress/--no-progress", default=True, help="Show a progress line on a terminal.")
def run(config_path: Path, run_id: str | None, resume_dir: Path | None, output: Path | None,
        datasets: Path | None, graph_labels: tuple[str, ...], variant_names: tuple[str, ...], shard_text: str | None,
        merge_into: Path | None, workers: int | None, scheduler: str | None, shard_count: int | None,
        costs_from: Path | None, write_report: bool, progress: bool) -> None:
    """Run CONFIG: every implementation x graph x source, timed, verified and recorded in results/RUN/.

    Exits with status 1 when any answer was wrong; else 2 when a graph could not be loaded (a bad generator
    parameter, a damaged .csr: the run goes on without it, and says which) or the input is refused (then nothing
    is written). Ctrl-C or SIGTERM (Slurm, CI) stop the run after the solve in flight (a second one at once), mark
    it interrupted, print the command that finishes it, and exit with 130 (Ctrl-C) or 143 (SIGTERM).

    \b
    sssp-bench run configs/quick.yaml --shard 2/4        # one of four shard runs (CI jobs, Slurm tasks)
    sssp-bench run configs/quick.yaml --shard 2/4 --merge-into results/quick   # the last one to finish merges
    sssp-bench run configs/quick.yaml --workers 2        # two worker processes (one per GPU), one merged run
    """
    distributed = workers is not None or scheduler is not None
    # The CUDA driver initialised while the config is read and the runner imports, and the context made once the
    # config names a GPU implementation (gpu/early_context.py); never in a coordinator, which forks its workers
    if not distributed:
        from .gpu import early_context

        early_context.initialise()
    if shard_text is not None and distributed:
        raise UserError("--shard runs one shard in this process; --workers and --scheduler run every shard: "
                        "give one or the other")
    if workers is not None and scheduler is not None:
        raise UserError("--workers starts a cluster here, --scheduler uses a running one: give one or the other")
    if shard_count is not None and not distributed:
        raise UserError("--shards goes with --workers or --scheduler (for one shard here, use --shard I/N)")
    if merge_into is not None and (distributed or (shard_text is None and resume_dir is None)):
        raise UserError("--merge-into goes with --shard I/N (--workers and --scheduler merge by themselves)")
    if costs_from is not None and shard_text is None and not distributed:
        raise UserError("--costs-from balances a split: it goes with --shard, --workers or --scheduler")
    log = lambda message: click.echo(message, err=True)  # noqa: E731
    # --workers: the worker processes forked first, so that each one's GPU driver and context start while this
    # process reads the config and checks its graphs (run/pool.py); closed by run_on_workers, killed if the command
    # ends before it (an error, an interrupt)
    pool = None
    if workers is not None:
        from .run.pool import Pool, visible_gpus

        pool = click.get_current_context().with_resource(Pool(workers, visible_gpus(), log))
    from .run.config import load_config, select_graphs, select_variants

    config = load_config(config_path)
    if graph_labels:
        config = select_graphs(config, list(graph_labels))
    if variant_names:
        config = select_variants(config, list(variant_names))
    if output is not None:
        config.output = output
    if datasets is not None:
        config.datasets = datasets
    if not distributed and config.gpu_variants():
        early_context.start()
    from .run.interrupts import Terminated, stop_between_solves
    from .run.outcome import new_run_id  # light: a --workers coordinator never imports the runner (outcome.py)

    measured = None
    if costs_from is not None:
        from .run.shards import measured_costs

        measured = measured_costs(costs_from)
    run_dir = resume_dir  # where the run is recorded, for the line that says how to finish it
    try:
        with stop_between_solves(at_once=distributed):  # a shard's solves run in the workers, not here
            if distributed:
                from .run.workers import run_on_workers

                run_id = run_id or new_run_id(config, config.output)
                run_dir = run_dir or config.output / run_id
                outcome = run_on_workers(config, workers, scheduler, shard_count, run_id, resume_dir, log,
                                         measured=measured, pool=pool)
            else:
                from .run.runner import resume_run, start_run

                shard = _shard_of(shard_text, resume_dir)
                if shard is not None:
                    from .run.shards import estimate_text, restore_shard, select_shard, shard_run_id

                    if isinstance(shard, dict):  # resuming: the pieces the shard began with, whatever split made them
                        config = restore_shard(config, shard)
                    else:
                        config = select_shard(config, *shard, measured=measured)
                        run_id = run_id or shard_run_id(new_run_id(config, config.output), *shard)
                    split = config.shard.get("split") or {}
                    in_part = len(config.shard.get("source_ranges") or [])
                    log(f"shard {config.shard['index']}/{config.shard['count']}: {len(config.cells)} cell(s)"
                        + (f" ({in_part} of them source ranges)" if in_part else "")
                        + (f", {config.shard['estimated_share']:.0%} of the config's expected cost"
                           if "estimated_share" in config.shard else "")
                        + (f" ({estimate_text(split['estimate'])})" if split.get("estimate") else ""))
                if resume_dir is not None:
                    outcome = resume_run(config, resume_dir, show_progress=progress, log=log)
                else:
                    run_id = run_id or new_run_id(config, config.output)
                    run_dir = config.output / run_id
                    outcome = start_run(config, run_id, show_progress=progress, log=log)
                if merge_into is not None:
                    merged = _merge_when_complete(outcome.run_dir, merge_into, log)
                    outcome = merged or outcome
    except KeyboardInterrupt as interrupt:
        terminated = isinstance(interrupt, Terminated)
        how = "stopped by SIGTERM" if terminated else "interrupted"
        if run_dir is not None and run_dir.is_dir() and any(run_dir.iterdir()):
            again = [*(f"--graph={label}" for label in graph_labels), *(f"--variant={name}" for name in variant_names),
                     *([f"--datasets={datasets}"] if _given("datasets") else []),
                     *([f"--workers={workers}"] if workers else [f"--scheduler={scheduler}"] if scheduler else [])]
            command = shlex.join(["sssp-bench", "run", str(config_path), *again, "--resume", str(run_dir)])
            click.echo(f"\n{how}; continue with: {command}", err=True)
        else:
            click.echo(f"\n{how} before the run folder was made: nothing was recorded", err=True)
        sys.exit(143 if terminated else 130)
    counts = ", ".join(f"{count} {status}" for status, count in sorted(outcome.statuses.items())) or "nothing run"
    click.echo(f"{outcome.run_dir}: {counts}")
    if write_report:
        _report([outcome.run_dir], None)
    for label, why in outcome.not_loaded.items():
        click.echo(f"graph {label} not loaded: {why}", err=True)
    if outcome.wrong_answers:
        click.echo(f"{outcome.wrong_answers} wrong answer(s): see {outcome.run_dir / 'rows.jsonl'}", err=True)
        sys.exit(1)
    if outcome.not_loaded:  # an input mistake, found while running: the run went on, but a CI gate must not pass
        click.echo(f"{len(outcome.not_loaded)} graph(s) not loaded: the run lacks them (see "
                   f"{outcome.run_dir / 'manifest.json'}, not_loaded)", err=True)
        sys.exit(2)


def _merge_when_complete(shard_dir: Path, into: Path, log: Callable[[str], None]):
    """`--merge-into`: the merged run's outcome when this shard was the split's last to finish, else None."""
    from .jsonfile import read_json
    from .run.outcome import RunOutcome
    from .run.shards import merge_when_complete

    if not (shard_dir / "manifest.json").is_file() or not read_json(shard_dir / "manifest.json").get("shard"):
        raise UserError(f"--merge-into: {shard_dir} is not a shard run (made with --shard I/N)")
    merged = merge_when_complete(shard_dir, into, log)
    if merged is None:
        return None
    manifest = read_json(merged / "manifest.json")
    log(f"{merged}: merged {len(manifest['merged_from'])} shard(s)")
    outcome = RunOutcome(merged)
    outcome.statuses.update(manifest.get("statuses") or {})
    outcome.not_loaded.update(manifest.get("not_loaded") or {})
    return outcome


def _given(parameter: str) -> bool:
    """Whether the command line gave this option (not its environment variable, which a resume inherits anyway)."""
    source = click.get_current_context().get_parameter_source(parameter)
    return source is click.core.ParameterSource.COMMANDLINE


def _shard_of(shard_text: str | None, resume_dir: Path | None) -> tuple[int, int] | dict | None:
    """(index, count) from --shard; resuming a shard, the shard record its manifest keeps (the pieces it began with,
    whatever split made them: split again, a --costs-from run or another estimate could cut them otherwise), which
    --shard, when given again, must name."""
    from .run.shards import parse_shard

    requested = parse_shard(shard_text) if shard_text is not None else None
    manifest_path = resume_dir / "manifest.json" if resume_dir is not None else None
    if manifest_path is not None and manifest_path.is_file():
        from .jsonfile import read_json

        recorded = read_json(manifest_path).get("shard")
        if recorded:
            if requested is not None and requested != (int(recorded["index"]), int(recorded["count"])):
                raise UserError(f"{resume_dir}: the run is shard {recorded['index']}/{recorded['count']}, not "
                                f"--shard {shard_text}")
            return recorded
    return requested


@cli.command()
@click.option("--workers", type=click.IntRange(min=1), default=None, metavar="N",
              help="Worker processes, one per GPU (default: one per visible GPU; one on a machine without a GPU).")
@click.option("--address-file", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="Write the scheduler's address here once the workers are up (removed when they stop).")
def serve(workers: int | None, address_file: Path | None) -> None:
    """Start Dask workers that stay up between runs, one per GPU, until Ctrl-C or SIGTERM.

    Each worker keeps its CUDA context and the graphs and prepared implementations of earlier runs, so a
    `run --scheduler ADDRESS` on them pays no process start-up, no context and, for a graph run before, no
    loading or setup. Needs the dask extra.

    \b
    sssp-bench serve --address-file workers.address &
    sssp-bench run configs/quick.yaml --scheduler "$(cat workers.address)"
    """
    from .run.workers import serve as serve_workers

    serve_workers(workers, address_file, log=lambda message: click.echo(message, err=True))


@cli.command()
@click.argument("shard_runs", metavar="SHARD...", nargs=-1, required=True,
                type=click.Path(file_okay=False, path_type=Path))
@click.option("--into", "into", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="The run folder to write (an earlier merge there is replaced).")
@click.option("--report/--no-report", "write_report", default=False, help="Write the merged run's report too.")
def merge(shard_runs: tuple[Path, ...], into: Path, write_report: bool) -> None:
    """Join the shard runs of one split (`run --shard I/N`) into one run folder that `report` and `compare` read.

    A SHARD is a shard's run folder, or a folder holding shard run folders. Refused, in one line, when a shard
    of the split is missing or given twice, or the runs come from different configs.

    \b
    sssp-bench merge results/ci/ --into results/ci-merged --report
    sssp-bench compare results/baseline results/ci-merged --fail-on-slower
    """
    from .run.shards import merge_shards, shard_dirs_in

    folders: list[Path] = []
    for path in shard_runs:
        if not path.is_dir():
            raise UserError(f"{path}: no such folder")
        folders += [path] if (path / "manifest.json").is_file() else shard_dirs_in(path)
    if not folders:
        raise UserError(f"{', '.join(map(str, shard_runs))}: no shard run folder there (a run made with --shard I/N)")
    log = lambda message: click.echo(message, err=True)  # noqa: E731
    merged = merge_shards(folders, into, log=log)
    click.echo(f"{merged}: merged {len(folders)} shard(s)")
    if write_report:
        _report([merged], None)


@cli.command()
@click.argument("config_path", metavar="CONFIG", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--shards", "shard_count", type=click.IntRange(min=1), required=True, metavar="N",
              help="Array tasks: task I runs `run CONFIG --shard I/N`.")
@click.option("--run-id", default=None, help="Name of the merged run folder (default: <config name>-<UTC time>).")
@click.option("--output", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Results folder (overrides the config's 'output').")
@click.option("--partition", default=None, help="#SBATCH --partition.")
@click.option("--account", default=None, help="#SBATCH --account.")
@click.option("--time", "time_limit", default=None, metavar="TIME", help="#SBATCH --time of each task (e.g. 4:00:00).")
@click.option("--gpus-per-task", type=click.IntRange(min=0), default=None,
              help="#SBATCH --gres=gpu:K per task (default: 1 when the config has a GPU implementation, else none).")
@click.option("--cpus-per-task", type=click.IntRange(min=1), default=4, show_default=True)
@click.option("--setup", multiple=True, metavar="LINE",
              help="A shell line to run before sssp-bench in every job (module load ..., source .venv/bin/activate); "
                   "repeatable.")
@click.option("--command", "command", default=None, metavar="CMD",
              help="How the jobs call sssp-bench (default: this Python's `-m sssp_bench.cli`).")
@click.option("--submit", is_flag=True, help="Submit too: through submitit when installed, else sbatch.")
def slurm(config_path: Path, shard_count: int, run_id: str | None, output: Path | None, partition: str | None,
          account: str | None, time_limit: str | None, gpus_per_task: int | None, cpus_per_task: int,
          setup: tuple[str, ...], command: str | None, submit: bool) -> None:
    """Write a Slurm job array for CONFIG (task I runs shard I/N) and a merge job that joins the shards and writes
    the report; `--submit` submits both.

    \b
    sssp-bench slurm experiments/bfs4k/bfs4k-table2.yaml --shards 8 --partition gpu --time 6:00:00
    bash results/bfs4k-table2-<time>/slurm/submit.sh
    """
    from .run import slurm as slurm_jobs
    from .run.config import load_config
    from .run.outcome import new_run_id

    config = load_config(config_path)
    if output is not None:
        config.output = output
    run_dir = (config.output / (run_id or new_run_id(config, config.output))).resolve()
    options = slurm_jobs.SlurmOptions(partition, account, time_limit, gpus_per_task, cpus_per_task, list(setup),
                                      command)
    job = slurm_jobs.SlurmJob(config_path.resolve(), config, shard_count, run_dir, options)
    written = slurm_jobs.write_scripts(job)
    for name, path in written.items():
        click.echo(f"wrote {path}")
    if submit:
        slurm_jobs.submit(job, written, lambda message: click.echo(message, err=True))
    else:
        click.echo(f"submit with: bash {written['submit.sh']}")


@cli.command()
@click.argument("implementations", nargs=-1, required=True)
@click.option("--graph", "graphs", multiple=True, required=True, metavar="GRAPH",
              help="A generator spec, a .csr path or a catalog name (a downloaded one runs its stand-in while it "
                   "is not fetched); repeatable.")
@click.option("--param", "params", multiple=True, metavar="[IMPL.]KEY=V1,V2",
              help="Sweep a parameter: one variant per value (and per combination with other --param). KEY alone "
                   "applies to every named implementation that has it; repeatable.")
@click.option("--sources", type=click.IntRange(min=1), default=10, show_default=True,
              help="Shared sources per graph, picked as `run` picks them.")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the source picker.")
@click.option("--min-reached", type=click.IntRange(min=1), default=None,
              help="Least vertices a source must reach (default: min(10^5, 10% of V), as in a config).")
@click.option("--repetitions", type=click.IntRange(min=1), default=1, show_default=True,
              help="Timed passes over the sources.")
@click.option("--warmup", type=click.IntRange(min=0), default=1, show_default=True,
              help="Untimed solves per variant and graph before the timed ones.")
@click.option("--weights", default="keep", show_default=True,
              help="Weight assignment: keep, unit, uniform:min=1,max=100,seed=1 or negative:...")
@click.option("--reference-sources", type=click.IntRange(min=0), default=1, show_default=True,
              help="Sources also compared with the reference solver (every solve is certified).")
@click.option("--baseline", default=None, metavar="VARIANT", help="The variant speedups divide by.")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=600, show_default=True,
              help="Seconds per solve.")
@click.option("-D", "--define", "defines", multiple=True, metavar="NAME=VALUE",
              help="A -D for every kernel compiled in this probe (an experiment); recorded in the manifest.")
@click.option("--counters", is_flag=True, help="Also print each variant's solve counters.")
@click.option("--energy", is_flag=True,
              help="Also measure each GPU variant's energy per solve through NVML, after its timed solves.")
@click.option("--output", type=click.Path(file_okay=False, path_type=Path), default=Path("results"),
              show_default=True, help="Results folder; the probe's run folder goes inside it.")
@click.option("--run-id", default=None, help="Name of the run folder (default: probe-<UTC time>).")
@DATASETS_OPTION
@click.option("--progress/--no-progress", default=True, help="Show a progress line on a terminal.")
def probe(implementations: tuple[str, ...], graphs: tuple[str, ...], params: tuple[str, ...], sources: int,
          seed: int, min_reached: int | None, repetitions: int, warmup: int, weights: str, reference_sources: int,
          baseline: str | None, time_limit: float, defines: tuple[str, ...], counters: bool, energy: bool,
          output: Path, run_id: str | None, datasets: Path | None, progress: bool) -> None:
    """Time a few parameter settings of IMPLEMENTATIONS on some graphs, through the runner, and print a table.

    Every solve is timed, warmed up and verified as `run` does it, and recorded in a run folder that `report`
    and `compare` read. Exits with status 1 when any answer was wrong.

    \b
    sssp-bench probe hbf near-far --graph rmat:n=1M,m=8M --param tdp=64,128 --sources 5
    sssp-bench probe bfs4k --graph Gen-SmallWorld --param k1=8,16,32 --param k4=0,1 --counters
    sssp-bench probe cpu-dijkstra cpu-bf-queue --graph grid:rows=100,cols=100
    """
    from .report.probe import probe_table
    from .run.probe import Probe, run_probe

    command = " ".join(["sssp-bench probe", *implementations, *(f"--graph {graph}" for graph in graphs),
                        *(f"--param {param}" for param in params), *(f"--define {define}" for define in defines)])
    config = Probe(implementations, graphs, params, sources, seed, min_reached, repetitions, warmup, weights,
                   reference_sources, baseline, time_limit, defines, output, datasets or Path("datasets"),
                   command, energy).config()
    log = lambda message: click.echo(message, err=True)  # noqa: E731
    from .run.interrupts import Terminated, stop_between_solves

    try:
        with stop_between_solves():  # as `run`: the solve in flight ends and is recorded
            outcome = run_probe(config, run_id, show_progress=progress, log=log)
    except KeyboardInterrupt as interrupt:
        terminated = isinstance(interrupt, Terminated)
        click.echo("\nstopped by SIGTERM" if terminated else "\ninterrupted", err=True)
        sys.exit(143 if terminated else 130)
    click.echo(probe_table(outcome.run_dir, counters))
    click.echo(f"{outcome.run_dir}: read it with `sssp-bench report` or `sssp-bench compare`")
    if outcome.wrong_answers:
        click.echo(f"{outcome.wrong_answers} wrong answer(s): see {outcome.run_dir / 'rows.jsonl'}", err=True)
        sys.exit(1)


@cli.command()
@click.argument("runs", nargs=-1, required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for report.md, report.csv and the plots (default: the first run's folder).")
def report(runs: tuple[Path, ...], out_dir: Path | None) -> None:
    """Write tables (Markdown, CSV) and a speedup chart for one or more RUN folders, and print the table."""
    _report(list(runs), out_dir)


def _report(runs: list[Path], out_dir: Path | None) -> None:
    from .report import build_report, write_report
    from .report.text import format_claims, format_recommendations, format_table

    built = build_report(runs)
    written = write_report(built, out_dir)
    click.echo(format_table(built.summary))
    if not built.recommendations.empty:
        click.echo(format_recommendations(built.recommendations))
    if not built.claims.empty:
        click.echo(format_claims(built.claims))
    click.echo("wrote " + ", ".join(str(path) for path in written.values()))


@cli.command()
@click.argument("folders", metavar="RUN...", nargs=-1, required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--into", "into", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The record folder to make (e.g. experiments/PAPER/measured/DATE-DEVICE-WHAT).")
@click.option("--replace", is_flag=True, help="Make the record again where FOLDER holds one (or anything else).")
@click.option("--unfinished", is_flag=True,
              help="Record runs that did not end complete (running, interrupted) as they are; the report says so.")
@click.option("--refresh", is_flag=True,
              help="The arguments are record folders: write each one's report again from the rows it keeps.")
def record(folders: tuple[Path, ...], into: Path | None, replace: bool, unfinished: bool, refresh: bool) -> None:
    """Keep runs with their report, so that anyone can derive it again: each RUN's manifest and rows (compressed)
    and power traces, record.json, and the report written from those copies, in one folder.

    \b
    sssp-bench record results/RUN [results/RUN2 ...] --into experiments/hbf/measured/2026-12-01-h100-table2
    sssp-bench record --refresh experiments/hbf/measured/2026-12-01-h100-table2   # report again, current code
    sssp-bench report experiments/hbf/measured/2026-12-01-h100-table2 --out /tmp/check  # a record reads as runs
    """
    import shlex

    from .results.records import make_record, refresh_record

    if refresh:
        if into is not None or replace or unfinished:
            raise UserError("--refresh takes record folders only, not --into, --replace or --unfinished")
        for folder in folders:
            written = refresh_record(folder)
            click.echo(f"{folder}: report written again from its rows: "
                       + ", ".join(path.name for path in written.values()))
        return
    if into is None:
        raise UserError("--into FOLDER: the record folder to make (or --refresh RECORD... to report one again)")
    command = shlex.join(["sssp-bench", "record", *map(str, folders), "--into", str(into),
                          *(["--unfinished"] if unfinished else [])])
    written = make_record(list(folders), into, replace=replace, unfinished=unfinished, command=command,
                          log=lambda message: click.echo(message, err=True))
    click.echo(f"{into}: recorded {len(folders)} run(s) with " + ", ".join(path.name for path in written.values()))


@cli.command()
@click.argument("runs", nargs=-1, required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--between", nargs=2, metavar="BASE NEW", default=None,
              help="Compare variant NEW with variant BASE on every graph where both ran (labels as the report "
                   "writes them). Without it, give two runs: every graph and variant in both, the second run "
                   "against the first.")
@click.option("--graph", "graphs", multiple=True, help="Only this graph (repeatable).")
@click.option("--min-change", type=float, default=0.02, show_default=True,
              help="A change smaller than this fraction is never called faster or slower.")
@click.option("--confidence", type=float, default=0.95, show_default=True, help="Of the bootstrap interval.")
@click.option("--min-pairs", type=int, default=10, show_default=True,
              help="A verdict needs at least this many sources verified on both sides; fewer: 'not enough data'.")
@click.option("--min-pair-fraction", type=float, default=0.5, show_default=True,
              help="... and at least this fraction of the sources both sides ran (verified or not).")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the comparison as CSV here.")
@click.option("--fail-on-slower", is_flag=True,
              help="Exit with status 1 when any verdict is 'slower', or 'different graphs' (nothing to vouch for).")
def compare(runs: tuple[Path, ...], between: tuple[str, str] | None, graphs: tuple[str, ...], min_change: float,
            confidence: float, min_pairs: int, min_pair_fraction: float, csv_path: Path | None,
            fail_on_slower: bool) -> None:
    """Decide whether a timing really changed: paired by source, bootstrap interval of the median ratio.

    \b
    sssp-bench compare results/before results/after           # what a change moved, per graph and variant
    sssp-bench compare results/RUN --between workfront hbf    # hbf against workfront on every graph
    """
    from .report.text import format_comparison
    from .results.compare import DIFFERENT_GRAPHS, CompareOptions, compare_runs, write_comparison_csv

    options = CompareOptions(min_change=min_change, confidence=confidence, min_pairs=min_pairs,
                             min_pair_fraction=min_pair_fraction)
    comparison = compare_runs(list(runs), between=between, graphs=graphs, options=options)
    click.echo(format_comparison(comparison, options))
    if csv_path is not None:
        write_comparison_csv(comparison, csv_path)
        click.echo(f"wrote {csv_path}")
    if fail_on_slower and comparison["verdict"].isin(["slower", DIFFERENT_GRAPHS]).any():
        sys.exit(1)


@cli.command(name="list")
@click.option("--paper", default=None, help="Only the catalog graphs of one paper (hbf, bfs4k, course, ...).")
@DATASETS_OPTION
def list_command(paper: str | None, datasets: Path | None) -> None:
    """List implementations (and whether they run here), generators with their parameters' defaults, the catalog
    with what is fetched, and the graphs imported into the dataset cache."""
    from .datasets import catalog, user_graphs
    from .graph import generators
    from .graph.generators.spec import format_value
    from . import impls
    folder = datasets or Path("datasets")
    entries = catalog.entries(paper)
    if paper is None:
        click.echo("implementations:")
        for name, implementation in impls.registry().items():
            available, why = implementation.available()
            state = "" if available else f"  (unavailable: {why})"
            click.echo(f"  {name:<22} {implementation.device:<4} {implementation.kind:<5} "
                       f"{implementation.description}{state}")
        click.echo("generators:")
        for name, generator in generators.GENERATORS.items():
            click.echo(f"  {name:<22} {generator.description}")
            # every parameter with its default, in the generator's order: what a spec that leaves it out gets
            defaults = ", ".join(f"{key}={format_value(parameter.default)}"
                                 for key, parameter in generator.parameters.items())
            click.echo(f"  {'':<22} defaults: {defaults}")
    title = f"catalog graphs of {paper} ({catalog.PAPERS[paper]})" if paper else "catalog"
    click.echo(f"{title}: fetched = in {folder}/")
    click.echo(f"  {'name':<20} {'collection':<11} {'n':>12} {'m':>13} {'':<5} {'fetched':<8} papers")
    for entry in entries:
        fetched = "yes" if catalog.is_fetched(entry, folder) else ""
        click.echo(f"  {entry.name:<20} {entry.collection:<11} {entry.n:>12,} {entry.m:>13,} {entry.m_unit:<5} "
                   f"{fetched:<8} {','.join(entry.papers)}")
    imported = user_graphs.imported_graphs(folder) if paper is None else []
    if imported:
        click.echo(f"imported (sssp-bench import) into {folder}/:")
        for name, sidecar in imported:
            facts = sidecar.get("characteristics") or {}
            source = Path(str((sidecar.get("provenance") or {}).get("source_file", "?"))).name
            click.echo(f"  {name:<20} {'':<11} {facts.get('n', 0):>12,} {facts.get('m', 0):>13,} arcs  from {source}")


@cli.command()
@click.argument("graph")
@click.option("--plot", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the log-log out-degree distribution plot (PNG or SVG) here.")
@DATASETS_OPTION
def info(graph: str, plot: Path | None, datasets: Path | None) -> None:
    """Describe GRAPH (a fetched catalog name, an imported graph's name, a generator spec or a graph file's path)
    as the papers' Table 1 does.

    Directed, V, arcs, average/std/max/mode out-degree, approximate diameter (double-sweep BFS, hops),
    self-loops, parallel arcs, weight range, and where the graph came from.
    """
    import json

    from .graph.csr import read_csr
    from .graph.describe import describe, plot_degree_distribution
    from .datasets.resolve import resolve_path

    path, origin = resolve_path(graph, datasets or Path("datasets"))
    loaded = read_csr(path)
    facts = {"path": str(path), "origin": origin, **describe(loaded), "provenance": loaded.meta.get("provenance", {})}
    click.echo(json.dumps(facts, indent=2, default=str))
    if plot is not None:
        click.echo(f"wrote {plot_degree_distribution(loaded, plot)}", err=True)


@cli.command(name="roofline")
@click.argument("graph")
@click.option("--sources", "source_count", type=click.IntRange(min=1), default=10, show_default=True,
              help="How many sources to give a floor (picked as the runner picks them).")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the source picker.")
@DATASETS_OPTION
def roofline_command(graph: str, source_count: int, seed: int, datasets: Path | None) -> None:
    """Measure the roofline of GRAPH on this machine's GPU and print each source's floor.

    GRAPH is a fetched catalog name, a generator spec or a .csr path (as `info` takes it). Measured: the copy
    bandwidth, the latency of a dependent global load, and one pass relaxing every arc once with atomicMin;
    each source's hop depth comes from a CPU BFS. floor = max(reached arcs x time per arc, hop depth x latency).
    Needs a CUDA GPU (CuPy).
    """
    import statistics

    from .run import roofline
    from .graph.csr import read_csr
    from .gpu import runtime
    from .datasets.resolve import resolve_path
    from .graph.sources import cached_sources, sources_cache_path

    ok, why = runtime.gpu_status()
    if not ok:
        raise UserError(f"roofline needs a CUDA GPU: {why}")
    path, _ = resolve_path(graph, datasets or Path("datasets"))
    loaded = read_csr(path)
    sources = cached_sources(loaded, sources_cache_path(path, source_count, seed, None), source_count, seed, None)
    device = roofline.measure_device()
    click.echo(f"device: {device['device']}")
    if device.get("copy_bandwidth_gbs") is not None:
        click.echo(f"copy bandwidth: {device['copy_bandwidth_gbs']:.0f} GB/s (read + written; "
                   f"{device['copy_bytes'] / 2**30:.2f} GiB copied, median of {device['copy_repeats']})")
    else:
        click.echo(f"copy bandwidth: not measured ({device.get('copy_skipped')})")
    if device.get("chain_latency_ns") is not None:
        click.echo(f"chain latency: {device['chain_latency_ns']:.0f} ns per dependent global load "
                   f"({device['chain_bytes'] / 2**30:.2f} GiB random cycle, {device['chain_steps']} loads, "
                   f"median of {device['chain_repeats']})")
    else:
        click.echo(f"chain latency: not measured ({device.get('chain_skipped')})")
    record = roofline.graph_roofline(loaded, sources, device)
    click.echo(f"graph: {graph} (n={loaded.n:,}, m={loaded.m:,})")
    if record["time_per_arc_ns"] is not None:
        click.echo(f"relax pass: {record['relax_pass_ms']:.3f} ms for {record['arcs']:,} arcs = "
                   f"{record['time_per_arc_ns']:.4f} ns per arc (median of {record['relax_repeats']})")
    if not sources:
        click.echo("no vertex qualifies as a source")
        return
    header = f"{'source':>10}  {'hop depth':>9}  {'reached arcs':>13}  {'arcs ms':>9}  {'latency ms':>10}  " \
             f"{'floor ms':>9}  bound"
    click.echo(header)
    click.echo("-" * len(header))

    def ms(seconds: float | None) -> str:
        return "-" if seconds is None else f"{seconds * 1e3:.4f}"

    for item in record["per_source"]:
        click.echo(f"{item['source']:>10}  {item['hop_depth']:>9}  {item['reached_arcs']:>13,}  "
                   f"{ms(item['arcs_bound_s']):>9}  {ms(item['latency_bound_s']):>10}  {ms(item['floor_s']):>9}  "
                   f"{item['bound'] or '-'}")
    depths = [item["hop_depth"] for item in record["per_source"]]
    click.echo(f"median floor: {ms(record['median_floor_s'])} ms over {len(sources)} sources "
               f"(median hop depth {statistics.median(depths):g})")


def main() -> None:
    try:
        cli(prog_name="sssp-bench")
    finally:
        # The interpreter's last collection walks every object the command made, numba's and SciPy's included: 0.2
        # to 0.4 s of every command's exit (measured on CPU), paid by each shard of a split before the last merges.
        # Frozen, they go with the process. Nothing is lost: every result was written and closed before this.
        gc.freeze()


if __name__ == "__main__":
    main()
