"""A local HTTP server for download tests: serves a folder on 127.0.0.1 (an ephemeral port), with faults on demand.

    with serve(folder, cut_after={"big.gz": 100_000}) as server:
        download(server.url + "big.gz", dest)          # cut once after 100,000 bytes, then resumed
        assert server.requests[1] == ("/big.gz", "bytes=100000-")

It answers GET and HEAD with Content-Length, honours `Range: bytes=N-` and `bytes=N-M` (206 with Content-Range;
416 with `Content-Range: bytes */SIZE` when N is past the end), and 404 for anything that is not a file in the
folder. Faults (each counted over the server's life, thread-safe):

- `cut_after={"name": K}`: send only K bytes of that file's body, then drop the connection; `cut_times` times
  (default once) per file, after which it is served whole.
- `fail_first=N`, `fail_status=503`: the first N requests (any path) get that status and a short body.
- `ignore_range=True`: answer every request with 200 and the whole file, as servers without Range support do.
- `wrong_bytes={"name", ...}`: serve those files with one byte changed (same length, different sha256).
- `slow=SECONDS`, `slow_times=N`: wait that long before answering the first N requests (None: every request).
- `send_length=False`: no Content-Length (the body ends when the connection closes).
- `chunk_delay=SECONDS`: pause between body chunks of 64 KiB (a slow but steady transfer).

`server.requests` lists (path, Range header or None) for every request, in arrival order. Only 127.0.0.1 is ever
bound: the tests never touch any other address.

Also here: the `shared_datasets` fixture (the folder of real graph files, or a skip) and `readme_sha256`, the
hashes its README lists; test modules import them.
"""

from __future__ import annotations

import os
import re
import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

BODY_CHUNK = 64 * 1024


class LocalServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, folder: Path, *, cut_after: dict[str, int] | None = None, cut_times: int = 1,
                 fail_first: int = 0, fail_status: int = 503, ignore_range: bool = False,
                 wrong_bytes: Iterable[str] = (), slow: float = 0.0, slow_times: int | None = None,
                 send_length: bool = True, chunk_delay: float = 0.0):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.folder = Path(folder).resolve()
        self.cut_after = {name.lstrip("/"): count for name, count in (cut_after or {}).items()}
        self.cuts_left = {name: cut_times for name in self.cut_after}
        self.fails_left = fail_first
        self.fail_status = fail_status
        self.ignore_range = ignore_range
        self.wrong_bytes = {name.lstrip("/") for name in wrong_bytes}
        self.slow = slow
        self.slows_left = slow_times
        self.send_length = send_length
        self.chunk_delay = chunk_delay
        self.requests: list[tuple[str, str | None]] = []
        self.stopping = threading.Event()
        self.lock = threading.Lock()

    def handle_error(self, request, client_address):
        """A client that hung up (a time-out test, a refused size) is expected here, not worth a traceback."""
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)):
            super().handle_error(request, client_address)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/"

    def url_for(self, name: str) -> str:
        return self.url + name.lstrip("/")

    def requests_for(self, name: str) -> list[str | None]:
        """The Range headers of the requests for one file (None where there was none)."""
        path = "/" + name.lstrip("/")
        return [range_header for request_path, range_header in self.requests if request_path == path]

    # fault bookkeeping, under the lock: handlers run in parallel threads
    def take_failure(self) -> bool:
        with self.lock:
            if self.fails_left > 0:
                self.fails_left -= 1
                return True
            return False

    def take_slowness(self) -> float:
        with self.lock:
            if self.slow <= 0:
                return 0.0
            if self.slows_left is None:
                return self.slow
            if self.slows_left > 0:
                self.slows_left -= 1
                return self.slow
            return 0.0

    def take_cut(self, name: str) -> int | None:
        with self.lock:
            if self.cuts_left.get(name, 0) > 0:
                self.cuts_left[name] -= 1
                return self.cut_after[name]
            return None


class _Handler(BaseHTTPRequestHandler):
    server: LocalServer
    protocol_version = "HTTP/1.0"  # one request per connection: a cut is simply a closed socket

    def log_message(self, format, *args):  # quiet: pytest shows what matters
        pass

    def do_HEAD(self):
        self._answer(send_body=False)

    def do_GET(self):
        self._answer(send_body=True)

    def _answer(self, send_body: bool) -> None:
        server = self.server
        path = urlsplit(self.path).path
        range_header = self.headers.get("Range")
        with server.lock:
            server.requests.append((path, range_header))
        delay = server.take_slowness()
        if delay and server.stopping.wait(delay):
            return
        if server.take_failure():
            self._plain(server.fail_status, b"try again later\n")
            return
        name = unquote(path).lstrip("/")
        file = (server.folder / name).resolve()
        if not name or not file.is_relative_to(server.folder) or not file.is_file():
            self._plain(404, b"not found\n")
            return
        data = file.read_bytes()
        if name in server.wrong_bytes and data:
            middle = len(data) // 2
            data = data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1:]
        size = len(data)
        start, end, status = 0, size - 1, 200
        match = re.fullmatch(r"bytes=(\d+)-(\d*)", (range_header or "").strip())
        if match and not server.ignore_range:
            start = int(match.group(1))
            if start >= size:
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{size}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            end = min(int(match.group(2)), size - 1) if match.group(2) else size - 1
            status = 206
        body = data[start:end + 1]
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Accept-Ranges", "none" if server.ignore_range else "bytes")
        if server.send_length:
            self.send_header("Content-Length", str(len(body)))
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.end_headers()
        if not send_body:
            return
        cut = server.take_cut(name)
        if cut is not None:
            body = body[:cut]
        try:
            for offset in range(0, len(body), BODY_CHUNK):
                if server.chunk_delay and server.stopping.wait(server.chunk_delay):
                    return
                self.wfile.write(body[offset:offset + BODY_CHUNK])
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            return
        if cut is not None:
            self.close_connection = True

    def _plain(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def serve(folder: Path, **faults) -> Iterator[LocalServer]:
    """Serve `folder` on 127.0.0.1 at an ephemeral port for the `with` block; see the module docstring for faults."""
    server = LocalServer(Path(folder), **faults)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stopping.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


# ---- the real files -----------------------------------------------------------------------------------------------

def shared_datasets_folder() -> Path | None:
    """/work/shared/datasets seen from this checkout (../shared/datasets), else $SSSP_BENCH_SHARED_DATASETS."""
    candidates = [Path(__file__).resolve().parents[2] / "shared" / "datasets"]
    if os.environ.get("SSSP_BENCH_SHARED_DATASETS"):
        candidates.append(Path(os.environ["SSSP_BENCH_SHARED_DATASETS"]))
    return next((folder for folder in candidates if (folder / "README.md").is_file()), None)


@pytest.fixture(scope="session")
def shared_datasets() -> Path:
    folder = shared_datasets_folder()
    if folder is None:
        pytest.skip("the shared real-graph folder (../shared/datasets or $SSSP_BENCH_SHARED_DATASETS) is not here")
    return folder


def readme_sha256(folder: Path) -> dict[str, str]:
    """{file name: sha256} from the README's hash block (`<64 hex>  <name>` lines)."""
    text = (folder / "README.md").read_text(encoding="utf-8")
    return {name: digest for digest, name in re.findall(r"^\s*([0-9a-f]{64})\s+\*?(\S+)\s*$", text, re.MULTILINE)}
