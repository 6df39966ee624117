"""A privacy guarantee as a function of the number of steps (for ``account --plot``).

Each point is an independent call of :func:`otbound.accounting.accountant.compose` with the
step repeated ``T`` times, so every plotted value is as sound as the single ``account`` answer
at that ``T``; nothing is interpolated between the points of the grid.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Callable, Sequence

import numpy as np

from otbound.accounting.accountant import compose
from otbound.accounting.steps import Step
from otbound.choices import Accountant
from otbound.errors import InvalidSpecification, UnsupportedOperation

DEFAULT_POINTS = 12


def steps_grid(total: int, points: int = DEFAULT_POINTS) -> list[int]:
    """About ``points`` step counts from 1 to ``total``, evenly spaced on a log scale (both
    ends included, no repeats)."""
    if isinstance(total, bool) or not isinstance(total, (int, np.integer)) or total < 1:
        raise InvalidSpecification(f"count must be an integer >= 1, got {total!r}",
                                   parameter="count")
    if not 2 <= points <= 1000:
        raise InvalidSpecification(f"points must be in [2, 1000], got {points!r}",
                                   parameter="points")
    grid = np.unique(np.rint(np.geomspace(1, total, min(points, total))).astype(np.int64))
    return [int(count) for count in grid]


def account_over_steps(step: Step, counts: Sequence[int],
                       accountant: Accountant = Accountant.BEST, *,
                       progress: Callable[[str], None] | None = None,
                       **options) -> dict[str, list[float]]:
    """ε at ``delta`` (or δ at ``epsilon``: ``options`` are those of ``account``) after ``T``
    repetitions of ``step`` for each ``T`` in ``counts``, per accountant: both accountants'
    answers for ``best`` (NaN where one is unavailable), else the chosen one's."""
    wanted = "epsilon" if options.get("delta") is not None else "delta"
    curves: dict[str, list[float]] = {}
    for number, count in enumerate(counts):
        if progress:
            progress(f"[{number + 1}/{len(counts)}] T = {count}")
        answers = _answers(replace(step, count=count), accountant, wanted, options)
        for name, value in answers.items():
            curves.setdefault(name, [math.nan] * number).append(value)
        for values in curves.values():
            if len(values) == number:   # unavailable at this count only
                values.append(math.nan)
    return curves


def _answers(step: Step, accountant: Accountant, wanted: str,
             options: dict) -> dict[str, float]:
    try:
        guarantee = compose([step], accountant, **options)
    except UnsupportedOperation:
        return {}
    compared = guarantee.details.get("compared")
    if compared is None:
        return {guarantee.accountant.value: getattr(guarantee, wanted)}
    return {name: other[wanted] for name, other in compared.items() if wanted in other}
