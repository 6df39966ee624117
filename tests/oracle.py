"""Independent high-precision reference values (a test oracle) for otbound's numerics.

Nothing here imports ``otbound``: the oracle re-derives every quantity from its definition, with
exact rational arithmetic where possible, mpmath at >= 60 decimal digits, and python-flint's
rigorous ball arithmetic (arb, >= 256 bits) where it integrates.  Every input is treated as the
exact binary number it is (floats go through ``fractions.Fraction`` or ``mpmath.mpf`` exactly,
never through decimal strings), and every value returned is accurate to >= 30 significant digits.

Notation.  For densities (or mass functions) P, Q and alpha > 1

    Psi_alpha(P || Q) = int P^alpha Q^(1 - alpha)     (Renyi DP: eps(alpha) = log Psi / (alpha - 1)),
    H_gamma(P || Q)   = int max(P - gamma Q, 0)        (hockey stick: delta(eps) = H_{e^eps}),

and phi_alpha(L) = L^alpha - 1 - alpha (L - 1) >= 0, so that Psi - 1 = int Q phi_alpha(P / Q):
computing Psi - 1 this way keeps the relative precision of tiny divergences.

Sections:
  1. randomized response (exact Bernoulli pairs),
  2. Gaussian and Laplace mixture pairs (rigorous quadrature, root finding for delta),
  3. optimal RDP -> (eps, delta) conversion (Asoodeh et al. 2021).
"""

from __future__ import annotations

import math
import numbers
import operator
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from math import comb
from typing import Callable, Sequence

import mpmath
from flint import acb, arb, ctx, fmpq, fmpz
from mpmath import mpf

Number = int | float | Fraction | mpf

DPS = 60            # mpmath working precision (decimal digits)
PREC = 256          # initial arb working precision for quadrature (bits)
GOAL_BITS = 110     # relative accuracy demanded of every integral (~33 digits)
_MAX_PASSES = 6     # quadrature retries (each with more precision and a smaller tail budget)
_EXACT_BITS = 2_000_000  # integer-alpha RR: exact rationals while alpha * (denominator bits) <= this

__all__ = [
    "exact", "to_mpf",
    "rr_log_psi", "rr_delta",
    "rr_poisson_log_psi", "rr_poisson_group_log_psi", "rr_wor_log_psi",
    "rr_poisson_delta", "rr_poisson_group_delta", "rr_wor_delta",
    "Mixture", "poisson_group_pair", "mixture_log_psi", "mixture_delta",
    "gaussian_removal_log_psi",
    "optimal_delta", "optimal_epsilon",
]


# ------------------------------------------------------------------------------------------------
# Exact conversions
# ------------------------------------------------------------------------------------------------

def exact(x: Number) -> Fraction:
    """The exact rational value of an int, binary float, Fraction or finite mpf."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, (int, float)):
        return Fraction(x)  # exact for floats; raises on nan/inf
    if isinstance(x, numbers.Integral):  # e.g. numpy integers
        return Fraction(int(x))
    if isinstance(x, mpf):
        if not mpmath.isfinite(x):
            raise ValueError(f"not finite: {x}")
        man, exp = x.man_exp
        return Fraction(man << exp) if exp >= 0 else Fraction(man, 1 << -exp)
    raise TypeError(f"not a real number: {x!r}")


def to_mpf(x: Number) -> mpf:
    """``x`` correctly rounded to the current mpmath precision (exact for floats).

    mpf inputs are rounded directly (no Fraction detour: an mpf like 1e-4000000 would make
    Fraction's gcd normalisation crawl)."""
    if isinstance(x, mpf):
        if not mpmath.isfinite(x):
            raise ValueError(f"not finite: {x}")
        return +x
    if isinstance(x, float):
        if not math.isfinite(x):
            raise ValueError(f"not finite: {x}")
        return mpf(x)
    q = exact(x)
    return mpf(mpmath.libmp.from_rational(q.numerator, q.denominator, mpmath.mp.prec, "n"))


def _arb(x: Number) -> arb:
    """``x`` as an arb ball at the current flint precision (exact for dyadic inputs)."""
    q = exact(x)
    return arb(fmpq(q.numerator, q.denominator))


def _arb_to_mpf(x: arb) -> mpf:
    """The midpoint of an arb ball as an mpf (rounded to the current mpmath precision)."""
    man, exp = x.mid().man_exp()
    return mpmath.ldexp(mpf(int(man)), int(exp))


def _log10_abs(x: Fraction) -> float:
    """log10 |x| for a nonzero Fraction, without float under/overflow (math.log10 takes big ints)."""
    return math.log10(abs(x.numerator)) - math.log10(x.denominator)


def _check_alpha(alpha: Number) -> Fraction:
    a = exact(alpha)
    if not a > 1:
        raise ValueError(f"alpha must be > 1, got {alpha}")
    return a


# ------------------------------------------------------------------------------------------------
# 1. Randomized response: exact Bernoulli pairs
# ------------------------------------------------------------------------------------------------

def _bernoulli_psi_minus_one_integer(p: Fraction, q: Fraction, n: int) -> tuple[fmpz, fmpz]:
    """Psi_n - 1 = num / den exactly, for Bern(p) || Bern(q) and integer n >= 2.

    With p = a/d and q = b/e,  Psi_n = p^n q^(1-n) + (1-p)^n (1-q)^(1-n)
      = e^(n-1) [a^n (e-b)^(n-1) + (d-a)^n b^(n-1)] / [d^n b^(n-1) (e-b)^(n-1)].
    GMP integers (fmpz) keep this fast for n up to 10^4.
    """
    a, d, b, e = (fmpz(v) for v in (p.numerator, p.denominator, q.numerator, q.denominator))
    num = e ** (n - 1) * (a ** n * (e - b) ** (n - 1) + (d - a) ** n * b ** (n - 1))
    den = d ** n * b ** (n - 1) * (e - b) ** (n - 1)
    return num - den, den


def _ratio_to_mpf(num: fmpz, den: fmpz) -> mpf:
    """num / den (integers of any size) to the current mpmath precision, via one big division."""
    if num == 0:
        return mpf(0)
    sign = -1 if num < 0 else 1
    num = abs(num)
    shift = int(den.bit_length()) - int(num.bit_length()) + mpmath.mp.prec + 64
    quotient = (num << shift) // den if shift >= 0 else (num >> -shift) // den
    return sign * mpmath.ldexp(mpf(int(quotient)), -shift)


def _phi_term(q: Fraction, u: Fraction, alpha: mpf) -> mpf:
    """q * phi_alpha(1 + u) = q [ (1+u)^alpha - 1 - alpha u ]  (u = p/q - 1, exact)."""
    if u == 0:
        return mpf(0)
    if u == -1:
        return to_mpf(q) * (alpha - 1)
    x = to_mpf(u)
    return to_mpf(q) * (mpmath.expm1(alpha * mpmath.log1p(x)) - alpha * x)


def rr_log_psi(p1: Number, q1: Number, alpha: Number) -> mpf:
    """log Psi_alpha(Bern(p1) || Bern(q1)) with P = (1 - p1, p1), Q = (1 - q1, q1); 0 < q1 < 1.

    Integer alpha: Psi - 1 as an exact rational (``_bernoulli_psi_minus_one_integer``), as long as
    the integers stay below ~_EXACT_BITS bits (alpha = 10^4 with 500-bit denominators would cost
    0.25 s per pair; beyond that the mpmath route below is used, which is just as accurate).
    Otherwise Psi - 1 = sum_i q_i phi_alpha(p_i / q_i) in mpmath, with enough extra digits to
    absorb the cancellation inside phi(1 + u) ~ alpha (alpha - 1) u^2 / 2 (about
    log10(2 / ((alpha - 1) |u|)) digits).  Returns log1p(Psi - 1).
    """
    p, q, a = exact(p1), exact(q1), _check_alpha(alpha)
    if not (0 <= p <= 1 and 0 < q < 1):
        raise ValueError(f"need 0 <= p1 <= 1 and 0 < q1 < 1, got {p1}, {q1}")
    size = a * (p.denominator.bit_length() + q.denominator.bit_length())
    with mpmath.workdps(DPS):
        if a.denominator == 1 and size <= _EXACT_BITS:
            excess = _ratio_to_mpf(*_bernoulli_psi_minus_one_integer(p, q, int(a)))
            return mpmath.log1p(excess)
        return _bernoulli_log_psi_mpmath(p, q, a)


def _bernoulli_log_psi_mpmath(p: Fraction, q: Fraction, a: Fraction) -> mpf:
    """log Psi_a(Bern(p) || Bern(q)) = log1p(sum_i q_i phi_a(p_i / q_i)) in mpmath, any real a > 1."""
    us = [(q, (p - q) / q), (1 - q, (q - p) / (1 - q))]
    smallest = min((abs(u) for _, u in us if u != 0), default=Fraction(1))
    lost = -_log10_abs(Fraction(a - 1) * smallest / 2)
    with mpmath.workdps(DPS + 10 + max(0, math.ceil(lost))):
        alpha_m = to_mpf(a)
        result = mpmath.log1p(sum((_phi_term(w, u, alpha_m) for w, u in us), mpf(0)))
    return +result


def rr_delta(p1: Number, q1: Number, epsilon: Number) -> mpf:
    """H_{e^eps}(Bern(p1) || Bern(q1)) = sum_i max(p_i - e^eps q_i, 0), in mpmath.

    p_i, q_i are exact; e^eps is transcendental for rational eps != 0, so p_i - e^eps q_i != 0 and
    the precision is raised until every such difference has >= 35 correct digits.
    """
    p, q, eps = exact(p1), exact(q1), exact(epsilon)
    if not (0 <= p <= 1 and 0 <= q <= 1):
        raise ValueError(f"need probabilities, got {p1}, {q1}")
    pairs = [(p, q), (1 - p, 1 - q)]
    if eps == 0:
        with mpmath.workdps(DPS):
            return to_mpf(sum((max(pi - qi, Fraction(0)) for pi, qi in pairs), Fraction(0)))
    dps = DPS
    while True:
        with mpmath.workdps(dps):
            gamma = mpmath.exp(to_mpf(eps))
            terms = [(to_mpf(pi) - gamma * to_mpf(qi), to_mpf(pi) + gamma * to_mpf(qi))
                     for pi, qi in pairs]
            resolved = all(t == 0 if size == 0 else abs(t) > mpmath.ldexp(size, -mpmath.mp.prec + 120)
                           for t, size in terms)
            total = sum((max(t, 0) for t, _ in terms), mpf(0))
        if resolved or dps > 20000:
            break
        dps *= 2
    with mpmath.workdps(DPS):
        return +total


def _rr_corners(pi_p: Fraction, pi_q: Fraction, theta: Fraction) -> list[tuple[Fraction, Fraction]]:
    """The Bernoulli pairs (p1, q1) at the 8 corners (c, a, b) in {0, 1}^3:

    A = c pi_P + a (1 - pi_P),  B = c pi_Q + b (1 - pi_Q),
    p1 = (1 - theta) + (2 theta - 1) A,  q1 = (1 - theta) + (2 theta - 1) B.
    """
    pairs = set()
    for c, a, b in product((0, 1), repeat=3):
        big_a = c * pi_p + a * (1 - pi_p)
        big_b = c * pi_q + b * (1 - pi_q)
        pairs.add(((1 - theta) + (2 * theta - 1) * big_a, (1 - theta) + (2 * theta - 1) * big_b))
    return sorted(pairs)


def _check_theta(theta: Number) -> Fraction:
    t = exact(theta)
    if not 0 < t < 1:
        raise ValueError(f"theta must lie in (0, 1), got {theta}")
    return t


def _check_count(name: str, k: int) -> int:
    if isinstance(k, bool) or operator.index(k) < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {k!r}")
    return operator.index(k)


def _poisson_pis(rate: Number, inserted: int, removed: int) -> tuple[Fraction, Fraction]:
    """(pi_P, pi_Q) = ((1 - r)^K-, (1 - r)^K+): no removed / inserted element in the batch."""
    r = exact(rate)
    if not 0 <= r <= 1:
        raise ValueError(f"rate must lie in [0, 1], got {rate}")
    inserted, removed = _check_count("inserted", inserted), _check_count("removed", removed)
    return (1 - r) ** removed, (1 - r) ** inserted


def _wor_pi(batch_size: int, dataset_size: int, substitutions: int) -> Fraction:
    """pi = C(N - K, q) / C(N, q): a size-q batch avoids all K substituted elements (0 if q > N - K)."""
    for name, v in (("batch_size", batch_size), ("dataset_size", dataset_size),
                    ("substitutions", substitutions)):
        _check_count(name, v)
    if batch_size > dataset_size or substitutions > dataset_size:
        raise ValueError("need batch_size <= dataset_size and substitutions <= dataset_size")
    return Fraction(comb(dataset_size - substitutions, batch_size), comb(dataset_size, batch_size))


def _rr_worst(divergence, pi_p, pi_q, theta: Number, point: Number) -> mpf:
    """The largest ``divergence(p, q, point)`` over the output pairs of ``_rr_corners``."""
    return max([divergence(p, q, point) for p, q in _rr_corners(pi_p, pi_q, _check_theta(theta))])


def rr_poisson_log_psi(rate: Number, theta: Number, inserted: int, removed: int,
                       alpha: Number) -> mpf:
    """Worst-case log Psi_alpha of Poisson-subsampled randomized response, K+ inserted, K- removed."""
    return _rr_worst(rr_log_psi, *_poisson_pis(rate, inserted, removed), theta, alpha)


def rr_poisson_group_log_psi(rate: Number, theta: Number, group: int, alpha: Number) -> mpf:
    """Maximum of ``rr_poisson_log_psi`` over the shapes (K+, K-) = (k, K - k), k = 0..K."""
    _check_count("group", group)
    return max([rr_poisson_log_psi(rate, theta, k, group - k, alpha) for k in range(group + 1)])


def rr_wor_log_psi(batch_size: int, dataset_size: int, substitutions: int, theta: Number,
                   alpha: Number) -> mpf:
    """Worst-case log Psi_alpha of RR under sampling without replacement, K-fold substitution."""
    pi = _wor_pi(batch_size, dataset_size, substitutions)
    return _rr_worst(rr_log_psi, pi, pi, theta, alpha)


def rr_poisson_delta(rate: Number, theta: Number, inserted: int, removed: int,
                     epsilon: Number) -> mpf:
    """Worst-case delta(eps) of Poisson-subsampled randomized response, K+ inserted, K- removed."""
    return _rr_worst(rr_delta, *_poisson_pis(rate, inserted, removed), theta, epsilon)


def rr_poisson_group_delta(rate: Number, theta: Number, group: int, epsilon: Number) -> mpf:
    """Maximum of ``rr_poisson_delta`` over the shapes (K+, K-) = (k, K - k), k = 0..K."""
    _check_count("group", group)
    return max([rr_poisson_delta(rate, theta, k, group - k, epsilon) for k in range(group + 1)])


def rr_wor_delta(batch_size: int, dataset_size: int, substitutions: int, theta: Number,
                 epsilon: Number) -> mpf:
    """Worst-case delta(eps) of RR under sampling without replacement, K-fold substitution."""
    pi = _wor_pi(batch_size, dataset_size, substitutions)
    return _rr_worst(rr_delta, pi, pi, theta, epsilon)


# ------------------------------------------------------------------------------------------------
# 2. Gaussian and Laplace mixture pairs
# ------------------------------------------------------------------------------------------------

FAMILIES = ("gaussian", "laplace")


@dataclass(frozen=True)
class Mixture:
    """P = sum_i w_i D(z; mu_i, s) versus Q = sum_j v_j D(z; nu_j, s) on the real line.

    D is N(mu, s^2) (``family="gaussian"``) or Laplace(mu, s) with density e^(-|z-mu|/s) / (2s)
    (``family="laplace"``).  Means, scale and weights are taken as exact numbers; the weights are
    renormalised to sum 1 exactly (as Fractions).
    """

    family: str
    scale: Number
    p_means: tuple[Number, ...]
    p_weights: tuple[Number, ...]
    q_means: tuple[Number, ...]
    q_weights: tuple[Number, ...]

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ValueError(f"family must be one of {FAMILIES}, got {self.family!r}")
        if not exact(self.scale) > 0:
            raise ValueError(f"scale must be > 0, got {self.scale}")
        for name in ("p_means", "p_weights", "q_means", "q_weights"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        for means, weights in ((self.p_means, self.p_weights), (self.q_means, self.q_weights)):
            if len(means) != len(weights) or not means:
                raise ValueError("each side needs as many weights as means (and at least one)")
            ws = [exact(w) for w in weights]
            if min(ws) < 0 or sum(ws) <= 0:
                raise ValueError("weights must be >= 0 with a positive sum")


@dataclass(frozen=True)
class _Standard:
    """A mixture in standard units t = z / s: components (mean / s, normalised weight > 0)."""

    gaussian: bool
    p: tuple[tuple[Fraction, Fraction], ...]
    q: tuple[tuple[Fraction, Fraction], ...]

    @property
    def equal_sides(self) -> bool:
        return self.p == self.q


def _standardise_side(means: Sequence[Number], weights: Sequence[Number],
                      scale: Fraction) -> tuple[tuple[Fraction, Fraction], ...]:
    ws = [exact(w) for w in weights]
    total = sum(ws)
    merged: dict[Fraction, Fraction] = {}
    for m, w in zip(means, ws):
        if w > 0:
            key = exact(m) / scale
            merged[key] = merged.get(key, Fraction(0)) + w / total
    return tuple(sorted(merged.items()))


def _standardise(mixture: Mixture) -> _Standard:
    s = exact(mixture.scale)
    return _Standard(mixture.family == "gaussian",
                     _standardise_side(mixture.p_means, mixture.p_weights, s),
                     _standardise_side(mixture.q_means, mixture.q_weights, s))


def _binomial_weights(n: int, r: Fraction) -> tuple[Fraction, ...]:
    return tuple(comb(n, i) * r ** i * (1 - r) ** (n - i) for i in range(n + 1))


def poisson_group_pair(rate: Number, inserted: int, removed: int, *, family: str = "gaussian",
                       scale: Number = 1.0) -> Mixture:
    """Dominating pair of Poisson subsampling (rate r) with K+ = inserted and K- = removed.

    In units of the sensitivity: P has means 0, 1, ..., K- with weights Binom(i | K-, r) and Q has
    means 0, -1, ..., -K+ with weights Binom(j | K+, r); the weights are exact Fractions of the
    float r.  ``family`` and ``scale`` (sigma, or the Laplace scale) choose the base mechanism.
    """
    r = exact(rate)
    if not 0 <= r <= 1:
        raise ValueError(f"rate must lie in [0, 1], got {rate}")
    inserted, removed = _check_count("inserted", inserted), _check_count("removed", removed)
    return Mixture(family, scale, tuple(range(removed + 1)), _binomial_weights(removed, r),
                   tuple(-j for j in range(inserted + 1)), _binomial_weights(inserted, r))


# --- holomorphic log-sum-exp in ball arithmetic -------------------------------------------------

Integrand = Callable[[acb, bool], acb]


@dataclass(frozen=True)
class _ExpTerms:
    """sum_k exp(c_k + a_k t) with real c_k, a_k (arb) and float copies to pick the dominant term."""

    c: tuple[arb, ...]
    a: tuple[arb, ...]
    c_float: tuple[float, ...]
    a_float: tuple[float, ...]

    @staticmethod
    def make(pairs: Sequence[tuple[arb, arb]]) -> "_ExpTerms":
        c, a = zip(*pairs)
        return _ExpTerms(tuple(c), tuple(a), tuple(float(x) for x in c), tuple(float(x) for x in a))

    def parts(self, t: acb, analytic: bool) -> tuple[arb, arb, acb]:
        """(c_k, a_k, Log inner) with log sum_k exp(c_k + a_k t) = c_k + a_k t + Log inner.

        k is the term that dominates at Re(mid t), and inner = 1 + sum_{i != k} exp(...).  On the
        real line inner >= 1, so the principal Log is the analytic continuation of the real log;
        ``analytic=True`` makes arb return a non-finite ball when a ball touches the branch cut
        (acb.integral then subdivides).  Keeping c_k + a_k t apart lets the caller combine the
        linear parts of several logs before evaluating them (no dependency blow-up).
        """
        x = float(t.real.mid())
        k = max(range(len(self.c)), key=lambda i: self.c_float[i] + self.a_float[i] * x)
        ck, ak = self.c[k], self.a[k]
        inner = acb(1)
        for i in range(len(self.c)):
            if i != k:
                inner += ((self.c[i] - ck) + (self.a[i] - ak) * t).exp()
        return ck, ak, inner.log(analytic=analytic)


def _gaussian_terms(side: Sequence[tuple[Fraction, Fraction]]) -> _ExpTerms:
    """P(t) = sum_i w_i N(t; m_i, 1) = e^(-t^2/2) / sqrt(2 pi) sum_i exp(log w_i - m_i^2/2 + m_i t)."""
    return _ExpTerms.make([(_arb(w).log() - _arb(m) ** 2 / 2, _arb(m)) for m, w in side])


def _laplace_terms(side: Sequence[tuple[Fraction, Fraction]], left: Fraction,
                   right: Fraction) -> _ExpTerms:
    """P(t) = sum_i (w_i / 2) e^(-|t - m_i|) on a piece [left, right] with no mean inside."""
    pairs = []
    for m, w in side:
        lw = _arb(w / 2).log()
        if m >= right:
            pairs.append((lw - _arb(m), arb(1)))
        else:
            assert m <= left
            pairs.append((lw + _arb(m), arb(-1)))
    return _ExpTerms.make(pairs)


def _gaussian_exponent(c: arb, a: arb, t: acb) -> acb:
    """c + a t - t^2/2 - log sqrt(2 pi), written as -(t - a)^2/2 + (a^2/2 + c - log sqrt(2 pi))
    so that ball arithmetic sees the cancellation between the linear and quadratic parts."""
    u = t - a
    return -u * u / 2 + (a * a / 2 + c - (2 * arb.pi()).log() / 2)


def _laplace_exponent(c: arb, a: arb, t: acb) -> acb:
    """c + a t (the factor 1/2 of the Laplace density is in the weights)."""
    return c + a * t


def _phi_integrand(alpha: Fraction, exponent: Callable[[arb, arb, acb], acb], lp: _ExpTerms,
                   lq: _ExpTerms) -> Integrand:
    """t -> Q(t) phi_alpha(P(t) / Q(t)), holomorphic near the real axis.

    log P = exponent(c_P, a_P, t) + Log inner_P (likewise Q) and Lam = log P - log Q.  Where
    (alpha - 1) Lam <= log(alpha) + 8 it evaluates Q [expm1(alpha Lam) - alpha expm1(Lam)] (no
    cancellation when P ~ Q).  Beyond, Q L^alpha exceeds alpha P and (alpha - 1) Q by > e^8 and it
    evaluates e^(log Q + alpha Lam) - alpha P + (alpha - 1) Q, with the exponent of
    P^alpha Q^(1-alpha) combined into one quadratic before the ball evaluation (its huge linear
    and quadratic parts cancel near the peak).  Both are the same function, so choosing per ball
    keeps the enclosure rigorous.
    """
    a = _arb(alpha)
    alpha_f = float(alpha)
    switch = math.log(alpha_f) + 8

    def f(t: acb, analytic: bool) -> acb:
        cp, ap, ip = lp.parts(t, analytic)
        cq, aq, iq = lq.parts(t, analytic)
        log_q = exponent(cq, aq, t) + iq
        lam = (cp - cq) + (ap - aq) * t + (ip - iq)
        if (alpha_f - 1) * float(lam.real.mid()) <= switch:
            return log_q.exp() * ((a * lam).expm1() - a * lam.expm1())
        log_p = exponent(cp, ap, t) + ip
        log_top = exponent(a * cp + (1 - a) * cq, a * ap + (1 - a) * aq, t) + a * ip + (1 - a) * iq
        return log_top.exp() - a * log_p.exp() + (a - 1) * log_q.exp()

    return f


def _phi_arb(alpha: arb, log_l: arb) -> arb:
    """phi_alpha(e^log_l) = expm1(alpha log_l) - alpha expm1(log_l)."""
    return (alpha * log_l).expm1() - alpha * log_l.expm1()


# --- integration plans -----------------------------------------------------------------------

@dataclass
class _Plan:
    """Pieces [lo, hi] to integrate numerically, plus a rigorous enclosure of everything else."""

    pieces: list[tuple[arb, arb, Integrand]]
    rest: arb


def _gaussian_bounding_components(std: _Standard, alpha: Fraction) -> list[tuple[arb, arb]]:
    """(centre, log C) of a Gaussian mixture sum_k C_k N(t; centre_k, 1) dominating Q phi(P/Q).

    x^alpha y^(1-alpha) is jointly convex (perspective of x^alpha), so with P = sum w_i p_i,
    Q = sum v_j q_j:  P^alpha Q^(1-alpha) <= sum_ij w_i v_j p_i^alpha q_j^(1-alpha), and
    N(m)^alpha N(n)^(1-alpha) = e^(alpha (alpha-1) (m-n)^2 / 2) N(alpha m + (1-alpha) n).
    Moreover Q phi(P/Q) = P^alpha Q^(1-alpha) - alpha P + (alpha - 1) Q <= P^alpha Q^(1-alpha) +
    (alpha - 1) Q, which adds the components (alpha - 1) v_j N(n_j).
    """
    a = _arb(alpha)
    comps = []
    for (m, w), (n, v) in product(std.p, std.q):
        centre = a * _arb(m) + (1 - a) * _arb(n)
        comps.append((centre, _arb(w * v).log() + a * (a - 1) * _arb(m - n) ** 2 / 2))
    for n, v in std.q:
        comps.append((_arb(n), _arb((alpha - 1) * v).log()))
    return comps


def _merge(intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Union of closed intervals as a sorted list of disjoint intervals."""
    merged: list[tuple[float, float]] = []
    for lo, hi in sorted(intervals):
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


def _split(lo: float, hi: float, cuts: list[float], longest: float) -> list[tuple[float, float]]:
    """[lo, hi] cut at the given points inside it and into parts no longer than ``longest``."""
    points = sorted({lo, hi, *(c for c in cuts if lo < c < hi)})
    out = []
    for a, b in zip(points, points[1:]):
        n = max(1, math.ceil((b - a) / longest))
        edges = [a] + [a + (b - a) * k / n for k in range(1, n)] + [b]
        out.extend(zip(edges, edges[1:]))
    return out


def _mass_outside(centre: arb, lo: float, hi: float) -> arb:
    """Mass of N(centre, 1) outside [lo, hi]: (erfc((c - lo)/sqrt 2) + erfc((hi - c)/sqrt 2)) / 2."""
    root2 = arb(2).sqrt()
    return (((centre - arb(lo)) / root2).erfc() + ((arb(hi) - centre) / root2).erfc()) / 2


def _gaussian_plan(std: _Standard, alpha: Fraction, f: Integrand, log_tau: float) -> _Plan:
    """Windows around the bounding components, sized so the neglected mass is <= ~e^log_tau.

    Tail argument: the integrand is >= 0 and <= sum_k C_k N(t; c_k, 1) (see
    ``_gaussian_bounding_components``).  Component k gets the window c_k +- W_k with
    W_k = sqrt(2 (log C_k + log n - log tau)) (none if that is negative), so that
    C_k e^(-W_k^2/2) <= tau / n.  The integral over the complement of the union of windows is at
    most sum_k C_k * (mass of N(c_k, 1) outside the merged window holding c_k, or 1 if none),
    which is computed rigorously with arb.erfc and enclosed as [0, bound].
    """
    comps = _gaussian_bounding_components(std, alpha)
    log_n = math.log(len(comps))
    windows, cuts = [], []
    for centre, log_c in comps:
        excess = float(log_c) + log_n - log_tau
        if excess > 0:
            width = math.sqrt(2 * excess) + 1.0
            windows.append((float(centre) - width, float(centre) + width))
            cuts.append(float(centre))
    merged = _merge(windows)
    bound = arb(0)
    for centre, log_c in comps:
        holding = [(lo, hi) for lo, hi in merged if lo <= float(centre) <= hi]
        outside = _mass_outside(centre, *holding[0]) if holding else arb(1)
        bound += log_c.exp() * outside
    bound = bound.upper()
    pieces = [(arb(a), arb(b), f) for lo, hi in merged for a, b in _split(lo, hi, cuts, math.inf)]
    return _Plan(pieces, arb(bound / 2, bound / 2))


def _gaussian_probes(std: _Standard, alpha: Fraction) -> list[float]:
    """Points where Q phi(P/Q) is near its peaks: the bounding centres and the component means."""
    comps = _gaussian_bounding_components(std, alpha)
    return sorted({float(c) for c, _ in comps} | {float(m) for m, _ in std.p})


def _laplace_plan(std: _Standard, alpha: Fraction) -> tuple[_Plan, list[float]]:
    """Pieces between consecutive kinks (the means) plus the two tails in closed form.

    Left of every mean, P = A e^t and Q = A' e^t, so P/Q = A/A' is constant and
    int_{-inf}^{k_0} Q phi(P/Q) = A' e^{k_0} phi(A/A') exactly; symmetrically on the right with
    P = B e^{-t}, Q = B' e^{-t}.  Between kinks P and Q are sums of e^{+-t}: entire functions.
    Also returns probe values (log10 of the integrand at 9 points per piece).
    """
    a = _arb(alpha)
    kinks = sorted({m for m, _ in std.p} | {n for n, _ in std.q})
    pieces, samples = [], []
    for left, right in zip(kinks, kinks[1:]):
        lp, lq = _laplace_terms(std.p, left, right), _laplace_terms(std.q, left, right)
        f = _phi_integrand(alpha, _laplace_exponent, lp, lq)
        parts = _split(float(left), float(right), [], 4.0)
        edges = [_arb(left)] + [arb(hi) for _, hi in parts[:-1]] + [_arb(right)]
        pieces.extend((lo, hi, f) for lo, hi in zip(edges, edges[1:]))
        samples.extend(_probe(f, [float(left) + (float(right) - float(left)) * k / 8
                                  for k in range(9)]))
    k0, k1 = _arb(kinks[0]), _arb(kinks[-1])
    log_a = _log_sum([(_arb(w / 2), -_arb(m)) for m, w in std.p])
    log_a2 = _log_sum([(_arb(v / 2), -_arb(n)) for n, v in std.q])
    log_b = _log_sum([(_arb(w / 2), _arb(m)) for m, w in std.p])
    log_b2 = _log_sum([(_arb(v / 2), _arb(n)) for n, v in std.q])
    left_tail = (log_a2 + k0).exp() * _phi_arb(a, log_a - log_a2)
    right_tail = (log_b2 - k1).exp() * _phi_arb(a, log_b - log_b2)
    for tail in (left_tail, right_tail):
        if tail > 0:
            samples.append(float(tail.log()) / math.log(10))
    return _Plan(pieces, left_tail + right_tail), samples


def _log_sum(terms: list[tuple[arb, arb]]) -> arb:
    """log sum_k w_k e^(x_k) for real balls (w_k > 0)."""
    logs = [w.log() + x for w, x in terms]
    ref = max(logs, key=float)
    return ref + sum(((v - ref).exp() for v in logs), arb(0)).log()


def _probe(f: Integrand, points: list[float]) -> list[float]:
    """log10 of the integrand at the given real points (where it is resolved and nonzero)."""
    out = []
    for x in points:
        v = f(acb(x), False).real
        if v.is_finite() and not v.contains(0):
            out.append(float(abs(v).log()) / math.log(10))
    return out


def _integrate(plan: _Plan, log_tau: float) -> arb:
    """Sum of the rigorous piece integrals (acb.integral) and the tail enclosure."""
    n = max(1, len(plan.pieces))
    rel_tol = arb(2) ** (-GOAL_BITS - 12)
    abs_tol = (arb(log_tau) - arb(n).log()).exp()
    total = plan.rest
    for lo, hi, f in plan.pieces:
        total += acb.integral(f, lo, hi, rel_tol=rel_tol, abs_tol=abs_tol, eval_limit=10 ** 7).real
    return total


def _psi_minus_one(std: _Standard, alpha: Fraction, scale10: float | None) -> tuple[arb, float]:
    """One quadrature pass at the current arb precision: (enclosure of Psi - 1, scale10 used).

    ``scale10`` estimates log10(Psi - 1) (from probing the integrand if None); the tail budget and
    the absolute tolerance are tau = 10^scale10 * 2^-(GOAL_BITS + 20).
    """
    if std.gaussian:
        f = _phi_integrand(alpha, _gaussian_exponent, _gaussian_terms(std.p), _gaussian_terms(std.q))
        if scale10 is None:
            scale10 = max(_probe(f, _gaussian_probes(std, alpha)), default=0.0)
        log_tau = scale10 * math.log(10) - (GOAL_BITS + 20) * math.log(2)
        plan = _gaussian_plan(std, alpha, f, log_tau)
    else:
        plan, samples = _laplace_plan(std, alpha)
        if scale10 is None:
            scale10 = max(samples, default=0.0)
        log_tau = scale10 * math.log(10) - (GOAL_BITS + 20) * math.log(2)
    return _integrate(plan, log_tau), scale10


def mixture_log_psi(mixture: Mixture, alpha: Number) -> mpf:
    """log Psi_alpha(P || Q) for a Gaussian or Laplace mixture pair, alpha > 1 (up to ~1e4).

    Psi - 1 = int Q phi_alpha(P/Q) is integrated with python-flint's rigorous ``acb.integral`` on
    the pieces of ``_gaussian_plan`` / ``_laplace_plan``, plus a rigorous enclosure of the tails;
    the result is an arb ball.  If log1p of it has fewer than GOAL_BITS correct bits, the pass is
    repeated with 128 more bits and a tail budget set from what was learnt.  Returns the midpoint.
    """
    a = _check_alpha(alpha)
    std = _standardise(mixture)
    if std.equal_sides:
        with mpmath.workdps(DPS):
            return mpf(0)
    prec, scale10 = PREC, None
    for _ in range(_MAX_PASSES):
        with ctx.workprec(prec):
            excess, scale10 = _psi_minus_one(std, a, scale10)
            log_psi = excess.log1p()
            if log_psi.rel_accuracy_bits() >= GOAL_BITS:
                with mpmath.workdps(DPS):
                    return _arb_to_mpf(log_psi)
            lower = excess.lower()
            scale10 = min(scale10, float(lower.log()) / math.log(10)) if lower > 0 else scale10 - 30
        prec += 128
    raise ArithmeticError(f"mixture_log_psi: no {GOAL_BITS}-bit result (last enclosure {excess})")


# --- hockey stick ---------------------------------------------------------------------------------

def _mp_log_sum_exp(xs: list[mpf]) -> mpf:
    top = max(xs)
    return top + mpmath.log(mpmath.fsum(mpmath.exp(x - top) for x in xs))


@dataclass(frozen=True)
class _MpSides:
    """log P(t) and log Q(t) up to a common additive term, in mpmath; d/dt of each."""

    gaussian: bool
    p: tuple[tuple[mpf, mpf], ...]   # (mean, log weight)
    q: tuple[tuple[mpf, mpf], ...]

    @staticmethod
    def make(std: _Standard) -> "_MpSides":
        def conv(side):
            return tuple((to_mpf(m), mpmath.log(to_mpf(w))) for m, w in side)

        return _MpSides(std.gaussian, conv(std.p), conv(std.q))

    def _exponents(self, side: tuple[tuple[mpf, mpf], ...], t: mpf) -> list[mpf]:
        if self.gaussian:   # log w + m t - m^2 / 2  (common -t^2/2 dropped)
            return [lw + m * t - m * m / 2 for m, lw in side]
        return [lw - abs(t - m) for m, lw in side]

    def _slope(self, side: tuple[tuple[mpf, mpf], ...], t: mpf) -> mpf:
        xs = self._exponents(side, t)
        top = max(xs)
        ws = [mpmath.exp(x - top) for x in xs]
        ds = [m if self.gaussian else -mpmath.sign(t - m) for m, _ in side]
        return mpmath.fsum(w * d for w, d in zip(ws, ds)) / mpmath.fsum(ws)

    def log_ratio(self, t: mpf) -> mpf:
        """Lam(t) = log P(t) - log Q(t)."""
        return _mp_log_sum_exp(self._exponents(self.p, t)) - _mp_log_sum_exp(self._exponents(self.q, t))

    def log_ratio_slope(self, t: mpf) -> mpf:
        return self._slope(self.p, t) - self._slope(self.q, t)

    def sup_log_ratio(self) -> mpf:
        """lim_{t -> +inf} Lam(t) (Lam is nondecreasing), possibly +inf."""
        if self.gaussian:
            top_p, top_q = max(m for m, _ in self.p), max(m for m, _ in self.q)
            if top_p > top_q:
                return mpmath.inf
            def pick(side):
                return [lw for m, lw in side if m == top_p][0]

            return pick(self.p) - pick(self.q)

        def lse(side):
            return _mp_log_sum_exp([lw + m for m, lw in side])

        return lse(self.p) - lse(self.q)


def _bracket(sides: _MpSides, eps: mpf) -> tuple[mpf, mpf] | None:
    """(lo, hi) with Lam(lo) < eps < Lam(hi), or None when no such lo exists (P = Q)."""
    means = [m for m, _ in sides.p + sides.q]
    lo, hi, step = min(means) - 1, max(means) + 1, mpf(1)
    for _ in range(400):
        if sides.log_ratio(lo) < eps:
            break
        lo, step = lo - step, 2 * step
    else:
        return None
    step = mpf(1)
    while sides.log_ratio(hi) <= eps:
        hi, step = hi + step, 2 * step
    return lo, hi


def _root(sides: _MpSides, eps: mpf, lo: mpf, hi: mpf) -> mpf:
    """t* with Lam(t*) = eps: Newton safeguarded by bisection on the bracket [lo, hi]."""
    tol = mpmath.ldexp(mpf(1), -mpmath.mp.prec + 20)
    t = (lo + hi) / 2
    for _ in range(20 * mpmath.mp.prec):
        g = sides.log_ratio(t) - eps
        if g == 0:
            return t
        lo, hi = (t, hi) if g < 0 else (lo, t)
        slope = sides.log_ratio_slope(t)
        step_ok = slope > 0 and lo < t - g / slope < hi
        new = t - g / slope if step_ok else (lo + hi) / 2
        if abs(new - t) <= tol * (1 + abs(t)) or hi - lo <= tol * (1 + abs(t)):
            return new
        t = new
    return t


def _survival(gaussian: bool, x: mpf) -> mpf:
    """Survival function of the standard Gaussian / Laplace(0, 1) at x."""
    if gaussian:
        return mpmath.erfc(x / mpmath.sqrt(2)) / 2
    return mpmath.exp(-x) / 2 if x >= 0 else 1 - mpmath.exp(x) / 2


def mixture_delta(mixture: Mixture, epsilon: Number) -> mpf:
    """H_{e^eps}(P || Q) for a mixture pair whose likelihood ratio increases (min p-mean >= max q-mean).

    The root t* of log P - log Q = eps (standard units) is found in mpmath; then
    delta = sum_i w_i S(t* - m_i) - e^eps sum_j v_j S(t* - n_j), S the survival function.  delta is
    stationary in t* (its derivative is P - e^eps Q = 0 there), and the precision is doubled until
    the subtraction keeps >= 35 digits.  delta = 0 when P/Q never exceeds e^eps.
    """
    eps_q = exact(epsilon)
    if eps_q < 0:
        raise ValueError(f"epsilon must be >= 0, got {epsilon}")
    std = _standardise(mixture)
    if min(m for m, _ in std.p) < max(n for n, _ in std.q):
        raise ValueError("need every mean of P >= every mean of Q (increasing likelihood ratio)")
    dps = DPS
    while True:
        with mpmath.workdps(dps):
            difference, scale = _delta_at_precision(std, eps_q)
            if difference == 0 or abs(difference) > mpmath.ldexp(scale, -mpmath.mp.prec + 120) \
                    or dps > 5000:
                break
        dps *= 2
    with mpmath.workdps(DPS):
        return max(+difference, mpf(0))


def _delta_at_precision(std: _Standard, eps_q: Fraction) -> tuple[mpf, mpf]:
    """(delta before clamping at 0, size of the larger subtracted term) at the current precision;
    (0, 1) when delta is exactly 0 (P = Q, or P/Q never exceeds e^eps)."""
    if std.equal_sides:
        return mpf(0), mpf(1)
    sides, eps = _MpSides.make(std), to_mpf(eps_q)
    if eps >= sides.sup_log_ratio():
        return mpf(0), mpf(1)
    bracket = _bracket(sides, eps)
    if bracket is None:
        return mpf(0), mpf(1)
    t = _root(sides, eps, *bracket)
    tail_p = mpmath.fsum(to_mpf(w) * _survival(std.gaussian, t - to_mpf(m)) for m, w in std.p)
    tail_q = mpmath.fsum(to_mpf(v) * _survival(std.gaussian, t - to_mpf(n)) for n, v in std.q)
    return tail_p - mpmath.exp(eps) * tail_q, tail_p


def gaussian_removal_log_psi(rate: Number, sigma: Number, alpha: int | float) -> mpf:
    """log Psi_alpha for P = (1-r) N(0, s^2) + r N(1, s^2) vs Q = N(0, s^2), integer alpha >= 2.

    Binomial expansion (no quadrature): with l = N(1)/N(0), E_Q[l^k] = e^(k(k-1)/(2 s^2)), so
    Psi = sum_k C(alpha, k) r^k (1-r)^(alpha-k) e^(k(k-1)/(2 s^2)) and, since the weights sum to 1,
    Psi - 1 = sum_{k>=2} C(alpha, k) r^k (1-r)^(alpha-k) expm1(k(k-1)/(2 s^2))  (all terms >= 0).
    The binomial weights come from the recurrence b_(k+1) = b_k (n-k)/(k+1) r/(1-r) at 80 digits.
    """
    a = _check_alpha(alpha)
    if a.denominator != 1:
        raise ValueError(f"alpha must be an integer, got {alpha}")
    n, r = int(a), exact(rate)
    if not 0 <= r <= 1 or not exact(sigma) > 0:
        raise ValueError("need 0 <= rate <= 1 and sigma > 0")
    with mpmath.workdps(DPS + 20):
        s2 = to_mpf(exact(sigma) ** 2)
        if r in (0, 1):
            k = n if r == 1 else 0
            excess = mpmath.expm1(k * (k - 1) / (2 * s2))
        else:
            rm = to_mpf(r)
            weight, odds, terms = (1 - rm) ** n, rm / (1 - rm), []
            for k in range(n + 1):
                if k >= 2:
                    terms.append(weight * mpmath.expm1(k * (k - 1) / (2 * s2)))
                weight *= odds * (n - k) / (k + 1)
            excess = mpmath.fsum(terms)
        result = mpmath.log1p(excess)
    with mpmath.workdps(DPS):
        return +result


# ------------------------------------------------------------------------------------------------
# 3. Optimal RDP -> (eps, delta) conversion (Asoodeh, Liao, Calmon, Kosut, Sankar 2021)
# ------------------------------------------------------------------------------------------------
#
# The feasible set {(p, q) in [0,1]^2 : g(p, q) <= R}, g(p, q) = p^a q^(1-a) + (1-p)^a (1-q)^(1-a),
# R = e^((a-1) rho), is convex (g is jointly convex), so its upper boundary p*(q) is concave.  We
# walk that boundary by the likelihood ratio L = p/q = e^l (monotone along it): for fixed L,
# G(q) = g(Lq, q) - R = L^a q + [(1-Lq)^a (1-q)^(1-a) - 1] - (R - 1) is convex in q with G(0) < 0,
# and q*(L) is its root (or 1/L, i.e. p = 1, when L <= e^rho).  Both objectives below are unimodal
# along the boundary, so they are maximised over l by Brent's method in high precision.

@dataclass(frozen=True)
class _Renyi:
    alpha: mpf
    rho: mpf
    r_minus_1: mpf   # R - 1 = expm1((alpha - 1) rho)

    @staticmethod
    def make(alpha: Number, rho: Number) -> "_Renyi":
        a = to_mpf(alpha)
        if not a > 1:
            raise ValueError(f"alpha must be > 1, got {alpha}")
        r = to_mpf(rho)
        return _Renyi(a, r, mpmath.expm1((a - 1) * r))


def _boundary_q(model: _Renyi, ell: mpf) -> mpf:
    """q*(L) for L = e^ell: the largest q <= 1/L with g(Lq, q) <= R (1/L itself when ell <= rho).

    G(q) = L^a q + expm1(a log1p(-Lq) + (1-a) log1p(-q)) - (R - 1) is convex with G(0) < 0 <
    G(1/L); Newton safeguarded by bisection, started at the root of the linearisation at 0
    (which lies to the right of q* because G is convex).  Every term keeps its relative precision,
    so q* is accurate to the working precision even when it is 1e-1000.
    """
    a = model.alpha
    if ell <= model.rho:
        return mpmath.exp(-ell)
    big_l, l_pow = mpmath.exp(ell), mpmath.exp(a * ell)

    def value_and_slope(q: mpf) -> tuple[mpf, mpf]:
        if big_l * q == 1:  # p = 1: (1 - Lq)^a and its derivative vanish (a > 1)
            return l_pow * q - 1 - model.r_minus_1, l_pow
        exponent = a * mpmath.log1p(-big_l * q) + (1 - a) * mpmath.log1p(-q)
        rest = mpmath.exp(exponent)
        value = l_pow * q + mpmath.expm1(exponent) - model.r_minus_1
        return value, l_pow + rest * ((a - 1) / (1 - q) - a * big_l / (1 - big_l * q))

    lo, hi = mpf(0), 1 / big_l
    q = min(model.r_minus_1 / (l_pow - a * big_l + a - 1), hi)
    tol = mpmath.ldexp(mpf(1), -mpmath.mp.prec + 8)
    for _ in range(4 * mpmath.mp.prec):
        value, slope = value_and_slope(q)
        if value == 0:
            return q
        lo, hi = (q, hi) if value < 0 else (lo, q)
        new = q - value / slope
        if not lo < new < hi:
            new = (lo + hi) / 2
        if abs(new - q) <= tol * q:
            return new
        q = new
    raise ArithmeticError("boundary root did not converge")


def _maximise(f: Callable[[mpf], mpf], lo: mpf, hi: mpf, rel: mpf) -> mpf:
    """max of a unimodal f on [lo, hi] (f may be -inf at lo only), to argmax width rel (1 + |x|).

    Brent's method (golden section + parabolic steps, Brent 1973 ch. 5) on -f.  A maximum on the
    boundary lo (e.g. the corner p = 1) is detected first and returned exactly; the end points are
    compared with the interior result at the end.
    """
    def g(x):
        return -f(x)

    if g(lo) <= g(lo + rel * (1 + abs(lo))):  # already decreasing: the maximum sits at lo
        return -g(lo)
    c = (3 - mpmath.sqrt(5)) / 2
    a, b = lo, hi
    x = w = v = a + c * (b - a)
    fx = fw = fv = g(x)
    d = e = mpf(0)
    for _ in range(10 * mpmath.mp.prec):
        m = (a + b) / 2
        tol1 = rel * (1 + abs(x))
        tol2 = 2 * tol1
        if abs(x - m) <= tol2 - (b - a) / 2:
            break
        golden = True
        if abs(e) > tol1 and all(mpmath.isfinite(y) for y in (fx, fw, fv)):
            r = (x - w) * (fx - fv)
            q = (x - v) * (fx - fw)
            p = (x - v) * q - (x - w) * r
            q = 2 * (q - r)
            p, q = (-p, q) if q > 0 else (p, -q)
            previous, e = e, d
            if q != 0 and abs(p) < abs(q * previous / 2) and q * (a - x) < p < q * (b - x):
                d = p / q
                if (x + d) - a < tol2 or b - (x + d) < tol2:
                    d = tol1 if x < m else -tol1
                golden = False
        if golden:
            e = (a - x) if x >= m else (b - x)
            d = c * e
        u = x + d if abs(d) >= tol1 else x + (tol1 if d > 0 else -tol1)
        fu = g(u)
        if fu <= fx:
            a, b = (x, b) if u >= x else (a, x)
            v, fv, w, fw, x, fx = w, fw, x, fx, u, fu
        else:
            a, b = (u, b) if u < x else (a, u)
            if fu <= fw or w == x:
                v, fv, w, fw = w, fw, u, fu
            elif fu <= fv or v == x or v == w:
                v, fv = u, fu
    return -min(fx, g(lo), g(hi))


def _bracket_max(f: Callable[[mpf], mpf], lo: mpf, step: mpf) -> tuple[mpf, mpf]:
    """[a, b] holding the maximiser of a unimodal f on [lo, inf): walk lo + step * (0, 1, 2, 4, ...)
    until f drops."""
    xs, fs = [lo, lo + step], [f(lo), f(lo + step)]
    for _ in range(400):
        if fs[-1] < fs[-2]:
            return (xs[-3] if len(xs) >= 3 else xs[0]), xs[-1]
        xs.append(lo + 2 * (xs[-1] - lo))
        fs.append(f(xs[-1]))
    raise ArithmeticError("could not bracket the maximum")


def _check_renyi_inputs(rho: mpf, other: mpf, name: str) -> None:
    if rho < 0:
        raise ValueError(f"rho must be >= 0, got {rho}")
    if name == "epsilon" and other < 0:
        raise ValueError(f"epsilon must be >= 0, got {other}")
    if name == "delta" and not other > 0:
        raise ValueError(f"delta must be > 0, got {other}")


def optimal_delta(alpha: Number, rho: Number, epsilon: Number) -> mpf:
    """delta*(eps): the optimal (eps, delta) of an (alpha, rho)-RDP mechanism (Asoodeh et al.).

    delta* = max { p - e^eps q : g(p, q) <= e^((alpha-1) rho) } over Bernoulli pairs, evaluated as
    the max over l > eps of log q*(e^l) + log(e^l - e^eps), in logs so that tiny delta* (1e-1000
    and below) keep all their digits.
    """
    with mpmath.workdps(DPS):
        model, eps = _Renyi.make(alpha, rho), to_mpf(epsilon)
        _check_renyi_inputs(model.rho, eps, "epsilon")
        if model.rho == 0:
            return mpf(0)

        def log_delta(ell: mpf) -> mpf:
            if ell <= eps:
                return -mpmath.inf
            return mpmath.log(_boundary_q(model, ell)) + eps + mpmath.log(mpmath.expm1(ell - eps))

        step = mpmath.log(model.alpha / (model.alpha - 1))
        lo, hi = _bracket_max(log_delta, max(eps, model.rho), step)
        best = _maximise(log_delta, lo, hi, mpf(10) ** -28)
        return mpmath.exp(best)


def optimal_epsilon(alpha: Number, rho: Number, delta: Number) -> mpf:
    """eps*(delta): the smallest eps >= 0 with delta*(eps) <= delta.

    eps* = max over boundary pairs with p > delta of log((p - delta) / q) (clamped at 0).  Along
    the boundary we maximise e^(eps) = (p - delta)/q = L - delta / q*(L), which stays finite (and
    unimodal: the slope of the chord from (0, delta) to a concave curve) where p < delta too.
    """
    with mpmath.workdps(DPS):
        model, dm = _Renyi.make(alpha, rho), to_mpf(delta)
        _check_renyi_inputs(model.rho, dm, "delta")
        if model.rho == 0 or dm >= 1:
            return mpf(0)

        def exp_eps(ell: mpf) -> mpf:
            return mpmath.exp(ell) - mpmath.exp(mpmath.log(dm) - mpmath.log(_boundary_q(model, ell)))

        lo, hi = _bracket_max(exp_eps, model.rho, 1 / model.alpha)
        best = _maximise(exp_eps, lo, hi, mpf(10) ** -28)
        return mpmath.log(best) if best > 1 else mpf(0)
