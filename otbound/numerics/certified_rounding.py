"""The ground the certified enclosures stand on (issue 14 item 1): python-flint's arb imported on
first use, a scoped working precision, the widths sought, and balls turned into doubles rounded
outwards (an interval of doubles that contains every point of the ball).
"""

from __future__ import annotations

import contextlib
import math
from typing import Iterator

TARGET_BITS = 40
"""Relative width sought for every enclosure (about 1e-12; 2^{8−TARGET_BITS} is accepted)."""
MAX_PRECISION = 4096
"""The largest working precision (bits) tried before an enclosure is returned as it is."""


def _flint():
    """python-flint (a core dependency), imported on first use: the CLI's start-up must not
    load it."""
    import flint

    return flint


@contextlib.contextmanager
def _precision(bits: int) -> Iterator[None]:
    ctx = _flint().ctx
    saved = ctx.prec
    ctx.prec = bits
    try:
        yield
    finally:
        ctx.prec = saved


# --- results as doubles ---------------------------------------------------------------------

def double_below(x) -> float:
    """The largest double certainly at or below every point of the ball ``x``."""
    arb = _flint().arb
    value = float(x.lower())
    for _ in range(8):
        if math.isnan(value) or arb(value) <= x:
            break
        value = math.nextafter(value, -math.inf)
    else:
        return -math.inf
    return -math.inf if math.isnan(value) else value


def double_above(x) -> float:
    """The smallest double certainly at or above every point of the ball ``x``."""
    arb = _flint().arb
    value = float(x.upper())
    for _ in range(8):
        if math.isnan(value) or arb(value) >= x:
            break
        value = math.nextafter(value, math.inf)
    else:
        return math.inf
    return math.inf if math.isnan(value) else value


def _interval(low, high, floor: float = 0.0) -> tuple[float, float]:
    """``(lower, upper)`` doubles around the balls' hull; quantities ≥ ``floor`` are clamped."""
    return max(double_below(low), floor), max(double_above(high), floor)


def _relative_width(low, high) -> float:
    hi = double_above(high)
    lo = max(double_below(low), 0.0)
    if hi == 0:
        return 0.0
    return (hi - lo) / hi if math.isfinite(hi) else math.inf
