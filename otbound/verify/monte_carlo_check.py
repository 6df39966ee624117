"""The Monte Carlo check of the verifier: a sampled estimate of ``δ(ε)`` or ``Ψ_α`` of the real
subsampled mechanism (:mod:`otbound.verify.montecarlo`) against the bound — never below the
interval, and at the worst case inside it; a row that could not refute the bound is
"uninformative".
"""

from __future__ import annotations

import math

import numpy as np

from otbound.choices import Quantity
from otbound.numerics.mechanisms import Mechanism
from otbound.verify import montecarlo
from otbound.verify.checks import Finding, Instance


def check_monte_carlo(instance: Instance, mechanism: Mechanism, quantity: Quantity,
                      function, worst_case: bool, samples: int, rng: np.random.Generator,
                      point: float) -> Finding:
    """A sampled estimate of δ(ε) (``Quantity.ADP``) or Ψ_α (``Quantity.RDP``): the bound is
    never below the interval, and at the worst case the interval contains it; an interval too
    wide to refute the bound, or whose lower end is not above the bound lowered by 5 % (so that
    it could not have caught that), is "uninformative"."""
    x, _ = instance.datasets
    pair = instance.exact_pair(mechanism, function)
    outputs = montecarlo.sample_outputs(instance.scheme, x, function, mechanism, samples, rng)
    where: dict[str, float | str]
    if quantity is Quantity.ADP:
        estimate = montecarlo.estimate_delta(pair, outputs, point)
        bound, where = instance.bound_delta(mechanism, [point])[0], {"epsilon": point}
    else:
        estimate = montecarlo.estimate_psi(pair, outputs, point)
        bound = math.exp(instance.bound_log_psi(mechanism, [point])[0])
        where = {"alpha": point, "quantity": "Psi"}
    above = bound >= estimate.lower
    inside = estimate.lower <= bound <= estimate.upper
    verdict = "consistent" if above and (inside or not worst_case) else "INCONSISTENT"
    # "consistent" only if the interval could have refuted the bound lowered by 5 %: a row
    # far below a bound it cannot attain (a random f, a non-tight bound) refutes nothing
    lowered = (1 - montecarlo.INFORMATIVE) * bound
    if verdict == "consistent" and not (estimate.informative(bound) and estimate.lower > lowered):
        verdict = "uninformative"
    return Finding(f"Monte Carlo {quantity.name}" + (" (worst case)" if worst_case else ""),
                   {**instance.describe(), "mechanism": mechanism.name, "samples": samples,
                    **where},
                   bound, estimate.value, verdict,
                   f"interval [{estimate.lower:.6g}, {estimate.upper:.6g}]; " + function.describe())
