"""The tightness check of the verifier: the worst-case construction of the tightness proofs
(001 F.1, G.2, G.3; 003 M.3) — ``f`` is the value of the solver's worst component whose event
holds the batch — must attain the bound exactly (its divergence by enumeration).
"""

from __future__ import annotations

import numpy as np

from otbound.choices import Quantity
from otbound.engine.batches import Content
from otbound.errors import InternalError
from otbound.numerics.hockey_stick import hockey_stick_curve
from otbound.numerics.mechanisms import Mechanism
from otbound.numerics.renyi import log_psi_curve
from otbound.verify import divergence
from otbound.verify.checks import TIGHTNESS_TOLERANCE, Finding, Instance
from otbound.verify.functions import TableFunction


def worst_case_function(instance: Instance, values: np.ndarray) -> TableFunction:
    """``f`` on every batch: the value of the mixture component whose event holds the batch.

    001 F.1, G.2, G.3 and 003 M.3 build their worst cases this way: ``f`` depends on the batch
    only through which event (number of removed or inserted elements) it falls in.
    """
    case, (pmf_x, pmf_x_prime) = instance.case, instance.pmfs
    left, right = list(case.events_x.values()), list(case.events_x_prime.values())
    table = {}
    for batch in instance.batches():
        content = Content.in_batch(batch, case.pair.specials)
        found = []
        if batch in pmf_x:
            found.append(values[next(i for i, e in enumerate(left) if e.holds(content))])
        if batch in pmf_x_prime:
            found.append(values[len(left) + next(j for j, e in enumerate(right)
                                                 if e.holds(content))])
        if len(set(found)) != 1:
            raise InternalError(f"the worst components disagree on batch {sorted(batch)}: {found}")
        table[batch] = found[0]
    return TableFunction(table, label="f = value of the worst component of the batch's event")


def worst_function(instance: Instance, mechanism: Mechanism, quantity: Quantity,
                   point: float) -> TableFunction:
    """The worst-case construction for RDP at order ``point`` or ADP at ``ε = point``: the
    solver candidate with the largest divergence, turned into a function on batches."""
    (_, problem), = instance.terms

    def divergence_of(candidate) -> float:
        pair = candidate[0]
        if quantity is Quantity.RDP:
            return log_psi_curve(pair, [point])[0].value
        return hockey_stick_curve(pair, [point])[0].value

    _, values = max(mechanism.worst_components(problem), key=divergence_of)
    return worst_case_function(instance, values)


def check_tightness(instance: Instance, mechanism: Mechanism, alphas, epsilons) -> list[Finding]:
    """The worst-case construction attains the bound (RDP at ``alphas``, ADP at ``epsilons``)."""
    if len(instance.terms) != 1:
        return []
    findings = []
    for quantity, points in ((Quantity.RDP, alphas), (Quantity.ADP, epsilons)):
        for point in points:
            function = worst_function(instance, mechanism, quantity, point)
            exact_pair = instance.exact_pair(mechanism, function)
            if quantity is Quantity.RDP:
                bound = instance.bound_log_psi(mechanism, [point])[0] / (point - 1)
                observed = divergence.independent_log_psi(exact_pair, point) / (point - 1)
            else:
                bound = instance.bound_delta(mechanism, [point])[0]
                observed = divergence.delta(exact_pair, point)
            close = abs(observed - bound) <= TIGHTNESS_TOLERANCE * max(abs(bound), 1e-300)
            findings.append(Finding(
                f"tightness {quantity.name}", {**instance.describe(), "mechanism": mechanism.name,
                                      quantity.axis: point},
                bound, observed, "tight" if close else "NOT TIGHT", function.describe()))
    return findings
