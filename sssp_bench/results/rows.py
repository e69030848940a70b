"""A run's rows file (`rows.jsonl`, or `rows.jsonl.gz`) read into dicts, without pandas: `load` makes its frame
from them, and `run --costs-from` (run/shards.py) reads a run's per-source times from them, where importing pandas
would cost every shard's start-up about a second."""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path
from typing import Any

from ..errors import UserError
from .schema import PHASES, REQUIRED_ROW_FIELDS


def read_rows(rows_path: Path) -> tuple[list[dict[str, Any]], bool]:
    """Parsed rows and whether a partial last line (a crash mid-write) was dropped."""
    try:
        content = rows_path.read_bytes()
        if rows_path.name.endswith(".gz"):
            content = gzip.decompress(content)
    except (gzip.BadGzipFile, EOFError, zlib.error) as error:  # not gzip, cut short, or a bad checksum
        raise UserError(f"{rows_path}: damaged gzip file ({error})") from None
    except OSError as error:
        raise UserError(f"{rows_path}: cannot read ({error})") from None
    lines = content.decode(errors="replace").splitlines()
    numbered = [(number, line) for number, line in enumerate(lines, start=1) if line.strip()]
    records: list[dict[str, Any]] = []
    for position, (number, line) in enumerate(numbered):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            if position == len(numbered) - 1:
                return records, True
            raise UserError(f"{rows_path}:{number}: not valid JSON ({error.msg})") from None
        if not isinstance(record, dict):
            raise UserError(f"{rows_path}:{number}: expected a JSON object, got {type(record).__name__}")
        missing = [field for field in REQUIRED_ROW_FIELDS if record.get(field) is None]
        if missing:
            raise UserError(f"{rows_path}:{number}: row has no {missing[0]!r}")
        if record.get("phase") not in PHASES:
            raise UserError(f"{rows_path}:{number}: phase must be one of {', '.join(map(repr, PHASES))}, got "
                            f"{record['phase']!r}")
        records.append(record)
    return records, False
