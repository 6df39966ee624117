"""001 Prop. E.5's remark on the Gaussian mechanism, as printed: "(Daigavane et al., 2022)
instantiate this result with Gaussian mechanisms with sensitivity C, for which
max_{y ≃_{kΔ,Y} y'} Ψ_α(b_y ‖ b_{y'}) = exp(α · (α − 1) · k²C²/σ²)".

The remark is an equality, so the entry is an attained claim (``attained=True``, judged like
001 Thm. G.2): a value above the exact maximum is wrong, not merely loose.
"""

from otbound import gaussian
from otbound.audit import Claim, Domain, Quantity, gaussian_group, grid, integer, real


def claimed(point) -> float:
    """``ε(α) = log Ψ_α/(α − 1)`` of the printed ``Ψ_α = exp(α · (α − 1) · k²C²/σ²)``, taken
    in logarithms (``Ψ_α`` itself overflows a double at k = 4, σ = 1, α = 32)."""
    alpha, k, c, sigma = point["alpha"], point["distance"], point["C"], point["sigma"]
    return alpha * (alpha - 1) * k ** 2 * c ** 2 / sigma ** 2 / (alpha - 1)


CLAIM = Claim(
    name="schuchardt-2024-prop-e5-gaussian-remark",
    title="001 Prop. E.5, remark: max Ψ_α(b_y ‖ b_y') of the Gaussian at substitution distance "
          "k equals exp(α(α − 1)k²C²/σ²)",
    citation="Schuchardt, Stoian, Kosmala & Günnemann 2024 (ICML; seed 001), App. E.3, the "
             "remark after the proof of Prop. E.5 (on the instantiation by Daigavane et al. 2022)",
    setting="Gaussian mechanism f(y) + N(0, σ² I) where f has sensitivity C under substitution of "
            "one batch element; the maximum over batches y, y' at substitution distance k",
    domain=Domain((integer("distance", 1, 16), real("C", 0.5, 4.0), real("sigma", 0.5, 20.0),
                   real("alpha", 1.05, 128.0)),
                  stated="α > 1, k ≥ 1, C > 0, σ > 0"),
    quantity=Quantity.RDP,
    points=grid(distance=[1, 2, 4], C=[1.0, 2.0], sigma=[1.0, 4.0], alpha=[2.0, 8.0, 32.0]),
    claimed=claimed,
    reference=lambda p: gaussian_group(int(p["distance"]), gaussian(p["sigma"], p["C"]),
                                       p["alpha"]),
    series=("distance", "C", "sigma"),
    attained=True,
    note="Stated as an equality, so judged as attained. The exact maximum is "
         "exp(α(α − 1)k²C²/(2σ²)) (docs/errata.md item 9), attained by f(y) = C·|y ∩ g| on "
         "y = B ∪ g, y' = B ∪ g': the printed value is twice the exact ε(α) at every point, so "
         "the equality is wrong. As an upper bound it is sound, and so is 001 Prop. E.5 "
         "instantiated with it (its bound grows with each term).",
)
