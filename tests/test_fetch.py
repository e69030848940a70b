"""fetch end to end: the real files of ../shared/datasets, served on 127.0.0.1, downloaded, checked, converted."""

import functools
import json
import shutil
import textwrap

import pytest
from click.testing import CliRunner
from local_server import serve, shared_datasets  # noqa: F401  (shared_datasets is a fixture)

from sssp_bench.datasets import catalog, download
from sssp_bench.cli import cli
from sssp_bench.run.config import parse_config
from sssp_bench.graph.csr import read_csr
from sssp_bench.errors import UserError
from sssp_bench.datasets.fetch import RECORDED_HASHES, fetch
from sssp_bench.run.runner import start_run

SHARED = ["USA-road-d.NY", "USA-road-t.NY", "rome99", "delaunay_n15", "4elt", "bcsstk13", "wiki-Vote", "soc-Epinions1",
          "USA-road-pace.BAY", "USA-road-pace.COL", "USA-road-pace.NE", "USA-road-pace.NW"]
ARCS = {  # arcs in the converted CSR, as the files' headers imply
    "USA-road-d.NY": 733846, "USA-road-t.NY": 733846, "rome99": 8870, "delaunay_n15": 2 * 98274, "4elt": 2 * 45878,
    "wiki-Vote": 103689, "soc-Epinions1": 508837, "bcsstk13": 83883 - 2003,  # full symmetric matrix, diagonal dropped
    # PACE: one line per undirected edge, so two arcs each
    "USA-road-pace.BAY": 2 * 397415, "USA-road-pace.COL": 2 * 521200, "USA-road-pace.NE": 2 * 1934010,
    "USA-road-pace.NW": 2 * 1410387,
}


@pytest.fixture
def server(shared_datasets):  # noqa: F811
    with serve(shared_datasets) as running:
        yield running


@pytest.mark.parametrize("name", SHARED)
def test_each_real_file_is_fetched_checked_and_converted(name, server, tmp_path):
    entry = catalog.lookup(name)
    fetched = fetch(name, tmp_path, mirror=server.url, progress=False)
    assert fetched.status == "fetched" and fetched.warnings == []
    graph = read_csr(fetched.path)
    assert (graph.n, graph.m) == (entry.n, ARCS[name])
    assert graph.directed == entry.directed and graph.weighted == entry.weighted
    provenance = graph.meta["provenance"]
    assert provenance["sha256"] == entry.sha256 and provenance["catalog_entry"] == entry.name
    assert graph.meta["table1"]["approx_diameter"] > 0
    assert (tmp_path / "downloads" / entry.file_name).stat().st_size == entry.size


def test_a_second_fetch_finds_the_graph_already_there(server, tmp_path):
    fetch("rome99", tmp_path, mirror=server.url, progress=False)
    requests = len(server.requests)
    assert fetch("rome99", tmp_path, mirror=server.url, progress=False).status == "already fetched"
    assert len(server.requests) == requests


def test_a_local_folder_works_as_a_mirror(shared_datasets, tmp_path):  # noqa: F811
    assert fetch("wiki-Vote", tmp_path, mirror=str(shared_datasets), progress=False).status == "fetched"


def test_from_file_imports_through_the_same_checks(shared_datasets, tmp_path):  # noqa: F811
    fetched = fetch("rome99", tmp_path, from_file=shared_datasets / "rome99.gr", progress=False)
    assert read_csr(fetched.path).m == 8870


def test_a_wrong_checksum_leaves_nothing_behind(shared_datasets, tmp_path):  # noqa: F811
    with serve(shared_datasets, wrong_bytes={"rome99.gr"}) as server:
        with pytest.raises(UserError, match="cbc914b1d02327c2"):
            fetch("rome99", tmp_path / "data", mirror=server.url, progress=False)
    leftovers = [path.name for path in (tmp_path / "data").rglob("*") if path.is_file()]
    assert not any(name.startswith("rome99") for name in leftovers), leftovers


def test_the_first_download_of_an_unhashed_entry_records_its_hash(shared_datasets, tmp_path):  # noqa: F811
    # stand-in bytes under the name of an entry the catalog has no hash for; its numbers will not match either
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    shutil.copy(shared_datasets / "wiki-Vote.txt.gz", mirror / "soc-Slashdot0902.txt.gz")
    messages = []
    fetched = fetch("soc-Slashdot0902", tmp_path / "data", mirror=str(mirror), progress=False, log=messages.append)
    assert any("recorded sha256" in message for message in messages)
    assert any("warning" in message and "82,168" in message for message in messages)  # unchecked entry: a warning
    assert fetched.warnings and read_csr(fetched.path).meta["provenance"]["warnings"] == fetched.warnings
    recorded = json.loads((tmp_path / "data" / RECORDED_HASHES).read_text())
    assert recorded["soc-Slashdot0902.txt.gz"]["sha256"] == fetched_sha(fetched)

    # a later download of different bytes is checked against the recorded hash
    shutil.copy(shared_datasets / "soc-Epinions1.txt.gz", mirror / "soc-Slashdot0902.txt.gz")
    (tmp_path / "data" / "downloads" / "soc-Slashdot0902.txt.gz").unlink()
    with pytest.raises(UserError, match="expected"):  # size or sha256, both recorded the first time
        fetch("soc-Slashdot0902", tmp_path / "data", mirror=str(mirror), force=True, progress=False)


def fetched_sha(fetched):
    return read_csr(fetched.path).meta["provenance"]["sha256"]


def test_no_network_is_one_line_naming_the_url_and_mirror(tmp_path, monkeypatch):
    # The real download, its retries 10 ms apart instead of fetch's 1, 2, 4 and 8 s (30 s over two sources)
    monkeypatch.setattr(download, "download", functools.partial(download.download, backoff=0.01))
    with pytest.raises(UserError, match=r"--mirror"):
        fetch("USA-road-d.BAY", tmp_path, mirror="http://127.0.0.1:9/", progress=False)


def test_generated_catalog_graphs_are_generated(tmp_path):
    entry = catalog.lookup("rmat.3Mv.20Me")
    assert entry.spec.startswith("rmat:")
    with pytest.raises(UserError, match="--from and --mirror do not apply"):
        fetch("rmat.3Mv.20Me", tmp_path, mirror="http://127.0.0.1:9/")


def test_cli_fetch_info_list_and_a_run_on_a_fetched_graph(server, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SSSP_BENCH_DATASETS", str(tmp_path / "datasets"))  # where the config below looks
    runner = CliRunner()
    result = runner.invoke(cli, ["fetch", "wiki-Vote", "rome99", "--mirror", server.url, "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "wiki-Vote: fetched" in result.output and "rome99: fetched" in result.output

    info = runner.invoke(cli, ["info", "wiki-Vote", "--plot", "degrees.png"])
    assert info.exit_code == 0, info.output
    facts = json.loads(info.stdout)
    assert facts["n"] == 7115 and facts["origin"] == "catalog" and (tmp_path / "degrees.png").exists()

    listing = runner.invoke(cli, ["list", "--paper", "course"])
    assert listing.exit_code == 0
    assert any(line.split()[0] == "wiki-Vote" and "yes" in line.split() for line in listing.output.splitlines())

    config = parse_config(textwrap.dedent("""
        graphs: [wiki-Vote, {graph: rome99, label: rome}]
        implementations: [cpu-dijkstra, cpu-bfs]
        sources: {count: 5}
        weights: uniform:min=1,max=100,seed=1
    """), "fetched.yaml")
    config.datasets, config.output = tmp_path / "datasets", tmp_path / "results"
    outcome = start_run(config, run_id="fetched", show_progress=False)
    assert outcome.wrong_answers == 0 and sum(outcome.statuses.values()) == 20
    assert "catalog" in (tmp_path / "results" / "fetched" / "manifest.json").read_text()


def test_an_unfetched_catalog_graph_in_a_config_says_how_to_fetch_it(tmp_path):
    config = parse_config("graphs: [USA-road-d.CAL]\nimplementations: [cpu-dijkstra]\n", "x.yaml")
    config.datasets, config.output = tmp_path / "datasets", tmp_path / "results"
    with pytest.raises(UserError, match="run: sssp-bench fetch USA-road-d.CAL"):
        start_run(config, run_id="x", show_progress=False)
