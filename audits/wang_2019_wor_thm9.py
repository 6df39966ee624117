"""Wang, Balle & Kasiviswanathan 2019, Thm. 9: RDP of a mechanism run on a batch drawn without
replacement (substitution relation), for integer orders — instantiated for the Gaussian."""

import math

from otbound import Subsampling, gaussian
from otbound.audit import Claim, Condition, Domain, Quantity, integer, real, wor_substitution


def log_binomial(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def gaussian_rdp(order: float, sigma: float) -> float:
    """``ε(j) = j/(2σ²)``: the Gaussian mechanism with sensitivity 1 (Mironov 2017, Prop. 7)."""
    return order / (2 * sigma ** 2)


def second_term(alpha: int, gamma: float, sigma: float) -> float:
    """``log(γ² C(α, 2) min{4(e^{ε(2)} − 1), e^{ε(2)} min{2, (e^{ε(∞)} − 1)²}})`` with
    ``ε(∞) = ∞`` for the Gaussian."""
    eps2 = gaussian_rdp(2, sigma)
    return (2 * math.log(gamma) + log_binomial(alpha, 2)
            + min(math.log(4 * math.expm1(eps2)), eps2 + math.log(2)))


def log_sum(terms: list[float]) -> float:
    top = max(terms)
    return top + math.log(math.fsum(math.exp(t - top) for t in terms))


def claimed(point) -> float:
    """Thm. 9: ``ε'(α) ≤ 1/(α − 1) · log(1 + γ² C(α, 2) min{4(e^{ε(2)} − 1), e^{ε(2)} min{2,
    (e^{ε(∞)} − 1)²}} + Σ_{j=3}^{α} γ^j C(α, j) e^{(j−1)ε(j)} min{2, (e^{ε(∞)} − 1)^j})``,
    ``γ = q/N``; the Gaussian has ``ε(∞) = ∞``, so both inner minima are 2."""
    alpha, sigma = int(point["alpha"]), point["sigma"]
    gamma = point["batch_size"] / point["dataset_size"]
    terms = [0.0, second_term(alpha, gamma, sigma)]
    terms += [j * math.log(gamma) + log_binomial(alpha, j) + math.log(2)
              + (j - 1) * gaussian_rdp(j, sigma) for j in range(3, alpha + 1)]
    return log_sum(terms) / (alpha - 1)


def reference(point):
    setting = Subsampling("wor", batch_size=int(point["batch_size"]),
                          dataset_size=int(point["dataset_size"]), substitutions=1)
    return wor_substitution(setting, gaussian(point["sigma"]), point["alpha"])


CLAIM = Claim(
    name="wang-2019-wor-thm-9",
    title="Subsampled RDP without replacement (Thm. 9), Gaussian mechanism",
    citation="Wang, Balle & Kasiviswanathan 2019, Subsampled Rényi Differential Privacy and "
             "Analytical Moments Accountant (AISTATS; arXiv:1808.00087), Thm. 9",
    setting="sampling without replacement of q of N records (γ = q/N), substitution of one "
            "record; Gaussian mechanism with sensitivity 1 under substitution, noise σ",
    domain=Domain((integer("batch_size", 1, 100), integer("dataset_size", 2, 10000),
                   real("sigma", 0.5, 10.0), integer("alpha", 2, 64)),
                  (Condition("γ = q/N ∈ (0, 1)", lambda p: p["batch_size"] < p["dataset_size"]),),
                  stated="integer α ≥ 2, γ ∈ (0, 1)"),
    quantity=Quantity.RDP,
    points=tuple({"batch_size": q, "dataset_size": n, "sigma": sigma, "alpha": alpha}
                 for q, n in ((10, 1000), (1, 10)) for sigma in (1.0, 5.0)
                 for alpha in (2, 4, 8, 16, 32, 64)),
    claimed=claimed,
    reference=reference,
    series=("batch_size", "dataset_size", "sigma"),
    note="Upper end: the smaller of otbound's agnostic bound (001 Prop. E.2, Thm. 9's "
         "weaker form) and its certified three-point bound, the upper end of a rigorous "
         "enclosure of the maximum of 001 Thm. 3.6's bound for the Gaussian "
         "(docs/wor_substitution.md; each configuration μ₂, μ₄ of the pattern is attained by "
         "the vector-valued f(y) = μ₂·1[a ∈ y] + μ₄·1[a' ∈ y]). Lower end: the exact divergence of "
         "x = {a} ∪ B, x' = {a'} ∪ B with f = L·1[a ∈ y] (the best of three such "
         "constructions). The formula was checked against the authors' autodp "
         "(compose_subsampled_mechanism, Thm. 9 branch). Where the upper end is above the claim "
         "and the construction below it, the point is undecided.",
)
