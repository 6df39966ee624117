"""An intermediate step of the proof of 001 Thm. F.3 (Schuchardt et al. 2024), not the theorem.

In the removal case the proof bounds ``Ψ_α(m_x ‖ m_{x'})``, after Cor. D.7, by
``max Ψ_α((1 − q/N) b_{y1} + (q/N) b_{y2} ‖ b_{y3})`` s.t. ``d_±(y1, y2) ≤ 1``, ``y1 = y3``,
``d_±(y2, y3) ≤ 2``. The printed distance ``d_±(y1, y2) ≤ 1`` is a slip: the coupling gives
``d_±(y1, y2) = 2``, which the theorem's final statement uses. This entry audits the step as
printed; the theorem's statement (distance 2) is otbound's derivation ``001-thm-F.3``."""

import math

from otbound import gaussian
from otbound.audit import Claim, Condition, Domain, Quantity, integer, real, wor_removal


def claimed(point) -> float:
    """The printed removal bound ``max Ψ_α((1 − q/N) b_{y1} + (q/N) b_{y2} ‖ b_{y3})`` s.t.
    ``y1 = y3``, ``d_±(y1, y2) ≤ 1``, ``N = |x'|``, for the Gaussian with sensitivity 1: the means
    at distance 1 (001 Thm. H.4), and for integer ``α`` the binomial expansion
    ``Σ_{l=0}^{α} C(α, l) w^l (1 − w)^{α−l} e^{l(l−1)/(2σ²)}``, ``w = q/N``."""
    alpha, sigma = int(point["alpha"]), point["sigma"]
    w = point["batch_size"] / point["dataset_size"]
    terms = [math.lgamma(alpha + 1) - math.lgamma(l + 1) - math.lgamma(alpha - l + 1)
             + l * math.log(w) + (alpha - l) * math.log1p(-w) + l * (l - 1) / (2 * sigma ** 2)
             for l in range(alpha + 1)]
    top = max(terms)
    return (top + math.log(math.fsum(math.exp(t - top) for t in terms))) / (alpha - 1)


CLAIM = Claim(
    name="schuchardt-2024-thm-f3-printed-distance",
    title="Proof of 001 Thm. F.3, removal case: the intermediate bound as printed, with "
          "d_±(y1, y2) ≤ 1 (the theorem itself states distance 2), Gaussian mechanism",
    citation="Schuchardt, Stoian, Kosmala & Günnemann 2024, Unified Mechanism-Specific "
             "Amplification by Subsampling and Group Privacy Amplification (ICML; seed 001), "
             "App. F.3 (printed under 'E.3'), proof of Thm. F.3, removal case: the bound after "
             "Cor. D.7",
    setting="sampling without replacement of q records (printed: 'Poisson', see docs/errata.md); "
            "x' = x \\ {a} with N = |x'|; Gaussian mechanism with sensitivity 1 under "
            "insertion/removal of batch elements, noise σ",
    domain=Domain((integer("batch_size", 1, 100), integer("dataset_size", 2, 10000),
                   real("sigma", 0.5, 10.0), integer("alpha", 2, 32)),
                  (Condition("N > q", lambda p: p["dataset_size"] > p["batch_size"]),),
                  stated="integer α ≥ 2, N > Q > q"),
    quantity=Quantity.RDP,
    points=tuple({"batch_size": q, "dataset_size": n, "sigma": sigma, "alpha": alpha}
                 for q, n in ((1, 10), (10, 1000)) for sigma in (1.0, 2.0, 5.0)
                 for alpha in (2, 4, 8, 16, 32)),
    claimed=claimed,
    reference=lambda p: wor_removal(int(p["batch_size"]), int(p["dataset_size"]),
                                    gaussian(p["sigma"]), p["alpha"]),
    series=("batch_size", "dataset_size", "sigma"),
    note="The coupling replaces a member of y1 by a, so d_±(y1, y2) = 2 (the final statement "
         "says 2; docs/errata.md item 3). The weight is taken as printed, q/N with N = |x'|, "
         "above the exact q/(N + 1): the claim is read in its most generous form. Reference: the "
         "engine's corrected removal bound (tight) and its worst case, x = {a} ∪ B, "
         "f(y) = 2·1[a ∈ y], whose exact divergence exceeds the printed bound; as in "
         "tests/test_verify.py::test_printed_distance_of_f3_is_unsound_for_the_gaussian_mechanism.",
)
