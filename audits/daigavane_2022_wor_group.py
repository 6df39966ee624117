"""Daigavane et al. 2022: RDP of the Gaussian mechanism on a batch drawn without replacement when
one node changes K of the N records (K-fold substitution), as restated by 001 Prop. E.5."""

import math

from otbound import Subsampling, gaussian
from otbound.audit import Claim, Condition, Domain, Quantity, fixed, integer, real, wor_substitution


def hypergeometric(k: int, dataset_size: int, group: int, batch_size: int) -> float:
    """``HyperGeom(k | N, K, q) = C(K, k) C(N − K, q − k) / C(N, q)``."""
    return (math.comb(group, k) * math.comb(dataset_size - group, batch_size - k)
            / math.comb(dataset_size, batch_size))


def claimed(point) -> float:
    """``ε(α) = 1/(α − 1) · log Σ_{k=0}^{K} HyperGeom(k | N, K, q) · exp(α(α − 1) k² L²/(2σ²))``:
    001 Prop. E.5 (``Σ_k w_k max_{d(y, y') ≤ k} Ψ_α(b_y ‖ b_{y'})``) with the Gaussian's
    ``Ψ_α`` at distance ``kL`` (sensitivity ``L = 1`` per substituted record)."""
    alpha, sigma = point["alpha"], point["sigma"]
    n, k_max, q = int(point["dataset_size"]), int(point["group"]), int(point["batch_size"])
    terms = [(hypergeometric(k, n, k_max, q), alpha * (alpha - 1) * k ** 2 / (2 * sigma ** 2))
             for k in range(k_max + 1)]
    top = max(exponent for weight, exponent in terms if weight > 0)
    total = math.fsum(weight * math.exp(exponent - top) for weight, exponent in terms)
    return (top + math.log(total)) / (alpha - 1)


def reference(point):
    setting = Subsampling("wor", batch_size=int(point["batch_size"]),
                          dataset_size=int(point["dataset_size"]),
                          substitutions=int(point["group"]))
    return wor_substitution(setting, gaussian(point["sigma"]), point["alpha"])


CLAIM = Claim(
    name="daigavane-2022-wor-k-substitution",
    title="Node-level DP: subsampling without replacement, K-fold substitution, Gaussian",
    citation="Daigavane, Madan, Sinha, Thakurta, Aggarwal & Jain 2022, Node-Level Differentially "
             "Private Graph Neural Networks (arXiv:2111.15521), amplification by sampling without "
             "replacement; stated as 001 Prop. E.5 (App. E.3) with the Gaussian remark",
    setting="q of N records (the nodes' subgraphs) drawn without replacement; neighbouring "
            "datasets differ in K records (001 Eq. (8)); Gaussian mechanism with sensitivity 1 "
            "per substituted record, noise σ",
    domain=Domain((integer("batch_size", 1, 200), fixed("dataset_size", 1000),
                   integer("group", 1, 16), real("sigma", 0.5, 16.0), integer("alpha", 2, 64)),
                  (Condition("1 ≤ K ≤ q < N", lambda p: p["group"] <= p["batch_size"]
                             < p["dataset_size"]),),
                  stated="α > 1, 1 ≤ K ≤ q < N"),
    quantity=Quantity.RDP,
    points=tuple({"batch_size": q, "dataset_size": 1000, "group": k, "sigma": sigma,
                  "alpha": alpha}
                 for q in (10, 100) for k in (2, 8) for sigma in (2.0, 8.0)
                 for alpha in (2, 8, 32)),
    claimed=claimed,
    reference=reference,
    series=("batch_size", "group", "sigma"),
    note="001 prints Ψ_k for Ψ_α and the Gaussian term as exp(α(α − 1)k²C²/σ²) (see "
         "schuchardt-2024-prop-e5-gaussian-remark); the authors' accountant "
         "(multiterm_dpsgd_privacy_accountant) uses the Gaussian RDP at distance k, which is the "
         "formula audited here. Upper end: the smaller of otbound's agnostic bound (001 Prop. "
         "E.5 itself) and the conditioned wor-group-substitution bound with its cross-mixture "
         "constraints relaxed (Gaussian maximum collinear, 001 Thm. H.12). Lower end: the exact "
         "divergence of f = L·|y ∩ g| on x = g ∪ B, x' = g' ∪ B.",
)
