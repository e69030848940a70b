"""Download one dataset file: streamed, resumed, retried, checked, locked, and never left half-written in place.

`download(url, dest, sha256=..., size=...)` writes to `dest + ".part"` and renames it to `dest` only once the
size and the sha256 are right; a checksum or size mismatch leaves nothing behind. An interrupted download keeps
its `.part`, and the next attempt (in this call, after a back-off, or in a later run) asks for the rest with an
HTTP Range request. A lock file (`dest + ".lock"`, flock) makes a second fetch of the same file wait for the
first and then find it done.

Retries: connection errors, time-outs and 5xx (and 429/408) answers are retried with exponential back-off, up to
`retries` times in a row without progress; an attempt that moved data does not use up a retry (a flaky link
that cuts long downloads still finishes), within a hard cap on attempts. A 404 is final at once.

Sources: with `mirror` (a base URL, a local folder or a file:// URL), the URL's path under the mirror and then
its file name alone are tried before the URL itself (`candidate_sources`), so both a copy of a collection's
layout and a flat folder of files work as mirrors. A local file is copied through the same checks.

All failures reach the caller as one-line `DownloadError`s (a `UserError`) naming the file and every place tried;
network trouble suggests `--mirror BASE` and `--from FILE`.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import socket
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import BinaryIO
from urllib.parse import unquote, urlsplit

import requests
import urllib3

from .. import __version__
from ..errors import UserError
from ..progress import ByteProgress, format_size

DEFAULT_MAX_BYTES = 64 * 2**30
CHUNK_BYTES = 64 * 1024  # what an interrupted read can lose, and so what a resume repeats at most
COPY_CHUNK_BYTES = 1 << 20
MAX_BACKOFF_SECONDS = 60.0
EXTRA_ATTEMPTS_WITH_PROGRESS = 50  # attempts that moved data do not use up `retries`, but are bounded too
MAX_REDIRECTS = 10
RETRY_STATUSES = {408, 429, 500, 502, 503, 504}
USER_AGENT = f"sssp-bench/{__version__} (dataset fetch; python-requests/{requests.__version__})"
NETWORK_HINT = ("no network here? Use --mirror BASE (a URL or folder holding the files) or --from FILE "
                "(a copy downloaded elsewhere)")


class DownloadError(UserError):
    """A file that could not be downloaded or imported: every place tried and why, on one line."""


@dataclass
class Downloaded:
    path: Path
    url: str  # where the bytes came from: the source that worked (a URL or a local path)
    size: int
    sha256: str
    resumed: bool  # a partial download was continued with a Range request
    recorded_hash: bool  # no sha256 was expected: `sha256` is what arrived, recorded for next time, not checked
    reused: bool = False  # `dest` was already there and passed the checks; nothing was transferred


@dataclass(frozen=True)
class _Expected:
    sha256: str | None
    size: int | None

    def describe(self) -> str:
        size = f"{self.size:,} bytes" if self.size is not None else "size not known"
        return f"{self.sha256} ({size})"


class _SourceFailed(Exception):
    """This source did not give the file; the next one may."""

    def __init__(self, source: str, reason: str, kind: str):
        super().__init__(reason)
        self.source = source
        self.reason = reason
        self.kind = kind  # missing, network, http, check, too_large


class _AttemptFailed(Exception):
    """One HTTP attempt failed in a way worth retrying."""

    def __init__(self, reason: str, kind: str = "network", retry_after: float | None = None):
        super().__init__(reason)
        self.reason = reason
        self.kind = kind
        self.retry_after = retry_after


def _one_line(text: str, limit: int = 300) -> str:
    return " ".join(str(text).split())[:limit]


def _normalized_sha256(sha256: str | None) -> str | None:
    if sha256 is None:
        return None
    digest = sha256.strip().lower()
    if not re.fullmatch(r"[0-9a-f]{64}", digest):
        raise DownloadError(f"{sha256!r} is not a sha256 (64 hexadecimal digits)")
    return digest


def _is_http(source: str) -> bool:
    return source.lower().startswith(("http://", "https://"))


def _is_file_url(source: str) -> bool:
    return source.lower().startswith("file://")


def _local_path(source: str) -> Path:
    if _is_file_url(source):
        return Path(unquote(urlsplit(source).path))
    return Path(source).expanduser()


def _mirror_candidate(mirror: str, relative: str) -> str | None:
    """`relative` (a URL path, percent-encoded) under `mirror`; None where it would climb out of the mirror."""
    parts = [part for part in relative.split("/") if part]
    if not parts or any(unquote(part) in ("..", ".") for part in parts):
        return None
    if _is_http(mirror):
        return mirror.rstrip("/") + "/" + "/".join(parts)
    return str(_local_path(mirror).joinpath(*(unquote(part) for part in parts)))


def candidate_sources(url: str, mirror: str | None) -> list[str]:
    """The places `download` tries, in order: with a mirror, the URL's path under it, then the URL's file name
    under it (a flat folder), then the URL itself. Local places are given as paths."""
    sources: list[str] = []
    if mirror:
        path = urlsplit(url).path if (_is_http(url) or _is_file_url(url)) else url
        for relative in (path, path.rstrip("/").rsplit("/", 1)[-1]):
            candidate = _mirror_candidate(str(mirror), relative)
            if candidate is not None and candidate not in sources:
                sources.append(candidate)
    if url not in sources:
        sources.append(url)
    return sources


# ---- lock ---------------------------------------------------------------------------------------------------------

@contextmanager
def _locked(dest: Path) -> Iterator[None]:
    """Hold `dest + ".lock"` exclusively (flock). The holder removes the lock file before releasing it, so a waiter
    that wakes up holding a removed file's lock opens the new one and locks again."""
    lock_path = dest.with_name(dest.name + ".lock")
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DownloadError(f"cannot make the folder {dest.parent}: {exc.strerror or exc}") from None
    for _ in range(1000):
        try:
            descriptor = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise DownloadError(f"cannot create the lock file {lock_path}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            try:
                current = os.stat(lock_path)
            except FileNotFoundError:
                continue
            if current.st_ino != os.fstat(descriptor).st_ino:
                continue
            try:
                yield
            finally:
                try:
                    os.unlink(lock_path)
                except FileNotFoundError:
                    pass
            return
        finally:
            os.close(descriptor)
    raise DownloadError(f"cannot lock {lock_path}: it keeps being replaced")


# ---- the partial file ---------------------------------------------------------------------------------------------

def hash_file(path: Path) -> str:
    """The file's sha256, as hex."""
    hasher = hashlib.sha256()
    with open(path, "rb") as file:
        while chunk := file.read(COPY_CHUNK_BYTES):
            hasher.update(chunk)
    return hasher.hexdigest()


class _PartFile:
    """`dest + ".part"`, open for appending, with the running sha256 of what it holds."""

    def __init__(self, path: Path):
        self.path = path
        self.file: BinaryIO | None = None
        self.hasher = hashlib.sha256()
        self.size = 0

    def open(self, keep_at_most: int) -> int:
        """Open it (once), keeping a previous run's partial file if it is not too large; return its size."""
        if self.file is None:
            try:
                kept = self.path.is_file() and 0 < self.path.stat().st_size <= keep_at_most
                self.file = open(self.path, "r+b" if kept else "wb")
                self.hasher = hashlib.sha256()
                self.size = 0
                if kept:
                    while chunk := self.file.read(COPY_CHUNK_BYTES):
                        self.hasher.update(chunk)
                        self.size += len(chunk)
            except OSError as exc:
                raise DownloadError(f"cannot write {self.path}: {exc.strerror or exc}") from None
        return self.size

    def restart(self) -> None:
        assert self.file is not None
        self.file.seek(0)
        self.file.truncate()
        self.hasher = hashlib.sha256()
        self.size = 0

    def write(self, chunk: bytes) -> None:
        assert self.file is not None
        try:
            self.file.write(chunk)
        except OSError as exc:  # a full disk is not the network's fault: stop, keeping the part to resume later
            self.close()
            raise DownloadError(f"cannot write {self.path}: {exc.strerror or exc} "
                                f"(kept {self.size:,} bytes; run again to resume)") from None
        self.hasher.update(chunk)
        self.size += len(chunk)

    def close(self) -> None:
        if self.file is not None:
            try:
                self.file.flush()
                os.fsync(self.file.fileno())
            finally:
                self.file.close()
                self.file = None

    def discard(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None
        self.path.unlink(missing_ok=True)

    def hexdigest(self) -> str:
        return self.hasher.hexdigest()


# ---- checks -------------------------------------------------------------------------------------------------------

def _check_declared_size(total: int | None, expected: _Expected, max_bytes: int, source: str) -> None:
    if total is None:
        return
    if total > max_bytes:
        raise _SourceFailed(source, f"the file is {total:,} bytes ({format_size(total)}), over the {max_bytes:,}-byte"
                                    f" ceiling (max_bytes); refused before downloading", "too_large")
    if expected.size is not None and total != expected.size:
        raise _SourceFailed(source, f"size mismatch: expected {expected.size:,} bytes, the source has {total:,};"
                                    f" nothing was kept", "check")


def _check_running_size(part: _PartFile, expected: _Expected, max_bytes: int, source: str) -> None:
    if part.size > max_bytes:
        part.discard()
        raise _SourceFailed(source, f"more than the {max_bytes:,}-byte ceiling (max_bytes) arrived; stopped, "
                                    f"nothing was kept", "too_large")
    if expected.size is not None and part.size > expected.size:
        part.discard()
        raise _SourceFailed(source, f"size mismatch: expected {expected.size:,} bytes, more arrived; stopped, "
                                    f"nothing was kept", "check")


def _place(part: _PartFile, dest: Path, expected: _Expected, source: str, resumed: bool) -> Downloaded:
    """Check the complete `.part` and rename it to `dest`; on a mismatch remove it and say what arrived."""
    try:
        part.close()
    except OSError as exc:
        part.discard()
        raise DownloadError(f"cannot write {part.path}: {exc.strerror or exc}") from None
    size, digest = part.size, part.hexdigest()
    problem = None
    if size == 0:
        problem = "the source gave an empty file (0 bytes)"
    elif expected.size is not None and size != expected.size:
        problem = f"size mismatch: expected {expected.size:,} bytes, got {size:,}"
    elif expected.sha256 is not None and digest != expected.sha256:
        problem = f"sha256 mismatch: expected {expected.describe()}, got {digest} ({size:,} bytes)"
    if problem is not None:
        part.discard()
        raise _SourceFailed(source, f"{problem}; nothing was kept", "check")
    try:
        os.replace(part.path, dest)
    except OSError as exc:
        part.discard()
        raise DownloadError(f"cannot put the download in place at {dest}: {exc.strerror or exc}") from None
    try:  # make the rename itself durable
        folder = os.open(dest.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
    except OSError:
        pass
    return Downloaded(dest, source, size, digest, resumed=resumed, recorded_hash=expected.sha256 is None)


def _existing(dest: Path, expected: _Expected, url: str) -> tuple[Downloaded | None, str]:
    """`dest` as a result when it is already there and passes the checks; else None and a note on what is there."""
    if not dest.is_file():
        return None, ""
    size = dest.stat().st_size
    if expected.size is not None and size != expected.size:
        return None, f"{dest} is there but has {size:,} bytes, not {expected.size:,}; it was left as it was"
    if size == 0:
        return None, f"{dest} is there but empty; it was left as it was"
    try:
        digest = hash_file(dest)
    except OSError as exc:
        raise DownloadError(f"cannot read {dest}: {exc.strerror or exc}") from None
    if expected.sha256 is not None and digest != expected.sha256:
        return None, f"{dest} is there but its sha256 is {digest}; it was left as it was"
    return Downloaded(dest, url, size, digest, resumed=False, recorded_hash=expected.sha256 is None, reused=True), ""


# ---- HTTP ---------------------------------------------------------------------------------------------------------

def _exception_chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    pending = [exc]
    while pending and len(seen) < 20:
        current = pending.pop()
        if current is None or any(current is known for known in seen):
            continue
        seen.append(current)
        pending.extend([current.__cause__, current.__context__, getattr(current, "reason", None)])
        pending.extend(arg for arg in current.args if isinstance(arg, BaseException))
    return seen


def _network_reason(exc: BaseException, timeout: tuple[float, float]) -> tuple[str, bool]:
    """(what went wrong, in words; whether another attempt may help)."""
    chain = _exception_chain(exc)
    if any(isinstance(e, ConnectionRefusedError) for e in chain):
        return "connection refused", True
    if any(isinstance(e, (socket.gaierror, urllib3.exceptions.NameResolutionError)) for e in chain):
        return "cannot resolve the host name (no network, or no DNS)", False
    if any(isinstance(e, (requests.exceptions.SSLError, urllib3.exceptions.SSLError)) for e in chain):
        return f"TLS error ({_one_line(exc, 160)})", False
    # urllib3's NewConnectionError (refused, unreachable) is a ConnectTimeoutError too: not a time-out
    if any(isinstance(e, urllib3.exceptions.ConnectTimeoutError)
           and not isinstance(e, urllib3.exceptions.NewConnectionError) for e in chain):
        return f"no connection within {timeout[0]:g} s", True
    if any(isinstance(e, urllib3.exceptions.NewConnectionError) for e in chain):
        return f"cannot connect ({_one_line(exc, 160)})", True
    if any(isinstance(e, (requests.exceptions.ReadTimeout, urllib3.exceptions.ReadTimeoutError, TimeoutError))
           for e in chain):
        return f"no data for {timeout[1]:g} s (read time-out)", True
    if any(isinstance(e, (urllib3.exceptions.ProtocolError, requests.exceptions.ChunkedEncodingError,
                          ConnectionResetError)) for e in chain):
        return "the connection broke off during the transfer", True
    if any(isinstance(e, requests.exceptions.TooManyRedirects) for e in chain):
        return f"more than {MAX_REDIRECTS} redirects", False
    return f"connection failed ({_one_line(exc, 160)})", True


def _retry_after(response: requests.Response) -> float | None:
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError, OverflowError):
            return None


def _content_range(response: requests.Response) -> tuple[int | None, int | None]:
    """(first byte, total size) from `Content-Range: bytes FIRST-LAST/TOTAL` (or `bytes */TOTAL`)."""
    match = re.fullmatch(r"\s*bytes\s+(?:(\d+)-(\d+)|\*)\s*/\s*(\d+|\*)\s*", response.headers.get("Content-Range", ""))
    if not match:
        return None, None
    first = int(match.group(1)) if match.group(1) is not None else None
    total = int(match.group(3)) if match.group(3) != "*" else None
    return first, total


def _content_length(response: requests.Response) -> int | None:
    value = response.headers.get("Content-Length", "")
    return int(value) if value.strip().isdigit() else None


class _HttpTransfer:
    """The attempts at one URL, until `.part` holds what the server says is the whole file."""

    def __init__(self, session: requests.Session, source: str, part: _PartFile, expected: _Expected, max_bytes: int,
                 timeout: tuple[float, float], retries: int, backoff: float, bar: ByteProgress):
        self.session = session
        self.source = source
        self.part = part
        self.expected = expected
        self.max_bytes = max_bytes
        self.timeout = timeout
        self.retries = max(0, retries)
        self.backoff = max(0.0, backoff)
        self.bar = bar
        self.resumed = False
        self.received = 0  # bytes of body this attempt

    def run(self) -> bool:
        """Fill the part file; return whether it was resumed. Raises _SourceFailed when this URL will not do."""
        attempts = 0
        in_a_row = 0  # failed attempts in a row that moved no data
        while True:
            attempts += 1
            self.received = 0
            try:
                self._attempt()
                return self.resumed
            except _AttemptFailed as failure:
                in_a_row = 0 if self.received else in_a_row + 1
                if in_a_row > self.retries or attempts > self.retries + EXTRA_ATTEMPTS_WITH_PROGRESS:
                    tries = f"{attempts} attempt{'s' if attempts > 1 else ''}"
                    raise _SourceFailed(self.source, f"{failure.reason} ({tries})", failure.kind) from None
                delay = min(self.backoff * 2 ** max(in_a_row - 1, 0), MAX_BACKOFF_SECONDS)
                if failure.retry_after is not None:
                    delay = max(delay, min(failure.retry_after, MAX_BACKOFF_SECONDS))
                time.sleep(delay)

    def _attempt(self) -> None:
        offset = self.part.open(keep_at_most=min(self.max_bytes, self.expected.size or self.max_bytes))
        # identity: the bytes as stored, never a transparently compressed (and differently sized) rendition
        headers = {"Accept-Encoding": "identity"}
        if offset:
            headers["Range"] = f"bytes={offset}-"
        try:
            with self.session.get(self.source, headers=headers, stream=True, timeout=self.timeout) as response:
                total, complete = self._start(response, offset)
                if complete:
                    return
                self.bar.total = total if total is not None else self.expected.size
                for chunk in response.raw.stream(CHUNK_BYTES, decode_content=False):
                    self.part.write(chunk)
                    self.received += len(chunk)
                    self.bar.advance(len(chunk))
                    _check_running_size(self.part, self.expected, self.max_bytes, self.source)
                if total is not None and self.part.size != total:
                    raise _AttemptFailed(f"the connection closed after {self.part.size:,} of {total:,} bytes")
        except (requests.RequestException, urllib3.exceptions.HTTPError, OSError) as exc:
            reason, retryable = _network_reason(exc, self.timeout)
            if not retryable:
                raise _SourceFailed(self.source, reason, "network") from None
            raise _AttemptFailed(reason) from None

    def _start(self, response: requests.Response, offset: int) -> tuple[int | None, bool]:
        """Check the answer's status and size and set the part file up for its body. Return the file's total size
        (None where the server does not say) and whether the part file already holds all of it."""
        status = response.status_code
        if status in (404, 410):
            raise _SourceFailed(self.source, f"not found (HTTP {status})", "missing")
        if status == 416 and offset:
            _, total = _content_range(response)
            if total == offset:
                self.resumed = True
                return total, True
            self.part.restart()  # the server's file is shorter than our part: not the same file; start over
            self.bar.restart(0)
            raise _AttemptFailed(f"the server could not resume at byte {offset:,} (HTTP 416)")
        if status in RETRY_STATUSES:
            raise _AttemptFailed(f"HTTP {status} {response.reason or ''}".strip(), kind="http",
                                 retry_after=_retry_after(response))
        if status not in (200, 206):
            raise _SourceFailed(self.source, f"HTTP {status} {response.reason or ''}".strip(), "http")
        if status == 206:
            first, total = _content_range(response)
            if first != offset:
                self.part.restart()
                self.bar.restart(0)
                raise _AttemptFailed(f"the server answered a resume at byte {offset:,} with other bytes "
                                     f"({response.headers.get('Content-Range')!r})", kind="http")
            if offset:
                self.resumed = True
        else:
            if offset:  # the server ignored the Range request and sends the whole file: start from zero
                self.part.restart()
                self.bar.restart(0)
                self.resumed = False
            total = _content_length(response)
        try:
            _check_declared_size(total, self.expected, self.max_bytes, self.source)
        except _SourceFailed:
            self.part.discard()
            raise
        return total, False


def _download_http(session: requests.Session, source: str, dest: Path, expected: _Expected, max_bytes: int,
                   timeout: tuple[float, float], retries: int, backoff: float, progress: bool) -> Downloaded:
    part = _PartFile(dest.with_name(dest.name + ".part"))
    for restarts_left in (1, 0):
        offset = part.open(keep_at_most=min(max_bytes, expected.size or max_bytes))
        bar = ByteProgress(expected.size, label=dest.name, initial=offset, enabled=progress)
        try:
            resumed = _HttpTransfer(session, source, part, expected, max_bytes, timeout, retries, backoff, bar).run()
        except _SourceFailed as failure:
            if part.size == 0:
                part.discard()
            elif part.file is not None:  # keep what arrived: a later run (or the next source) resumes from it
                part.close()
                if failure.kind in ("network", "http"):
                    failure.reason += f"; kept {part.size:,} bytes in {part.path.name} to resume from"
            raise
        finally:
            bar.close()
        try:
            return _place(part, dest, expected, source, resumed)
        except _SourceFailed as failure:
            # A part kept from an earlier attempt may have come from another version of the file: one more try
            # from zero settles whether the source itself is wrong.
            if not (resumed and restarts_left and failure.kind == "check"):
                raise
    raise AssertionError("unreachable")


# ---- local files --------------------------------------------------------------------------------------------------

def _copy_local(source: str, path: Path, dest: Path, expected: _Expected, max_bytes: int,
                progress: bool) -> Downloaded:
    if not path.exists():
        raise _SourceFailed(source, "no such file", "missing")
    if not path.is_file():
        raise _SourceFailed(source, "not a file", "missing")
    _check_declared_size(path.stat().st_size, expected, max_bytes, source)
    part = _PartFile(dest.with_name(dest.name + ".part"))
    part.open(keep_at_most=0)
    bar = ByteProgress(path.stat().st_size, label=dest.name, enabled=progress)
    try:
        with open(path, "rb") as file:
            while chunk := file.read(COPY_CHUNK_BYTES):
                part.write(chunk)
                bar.advance(len(chunk))
                _check_running_size(part, expected, max_bytes, source)
    except OSError as exc:
        part.discard()
        raise _SourceFailed(source, f"cannot read: {exc.strerror or exc}", "missing") from None
    finally:
        bar.close()
    return _place(part, dest, expected, source, resumed=False)


# ---- entry points -------------------------------------------------------------------------------------------------

def _failure_message(action: str, label: str, failures: list[_SourceFailed], note: str) -> str:
    if len(failures) == 1:
        message = f"cannot {action} {label} from {failures[0].source}: {failures[0].reason}"
    else:
        places = "; ".join(f"{failure.source}: {failure.reason}" for failure in failures)
        message = f"cannot {action} {label} from any of {len(failures)} places: {places}"
    if note:
        message += f" ({note})"
    if any(failure.kind == "network" for failure in failures):
        message += f"; {NETWORK_HINT}"
    return _one_line(message, limit=4000)


def download(url: str, dest: Path, *, sha256: str | None = None, size: int | None = None, mirror: str | None = None,
             max_bytes: int = DEFAULT_MAX_BYTES, timeout: tuple[float, float] = (10, 60), retries: int = 4,
             backoff: float = 1.0, progress: bool = True) -> Downloaded:
    """Download `url` (or its copy on `mirror`) to `dest`, checked against `sha256` and `size` when given.

    Returns at once when `dest` is already there and passes the checks. Raises DownloadError (one line) when no
    source gives the right file; nothing half-written is ever left at `dest`.
    """
    dest = Path(dest)
    expected = _Expected(_normalized_sha256(sha256), size)
    if size is not None and size > max_bytes:
        raise DownloadError(f"cannot download {dest.name}: it is {size:,} bytes ({format_size(size)}), over the "
                            f"{max_bytes:,}-byte ceiling (max_bytes)")
    if mirror and not _is_http(str(mirror)) and not _local_path(str(mirror)).is_dir():
        raise DownloadError(f"mirror {mirror}: no such folder (a mirror is a base URL or a local folder)")
    sources = candidate_sources(url, str(mirror) if mirror else None)
    with _locked(dest):
        found, note = _existing(dest, expected, url)
        if found is not None:
            return found
        failures: list[_SourceFailed] = []
        with requests.Session() as session:
            session.headers["User-Agent"] = USER_AGENT
            session.max_redirects = MAX_REDIRECTS
            for source in sources:
                try:
                    if _is_http(source):
                        return _download_http(session, source, dest, expected, max_bytes, timeout, retries,
                                              backoff, progress)
                    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", source) and not _is_file_url(source):
                        raise _SourceFailed(source, "unsupported URL scheme (http, https and file only)", "http")
                    return _copy_local(source, _local_path(source), dest, expected, max_bytes, progress)
                except _SourceFailed as failure:
                    failures.append(failure)
        raise DownloadError(_failure_message("download", dest.name, failures, note))


def import_file(source: Path, dest: Path, *, sha256: str | None = None, size: int | None = None,
                max_bytes: int = DEFAULT_MAX_BYTES, progress: bool = True) -> Downloaded:
    """Copy a file obtained elsewhere (`fetch NAME --from FILE`) into `dest` through the same checks as a
    download: size, sha256, ceiling, lock, and nothing left behind on a mismatch."""
    source = Path(source).expanduser()
    dest = Path(dest)
    expected = _Expected(_normalized_sha256(sha256), size)
    with _locked(dest):
        # With a known hash, a dest that has it is the file asked for; with none, only the source itself is.
        if expected.sha256 is not None or (dest.is_file() and source.is_file() and dest.samefile(source)):
            found, _ = _existing(dest, expected, str(source))
            if found is not None:
                return found
        try:
            return _copy_local(str(source), source, dest, expected, max_bytes, progress)
        except _SourceFailed as failure:
            raise DownloadError(_failure_message("import", dest.name, [failure], "")) from None


def main(argv: list[str] | None = None) -> int:  # pragma: no cover - a manual check: python -m sssp_bench.download
    arguments = sys.argv[1:] if argv is None else argv
    if len(arguments) < 2:
        print("usage: python -m sssp_bench.download URL DEST [SHA256]", file=sys.stderr)
        return 2
    try:
        result = download(arguments[0], Path(arguments[1]), sha256=arguments[2] if len(arguments) > 2 else None)
    except UserError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"{result.path}: {result.size:,} bytes, sha256 {result.sha256}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
