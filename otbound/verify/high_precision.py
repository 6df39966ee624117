"""High-precision reference values by mpmath quadrature — slow, independent, for checking.

These functions share no numerical code with :mod:`otbound.numerics.renyi` and
:mod:`otbound.numerics.hockey_stick`: densities are evaluated directly in mpmath at ``dps``
digits and integrated with tanh-sinh quadrature on intervals split at every place where the
integrand can peak or bend (component means, the plateau points ``α μ_i + (1 − α) ν_j``, and a
few standard deviations around them). They are the oracle of the test suite and the slow side of
the benchmarks; production code never imports them.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np

from otbound.numerics.pairs import MixturePair, Side
from otbound.verify.noise_references import density_reference


def _log_density(pair: MixturePair, side: Side):
    """The log-density of one side of the pair as a function of ``z``, at the working
    precision (its weights renormalised and constants taken once, not at every point)."""
    means, rounded = pair.components(side)
    exact = [mp.mpf(w) for w in rounded]
    # Weights rounded to doubles sum to 1 only up to ~1e-16: renormalise at full precision.
    norm = mp.log(mp.fsum(mp.exp(w) for w in exact))
    components = [(mp.mpf(m), w - norm) for m, w in zip(means, exact)]
    s, noise = mp.mpf(pair.scale), density_reference(pair.family)
    constant = noise.precise_log_peak(s)

    def log_density(z):
        terms = [w - noise.precise_decay(z - m, s) for m, w in components]
        top = max(terms)
        return top + mp.log(mp.fsum(mp.exp(t - top) for t in terms)) + constant

    return log_density


def _breakpoints(pair: MixturePair, alpha) -> list:
    means = sorted(set(float(m) for m in list(pair.p_means) + list(pair.q_means)))
    points = set(means)
    points.update(density_reference(pair.family).extra_breakpoints(pair, alpha, means))
    return sorted(points)


def precise_log_psi(pair: MixturePair, alpha, dps: int = 40):
    """``(log Ψ_α(P ‖ Q), error estimate of log Ψ)`` as mpmath numbers."""
    with mp.workdps(dps):
        alpha = mp.mpf(alpha)
        log_p, log_q = _log_density(pair, Side.P), _log_density(pair, Side.Q)

        def g(z):
            return alpha * log_p(z) + (1 - alpha) * log_q(z)

        points = _breakpoints(pair, alpha)
        top = max(g(mp.mpf(z)) for z in points)
        value, error = mp.quad(lambda z: mp.exp(g(z) - top), [-mp.inf] + points + [mp.inf],
                               error=True, maxdegree=10)
        return mp.log(value) + top, error / value


def precise_hockey_stick(pair: MixturePair, epsilon, dps: int = 60):
    """``(H_{e^ε}(P ‖ Q), error estimate)`` for pairs whose likelihood ratio increases."""
    with mp.workdps(dps):
        epsilon = mp.mpf(epsilon)
        log_p, log_q = _log_density(pair, Side.P), _log_density(pair, Side.Q)

        def loss(z):
            return log_p(z) - log_q(z)

        lo, hi = mp.mpf(-1), mp.mpf(1)
        while loss(hi) <= epsilon:
            if hi > 1e7:
                return mp.mpf(0), mp.mpf(0)
            hi *= 2
        while loss(lo) > epsilon:
            lo *= 2
        for _ in range(dps * 4):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if loss(mid) <= epsilon else (lo, mid)
        root = hi
        gamma = mp.exp(epsilon)

        # mp.quad stops on an absolute error test: rescale the integrand to order one.
        scale = log_p(root)

        def excess(z):
            return mp.exp(log_p(z) - scale) - gamma * mp.exp(log_q(z) - scale)

        near_root = [root + k * pair.scale for k in range(1, 40)]
        points = sorted({root, *near_root, *(p for p in _breakpoints(pair, 1) if p > root)})
        points.append(mp.inf)
        value, error = mp.quad(excess, points, error=True, maxdegree=10)
        return value * mp.exp(scale), error * mp.exp(scale)


def multinomial_log_psi(pair: MixturePair, alpha: int, dps: int = 50):
    """``log Ψ_α(Σ_k w_k N(k, s²) ‖ N(0, s²))`` for integer α by 001 App. G.5, in mpmath.

    ``Ψ_α = Σ_S [t^S] (Σ_k w_k e^{−k²/2s²} t^k)^α · e^{S²/2s²}``: a polynomial power, no
    quadrature. Its cost grows like ``α² K²`` and it cancels badly in double precision for tiny
    divergences, so otbound uses it only as an oracle.
    """
    if not density_reference(pair.family).multinomial_form or list(pair.q_means) != [0]:
        raise ValueError("the multinomial form needs Q = N(0, s²) and Gaussian components")
    with mp.workdps(dps):
        s2 = mp.mpf(pair.scale) ** 2
        degree = int(max(pair.p_means))
        weights = [mp.exp(mp.mpf(w)) for w in pair.p_log_weights]
        norm = mp.fsum(weights)   # doubles sum to 1 only up to ~1e-16: renormalise
        base = [mp.mpf(0)] * (degree + 1)
        for mean, weight in zip(pair.p_means, weights):
            k = int(mean)
            base[k] += weight / norm * mp.exp(-mp.mpf(k * k) / (2 * s2))
        power = [mp.mpf(1)]
        for _ in range(int(alpha)):
            grown = [mp.mpf(0)] * (len(power) + degree)
            for i, a in enumerate(power):
                for k, b in enumerate(base):
                    grown[i + k] += a * b
            power = grown
        return mp.log(mp.fsum(c * mp.exp(mp.mpf(S * S) / (2 * s2)) for S, c in enumerate(power)))


# --- mixture weights written by hand: oracles for the derived bounds (tests, benchmarks) ---

def log_binomial_weights(count: int, rate: float) -> np.ndarray:
    """``log Binom(i | count, rate)`` for ``i = 0 … count``, correctly rounded (formed in
    mpmath from the exact rate), so that each weight is off by at most an ulp of its logarithm."""
    with mp.workdps(40):
        r = mp.mpf(rate)
        log_r = mp.log(r) if rate > 0 else None
        log_keep = mp.log1p(-r) if rate < 1 else None

        def log_weight(i: int) -> float:
            if (i > 0 and log_r is None) or (i < count and log_keep is None):
                return -math.inf
            # (checked just above: log_r is known where i > 0, log_keep where i < count)
            return float(mp.log(math.comb(count, i))
                         + (i * log_r if i and log_r is not None else 0)
                         + ((count - i) * log_keep if i < count and log_keep is not None else 0))

        return np.array([log_weight(i) for i in range(count + 1)])


def log_hypergeometric_weights(size: int, group: int, batch: int) -> np.ndarray:
    """``log HyperGeom(k | N, K, q) = log[C(K, k) C(N − K, q − k) / C(N, q)]`` for
    ``k = 0 … K`` (``−inf`` where impossible), to a few ulps for any ``N``.

    The log-gamma sums are formed in mpmath with enough digits to survive the cancellation
    between terms of size ``N log N``."""
    with mp.workdps(30 + len(str(size))):
        def log_choose(n: int, k: int):
            return mp.loggamma(n + 1) - mp.loggamma(k + 1) - mp.loggamma(n - k + 1)

        total = log_choose(size, batch)
        return np.array([float(log_choose(group, k) + log_choose(size - group, batch - k) - total)
                         if 0 <= batch - k <= size - group and k <= batch else -math.inf
                         for k in range(group + 1)])
