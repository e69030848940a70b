"""The JSON files sssp-bench keeps (graph sidecars, run manifests, source and hash caches), and the same atomic
write for its other small text files (write_text_atomic: compare's CSV).

Written atomically: to a temporary name in the same folder, then renamed over the target, so a crash never
leaves half a file. Read with one-line errors naming the file and the line. numpy values and paths are
written as plain JSON.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from .errors import UserError


def to_json_value(value: Any) -> Any:
    """`json.dumps(default=...)`: numpy scalars and arrays as Python values, paths as strings."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON-serialisable: {type(value).__name__}")


def dumps(data: Any, **options: Any) -> str:
    return json.dumps(data, default=to_json_value, **options)


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    """`text` written to a temporary name beside `path`, then renamed over it (the temporary is removed when
    writing fails): never half a file."""
    path = Path(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(text)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return path


def write_json_atomic(path: str | os.PathLike, data: Any, *, indent: int | None = 2, sort_keys: bool = False) -> Path:
    return write_text_atomic(path, dumps(data, indent=indent, sort_keys=sort_keys) + "\n")


def read_json(path: str | os.PathLike, error: type[UserError] = UserError, hint: str = "") -> Any:
    """The file's JSON; a file that is not valid JSON raises `error` naming the file and line (plus `hint`)."""
    path = Path(path)
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as bad:
        raise error(f"{path}:{bad.lineno}: not valid JSON ({bad.msg}){hint}") from None
    except (OSError, UnicodeDecodeError) as unreadable:
        raise error(f"{path}: cannot read ({unreadable}){hint}") from None
