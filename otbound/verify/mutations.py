"""The mutation check of the verifier: deliberately wrong dominating pairs, each a classic slip
in a derivation (powers instead of binomial weights, a component dropped, the distance
constraint loosened), must be caught against the exact divergence of the worst case (001 F.1,
G.2, G.3; 003 M.3).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from otbound.choices import Quantity
from otbound.engine import symbols
from otbound.errors import InternalError
from otbound.numerics.hockey_stick import hockey_stick_curve
from otbound.numerics.mechanisms import AdditiveNoise
from otbound.numerics.pairs import MixturePair, log_sum_exp
from otbound.numerics.renyi import log_psi_curve
from otbound.verify import divergence
from otbound.verify.checks import TIGHTNESS_TOLERANCE, Finding, Instance
from otbound.verify.tightness import worst_case_function


def _normalised(log_weights: np.ndarray) -> np.ndarray:
    return log_weights - log_sum_exp(log_weights)


def mutations(rate: float) -> dict[str, Callable[[MixturePair], MixturePair]]:
    """Deliberately wrong dominating pairs, each a classic slip in a derivation."""
    def powers(pair):
        count = pair.p_means.size
        return MixturePair(pair.family, pair.scale, pair.p_means,
                           _normalised(np.arange(count) * math.log(rate)),
                           pair.q_means, pair.q_log_weights)

    def dropped(pair):
        return MixturePair(pair.family, pair.scale, pair.p_means[:-1],
                           _normalised(pair.p_log_weights[:-1]), pair.q_means, pair.q_log_weights)

    def loosened(pair):
        return MixturePair(pair.family, pair.scale, np.clip(pair.p_means, -1, 1),
                           pair.p_log_weights, np.clip(pair.q_means, -1, 1), pair.q_log_weights)

    return {"weights r^i instead of Binom(i | K, r)": powers,
            "a mixture component dropped": dropped,
            "distance constraint |t − u| loosened to 1": loosened}


def check_mutations(instance: Instance, mechanism: AdditiveNoise, alpha: float,
                    epsilon: float) -> list[Finding]:
    """Each mutated bound must be flagged: unsound (below the exact divergence of the worst
    case) or not tight (above it)."""
    (_, problem), = instance.terms
    (pair, values), = mechanism.worst_components(problem)
    if not isinstance(pair, MixturePair):   # additive noise: its worst cases are mixtures
        raise InternalError(f"{mechanism.name}'s worst case is not a mixture pair")
    function = worst_case_function(instance, values)
    exact = instance.exact_pair(mechanism, function)
    observed = {Quantity.RDP: divergence.independent_log_psi(exact, alpha) / (alpha - 1),
                Quantity.ADP: divergence.delta(exact, epsilon)}
    x, x_prime = instance.datasets
    findings = []
    for name, mutate in mutations(float(instance.values[symbols.r])).items():
        wrong = mutate(pair)
        claimed = {Quantity.RDP: log_psi_curve(wrong, [alpha])[0].value / (alpha - 1),
                   Quantity.ADP: hockey_stick_curve(wrong, [epsilon])[0].value}
        for quantity in (Quantity.RDP, Quantity.ADP):
            gap = observed[quantity] - claimed[quantity]
            scale = max(abs(claimed[quantity]), 1e-300)
            verdict = ("caught" if abs(gap) > TIGHTNESS_TOLERANCE * scale else "MISSED")
            reason = "unsound" if gap > 0 else "not tight"
            findings.append(Finding(
                f"mutation: {name} ({quantity.name})",
                {**instance.describe(), "mechanism": mechanism.name,
                 quantity.axis: alpha if quantity is Quantity.RDP else epsilon},
                claimed[quantity], observed[quantity], verdict,
                f"{reason}: x = {{{', '.join(sorted(x))}}}, x' = {{{', '.join(sorted(x_prime))}}}, "
                f"{function.describe()}; observed {observed[quantity]:.12g} vs claimed "
                f"{claimed[quantity]:.12g}"))
    return findings
