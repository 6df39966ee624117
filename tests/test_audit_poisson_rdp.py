"""Audit entries on the Poisson subsampled Gaussian (issue 12): Zhu & Wang 2019 with and without
the factor on the higher-order terms, Mironov, Talwar & Zhang 2019 at fractional orders, Abadi et
al. 2016's leading term; and a binomial expansion with one weight scaled by 0.98, caught."""

import math
import runpy

import numpy as np
from dp_accounting.rdp.rdp_privacy_accountant import _compute_rdp_poisson_subsampled_gaussian

from otbound.audit.catalog import audits_directory, find_claim
from otbound.audit.claims import Claim, grid
from otbound.audit.references import subsampled
from otbound.audit.judge import run_audits
from otbound.audit.verdict import AuditVerdict, EntryResult, judge_point
from otbound.choices import Quantity
from otbound.numerics.mechanisms import gaussian
from otbound.numerics.settings import Subsampling


def _result(name):
    (result,) = run_audits([find_claim(name)], workers=1)
    return result


def test_zhu_wang_without_the_factor_is_tight():
    result = _result("zhu-wang-2019-tight")
    assert result.verdict is AuditVerdict.TIGHT and result.count("tight") == len(result.points)


def test_zhu_wang_with_the_factor_is_exact_at_order_2_and_loose_above():
    result = _result("zhu-wang-2019-general")
    assert result.verdict is AuditVerdict.LOOSE and result.count("unsound") == 0
    assert {p.point["alpha"] for p in result.points if p.status == "tight"} == {2}
    assert min(p.ratio for p in result.points if p.point["alpha"] > 2) > 1 + 1e-6
    assert 8.0 < result.largest_ratio < 8.2


def test_mironov_talwar_zhang_at_fractional_orders_is_tight_and_agrees_with_dp_accounting():
    result = _result("mironov-talwar-zhang-2019-fractional")
    assert result.verdict is AuditVerdict.TIGHT
    claim = find_claim("mironov-talwar-zhang-2019-fractional")[1]
    # dp_accounting's evaluation of the same quantity is never below it, meets it at α = 20.5,
    # and is above it at small fractional orders (0.00273 against 0.00210 at r = 0.1, σ = 2,
    # α = 1.5; at σ = 0.7 its series does not converge at r = 0.1)
    for point in [p for p in claim.points if p["sigma"] >= 2]:
        peer = _compute_rdp_poisson_subsampled_gaussian(point["rate"], point["sigma"],
                                                         [point["alpha"]])[0]
        assert peer >= claim.claimed(point) * (1 - 1e-9)
        if point["alpha"] == 20.5:
            assert math.isclose(claim.claimed(point), peer, rel_tol=1e-9)


def test_abadi_leading_term_holds_on_its_grid():
    """On its grid only; the search of the domain finds it unsound
    (tests/test_audit_search.py)."""
    result = _result("abadi-2016-lemma-3-leading-term")
    assert result.count("sound") == len(result.points)
    assert 1.9 < result.largest_ratio < 2.0   # the leading term is at most about twice ε
    tight_form = runpy.run_path(str(audits_directory() / "abadi_2016_moments_accountant.py"))
    assert all(tight_form["in_domain"](p["sigma"], p["rate"], int(p["alpha"]) - 1)
               for p in result.claim.points)


def _expansion(point, scaled: float) -> float:
    """ε(α) of the removal direction at integer α from the binomial expansion
    ``Σ_k C(α, k) (1 − r)^{α−k} r^k e^{k(k−1)/(2σ²)}``, with the weight ``r`` scaled."""
    alpha, rate, sigma = int(point["alpha"]), point["rate"] * scaled, point["sigma"]
    terms = [math.lgamma(alpha + 1) - math.lgamma(k + 1) - math.lgamma(alpha - k + 1)
             + (alpha - k) * math.log1p(-rate) + k * math.log(rate) + k * (k - 1) / (2 * sigma ** 2)
             for k in range(alpha + 1)]
    return float(np.logaddexp.reduce(terms)) / (alpha - 1)


def test_a_weight_scaled_by_098_is_unsound_with_a_confirmed_witness():
    def reference(p):
        return subsampled(Subsampling("poisson", rate=p["rate"]), gaussian(p["sigma"]),
                          Quantity.RDP, p["alpha"])
    points = grid(sigma=[1.0], rate=[0.1], alpha=[2.0, 8.0])
    exact = Claim("exact", "t", "c", "s", "d", Quantity.RDP, points,
                  lambda p: _expansion(p, 1.0), reference)
    scaled = Claim("scaled", "t", "c", "s", "d", Quantity.RDP, points,
                   lambda p: _expansion(p, 0.98), reference)
    judged = [EntryResult(c, tuple(judge_point(c, p) for p in c.points)) for c in (exact, scaled)]
    assert judged[0].verdict is AuditVerdict.TIGHT
    assert judged[1].verdict is AuditVerdict.UNSOUND
    witness = judged[1].witness
    assert witness.confirmed > witness.claimed and "probability 0.1" in str(witness.witness)
