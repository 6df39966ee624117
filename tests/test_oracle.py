"""Checks of the test oracle (tests/oracle.py) against closed forms and independent computations.

Every comparison is at >= 30 significant digits unless stated otherwise; the references are
computed here at 80-150 digits (mpmath) or with python-flint polynomials, independently of the
oracle's own algorithms.
"""

import math
from fractions import Fraction
from math import comb

import mpmath
import oracle
import pytest
from flint import arb, arb_poly, ctx, fmpq
from oracle import (Mixture, gaussian_removal_log_psi, mixture_delta, mixture_log_psi,
                    optimal_delta, optimal_epsilon, poisson_group_pair, rr_delta, rr_log_psi,
                    rr_poisson_delta, rr_poisson_group_delta, rr_poisson_group_log_psi,
                    rr_poisson_log_psi, rr_wor_delta, rr_wor_log_psi)

DIGITS = 30


def mp(x):
    """An exact mpf of a float/int/Fraction at the current precision."""
    return oracle.to_mpf(x)


def assert_close(value, reference, digits=DIGITS):
    """|value - reference| <= 10^-digits |reference| (or both exactly zero)."""
    with mpmath.workdps(digits + 40):
        value, reference = mpmath.mpf(value), mpmath.mpf(reference)
        if reference == 0:
            assert value == 0, value
            return
        error = abs(value - reference) / abs(reference)
        assert error <= mpmath.mpf(10) ** -digits, (mpmath.nstr(value, digits + 5),
                                                    mpmath.nstr(reference, digits + 5), error)


# ------------------------------------------------------------------------------------------------
# 1. Randomized response
# ------------------------------------------------------------------------------------------------

def bernoulli_psi_direct(p: Fraction, q: Fraction, n: int) -> Fraction:
    """Psi_n(Bern(p) || Bern(q)) = p^n q^(1-n) + (1-p)^n (1-q)^(1-n), as a Fraction."""
    return p ** n / q ** (n - 1) + (1 - p) ** n / (1 - q) ** (n - 1)


def log_fraction(x: Fraction):
    with mpmath.workdps(150):
        return mpmath.log1p(mp(x - 1))


@pytest.mark.parametrize("theta", [0.75, 0.3, 0.5000001])
@pytest.mark.parametrize("rate", [0.1, 1e-6, 1.0])
def test_rr_k1_alpha2_by_hand(theta, rate):
    """Psi_2 = 1 + chi^2 = 1 + (p - q)^2 / (q (1 - q)), |p - q| = |2 theta - 1| r.

    Removal: q in {theta, 1 - theta}; insertion: q in {1 - theta + (2 theta - 1) r, ...}."""
    t, r = Fraction(theta), Fraction(rate)
    d2 = ((2 * t - 1) * r) ** 2
    assert_close(rr_poisson_log_psi(rate, theta, 0, 1, 2), log_fraction(1 + d2 / (t * (1 - t))))
    q = 1 - t + (2 * t - 1) * r
    if q < 1:
        assert_close(rr_poisson_log_psi(rate, theta, 1, 0, 2), log_fraction(1 + d2 / (q * (1 - q))))


@pytest.mark.parametrize("epsilon", [0.0, 1e-3, 0.05, 0.5, 3.0, 1000.0])
@pytest.mark.parametrize("theta, rate", [(0.75, 0.1), (0.9, 1e-6), (0.25, 0.3)])
def test_rr_k1_delta_by_hand(theta, rate, epsilon):
    """K = 1: delta_removal = max(0, |2t-1| r - (e^eps - 1) t_min) with t_min = min(t, 1 - t);
    delta_insertion = max(0, e^eps |2t-1| r - (e^eps - 1) t_max)."""
    with mpmath.workdps(120):
        t, r, g = mp(theta), mp(rate), mpmath.exp(mp(epsilon))
        gap = abs(2 * t - 1) * r
        removal = max(mpmath.mpf(0), gap - (g - 1) * min(t, 1 - t))
        insertion = max(mpmath.mpf(0), g * gap - (g - 1) * max(t, 1 - t))
    assert_close(rr_poisson_delta(rate, theta, 0, 1, epsilon), removal)
    assert_close(rr_poisson_delta(rate, theta, 1, 0, epsilon), insertion)


@pytest.mark.parametrize("alpha", [2, 3, 7, 20])
def test_rr_integer_alpha_matches_direct_fraction(alpha):
    p, q = Fraction(0.7) * Fraction(1, 3), Fraction(0.2)
    assert_close(rr_log_psi(p, q, alpha), log_fraction(bernoulli_psi_direct(p, q, alpha)), 45)
    pi_p, pi_q = (1 - Fraction(0.05)) ** 3, Fraction(1)
    worst = max(log_fraction(bernoulli_psi_direct(a, b, alpha))
                for a, b in oracle._rr_corners(pi_p, pi_q, Fraction(0.8)))
    assert_close(rr_poisson_log_psi(0.05, 0.8, 0, 3, alpha), worst, 45)


@pytest.mark.parametrize("alpha", [2, 64, 1000])
def test_rr_exact_and_mpmath_routes_agree(alpha):
    p, q = Fraction(0.3) + Fraction(1, 10 ** 9), Fraction(0.3)
    exact_route = rr_log_psi(p, q, alpha)
    with mpmath.workdps(oracle.DPS):
        float_route = oracle._bernoulli_log_psi_mpmath(p, q, Fraction(alpha))
    assert_close(float_route, exact_route, 45)


def test_rr_continuity_in_alpha():
    """log Psi_alpha is increasing and smooth in alpha: alpha = 3 -+ h brackets alpha = 3 (exact)."""
    h = 1e-12
    lo, mid, hi = (rr_poisson_log_psi(0.1, 0.75, 0, 1, a) for a in (3 - h, 3, 3 + h))
    assert lo < mid < hi
    slope = (hi - lo) / (2 * h)
    assert abs((mid - lo) / h - slope) < 1e-9 * slope


def bernoulli_series_excess(p: Fraction, q: Fraction, alpha: float, terms: int = 40):
    """Psi - 1 = sum_{k>=2} binom(alpha, k) sum_i q_i u_i^k, u_i = p_i/q_i - 1 (|u_i| < 1)."""
    with mpmath.workdps(150):
        a = mp(alpha)
        sides = [(mp(q), mp((p - q) / q)), (mp(1 - q), mp((q - p) / (1 - q)))]
        return mpmath.fsum(mpmath.binomial(a, k) * w * u ** k
                           for k in range(2, terms) for w, u in sides)


@pytest.mark.parametrize("alpha", [1.0001, 1.5, 2.5])
def test_rr_tiny_divergence_keeps_relative_digits(alpha):
    """rate 1e-6: Psi - 1 ~ 1e-17 and below; log Psi must keep its relative digits."""
    corners = oracle._rr_corners(Fraction(1) - Fraction(1e-6), Fraction(1), Fraction(0.6))
    with mpmath.workdps(150):
        reference = max(mpmath.log1p(bernoulli_series_excess(p, q, alpha)) for p, q in corners)
    value = rr_poisson_group_log_psi(1e-6, 0.6, 1, alpha)
    assert value < 1e-12
    assert_close(value, reference)


def test_rr_group_is_max_over_shapes():
    for alpha in (2, 8.5):
        shapes = [rr_poisson_log_psi(0.01, 0.7, k, 4 - k, alpha) for k in range(5)]
        assert rr_poisson_group_log_psi(0.01, 0.7, 4, alpha) == max(shapes)
    shapes = [rr_poisson_delta(0.01, 0.7, k, 4 - k, 0.01) for k in range(5)]
    assert rr_poisson_group_delta(0.01, 0.7, 4, 0.01) == max(shapes)


@pytest.mark.parametrize("batch, n", [(10, 1000), (260, 60000), (999, 1000)])
def test_rr_wor_k1_alpha2_by_hand(batch, n):
    """K = 1: pi = (N - q)/N, the worst corners have |p - q| = |2t-1| q/N and q1 in {t, 1-t}."""
    t = Fraction(0.75)
    d2 = ((2 * t - 1) * Fraction(batch, n)) ** 2
    assert_close(rr_wor_log_psi(batch, n, 1, 0.75, 2), log_fraction(1 + d2 / (t * (1 - t))))
    with mpmath.workdps(120):
        hand = max(mpmath.mpf(0), mp((2 * t - 1) * Fraction(batch, n)) - mpmath.expm1(mp(0.2)) / 4)
    assert_close(rr_wor_delta(batch, n, 1, 0.75, 0.2), hand)


def test_rr_delta_at_zero_is_total_variation_and_large_inputs_are_finite():
    p, q = Fraction(0.61), Fraction(0.6)
    assert rr_delta(p, q, 0) == mp(p - q)
    assert rr_delta(p, q, 1000.0) == 0
    assert mpmath.isfinite(rr_poisson_group_log_psi(0.2, 0.99, 8, 1e4))
    assert mpmath.isfinite(rr_wor_log_psi(260, 60000, 8, 0.9, 9999.5))


def test_rr_rejects_bad_input():
    with pytest.raises(ValueError):
        rr_poisson_log_psi(0.1, 1.0, 0, 1, 2)
    with pytest.raises(ValueError):
        rr_poisson_log_psi(0.1, 0.7, 0, 1, 1.0)
    with pytest.raises(ValueError):
        rr_wor_log_psi(10, 5, 1, 0.7, 2)


# ------------------------------------------------------------------------------------------------
# 2. Gaussian and Laplace mixtures
# ------------------------------------------------------------------------------------------------

def single(family, mu, s):
    return Mixture(family, s, (mu,), (1,), (0,), (1,))


ORDERS = [1.0001, 1.5, 2, 7.3, 64, 1e4]


@pytest.mark.parametrize("alpha", ORDERS)
@pytest.mark.parametrize("mu, s", [(1, 1.0), (3.0, 0.7), (0.01, 1.0), (1, 0.3)])
def test_gaussian_single_pair(mu, s, alpha):
    """log Psi_alpha(N(mu, s^2) || N(0, s^2)) = alpha (alpha - 1) mu^2 / (2 s^2)."""
    with mpmath.workdps(100):
        a, x = mp(alpha), mp(mu) / mp(s)
        reference = a * (a - 1) * x ** 2 / 2
    assert_close(mixture_log_psi(single("gaussian", mu, s), alpha), reference)


@pytest.mark.parametrize("alpha", ORDERS)
@pytest.mark.parametrize("mu, s", [(1, 1.0), (3.0, 0.7), (0.01, 1.0), (1, 0.05)])
def test_laplace_single_pair(mu, s, alpha):
    """Mironov 2017: Psi = a/(2a-1) e^((a-1) x) + (a-1)/(2a-1) e^(-a x), x = mu / s."""
    with mpmath.workdps(150):
        a, x = mp(alpha), mp(mu) / mp(s)
        reference = mpmath.log(a / (2 * a - 1) * mpmath.exp((a - 1) * x)
                               + (a - 1) / (2 * a - 1) * mpmath.exp(-a * x))
    assert_close(mixture_log_psi(single("laplace", mu, s), alpha), reference)


@pytest.mark.parametrize("epsilon", [0.0, 0.3, 1.0, 50.0])
@pytest.mark.parametrize("mu, s", [(1, 1.0), (3.0, 0.7), (1, 2.0), (1, 0.1)])
def test_gaussian_hockey_stick(mu, s, epsilon):
    """Balle & Wang 2018: delta = Phi(mu/(2s) - eps s/mu) - e^eps Phi(-mu/(2s) - eps s/mu)."""
    with mpmath.workdps(150):
        x, e = mp(mu) / mp(s), mp(epsilon)
        reference = mpmath.ncdf(x / 2 - e / x) - mpmath.exp(e) * mpmath.ncdf(-x / 2 - e / x)
    assert_close(mixture_delta(single("gaussian", mu, s), epsilon), reference)


def test_gaussian_hockey_stick_tiny():
    """delta ~ 1e-1964 (mu = 1, s = 0.1, eps = 1000) keeps its relative digits (note s is the
    binary float 0.1: using 1/s = 10 instead would already change the 13th digit)."""
    with mpmath.workdps(150):
        x, e = 1 / mp(0.1), mpmath.mpf(1000)
        reference = mpmath.ncdf(x / 2 - e / x) - mpmath.exp(e) * mpmath.ncdf(-x / 2 - e / x)
    value = mixture_delta(single("gaussian", 1, 0.1), 1000.0)
    assert value < mpmath.mpf(10) ** -1900
    assert_close(value, reference)


@pytest.mark.parametrize("epsilon", [0.0, 0.5, 0.99, 2.0])
@pytest.mark.parametrize("mu, s", [(1, 1.0), (3.0, 0.7)])
def test_laplace_hockey_stick(mu, s, epsilon):
    """Laplace(mu, s) vs Laplace(0, s): delta = 1 - e^((eps - mu/s)/2) for eps < mu/s, else 0."""
    with mpmath.workdps(150):
        x, e = mp(mu) / mp(s), mp(epsilon)
        reference = -mpmath.expm1((e - x) / 2) if e < x else mpmath.mpf(0)
    assert_close(mixture_delta(single("laplace", mu, s), epsilon), reference)


@pytest.mark.parametrize("rate, sigma, epsilon", [(0.01, 1.0, 0.1), (0.2, 0.5, 3.0),
                                                  (1e-6, 100.0, 1e-8), (0.5, 0.3, 100.0)])
def test_removal_pair_hockey_stick(rate, sigma, epsilon):
    """P = (1-r) N(0) + r N(1), Q = N(0): P/Q = 1 - r + r e^((2z-1)/(2 s^2)) gives the root
    z* = 1/2 + s^2 log((e^eps - 1 + r)/r) in closed form."""
    with mpmath.workdps(150):
        r, s, e = mp(rate), mp(sigma), mp(epsilon)
        z = mpmath.mpf(1) / 2 + s ** 2 * mpmath.log((mpmath.expm1(e) + r) / r)
        def tail(x):
            return mpmath.ncdf(-x / s)

        reference = (1 - r) * tail(z) + r * tail(z - 1) - mpmath.exp(e) * tail(z)
    assert_close(mixture_delta(poisson_group_pair(rate, 0, 1, scale=sigma), epsilon), reference)


@pytest.mark.parametrize("rate, sigma, alpha", [(0.01, 1.0, 2), (0.01, 1.0, 8), (0.1, 0.5, 32),
                                                (1e-6, 100.0, 2), (0.2, 2.0, 256),
                                                (0.5, 0.3, 64), (0.01, 1.0, 1000)])
def test_removal_pair_binomial_expansion(rate, sigma, alpha):
    pair = poisson_group_pair(rate, 0, 1, scale=sigma)
    assert_close(mixture_log_psi(pair, alpha), gaussian_removal_log_psi(rate, sigma, alpha))


def test_removal_pair_continuity_at_integer_orders():
    """Fractional alpha next to 3 and 8 bracket the binomial value (log Psi increases in alpha)."""
    pair = poisson_group_pair(0.05, 0, 1, scale=0.8)
    for n in (3, 8):
        exact = gaussian_removal_log_psi(0.05, 0.8, n)
        below, above = (mixture_log_psi(pair, a) for a in (n - 1e-9, n + 1e-9))
        assert below < exact < above
        assert (above - exact) / (exact - below) == pytest.approx(1, abs=1e-6)


def gaussian_removal_series(rate, sigma, alpha, terms=14):
    """Generalised binomial series Psi - 1 = sum_{k>=2} binom(alpha, k) r^k E_Q[(l - 1)^k],
    E_Q[(l-1)^k] = sum_j C(k, j) (-1)^(k-j) e^(j(j-1)/(2 s^2)); the remainder after k terms is
    O(r^k e^(k^2/(2 s^2))), far below 1e-60 here."""
    with mpmath.workdps(150):
        a, r, s2 = mp(alpha), mp(rate), mp(sigma) ** 2
        def moment(k):
            return mpmath.fsum(comb(k, j) * (-1) ** (k - j) * mpmath.exp(j * (j - 1) / (2 * s2))
                               for j in range(k + 1))

        return mpmath.fsum(mpmath.binomial(a, k) * r ** k * moment(k) for k in range(2, terms))


@pytest.mark.parametrize("alpha", [1.0001, 1.5, 2])
def test_tiny_divergence_keeps_relative_digits(alpha):
    """rate 1e-6, sigma 100: Psi - 1 ~ 5e-21 at alpha = 1.0001; log Psi keeps >= 30 digits."""
    value = mixture_log_psi(poisson_group_pair(1e-6, 0, 1, scale=100.0), alpha)
    with mpmath.workdps(150):
        reference = mpmath.log1p(gaussian_removal_series(1e-6, 100.0, alpha))
    assert value < 1e-15
    assert_close(value, reference)


def removal_group_log_psi_polynomial(rate, sigma, removed, alpha):
    """Integer alpha, P = sum_i Binom(i | K, r) N(i, s^2), Q = N(0, s^2):
    Psi = E[exp((S^2 - T)/(2 s^2))] over alpha iid draws X ~ Binom(K, r), S = sum X, T = sum X^2,
    = sum_S e^(S^2/(2 s^2)) [z^S] (sum_i w_i e^(-i^2/(2 s^2)) z^i)^alpha  (all terms positive)."""
    with ctx.workprec(500):
        r = arb(fmpq(*Fraction(rate).as_integer_ratio()))
        s2 = arb(fmpq(*Fraction(sigma).as_integer_ratio())) ** 2
        base = arb_poly([comb(removed, i) * r ** i * (1 - r) ** (removed - i)
                         * (-arb(i * i) / (2 * s2)).exp() for i in range(removed + 1)])
        power = base ** alpha
        total = sum(((arb(k * k) / (2 * s2)).exp() * power[k] for k in range(power.degree() + 1)),
                    arb(0))
        log_psi = total.log()
        assert log_psi.rel_accuracy_bits() > 120
        man, exp = log_psi.mid().man_exp()
        with mpmath.workdps(100):
            return mpmath.ldexp(mpmath.mpf(int(man)), int(exp))


@pytest.mark.parametrize("rate", [0.01, 0.2])
def test_huge_divergence_group_of_eight(rate):
    """sigma 0.3, group (K+, K-) = (0, 8), alpha 256: log Psi ~ 2.3e7."""
    value = mixture_log_psi(poisson_group_pair(rate, 0, 8, scale=0.3), 256)
    assert value > 1e7
    assert_close(value, removal_group_log_psi_polynomial(rate, 0.3, 8, 256))


def laplace_removal_log_psi(rate, scale, alpha):
    """Integer alpha, P = (1-r) Lap(0, b) + r Lap(1, b), Q = Lap(0, b), x = 1/b, l = P1/Q:
    E_Q[l^k] = e^(-kx)/2 + e^(kx - x)/2 + e^(-kx) (e^((2k-1)x) - 1) / (2 (2k - 1)) (Mironov-type),
    Psi = sum_k C(alpha, k) r^k (1-r)^(alpha-k) E_Q[l^k]."""
    with mpmath.workdps(150):
        r, x = mp(rate), 1 / mp(scale)
        def moment(k):
            return (mpmath.exp(-k * x) / 2 + mpmath.exp((k - 1) * x) / 2
                    + mpmath.exp(-k * x) * mpmath.expm1((2 * k - 1) * x) / (2 * (2 * k - 1)))

        excess = mpmath.fsum(comb(alpha, k) * r ** k * (1 - r) ** (alpha - k) * (moment(k) - 1)
                             for k in range(alpha + 1))
        return mpmath.log1p(excess)


@pytest.mark.parametrize("rate, scale, alpha", [(0.01, 1.0, 2), (0.1, 0.5, 16), (1e-6, 30.0, 2),
                                                (0.3, 0.2, 300)])
def test_laplace_removal_pair_binomial_expansion(rate, scale, alpha):
    pair = poisson_group_pair(rate, 0, 1, family="laplace", scale=scale)
    assert_close(mixture_log_psi(pair, alpha), laplace_removal_log_psi(rate, scale, alpha))


def normalised(means, weights):
    total = sum(Fraction(w) for w in weights)
    return [(mp(m), mp(Fraction(w) / total)) for m, w in zip(means, weights)]


def plain_density(mixture, side):
    s = mp(mixture.scale)
    if mixture.family == "gaussian":
        return lambda z: mpmath.fsum(w * mpmath.npdf(z, m, s) for m, w in side)
    return lambda z: mpmath.fsum(w * mpmath.exp(-abs(z - m) / s) for m, w in side) / (2 * s)


def quad_log_psi(mixture, alpha):
    """Independent low-tech check: mpmath.quad of P^a Q^(1-a) at 40 digits, split at every mean
    (the Laplace kinks) and at regular steps, on [-40, 40] (Gaussian: the neglected tails are
    < e^-300) or [-300, 300] (Laplace, scale <= 2: tails < e^-140)."""
    with mpmath.workdps(40):
        p = plain_density(mixture, normalised(mixture.p_means, mixture.p_weights))
        q = plain_density(mixture, normalised(mixture.q_means, mixture.q_weights))
        a = mp(alpha)
        end = 40 if mixture.family == "gaussian" else 300
        cuts = sorted({mp(m) for m in mixture.p_means + mixture.q_means}
                      | set(mpmath.linspace(-end, end, 41)))
        return mpmath.log(mpmath.quad(lambda z: p(z) ** a * q(z) ** (1 - a), cuts))


@pytest.mark.parametrize("family", ["gaussian", "laplace"])
def test_two_sided_group_pair_against_plain_quadrature(family):
    pair = poisson_group_pair(0.1, 2, 1, family=family, scale=1.5)
    assert_close(mixture_log_psi(pair, 2.5), quad_log_psi(pair, 2.5), 28)


def test_two_sided_group_pair_hockey_stick_against_plain_quadrature():
    """delta = int_{z*}^inf (P - e^eps Q), z* the root of log P - log Q = eps (mpmath.findroot)."""
    pair = poisson_group_pair(0.1, 2, 1, scale=1.5)
    with mpmath.workdps(40):
        p = plain_density(pair, normalised(pair.p_means, pair.p_weights))
        q = plain_density(pair, normalised(pair.q_means, pair.q_weights))
        g = mpmath.exp(mpmath.mpf(0.3))
        root = mpmath.findroot(lambda z: mpmath.log(p(z) / q(z)) - mpmath.mpf(0.3), (-5, 20),
                               solver="anderson")
        reference = mpmath.quad(lambda z: p(z) - g * q(z), [root, root + 5, root + 15, root + 40])
    assert_close(mixture_delta(pair, 0.3), reference, 28)


def test_mixture_weights_renormalise_and_accept_mpf():
    with mpmath.workdps(60):
        third = mpmath.mpf(1) / 3
        weights = (third * 2, third)  # exactly 2 : 1
    a = Mixture("gaussian", 1.0, (0, 1), weights, (0,), (5,))
    b = Mixture("gaussian", 1.0, (0, 1), (Fraction(2), Fraction(1)), (0,), (1,))
    assert_close(mixture_log_psi(a, 3), mixture_log_psi(b, 3), 50)


def test_mixture_degenerate_and_invalid():
    same = Mixture("laplace", 2.0, (0, 1), (1, 1), (1, 0), (1, 1))
    assert mixture_log_psi(same, 5) == 0
    assert mixture_delta(Mixture("gaussian", 2.0, (1,), (1,), (1, 1), (1, 2)), 0.0) == 0
    with pytest.raises(ValueError):
        mixture_delta(Mixture("gaussian", 1.0, (0, 1), (1, 1), (0.5,), (1,)), 1.0)
    with pytest.raises(ValueError):
        Mixture("cauchy", 1.0, (0,), (1,), (0,), (1,))
    with pytest.raises(ValueError):
        mixture_log_psi(single("gaussian", 1, 1.0), 1)


# ------------------------------------------------------------------------------------------------
# 3. Optimal RDP -> (eps, delta) conversion
# ------------------------------------------------------------------------------------------------

def alpha2_delta(rho, epsilon):
    """alpha = 2: the constraint is chi^2 = (p-q)^2/(q(1-q)) <= c = e^rho - 1; maximising
    (1 - e^eps) q + sqrt(c q (1 - q)) gives delta* = (sqrt(c)/2)(sqrt(1 + k^2) - k),
    k = (e^eps - 1)/sqrt(c), valid while the optimal p <= 1 (sqrt(c) - k <= sqrt(1 + k^2))."""
    with mpmath.workdps(100):
        c = mpmath.expm1(mp(rho))
        k = mpmath.expm1(mp(epsilon)) / mpmath.sqrt(c)
        assert mpmath.sqrt(c) - k <= mpmath.sqrt(1 + k * k)
        return mpmath.sqrt(c) / 2 / (mpmath.sqrt(1 + k * k) + k)


@pytest.mark.parametrize("rho, epsilon", [(0.1, 0.0), (0.1, 0.5), (0.5, 2.0), (0.01, 3.0),
                                          (0.6, 0.05), (1e-6, 1e-4)])
def test_optimal_delta_alpha2_closed_form(rho, epsilon):
    assert_close(optimal_delta(2, rho, epsilon), alpha2_delta(rho, epsilon))


def test_optimal_delta_by_hand():
    """alpha = 2, e^rho = 5/4 (c = 1/4): delta*(0) = 1/4 and delta*(log 1.5) = (sqrt 2 - 1)/4."""
    assert float(optimal_delta(2, math.log(1.25), 0.0)) == pytest.approx(0.25, rel=1e-15)
    assert float(optimal_delta(2, math.log(1.25), math.log(1.5))) == pytest.approx((2 ** 0.5 - 1) / 4,
                                                                                     rel=1e-15)


def balle_log_delta(alpha, rho, epsilon):
    """Balle et al. 2020: log delta = (a-1)(rho - eps + log(1 - 1/a)) - log a."""
    with mpmath.workdps(100):
        a, r, e = mp(alpha), mp(rho), mp(epsilon)
        return (a - 1) * (r - e + mpmath.log(1 - 1 / a)) - mpmath.log(a)


GRID = [(alpha, rho, eps) for alpha in (1.5, 2, 8, 32.5, 256, 1e4)
        for rho in (0.001, 0.1, 2.0) for eps in (0.0, 0.5, 3.0)]


@pytest.mark.parametrize("alpha, rho, epsilon", GRID)
def test_optimal_delta_below_balle_and_mironov(alpha, rho, epsilon):
    with mpmath.workdps(100):
        log_star = mpmath.log(optimal_delta(alpha, rho, epsilon))
        assert log_star <= balle_log_delta(alpha, rho, epsilon) + mpmath.mpf(10) ** -40
        assert log_star <= (mp(alpha) - 1) * (mp(rho) - mp(epsilon))


@pytest.mark.parametrize("alpha, rho, epsilon", [(300, 0.1, 1.3), (1000, 0.5, 1.0), (32, 2.0, 5.0),
                                                 (1e4, 0.01, 1000.0), (64, 0.05, 0.3)])
def test_balle_nearly_tight_for_large_orders(alpha, rho, epsilon):
    """With (alpha - 1) rho >= 1 Balle's delta is within e/(e - 1) < 2 of delta* (here delta* can be
    1e-4342472: compared in logs)."""
    with mpmath.workdps(100):
        gap = balle_log_delta(alpha, rho, epsilon) - mpmath.log(optimal_delta(alpha, rho, epsilon))
    assert 0 <= gap <= mpmath.log(2)


def kkt_delta(alpha, rho, epsilon):
    """delta* from the first-order conditions, solved independently at 80 digits.

    At an interior optimum with x = p/q, y = (1-p)/(1-q): the constraint is active,
    q x^a + (1-q) y^a = R, and grad g is parallel to (1, -e^eps):
    (a-1)(x^a - y^a) = a e^eps (x^(a-1) - y^(a-1)).  Unknowns (log x, log q); start from the
    small-q approximation x = a e^eps/(a-1), q = (R-1)/x^a.  delta* = q (x - e^eps).
    """
    with mpmath.workdps(80):
        a, e = mp(alpha), mp(epsilon)
        log_r = (a - 1) * mp(rho)

        def equations(lx, lq):
            q, x = mpmath.exp(lq), mpmath.exp(lx)
            ly = mpmath.log1p(-q * (x - 1) / (1 - q))
            ratio = mpmath.exp((a - 1) * (ly - lx))  # (y/x)^(a-1)
            tangent = (a - 1) * (1 - mpmath.exp(ly - lx) * ratio) - a * mpmath.exp(e - lx) * (1 - ratio)
            active = mpmath.exp(lq + a * lx - log_r) + mpmath.exp(mpmath.log1p(-q) + a * ly - log_r) - 1
            return [tangent, active]

        lx0 = e + mpmath.log(a / (a - 1))
        lx, lq = mpmath.findroot(equations, (lx0, mpmath.log(mpmath.expm1(log_r)) - a * lx0))
        return mpmath.exp(lq) * (mpmath.exp(lx) - mpmath.exp(e))


@pytest.mark.parametrize("alpha, rho, epsilon", [(300, 0.1, 1.3), (1e4, 0.01, 1000.0), (32, 0.5, 3.0),
                                                 (8, 0.2, 1.0), (2.5, 0.05, 0.2)])
def test_optimal_delta_first_order_conditions(alpha, rho, epsilon):
    assert_close(optimal_delta(alpha, rho, epsilon), kkt_delta(alpha, rho, epsilon), 28)


@pytest.mark.parametrize("alpha, rho, epsilon", [(300, 0.1, 1.3), (1e4, 0.01, 1000.0), (2, 0.1, 0.5),
                                                 (1.5, 0.01, 0.1), (32, 2.0, 5.0), (32, 0.1, 1.0),
                                                 (1.01, 2.0, 10.0)])
def test_optimal_epsilon_inverts_optimal_delta(alpha, rho, epsilon):
    delta = optimal_delta(alpha, rho, epsilon)
    with mpmath.workdps(60):
        error = abs(optimal_epsilon(alpha, rho, delta) - mp(epsilon))
        assert error <= mpmath.mpf(10) ** -28 * (1 + epsilon)


def test_optimal_conversion_edges():
    assert optimal_delta(4, 0.0, 1.0) == 0
    assert optimal_epsilon(4, 0.0, 1e-6) == 0
    assert optimal_epsilon(4, 0.1, optimal_delta(4, 0.1, 0.0) * 2) == 0
    assert optimal_epsilon(4, 0.1, 0.999) == 0
    with pytest.raises(ValueError):
        optimal_epsilon(4, 0.1, 0.0)
    with pytest.raises(ValueError):
        optimal_delta(1, 0.1, 0.0)
