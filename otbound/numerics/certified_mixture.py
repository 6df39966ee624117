"""One side of a dominating pair as a mixture in ball arithmetic (python-flint's arb; issue 14
item 1): normalised weights, densities on (complex) balls, the logarithm split so that
``acb.integral`` can continue it analytically, and ranges and masses over intervals, for the
certified enclosures of :mod:`otbound.numerics.certified_renyi` and
:mod:`otbound.numerics.certified_hockey_stick`.
"""

from __future__ import annotations

import math

import numpy as np

from otbound.numerics.certified_rounding import _flint
from otbound.numerics.noise import LineDensity


class _Mixture:
    """One side of a mixture pair in arb: means, normalised weights and the noise family."""

    def __init__(self, means: np.ndarray, log_weights: np.ndarray, family: LineDensity,
                 scale: float):
        arb = _flint().arb
        self.means = [float(m) for m in means]
        weights = [arb(float(w)).exp() for w in log_weights]
        total = sum(weights, arb(0))
        self.weights = [w / total for w in weights]
        self.family, self.s = family, arb(scale)

    def density(self, z, signs=None):
        """``Σ w_i D(z; μ_i)`` at a ball (``acb`` or ``arb``); for a piecewise-linear family
        ``signs`` fixes ``|z − μ_i| = sign_i (z − μ_i)`` (analytic between kinks), else ``abs``
        is used."""
        signs = self._signs(signs)
        total = sum(w * self.family.kernel_ball(z - m, self.s, sign)
                    for m, w, sign in zip(self.means, self.weights, signs))
        return self.family.norm_ball(self.s) * total

    def log_parts(self, z, signs=None, analytic: bool = False) -> tuple:
        """``(A, B, R)`` with ``log Σ w_i D(z; μ_i) = shape(z) + A z + B + R(z)`` (the shape
        ``−z²/2s²`` for the Gaussian, none for Laplace), on a complex ball. The component ``t``
        largest at the ball's centre is factored out: ``R = Log Σ_i w_i D(z; μ_i)/D(z; μ_t)``,
        a sum that stays near the positive reals, so the principal logarithm is analytic on
        the ball (checked when ``analytic``) and agrees with the real logarithm on the real
        line: this is the continuation of ``log p`` that ``acb.integral`` needs. Keeping ``A``
        and ``B`` apart lets callers combine sides before evaluating (no dependency blow-up of
        the balls)."""
        signs = self._signs(signs)
        centre = float(z.real.mid())
        logs = [self._log_component(centre, k, signs) for k in range(len(self.means))]
        top = int(np.argmax(logs))
        family, m_top = self.family, self.means[top]
        slope, intercept = family.linear_part_ball(m_top, self.s, signs[top])
        ratio = sum(w * family.log_kernel_ratio_ball(z, m, m_top, self.s, sign,
                                                     signs[top]).exp()
                    for m, w, sign in zip(self.means, self.weights, signs))
        return slope, intercept, ratio.log(analytic=analytic)

    def _signs(self, signs) -> list:
        """The signs per component, ``None`` each where none are given (``abs``)."""
        return list(signs) if signs is not None else [None] * len(self.means)

    def quadratic(self, z, slope, intercept):
        """``shape(z) + A z + B`` (see :meth:`log_parts`), written so that a ball's width grows
        with its distance from the peak only."""
        return self.family.shape_part_ball(z, slope, intercept, self.s)

    def density_range(self, x: float, y: float) -> tuple:
        """Balls below and above ``Σ w_i D(z; μ_i)`` for ``z`` in ``[x, y]`` (signed weights
        allowed): each kernel falls with ``|z − μ_i|``, so its range on the interval is its
        value at the farthest and at the nearest point (no dependency blow-up of balls)."""
        arb = _flint().arb
        low, high = arb(0), arb(0)
        for m, w in zip(self.means, self.weights):
            near = arb(0) if x <= m <= y else min(abs(arb(x) - m), abs(arb(y) - m))
            far = max(abs(arb(x) - m), abs(arb(y) - m))
            small, large = self._kernel(far), self._kernel(near)
            if w >= 0:
                low, high = low + w * small, high + w * large
            else:
                low, high = low + w * large, high + w * small
        return low.lower(), high.upper()

    def _kernel(self, distance):
        """``D(μ + distance; μ)``."""
        return self.family.kernel_ball(distance, self.s) * self.family.norm_ball(self.s)

    def _log_component(self, x: float, k: int, signs) -> float:
        """``log w_k + log D(x; μ_k)`` in doubles, up to a constant (to pick the largest)."""
        w = float(self.weights[k].mid())
        distance = (x - self.means[k]) / float(self.s.mid())
        return math.log(w) + self.family.log_kernel_float(distance, signs[k]) if w > 0 \
            else -math.inf

    def mass(self, a: float | None, b: float | None):
        """``∫_a^b Σ w_i D(z; μ_i) dz`` for doubles ``a ≤ b`` (``None``: ``∓∞``)."""
        arb = _flint().arb
        a = None if a is None else arb(a)
        b = None if b is None else arb(b)
        return sum((w * self._component_mass(arb(m), a, b)
                    for m, w in zip(self.means, self.weights)), arb(0))

    def _beyond(self, distance):
        """Mass of one component beyond ``distance ≥ 0`` from its mean."""
        return self.family.survival_ball(distance, self.s)

    def _component_mass(self, m, a, b):
        """Mass of one component on ``[a, b]``, from the tail on each end's own side of the
        mean (no cancellation of numbers close to one)."""
        if a is not None and a >= m:
            return self._beyond(a - m) - (self._beyond(b - m) if b is not None else 0)
        if b is not None and b <= m:
            return self._beyond(m - b) - (self._beyond(m - a) if a is not None else 0)
        below = self._beyond(m - a) if a is not None else 0
        above = self._beyond(b - m) if b is not None else 0
        return 1 - below - above
