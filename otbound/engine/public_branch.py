"""Public branches: a scheme conditioned on a latent variable that both datasets share.

Seed 002 Sec. 3.1. Some schemes draw a latent variable ``T`` before the batch whose law is the
same on ``x`` and ``x'`` because it depends on the shared background records only (truncated
Poisson: ``T = [|S ∩ background| ≥ B]``, the background alone fills the batch). Releasing ``T``
can only enlarge a divergence, and joint convexity gives

    Ψ(m_x ‖ m_{x'}) ≤ Σ_t P(T = t) Ψ(m_x | T = t ‖ m_{x'} | T = t),

a *public mixture* of branches. Each branch is an ordinary case of 001 Thm. 3.4 under the
conditioned scheme :class:`GivenBranch`, with its own events and coupling, checked like any other
case. What is particular to a branch is checked by :func:`branch_failures` on every instance of
the grid, exactly: ``P(T = t)`` is the same on both datasets and equals its closed form, and the
event probabilities within the branch equal the closed forms the bound is stated in.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Iterator, Mapping, Protocol, runtime_checkable

import sympy as sp

from otbound.engine import symbols
from otbound.engine.batches import Batch, Content
from otbound.engine.binomial_tail import BinomialTail
from otbound.engine.conditionals import ConcreteConditionals, SymbolicConditionals
from otbound.engine.derivation_spec import Derivation, PublicBranch
from otbound.engine.schemes import Scheme, SetScheme, as_fraction, as_parameter
from otbound.errors import InternalError, InvalidSpecification, UnsupportedOperation


@runtime_checkable
class Branched(Protocol):
    """A scheme with a public latent variable ``T``: the joint law of ``T`` and the batch."""

    def branch_pmf(self, dataset: frozenset) -> Mapping[object, dict[Batch, Fraction]]:
        """For each value of ``T``, the probability of ``T`` and every batch, jointly."""


@dataclass(frozen=True)
class GivenBranch(Scheme):
    """``base`` conditioned on its latent taking ``value``; ``inclusion`` is the probability
    that a given special record is in the batch within the branch (a closed form, or a symbol
    the derivation defines)."""

    base: Scheme
    value: object
    name: str
    inclusion: sp.Expr

    def __post_init__(self) -> None:
        if not callable(getattr(self.base, "branch_pmf", None)):
            raise InvalidSpecification(f"{self.base.describe()} has no public latent variable "
                                       "(a scheme needs a branch_pmf method to be branched)")
        object.__setattr__(self, "inclusion", as_parameter(self.inclusion, "inclusion"))

    def describe(self) -> str:
        return f"{self.base.describe()}, given {self.name}"

    def _joint(self, dataset: frozenset) -> dict[Batch, Fraction]:
        """The law of the batch jointly with ``T = value`` on ``dataset``."""
        if not isinstance(self.base, Branched):   # checked in __post_init__
            raise InternalError(f"{self.base.describe()} has no branch_pmf method")
        return self.base.branch_pmf(dataset)[self.value]

    def branch_probability(self, dataset: frozenset) -> Fraction:
        """``P(T = value)`` on ``dataset``, exactly."""
        return sum(self._joint(dataset).values(), Fraction(0))

    def pmf(self, dataset: frozenset) -> dict[Batch, Fraction]:
        """The batch's law given the branch (empty when the branch has probability zero)."""
        joint = self._joint(dataset)
        total = sum(joint.values(), Fraction(0))
        return {y: p / total for y, p in joint.items() if p} if total else {}

    def content_mass(self, content: Content, n: sp.Expr, size: sp.Expr) -> sp.Expr:
        specials = sp.simplify(size - n)
        if specials not in (0, 1):
            raise UnsupportedOperation(f"{self.describe()}: the chance of two special records "
                                       "together in a branch's batch has no closed form here")
        return self.inclusion if content.size else 1 - specials * self.inclusion

    def type_mass(self, content: Content, m: sp.Expr, n: sp.Expr, size: sp.Expr) -> sp.Expr:
        raise UnsupportedOperation(f"{self.describe()}: no symbolic batch-type masses; the "
                                   "branch is checked on the instances of the grid")

    def background_count(self, content: Content) -> sp.Expr | None:
        return None

    def contents(self, specials: frozenset) -> Iterator[Content]:
        return self.base.contents(specials)

    def batch_sizes(self, size: int) -> range:
        if not isinstance(self.base, SetScheme):
            raise UnsupportedOperation(f"{self.base.describe()} has no batch sizes")
        return self.base.batch_sizes(size)

    def substitute(self, values: Mapping[sp.Symbol, object]) -> "GivenBranch":
        exact = {k: as_parameter(v, str(k)) for k, v in values.items()}
        return replace(self, base=self.base.substitute(values),
                       inclusion=self.inclusion.subs(exact))

    def parameters(self) -> dict[str, sp.Expr]:
        return self.base.parameters()


def branch_failures(derivation: Derivation, branch: PublicBranch) -> tuple[list[str], int]:
    """Exact checks of what the bound assumes of one branch, on every instance of the grid:
    the branch has the same probability on ``x`` and ``x'``, equal to its closed form, and each
    event's probability within it equals the closed form. The failures and the number of
    instances checked."""
    failures, checked = [], 0
    for case in branch.cases:
        symbolic = SymbolicConditionals(case, branch.scheme).probability
        offset = case.size_offset(derivation.size_reference)
        for size in derivation.grid.sizes:
            if size < offset:
                continue
            for values in derivation.grid.parameters:
                where = ", ".join([f"N = {size}"] + [f"{k} = {v}" for k, v in values.items()])
                found = _instance_failures(derivation, branch, case, symbolic, values, size,
                                           size - offset)
                checked += found is not None
                failures += [f"branch {branch.label}, case {case.pair.name}, at {where}: {f}"
                             for f in found or ()]
    return failures, checked


def _instance_failures(derivation: Derivation, branch: PublicBranch, case, symbolic: dict,
                       values: Mapping, size: int, background_size: int) -> list[str] | None:
    """The failures on one instance (``None`` when the scheme is undefined there)."""
    if not isinstance(branch.scheme, GivenBranch):
        raise InvalidSpecification(f"branch {branch.label}: its scheme must be a GivenBranch, "
                                   f"got {type(branch.scheme).__name__}")
    try:
        scheme = branch.scheme.substitute(values)
        x, x_prime = case.pair.datasets(background_size)
        on_x, on_x_prime = scheme.branch_probability(x), scheme.branch_probability(x_prime)
    except InvalidSpecification:
        return None
    point = defined_values(derivation, values, size)
    failures = []
    if on_x != on_x_prime:
        failures.append(f"the branch has probability {on_x} on x but {on_x_prime} on x' (not "
                        "a public latent)")
    weight = _exact(branch.weight, point)
    if on_x != weight:
        failures.append(f"the branch has probability {on_x}, its closed form {branch.weight} "
                        f"gives {weight}")
    if on_x == 0:
        return failures
    conditionals = ConcreteConditionals(case, scheme, background_size)
    for label, expected in symbolic.items():
        value = _exact(expected, point)
        if conditionals.probability[label] != value:
            failures.append(f"P({label}) is {conditionals.probability[label]} in the branch, "
                            f"its closed form {expected} gives {value}")
    return failures


def defined_values(derivation: Derivation, values: Mapping[sp.Symbol, object],
                   size: int) -> dict[sp.Symbol, sp.Expr]:
    """The grid point, ``N``, and every symbol the derivation defines by a closed form, exactly
    (a symbol whose closed form is undefined there, such as a ratio 0/0, is left out)."""
    point = {**{k: as_parameter(v, str(k)) for k, v in values.items()},
             symbols.N: sp.Integer(size)}
    for symbol, closed_form in derivation.definitions.items():
        value = evaluated(closed_form, point)
        if value.is_Rational:
            point[symbol] = value
    return point


def evaluated(expression: sp.Expr, point: Mapping[sp.Symbol, sp.Expr]) -> sp.Expr:
    """``expression`` at ``point``, its sums with concrete limits added term by term (exact,
    and much faster than sympy's general summation)."""
    value = sp.sympify(expression).xreplace(dict(point))
    value = value.replace(lambda e: isinstance(e, BinomialTail), lambda e: e.as_sum())
    return value.replace(lambda e: isinstance(e, sp.Sum), _summed)


def _summed(total: sp.Sum) -> sp.Expr:
    (index, low, high), = total.limits
    return sp.Add(*[total.function.xreplace({index: sp.Integer(k)})
                    for k in range(int(low), int(high) + 1)])


def _exact(expression: sp.Expr, point: Mapping[sp.Symbol, sp.Expr]) -> Fraction | str:
    value = evaluated(expression, point)
    return as_fraction(value) if value.is_Rational else f"undefined ({value})"
