"""The command line: a thin click layer over plain functions. A user mistake is one line and exit status 2."""

from __future__ import annotations

import sys
from pathlib import Path

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
@DATASETS_OPTION
def fetch(names: tuple[str, ...], datasets: Path | None) -> None:
    """Download catalog graphs (DIMACS, SNAP, SuiteSparse) and convert them to CSR.

    The catalog is not part of this version yet: use generated graphs (`sssp-bench generate`) or name a .csr
    file in a config.
    """
    raise UserError(
        f"fetch {' '.join(names)}: the dataset catalog is not in sssp-bench {__version__} yet; "
        "use a generator spec (sssp-bench list) or a .csr path in the config"
    )


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
    from . import generators
    from .csr import characteristics, write_csr
    from .graphs import ensure_generated
    from .weights import apply_weights

    full_spec = spec
    if params:
        full_spec = spec + ("," if ":" in spec else ":") + ",".join(params)
    generators.parse_spec(full_spec)  # refuse a bad spec before any work
    if output is None and weights == "keep":
        path = ensure_generated(full_spec, datasets or Path("datasets"))
    else:
        graph = apply_weights(generators.generate(full_spec), weights)
        path = write_csr(graph, output or Path("datasets") / "generated" / f"{generators.spec_filename(full_spec)}.csr",
                         {"name": graph.name, **graph.meta})
    from .csr import read_csr

    facts = characteristics(read_csr(path))
    click.echo(f"{path}: n={facts['n']:,} m={facts['m']:,} "
               f"{'directed' if facts['directed'] else 'undirected'}, max out-degree {facts['out_degree_max']:,}")


@cli.command()
@click.argument("config_path", metavar="CONFIG", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--run-id", default=None, help="Name of the run folder (default: <config name>-<UTC time>).")
@click.option("--resume", "resume_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Continue an interrupted run in this folder, skipping what it finished.")
@click.option("--output", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Results folder (overrides the config's 'output').")
@DATASETS_OPTION
@click.option("--report/--no-report", "write_report", default=False, help="Write the report when the run ends.")
@click.option("--progress/--no-progress", default=True, help="Show a progress line on a terminal.")
def run(config_path: Path, run_id: str | None, resume_dir: Path | None, output: Path | None,
        datasets: Path | None, write_report: bool, progress: bool) -> None:
    """Run CONFIG: every implementation x graph x source, timed, verified and recorded in results/RUN/.

    Exits with status 1 when any answer was wrong.
    """
    from .config import load_config
    from .runner import resume_run, start_run

    config = load_config(config_path)
    if output is not None:
        config.output = output
    if datasets is not None:
        config.datasets = datasets
    log = lambda message: click.echo(message, err=True)  # noqa: E731
    try:
        if resume_dir is not None:
            outcome = resume_run(config, resume_dir, show_progress=progress, log=log)
        else:
            outcome = start_run(config, run_id, show_progress=progress, log=log)
    except KeyboardInterrupt:
        click.echo(f"\ninterrupted; continue with: sssp-bench run {config_path} --resume <run folder>", err=True)
        sys.exit(130)
    counts = ", ".join(f"{count} {status}" for status, count in sorted(outcome.statuses.items())) or "nothing run"
    click.echo(f"{outcome.run_dir}: {counts}")
    if write_report:
        _report([outcome.run_dir], None)
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
    from . import report as reporting

    written = reporting.write_report(runs, out_dir)
    click.echo(reporting.format_table(reporting.summarize(runs)))
    click.echo("wrote " + ", ".join(str(path) for path in written.values()))


@cli.command(name="list")
@DATASETS_OPTION
def list_command(datasets: Path | None) -> None:
    """List implementations (and whether they can run here), graph generators and graphs in the cache."""
    from . import generators, impls

    click.echo("implementations:")
    for name, implementation in impls.registry().items():
        available, why = implementation.available()
        state = "" if available else f"  (unavailable: {why})"
        click.echo(f"  {name:<22} {implementation.device:<4} {implementation.kind:<5} {implementation.description}{state}")
    click.echo("generators:")
    for name, generator in generators.GENERATORS.items():
        click.echo(f"  {name:<22} {generator.description}")
    folder = datasets or Path("datasets")
    stored = sorted(folder.glob("*.csr")) + sorted(folder.glob("generated/*.csr"))
    click.echo(f"graphs in {folder}/:" + ("" if stored else " none yet"))
    for path in stored:
        click.echo(f"  {path.relative_to(folder)}")


@cli.command()
@click.argument("graph")
@DATASETS_OPTION
def info(graph: str, datasets: Path | None) -> None:
    """Describe GRAPH (a .csr path, a generator spec or a fetched name): size, degrees, weights, provenance."""
    import json

    from .csr import characteristics, read_csr
    from .graphs import resolve_path

    path, origin = resolve_path(graph, datasets or Path("datasets"))
    loaded = read_csr(path)
    click.echo(json.dumps({"path": str(path), "origin": origin, **characteristics(loaded),
                           "provenance": loaded.meta.get("provenance", {})}, indent=2, default=str))


def main() -> None:
    cli(prog_name="sssp-bench")


if __name__ == "__main__":
    main()
