"""The download layer against a local server on 127.0.0.1: real files, cuts, retries, checks, mirrors, locks.

No test touches any address but 127.0.0.1: every URL, canonical or mirror, points at a local server (or at a
port nobody listens on, for the no-network case).
"""

from __future__ import annotations

import hashlib
import io
import re
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest
from local_server import readme_sha256, serve, shared_datasets  # noqa: F401 (shared_datasets is a fixture)

from sssp_bench.datasets.archive import open_data_file
from sssp_bench.datasets.download import DownloadError, candidate_sources, download, import_file
from sssp_bench.errors import UserError
from sssp_bench.progress import ByteProgress, format_size

FAST = dict(timeout=(2, 2), retries=3, backoff=0.01, progress=False)

# What each real file's data starts with, once decompressed (the member for the tarball).
REAL_FILES = {
    "USA-road-d.NY.gr.gz": (None, rb"c 9th DIMACS"),
    "USA-road-t.NY.gr.gz": (None, rb"c 9th DIMACS"),
    "rome99.gr": (None, rb"c -+"),
    "wiki-Vote.txt.gz": (None, rb"# Directed graph"),
    "soc-Epinions1.txt.gz": (None, rb"# Directed graph"),
    "delaunay_n15.graph.bz2": (None, rb"32768 98274\s"),
    "4elt.graph.bz2": (None, rb"15606 45878\s"),
    "bcsstk13.tar.gz": ("*/bcsstk13.mtx", rb"%%MatrixMarket matrix coordinate real symmetric"),
}


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def leftovers(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


@pytest.fixture
def files(tmp_path) -> Path:
    """A served folder with a few synthetic files."""
    folder = tmp_path / "served"
    folder.mkdir()
    (folder / "data.bin").write_bytes(bytes(range(256)) * 4096)  # 1 MiB
    (folder / "small.txt").write_bytes(b"p sp 3 2\na 1 2 5\na 2 3 7\n")
    (folder / "empty.txt").write_bytes(b"")
    return folder


@pytest.fixture
def out(tmp_path) -> Path:
    folder = tmp_path / "out"
    folder.mkdir()
    return folder


def closed_port_url(name: str) -> str:
    """A URL on 127.0.0.1 at a port nobody listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/{name}"


# ---- the real files, through the real path ------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(REAL_FILES))
def test_real_file_downloads_checks_and_opens(shared_datasets, out, name):
    expected = readme_sha256(shared_datasets)[name]
    member, start = REAL_FILES[name]
    with serve(shared_datasets) as server:
        result = download(server.url_for(name), out / name, sha256=expected, **FAST)
    assert result.sha256 == expected == sha256_of(out / name)
    assert result.size == (shared_datasets / name).stat().st_size
    assert not result.recorded_hash and not result.resumed and not result.reused
    assert leftovers(out) == [name]
    with open_data_file(out / name, member) as (stream, label):
        head = stream.read(4096)
    assert re.match(start, head), head[:80]
    assert label.startswith(name)
    if name.startswith(("USA-road", "rome")):
        assert re.search(rb"^p sp \d+ \d+$", head, re.MULTILINE)


def test_tarball_member_is_found_without_naming_it(shared_datasets, out):
    with serve(shared_datasets) as server:
        download(server.url_for("bcsstk13.tar.gz"), out / "bcsstk13.tar.gz", **FAST)
    with open_data_file(out / "bcsstk13.tar.gz") as (stream, label):
        assert stream.readline().startswith(b"%%MatrixMarket")
    assert label == "bcsstk13.tar.gz:bcsstk13/bcsstk13.mtx"


def test_canonical_url_through_a_mirror_url_uses_the_flat_name(shared_datasets, out):
    """A SuiteSparse-style URL: <mirror>/MM/HB/bcsstk13.tar.gz is missing, <mirror>/bcsstk13.tar.gz is there."""
    expected = readme_sha256(shared_datasets)["bcsstk13.tar.gz"]
    with serve(out) as canonical, serve(shared_datasets) as mirror:
        url = canonical.url_for("MM/HB/bcsstk13.tar.gz")
        result = download(url, out / "bcsstk13.tar.gz", sha256=expected, mirror=mirror.url, **FAST)
    assert [path for path, _ in mirror.requests] == ["/MM/HB/bcsstk13.tar.gz", "/bcsstk13.tar.gz"]
    assert canonical.requests == []
    assert result.url == mirror.url_for("bcsstk13.tar.gz")
    assert result.sha256 == expected


# ---- interruptions ------------------------------------------------------------------------------------------------

def test_a_cut_download_resumes_with_a_range_request(shared_datasets, out):
    name = "USA-road-d.NY.gr.gz"
    size = (shared_datasets / name).stat().st_size
    expected = readme_sha256(shared_datasets)[name]
    with serve(shared_datasets, cut_after={name: size // 2}) as server:
        result = download(server.url_for(name), out / name, sha256=expected, **FAST)
    ranges = server.requests_for(name)
    assert len(ranges) == 2 and ranges[0] is None
    resumed_at = int(re.fullmatch(r"bytes=(\d+)-", ranges[1]).group(1))
    assert size // 2 - 64 * 1024 <= resumed_at <= size // 2
    assert result.resumed and result.sha256 == expected == sha256_of(out / name)
    assert leftovers(out) == [name]


def test_repeated_cuts_still_finish(files, out):
    data = (files / "data.bin").read_bytes()
    with serve(files, cut_after={"data.bin": 200_000}, cut_times=4) as server:
        result = download(server.url_for("data.bin"), out / "data.bin", sha256=hashlib.sha256(data).hexdigest(),
                          timeout=(2, 2), retries=1, backoff=0.01, progress=False)
    assert len(server.requests_for("data.bin")) == 5  # each cut moved data, so none used up the one retry
    assert result.resumed and (out / "data.bin").read_bytes() == data


def test_a_partial_file_from_an_earlier_run_is_resumed(files, out):
    data = (files / "data.bin").read_bytes()
    (out / "data.bin.part").write_bytes(data[:300_000])
    with serve(files) as server:
        result = download(server.url_for("data.bin"), out / "data.bin", sha256=hashlib.sha256(data).hexdigest(),
                          **FAST)
    assert server.requests_for("data.bin") == ["bytes=300000-"]
    assert result.resumed and (out / "data.bin").read_bytes() == data


def test_a_complete_partial_file_is_checked_and_placed(files, out):
    data = (files / "data.bin").read_bytes()
    (out / "data.bin.part").write_bytes(data)
    with serve(files) as server:
        result = download(server.url_for("data.bin"), out / "data.bin", sha256=hashlib.sha256(data).hexdigest(),
                          size=len(data), **FAST)
    assert server.requests_for("data.bin") == [f"bytes={len(data)}-"]  # answered 416: nothing more to send
    assert (out / "data.bin").read_bytes() == data and leftovers(out) == ["data.bin"]
    assert result.resumed


def test_a_stale_partial_file_of_another_version_is_replaced(files, out):
    data = (files / "data.bin").read_bytes()
    (out / "data.bin.part").write_bytes(b"an older version of the file" * 1000)
    with serve(files) as server:
        result = download(server.url_for("data.bin"), out / "data.bin", sha256=hashlib.sha256(data).hexdigest(),
                          **FAST)
    ranges = server.requests_for("data.bin")
    assert ranges[0] is not None and ranges[-1] is None  # resumed, failed the check, then fetched from zero
    assert (out / "data.bin").read_bytes() == data and leftovers(out) == ["data.bin"]
    assert result.sha256 == hashlib.sha256(data).hexdigest()


def test_a_server_that_ignores_range_restarts_from_zero(files, out):
    data = (files / "data.bin").read_bytes()
    with serve(files, cut_after={"data.bin": 300_000}, ignore_range=True) as server:
        result = download(server.url_for("data.bin"), out / "data.bin", sha256=hashlib.sha256(data).hexdigest(),
                          **FAST)
    ranges = server.requests_for("data.bin")
    assert ranges[0] is None and ranges[1].startswith("bytes=")  # it asked for the rest, and got the whole file
    assert not result.resumed and (out / "data.bin").read_bytes() == data


def test_retries_after_503(files, out):
    with serve(files, fail_first=2, fail_status=503) as server:
        result = download(server.url_for("small.txt"), out / "small.txt", **FAST)
    assert len(server.requests_for("small.txt")) == 3
    assert (out / "small.txt").read_bytes() == (files / "small.txt").read_bytes()
    assert result.recorded_hash and result.sha256 == sha256_of(files / "small.txt")


def test_persistent_500_gives_up_after_the_retries(files, out):
    with serve(files, fail_first=100, fail_status=500) as server:
        with pytest.raises(DownloadError) as caught:
            download(server.url_for("small.txt"), out / "small.txt", timeout=(2, 2), retries=2, backoff=0.01,
                     progress=False)
    assert len(server.requests_for("small.txt")) == 3
    message = str(caught.value)
    assert "HTTP 500" in message and "3 attempts" in message and server.url_for("small.txt") in message
    assert "\n" not in message and leftovers(out) == []


def test_a_slow_server_times_out_and_is_retried(files, out):
    with serve(files, slow=1.0, slow_times=1) as server:
        started = time.monotonic()
        result = download(server.url_for("small.txt"), out / "small.txt", timeout=(2, 0.3), retries=2,
                          backoff=0.01, progress=False)
    assert time.monotonic() - started < 5
    assert len(server.requests_for("small.txt")) == 2
    assert result.size == (files / "small.txt").stat().st_size


def test_404_is_final_and_lists_every_place_tried(files, out, tmp_path):
    empty_mirror = tmp_path / "empty-mirror"
    empty_mirror.mkdir()
    with serve(files) as canonical:
        url = canonical.url_for("MM/HB/missing.tar.gz")
        with pytest.raises(DownloadError) as caught:
            download(url, out / "missing.tar.gz", mirror=str(empty_mirror), **FAST)
    assert canonical.requests_for("MM/HB/missing.tar.gz") == [None]  # one request: a 404 is not retried
    message = str(caught.value)
    assert "\n" not in message and "3 places" in message
    for place in (str(empty_mirror / "MM" / "HB" / "missing.tar.gz"), str(empty_mirror / "missing.tar.gz"), url):
        assert place in message
    assert "HTTP 404" in message and leftovers(out) == []


def test_404_without_a_mirror(files, out):
    with serve(files) as server:
        with pytest.raises(DownloadError, match=r"missing\.gz from http://127\.0\.0\.1:\d+/missing\.gz: not found"):
            download(server.url_for("missing.gz"), out / "missing.gz", **FAST)
    assert len(server.requests) == 1


# ---- checks -------------------------------------------------------------------------------------------------------

def test_a_wrong_checksum_leaves_nothing_and_names_both_hashes(shared_datasets, out):
    name = "rome99.gr"
    actual = readme_sha256(shared_datasets)[name]
    wrong = "0" * 64
    with serve(shared_datasets) as server:
        with pytest.raises(DownloadError) as caught:
            download(server.url_for(name), out / name, sha256=wrong, **FAST)
    message = str(caught.value)
    assert wrong in message and actual in message and "sha256 mismatch" in message
    assert f"{(shared_datasets / name).stat().st_size:,} bytes" in message
    assert leftovers(out) == []


def test_wrong_bytes_from_the_server_are_caught(files, out):
    good = sha256_of(files / "data.bin")
    with serve(files, wrong_bytes={"data.bin"}) as server:
        with pytest.raises(DownloadError, match="sha256 mismatch") as caught:
            download(server.url_for("data.bin"), out / "data.bin", sha256=good, **FAST)
    assert good in str(caught.value) and leftovers(out) == []


def test_a_size_mismatch_leaves_nothing(files, out):
    with serve(files, send_length=False) as server:
        with pytest.raises(DownloadError, match=r"size mismatch: expected 1,000 bytes") as caught:
            download(server.url_for("data.bin"), out / "data.bin", size=1000, **FAST)
    assert "nothing was kept" in str(caught.value) and leftovers(out) == []
    with serve(files) as server:  # here the Content-Length already tells
        with pytest.raises(DownloadError, match=r"expected 1,000 bytes, the source has 1,048,576"):
            download(server.url_for("data.bin"), out / "data.bin", size=1000, **FAST)
    assert leftovers(out) == []


def test_the_size_ceiling_refuses_by_content_length(files, out):
    with serve(files) as server:
        with pytest.raises(DownloadError, match=r"over the 100,000-byte ceiling"):
            download(server.url_for("data.bin"), out / "data.bin", max_bytes=100_000, **FAST)
    assert leftovers(out) == []


def test_the_size_ceiling_stops_a_stream_without_length(files, out):
    with serve(files, send_length=False) as server:
        with pytest.raises(DownloadError, match=r"more than the 100,000-byte ceiling"):
            download(server.url_for("data.bin"), out / "data.bin", max_bytes=100_000, **FAST)
    assert leftovers(out) == []


def test_an_expected_size_over_the_ceiling_is_refused_before_any_request(files, out):
    with serve(files) as server:
        with pytest.raises(DownloadError, match="ceiling"):
            download(server.url_for("data.bin"), out / "data.bin", size=2**20, max_bytes=1000, **FAST)
    assert server.requests == []


def test_an_empty_file_is_refused(files, out):
    with serve(files) as server:
        with pytest.raises(DownloadError, match=r"empty file \(0 bytes\)"):
            download(server.url_for("empty.txt"), out / "empty.txt", **FAST)
    assert leftovers(out) == []


def test_an_existing_good_file_is_not_downloaded_again(files, out):
    digest = sha256_of(files / "small.txt")
    shutil.copy(files / "small.txt", out / "small.txt")
    with serve(files) as server:
        result = download(server.url_for("small.txt"), out / "small.txt", sha256=digest, **FAST)
    assert server.requests == [] and result.reused and not result.recorded_hash


def test_an_existing_bad_file_is_replaced(files, out):
    digest = sha256_of(files / "small.txt")
    (out / "small.txt").write_bytes(b"something else\n")
    with serve(files) as server:
        result = download(server.url_for("small.txt"), out / "small.txt", sha256=digest, **FAST)
    assert len(server.requests) == 1 and not result.reused
    assert sha256_of(out / "small.txt") == digest


def test_the_hash_is_recorded_when_none_is_known(files, out):
    with serve(files) as server:
        result = download(server.url_for("small.txt"), out / "small.txt", **FAST)
    assert result.recorded_hash and result.sha256 == sha256_of(files / "small.txt")


def test_a_malformed_expected_hash_is_a_user_error(out):
    with pytest.raises(UserError, match="not a sha256"):
        download("http://127.0.0.1:9/x", out / "x", sha256="abc", **FAST)


# ---- mirrors ------------------------------------------------------------------------------------------------------

def test_candidate_sources_follow_both_path_rules():
    url = "https://sparse.tamu.edu/MM/HB/bcsstk13.tar.gz"
    assert candidate_sources(url, None) == [url]
    assert candidate_sources(url, "http://mirror.example/base") == [
        "http://mirror.example/base/MM/HB/bcsstk13.tar.gz", "http://mirror.example/base/bcsstk13.tar.gz", url]
    assert candidate_sources(url, "/data/mirror/") == [
        "/data/mirror/MM/HB/bcsstk13.tar.gz", "/data/mirror/bcsstk13.tar.gz", url]
    assert candidate_sources(url, "file:///data/mirror") == [
        "/data/mirror/MM/HB/bcsstk13.tar.gz", "/data/mirror/bcsstk13.tar.gz", url]
    flat = "https://snap.stanford.edu/wiki-Vote.txt.gz"  # both rules give the same place: tried once
    assert candidate_sources(flat, "/m") == ["/m/wiki-Vote.txt.gz", flat]
    # a URL path that climbs out of the mirror is never looked up there
    assert candidate_sources("http://h/a/../../etc/passwd", "/m") == ["/m/passwd", "http://h/a/../../etc/passwd"]


def test_a_flat_local_folder_works_as_a_mirror(shared_datasets, out):
    expected = readme_sha256(shared_datasets)["bcsstk13.tar.gz"]
    with serve(out) as canonical:
        result = download(canonical.url_for("MM/HB/bcsstk13.tar.gz"), out / "bcsstk13.tar.gz", sha256=expected,
                          mirror=str(shared_datasets), **FAST)
    assert canonical.requests == []
    assert result.url == str(shared_datasets / "bcsstk13.tar.gz") and sha256_of(out / "bcsstk13.tar.gz") == expected


def test_a_local_mirror_with_the_collection_layout(files, out, tmp_path):
    mirror = tmp_path / "mirror"
    (mirror / "MM" / "HB").mkdir(parents=True)
    shutil.copy(files / "small.txt", mirror / "MM" / "HB" / "small.txt")
    with serve(out) as canonical:
        result = download(canonical.url_for("MM/HB/small.txt"), out / "small.txt", mirror=mirror.as_uri(), **FAST)
    assert canonical.requests == [] and result.url == str(mirror / "MM" / "HB" / "small.txt")
    assert (out / "small.txt").read_bytes() == (files / "small.txt").read_bytes()


def test_a_mirror_url_with_the_collection_layout(files, out, tmp_path):
    layout = tmp_path / "layout"
    (layout / "MM" / "HB").mkdir(parents=True)
    shutil.copy(files / "small.txt", layout / "MM" / "HB" / "small.txt")
    with serve(out) as canonical, serve(layout) as mirror:
        result = download(canonical.url_for("MM/HB/small.txt"), out / "small.txt", mirror=mirror.url.rstrip("/"),
                          **FAST)
    assert [path for path, _ in mirror.requests] == ["/MM/HB/small.txt"] and canonical.requests == []
    assert result.url == mirror.url_for("MM/HB/small.txt")


def test_the_canonical_url_is_the_last_resort(files, out, tmp_path):
    empty_mirror = tmp_path / "empty-mirror"
    empty_mirror.mkdir()
    with serve(files) as canonical:
        result = download(canonical.url_for("small.txt"), out / "small.txt", mirror=str(empty_mirror), **FAST)
    assert result.url == canonical.url_for("small.txt")


def test_a_local_mirror_file_goes_through_the_same_checks(files, out):
    with serve(out) as canonical:
        with pytest.raises(DownloadError, match="sha256 mismatch"):
            download(canonical.url_for("small.txt"), out / "small.txt", sha256="1" * 64, mirror=str(files), **FAST)
    assert leftovers(out) == []


def test_a_missing_mirror_folder_is_named(out, tmp_path):
    with pytest.raises(DownloadError, match="no such folder"):
        download("http://127.0.0.1:9/x.gz", out / "x.gz", mirror=str(tmp_path / "nowhere"), **FAST)


# ---- no network ---------------------------------------------------------------------------------------------------

def test_connection_refused_is_one_line_naming_the_url_and_the_way_out(out):
    url = closed_port_url("USA-road-d.NY.gr.gz")
    with pytest.raises(UserError) as caught:
        download(url, out / "USA-road-d.NY.gr.gz", timeout=(1, 1), retries=1, backoff=0.01, progress=False)
    message = str(caught.value)
    assert "\n" not in message
    assert url in message and "connection refused" in message
    assert "--mirror BASE" in message and "--from FILE" in message
    assert caught.value.__cause__ is None and leftovers(out) == []


def test_no_name_resolution_is_not_retried_and_points_to_the_way_out(out, monkeypatch):
    def no_dns(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_dns)  # no lookup leaves this machine
    calls = []
    monkeypatch.setattr(time, "sleep", calls.append)
    url = "http://snap.stanford.edu.invalid/data/wiki-Vote.txt.gz"
    with pytest.raises(DownloadError) as caught:
        download(url, out / "wiki-Vote.txt.gz", **FAST)
    message = str(caught.value)
    assert url in message and "cannot resolve the host name" in message
    assert "--mirror BASE" in message and "--from FILE" in message and calls == []


# ---- concurrency --------------------------------------------------------------------------------------------------

def test_two_concurrent_downloads_of_one_file_give_one_correct_file(files, out):
    data = (files / "data.bin").read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    results, errors = [], []

    def fetch():
        try:
            results.append(download(server.url_for("data.bin"), out / "data.bin", sha256=digest, **FAST))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    with serve(files, chunk_delay=0.01) as server:  # ~0.2 s per download: the two overlap
        threads = [threading.Thread(target=fetch) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=20)
    assert errors == [] and len(results) == 2
    assert len(server.requests_for("data.bin")) == 1  # the second waited, then found the file done
    assert sorted(result.reused for result in results) == [False, True]
    assert (out / "data.bin").read_bytes() == data and leftovers(out) == ["data.bin"]


# ---- import_file (fetch --from FILE) ------------------------------------------------------------------------------

def test_import_file_copies_through_the_checks(files, out):
    digest = sha256_of(files / "data.bin")
    result = import_file(files / "data.bin", out / "data.bin", sha256=digest, progress=False)
    assert result.sha256 == digest and not result.recorded_hash and leftovers(out) == ["data.bin"]
    again = import_file(files / "data.bin", out / "data.bin", sha256=digest, progress=False)
    assert again.reused


def test_import_file_refuses_a_wrong_file(files, out):
    with pytest.raises(DownloadError) as caught:
        import_file(files / "small.txt", out / "small.txt", sha256="2" * 64, progress=False)
    assert "2" * 64 in str(caught.value) and sha256_of(files / "small.txt") in str(caught.value)
    assert leftovers(out) == []
    with pytest.raises(DownloadError, match="no such file"):
        import_file(files / "absent.gz", out / "absent.gz", progress=False)
    with pytest.raises(DownloadError, match="ceiling"):
        import_file(files / "data.bin", out / "data.bin", max_bytes=10, progress=False)
    assert leftovers(out) == []


# ---- the progress line --------------------------------------------------------------------------------------------

class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_sizes_read_like_a_person_would_write_them():
    assert format_size(0) == "0 B"
    assert format_size(1023) == "1023 B"
    assert format_size(1536) == "1.50 KiB"
    assert format_size(3_667_907) == "3.50 MiB"
    assert format_size(64 * 2**30) == "64.0 GiB"


def test_the_byte_progress_line_shows_amount_rate_and_eta():
    terminal = FakeTerminal()
    bar = ByteProgress(4 * 2**20, label="USA-road-d.NY.gr.gz", stream=terminal, min_interval=0)
    bar.started -= 1.0  # as if one second had passed
    bar.advance(2**20)
    line = terminal.getvalue().split("\r")[-1]
    assert "USA-road-d.NY.gr.gz" in line and "1.00 MiB / 4.00 MiB" in line and "25%" in line
    assert re.search(r"1\.00 MiB/s", line) and "ETA 0:03" in line
    unknown = ByteProgress(None, stream=FakeTerminal())
    unknown.advance(10)
    assert "ETA" not in unknown.line()
    silent = io.StringIO()  # not a terminal: nothing drawn
    quiet = ByteProgress(100, stream=silent)
    quiet.advance(50)
    quiet.close()
    assert silent.getvalue() == ""

