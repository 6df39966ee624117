"""Balle, Barthe & Gaboardi 2018, sampling with replacement under substitution: with
``η = 1 − (1 − 1/n)^m``, ``δ'(log(1 + η(e^ε − 1))) ≤ Σ_{k=1}^{m} C(m, k) n^{−k} (1 − 1/n)^{m−k}
δ_{M,k}(ε)``, ``δ_{M,k}`` the base mechanism's group privacy profile at distance ``k``."""

import mpmath as mp

from otbound.audit import Claim, Domain, Point, Quantity, grid, integer, real, with_replacement


def gaussian_profile(epsilon: mp.mpf, sigma: mp.mpf, distance: int) -> mp.mpf:
    """Exact ``δ(ε)`` of ``N(Δ, σ²)`` against ``N(0, σ²)`` (Balle & Wang 2018, Thm. 8):
    ``Φ(Δ/2σ − εσ/Δ) − e^ε Φ(−Δ/2σ − εσ/Δ)``."""
    gap = mp.mpf(distance) / (2 * sigma)
    shift = epsilon * sigma / distance
    return mp.ncdf(gap - shift) - mp.exp(epsilon) * mp.ncdf(-gap - shift)


def claimed(point: Point) -> float:
    """``Σ_{k=1}^{m} C(m, k) n^{−k} (1 − 1/n)^{m−k} δ_k(ε)`` at the point's
    ``ε' = log(1 + η(e^ε − 1))``, ``η = 1 − (1 − 1/n)^m``."""
    n, m, sigma = int(point["n"]), int(point["m"]), mp.mpf(point["sigma"])
    with mp.workdps(40):
        miss = 1 - 1 / mp.mpf(n)
        eta = 1 - miss ** m
        # the base ε with ε' = log(1 + η(e^ε − 1))
        base = mp.log1p(mp.expm1(mp.mpf(point["epsilon"])) / eta)
        return float(mp.fsum(mp.binomial(m, k) * mp.mpf(n) ** -k * miss ** (m - k)
                             * gaussian_profile(base, sigma, k) for k in range(1, m + 1)))


CLAIM = Claim(
    name="balle-2018-with-replacement",
    title="Sampling with replacement: δ' = Σ_k Binom(k | m, 1/n) δ_k(ε) at "
          "ε' = log(1 + η(e^ε − 1))",
    citation="Balle, Barthe & Gaboardi 2018, Privacy Amplification by Subsampling: Tight Analyses "
             "via Couplings and Divergences, Sec. 5, Thm. 10 (sampling with replacement, Table 1)",
    setting="m draws with replacement from n records, substitution of one record; Gaussian "
            "mechanism with sensitivity 1 (group profile δ_k: N(k, σ²) against N(0, σ²))",
    domain=Domain((integer("n", 1, 10), integer("m", 1, 10), real("sigma", 0.5, 8.0),
                   real("epsilon", 0.01, 3.0)),
                  stated="n ≥ 1, m ≥ 1, ε' ≥ 0"),
    quantity=Quantity.ADP,
    points=grid(n=[4, 10], m=[4, 8], sigma=[1.0, 2.0], epsilon=[0.05, 0.5, 1.0]),
    claimed=claimed,
    reference=lambda p: with_replacement(int(p["n"]), int(p["m"]), p["sigma"], p["epsilon"]),
    series=("n", "m", "sigma"),
    note="otbound bounds this setting (the derivation wr-substitution, derived by the engine; "
         "003 Thm. L.5 is not in the seeds), but this audit's reference does not use it yet: "
         "the reference has no upper end, so the verdict cannot be better than undecided. Its "
         "lower end is exact: the δ of a concrete pair of neighbouring datasets "
         "(f counts the copies of the substituted record, t on it and t − 1 on its replacement, "
         "t ∈ {1, ½}, both directions), with the multiplicity law enumerated exactly from the "
         "scheme's pmf. The claim is never below it; the ratio claim / lower is reported by "
         "the tests. The statement was written from the paper's Table 1 and Thm. 10; the seeds "
         "do not contain it (003 Sec. 3.3 restates the Poisson analogue).",
)
