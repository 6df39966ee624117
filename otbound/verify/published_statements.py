"""The verifier's checks of a published statement: the exact divergence of the derived bound's
worst-case constructions (001 F.1, G.2, G.3; 003 M.3), enumerated on the instance's datasets,
must not exceed the statement as published; the constructions, in a form the soundness search
can climb from (McShane), seed its search against the statement.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from otbound.choices import Quantity
from otbound.engine.batches import Batch
from otbound.errors import InternalError
from otbound.numerics.mechanisms import Mechanism, RandomizedResponse
from otbound.verify import divergence
from otbound.verify.checks import RELATIVE_TOLERANCE, Finding, Instance, _datasets_text
from otbound.verify.enumeration import additive_noise
from otbound.verify.functions import LipschitzFunction, TableFunction
from otbound.verify.tightness import worst_case_function


@dataclass(frozen=True, eq=False)
class McShaneFunction(LipschitzFunction):
    """``L min_k (o_k + d_Y(y, a_k))`` (McShane) with its values on ``domain`` (the instance's
    batches) computed once from ``rows[k, j] = d_Y(a_k, domain_j)``: a worst-case construction
    in this form has dozens of anchors. ``label`` describes it (empty once perturbed)."""

    label: str = ""
    domain: tuple[Batch, ...] = ()
    rows: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    _values: dict[Batch, float] = field(init=False, repr=False, compare=False)
    """The values on ``domain`` (set by ``__post_init__``)."""

    def __post_init__(self) -> None:
        if self.rows.shape != (len(self.anchors), len(self.domain)):
            raise InternalError(f"McShane rows of shape {self.rows.shape} for "
                                f"{len(self.anchors)} anchors and {len(self.domain)} batches")
        values = self.sign * self.sensitivity * np.min(
            np.asarray(self.offsets)[:, None] + self.rows, axis=0)
        object.__setattr__(self, "_values", dict(zip(self.domain, values.tolist())))

    def __call__(self, batch: Batch) -> float:
        value = self._values.get(batch)
        return super().__call__(batch) if value is None else value

    def describe(self) -> str:
        return self.label or super().describe()

    def changed(self, index: int, anchor: Batch | None = None,
                offset: float | None = None) -> "McShaneFunction":
        """The same function with anchor ``index`` moved to ``anchor`` or its offset set."""
        anchors, offsets, rows = list(self.anchors), list(self.offsets), self.rows.copy()
        if anchor is not None:
            anchors[index] = anchor
            rows[index] = [self.relation.distance(anchor, batch) for batch in self.domain]
        if offset is not None:
            offsets[index] = offset
        return McShaneFunction(tuple(anchors), tuple(offsets), self.relation, self.sensitivity,
                               self.sign, "", self.domain, rows)


@dataclass(frozen=True)
class Construction:
    """A worst-case construction of a derived bound (001 F.1, G.2, G.3; 003 M.3): ``function``
    gives ``f`` on every batch, ``climbable`` is the same function in a form that
    :func:`perturb` keeps within the mechanism's assumptions (a seed of the soundness search)."""

    function: TableFunction
    climbable: TableFunction | LipschitzFunction


def worst_case_constructions(instance: Instance,
                             mechanism: Mechanism) -> tuple[list[Construction], list[str]]:
    """Every candidate worst case of the solver for the instance's derived bound, turned into a
    function on batches; and why any candidate was left out.

    For additive noise a candidate is kept only when it has sensitivity ≤ L under ``d_Y`` on
    every pair of batches (so that its exact divergence is one the mechanism really attains).
    """
    if len(instance.terms) != 1:
        return [], [f"the derived bound is an expectation over {len(instance.terms)} "
                    "constraint profiles: no single worst-case construction to seed from"]
    (_, problem), = instance.terms
    constructions, notes, seen = [], [], set()
    for _, values in mechanism.worst_components(problem):
        found = _construction(instance, mechanism, values)
        if isinstance(found, str):
            notes.append(found)
        elif (key := frozenset(found.function.table.items())) not in seen:
            seen.add(key)
            constructions.append(found)
    return constructions, notes


def _construction(instance: Instance, mechanism: Mechanism,
                  values: np.ndarray) -> Construction | str:
    """The construction of one solver candidate (``f`` = the candidate's value at the component
    whose event holds the batch), or why it is not one."""
    names = list(instance.case.events_x) + list(instance.case.events_x_prime)
    label = ("f(y) = value of the worst component of the event holding y ("
             + ", ".join(f"{n}: {v:g}" for n, v in zip(names, values)) + ")")
    try:
        table = TableFunction(worst_case_function(instance, values).table, label=label)
    except InternalError as error:
        return f"{label}: not a function on batches ({error})"
    if isinstance(mechanism, RandomizedResponse):
        return Construction(table, table)
    climbable = _mcshane_form(instance, table, mechanism)
    if climbable is None:
        return f"{label}: sensitivity above {additive_noise(mechanism).sensitivity:g} under d_Y"
    return Construction(table, climbable)


def _mcshane_form(instance: Instance, function: TableFunction,
                  mechanism: Mechanism) -> McShaneFunction | None:
    """``f − min f`` as ``L min_a (o_a + d_Y(y, a))`` (McShane) over the batches ``a`` that
    need to be anchors; ``None`` when ``f`` is not ``L``-Lipschitz under ``d_Y``."""
    sensitivity = additive_noise(mechanism).sensitivity
    batches = instance.batches()
    values = np.array([function(batch) for batch in batches])
    reach = values[None, :] + sensitivity * instance.distances   # reach[a, b] = f(b) + L d(a, b)
    slack = 1e-12 * max(1.0, float(np.max(np.abs(values))))
    if np.any(values[:, None] > reach + slack):
        return None
    np.fill_diagonal(reach, math.inf)
    needed = ~np.any(reach <= values[:, None] + slack, axis=1)
    anchors = [index for index in range(len(batches)) if needed[index]]
    lowest = float(values.min())
    return McShaneFunction(tuple(batches[i] for i in anchors),
                           tuple((float(values[i]) - lowest) / sensitivity for i in anchors),
                           instance.derivation.batch_relation, sensitivity, 1.0,
                           function.describe(), tuple(batches), instance.distances[anchors])


def dominates(bound: float, observed: float) -> bool:
    """``observed ≤ bound`` up to :data:`RELATIVE_TOLERANCE` relative to the bound, whatever the
    signs (an observation ≤ 1e-300 counts as zero, as in the soundness search)."""
    return (observed <= bound + RELATIVE_TOLERANCE * abs(bound)
            or (observed <= 1e-300 and bound >= 0))


def check_published_statement(derived: Instance, published: Instance, mechanism: Mechanism,
                              constructions: Sequence[Construction], alphas,
                              epsilons) -> list[Finding]:
    """For every point, the largest exact divergence of the derived bound's worst-case
    constructions (enumerated on ``derived``'s datasets) must not exceed the published
    statement's value (``published``: the same instance bounded by the statement's case).

    Where the derived bound is tight this compares the published statement with the true
    divergence (001 Thm. 3.4 and Prop. 3.5 give the bound; the construction attains it)."""
    pairs = [(c, derived.exact_pair(mechanism, c.function)) for c in constructions]
    claimed = {Quantity.RDP: (published.bound_log_psi(mechanism, alphas)
                              / (np.asarray(alphas) - 1)),
               Quantity.ADP: published.bound_delta(mechanism, epsilons)}
    findings = []
    for quantity, points in ((Quantity.RDP, alphas), (Quantity.ADP, epsilons)):
        for point, bound in zip(points, claimed[quantity]):
            observed, construction = max(   # NaN first: it must not be hidden
                ((_exact(quantity, pair, point), c) for c, pair in pairs),
                key=lambda item: math.inf if math.isnan(item[0]) else item[0])
            findings.append(_published_finding(derived, mechanism, quantity, point, float(bound),
                                               observed, construction))
    return findings


def _exact(quantity: Quantity, pair, point: float) -> float:
    if quantity is Quantity.RDP:
        return divergence.independent_log_psi(pair, point) / (point - 1)
    return divergence.delta(pair, point)


def _published_finding(instance: Instance, mechanism: Mechanism, quantity: Quantity,
                       point: float, bound: float, observed: float,
                       construction: Construction) -> Finding:
    """One row of :func:`check_published_statement`, with its witness."""
    if math.isnan(bound) or math.isnan(observed):
        verdict, relation = "NO VALUE", "?"
    elif dominates(bound, observed):
        verdict, relation = "sound", "<="
    else:
        verdict, relation = "UNSOUND", ">"
    where = f"{quantity.name} {'α' if quantity is Quantity.RDP else 'ε'} = {point:g}"
    witness = (f"{construction.function.describe()}; {_datasets_text(instance)}; {where}: exact "
               f"{observed:.12g} {relation} published {bound:.12g}")
    return Finding(f"published statement {quantity.name}",
                   {**instance.describe(), "mechanism": mechanism.name,
                    quantity.axis: point},
                   bound, observed, verdict, witness)
