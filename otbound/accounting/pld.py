"""Dominating pairs as privacy loss distributions, composed by dp_accounting's algorithms.

Each case of a setting's tight bound (e.g. one ``(K₊, K₋)`` of 003 Thm. 3.7) has a privacy profile
``δ(ε) = Σ_t P(t) max_pairs H_{e^ε}(P ‖ Q)``, the profile of a dominating pair (a weighted sum of
profiles is the profile of the labelled mixture; a maximum of profiles is the profile of the
convex hull of the trade-off curves, Zhu et al. 2022). That profile becomes a PLD by pessimistic
"connect the dots" (Doroshenko et al. 2022, ``dp_accounting.pld.pld_pmf``'s algorithm): ``δ`` is
evaluated, rounded up, on a grid of ε spaced by the discretisation interval over the privacy
losses the bulk of ``P`` can produce. Whatever lies outside that range is moved the pessimistic
way (mass below up to the lowest loss, mass above to +∞), so the result never under-reports ε;
the range only decides how tight it is. Composition (FFT convolution) and conversion are
dp_accounting's algorithms, run on otbound's own PLDs (:mod:`otbound.numerics.dense_pld`:
dp_accounting keeps a PLD's probabilities in private fields, and otbound reads them).

A pair of datasets keeps its case in every step (the same elements are inserted or removed), so
cases are composed separately and the worst case is reported.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from otbound.accounting.prefixes import Prefixes
from otbound.accounting.steps import Step, StepCase, check_composable
from otbound.choices import DEFAULT_DISCRETISATION
from otbound.errors import InvalidSpecification, Refusal, granted, required
from otbound.numerics.allocation import EpochPair
from otbound.numerics.dense_pld import TRUNCATION, DensePLD, DensePmf, connect_dots
from otbound.numerics.limits import DISCRETISATION_RANGE, MAX_PLD_POINTS, show
from otbound.numerics.one_step import branches_delta
from otbound.numerics.noise import NoiseFamily
from otbound.numerics.pairs import FinitePair, MixturePair
from otbound.parallel import mapped

ROUNDING_RELATIVE, ROUNDING_FLOOR = 1e-9, 1e-15
"""Margins for the floating-point sums and FFTs of the PLDs (dp_accounting's algorithms), which
are not rounded outwards: a one-step PLD read back at a grid point came out 1.5e-14 relative
below the profile it was built from. The floor is the size of the per-composition tail
truncation (:data:`TRUNCATION`). These are measured margins, not proofs (certified PLD
arithmetic is future work)."""
LOSS_TAIL = 1e-25
"""Probability mass of ``P`` left outside the loss grid (it is moved pessimistically)."""
TOLERANCE = 1e-6
"""Relative error of δ accepted on the grid (each δ is still rounded up by its error); far
below what the discretisation changes, and it spares high-precision recomputation."""


def _reach(family: NoiseFamily, log_weight: float) -> float:
    """Standardised distance beyond which a component of weight ``e^log_weight`` has less than
    ``LOSS_TAIL`` mass."""
    return family.reach(max(log_weight - math.log(LOSS_TAIL), 0.0))


def pair_loss_range(pair: MixturePair | FinitePair) -> tuple[float, float]:
    """The privacy losses ``log P/Q`` taken on the bulk of ``P`` (monotone in ``z``)."""
    if isinstance(pair, EpochPair):
        return pair.loss_range()
    if isinstance(pair, FinitePair):
        loss = pair.log_ratio
        finite = loss[np.isfinite(loss) & (pair.p > 0)]
        return float(finite.min()), float(finite.max())
    keep = pair.p_log_weights > math.log(LOSS_TAIL)
    reach = np.array([_reach(pair.family, w) for w in pair.p_log_weights[keep]]) * pair.scale
    means = pair.p_means[keep]
    loss = pair.log_loss(np.array([(means - reach).min(), (means + reach).max()]))
    return float(loss.min()), float(loss.max())


def case_pld(case: StepCase, discretisation: float = DEFAULT_DISCRETISATION) -> DensePLD:
    """The pessimistic connect-the-dots PLD of one case (an epoch's pair: its own pessimistic
    PLD, whose losses are exact); refused (raised) as :func:`case_pld_or_refusal` refuses."""
    return granted(case_pld_or_refusal(case, discretisation))


def case_pld_or_refusal(case: StepCase,
                        discretisation: float = DEFAULT_DISCRETISATION) -> DensePLD | Refusal:
    """:func:`case_pld`, or why it cannot be built: an epoch's pair mixed with other branches,
    or a grid of more than :data:`MAX_PLD_POINTS` points (asked before it is built)."""
    epoch = epoch_pair(case)
    if isinstance(epoch, Refusal):
        return epoch
    if epoch is not None:
        return DensePLD(epoch.upper_pmf(discretisation))
    ranges = [pair_loss_range(pair) for _, pairs in case for pair in pairs]
    low, high = min(r[0] for r in ranges), max(r[1] for r in ranges)
    if (refused := grid_refusal(low, high, discretisation)) is not None:
        return refused
    return profile_pld(lambda epsilons: branches_delta(case, epsilons, TOLERANCE).upper,
                       low, high, discretisation)


def profile_evaluations(steps: list[Step], case: int, discretisation: float) -> float:
    """Grid points times mixture components of one case's one-step PLDs: what building them
    costs (each grid point's δ sums over every component), once per distinct step (repetitions
    share their PLDs)."""
    total = 0.0
    for step in {id(step.cases): step for step in steps}.values():
        pairs = [pair for _, pairs in step.cases[case] for pair in pairs]
        ranges = [pair_loss_range(pair) for pair in pairs]
        points = (max(r[1] for r in ranges) - min(r[0] for r in ranges)) / discretisation
        total += points * sum(_components(pair) for pair in pairs)
    return total


def _components(pair: MixturePair | FinitePair) -> int:
    if isinstance(pair, EpochPair):
        return 1
    return pair.p.size if isinstance(pair, FinitePair) else pair.p_means.size + pair.q_means.size


def sole_epoch_pair(case: StepCase) -> EpochPair | None:
    """The epoch's pair when it is the case's only branch (:func:`epoch_pair`, its refusal
    raised)."""
    return granted(epoch_pair(case))


def epoch_pair(case: StepCase) -> EpochPair | None | Refusal:
    """The epoch's pair when it is the case's only branch, ``None`` where the case has none,
    a refusal where one is mixed with other branches."""
    if len(case) == 1 and len(case[0][1]) == 1 and isinstance(case[0][1][0], EpochPair):
        return case[0][1][0]
    if any(isinstance(pair, EpochPair) for _, pairs in case for pair in pairs):
        return Refusal("an epoch's pair is composed on its own, not mixed with other branches")
    return None


def lower_end(steps: list[Step], delta: float | None, epsilon: float | None,
              discretisation: float = DEFAULT_DISCRETISATION) -> dict:
    """The lower end of a guarantee whose steps' pairs each dominate a known pair (epochs):
    ``{"epsilon_lower": …}`` at ``delta`` or ``{"delta_lower": …}`` at ``epsilon``, the largest
    over the cases of those pairs composed (optimistic PLDs: every true ε, δ is at least it);
    empty where a case has no such pair."""
    cases = len(steps[0].cases)
    composed = []
    for case in range(cases):
        found = None
        for step in steps:
            pair = sole_epoch_pair(step.cases[case])
            if pair is None:
                return {}
            pmf = pair.lower_pmf(discretisation)
            pmf = pmf.self_compose(step.count, TRUNCATION) if step.count > 1 else pmf
            found = pmf if found is None else found.compose(pmf, TRUNCATION)
        composed.append(required(found, "a case's composition"))   # there are steps
    # the self-composition adds the truncated mass (≤ TRUNCATION per composition) to infinity
    # even when it rounds down (as dp_accounting's does), and the FFT leaves noise: both are
    # taken off the lower end; the inversion is exact for the pmf but for rounding, which a
    # relative margin covers
    slack = 2 * TRUNCATION * len(steps) + max(composition_noise_of(pmf) for pmf in composed)
    if delta is not None:
        reached = max(float(pmf.get_epsilon_for_delta(delta + slack)) for pmf in composed)
        return {"epsilon_lower": max(0.0, reached * (1 - ROUNDING_RELATIVE) - ROUNDING_FLOOR)}
    at = required(epsilon, "epsilon")   # one of the two is given
    return {"delta_lower": max(0.0, max(float(pmf.get_delta_for_epsilon(at))
                                        for pmf in composed) - slack)}


def profile_pld(profile, low: float, high: float,
                discretisation: float = DEFAULT_DISCRETISATION) -> DensePLD:
    """The connect-the-dots PLD of a privacy profile ``δ(ε)`` (upper bounds, vectorised in ε)
    on the losses ``[low, high]`` (Doroshenko et al. 2022, Zhu et al. 2022)."""
    return DensePLD(profile_pmf(profile, low, high, discretisation))


def profile_pmf(profile, low: float, high: float,
                discretisation: float = DEFAULT_DISCRETISATION) -> DensePmf:
    """The dense pessimistic connect-the-dots pmf (:func:`otbound.numerics.dense_pld.connect_dots`,
    dp_accounting's algorithm) of a privacy profile on the losses ``[low, high]``:
    :func:`profile_pld`'s, for one adjacency."""
    check_discretisation(discretisation)
    if (refused := grid_refusal(low, high, discretisation)) is not None:
        raise refused.error()
    rounded = np.arange(math.floor(low / discretisation), math.ceil(high / discretisation) + 1)
    deltas = np.asarray(profile(rounded * discretisation), dtype=float)
    deltas = np.minimum.accumulate(np.clip(deltas, 0.0, 1.0))
    return connect_dots(discretisation, rounded, deltas)


def check_discretisation(discretisation: float) -> None:
    low, high = DISCRETISATION_RANGE
    if not low <= discretisation <= high:
        raise InvalidSpecification(
            f"discretisation must be in [{low:g}, {high:g}], got {show(discretisation)}",
            parameter="discretisation")


def _dense_probabilities(pld: DensePLD) -> list[np.ndarray]:
    """The probabilities of each of the PLD's pmfs (both adjacencies; one for a symmetric
    PLD)."""
    return [pmf.probabilities for pmf in pld.pmfs]


def _composed_points(pld: DensePLD, count: int) -> int:
    """Grid points of ``count`` self-compositions: the support the composition keeps (its
    Chernoff bounds, :meth:`~otbound.numerics.dense_pld.DensePmf.composed_span`: tails of mass
    ``TRUNCATION`` are cut), the largest of the adjacencies'."""
    spans = [pmf.composed_span(count, TRUNCATION) for pmf in pld.pmfs]
    return max(high - low + 1 for low, high in spans)


def grid_refusal(low: float, high: float, discretisation: float) -> Refusal | None:
    """Why a one-step PLD on the losses ``[low, high]`` is not built (more than
    :data:`MAX_PLD_POINTS` grid points at ``discretisation``), or ``None``."""
    points = math.ceil(high / discretisation) - math.floor(low / discretisation) + 1
    if points <= MAX_PLD_POINTS:
        return None
    return Refusal(
        f"the PLD of one step would need {points:.3g} grid points (losses {low:.3g} to "
        f"{high:.3g} at discretisation={show(discretisation)}); at most "
        f"{MAX_PLD_POINTS:.3g} are allowed: use a coarser discretisation or accountant='rdp'")


def check_composed_size(pld: DensePLD, count: int) -> None:
    """:func:`composed_size_refusal`, raised."""
    if (refused := composed_size_refusal(pld, count)) is not None:
        raise refused.error()


def composed_size_refusal(pld: DensePLD, count: int) -> Refusal | None:
    """Why ``count`` compositions of ``pld`` give no guarantee (all its mass at an infinite
    loss) or are not computed (more than :data:`MAX_PLD_POINTS` grid points), or ``None``."""
    if not all(probabilities.sum() > 0 for probabilities in _dense_probabilities(pld)):
        return Refusal("the one-step PLD has all its mass at an infinite privacy loss (δ = 1 "
                       "at every ε): composing it gives no guarantee")
    points = _composed_points(pld, count) if count > 1 else 0
    if points > MAX_PLD_POINTS:
        return Refusal(
            f"composing {count} steps would need a PLD of {points:.3g} grid points "
            f"(at most {MAX_PLD_POINTS:.3g}); use a coarser discretisation or "
            "accountant='rdp'")
    return None


def compose_plds(steps: list[Step], discretisation: float = DEFAULT_DISCRETISATION,
                 cases: list[int] | None = None,
                 prefixes: Prefixes | None = None) -> list[DensePLD]:
    """Adaptive composition of heterogeneous steps: one composed PLD per case (of those
    indexed by ``cases``, default all), extending the compositions kept in ``prefixes``;
    refused (raised) as :func:`composed_plds` refuses."""
    return granted(composed_plds(steps, discretisation, cases, prefixes))


def composed_plds(steps: list[Step], discretisation: float = DEFAULT_DISCRETISATION,
                  cases: list[int] | None = None,
                  prefixes: Prefixes | None = None) -> list[DensePLD] | Refusal:
    """:func:`compose_plds`'s PLDs, or the first refusal of a step's one-step PLD
    (:func:`case_pld_or_refusal`) or of its composition (:func:`composed_size_refusal`), case
    by case and step by step: each step still to compose has its one-step PLD built (and kept)
    and asked before anything is composed (those composed before were asked then)."""
    check_composable(steps)
    prefixes = Prefixes() if prefixes is None else prefixes

    def one(step: Step, case: int) -> DensePLD | Refusal:
        return prefixes.once(step.cases, ("pld", case, discretisation),
                             lambda: case_pld_or_refusal(step.cases[case], discretisation))

    def repeated(step: Step, case: int) -> DensePLD:
        built = granted(one(step, case))   # asked below, before the fold
        return built.self_compose(step.count, TRUNCATION) if step.count > 1 else built

    chosen = range(len(steps[0].cases)) if cases is None else cases
    for case in chosen:
        for step in prefixes.unfolded(("pld", case, discretisation), steps):
            built = one(step, case)
            refused = (built if isinstance(built, Refusal)
                       else composed_size_refusal(built, step.count))
            if refused is not None:
                return refused
    return [prefixes.fold(("pld", case, discretisation), steps,
                          functools.partial(repeated, case=case),
                          lambda composed, more: composed.compose(more))
            for case in chosen]


def prefetch_plds(steps: list[Step], discretisations: dict[int, float],
                  prefixes: Prefixes) -> None:
    """Compose the PLDs of several cases (``case → discretisation``) on every core
    (:func:`otbound.parallel.mapped`) and keep them in ``prefixes``, where :func:`compose_plds`
    then finds them: the same PLDs, sooner. A case that cannot be composed is left for
    :func:`compose_plds` to refuse."""
    items = list(discretisations.items())

    def composed(item: tuple[int, float]):
        case, discretisation = item
        if isinstance(composed_plds(steps, discretisation, [case], prefixes), Refusal):
            return None
        return prefixes.kept(("pld", case, discretisation), steps)

    for (case, discretisation), kept in zip(items, mapped(composed, items)):
        if kept is not None:
            prefixes.keep(("pld", case, discretisation), steps, kept)


def composition_noise_of(pmf: DensePmf) -> float:
    """:func:`composition_noise` of one pmf."""
    probabilities = pmf.probabilities
    return NOISE_FACTOR * max(0.0, -float(probabilities.min()) * math.sqrt(probabilities.size))


def composition_noise(pld: DensePLD) -> float:
    """A measured allowance for the floating-point noise of the FFT compositions:
    :data:`NOISE_FACTOR` times the largest negative probability of the composed pmfs (a
    probability is never negative: its noise shows there) times the square root of their
    number of points (noise of independent signs, summed over the points δ adds up). Many
    compositions of a long pmf (10⁶ steps of a Gaussian at σ = 100) leave noise above a δ of
    1e-12: its ε came out 114 where the truth is above 119, and is now refused."""
    return NOISE_FACTOR * max(0.0, *(-float(probabilities.min()) * math.sqrt(probabilities.size)
                                     for probabilities in _dense_probabilities(pld)))


NOISE_FACTOR = 4.0
"""Safety factor on the measured composition noise (a measured margin, not a proof)."""


def pld_epsilon(plds: list[DensePLD], delta: float) -> float:
    """The worst case's ε at ``δ`` (pessimistic), for a target tightened by the rounding margin
    and the composition noise (``inf`` when nothing is left of it)."""
    noise = max(composition_noise(pld) for pld in plds)
    target = (delta - ROUNDING_FLOOR - noise) / (1 + ROUNDING_RELATIVE)
    if target <= 0:
        return math.inf
    return max(pld.get_epsilon_for_delta(target) for pld in plds)


RESOLUTION = 1e-14
"""The accountant's floor (``ROUNDING_FLOOR``) plus tail mass cut in the compositions
(``TRUNCATION`` each, moved pessimistically), before the composition-noise allowance."""


def floor(plds: list[DensePLD]) -> float:
    """δ at or below this (:data:`RESOLUTION` plus these compositions' noise allowance,
    :func:`composition_noise`, which depends on the machine's FFT) is a sound bound that says
    only that the true δ is no larger, not how small it is."""
    return RESOLUTION + max(composition_noise(pld) for pld in plds)


def pld_delta(plds: list[DensePLD], epsilon: float) -> float:
    """The worst case's δ at ``ε`` (pessimistic), widened by the rounding margin and the
    composition noise."""
    delta = max(pld.get_delta_for_epsilon(epsilon) for pld in plds)
    noise = max(composition_noise(pld) for pld in plds)
    return delta * (1 + ROUNDING_RELATIVE) + ROUNDING_FLOOR + noise
