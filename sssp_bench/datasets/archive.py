"""Open downloaded graph files safely, as one decompressed binary stream, without unpacking them to disk.

What a file is comes from its first bytes (magic), not from its name: a `.gz` that is not gzip is refused (it is
usually an HTML error page saved under the file's name), and a gzip file named `.txt` is decompressed. Supported:
gzip, bzip2 and xz single-file compression (streamed), tar (plain, .tar.gz/.tgz, .tar.bz2, .tar.xz), zip, and
plain files.

Archives are checked whole before any member's data is read: no absolute paths, no `..` components, no symbolic
or hard links, no devices or FIFOs, declared sizes within the ceiling. Any such member refuses the archive, by
name. The ceiling is enforced on the decompressed bytes as they are read too, so a compression bomb stops with a
clear error instead of filling memory or disk. A damaged file (truncated, corrupt) is an `ArchiveError` naming
the file, raised when the damage is found: while opening, or later while the caller reads the stream.

Checking a compressed tar whole means decompressing it once to its end (which also runs gzip's CRC check) before
the chosen member is decompressed again and handed out: the price of refusing a bad archive before using it.
"""

from __future__ import annotations

import bz2
import errno
import fnmatch
import gzip
import io
import lzma
import os
import re
import shutil
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from ..errors import UserError
from ..progress import format_size

DEFAULT_MAX_BYTES = 256 * 2**30
MAX_MEMBERS = 100_000  # a tar's member list is held in memory; real graph archives have a handful
LISTED_MEMBERS = 20  # how many member names an error message lists
READ_BUFFER = 1 << 20
TAR_OVERHEAD = 64 * 2**20  # headers and padding a tar may add around its members' data, beyond the data ceiling


class ArchiveError(UserError):
    """A compressed file or archive that is damaged, unsafe, or not what its name says."""


_MAGIC = (
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"PK\x03\x04", "zip"),
    (b"PK\x05\x06", "zip"),  # an empty zip: only the end-of-central-directory record
)
_UNSUPPORTED_MAGIC = (
    (b"\x28\xb5\x2f\xfd", "zstd-compressed"),
    (b"\x1f\x9d", "compressed with Unix compress (.Z)"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
)
# The compression a file's last suffix claims; checked against the magic bytes.
_SUFFIX_CLAIMS = {
    ".gz": "gzip", ".tgz": "gzip", ".bz2": "bzip2", ".tbz": "bzip2", ".tbz2": "bzip2", ".xz": "xz", ".txz": "xz",
    ".zip": "zip", ".tar": "tar",
}
_TAR_SUFFIXES = {".tar", ".tgz", ".tbz", ".tbz2", ".txz"}
_COMPRESSED_KINDS = ("gzip", "bzip2", "xz")
_NOUN = {"gzip": "gzip data", "bzip2": "bzip2 data", "xz": "xz data", "zip": "zip archive", "tar": "tar archive",
         "plain": "file"}

# Everything a decompressor or archive reader raises for bad input; translated into one-line ArchiveErrors.
_DATA_ERRORS = (EOFError, zlib.error, OSError, lzma.LZMAError, zipfile.BadZipFile, tarfile.TarError,
                NotImplementedError, RuntimeError)


def _describe_error(exc: BaseException, label: str, kind: str) -> ArchiveError:
    noun = _NOUN.get(kind, "data")
    detail = str(exc).strip()
    if isinstance(exc, EOFError) or (isinstance(exc, tarfile.ReadError) and "unexpected end" in detail):
        return ArchiveError(f"{label}: truncated {noun} (unexpected end of stream)")
    if isinstance(exc, OSError) and exc.errno is not None and exc.errno != errno.EINVAL:  # EINVAL: a bad offset
        return ArchiveError(f"{label}: cannot read: {exc.strerror or detail}")
    if isinstance(exc, zlib.error):
        detail = re.sub(r"^Error -?\d+ while decompressing data:\s*", "", detail)
    if isinstance(exc, RuntimeError) and "encrypted" in detail:
        return ArchiveError(f"{label}: encrypted {noun}, which sssp-bench cannot read")
    detail = " ".join(detail.split())[:200] or type(exc).__name__
    return ArchiveError(f"{label}: corrupt {noun} ({detail})")


class _Guard(io.RawIOBase):
    """A read-only view of `inner` that translates decompression errors into ArchiveErrors naming the file and
    refuses to go past `limit` bytes (by position, so seeking forward over data counts as well as reading it)."""

    def __init__(self, inner: BinaryIO, label: str, kind: str, limit: int, seekable: bool = False):
        super().__init__()
        self._inner = inner
        self._label = label
        self._kind = kind
        self._limit = limit
        self._seekable = seekable
        self._position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return self._seekable

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if not self._seekable:
            raise io.UnsupportedOperation("seek")
        target = {io.SEEK_SET: offset, io.SEEK_CUR: self._position + offset}.get(whence)
        if target is None:  # SEEK_END would decompress everything to find the end; tarfile and zipfile never ask
            raise io.UnsupportedOperation("seek from the end")
        self._check_limit(target)
        try:
            self._position = self._inner.seek(target)
        except UserError:
            raise
        except _DATA_ERRORS as exc:
            raise _describe_error(exc, self._label, self._kind) from None
        return self._position

    def readinto(self, buffer) -> int:
        view = memoryview(buffer).cast("B")
        if not len(view):
            return 0
        # Ask for at most one byte past the ceiling: enough to know it was passed, not a buffer's worth more.
        view = view[:min(len(view), self._limit - self._position + 1)]
        try:
            count = self._inner.readinto(view) or 0
        except UserError:
            raise
        except _DATA_ERRORS as exc:
            raise _describe_error(exc, self._label, self._kind) from None
        self._position += count
        self._check_limit(self._position)
        return count

    def _check_limit(self, position: int) -> None:
        if position > self._limit:
            raise ArchiveError(
                f"{self._label}: more than {format_size(self._limit)} ({self._limit:,} bytes) of decompressed data;"
                f" stopped there (a compression bomb, or a file larger than the ceiling allows)")


def _buffered(guard: _Guard) -> io.BufferedReader:
    return io.BufferedReader(guard, buffer_size=READ_BUFFER)


def _claimed_kind(path: Path) -> str | None:
    return _SUFFIX_CLAIMS.get(path.suffix.lower())


def _claims_tar(path: Path) -> bool:
    suffixes = [suffix.lower() for suffix in path.suffixes]
    return bool(suffixes) and (suffixes[-1] in _TAR_SUFFIXES or (len(suffixes) >= 2 and suffixes[-2] == ".tar"))


def is_archive_name(name: str) -> bool:
    """Whether a file name says a tar (maybe compressed) or zip archive."""
    path = Path(name)
    return _claims_tar(path) or _claimed_kind(path) == "zip"


def _looks_like_tar(head: bytes) -> bool:
    if len(head) < tarfile.BLOCKSIZE:
        return False
    if head[257:262] == b"ustar":
        return True
    try:  # an old (v7) tar has no magic; its header checksum still has to add up
        tarfile.TarInfo.frombuf(head[:tarfile.BLOCKSIZE], tarfile.ENCODING, "surrogateescape")
        return True
    except tarfile.HeaderError:
        return False


def _describe_start(head: bytes) -> str:
    start = head[:256].lstrip().lower()
    if start.startswith((b"<!doctype html", b"<html", b"<?xml", b"<head", b"<body")):
        return "an HTML or XML page (an error page saved in the file's place?)"
    return f"bytes {head[:16]!r}"


def _sniff(head: bytes, path: Path) -> str:
    """The outer kind of a file from its first bytes: gzip, bzip2, xz, zip, tar or plain."""
    label = path.name
    if not head:
        raise ArchiveError(f"{label}: empty file (0 bytes)")
    for magic, what in _UNSUPPORTED_MAGIC:
        if head.startswith(magic):
            raise ArchiveError(f"{label}: {what}, which sssp-bench cannot read; unpack it first")
    kind = next((kind for magic, kind in _MAGIC if head.startswith(magic)), None)
    if kind == "bzip2" and not (len(head) > 3 and head[3] in b"123456789"):  # "BZh" then the block size digit
        kind = None
    if kind is None:
        kind = "tar" if _looks_like_tar(head) else "plain"
    claimed = _claimed_kind(path)
    if claimed is not None and claimed != kind:
        found = {"plain": _describe_start(head), "tar": "a tar archive"}.get(kind, f"{kind} data")
        raise ArchiveError(f"{label}: not {_NOUN[claimed]} as its name says; it holds {found}")
    return kind


def _open_file(path: Path) -> BinaryIO:
    try:
        return open(path, "rb")
    except FileNotFoundError:
        raise ArchiveError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ArchiveError(f"{path}: is a folder, not a data file") from None
    except OSError as exc:
        raise ArchiveError(f"{path}: cannot open: {exc.strerror or exc}") from None


def _decompressor(raw: BinaryIO, kind: str) -> BinaryIO:
    if kind == "gzip":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if kind == "bzip2":
        return bz2.BZ2File(raw, mode="rb")
    return lzma.LZMAFile(raw, mode="rb")


# ---- members: checks and choice ----------------------------------------------------------------------------------

def _name_problem(name: str) -> str | None:
    normalized = name.replace("\\", "/")
    if not [part for part in normalized.split("/") if part not in ("", ".")]:
        return "has an empty name"
    if "\x00" in normalized:
        return "has a NUL byte in its name"
    if normalized.startswith("/") or re.match(r"^[A-Za-z]:", normalized):
        return "has an absolute path"
    if ".." in normalized.split("/"):
        return "has a '..' component (it would land outside the folder)"
    return None


def _refuse(label: str, name: str, problem: str) -> ArchiveError:
    return ArchiveError(f"{label}: refusing the archive: member {name!r} {problem}")


def _check_tar_member(info: tarfile.TarInfo, label: str, limit: int) -> None:
    problem = _name_problem(info.name)
    if problem is None:
        if info.issym():
            problem = f"is a symbolic link (to {info.linkname!r})"
        elif info.islnk():
            problem = f"is a hard link (to {info.linkname!r})"
        elif info.ischr() or info.isblk():
            problem = "is a device file"
        elif info.isfifo():
            problem = "is a FIFO"
        elif not (info.isreg() or info.isdir()):
            problem = f"is of an unsupported type ({info.type!r})"
        elif info.size > limit:
            problem = f"declares {info.size:,} bytes, over the {limit:,}-byte ceiling"
    if problem is not None:
        raise _refuse(label, info.name, problem)


def _check_zip_member(info: zipfile.ZipInfo, label: str, limit: int) -> None:
    problem = _name_problem(info.filename)
    mode = info.external_attr >> 16
    if problem is None:
        if stat.S_ISLNK(mode):
            problem = "is a symbolic link"
        elif mode and stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):
            problem = "is a device file, FIFO or socket"
        elif info.flag_bits & 0x1:
            problem = "is encrypted"
        elif info.file_size > limit:
            problem = f"declares {info.file_size:,} bytes, over the {limit:,}-byte ceiling"
    if problem is not None:
        raise _refuse(label, info.filename, problem)


def _normalized(name: str) -> str:
    while name.startswith("./"):
        name = name[2:]
    return name


def _is_clutter(name: str) -> bool:
    """Files an archiver adds that are never data: macOS resource forks and hidden files."""
    parts = PurePosixPath(name).parts
    return any(part == "__MACOSX" or part.startswith(".") for part in parts)


def _listing(names: list[str]) -> str:
    shown = ", ".join(names[:LISTED_MEMBERS])
    more = len(names) - LISTED_MEMBERS
    return shown + (f", ... ({more} more)" if more > 0 else "") if names else "none"


def _choose(files: list[str], member: str | None, label: str) -> str:
    """The member to read: `member` as an exact name, else as a glob (on the whole name, or on the file name when
    it has no '/'); with no `member`, the archive's one data file."""
    if member is None:
        data_files = [name for name in files if not _is_clutter(name)]
        if len(data_files) == 1:
            return data_files[0]
        if not data_files:
            raise ArchiveError(f"{label}: the archive holds no data file (members: {_listing(files)})")
        raise ArchiveError(f"{label}: the archive holds {len(data_files)} files; say which one to read "
                           f"(members: {_listing(data_files)})")
    wanted = _normalized(member)
    exact = [name for name in files if _normalized(name) == wanted]
    if exact:
        return exact[-1]  # a name repeated in a tar: the later copy wins, as when unpacking
    matches = [name for name in files if fnmatch.fnmatchcase(_normalized(name), wanted)
               or ("/" not in wanted and fnmatch.fnmatchcase(PurePosixPath(name).name, wanted))]
    matches = list(dict.fromkeys(matches))
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise ArchiveError(f"{label}: no member matches {member!r} (members: {_listing(files)})")
    raise ArchiveError(f"{label}: {len(matches)} members match {member!r}; name one (matches: {_listing(matches)})")


# ---- tar and zip readers ------------------------------------------------------------------------------------------

class _TarReader:
    """A tar (plain or inside gzip/bzip2/xz) opened for random access, every member checked before any is read."""

    def __init__(self, stack: ExitStack, source: BinaryIO, label: str, kind: str, limit: int):
        self.label = label
        self.limit = limit
        # No read-ahead buffer over this guard: tarfile reads exactly what it needs, so the guard's position is
        # what the archive really used, and a declared size over the ceiling is reported as such.
        # The archive around the data (headers, padding) may add a little to the ceiling on the data itself.
        self.stream = stack.enter_context(_Guard(source, label, kind, limit + TAR_OVERHEAD, seekable=True))
        try:
            self.tar = stack.enter_context(tarfile.open(fileobj=self.stream, mode="r:"))
            self.members = self._checked_members()
            # Read to the end so the compression's own check (gzip's CRC and length) has run before data is used.
            while self.stream.read(READ_BUFFER):
                pass
        except UserError:
            raise
        except _DATA_ERRORS as exc:
            raise _describe_error(exc, label, "tar") from None

    def _checked_members(self) -> list[tarfile.TarInfo]:
        members = []
        declared = 0
        while (info := self.tar.next()) is not None:
            _check_tar_member(info, self.label, self.limit)
            declared += info.size if info.isreg() else 0
            if declared > self.limit:
                raise ArchiveError(f"{self.label}: refusing the archive: its members declare more than "
                                   f"{self.limit:,} bytes in all (the ceiling)")
            members.append(info)
            if len(members) > MAX_MEMBERS:
                raise ArchiveError(f"{self.label}: refusing the archive: more than {MAX_MEMBERS:,} members")
        return members

    def files(self) -> list[str]:
        return list(dict.fromkeys(info.name for info in self.members if info.isreg()))

    def member(self, name: str) -> tarfile.TarInfo:
        return [info for info in self.members if info.name == name and info.isreg()][-1]

    def open(self, info: tarfile.TarInfo) -> BinaryIO:
        try:
            return self.tar.extractfile(info)
        except UserError:
            raise
        except _DATA_ERRORS as exc:
            raise _describe_error(exc, self.label, "tar") from None


class _ZipReader:
    def __init__(self, stack: ExitStack, raw: BinaryIO, label: str, limit: int):
        self.label = label
        self.limit = limit
        try:
            self.zip = stack.enter_context(zipfile.ZipFile(raw))
            self.members = self.zip.infolist()
        except zipfile.BadZipFile as exc:
            if "not a zip file" in str(exc):
                raise ArchiveError(f"{label}: truncated or corrupt zip archive (no central directory at its end)") \
                    from None
            raise _describe_error(exc, label, "zip") from None
        except _DATA_ERRORS as exc:
            raise _describe_error(exc, label, "zip") from None
        if len(self.members) > MAX_MEMBERS:
            raise ArchiveError(f"{label}: refusing the archive: more than {MAX_MEMBERS:,} members")
        declared = 0
        for info in self.members:
            _check_zip_member(info, label, limit)
            declared += info.file_size
        if declared > limit:
            raise ArchiveError(f"{label}: refusing the archive: its members declare more than {limit:,} bytes "
                               f"in all (the ceiling)")

    def files(self) -> list[str]:
        return list(dict.fromkeys(info.filename for info in self.members if not info.is_dir()))

    def member(self, name: str) -> zipfile.ZipInfo:
        return [info for info in self.members if info.filename == name][-1]

    def open(self, info: zipfile.ZipInfo) -> BinaryIO:
        try:
            return self.zip.open(info)
        except _DATA_ERRORS as exc:
            raise _describe_error(exc, self.label, "zip") from None


def _open_container(stack: ExitStack, path: Path, limit: int) -> tuple[str, BinaryIO | _TarReader | _ZipReader]:
    """("archive", reader) for a tar or zip, else ("stream", decompressed or plain raw stream) plus its kind."""
    raw = stack.enter_context(_open_file(path))
    label = path.name
    kind = _sniff(raw.read(tarfile.BLOCKSIZE), path)
    raw.seek(0)
    if kind == "zip":
        return "zip", _ZipReader(stack, raw, label, limit)
    if kind == "tar":
        return "tar", _TarReader(stack, raw, label, "tar", limit)
    if kind == "plain":
        return "plain", raw
    decompressed = stack.enter_context(_decompressor(raw, kind))
    head_guard = _Guard(decompressed, label, kind, limit)
    head = bytearray(tarfile.BLOCKSIZE)
    filled = 0
    while filled < len(head) and (count := head_guard.readinto(memoryview(head)[filled:])):
        filled += count
    if _looks_like_tar(bytes(head[:filled])):
        decompressed.seek(0)
        return "tar", _TarReader(stack, decompressed, label, kind, limit)
    if _claims_tar(path):
        raise ArchiveError(f"{label}: the name says a tar archive inside {kind}, but the decompressed data is not one")
    decompressed.seek(0)
    return kind, decompressed


def plain_size(path: Path) -> int | None:
    """The size of a file that is its own data (neither compressed nor an archive), else None: how many bytes a
    parser will read, known before it reads them, so a header declaring more lines than fit is refused at once."""
    try:
        with _open_file(Path(path)) as raw:
            if _sniff(raw.read(tarfile.BLOCKSIZE), Path(path)) != "plain":
                return None
            return os.fstat(raw.fileno()).st_size
    except (ArchiveError, OSError):
        return None


@contextmanager
def open_data_file(path: Path, member: str | None = None,
                   max_bytes: int = DEFAULT_MAX_BYTES) -> Iterator[tuple[BinaryIO, str]]:
    """Yield (the file's data as a decompressed binary stream, a label for messages).

    For an archive, `member` picks the file (an exact name, or a glob like "*/bcsstk13.mtx"); without it the
    archive must hold exactly one data file. The label names the file, and the member inside an archive
    ("bcsstk13.tar.gz:bcsstk13/bcsstk13.mtx"). Reading past `max_bytes` of decompressed data raises ArchiveError.
    """
    path = Path(path)
    with ExitStack() as stack:
        kind, opened = _open_container(stack, path, max_bytes)
        if isinstance(opened, (_TarReader, _ZipReader)):
            name = _choose(opened.files(), member, path.name)
            label = f"{path.name}:{name}"
            inner = stack.enter_context(opened.open(opened.member(name)))
            stream = _buffered(_Guard(inner, label, kind, max_bytes))
        else:
            if member is not None:
                what = "a plain file" if kind == "plain" else _NOUN[kind]
                raise ArchiveError(f"{path.name}: not an archive ({what}), so there is no member {member!r} to pick")
            label = path.name
            stream = _buffered(_Guard(opened, label, kind, max_bytes))
        with stream:
            yield stream, label


# ---- unpacking to disk --------------------------------------------------------------------------------------------

def _inside(folder: Path, target: Path) -> bool:
    return Path(os.path.realpath(target)).is_relative_to(Path(os.path.realpath(folder)))


def _single_file_name(path: Path, kind: str) -> str:
    name = path.name
    if kind in _COMPRESSED_KINDS and _claimed_kind(path) == kind:
        name = path.stem
    return name or "data"


def safe_extract(path: Path, dest_dir: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> list[Path]:
    """Unpack `path` into `dest_dir` and return the files written, in archive order.

    A tar or zip is checked whole first and its regular files and folders written (never links or devices, never
    outside `dest_dir`, never more than `max_bytes` in all); a gzip/bzip2/xz file is decompressed into one file
    named without its suffix; a plain file is copied. On any error the files written so far are removed.
    """
    path = Path(path)
    dest_dir = Path(dest_dir)
    written: list[Path] = []
    made_dirs: list[Path] = []
    budget = [max_bytes]

    def make_dir(folder: Path) -> None:
        missing = [parent for parent in [folder, *folder.parents] if not parent.exists()]
        for parent in reversed(missing):
            parent.mkdir()
            made_dirs.append(parent)

    def make_folder(name: str) -> None:
        folder = dest_dir.joinpath(*PurePosixPath(name.replace("\\", "/")).parts)
        if not _inside(dest_dir, folder):
            raise _refuse(path.name, name, "would land outside the folder (through a link already there)")
        make_dir(folder)

    def write(source: BinaryIO, name: str, label: str, kind: str) -> None:
        target = dest_dir.joinpath(*PurePosixPath(name.replace("\\", "/")).parts)
        # Checked before any folder is made: a link already in dest_dir must not carry the files elsewhere.
        if not _inside(dest_dir, target):
            raise _refuse(path.name, name, "would land outside the folder (through a link already there)")
        guard = _buffered(_Guard(source, label, kind, budget[0]))
        temporary = target.with_name(f".{target.name}.unpacking")
        try:
            make_dir(target.parent)
            with open(temporary, "wb") as out:
                shutil.copyfileobj(guard, out, READ_BUFFER)
            budget[0] -= guard.raw.tell()
            os.replace(temporary, target)
        except OSError as exc:
            raise ArchiveError(f"{target}: cannot write: {exc.strerror or exc}") from None
        finally:
            temporary.unlink(missing_ok=True)
        if target not in written:
            written.append(target)

    try:
        try:
            make_dir(dest_dir)
        except OSError as exc:
            raise ArchiveError(f"{dest_dir}: cannot make the folder: {exc.strerror or exc}") from None
        with ExitStack() as stack:
            kind, opened = _open_container(stack, path, max_bytes)
            if isinstance(opened, _TarReader):
                for info in opened.members:
                    if info.isdir():
                        make_folder(info.name)
                    else:
                        with opened.open(info) as member_stream:
                            write(member_stream, info.name, f"{path.name}:{info.name}", kind)
            elif isinstance(opened, _ZipReader):
                for info in opened.members:
                    if info.is_dir():
                        make_folder(info.filename)
                    else:
                        with opened.open(info) as member_stream:
                            write(member_stream, info.filename, f"{path.name}:{info.filename}", kind)
            else:
                name = _single_file_name(path, kind)
                if (dest_dir / name).exists() and (dest_dir / name).samefile(path):
                    if kind == "plain":
                        return [path]
                    name += ".unpacked"
                write(opened, name, path.name, kind)
    except BaseException:
        for file in written:
            file.unlink(missing_ok=True)
        for folder in reversed(made_dirs):
            try:
                folder.rmdir()
            except OSError:
                pass
        raise
    return written
