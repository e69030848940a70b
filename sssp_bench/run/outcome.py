"""What a run is called and what it gives back: light, so that a `run --workers` coordinator, which runs no solve
itself, starts its workers without importing the runner first (pool.py; the workers import it while their CUDA
contexts are made)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from .config import Config


@dataclass
class RunOutcome:
    run_dir: Path
    statuses: Counter = field(default_factory=Counter)
    not_loaded: dict[str, str] = field(default_factory=dict)  # graph label -> why it could not be loaded

    @property
    def wrong_answers(self) -> int:
        return self.statuses["wrong_answer"]


def new_run_id(config: Config, output: Path) -> str:
    """The config's name and the UTC time, with a suffix where `output` already holds that folder."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    run_id, suffix = f"{config.name}-{stamp}", 1
    while (output / run_id).exists():
        suffix += 1
        run_id = f"{config.name}-{stamp}-{suffix}"
    return run_id
