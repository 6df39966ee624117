"""Balle, Barthe, Gaboardi, Hsu & Sato 2020, Thm. 21: an (α, ρ)-RDP mechanism is
``(ρ + log((α − 1)/α) − (log δ + log α)/(α − 1), δ)``-DP for every δ ∈ (0, 1)."""

import math

from otbound.audit import Claim, Condition, Domain, Point, Quantity, conversion, grid, real


def claimed(point: Point) -> float:
    """Thm. 21's ``ε`` for ``(α, ρ)``-RDP at the point's ``δ``."""
    alpha, rho, delta = point["alpha"], point["rho"], point["delta"]
    return rho + math.log((alpha - 1) / alpha) - (math.log(delta) + math.log(alpha)) / (alpha - 1)


CLAIM = Claim(
    name="balle-2020-rdp-to-dp",
    title="RDP to (ε, δ): ε = ρ + log((α − 1)/α) − (log δ + log α)/(α − 1)",
    citation="Balle, Barthe, Gaboardi, Hsu & Sato 2020, Hypothesis Testing Interpretations and "
             "Rényi Differential Privacy (AISTATS), Thm. 21",
    setting="any mechanism that is (α, ρ)-RDP (one order)",
    domain=Domain((real("alpha", 1.01, 1000.0), real("rho", 1e-4, 10.0),
                   real("delta", 1e-12, 0.5)),
                  (Condition("the claimed ε ≥ 0 (otbound's conversion reference covers ε ≥ 0)",
                             lambda p: claimed(p) >= 0),),
                  stated="α > 1, ρ ≥ 0, δ ∈ (0, 1)"),
    quantity=Quantity.EPSILON,
    points=(grid(alpha=[1.5, 2.0, 4.0, 8.0, 32.0], rho=[0.01, 0.1, 0.5], delta=[1e-5, 1e-10])
            + grid(alpha=[256.0], rho=[0.01, 2.0], delta=[1e-5, 1e-10])),
    claimed=claimed,
    reference=lambda p: conversion(p["alpha"], p["rho"], Quantity.EPSILON, p["delta"]),
    series=("alpha", "rho"),
    note="Against the optimal conversion of seed 004 (Asoodeh et al.), attained by a pair of "
         "Bernoulli distributions. Thm. 21 is the optimum of the same problem with the term "
         "(1 − p)^α (1 − q)^{1−α} dropped from the RDP constraint (a relaxation; its optimum has "
         "p = αδ), so it is sound and its excess over the optimum vanishes as e^{(α−1)ρ} "
         "grows: at (α − 1)ρ ≳ 25 the two agree to about 1e-12, and the claim is tight to the "
         "precision of the optimal conversion (its bracket is 1e-9 wide).",
)
