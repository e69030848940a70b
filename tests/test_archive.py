"""Opening and unpacking: compression by magic bytes, archive members checked before reading, damage reported
as one line naming the file, and the ceiling on decompressed bytes."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from local_server import shared_datasets  # noqa: F401 (a fixture)

from sssp_bench.datasets.archive import ArchiveError, open_data_file, safe_extract
from sssp_bench.errors import UserError

GRAPH = b"p sp 3 2\na 1 2 5\na 2 3 7\n"


def read_all(path: Path, member: str | None = None, max_bytes: int = 2**30) -> tuple[bytes, str]:
    with open_data_file(path, member, max_bytes=max_bytes) as (stream, label):
        return stream.read(), label


def make_tar(path: Path, entries: list[tuple[str, bytes | None, dict]], mode: str = "w:gz") -> Path:
    """A tar with members (name, data, TarInfo attributes); data None makes a member with no body (links...)."""
    with tarfile.open(path, mode) as tar:
        for name, data, attributes in entries:
            info = tarfile.TarInfo(name)
            for key, value in attributes.items():
                setattr(info, key, value)
            if data is not None:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            else:
                tar.addfile(info)
    return path


def make_zip(path: Path, entries: list[tuple[str | zipfile.ZipInfo, bytes]]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            archive.writestr(name, data)
    return path


# ---- what opens ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("suffix, compress", [
    (".gr.gz", gzip.compress), (".gr.bz2", bz2.compress), (".gr.xz", lzma.compress), (".gr", lambda data: data),
])
def test_single_file_compressions_stream(tmp_path, suffix, compress):
    path = tmp_path / f"tiny{suffix}"
    path.write_bytes(compress(GRAPH))
    data, label = read_all(path)
    assert data == GRAPH and label == path.name


def test_the_stream_reads_by_line(tmp_path):
    path = tmp_path / "lines.txt.gz"
    path.write_bytes(gzip.compress(b"# comment\n0\t1\n1\t2\n" * 1000))
    with open_data_file(path) as (stream, _):
        assert stream.readline() == b"# comment\n"
        assert sum(1 for _ in stream) == 2999


@pytest.mark.parametrize("mode, suffix", [("w", ".tar"), ("w:gz", ".tar.gz"), ("w:gz", ".tgz"),
                                          ("w:bz2", ".tar.bz2"), ("w:xz", ".tar.xz")])
def test_tar_members_by_name_glob_or_alone(tmp_path, mode, suffix):
    path = make_tar(tmp_path / f"matrix{suffix}", [("matrix/", None, {"type": tarfile.DIRTYPE}),
                                                   ("matrix/matrix.mtx", GRAPH, {})], mode)
    assert read_all(path) == (GRAPH, f"{path.name}:matrix/matrix.mtx")
    assert read_all(path, "matrix/matrix.mtx")[0] == GRAPH
    assert read_all(path, "./matrix/matrix.mtx")[0] == GRAPH
    assert read_all(path, "*/matrix.mtx")[0] == GRAPH
    assert read_all(path, "matrix.mtx")[0] == GRAPH  # no '/': matched against the file name


def test_several_files_need_a_member_and_the_error_lists_them(tmp_path):
    path = make_tar(tmp_path / "two.tar.gz", [("m/m.mtx", GRAPH, {}), ("m/m_b.mtx", b"rhs", {}),
                                              ("m/.hidden", b"x", {})])
    with pytest.raises(ArchiveError, match=r"two\.tar\.gz: the archive holds 2 files.*m/m\.mtx, m/m_b\.mtx"):
        read_all(path)
    assert read_all(path, "*/m_b.mtx")[0] == b"rhs"
    with pytest.raises(ArchiveError, match=r"no member matches 'absent\.mtx' \(members: m/m\.mtx, m/m_b\.mtx"):
        read_all(path, "absent.mtx")
    with pytest.raises(ArchiveError, match=r"2 members match '\*\.mtx'"):
        read_all(path, "*.mtx")


def test_zip_members(tmp_path):
    path = make_zip(tmp_path / "graph.zip", [("graph/", b""), ("graph/graph.txt", GRAPH)])
    assert read_all(path) == (GRAPH, "graph.zip:graph/graph.txt")
    assert read_all(path, "*.txt")[0] == GRAPH


def test_compression_is_found_by_magic_not_name(tmp_path):
    named_txt = tmp_path / "edges.txt"
    named_txt.write_bytes(gzip.compress(GRAPH))
    assert read_all(named_txt)[0] == GRAPH
    tar_without_suffix = make_tar(tmp_path / "bundle.gz", [("only.mtx", GRAPH, {})])
    assert read_all(tar_without_suffix) == (GRAPH, "bundle.gz:only.mtx")


def test_a_member_asked_of_a_plain_file_is_an_error(tmp_path):
    path = tmp_path / "plain.gr"
    path.write_bytes(GRAPH)
    with pytest.raises(ArchiveError, match=r"plain\.gr: not an archive"):
        read_all(path, "x.mtx")


# ---- real files ---------------------------------------------------------------------------------------------------

def test_real_files_open(shared_datasets):
    with open_data_file(shared_datasets / "bcsstk13.tar.gz", "*/bcsstk13.mtx") as (stream, label):
        assert stream.readline().startswith(b"%%MatrixMarket matrix coordinate real symmetric")
        assert label == "bcsstk13.tar.gz:bcsstk13/bcsstk13.mtx"
    with open_data_file(shared_datasets / "delaunay_n15.graph.bz2") as (stream, _):
        assert stream.readline().split() == [b"32768", b"98274"]
    with open_data_file(shared_datasets / "rome99.gr") as (stream, _):
        assert stream.readline().startswith(b"c ")


def test_a_truncated_real_gzip_says_so_naming_the_file(shared_datasets, tmp_path):
    data = (shared_datasets / "USA-road-d.NY.gr.gz").read_bytes()
    path = tmp_path / "USA-road-d.NY.gr.gz"
    path.write_bytes(data[:len(data) // 2])
    with open_data_file(path) as (stream, _):
        assert stream.readline().startswith(b"c 9th DIMACS")  # the damage shows only where the data stops
        with pytest.raises(UserError) as caught:
            while stream.read(1 << 20):
                pass
    assert str(caught.value) == "USA-road-d.NY.gr.gz: truncated gzip data (unexpected end of stream)"
    assert caught.value.__cause__ is None and caught.value.__suppress_context__  # no chained traceback


def test_safe_extract_unpacks_the_real_tarball(shared_datasets, tmp_path):
    written = safe_extract(shared_datasets / "bcsstk13.tar.gz", tmp_path / "unpacked")
    assert written == [tmp_path / "unpacked" / "bcsstk13" / "bcsstk13.mtx"]
    assert written[0].read_bytes().startswith(b"%%MatrixMarket")


# ---- damage -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("suffix, compress, noun", [(".gz", gzip.compress, "gzip"), (".bz2", bz2.compress, "bzip2"),
                                                    (".xz", lzma.compress, "xz")])
def test_truncated_compression_is_one_clear_line(tmp_path, suffix, compress, noun):
    packed = compress(GRAPH * 2000)
    path = tmp_path / f"cut.gr{suffix}"
    path.write_bytes(packed[:len(packed) * 2 // 3])
    with pytest.raises(ArchiveError) as caught:
        read_all(path)
    assert str(caught.value) == f"cut.gr{suffix}: truncated {noun} data (unexpected end of stream)"


def test_corrupt_gzip_is_one_clear_line(tmp_path):
    packed = bytearray(gzip.compress(bytes(range(256)) * 400))
    packed[len(packed) // 2] ^= 0xFF
    path = tmp_path / "bad.gr.gz"
    path.write_bytes(bytes(packed))
    with pytest.raises(ArchiveError, match=r"^bad\.gr\.gz: corrupt gzip data \(.+\)$"):
        read_all(path)


def test_a_truncated_tarball_is_refused(shared_datasets, tmp_path):
    data = (shared_datasets / "bcsstk13.tar.gz").read_bytes()
    path = tmp_path / "bcsstk13.tar.gz"
    path.write_bytes(data[:len(data) // 2])
    with pytest.raises(ArchiveError, match=r"^bcsstk13\.tar\.gz: truncated gzip data"):
        read_all(path)


def test_a_truncated_zip_is_refused(tmp_path):
    data = make_zip(tmp_path / "whole.zip", [("a.txt", GRAPH * 100)]).read_bytes()
    path = tmp_path / "cut.zip"
    path.write_bytes(data[:len(data) - 30])
    with pytest.raises(ArchiveError, match=r"^cut\.zip: truncated or corrupt zip archive"):
        read_all(path)


def test_a_gz_that_is_not_gzip_is_named(tmp_path):
    page = tmp_path / "USA-road-d.NY.gr.gz"
    page.write_bytes(b"<!DOCTYPE html><html><body>404 Not Found</body></html>\n")
    with pytest.raises(ArchiveError, match=r"^USA-road-d\.NY\.gr\.gz: not gzip data as its name says; .*HTML"):
        read_all(page)
    text = tmp_path / "graph.bz2"
    text.write_bytes(GRAPH)
    with pytest.raises(ArchiveError, match=r"^graph\.bz2: not bzip2 data as its name says; it holds bytes b'p sp"):
        read_all(text)


def test_a_tar_gz_holding_no_tar_is_named(tmp_path):
    path = tmp_path / "matrix.tar.gz"
    path.write_bytes(gzip.compress(GRAPH))
    with pytest.raises(ArchiveError, match="not one"):
        read_all(path)


def test_an_empty_file_is_refused(tmp_path):
    for name in ("empty.gr", "empty.gr.gz", "empty.tar.gz"):
        (tmp_path / name).write_bytes(b"")
        with pytest.raises(ArchiveError, match=rf"^{name}: empty file \(0 bytes\)$"):
            read_all(tmp_path / name)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(ArchiveError, match="no such file"):
        read_all(tmp_path / "absent.gr")


def test_unsupported_compression_is_named(tmp_path):
    path = tmp_path / "graph.zst"
    path.write_bytes(b"\x28\xb5\x2f\xfd" + b"\x00" * 20)
    with pytest.raises(ArchiveError, match="zstd"):
        read_all(path)


# ---- unsafe archives ----------------------------------------------------------------------------------------------

UNSAFE_TARS = {
    "parent": ([("../evil", b"x", {})], r"member '\.\./evil' has a '\.\.' component"),
    "nested-parent": ([("data/../../evil", b"x", {})], r"member 'data/\.\./\.\./evil' has a '\.\.' component"),
    "absolute": ([("/tmp/evil", b"x", {})], r"member '/tmp/evil' has an absolute path"),
    "symlink": ([("data/link", None, {"type": tarfile.SYMTYPE, "linkname": "/etc/passwd"})],
                r"member 'data/link' is a symbolic link \(to '/etc/passwd'\)"),
    "hardlink": ([("data/a", b"x", {}), ("data/b", None, {"type": tarfile.LNKTYPE, "linkname": "data/a"})],
                 r"member 'data/b' is a hard link"),
    "device": ([("data/dev", None, {"type": tarfile.CHRTYPE, "devmajor": 1, "devminor": 3})],
               r"member 'data/dev' is a device file"),
    "fifo": ([("data/pipe", None, {"type": tarfile.FIFOTYPE})], r"member 'data/pipe' is a FIFO"),
}


@pytest.mark.parametrize("case", sorted(UNSAFE_TARS))
def test_unsafe_tar_members_refuse_the_archive(tmp_path, case):
    entries, message = UNSAFE_TARS[case]
    # the unsafe member comes after a good one: the whole archive is checked before anything is read
    path = make_tar(tmp_path / f"{case}.tar.gz", [("data/good.mtx", GRAPH, {})] + entries)
    with pytest.raises(ArchiveError, match=rf"^{case}\.tar\.gz: refusing the archive: {message}"):
        read_all(path, "data/good.mtx")
    target = tmp_path / "unpacked"
    with pytest.raises(ArchiveError, match=message):
        safe_extract(path, target)
    assert not target.exists() and not (tmp_path / "evil").exists()


def test_unsafe_zip_members_refuse_the_archive(tmp_path):
    path = make_zip(tmp_path / "evil.zip", [("good.txt", GRAPH), ("../evil", b"x")])
    with pytest.raises(ArchiveError, match=r"^evil\.zip: refusing the archive: member '\.\./evil' has a '\.\.'"):
        read_all(path, "good.txt")
    with pytest.raises(ArchiveError, match=r"'\.\./evil'"):
        safe_extract(path, tmp_path / "unpacked")
    assert not (tmp_path / "evil").exists() and not (tmp_path / "unpacked").exists()
    absolute = make_zip(tmp_path / "absolute.zip", [("/etc/evil", b"x")])
    with pytest.raises(ArchiveError, match="absolute path"):
        read_all(absolute)
    link = zipfile.ZipInfo("link")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    with pytest.raises(ArchiveError, match="'link' is a symbolic link"):
        read_all(make_zip(tmp_path / "link.zip", [(link, b"/etc/passwd")]))


def test_safe_extract_does_not_follow_a_link_already_in_the_folder(tmp_path):
    target = tmp_path / "unpacked"
    outside = tmp_path / "outside"
    target.mkdir()
    outside.mkdir()
    (target / "data").symlink_to(outside)
    path = make_tar(tmp_path / "ok.tar.gz", [("data/graph.mtx", GRAPH, {})])
    with pytest.raises(ArchiveError, match="outside the folder"):
        safe_extract(path, target)
    assert list(outside.iterdir()) == []


def test_safe_extract_writes_files_and_folders(tmp_path):
    path = make_zip(tmp_path / "two.zip", [("g/", b""), ("g/a.txt", b"a"), ("g/sub/b.txt", b"b")])
    written = safe_extract(path, tmp_path / "out")
    assert written == [tmp_path / "out" / "g" / "a.txt", tmp_path / "out" / "g" / "sub" / "b.txt"]
    single = tmp_path / "graph.gr.bz2"
    single.write_bytes(bz2.compress(GRAPH))
    assert safe_extract(single, tmp_path / "out") == [tmp_path / "out" / "graph.gr"]
    assert (tmp_path / "out" / "graph.gr").read_bytes() == GRAPH


# ---- the ceiling --------------------------------------------------------------------------------------------------

def test_a_gzip_bomb_stops_at_the_ceiling(tmp_path):
    bomb = tmp_path / "bomb.gr.gz"
    bomb.write_bytes(gzip.compress(b"\0" * (64 * 2**20), compresslevel=9))  # 64 MiB of zeros in ~64 KiB
    assert bomb.stat().st_size < 2**20
    with pytest.raises(ArchiveError, match=r"^bomb\.gr\.gz: more than 1\.00 MiB \(1,048,576 bytes\) of decompressed"):
        read_all(bomb, max_bytes=2**20)
    with pytest.raises(ArchiveError, match="more than 1.00 MiB"):
        safe_extract(bomb, tmp_path / "out", max_bytes=2**20)
    assert not (tmp_path / "out").exists()


def test_exactly_the_ceiling_is_allowed(tmp_path):
    path = tmp_path / "exact.gz"
    path.write_bytes(gzip.compress(b"x" * 1000))
    assert len(read_all(path, max_bytes=1000)[0]) == 1000
    with pytest.raises(ArchiveError, match="more than"):
        read_all(path, max_bytes=999)


def test_a_declared_size_over_the_ceiling_refuses_the_archive_before_reading(tmp_path):
    path = make_tar(tmp_path / "big.tar.gz", [("big.mtx", b"\0" * 100_000, {})])
    with pytest.raises(ArchiveError, match=r"member 'big\.mtx' declares 100,000 bytes, over the 50,000-byte ceiling"):
        read_all(path, max_bytes=50_000)
    zipped = make_zip(tmp_path / "big.zip", [("big.mtx", b"\0" * 100_000)])
    with pytest.raises(ArchiveError, match=r"member 'big\.mtx' declares 100,000 bytes"):
        read_all(zipped, max_bytes=50_000)


def test_the_ceiling_holds_across_members_when_unpacking(tmp_path):
    path = make_tar(tmp_path / "many.tar", [(f"part{i}.txt", b"y" * 30_000, {}) for i in range(4)], "w")
    with pytest.raises(ArchiveError, match="more than 100,000 bytes in all"):
        safe_extract(path, tmp_path / "out", max_bytes=100_000)
    assert not (tmp_path / "out").exists()


# ---- whatever the bytes, only one-line user errors ----------------------------------------------------------------

@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=600), suffix=st.sampled_from([".gz", ".bz2", ".xz", ".zip", ".tar", ".tar.gz", ".txt"]),
       prefix=st.sampled_from([b"", b"\x1f\x8b\x08\x00", b"BZh9", b"\xfd7zXZ\x00", b"PK\x03\x04", b"PK\x05\x06"]))
def test_arbitrary_bytes_give_data_or_a_user_error(tmp_path, data, suffix, prefix):
    path = tmp_path / f"fuzz{suffix}"
    path.write_bytes(prefix + data)
    try:
        read_all(path, max_bytes=10_000)
    except UserError as error:
        assert "\n" not in str(error) and str(error).startswith(("fuzz", str(path)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.integers(min_value=1, max_value=10_000),
       kind=st.sampled_from(["gz", "bz2", "xz", "tar.gz", "zip"]))
def test_any_truncation_gives_data_or_a_user_error(tmp_path, cut, kind):
    payload = bytes(range(256)) * 20 + GRAPH * 50
    whole = tmp_path / f"whole.{kind}"
    if kind == "tar.gz":
        make_tar(whole, [("d/graph.gr", payload, {})])
    elif kind == "zip":
        make_zip(whole, [("graph.gr", payload)])
    else:
        whole.write_bytes({"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}[kind](payload))
    packed = whole.read_bytes()
    path = tmp_path / f"cut.{kind}"
    path.write_bytes(packed[:cut % len(packed)])
    try:
        data, _ = read_all(path)
    except UserError as error:
        assert "\n" not in str(error) and str(error).startswith("cut.")
    else:
        pytest.fail(f"a truncated {kind} ({cut % len(packed)} of {len(packed)} bytes) read as {len(data)} bytes")
