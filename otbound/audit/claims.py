"""A published amplification bound as data: the claim, where it is claimed, and what to hold it to.

An audit entry is a Python file in ``audits/`` that defines ``CLAIM = otbound.audit.Claim(...)``.
The claim is a formula written from the paper's statement: ``claimed(point)`` gives the claimed
``ε(α)`` (an RDP curve), ``δ(ε)`` (a privacy profile) or ``ε(δ)`` at one point of its grid.
``reference(point)`` gives what otbound knows about the same quantity for the same setting: a
sound upper bound, and the exact divergence of a concrete construction (datasets and mechanism)
as a lower bound — equal, to the numerical error, where otbound's bound is tight.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from otbound.audit.domain import Domain, Point
from otbound.choices import Quantity
from otbound.errors import InvalidSpecification

TIGHT_BRACKET = 1e-8
"""Largest relative width of a reference's bracket for the exact value to count as known."""
SHOWN_COMMON = 10
"""Records common to a witness's two datasets listed one by one up to this many."""


@dataclass(frozen=True)
class Witness:
    """A construction as data: two neighbouring datasets (their records), how batches are drawn,
    the function ``f`` on batches, the mechanism, and the two output distributions."""

    x: tuple[str, ...]
    x_prime: tuple[str, ...]
    sampling: str
    function: str
    mechanism: str
    outputs: str
    source: str = ""
    """Which worst case the construction is (a derivation's case, a theorem)."""
    by_count: tuple[tuple[float | None, ...], tuple[float | None, ...]] | None = None
    """Where ``f`` depends only on how many of a side's own records (those the other side
    lacks) the batch holds: its values by that count (0, 1, …), on ``x``'s batches and on
    ``x'``'s; ``None`` for a count no batch has."""
    common: int = 0
    """How many records ``c1, c2, …`` both datasets hold besides those listed in ``x`` and
    ``x'`` (none where they change nothing, as under Poisson subsampling)."""

    def __str__(self) -> str:
        shared = ([f"c{i}" for i in range(1, self.common + 1)] if self.common <= SHOWN_COMMON
                  else ["c1", "…", f"c{self.common}"])

        def records(side: tuple[str, ...]) -> str:
            return "{" + ", ".join([*side, *shared]) + "}"
        return (f"x = {records(self.x)}, x' = {records(self.x_prime)} ({self.source}); "
                f"batches: {self.sampling}; f(y) = {self.function}; mechanism: {self.mechanism}; "
                f"outputs {self.outputs}")


@dataclass(frozen=True)
class Reference:
    """otbound's knowledge of the quantity at one point.

    ``upper`` is a sound upper bound (rounded up by its error). ``lower`` is a lower bound on the
    exact divergence of the ``witness`` construction (its computed value less its error), so no
    sound claim may lie below it; ``None`` when no construction is known. ``confirm``, if given,
    recomputes the witness's divergence independently (the high-precision oracle), to confirm an
    unsound verdict with a number that does not come from the fast path.
    """

    upper: float | None
    lower: float | None
    witness: Witness | str = ""
    confirm: Callable[[], float] | None = field(default=None, compare=False)
    published: str = ""
    """The published bound that ``upper`` is, where otbound's smallest bound at the point is
    one (e.g. Wang et al. 2019 Thm. 9, among the agnostic method's baselines): then ``upper``
    is not independent evidence that a claim is sound."""

    @property
    def tight(self) -> bool:
        """Whether the two ends meet (to 1e-8): the exact value is known."""
        if self.upper is None or self.lower is None:
            return False
        return self.upper - self.lower <= TIGHT_BRACKET * max(abs(self.upper), 1e-300)


@dataclass(frozen=True)
class Claim:
    """A published bound: its formula, setting, domain, citation and audit grid.

    ``domain`` is the claimed domain as data (:class:`~otbound.audit.domain.Domain`: the audit
    searches it for a violation), or in words only (not searched). ``points`` are points of
    the domain that seed the search and are reported one by one (each names every parameter
    ``claimed`` and ``reference`` read, including ``quantity.axis``); ``series`` names the
    parameters that tell the curves of one plot apart.
    """

    name: str
    title: str
    citation: str
    setting: str
    domain: Domain | str
    quantity: Quantity
    points: tuple[Point, ...]
    claimed: Callable[[Point], float]
    reference: Callable[[Point], Reference]
    series: tuple[str, ...] = ()
    note: str = ""
    attained: bool = False
    """The paper states the value as attained (an equality, such as 001 Thm. G.2), not only as
    an upper bound: a claim above an exact (tight) reference is then wrong, not merely loose."""
    path: str | None = field(default=None, compare=False)
    """The entry file that defines the claim (set when it is loaded from one)."""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name or any(c.isspace() for c in self.name):
            raise InvalidSpecification(f"a claim's name must be one word, got {self.name!r}",
                                       parameter="name")
        for role in ("claimed", "reference"):
            if not callable(getattr(self, role)):
                raise InvalidSpecification(
                    f"claim {self.name}: {role} must be a function of the point, got "
                    f"{getattr(self, role)!r}", parameter=role)
        if not isinstance(self.quantity, Quantity):
            raise InvalidSpecification(f"quantity must be a Quantity, got {self.quantity!r}",
                                       parameter="quantity")
        object.__setattr__(self, "points", tuple(dict(p) for p in self.points))
        if not self.points:
            raise InvalidSpecification(f"claim {self.name} has no points to audit",
                                       parameter="points")
        for point in self.points:
            if self.quantity.axis not in point:
                raise InvalidSpecification(f"claim {self.name}: the point {point} has no "
                                           f"{self.quantity.axis}", parameter="points")
            for key, value in point.items():
                if not (isinstance(value, (int, float)) and math.isfinite(value)):
                    raise InvalidSpecification(f"claim {self.name}: parameter {key} must be a "
                                               f"finite number, got {value!r}",
                                               parameter="points")
            if isinstance(self.domain, Domain) and not self.domain.contains(point):
                raise InvalidSpecification(f"claim {self.name}: the point {point} is outside "
                                           f"its domain ({self.domain.text})",
                                           parameter="points")

    @property
    def domain_text(self) -> str:
        return self.domain if isinstance(self.domain, str) else self.domain.text

    @property
    def where(self) -> str:
        """The entry's name, and its file where known (for messages)."""
        return f"audit entry {self.name!r}" + (f" ({self.path})" if self.path else "")


def grid(**axes) -> tuple[dict, ...]:
    """Every combination of the given values: ``grid(rate=[0.01, 0.1], alpha=[2, 8])``."""
    points: list[dict] = [{}]
    for name, values in axes.items():
        points = [{**point, name: value} for point in points for value in values]
    return tuple(points)
