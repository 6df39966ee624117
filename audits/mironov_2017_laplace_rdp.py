"""Mironov 2017, the RDP of the three basic mechanisms (Table 2; Props. 5–7), stated as exact:

* Gaussian with sensitivity 1 and noise σ: ``ε(α) = α/(2σ²)``;
* Laplace with sensitivity 1 and scale b: ``ε(α) = log((α/(2α − 1)) e^{(α−1)/b}
  + ((α − 1)/(2α − 1)) e^{−α/b})/(α − 1)``;
* randomized response reporting the bit with probability p: ``ε(α) = log(p^α (1 − p)^{1−α}
  + (1 − p)^α p^{1−α})/(α − 1)``.

This file is the Laplace entry; the Gaussian and randomized response entries reuse its helpers."""

import math

from otbound import Subsampling, laplace
from otbound.audit import Claim, Domain, Quantity, grid, real, subsampled


def laplace_rdp(alpha: float, scale: float) -> float:
    """Mironov 2017's Laplace RDP, in logarithms (``α/(2α − 1)`` and ``(α − 1)/(2α − 1)``
    weigh ``e^{(α−1)/b}`` and ``e^{−α/b}``)."""
    first = math.log(alpha / (2 * alpha - 1)) + (alpha - 1) / scale
    second = math.log((alpha - 1) / (2 * alpha - 1)) - alpha / scale
    top = max(first, second)
    return (top + math.log(math.exp(first - top) + math.exp(second - top))) / (alpha - 1)


def unsubsampled(mechanism, alpha: float):
    """otbound's tight value for the mechanism itself: Poisson subsampling at rate 1."""
    return subsampled(Subsampling("poisson", rate=1.0, group=1), mechanism, Quantity.RDP, alpha)


CLAIM = Claim(
    name="mironov-2017-laplace-rdp",
    title="RDP of the Laplace mechanism (stated exactly)",
    citation="Mironov 2017, Rényi Differential Privacy (CSF), Table 2 and Prop. 6",
    setting="the Laplace mechanism with L1 sensitivity 1 and scale b, one insertion or removal",
    domain=Domain((real("scale", 0.1, 100.0), real("alpha", 1.01, 1000.0)),
                  stated="α > 1, b > 0"),
    quantity=Quantity.RDP,
    points=grid(scale=[0.5, 1.0, 4.0], alpha=[1.5, 2.0, 8.0, 32.0]),
    claimed=lambda p: laplace_rdp(p["alpha"], p["scale"]),
    reference=lambda p: unsubsampled(laplace(p["scale"]), p["alpha"]),
    series=("scale",),
    attained=True,
    note="Against otbound's tight K = 1 value at rate 1 (the pair Lap(1, b), Lap(0, b), both "
         "directions).",
)
