"""Wang, Balle & Kasiviswanathan 2019, Thm. 27: the tighter bound for mechanisms with a worst-case
pair of neighbours and tight RDP (the Gaussian among them) — sampling without replacement under
substitution, integer orders."""

import math
from functools import lru_cache

import mpmath as mp

from otbound import Subsampling, gaussian
from otbound.audit import Claim, Condition, Domain, Quantity, integer, real, wor_substitution


def log_binomial(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def log_sum(terms: list[float]) -> float:
    top = max(terms)
    return top + math.log(math.fsum(math.exp(t - top) for t in terms))


@lru_cache(maxsize=1024)
def log_forward_difference(order: int, sigma: float) -> float:
    """``log B(ε, l)``, ``B(ε, l) = Σ_{i=0}^{l} C(l, i) (−1)^{l−i} e^{(i−1)ε(i)}``: the ``l``-th
    forward difference of ``e^{(i−1)ε(i)}`` at 0 (Wang et al. App. B.5), for the Gaussian
    ``(i − 1)ε(i) = i(i − 1)/(2σ²)``; for even ``l`` it is the Pearson–Vajda ``χ^l``
    divergence of the worst-case pair, positive. Summed with enough digits to survive the
    alternating signs."""
    top = order * (order - 1) / (2 * sigma ** 2)
    digits = 40 + int((top + order * math.log(2)) / math.log(10))
    with mp.workdps(digits):
        value = mp.fsum(mp.binomial(order, i) * (-1) ** (order - i)
                        * mp.exp(mp.mpf(i * (i - 1)) / (2 * mp.mpf(sigma) ** 2))
                        for i in range(order + 1))
        if value <= 0:
            raise ArithmeticError(f"B(ε, {order}) = {mp.nstr(value, 5)} is not positive")
        return float(mp.log(value))


def claimed(point) -> float:
    """Thm. 27: Thm. 9 with every term ``j ≥ 3`` replaced by ``γ^j C(α, j) min{4 (B(ε, 2⌊j/2⌋)
    B(ε, 2⌈j/2⌉))^{1/2}, e^{(j−1)ε(j)} min{2, (e^{ε(∞)} − 1)^j}}``;
    the term ``j = 2`` is Thm. 9's, ``γ² C(α, 2) min{4(e^{ε(2)} − 1), e^{ε(2)} min{2,
    (e^{ε(∞)} − 1)²}}``. Gaussian with sensitivity 1: ``ε(j) = j/(2σ²)``, ``ε(∞) = ∞``."""
    alpha, sigma = int(point["alpha"]), point["sigma"]
    gamma = point["batch_size"] / point["dataset_size"]
    eps2 = 2 / (2 * sigma ** 2)
    terms = [0.0, 2 * math.log(gamma) + log_binomial(alpha, 2)
             + min(math.log(4 * math.expm1(eps2)), eps2 + math.log(2))]
    for j in range(3, alpha + 1):
        improved = math.log(4) + (log_forward_difference(2 * (j // 2), sigma)
                                  + log_forward_difference(2 * ((j + 1) // 2), sigma)) / 2
        plain = math.log(2) + (j - 1) * j / (2 * sigma ** 2)
        terms.append(j * math.log(gamma) + log_binomial(alpha, j) + min(improved, plain))
    return log_sum(terms) / (alpha - 1)


def reference(point):
    setting = Subsampling("wor", batch_size=int(point["batch_size"]),
                          dataset_size=int(point["dataset_size"]), substitutions=1)
    return wor_substitution(setting, gaussian(point["sigma"]), point["alpha"])


CLAIM = Claim(
    name="wang-2019-wor-thm-27-gaussian",
    title="Tighter subsampled RDP without replacement (Thm. 27), Gaussian mechanism",
    citation="Wang, Balle & Kasiviswanathan 2019, Subsampled Rényi Differential Privacy and "
             "Analytical Moments Accountant (arXiv:1808.00087), Thm. 27 and App. B.5",
    setting="sampling without replacement of q of N records (γ = q/N), substitution of one "
            "record; Gaussian mechanism with sensitivity 1 under substitution, noise σ (it has a "
            "worst-case pair for every order and tight RDP, the theorem's condition)",
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
    note="Same reference as wang-2019-wor-thm-9: the smaller of otbound's certified "
         "three-point bound (001 Thm. 3.6 solved for the Gaussian, docs/wor_substitution.md) "
         "and its agnostic bound above; the exact "
         "divergence of f = L·1[a ∈ y] on x = {a} ∪ B, x' = {a'} ∪ B below. "
         "The formula was checked against the authors' autodp (compose_subsampled_mechanism "
         "with improved_bound_flag, which cites Thm. 27).",
)
