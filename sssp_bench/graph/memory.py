"""Whether a graph of a declared size can be built here: checked before anything of that size is allocated.

A graph file's header says how many vertices and arcs it holds (`p sp n m`, a METIS header, a Matrix Market size
line) and a generator spec says how big a graph it makes; a 33-byte file may declare two billion vertices. The
parser or generator would allocate for that size and the kernel would kill the process without a word (or, under
`ulimit -v`, numpy would raise deep inside). So the size is checked first, against the memory there is:

    needed = 24 bytes per vertex (the CSR's int64 row offsets, and the degrees and count rows that build them)
           + per arc: its target (4), its source while the CSR is built (4) and its weight (4 or none)

That is a lower bound on the conversion's peak (cleaning, Matrix Market's duplicate check and the Table 1 facts
take more), so a graph it refuses could not have been built, and one it lets through may still fail later,
where `ran_out` turns numpy's MemoryError into one line.

Available memory is the least of: MemAvailable (/proc/meminfo), what the cgroup (a container, a Slurm job) still
allows (memory.max - memory.current, cgroup v2), and the address space `ulimit -v` leaves this process. The
environment variable SSSP_BENCH_MEMORY_LIMIT overrides it: a size in bytes (`16G`, `512M` and `1.5T` too), or
`none` to skip the check.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..errors import UserError
from ..progress import format_size

MEMORY_LIMIT_VARIABLE = "SSSP_BENCH_MEMORY_LIMIT"
BYTES_PER_VERTEX = 24  # int64 row offsets, degrees and (at least one chunk of) count rows while the CSR is built
BYTES_PER_ARC_ID = 4  # an int32 vertex id (a target, or a source while the CSR is built)
_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?", re.IGNORECASE)
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
_MEMINFO = Path("/proc/meminfo")
_CGROUP = Path("/sys/fs/cgroup")


def graph_bytes(n: int, arcs: int, weight_bytes: int = 4, with_sources: bool = True) -> int:
    """The least memory a graph of `n` vertices and `arcs` arcs takes to build (see the module docstring):
    `weight_bytes` 0 when it is unweighted, `with_sources` False when its arcs come row by row (METIS)."""
    per_arc = BYTES_PER_ARC_ID * (2 if with_sources else 1) + weight_bytes
    return BYTES_PER_VERTEX * (n + 1) + per_arc * arcs


def parse_size(text: str) -> int | None:
    """'16G' -> 17179869184, '512M', '1.5T', '123' (bytes); None for anything else."""
    match = _SIZE.fullmatch(text.strip())
    if match is None:
        return None
    return int(float(match.group(1)) * _UNITS[match.group(2).upper()])


def available_memory() -> tuple[int | None, str]:
    """(bytes this process may still allocate, where that number comes from); (None, why) when unlimited or
    unknown (not Linux), when nothing is checked."""
    override = os.environ.get(MEMORY_LIMIT_VARIABLE)
    if override is not None and override.strip():
        if override.strip().lower() == "none":
            return None, f"{MEMORY_LIMIT_VARIABLE}=none"
        limit = parse_size(override)
        if limit is None:
            raise UserError(f"{MEMORY_LIMIT_VARIABLE}={override!r}: expected a size in bytes (e.g. 16G, 512M, "
                            "1.5T, 4000000000) or 'none'")
        return limit, f"{MEMORY_LIMIT_VARIABLE}={override.strip()}"
    found = [(amount, source) for amount, source in (_meminfo_available(), _cgroup_room(), _address_space_room())
             if amount is not None]
    if not found:
        return None, "no memory limit known on this system"
    return min(found)


def check_fits(what: str, needed: int) -> None:
    """Refuse in one line when `needed` bytes are more than this process may still allocate. `what` starts the
    message: the file (and line) or spec, and the sizes it declares."""
    available, source = available_memory()
    if available is None or needed <= available:
        return
    raise UserError(f"{what}: building it takes at least {format_size(needed)}, but {format_size(available)} "
                    f"is available ({source}); nothing was allocated. Set {MEMORY_LIMIT_VARIABLE}=<bytes> (or none) "
                    "to check against another amount")


def ran_out(what: str, error: MemoryError) -> UserError:
    """A MemoryError met while building `what`, as the one-line error the user sees."""
    detail = f" ({error})" if str(error) else ""
    available, source = available_memory()
    have = f"; {format_size(available)} was available ({source})" if available is not None else ""
    return UserError(f"{what}: ran out of memory while building the graph{detail}{have}")


def _meminfo_available() -> tuple[int | None, str]:
    try:
        text = _MEMINFO.read_text()
    except OSError:
        return None, ""
    match = re.search(r"^MemAvailable:\s+(\d+)\s+kB", text, re.MULTILINE)
    return (int(match.group(1)) * 1024 if match else None), "MemAvailable in /proc/meminfo"


def _cgroup_room() -> tuple[int | None, str]:
    """memory.max - memory.current of this process's cgroup (v2), when it has a limit."""
    try:
        relative = next(line.split("::", 1)[1].strip() for line in Path("/proc/self/cgroup").read_text().splitlines()
                        if line.startswith("0::"))
        folder = _CGROUP / relative.lstrip("/")
        limit = (folder / "memory.max").read_text().strip()
        if limit == "max":
            return None, ""
        used = int((folder / "memory.current").read_text().strip())
    except (OSError, StopIteration, ValueError):
        return None, ""
    return max(int(limit) - used, 0), f"the cgroup's memory.max, {format_size(int(limit))}"


def _address_space_room() -> tuple[int | None, str]:
    """What `ulimit -v` (RLIMIT_AS) leaves of this process's address space."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, OSError, ValueError):
        return None, ""
    if soft == resource.RLIM_INFINITY:
        return None, ""
    try:
        status = Path("/proc/self/status").read_text()
        match = re.search(r"^VmSize:\s+(\d+)\s+kB", status, re.MULTILINE)
        used = int(match.group(1)) * 1024 if match else 0
    except OSError:
        used = 0
    return max(soft - used, 0), f"ulimit -v, {format_size(soft)} of address space"


def spec_size(spec: str) -> tuple[int, int]:
    """(vertices, arcs) of the graph a generator spec makes, from its parameters alone: exact where the generator
    fixes them, its expected count where it draws them, a lower bound where neither (forest-fire: one arc per
    vertex at least). Parameters no formula here knows give (their n, 0): nothing refused."""
    from .generators import parse_spec

    kind, p = parse_spec(spec)
    both_ways = 1 if p.get("directed", True) else 2
    n = int(p.get("n", 0))
    if kind in ("random", "rmat"):
        return n, p["m"]
    if kind == "kron":
        n = 2 ** p["scale"]
        return n, p["edgefactor"] * n * both_ways
    if kind == "grid":
        return p["rows"] * p["cols"], 2 * (p["rows"] * (p["cols"] - 1) + (p["rows"] - 1) * p["cols"])
    if kind in ("chain", "star", "forest-fire"):
        return n, max(n - 1, 0) * both_ways
    if kind == "da2cf-race":
        return n, 2 * max(n - 2, 0)
    if kind == "complete":
        return n, n * (n - 1)
    if kind in ("dag", "fixed-degree"):
        return n, n * p["degree"]
    if kind == "communities":
        return n, int(n * (p["intra_degree"] + p["inter_degree"]))
    if kind == "road":
        return n, int(n * p["degree"])
    if kind == "mesh":
        nodes, dofs = p["nx"] * p["ny"] * p["nz"], p["dofs"]
        return nodes * dofs, nodes * (p["neighbours"] * dofs * dofs + dofs * (dofs - 1))
    if kind == "small-world":
        return n, 2 * n * p["k"]
    return n, 0


def check_spec_fits(spec: str) -> None:
    """Refuse, in one line and before generating, a generator spec whose graph cannot be built in the memory
    there is (int32 weights, arcs built row by row: the least any generator needs)."""
    n, arcs = spec_size(spec)
    check_fits(f"generator spec {spec!r}: n={n:,} vertices and {arcs:,} arcs", graph_bytes(n, arcs, 4, False))
