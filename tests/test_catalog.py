"""The catalog names every graph the papers' tables use, with a source and a size for each."""

import pytest

from sssp_bench.datasets import catalog
from sssp_bench.graph import generators
from sssp_bench.errors import UserError

HBF_TABLE2 = ["asia.osm", "USA-road-d.CAL", "delaunay_n20", "msdoor", "circuit5M_dc", "rmat.3Mv.20Me", "flickr"]
HBF_TABLE3 = ["hugetrace-00000", "wiki-Talk", "as-Skitter", "random.2Mv.128Me"]
BFS4K_TABLE1 = ["amazon0505", "web-Google", "com-youtube", "as-skitter", "roadNet-CA", "soc-LiveJournal1", "europe.osm",
                "hugebubbles-00020", "nlpkkt160", "audikw1", "cage15", "kkt_power", "coPapersCiteseer",
                "kron_g500-logn20", "random.2Mv.128Me", "rmat.2Mv.128Me", "Gen-ForestFire", "Gen-SmallWorld"]
COURSE = ["soc-Epinions1", "soc-Slashdot0902", "wiki-Vote", "USA-road-d.FLA", "rome99"]
COMPARE = ["road_usa", "europe_osm", "kron_g500-logn21", "soc-LiveJournal1", "hollywood-2009", "indochina-2004"]
USA_ROADS = ["NY", "BAY", "COL", "FLA", "NW", "NE", "CAL", "LKS", "E", "W", "CTR", "USA"]

URL_PATTERNS = {
    "dimacs9": "http://www.diag.uniroma1.it/challenge9/data/",
    "dimacs10": "http://www.cc.gatech.edu/dimacs10/archive/data/",
    "snap": "https://snap.stanford.edu/data/",
}


@pytest.mark.parametrize("name", HBF_TABLE2 + HBF_TABLE3 + BFS4K_TABLE1 + COURSE + COMPARE)
def test_every_graph_of_the_papers_is_in_the_catalog(name):
    assert catalog.lookup(name).n > 0


def test_the_whole_usa_road_d_family_is_there():
    for region in USA_ROADS:
        entry = catalog.lookup(f"USA-road-d.{region}")
        assert entry.url.endswith(f"/USA-road-d/USA-road-d.{region}.gr.gz") and entry.format == "dimacs9"


def test_papers_filter_lists_their_graphs():
    hbf = {entry.name for entry in catalog.entries("hbf")}
    assert {catalog.lookup(name).name for name in HBF_TABLE2 + HBF_TABLE3} <= hbf
    with pytest.raises(UserError, match="unknown paper 'knuth'"):
        catalog.entries("knuth")


def test_aliases_and_case_are_accepted():
    assert catalog.lookup("asia_osm").name == "asia.osm"
    assert catalog.lookup("AS-SKITTER").name == "as-Skitter"


def test_an_unknown_name_suggests_the_closest():
    with pytest.raises(UserError, match=r"'wiki-Vot' is not in the catalog \(did you mean wiki-Vote"):
        catalog.lookup("wiki-Vot")


def test_names_and_aliases_are_unique():
    seen = []
    for entry in catalog.entries():
        seen += [name.lower() for name in (entry.name, *entry.aliases)]
    assert len(seen) == len(set(seen))


def test_urls_follow_their_collections_patterns():
    for entry in catalog.entries():
        if entry.collection == "suitesparse":
            assert entry.url == f"https://sparse.tamu.edu/MM/{entry.group}/{entry.member.split('/')[0]}.tar.gz"
            assert entry.member.endswith(".mtx")
        elif entry.collection in URL_PATTERNS:
            assert entry.url.startswith(URL_PATTERNS[entry.collection]), entry.name


def test_generated_entries_have_valid_specs():
    for entry in catalog.entries():
        if entry.generated:
            kind, params = generators.parse_spec(entry.spec)
            assert params["n"] == entry.n
            if "m" in params:
                assert params["m"] == entry.m


def test_the_pace_road_networks_are_the_dimacs_ones_and_found_by_file_name_on_a_mirror():
    for region in ("BAY", "COL", "NE", "NW"):
        pace, dimacs = catalog.lookup(f"USA-road-pace.{region}"), catalog.lookup(f"USA-road-d.{region}")
        assert pace.format == "pace" and pace.file_name == f"{region}.gr.xz" and not pace.weighted
        assert pace.n == dimacs.n and 0.98 * dimacs.m < pace.arcs <= dimacs.m  # parallel roads merged
        assert "weights spec is needed" in pace.note


def test_published_facts_are_table1_keys_and_only_where_the_note_quotes_them():
    for entry in catalog.entries():
        assert set(entry.published) <= catalog.PUBLISHED_KEYS, entry.name
        if entry.published:
            assert entry.stand_in and "real" in entry.stand_in_note, entry.name
    asia = catalog.lookup("asia.osm").published_table1()
    assert asia["diameter"] == 38576 and asia["n"] == 11950757 and asia["m"] == 25423206


def test_checked_entries_carry_size_and_hash():
    for entry in catalog.entries():
        if entry.checked and not entry.generated:
            assert entry.size and len(entry.sha256) == 64, entry.name
