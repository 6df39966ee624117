"""Searching a claim's domain for the point where it falls furthest below a construction.

The objective is ``claim / lower`` (:attr:`Reference.lower`: a construction's divergence less its
error): below 1 the claim is violated. The search is deterministic and works in the domain's
unit cube (log coordinates for parameters that span decades):

1. **seeds** — the grid's points, already judged, with their ratios;
2. **exploration** — a scrambled Sobol sequence (seeded by the claim's name) over the domain,
   points that break a stated condition skipped without an evaluation;
3. **descent** — a compass search (each coordinate ± a step, the step halved when no move
   helps) from the best few points found;
4. **shrinking** — a violation found is moved to a simple point (each parameter rounded to as
   few significant digits as keep at least half the violation, ``−log`` of the ratio), as
   Hypothesis shrinks an example, so that the witness reads as a setting a person would write
   down.

The budget (:attr:`Domain.budget`) counts evaluations of the reference, seeds not counted.
Only the final witness goes through the high-precision oracle
(:func:`otbound.audit.verdict.judge_point`).
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from typing import Callable


from otbound.audit.domain import Domain, Point
from otbound.errors import required

Objective = Callable[[Point], float | None]
"""``claim / lower`` at a point, ``None`` where no construction is known."""

STARTS = 3
"""Points the descent starts from."""
SMALLEST_STEP = 2.0 ** -9
"""The descent stops when its step (in unit coordinates) is below this."""


@dataclass(frozen=True)
class SearchOutcome:
    """What the search saw: how many points it evaluated, and the smallest ratio and where."""

    evaluations: int
    smallest: float | None
    at: dict | None

    @property
    def violated(self) -> bool:
        return self.smallest is not None and self.smallest < 1 - VIOLATION

    def text(self) -> str:
        if self.smallest is None:
            return f"{self.evaluations} evaluations, no construction to compare with"
        at = required(self.at, "the point of the smallest ratio")   # set with smallest
        shown = ", ".join(f"{k} = {v:g}" for k, v in at.items())
        return (f"{self.evaluations} evaluations over the domain, smallest ratio claim / "
                f"construction {self.smallest:.6g} at {shown}")


VIOLATION = 1e-4
"""A ratio below ``1 − VIOLATION`` is a violation the search reports: far beyond the error of a
claim evaluated in double precision where the divergences are tiny (1e-8 relative at
ε ≈ 1e-9; the grid's points are judged at 1e-9, as the verdict is)."""


def search_domain(name: str, domain: Domain, objective: Objective,
                  seeds: list[tuple[dict, float | None]]) -> SearchOutcome:
    """The smallest ``objective`` found over ``domain`` within its budget (see the module's
    steps), its point shrunk to a simple one where it is a violation."""
    state = _State(domain, objective, domain.budget)
    for point, ratio in seeds:
        state.record(dict(point), ratio)
    state.explore(zlib.crc32(name.encode()))
    for start in state.starts(STARTS):
        state.descend(start)
    best_point, best = state.best
    if best is not None and best < 1 - VIOLATION:
        state.budget = state.evaluations + 3 * len(domain.parameters)   # the shrinking's own
        best_point, best = state.shrink(required(best_point, "the point of the smallest ratio"),
                                        best)
    return SearchOutcome(state.evaluations, best, best_point)


class _State:
    """The points seen so far (``unit`` coordinates → ratio) and the budget left."""

    def __init__(self, domain: Domain, objective: Objective, budget: int):
        self.domain, self.objective, self.budget = domain, objective, budget
        self.seen: dict[tuple, tuple[dict, float | None]] = {}
        self.evaluations = 0

    def record(self, point: dict, ratio: float | None) -> None:
        self.seen[self._key(point)] = (point, ratio)

    def _key(self, point: dict) -> tuple:
        return tuple(point[name] for name in self.domain.names)

    def ratio(self, point: dict) -> float | None:
        """The objective at ``point`` (``None`` outside the domain or without a
        construction), evaluated once and counted against the budget."""
        key = self._key(point)
        if key in self.seen:
            return self.seen[key][1]
        if not self.domain.contains(point) or self.evaluations >= self.budget:
            return None
        self.evaluations += 1
        ratio = self.objective(point)
        self.record(point, ratio)
        return ratio

    @property
    def best(self) -> tuple[dict | None, float | None]:
        found = [(point, ratio) for point, ratio in self.seen.values() if ratio is not None]
        return min(found, key=lambda entry: entry[1], default=(None, None))

    def explore(self, seed: int) -> None:
        from scipy.stats import qmc

        dimension = len(self.domain.parameters)
        sampler = qmc.Sobol(dimension, scramble=True, seed=seed)
        share = self.budget // 2
        for unit in sampler.random_base2(math.ceil(math.log2(16 * share))):
            if self.evaluations >= share:
                break
            self.ratio(self.domain.point(unit))

    def starts(self, count: int) -> list[dict]:
        found = sorted((ratio, i) for i, (_, ratio) in enumerate(self.seen.values())
                       if ratio is not None)
        points = [point for point, _ in self.seen.values()]
        return [points[i] for _, i in found[:count]]

    def descend(self, point: dict) -> None:
        """Compass search from ``point``: each coordinate moved by ± ``step`` (at least to the
        next value of a discrete parameter), a move that breaks a condition repaired by one
        step of a discrete parameter (a stated condition often ties a continuous parameter
        to an integer one: Abadi et al.'s ``λ ≤ σ² ln(1/(qσ))``); the step halves when no
        move improves."""
        # a start has a ratio (:meth:`starts`)
        current, value = point, required(self.seen[self._key(point)][1], "the start's ratio")
        step = 0.125
        while step >= SMALLEST_STEP and self.evaluations < self.budget:
            moved = False
            for index in range(len(self.domain.parameters)):
                for sign in (-1, 1):
                    for candidate in self._moves(current, index, sign * step):
                        ratio = self.ratio(candidate)
                        if ratio is not None and ratio < value:
                            current, value, moved = candidate, ratio, True
                            break
                    if moved:
                        break
            if not moved:
                step /= 2

    def _moves(self, point: dict, index: int, step: float) -> list[dict]:
        """``point`` with parameter ``index`` moved by ``step``; if that breaks a condition,
        the same move with one discrete parameter moved by one value either way."""
        moved = self._moved(point, index, step)
        if moved is None or self.domain.contains(moved):
            return [] if moved is None else [moved]
        repairs = [self._moved(moved, other, sign * SMALLEST_STEP)
                   for other, parameter in enumerate(self.domain.parameters)
                   if other != index and parameter.discrete for sign in (-1, 1)]
        return [r for r in repairs if r is not None and self.domain.contains(r)]

    def _moved(self, point: dict, index: int, step: float) -> dict | None:
        parameter = self.domain.parameters[index]
        value = point[parameter.name]
        moved: float | None = parameter.value(parameter.unit(value) + step)
        if parameter.discrete and moved == value:
            moved = parameter.next(value, step > 0)
        if moved is None or moved == value:
            return None
        return {**point, parameter.name: moved}

    def shrink(self, point: dict, ratio: float) -> tuple[dict, float]:
        """``point`` with each parameter rounded to the fewest significant digits (1 to 3)
        that keep at least half the violation, measured as ``−log ratio``."""
        keep = math.sqrt(ratio) if ratio > 0 else 0.0
        for parameter in self.domain.parameters:
            for digits in (1, 2, 3):
                value = _significant(point[parameter.name], digits)
                if value == point[parameter.name]:
                    break
                candidate = {**point, parameter.name: value}
                found = self.ratio(candidate)
                if found is not None and found < keep:
                    point, ratio = candidate, found
                    break
        return point, ratio


def _significant(value: float, digits: int) -> float:
    """``value`` rounded to ``digits`` significant digits."""
    if value == 0 or not math.isfinite(value):
        return value
    return float(f"{value:.{digits}g}")
