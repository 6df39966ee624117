"""001 Prop. E.5's remark: for the Gaussian mechanism with sensitivity C, the largest divergence
between batches at substitution distance k is max Ψ_α(b_y ‖ b_y') = exp(α(α − 1) k² C²/σ²)."""

from otbound.audit.claims import Claim, Quantity, grid
from otbound.audit.reference_wor import gaussian_group
from otbound.numerics.mechanisms import gaussian


def claimed(point) -> float:
    """``ε(α) = log Ψ_α/(α − 1)`` of the printed ``Ψ_α = exp(α(α − 1) k² C²/σ²)``, i.e.
    ``α k² C²/σ²`` (``C = 1``)."""
    alpha, k, sigma = point["alpha"], point["distance"], point["sigma"]
    return alpha * (alpha - 1) * k ** 2 / sigma ** 2 / (alpha - 1)


CLAIM = Claim(
    name="schuchardt-2024-prop-e5-gaussian-remark",
    title="001 Prop. E.5, remark: max Ψ_α of the Gaussian at distance k = exp(α(α − 1)k²C²/σ²)",
    citation="Schuchardt, Stoian, Kosmala & Günnemann 2024 (ICML; seed 001), App. E.3, the "
             "remark after the proof of Prop. E.5 (on the instantiation by Daigavane et al. 2022)",
    setting="Gaussian mechanism f(y) + N(0, σ² I) with sensitivity C = 1 under substitution of "
            "batch elements; two batches at substitution distance k",
    domain="α > 1, k ≥ 1, σ > 0",
    quantity=Quantity.RDP,
    points=grid(distance=[1, 2, 4], sigma=[1.0, 4.0], alpha=[2.0, 8.0, 32.0]),
    claimed=claimed,
    reference=lambda p: gaussian_group(int(p["distance"]), gaussian(p["sigma"]), p["alpha"]),
    series=("distance", "sigma"),
    note="The remark states an equality; the exact value is exp(α(α − 1) k²C²/(2σ²)) "
         "(docs/errata.md item 9), attained by f(y) = C·|y ∩ g| on y = B ∪ g, y' = B ∪ g'. The "
         "printed value is an upper bound, twice the exact ε(α): sound as a bound (so 001 Prop. "
         "E.5 instantiated with it stays sound), wrong as the equality it is written as.",
)
