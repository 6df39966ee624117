"""A claim's domain as data: its parameters, their ranges, and the conditions the paper states.

The audit searches the domain for the point where a claim falls furthest below a construction
(:mod:`otbound.audit.search`), so the domain must say exactly what the paper allows: each
parameter's range (integer or real, searched on a log or a linear scale) and every stated
condition that ties parameters together (e.g. Abadi et al.'s ``q < 1/(16σ)``). A condition is
a predicate with the words that state it; a range end the paper leaves open (``q ∈ (0, 1)``)
is given as the closest value the search should reach (say ``1e-6``), and :attr:`Domain.text`
shows the box searched.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np

from otbound.errors import InvalidSpecification

Point = Mapping[str, float]
"""One point of a claim's grid or domain: parameter name → value."""


@dataclass(frozen=True)
class Span:
    """The range of one parameter of a claim: ``low ≤ value ≤ high``, an integer if
    ``integer``, searched on a log scale if ``log`` (positive ranges spanning decades), else
    linearly; or one of ``values`` (a finite set, searched in its order)."""

    name: str
    low: float
    high: float
    integer: bool = False
    log: bool = True
    values: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if not (math.isfinite(self.low) and math.isfinite(self.high) and self.low <= self.high):
            raise InvalidSpecification(f"parameter {self.name}: its range must be finite with "
                                       f"low ≤ high, got [{self.low}, {self.high}]",
                                       parameter="domain")
        if self.log and self.low <= 0:
            raise InvalidSpecification(f"parameter {self.name}: a log scale needs low > 0, got "
                                       f"{self.low}", parameter="domain")

    def value(self, unit: float) -> float:
        """The value at ``unit ∈ [0, 1]`` of the range (rounded to an integer if one)."""
        unit = min(max(unit, 0.0), 1.0)
        if self.values:
            return self.values[round(unit * (len(self.values) - 1))]
        if unit in (0.0, 1.0):
            return self.high if unit else self.low
        if self.log:
            value = math.exp(math.log(self.low) + unit * math.log(self.high / self.low))
        else:
            value = self.low + unit * (self.high - self.low)
        if self.integer:
            value = float(min(max(round(value), math.ceil(self.low)), math.floor(self.high)))
        return min(max(value, self.low), self.high)

    def unit(self, value: float) -> float:
        """Where ``value`` lies in the range, in ``[0, 1]``."""
        if self.values:
            return self.values.index(value) / max(len(self.values) - 1, 1)
        if self.high == self.low:
            return 0.0
        if self.log:
            return math.log(value / self.low) / math.log(self.high / self.low)
        return (value - self.low) / (self.high - self.low)

    @property
    def discrete(self) -> bool:
        return self.integer or bool(self.values)

    def next(self, value: float, up: bool) -> float | None:
        """The discrete parameter's next value above (``up``) or below ``value``, if any."""
        if self.values:
            index = self.values.index(value) + (1 if up else -1)
            return self.values[index] if 0 <= index < len(self.values) else None
        moved = value + (1 if up else -1)
        return moved if self.low <= moved <= self.high else None

    def contains(self, value: float) -> bool:
        if self.values:
            return value in self.values
        return (self.low <= value <= self.high
                and (not self.integer or float(value).is_integer()))

    @property
    def text(self) -> str:
        if self.values:
            return f"{self.name} ∈ {{{', '.join(f'{v:g}' for v in self.values)}}}"
        kind = "integer " if self.integer else ""
        return f"{kind}{self.name} ∈ [{self.low:g}, {self.high:g}]"


def real(name: str, low: float, high: float, log: bool = True) -> Span:
    """A real parameter in ``[low, high]``, searched on a log scale (linearly with
    ``log=False``)."""
    return Span(name, low, high, integer=False, log=log)


def integer(name: str, low: int, high: int, log: bool = True) -> Span:
    """An integer parameter in ``[low, high]``, searched on a log scale (linearly with
    ``log=False``)."""
    return Span(name, low, high, integer=True, log=log)


def choice(name: str, *values: float) -> Span:
    """One of finitely many values (e.g. group sizes ``2^c``), searched in the given order."""
    return Span(name, min(values), max(values), log=False,
                     values=tuple(float(v) for v in values))


def fixed(name: str, value: float) -> Span:
    """A parameter the claim reads but the audit holds at one value."""
    return choice(name, value)


@dataclass(frozen=True)
class Condition:
    """A stated condition on the parameters: its words and a predicate."""

    text: str
    holds: Callable[[Point], bool]


@dataclass(frozen=True)
class Domain:
    """The parameters a claim is stated for and the conditions that restrict them; ``stated``
    is the paper's own wording (shown beside the box searched); ``budget`` the evaluations of
    the reference the search may spend (fewer where one evaluation is slow)."""

    parameters: tuple[Span, ...]
    conditions: tuple[Condition, ...] = ()
    stated: str = ""
    budget: int = 80

    def __post_init__(self) -> None:
        object.__setattr__(self, "parameters", tuple(self.parameters))
        object.__setattr__(self, "conditions", tuple(self.conditions))
        names = [p.name for p in self.parameters]
        if not names or len(set(names)) != len(names):
            raise InvalidSpecification(f"a domain needs parameters with distinct names, got "
                                       f"{names}", parameter="domain")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.parameters)

    def point(self, unit: np.ndarray) -> dict[str, float]:
        """The point at ``unit ∈ [0, 1]^d`` (one coordinate per parameter)."""
        return {p.name: p.value(float(u)) for p, u in zip(self.parameters, unit)}

    def unit(self, point: Point) -> np.ndarray:
        return np.array([p.unit(point[p.name]) for p in self.parameters])

    def contains(self, point: Point) -> bool:
        """Whether ``point`` has every parameter in range and meets every condition."""
        if any(p.name not in point or not p.contains(point[p.name]) for p in self.parameters):
            return False
        return all(condition.holds(point) for condition in self.conditions)

    @property
    def text(self) -> str:
        searched = "; ".join([", ".join(p.text for p in self.parameters)]
                             + [c.text for c in self.conditions])
        return f"{self.stated} (searched: {searched})" if self.stated else searched
