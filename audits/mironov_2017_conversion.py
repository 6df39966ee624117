"""Mironov 2017, Prop. 3: an (α, ρ)-RDP mechanism is (ρ + log(1/δ)/(α − 1), δ)-DP."""

import math

from otbound.audit import Claim, Domain, Quantity, conversion, grid, real


def claimed(point) -> float:
    return point["rho"] + math.log(1 / point["delta"]) / (point["alpha"] - 1)


CLAIM = Claim(
    name="mironov-2017-rdp-to-dp",
    title="RDP to (ε, δ): ε = ρ + log(1/δ)/(α − 1)",
    citation="Mironov 2017, Rényi Differential Privacy, Prop. 3",
    setting="any mechanism that is (α, ρ)-RDP (one order)",
    domain=Domain((real("alpha", 1.01, 1000.0), real("rho", 1e-4, 10.0),
                   real("delta", 1e-12, 0.5)),
                  stated="α > 1, ρ ≥ 0, δ ∈ (0, 1)"),
    quantity=Quantity.EPSILON,
    points=grid(alpha=[2.0, 8.0, 32.0, 256.0], rho=[0.01, 0.5, 2.0], delta=[1e-5, 1e-10]),
    claimed=claimed,
    reference=lambda p: conversion(p["alpha"], p["rho"], Quantity.EPSILON, p["delta"]),
    series=("alpha", "rho"),
    note="Against the optimal conversion of seed 004 (Asoodeh et al.), attained by a pair of "
         "Bernoulli distributions.",
)
