"""The ``agnostic`` method: a step's bound through the base mechanism's group privacy profile
only, by joint convexity over couplings of the bound's mixtures (the product coupling always,
001 Thm. 3.6's diagonal one where it applies, Balle et al. 2018's advanced joint convexity) and
the published bounds that apply (:mod:`otbound.numerics.baselines`); the smallest per case."""

from __future__ import annotations

from typing import Callable

import numpy as np

from otbound.choices import Quantity, SchemeKind
from otbound.errors import Refusal, UnsupportedOperation
from otbound.numerics.baselines import balle, baseline_bounds
from otbound.numerics.mechanisms import Mechanism
from otbound.numerics.mixtures import per_order, profile_mixture, weighted_sum
from otbound.numerics.problems import NumericProblem, Term
from otbound.numerics.rounding import Bounds, maximum, minimum


def agnostic_rdp(setting, mechanism: Mechanism, alphas: np.ndarray) -> Bounds | Refusal:
    """Through the base mechanism's group privacy profile only: per case, the smallest of the
    couplings of the bound's mixtures (joint convexity) and of the published bounds that apply
    to the case's scheme and shape (:mod:`otbound.numerics.baselines`); refused where a case
    has none (:func:`_smallest`)."""
    profile = _once_per_distance(mechanism.group_log_psi)

    def coupled(terms: list[Term], shape) -> list[Bounds]:
        return [per_order(profile_mixture(weights, distances, profile, alphas),
                          alphas).named(name)
                for name, weights, distances in _couplings(terms)]

    return _worst_case(setting, mechanism, Quantity.RDP, profile, alphas, coupled)


def _worst_case(setting, mechanism: Mechanism, quantity: Quantity, profile, points: np.ndarray,
                coupled: Callable[[list[Term], tuple], list[Bounds]]) -> Bounds | Refusal:
    """The largest over the setting's cases of the smallest of each case's sound bounds: those
    of its couplings (``coupled(terms, shape)``) and the published ones that apply
    (:func:`~otbound.numerics.baselines.baseline_bounds`); the first case with none refuses."""
    cases = []
    for terms, shape in zip(setting.cases(), setting.shapes()):
        case = _smallest(coupled(terms, shape) + baseline_bounds(
            setting, shape, quantity, mechanism, profile, points), setting, mechanism)
        if isinstance(case, Refusal):
            return case
        cases.append(case)
    return maximum(cases)


def _couplings(terms: list[Term]) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """The name, log-weights and distances of the couplings of a case's mixtures that joint
    convexity allows: the product coupling of every term, and the diagonal one of a single
    term with equal weights on both sides (001 Thm. 3.6); those with an unbounded distance are
    left out."""
    found: list[tuple[str, np.ndarray, np.ndarray]] = []
    products = [_product_coupling(problem, log_probability)
                for log_probability, problem in terms]
    if all(_bounded(weights, distances) for weights, distances in products):
        weights, distances = (np.concatenate(parts) for parts in zip(*products))
        found.append((PRODUCT, weights, distances))
    if len(terms) == 1 and np.array_equal(terms[0].problem.left, terms[0].problem.right):
        weights, distances = _diagonal_coupling(terms[0].problem)
        if np.all(np.isfinite(distances)):
            found.append((DIAGONAL, terms[0].log_probability + weights, distances))
    return found


PRODUCT = "joint convexity over the product coupling"
DIAGONAL = "joint convexity over 001 Thm. 3.6's coupling"
BALLE = "Balle et al. 2018's advanced joint convexity"


def _smallest(bounds: list[Bounds], setting, mechanism: Mechanism) -> Bounds | Refusal:
    """The smallest of the sound bounds of one case, or a refusal where there is none."""
    if not bounds:
        return Refusal(
            f"no mechanism-agnostic bound for the {mechanism.name} mechanism under "
            f"{setting.summary()}: a case has mixture components at unbounded distance")
    return minimum(bounds)


def _once_per_distance(profile: Callable[[int, np.ndarray], Bounds]):
    """The group privacy profile, evaluated once per distance and set of points (the product
    coupling meets every distance up to ``K`` many times)."""
    cache: dict = {}

    def cached(distance: int, points) -> Bounds:
        points = np.atleast_1d(np.asarray(points, dtype=float))
        key = (distance, points.tobytes())
        if key not in cache:
            cache[key] = profile(distance, points)
        return cache[key]

    return cached


def _distances(problem: NumericProblem) -> np.ndarray:
    """The closed distance bounds between every left and every right component."""
    closed = problem.closed().array
    return closed[:problem.left.size, problem.left.size:]


def _bounded(log_weights: np.ndarray, distances: np.ndarray) -> bool:
    """Whether every pair of positive weight is at a bounded distance (else the coupling gives
    no bound)."""
    return bool(np.all(np.isfinite(distances[log_weights > -np.inf])))


def _product_coupling(problem: NumericProblem,
                      log_probability: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Log-weights and distances of the independent (product) coupling of a derived problem's
    two mixtures, in a term of probability ``e^log_probability``: ``w_i v_j`` at distance
    ``D[L_i, R_j]`` (by joint convexity, a mechanism-agnostic bound where every pair of
    positive weight is at a bounded distance, :func:`_bounded`; for 003 Thm. 3.7
    ``Binom(i | K₋, r) Binom(j | K₊, r)`` at ``i + j``)."""
    weights = (log_probability + problem.left[:, None] + problem.right[None, :]).ravel()
    return weights, _distances(problem).ravel()


def _diagonal_coupling(problem: NumericProblem) -> tuple[np.ndarray, np.ndarray]:
    """Log-weights and distances of the coupling that pairs component ``i`` on the left with
    component ``i`` on the right (both mixtures have the same weights, as in 001 Thm. 3.6)."""
    if not np.array_equal(problem.left, problem.right):
        raise UnsupportedOperation("the diagonal coupling needs equal weights on both sides")
    return problem.left, np.diag(_distances(problem))


def agnostic_delta(setting, mechanism: Mechanism, epsilons: np.ndarray) -> Bounds | Refusal:
    """As :func:`agnostic_rdp`, for δ(ε), with Balle et al. 2018's advanced joint convexity
    where it applies (:func:`_balle_group`)."""
    profile = _once_per_distance(mechanism.group_delta)

    def coupled(terms: list[Term], shape) -> list[Bounds]:
        couplings = _couplings(terms)
        bounds = [weighted_sum(weights[weights > -np.inf],
                               [profile(int(d), epsilons) for d in distances[weights > -np.inf]]
                               ).named(name)
                  for name, weights, distances in couplings]
        if setting.scheme is SchemeKind.POISSON and 0 in shape:   # pure insertion or removal
            bounds += [_balle_group(weights, distances, profile, epsilons).named(BALLE)
                       for _, weights, distances in couplings]
        return bounds + [_balle_group(weights, distances, profile, epsilons).named(BALLE)
                         for weights, distances in _shared_component(terms)]

    return _worst_case(setting, mechanism, Quantity.ADP, profile, epsilons, coupled)


def _balle_group(log_weights: np.ndarray, distances: np.ndarray, profile,
                 epsilons: np.ndarray) -> Bounds:
    """Balle et al. 2018's amplification by the probability ``η`` of the components at a
    positive distance, with the base profile ``Σ_k w_k δ_{d_k} / η`` over them: 003 Sec. 3.3
    for pure insertion or removal of ``K`` elements (``η = 1 − (1 − r)^K``), and a case with a
    shared component (:func:`_shared_component`)."""
    keep = np.flatnonzero((log_weights > -np.inf) & (distances > 0))
    if not keep.size:
        return Bounds(np.zeros(epsilons.size), np.zeros(epsilons.size))
    log_eta = float(np.logaddexp.reduce(log_weights[keep]))
    return balle(log_eta, lambda eps: weighted_sum(
        log_weights[keep] - log_eta, [profile(int(distances[k]), eps) for k in keep]), epsilons)


def _shared_component(terms: list[Term]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Balle et al. 2018's advanced joint convexity for a case whose two mixtures have equal
    weights and share a component (``d(L_z, R_z) = 0``, as ``A₀ = E₀`` for sampling with
    replacement under substitution): ``m = (1 − η) c + η m₁``, ``m' = (1 − η) c + η m₁'``, and
    ``D_{e^{ε'}}(m ‖ m') = η D_{e^ε}(m₁ ‖ (1 − β) c + β m₁')`` is bounded by joint convexity,
    pairing ``L_k`` with ``R_z`` and with ``R_k``: distance ``max(d(L_k, R_z), d(L_k, R_k))``.
    Log-weights and those distances (empty where the pattern is absent)."""
    if len(terms) != 1 or not np.array_equal(terms[0].problem.left, terms[0].problem.right):
        return []
    distances = _distances(terms[0].problem)
    shared = np.flatnonzero(np.diag(distances) == 0)
    if not shared.size:
        return []
    reach = np.maximum(distances[:, shared[0]], np.diag(distances))
    if not np.all(np.isfinite(reach)):
        return []
    return [(terms[0].log_probability + terms[0].problem.left, reach)]
