"""How a number reads wherever results are written as text: the report's tables, the terminal, and the
requirement a claim states in claims.csv ("at least 50% of the floor"), so all of them agree."""

from __future__ import annotations

import math
from typing import Any


def format_number(value: Any, unit: str = "") -> str:
    """A short human number (3-4 significant digits), or "-" for a missing one."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    value = float(value)
    magnitude = abs(value)
    if magnitude >= 100:
        text = f"{value:.0f}"
    elif magnitude >= 10:
        text = f"{value:.1f}"
    elif magnitude >= 1:
        text = f"{value:.2f}"
    elif magnitude == 0:
        text = "0"
    else:
        text = f"{value:.3g}"
    return text + unit


def format_percent(fraction: Any) -> str:
    """A fraction as a short percentage ("42%", "3.1%", "0.52%"), or "" (blank) for a missing one."""
    if fraction is None or (isinstance(fraction, float) and not math.isfinite(fraction)):
        return ""
    value = float(fraction) * 100
    if abs(value) >= 10:
        return f"{value:.0f}%"
    if abs(value) >= 1:
        return f"{value:.1f}%"
    return f"{value:.2g}%"
