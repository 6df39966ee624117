"""The protocol every noise family of an additive mechanism implements.

A family is the component distribution ``D(z; μ, s)`` of the mixture pairs a solver reduces a
bound to (:class:`otbound.numerics.pairs.MixturePair`): its location ``μ`` (units of the
sensitivity) and scale ``s``. :class:`NoiseFamily` is what every family must supply — its
log-probability relative to ``D(0)``, its tails' reach, the divergences of its mixture pairs in
doubles (each with an error estimate covering the rounding) and in ball arithmetic (certified
enclosures), its optional closed forms, a sampler, the worst-case patterns it solves (its
theorems, as flags) and a check of its parameters. The numerics ask the family object and never
test which family it is; the concrete families live in :mod:`otbound.numerics.families`, one
module each, registered by the module alone.

:class:`LineDensity` is a family with a density on the real line whose divergences come from
otbound's evaluators of such pairs (closed-form hockey stick at the root of the privacy loss,
quadrature of ``Q φ_α(P/Q)``, arb enclosures); it supplies what those evaluators need. The fast
quadratures are written per *shape* of the log-density (the Gaussian's is quadratic, Laplace's
piecewise linear with kinks at the means), so a family of a known shape needs no integrator of
its own. A family of another support (the integers) implements the divergences itself.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from enum import Enum
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from otbound.numerics.rounding import Bounds


class Shape(Enum):
    """The shape of ``z ↦ log D(z; μ, s)``, which picks the quadrature rules."""

    QUADRATIC = "quadratic"
    """``−(z − μ)²/2s²`` plus a constant: smooth, cells around the peaks of the integrand."""
    PIECEWISE_LINEAR = "piecewise linear"
    """``−|z − μ|/s`` plus a constant: analytic between the means, exact tails beyond them."""


class NoiseFamily(ABC):
    """What every noise family supplies (see the module docstring). Subclasses are stateless
    singletons, each in its own module of :mod:`otbound.numerics.families`."""

    name: str
    """The mechanism's name (``--mechanism``)."""
    parameter: str
    """The name of the scale parameter (``sigma``, ``scale``), also its command-line flag."""
    worst_case_source: str
    """Where the worst case of the constraint patterns is established for this family."""
    constructor_doc: str = ""
    """The docstring of its mechanism's constructor (``otbound.<name>``), with an example."""
    unequal_chains: bool = False
    """Whether chains of unequal stretch have a proven worst case (002 Thm. 3.3)."""
    rotation_invariant: bool = False
    """Whether the noise is rotation invariant (002 Lemma 2.4, 001 Thm. H.12): what truncated
    Poisson and the relaxed without-replacement bound need."""
    three_point: bool = False
    """Whether 001 Thm. 3.6's pattern has the certified three-point solver."""
    binomial_expansion: bool = False
    """Whether ``Ψ_α((1−r)D(0) + rD(d) ‖ D(0))`` has 001 Prop. E.4's binomial expansion
    ``Σ_k C(α,k) r^k (1−r)^{α−k} e^{k(k−1)d²/2s²}`` at integer orders."""
    shuffled_lower_bound: bool = False
    """Whether Chua et al.'s lower bound for shuffled batches is computed for this noise
    (:func:`otbound.numerics.shuffling.shuffled_lower_bound`: Gaussian laws)."""

    def __repr__(self) -> str:
        return f"<{self.name} noise>"

    def check_noise(self, scale: float, sensitivity: float) -> None:
        """Refuse (:class:`~otbound.errors.InvalidSpecification`) a scale and sensitivity this
        family cannot take; the noise multiplier's range is the mechanism's check. Every
        scale and sensitivity the mechanism accepts, unless the family says otherwise."""
        return None

    # --- densities and tails, in doubles ---------------------------------------------------

    @abstractmethod
    def log_density(self, z: np.ndarray, scale: float) -> np.ndarray:
        """``log D(z; 0, s)`` (a density, or a probability mass on the family's support)."""

    @abstractmethod
    def relative_log(self, means: np.ndarray, z: np.ndarray, scale: float) -> np.ndarray:
        """``λ_i(z) = log D(z; μ_i) − log D(z; 0)``, shape ``(len(means), len(z))``, accurate
        to a few ulps of ``|λ_i|``."""

    @abstractmethod
    def reach(self, log_budget: float) -> float:
        """A standardised distance ``c ≥ 0`` with ``P(D > c) ≤ e^{−log_budget}``."""

    @abstractmethod
    def log_sup_ratio(self, p_means: np.ndarray, p_log_weights: np.ndarray,
                      q_means: np.ndarray, q_log_weights: np.ndarray, scale: float) -> float:
        """``lim_{z→∞} log P(z)/Q(z)`` for the mixtures ``P``, ``Q`` (``inf`` allowed)."""

    @abstractmethod
    def sample(self, rng: np.random.Generator, size: int, scale: float) -> np.ndarray:
        """``size`` draws of ``D(0, scale)``."""

    # --- the divergences of its mixture pairs ------------------------------------------------

    @abstractmethod
    def delta_bounds(self, pair, epsilons: np.ndarray,
                     tolerance: float) -> Bounds:
        """``δ(ε) = H_{e^ε}(P ‖ Q)`` at every ε (any real), each rounded up by an error
        estimate covering its rounding; a value whose estimated relative error exceeds
        ``tolerance`` is recomputed more precisely."""

    @abstractmethod
    def log_psi_values(self, pair,
                       orders: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(log Ψ_α(P ‖ Q), its absolute error estimate)`` at distinct orders ``α > 1``."""

    @abstractmethod
    def certified_log_psi(self, pair, alpha: float) -> tuple[float, float]:
        """An enclosure ``(lower, upper)`` of ``log Ψ_α`` in ball arithmetic (python-flint),
        rounded outwards, for the pair as given."""

    @abstractmethod
    def certified_delta(self, pair, epsilon: float) -> tuple[float, float]:
        """An enclosure ``(lower, upper)`` of ``δ(ε)`` in ball arithmetic, rounded outwards."""

    # --- closed forms, where the family has them (None otherwise) ----------------------------

    def shift_log_psi(self, gap: float,
                      alphas: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """``(log Ψ_α(D(gap) ‖ D(0)), its absolute rounding error)`` in scale units, or
        ``None`` when the family has no closed form (the pair is evaluated instead)."""
        return None

    def shift_log_psi_ball(self, order: int, scale: float, sensitivity: float):
        """``log Ψ_α(D(Δ) ‖ D(0))`` at ``Δ = sensitivity`` as an arb ball, or ``None`` when
        the family has no closed form for it."""
        return None

    def shift_delta_ball(self, gap, epsilon):
        """``H_{e^ε}(D(gap) ‖ D(0))`` in scale units (``gap > 0`` and ``ε`` arb balls), or
        ``None`` when the family has no closed form for it."""
        return None

    def split_scale(self, scale: float, parts: int) -> float | None:
        """The scale of each of ``parts`` independent copies of this noise whose sum is this
        noise at ``scale`` (``None`` when their sum is not of this family): how a sum query's
        noise splits among a group's records."""
        return None

    def shift_ratio_law(self, scale: float):
        """The law of the likelihood ratio of ``D(1; s)`` against ``D(0; s)``
        (:class:`otbound.numerics.ratio_laws.RatioLaw`), what epoch-level sampling sums; ``None``
        for a family that has none."""
        return None

    def shift_ratio_survival_ball(self, log_ratio, scale):
        """``(Q(log L > t), P(log L > t))`` as balls, for the likelihood ratio ``L`` of ``P =
        D(1; s)`` against ``Q = D(0; s)`` (the pair of :meth:`shift_ratio_law`) at a ball ``t``:
        what certified epoch accounting takes its cells from; ``None`` for a family that has
        none."""
        return None


class LineDensity(NoiseFamily):
    """A family with a density on the real line, whose pairs' divergences come from otbound's
    evaluators of such pairs (:mod:`otbound.numerics.hockey_stick`,
    :mod:`otbound.numerics.renyi`, :mod:`otbound.numerics.certified_renyi`,
    :mod:`otbound.numerics.certified_hockey_stick`): what those evaluators need. A concrete
    family subclasses :class:`otbound.numerics.density_family.DensityFamily`, which adds the
    divergences by those evaluators."""

    shape: Shape

    def sample(self, rng: np.random.Generator, size: int, scale: float) -> np.ndarray:
        """``scale`` times a draw of the standardised distribution."""
        return scale * self.standard_sample(rng, size)

    @abstractmethod
    def standard_sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """``size`` draws of the standardised distribution (``μ = 0``, ``s = 1``)."""

    # --- what the evaluators of densities on the line need, in doubles -------------------------

    @abstractmethod
    def relative_log_slope(self, means: np.ndarray, z: np.ndarray, scale: float) -> np.ndarray:
        """``∂λ_i/∂z`` (a one-sided value at kinks), shape ``(len(means), len(z))``."""

    @abstractmethod
    def log_survival(self, x: np.ndarray) -> np.ndarray:
        """``log P(D > x)`` of the standardised distribution (``μ = 0``, ``s = 1``)."""

    # --- high precision (mpmath) and ball arithmetic (python-flint) --------------------------

    @abstractmethod
    def survival_mp(self, x):
        """``P(D > x)`` of the standardised distribution at an mpmath number."""

    @abstractmethod
    def norm_ball(self, scale):
        """The density at its mean, ``D(μ; μ, s)``, as a ball (``scale`` a ball)."""

    @abstractmethod
    def kernel_ball(self, offset, scale, sign: int | None = None):
        """``D(μ + offset; μ, s)/D(μ; μ, s)`` at a ball; for a piecewise-linear shape ``sign``
        fixes ``|offset| = sign · offset`` (analytic across the ball), ``None`` takes ``abs``."""

    @abstractmethod
    def survival_ball(self, distance, scale):
        """Mass of one component beyond ``distance ≥ 0`` from its mean, as a ball."""

    @abstractmethod
    def log_kernel_float(self, distance: float, sign: int) -> float:
        """``log`` of the kernel at a standardised offset, in doubles (to rank terms only)."""

    @abstractmethod
    def linear_part_ball(self, mean: float, scale, sign: int | None) -> tuple:
        """``(A, B)`` with ``log D(z; μ, s) = shape(z) + A z + B``, ``shape`` the part common
        to every mean (:meth:`shape_part_ball`)."""

    @abstractmethod
    def log_kernel_ratio_ball(self, z, mean: float, top: float, scale, sign: int | None,
                              top_sign: int | None):
        """``log D(z; mean)/D(z; top)`` at a ball, factored so that nothing cancels."""

    @abstractmethod
    def shape_part_ball(self, z, slope, intercept, scale):
        """``shape(z) + slope·z + intercept`` at a ball, written so that the ball's width grows
        with its distance from the peak only (a square is completed)."""
