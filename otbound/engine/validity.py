"""Marginal validity of a coupling: exactly on instances, symbolically for general dataset size.

A coupling is valid when its ``u``-th marginal equals the ``u``-th conditional pmf (001 Def. 3.2,
Thm. 3.4). On a concrete instance otbound enumerates the coupling and compares every marginal
probability with ``Fraction`` arithmetic — no tolerance. For a symbolic background size it
compares, for each batch type, the coupling's total mass with the conditional pmf's total mass.
Because schemes, events and coupling steps all treat background elements symmetrically, a
marginal gives equal probability to batches of equal type, so equal type masses imply equal
probabilities of every single batch.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

import sympy as sp

from otbound.engine import symbols
from otbound.engine.batches import Batch, BatchType
from otbound.engine.conditionals import ConcreteConditionals, SymbolicConditionals
from otbound.engine.simplify import is_identically_zero
from otbound.errors import InvalidSpecification, UnsupportedOperation


class Verdict(Enum):
    """Outcome of a symbolic check: only ``PROVED`` counts as a pass."""

    PROVED = "proved"
    REFUTED = "refuted"
    UNDECIDED = "undecided"


def batch_key(batch: Batch) -> tuple:
    """A deterministic sort key for batches."""
    return (len(batch), sorted(batch))


def format_batch(batch: Batch) -> str:
    """``{a, b1, b2}`` for sets, ``[a, a, b1]`` for multisets."""
    inner = ", ".join(sorted(batch))
    return "{" + inner + "}" if isinstance(batch, frozenset) else "[" + inner + "]"


@dataclass(frozen=True, slots=True)
class MarginalMismatch:
    """Where a coupling's marginal differs from the conditional pmf it must equal."""

    coordinate: str
    batch: Batch | None
    expected: Fraction | None
    actual: Fraction | None
    reason: str = ""

    def describe(self) -> str:
        if self.batch is None:
            return f"coordinate y_{self.coordinate}: {self.reason}"
        return (f"coordinate y_{self.coordinate}, batch {format_batch(self.batch)}: the coupling "
                f"gives probability {self.actual}, the conditional pmf gives {self.expected}")


def marginals(joint: dict[tuple, Fraction], arity: int) -> list[dict[Batch, Fraction]]:
    """The ``arity`` one-dimensional marginals of a joint pmf over tuples."""
    result: list[dict[Batch, Fraction]] = [defaultdict(Fraction) for _ in range(arity)]
    for values, p in joint.items():
        for index, batch in enumerate(values):
            result[index][batch] += p
    return result


def check_marginals(conditionals: ConcreteConditionals
                    ) -> tuple[dict[tuple, Fraction], MarginalMismatch | None]:
    """The coupling's exact joint pmf and its first marginal mismatch (``None`` when valid)."""
    try:
        joint = conditionals.joint()
    except InvalidSpecification as error:
        return {}, MarginalMismatch(conditionals.case.reference, None, None, None, str(error))
    return joint, joint_mismatch(conditionals, joint)


def joint_mismatch(conditionals: ConcreteConditionals,
                   joint: dict[tuple, Fraction]) -> MarginalMismatch | None:
    """The first marginal of ``joint`` (tuples in the coupling's coordinate order) that differs
    from its conditional pmf, compared exactly; ``None`` when the joint pmf is a coupling."""
    coordinates = conditionals.case.coupling.coordinates
    negative = next((values for values, p in joint.items() if p < 0), None)
    if negative is not None:
        return MarginalMismatch(coordinates[0], None, None, None,
                                f"negative probability {joint[negative]} on a tuple")
    for label, marginal in zip(coordinates, marginals(joint, len(coordinates))):
        expected = conditionals.conditional(label)
        for batch in sorted(set(marginal) | set(expected), key=batch_key):
            if marginal.get(batch, 0) != expected.get(batch, 0):
                return MarginalMismatch(label, batch, expected.get(batch, Fraction(0)),
                                        marginal.get(batch, Fraction(0)))
    return None


def prove_marginals(conditionals: SymbolicConditionals) -> tuple[Verdict, str]:
    """Try to prove every marginal identity for a symbolic background size.

    Returns ``PROVED`` with an empty note, or ``UNDECIDED`` with the first identity not shown.
    """
    try:
        marginal_types = conditionals.marginal_types()
    except UnsupportedOperation as error:
        return Verdict.UNDECIDED, str(error)
    for label, masses in marginal_types.items():
        produced: dict[BatchType, sp.Expr] = defaultdict(lambda: sp.Integer(0))
        for mass, btype in masses:
            produced[btype] += mass
        note = _compare_type_masses(label, produced, conditionals.types(label))
        if note:
            return Verdict.UNDECIDED, note
    return Verdict.PROVED, ""


def _compare_type_masses(label: str, produced: dict[BatchType, sp.Expr],
                         expected: list[tuple[sp.Expr, BatchType]]) -> str:
    wanted = {btype.content: (mass, btype.background) for mass, btype in expected}
    by_content: dict = defaultdict(list)
    for btype, mass in produced.items():
        by_content[btype.content].append((btype.background, mass))
    for content in sorted(set(by_content) | set(wanted), key=lambda c: c.items):
        target_mass, target_background = wanted.get(content, (sp.Integer(0), None))
        note = type_mass_difference(label, str(content), by_content.get(content, []),
                                    target_mass, target_background)
        if note:
            return note
    return ""


def type_mass_difference(label: str, content: str, produced: list[tuple[sp.Expr, sp.Expr]],
                         target_mass: sp.Expr, target_background: sp.Expr | None) -> str:
    """Why the coupling's ``(background, mass)`` pairs on one special content of coordinate
    ``label`` differ from the conditional pmf's mass and background count (``None``: the
    content lies outside the event); empty when the identity is shown."""
    total = sp.Integer(0)
    for background, mass in produced:
        if target_background is None:
            if not is_identically_zero(mass):
                return (f"y_{label}: mass {mass} on content {content}, which lies outside "
                        "its event")
            continue
        if not is_identically_zero(background - target_background):
            return (f"y_{label}: content {content} reached with {background} background "
                    f"elements, where the conditional pmf has {target_background}")
        total += mass
    if not is_identically_zero(total - target_mass):
        return (f"y_{label}: content {content} has mass {sp.simplify(total)} under the "
                f"coupling but {sp.simplify(target_mass)} under the conditional pmf "
                f"(identity not shown for general {symbols.n})")
    return ""
