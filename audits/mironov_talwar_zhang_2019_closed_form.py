"""Mironov, Talwar & Zhang 2019, Thm. 11: the closed-form RDP bound of the Sampled Gaussian
Mechanism, ``ε(α) = 2q²α/σ²``, within explicit limits on ``q``, ``σ`` and ``α``.

As restated here (the statement read from a restatement, not from the paper itself): let
``q ≤ 1/5``, ``σ ≥ 4`` and ``L = ln(1 + 1/(q(α − 1)))``; if ``α`` satisfies

    1 < α ≤ σ²L/2 − 2 ln σ   and   α ≤ (σ²L²/2 − c − 2 ln σ) / (L + ln(qα) + 1/(2σ²)),

then the SGM with sampling rate ``q`` and noise ``σ``, applied to a function of ℓ₂-sensitivity 1,
is ``(α, 2q²α/σ²)``-RDP. The restatement leaves the constant ``c`` uncertain (``ln 5`` or
``5 ln 5``); the entry takes the more restrictive reading, ``c = 5 ln 5`` (the smaller domain:
the denominator ``L + ln(qα) + 1/(2σ²) = ln(qα + α/(α − 1)) + 1/(2σ²)`` is positive), so a
violation found inside it is a violation under either reading.
"""

import math

from otbound import Subsampling, gaussian
from otbound.audit import Claim, Condition, Domain, Point, Quantity, integer, real, subsampled

CONSTANT = 5 * math.log(5)
"""``c`` in the second condition on ``α``: the more restrictive of the two readings."""


def log_term(rate: float, alpha: float) -> float:
    """``L = ln(1 + 1/(q(α − 1)))``."""
    return math.log1p(1 / (rate * (alpha - 1)))


def first_limit(sigma: float, rate: float, alpha: float) -> float:
    """``σ²L/2 − 2 ln σ``, the first upper limit on ``α``."""
    return sigma ** 2 * log_term(rate, alpha) / 2 - 2 * math.log(sigma)


def second_limit(sigma: float, rate: float, alpha: float, constant: float = CONSTANT) -> float:
    """``(σ²L²/2 − c − 2 ln σ) / (L + ln(qα) + 1/(2σ²))``, the second upper limit on ``α``."""
    big_l = log_term(rate, alpha)
    return ((sigma ** 2 * big_l ** 2 / 2 - constant - 2 * math.log(sigma))
            / (big_l + math.log(rate * alpha) + 1 / (2 * sigma ** 2)))


def in_domain(sigma: float, rate: float, alpha: float, constant: float = CONSTANT) -> bool:
    """Thm. 11's conditions (with ``c = constant``)."""
    return (rate <= 1 / 5 and sigma >= 4 and alpha > 1
            and alpha <= first_limit(sigma, rate, alpha)
            and alpha <= second_limit(sigma, rate, alpha, constant))


def claimed(point: Point) -> float:
    """``2q²α/σ²``."""
    return 2 * point["rate"] ** 2 * point["alpha"] / point["sigma"] ** 2


POINTS = tuple({"sigma": sigma, "rate": rate, "alpha": float(alpha)}
               for sigma in (4.0, 8.0, 16.0)
               for rate in (0.001, 0.01, 0.05, 0.2)
               for alpha in (2, 8, 32, 128, 512)
               if in_domain(sigma, rate, alpha))


CLAIM = Claim(
    name="mironov-talwar-zhang-2019-closed-form",
    title="Sampled Gaussian Mechanism in closed form: ε(α) = 2q²α/σ² for q ≤ 1/5, σ ≥ 4 and "
          "α within two limits",
    citation="Mironov, Talwar & Zhang 2019, Rényi Differential Privacy of the Sampled Gaussian "
             "Mechanism (arXiv:1908.10530), Thm. 11 (conditions as restated; c = 5 ln 5, the "
             "stricter of the two readings)",
    setting="Poisson subsampling at rate q, insertion/removal of one element; Gaussian mechanism "
            "with sensitivity 1 and noise σ",
    domain=Domain(
        (real("sigma", 4.0, 64.0), real("rate", 1e-5, 0.2), integer("alpha", 2, 4096)),
        (Condition("α ≤ σ²L/2 − 2 ln σ, L = ln(1 + 1/(q(α − 1)))",
                   lambda p: p["alpha"] <= first_limit(p["sigma"], p["rate"], p["alpha"])),
         Condition("α ≤ (σ²L²/2 − 5 ln 5 − 2 ln σ)/(L + ln(qα) + 1/(2σ²))",
                   lambda p: p["alpha"] <= second_limit(p["sigma"], p["rate"], p["alpha"]))),
        stated="q ≤ 1/5, σ ≥ 4, 1 < α ≤ σ²L/2 − 2 ln σ and α ≤ (σ²L²/2 − c − 2 ln σ)/(L + "
               "ln(qα) + 1/(2σ²)) with L = ln(1 + 1/(q(α − 1))); c is ln 5 or 5 ln 5 in the "
               "restatement read, 5 ln 5 (the smaller domain) here; integer α searched"),
    quantity=Quantity.RDP,
    points=POINTS,
    claimed=claimed,
    reference=lambda p: subsampled(Subsampling("poisson", rate=p["rate"], group=1),
                                   gaussian(p["sigma"]), Quantity.RDP, p["alpha"]),
    series=("sigma", "rate"),
    note="Against otbound's tight K = 1 curve of the Poisson subsampled Gaussian (the larger of "
         "the two directions of insertion/removal, 003 Thm. 3.7/3.8 at (K₊, K₋) = (1, 0) and "
         "(0, 1)). The theorem's conditions were not read from the paper but from a "
         "restatement whose constant c is uncertain (ln 5 or 5 ln 5): the domain searched is "
         "the smaller one (c = 5 ln 5), so a violation there would be one under either "
         "reading, while a 'sound' verdict says nothing about the strip of orders that only "
         "the reading c = ln 5 admits (the same search over that reading, run once outside "
         "the catalogue, found its smallest ratio claim / construction 3.79 at σ = 4, "
         "q ≈ 0.098, α = 6). Only integer orders are searched. The claim is about four times "
         "the exact value everywhere: the exact curve's leading term is q²α/(2σ²).",
)
