"""Wang, Balle & Kasiviswanathan 2019's bounds for one substitution without replacement, as
baselines of the agnostic method: Thm. 9's second-order term and, for the Gaussian, Thm. 27's
forward differences — checked with sign against an independent high-precision evaluation and
against dp_accounting's implementation of the same theorem."""

import mpmath as mp
import numpy as np
import pytest
from dp_accounting.rdp import rdp_privacy_accountant

from otbound.errors import UnsupportedOperation
from otbound.numerics.mechanisms import gaussian, laplace
from otbound.numerics.one_step import rdp
from otbound.numerics.settings import Subsampling

SETTING = Subsampling("wor", batch_size=10, dataset_size=1000, substitutions=1)
GAMMA = mp.mpf(10) / 1000
"""The sampling rate of ``SETTING``, 10 / 1000."""


def thm_27(order: int, sigma: float, gamma=GAMMA, forward_differences=True) -> float:
    """Thm. 27 (Thm. 9 without ``forward_differences``) for the Gaussian with sensitivity 1, in
    mpmath with enough digits for the alternating sums."""
    def moment(i):
        return mp.exp(mp.mpf(i * (i - 1)) / (2 * mp.mpf(sigma) ** 2))

    top = (order + 1) * order / (2 * sigma ** 2)
    with mp.workdps(60 + int(top / 2.3) + order):
        def forward(l):
            return mp.fsum(mp.binomial(l, i) * (-1) ** (l - i) * moment(i) for i in range(l + 1))

        total = 1 + mp.binomial(order, 2) * gamma ** 2 * min(4 * (moment(2) - 1), 2 * moment(2))
        for j in range(3, order + 1):
            improved = (4 * mp.sqrt(forward(2 * (j // 2)) * forward(2 * ((j + 1) // 2)))
                        if forward_differences else mp.inf)
            total += mp.binomial(order, j) * gamma ** j * min(improved, 2 * moment(j))
        return float(mp.log(total) / (order - 1))


@pytest.mark.parametrize("sigma", [0.7, 1.0, 2.0, 4.0])
def test_agnostic_gaussian_is_thm_27_rounded_up(sigma):
    orders = [2, 3, 5, 8, 13, 21, 34, 64]
    ours = [b.value for b in rdp(SETTING, gaussian(sigma), "agnostic", orders)]
    for order, value in zip(orders, ours):
        reference = thm_27(order, sigma)
        assert reference <= value <= reference * (1 + 1e-11), (order, value, reference)


def test_thm_27_improves_on_thm_9_where_the_forward_differences_cancel():
    value = rdp(SETTING, gaussian(4.0), "agnostic", [8])[0].value
    assert value == pytest.approx(thm_27(8, 4.0), rel=1e-11)
    assert value < 0.9 * thm_27(8, 4.0, forward_differences=False)   # 1.04e-4 against 1.23e-4


def test_thm_27_is_not_applied_to_laplace():
    # the Laplace mechanism declares no exact moments, so Thm. 9 alone (with its second term)
    assert laplace(1.0).log_moment_ball(2) is None
    with mp.workdps(40):
        def moment(l):
            return mp.exp(mp.log(mp.mpf(l) / (2 * l - 1) * mp.e ** (l - 1)
                                 + mp.mpf(l - 1) / (2 * l - 1) * mp.e ** (-l)))

        gamma = mp.mpf(1) / 100
        total = 1 + 6 * gamma ** 2 * min(4 * (moment(2) - 1), 2 * moment(2)) + sum(
            2 * mp.binomial(4, l) * gamma ** l * moment(l) for l in (3, 4))
        reference = float(mp.log(total) / 3)
    value = rdp(SETTING, laplace(1.0), "agnostic", [4])[0].value
    assert reference <= value <= reference * (1 + 1e-11)


@pytest.mark.parametrize("sigma", [1.0, 2.0, 4.0])
def test_agnostic_is_dp_accountings_wang_et_al_at_every_order_to_256(sigma):
    """dp_accounting evaluates the same theorem in floats, without rounding up: otbound's
    value may exceed it by its own error bound only."""
    orders = list(range(2, 257))
    theirs = rdp_privacy_accountant._compute_rdp_sample_wor_gaussian(10 / 1000, sigma, orders)
    ours = np.array([b.value for b in rdp(SETTING, gaussian(sigma), "agnostic", orders)])
    assert np.all(ours <= theirs * (1 + 1e-11))


def test_tight_is_below_dp_accountings_wang_et_al_and_agnostic_where_uncovered():
    """``tight`` (the certified three-point solver, 001 Thm. 3.6) is below Thm. 27 where it is
    computed, and at orders it does not cover (above 256) it reports the agnostic bound instead
    of refusing."""
    orders = [2, 3, 257, 300, 512]
    theirs = rdp_privacy_accountant._compute_rdp_sample_wor_gaussian(10 / 1000, 2.0, orders)
    tight = np.array([b.value for b in rdp(SETTING, gaussian(2.0), "tight", orders)])
    agnostic = np.array([b.value for b in rdp(SETTING, gaussian(2.0), "agnostic", orders)])
    assert np.all(tight[:2] < 0.5 * theirs[:2])
    assert np.array_equal(tight[2:], agnostic[2:])
    for order in (65, 100):   # the agnostic bound with sign, against mpmath (fast orders)
        value = rdp(SETTING, gaussian(2.0), "agnostic", [order])[0].value
        reference = thm_27(order, 2.0)
        assert reference <= value <= reference * (1 + 1e-11)


@pytest.mark.parametrize("sigma", [1.0, 2.0, 4.0])
def test_tight_is_never_above_the_agnostic_bound_at_any_order(sigma, monkeypatch):
    """``tight`` reports, at each order, the smaller of the certified enclosure's upper end and
    the agnostic bound (which includes Wang et al. 2019's, see above): with the enclosure made
    useless, every order 2..256 reports the agnostic value and names it."""
    from otbound.numerics.rounding import Bounds
    from otbound.numerics.three_point import ThreePointMaximum

    def useless(self, alphas):
        alphas = np.asarray(alphas, dtype=float)
        return Bounds(np.full(alphas.size, 1e6), np.full(alphas.size, 1e6))

    monkeypatch.setattr(ThreePointMaximum, "log_psi", useless)
    # and never refused: asking for a refusal computes the real certificates (minutes at 255
    # orders), which log_psi would then have used
    monkeypatch.setattr(ThreePointMaximum, "refusal", lambda self, alphas: None)
    orders = list(range(2, 257))
    tight = rdp(SETTING, gaussian(sigma), "tight", orders)
    agnostic = rdp(SETTING, gaussian(sigma), "agnostic", orders)
    assert [b.value for b in tight] == [b.value for b in agnostic]
    assert all(b.source == a.source != "the dominating pairs (tight)"
               for b, a in zip(tight, agnostic))


@pytest.mark.parametrize("method", ["tight", "agnostic"])
def test_a_baseline_counts_the_sensitivity_in_its_own_unit(method):
    """001 Thm. F.2 counts a substitution as an insertion and a removal (d_Y = 2 per
    substitution), so at σ = 2 a substituted record can move f by 2. Wang et al.'s bound with
    sensitivity 1 (4.5e-6 at α = 2, what otbound reported before) is below the truth there:
    x holding a with f(a) = 2 and x' holding a' with f(a') = 0 (the others 0) give the pair
    (1 − w) N(0, 4) + w N(2, 4) against N(0, 4), w = q/N, whose ε(2) is log(1 + w²(e − 1))."""
    from otbound.engine.bundled import load_derivation
    from otbound.numerics.derived import derived_setting

    setting = derived_setting(load_derivation("001-thm-F.2"), {"q": 2, "N": 1000})
    truth_at_least = float(mp.log1p(mp.mpf(2 / 1000) ** 2 * (mp.e - 1)))
    (bound,) = rdp(setting, gaussian(2.0), method, [2])
    assert bound.value >= truth_at_least
    with pytest.raises(UnsupportedOperation, match="counted in the same distance"):
        rdp(setting, gaussian(2.0), "posthoc", [2])
