"""The discrete Gaussian noise family ``N_Z(μ, σ²)`` on the integers.

Canonne, Kamath & Steinke 2020 (Def. 1): ``P(k) = e^{−(k − μ)²/2σ²}/C(σ)`` for every integer
``k``, ``C(σ) = Σ_j e^{−j²/2σ²}`` (the same for every integer ``μ``). The mechanism adds it to
an integer-valued query whose value changes by at most 1 per unit of the batch distance
(sensitivity 1), so every mean is an integer and a pair's divergences are sums over the
integers. Each sum runs over a window of integers wide enough that what lies beyond is below
``e^{−800}`` of the mass, and that remainder is bounded in closed form and added (the tails of
``e^{−(k − m)²/2σ²}`` beyond ``h ≥ m`` sum to at most ``∫_h^∞ e^{−(x − m)²/2σ²} dx``): in
doubles with an error estimate covering the rounding, and in ball arithmetic (python-flint's
arb) for certified enclosures.

Worst cases: one shift, ``N_Z(0)`` against ``N_Z(±1)``, is the pair of any query of
sensitivity 1 on the integers; groups and 003 Thm. 3.7's pattern take the Gaussian's collinear,
equidistant means on the integers, which no seed proves for the discrete Gaussian (it is not
rotation invariant): the verifier checks them by exact enumeration.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from otbound.errors import InvalidSpecification
from otbound.numerics.certified_rounding import (MAX_PRECISION, TARGET_BITS, _flint, _interval,
                                                 _precision, _relative_width)
from otbound.numerics.limits import show
from otbound.numerics.noise import NoiseFamily
from otbound.numerics.pairs import MixturePair, Side, log_sum_exp
from otbound.numerics.renyi import _log_psi_from_excess
from otbound.numerics.renyi_integrand import _phi_sensitivity, log_phi
from otbound.numerics.rounding import EPS, Bounds

WINDOW_REACH = 40.0
"""Half-width of the window beyond its means, in units of σ: ``e^{−REACH²/2} < e^{−800}``."""
MAX_SIGMA = 1e4
"""Largest σ: a window holds about ``2·WINDOW_REACH·σ`` integers."""


@functools.lru_cache(maxsize=64)
def log_normaliser(scale: float) -> float:
    """``log C(σ)``, ``C = 1 + 2 Σ_{j ≥ 1} e^{−j²/2σ²}`` summed exactly rounded (``math.fsum``)
    to ``j = ⌈WINDOW_REACH σ⌉``; the rest is below ``e^{−800}`` relative."""
    top = int(math.ceil(WINDOW_REACH * scale)) + 1
    j = np.arange(1, top + 1, dtype=float)
    return math.log(math.fsum([1.0, *(2 * np.exp(-(j * j) / (2 * scale * scale)))]))


def _log_gauss_tail(distance: np.ndarray, scale: float) -> np.ndarray:
    """``log ∫_d^∞ e^{−x²/2σ²} dx = log(σ√(2π)) + log Φ(−d/σ)``, which bounds
    ``Σ_{k > d} e^{−k²/2σ²}`` for ``d ≥ 0``."""
    from scipy.special import log_ndtr   # not at import: built-in settings run without scipy

    return math.log(scale * math.sqrt(2 * math.pi)) + log_ndtr(-np.asarray(distance) / scale)


class DiscreteGaussian(NoiseFamily):
    """``N_Z(μ, σ²)``: ``P(k) = e^{−(k − μ)²/2σ²}/C(σ)`` on the integers (see the module)."""

    name = "discrete-gaussian"
    parameter = "sigma"
    worst_case_source = ("one shift of an integer query of sensitivity 1: N_Z(0, σ²) against "
                         "N_Z(±1, σ²) (Canonne, Kamath & Steinke 2020); groups and 003 Thm. "
                         "3.7's pattern: the Gaussian's collinear, equidistant means, not in "
                         "the seeds for the discrete Gaussian; checked by otbound's verifier")
    constructor_doc = """Add discrete Gaussian noise ``N_Z(0, σ²)`` (Canonne, Kamath & Steinke
    2020) to an integer-valued function of the batch that changes by at most 1 per unit of the
    batch distance (``sensitivity`` must be 1: the noise is not scaled).

    >>> import otbound
    >>> setting = otbound.Subsampling("poisson", rate=0.01)
    >>> [f"{b.value:.6g}" for b in otbound.adp(setting, otbound.discrete_gaussian(2.0),
    ...                                         "tight", [0.0, 0.1])]
    ['0.00199471', '1.43624e-09']
    """

    def check_noise(self, scale: float, sensitivity: float) -> None:
        if sensitivity != 1:
            raise InvalidSpecification(
                f"the discrete Gaussian's sensitivity must be 1 (an integer query changing by "
                f"at most 1), got {show(sensitivity)}", parameter="sensitivity")
        if not scale <= MAX_SIGMA:
            raise InvalidSpecification(f"sigma of the discrete Gaussian must be at most "
                                       f"{MAX_SIGMA:g}, got {show(scale)}", parameter="sigma")

    def log_density(self, z, scale):
        return -0.5 * (np.asarray(z) / scale) ** 2 - log_normaliser(scale)

    def relative_log(self, means, z, scale):
        """``(μ z − μ²/2)/σ²``: ``C(σ)`` is the same for every integer mean."""
        mu, z = means[:, None], z[None, :]
        return (mu * z - 0.5 * mu * mu) / scale ** 2

    def reach(self, log_budget):
        """``P(X ≥ cσ) ≤ e^{−c²/2}`` (the discrete Gaussian is subgaussian, CKS 2020)."""
        return math.sqrt(2 * log_budget)

    def log_sup_ratio(self, p_means, p_log_weights, q_means, q_log_weights, scale):
        """The components with the largest mean dominate as ``k → ∞``."""
        if p_means.max() > q_means.max():
            return math.inf
        return float(log_sum_exp(p_log_weights[p_means == p_means.max()])
                     - log_sum_exp(q_log_weights[q_means == q_means.max()]))

    def sample(self, rng, size, scale):
        """CKS 2020 Algorithm 3: discrete Laplace proposals of scale ``t = ⌊σ⌋ + 1``, each kept
        with probability ``e^{−(|Y| − σ²/t)²/2σ²}``."""
        t = math.floor(scale) + 1
        found = np.empty(0, dtype=np.int64)
        while found.size < size:
            want = 2 * (size - found.size) + 16
            p = -math.expm1(-1 / t)
            y = rng.geometric(p, want) - rng.geometric(p, want)
            keep = rng.random(want) < np.exp(-(np.abs(y) - scale * scale / t) ** 2
                                             / (2 * scale * scale))
            found = np.concatenate([found, y[keep]])
        return found[:size].astype(float)

    # --- the divergences: sums over a window of integers --------------------------------------

    def delta_bounds(self, pair, epsilons, tolerance):
        """``δ(ε) = Σ_{ℓ_k > ε} P(k)(1 − e^{ε − ℓ_k})`` over the window (``ℓ_k`` the privacy
        loss), for every ε at once by suffix sums in the order of the losses, plus the mass of
        ``P`` beyond it. The error is ``(ρ + dℓ + 4nε_mach)(Σ P + e^ε Σ Q)`` over the terms
        whose loss can exceed ε (``ρ`` the relative error of each probability, ``dℓ`` its loss's
        absolute error, summed term by term): it covers the rounding of every term, of the sums
        and of the terms at the edge. No value is recomputed (``tolerance`` is not needed: the error is of the order
        of the rounding)."""
        k = _window(pair, 0.0)
        log_q, loss, loss_error = pair.loss_features(k)
        log_p = log_q + loss
        order = np.argsort(loss)
        loss, log_p, log_q = loss[order], log_p[order], log_q[order]
        # each term's relative error: a few ulps of its logarithms, and its loss's error
        relative = 8 * EPS * (1 + np.abs(log_p) + np.abs(log_q)) + loss_error[order]
        p, q = np.exp(log_p), np.exp(log_q)
        suffix_p, suffix_q, error_p, error_q = (
            np.concatenate([np.cumsum(v[::-1])[::-1], [0.0]])
            for v in (p, q, relative * p, relative * q))
        first = np.searchsorted(loss, epsilons, side="right")
        edge = np.searchsorted(loss + loss_error.max(), epsilons, side="right")

        def times_gamma(values: np.ndarray) -> np.ndarray:   # e^ε·values without overflow
            with np.errstate(divide="ignore", over="ignore"):
                return np.exp(np.minimum(epsilons + np.log(values), 700.0))

        delta = np.maximum(suffix_p[first] - times_gamma(suffix_q[first]), 0.0)
        rounding = 4 * k.size * EPS * (suffix_p[edge] + times_gamma(suffix_q[edge]))
        error = (error_p[edge] + times_gamma(error_q[edge]) + rounding
                 + math.exp(_log_outside(pair, Side.P, k)))
        return Bounds.rounded_up(np.minimum(delta, 1.0), error)

    def log_psi_values(self, pair, orders):
        """``Ψ_α − 1 = Σ_k Q(k) φ_α(P(k)/Q(k))`` over a window holding every peak of
        ``P^α Q^{1−α}``, plus the tail bound of :func:`_log_tail_psi`."""
        values, errors = np.empty(orders.size), np.empty(orders.size)
        for index, alpha in enumerate(orders):
            values[index], errors[index] = _log_psi(pair, float(alpha))
        return values, errors

    def certified_log_psi(self, pair, alpha):
        """``log Σ_k P(k)^α Q(k)^{1−α}`` in arb over the window, the tail bound added to the
        upper end; the precision doubles until the enclosure is narrow."""
        k = _window(pair, alpha)
        bits = 128 + 2 * int(math.log2(k.size + 2))
        while True:
            with _precision(bits):
                arb = _flint().arb
                p, q = _ball_side(pair, Side.P, k), _ball_side(pair, Side.Q, k)
                a = arb(alpha)
                total = sum((pk ** a * qk ** (1 - a) for pk, qk in zip(p, q)), arb(0))
                tail = arb(_log_tail_psi(pair, alpha, k)).exp() * (1 + arb(2) ** -20)
                low, high = total.log(), (total + tail).log()
                if bits >= MAX_PRECISION or _relative_width(low, high) < 2.0 ** -(
                        TARGET_BITS - 8):
                    return _interval(low, high)
            bits *= 2

    def certified_delta(self, pair, epsilon):
        """``Σ_k (P(k) − e^ε Q(k))_+`` in arb over the window; the mass of ``P`` beyond it is
        added to the upper end."""
        k = _window(pair, 0.0)
        with _precision(192):
            arb = _flint().arb
            gamma = arb(epsilon).exp()
            low, high = arb(0), arb(0)
            for pk, qk in zip(_ball_side(pair, Side.P, k), _ball_side(pair, Side.Q, k)):
                term = pk - gamma * qk
                if term > 0:
                    low, high = low + term, high + term
                elif not term < 0:
                    high += term.upper()
            high += arb(_log_outside(pair, Side.P, k)).exp() * (1 + arb(2) ** -20)
            return _interval(low, high)


DISCRETE_GAUSSIAN = DiscreteGaussian()


# --- windows and tails ---------------------------------------------------------------------

def _peaks(pair: MixturePair, alpha: float) -> np.ndarray:
    """The means, and for ``α > 1`` the centres ``α μ_i − (α − 1) ν_j`` of the Gaussian
    bounds of ``P^α Q^{1−α}`` (see :func:`_log_tail_psi`)."""
    means = np.concatenate([pair.p_means, pair.q_means])
    if alpha <= 1:
        return means
    crossed = alpha * pair.p_means[:, None] - (alpha - 1) * pair.q_means[None, :]
    return np.concatenate([means, crossed.ravel()])


def _window(pair: MixturePair, alpha: float) -> np.ndarray:
    """The integers within ``WINDOW_REACH σ`` of every peak's range."""
    peaks, reach = _peaks(pair, alpha), WINDOW_REACH * pair.scale + 2
    return np.arange(math.floor(peaks.min() - reach), math.ceil(peaks.max() + reach) + 1,
                     dtype=float)


def _log_outside(pair: MixturePair, side: Side, k: np.ndarray) -> float:
    """``log`` of a bound on the mass of one side beyond the window ``k``: every component's
    tails are at most those of the component nearest the window's edge, ``Σ_{j > d}
    e^{−j²/2σ²}/C ≤ ∫_d^∞ e^{−x²/2σ²} dx`` (``C ≥ 1``) at its distance ``d``."""
    means, _ = pair.components(side)
    right = _log_gauss_tail(np.array([k[-1] - means.max()]), pair.scale)[0]
    left = _log_gauss_tail(np.array([means.min() - k[0]]), pair.scale)[0]
    return float(np.logaddexp(right, left))


def _log_tail_psi(pair: MixturePair, alpha: float, k: np.ndarray) -> float:
    """``log`` of a bound on ``Σ_{k ∉ window} (P^α Q^{1−α} + (α − 1) Q)``, which bounds the
    rest of both ``Σ P^α Q^{1−α}`` and ``Σ Q φ_α(P/Q)`` (``φ_α(L) ≤ L^α + α − 1``). Beyond the
    right edge ``P(k) ≤ N_Z(k; μ_max)`` and ``Q(k) ≥ q_j N_Z(k; ν_j)``, so ``P^α Q^{1−α} ≤
    q_j^{1−α} e^{α(α−1)(μ_max − ν_j)²/2σ²} e^{−(k − m_j)²/2σ²}/C`` with ``m_j = α μ_max −
    (α − 1) ν_j``, the best ``j`` taken; the left edge likewise with ``μ_min``."""
    s, found = pair.scale, []
    for sign, edge in ((1.0, k[-1]), (-1.0, -k[0])):
        mu = float((sign * pair.p_means).max())
        nu, log_q = sign * pair.q_means, pair.q_log_weights
        centre = alpha * mu - (alpha - 1) * nu
        logs = ((1 - alpha) * log_q + alpha * (alpha - 1) * (mu - nu) ** 2 / (2 * s * s)
                + _log_gauss_tail(edge - centre, s))
        found.append(float(logs.min()))
        found.append(math.log(alpha - 1) + float(_log_gauss_tail(np.array([edge - nu.max()]),
                                                                  s)[0]))
    return float(log_sum_exp(np.array(found)))


def _log_psi(pair: MixturePair, alpha: float) -> tuple[float, float]:
    """``log Ψ_α`` at one order and its absolute error (see
    :meth:`DiscreteGaussian.log_psi_values`): each term ``log Q + log φ_α(e^ℓ)`` carries a few
    ulps of its magnitude and the loss's error through :func:`_phi_sensitivity`."""
    k = _window(pair, alpha)
    log_q, loss, loss_error = pair.loss_features(k)
    with np.errstate(divide="ignore"):
        terms = log_q + log_phi(alpha, loss)
    keep = np.isfinite(terms)
    log_sum = float(log_sum_exp(terms[keep])) if keep.any() else -math.inf
    shares = np.exp(terms[keep] - log_sum) if keep.any() else np.zeros(0)
    term_error = (_phi_sensitivity(alpha, loss[keep], loss_error[keep])
                  + 8 * EPS * (2 + np.abs(terms[keep]) + alpha * np.abs(loss[keep])))
    log_tail = _log_tail_psi(pair, alpha, k)
    log_excess = float(np.logaddexp(log_sum, log_tail))
    tail_share = math.exp(log_tail - log_excess) if math.isfinite(log_excess) else 0.0
    relative = float((shares * term_error).sum()) * (1 - tail_share) + tail_share \
        + 4 * k.size * EPS
    value, error = _log_psi_from_excess(np.array([log_excess]), relative)
    return float(value[0]), float(np.asarray(error).ravel()[0])


def _ball_side(pair: MixturePair, side: Side, k: np.ndarray) -> list:
    """``P(k)`` (or ``Q(k)``) at every integer of the window as arb balls, the weights
    normalised to sum to one and ``C(σ)`` enclosed with its tail."""
    arb = _flint().arb
    s = arb(pair.scale)
    top = int(math.ceil(WINDOW_REACH * pair.scale)) + 1
    norm = 1 + 2 * sum(((-arb(j) ** 2) / (2 * s * s)).exp() for j in range(1, top + 1))
    norm += arb(0).union(2 * arb(float(_log_gauss_tail(np.array([float(top)]),
                                                       pair.scale)[0])).exp())
    means, log_weights = pair.components(side)
    weights = [arb(float(w)).exp() for w in log_weights]
    total = sum(weights, arb(0))
    return [sum((w / total * (-((arb(float(z)) - arb(float(m))) ** 2) / (2 * s * s)).exp()
                 for m, w in zip(means, weights)), arb(0)) / norm for z in k]
