"""Privacy of one subsampled step in numbers: RDP ε(α) and ADP δ(ε), by three methods.

* ``tight`` — the engine's bound solved for the concrete mechanism (001 Thm. 3.7, 4.2, G.1;
  003 Thm. 3.8): the exact divergence of the dominating pairs.
* ``agnostic`` — the bound expressed through the base mechanism's group privacy profile only, by
  joint convexity: the product-coupling bound ``Σ_{i,j} w_i v_j D_{i+j}`` always, and where they
  apply the better of it and 001 Prop. E.4 (Zhu & Wang), Wang et al. 2019 Thm. 9 and 27 for RDP,
  003 Sec. 3.3 (Balle et al. 2018) for ADP with pure insertion or removal, Balle et al. 2018 for
  sampling without replacement, 001 Prop. E.5 for K-fold substitution
  (:mod:`otbound.numerics.agnostic`).
* ``posthoc`` — the K = 1 tight bound followed by the generic group privacy property: Mironov
  2017 Cor. 4 applied ⌈log₂ K⌉ times (001 App. B.1) for RDP, and
  ``(Kε₁, Σ_{k<K} e^{kε₁} δ(ε₁))`` for ADP.

Every number is an upper bound: each divergence is rounded up by its error estimate before it is
combined, and the reported error is the difference to the same combination of the estimates.
Where a method has several valid forms, and where a bound at one order or ε also bounds another
(``ε(α)`` never decreases in ``α``, ``δ(ε)`` never increases in ``ε``), the smallest is reported.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

from otbound.choices import Method, Quantity
from otbound.errors import (InvalidSpecification, Refusal, as_choice,
                            granted, required)
from otbound.numerics.agnostic import agnostic_delta, agnostic_rdp
from otbound.numerics.certified import (certified_delta_curve, certified_log_psi_curve,
                                        certified_mode, certifying)
from otbound.numerics.hockey_stick import check_epsilons, hockey_stick_bounds
from otbound.numerics.limits import MAX_ALPHA
from otbound.numerics.mechanisms import Mechanism, Pair
from otbound.numerics.mixtures import (mixture_log_psi, per_order, rounded_up,
                                       weighted_sum)
from otbound.numerics.problems import Term
from otbound.numerics.renyi import check_orders, log_psi_curve
from otbound.numerics.rounding import EPS, SMALLEST, Bounds, NumericBound, maximum, minimum
from otbound.numerics.settings import Setting, Subsampling
from otbound.numerics.units import posthoc_unit, unit_of
from otbound.numerics.solvers import Basis, How, solved_cases
from otbound.numerics.three_point import MAX_ORDER, ThreePointMaximum
from otbound.parallel import mapped

if TYPE_CHECKING:
    from otbound.numerics.derived import DerivedSetting


# --- RDP ------------------------------------------------------------------------------------

def rdp(setting: Setting, mechanism: Mechanism, method: Method | str,
        alphas, certified: bool = False) -> list[NumericBound]:
    """``ε(α)`` for every order; each value is an upper bound with its error estimate.
    ``certified``: every dominating pair's divergence is a rigorous enclosure's upper end
    (:mod:`otbound.numerics.certified`), the enclosure's width its error. Refused (raised) as
    :func:`rdp_or_refusal` refuses."""
    return granted(rdp_or_refusal(setting, mechanism, method, alphas, certified))


def rdp_or_refusal(setting: Setting, mechanism: Mechanism, method: Method | str,
               alphas, certified: bool = False) -> list[NumericBound] | Refusal:
    """:func:`rdp`'s bounds, or why ``method`` has none here: found where it is found (no
    mechanism-agnostic bound for a case, a product coupling at an unbounded distance, a
    three-point certificate, the post-hoc order limit, an epoch-level setting's method), so
    that a route can take another method."""
    if certified:
        if (refused := _certified_refusal(method)) is not None:
            return refused
        with certified_mode():
            return rdp_or_refusal(setting, mechanism, method, alphas)
    setting, method = _check_inputs(setting, mechanism, method)
    alphas = check_orders(alphas)
    if setting.epoch_level:
        found = _epoch_bounds(setting, mechanism, method, alphas, Quantity.RDP)
    else:
        evaluate = {Method.TIGHT: _tight_rdp, Method.AGNOSTIC: agnostic_rdp,
                    Method.POSTHOC: _posthoc_rdp}[method]
        found = evaluate(setting, mechanism, alphas)
    return found if isinstance(found, Refusal) else _monotone(found, alphas).as_list()


def _certified_refusal(method: Method | str) -> Refusal | None:
    """Certified mode encloses the divergences of dominating pairs; the agnostic method uses
    the mechanism's closed-form profile instead, and is refused."""
    if as_choice(Method, method, "method") is Method.AGNOSTIC:
        return Refusal("certified mode encloses the divergences of dominating pairs: "
                       "use method='tight' or method='posthoc'")
    return None


def _check_inputs(setting, mechanism: Mechanism,
                  method: Method | str) -> tuple[Subsampling | DerivedSetting, Method]:
    """The setting the numbers evaluate (:func:`~otbound.numerics.derived.as_setting`) and the
    method as a :class:`Method`, once the setting and the mechanism have their types."""
    from otbound.numerics.derived import as_setting

    setting = as_setting(setting)
    if getattr(setting, "epoch_level", None) not in (True, False):
        raise InvalidSpecification(f"setting must be a setting (a Subsampling, a derivation's "
                                   "setting, a TruncatedPoissonSetting or an epoch-level one), "
                                   f"got {type(setting).__name__}", parameter="setting")
    if not isinstance(mechanism, Mechanism):
        raise InvalidSpecification(f"mechanism must be a Mechanism, got "
                                   f"{type(mechanism).__name__}", parameter="mechanism")
    return setting, as_choice(Method, method, "method")


def solved(setting, mechanism: Mechanism,
           quantity: Quantity = Quantity.ADP) -> tuple[list[list[Branch]], How]:
    """The dominating pairs of the setting's bound, per case, and how they were found: the
    mechanism's exact solver where it applies (for Rényi divergences, its Rényi solvers),
    else a sound relaxation or the product coupling, said so; refused (raised) as
    :func:`solutions` refuses."""
    return granted(solutions(setting, mechanism, quantity))


def solutions(setting, mechanism: Mechanism, quantity: Quantity = Quantity.ADP
              ) -> tuple[list[list[Branch]], How] | Refusal:
    """:func:`solved`'s pairs, or the refusal of a product coupling with unconstrained
    components (:func:`otbound.numerics.solvers.solved_cases`)."""
    return solved_cases(setting.cases(), mechanism, quantity)


AGNOSTIC = ("mechanism-agnostic: per case, the smallest of joint convexity over the couplings of "
            "the bound's mixtures and the published bounds that apply to its scheme and "
            "neighbouring pair (001 Prop. E.4, E.5; Wang et al. 2019; Balle et al. 2018)")


def explain(setting, mechanism: Mechanism, method: Method | str, quantity: Quantity) -> str:
    """How ``method`` bounds the setting, in words (for the output)."""
    from otbound.numerics.derived import as_setting

    method, setting = as_choice(Method, method, "method"), as_setting(setting)
    if setting.epoch_level:
        return setting.solved(mechanism)[2]
    if method is Method.AGNOSTIC:
        return AGNOSTIC
    if method is Method.POSTHOC:
        single, size = unit_of(setting)
        rule = "Mironov 2017 Cor. 4" if quantity.renyi else "Kε, Σ e^(kε) δ"
        return (f"post-hoc: group privacy ({rule}"
                f", group size {size}) on the K = 1 bound of {single.summary()}: "
                f"{explain(single, mechanism, Method.TIGHT, quantity)}")
    how = solved(setting, mechanism, quantity)[1]
    return how.text if how.basis is Basis.TIGHT else \
        f"{how}; where the agnostic bound is smaller, it is reported"


def _monotone(bounds: Bounds, points: np.ndarray, decreasing: bool = False) -> Bounds:
    """The curve raised where needed to be non-decreasing (or non-increasing) in ``points``.

    True ε(α) never decreases and true δ(ε) never increases, so the bound at one point also
    bounds the others on its side; raising a value keeps it an upper bound. This only removes
    rounding-level wiggles (and those of the approximate optimisers of the post-hoc method)."""
    order = np.argsort(points, kind="stable")
    if decreasing:
        order = order[::-1]
    upper = bounds.upper.copy()
    upper[order] = np.maximum.accumulate(bounds.upper[order])
    sources = None
    if bounds.sources is not None:   # a raised value is the bound it was raised to
        ordered = bounds.upper[order]
        setter = np.maximum.accumulate(np.where(ordered >= np.maximum.accumulate(ordered),
                                                np.arange(ordered.size), 0))
        sources = bounds.sources.copy()
        sources[order] = bounds.sources[order][setter]
    return Bounds(upper, np.minimum(bounds.estimate, upper), sources)


Branch = tuple[float, list[Pair]]
"""``(log probability, dominating pairs)``: one public branch of a mixture of mechanisms, whose
divergence is the largest over its pairs."""
RenyiBranch = tuple[float, Sequence[Pair | ThreePointMaximum]]
"""A branch for Rényi divergences only, where a pair may be a certified three-point maximum
instead (:meth:`Mechanism.renyi_pairs`)."""


def tight_branches(terms: list[Term], mechanism: Mechanism,
                   quantity: Quantity = Quantity.ADP) -> list[Branch]:
    """The dominating pairs of every term of a case (for Rényi divergences, which
    some patterns have a solver for that gives no pair: :meth:`Mechanism.renyi_pairs`)."""
    for term in terms:
        if not isinstance(term, Term):
            raise InvalidSpecification(
                "terms must be Term objects (Term.of_probability or Term.of_log_probability), "
                f"got {type(term).__name__}", parameter="terms")
    solve = mechanism.renyi_pairs if quantity.renyi else mechanism.tight_pairs
    return [(log_weight, solve(problem)) for log_weight, problem in terms]


def terms_log_psi(terms: list[Term], mechanism: Mechanism, alphas: np.ndarray,
                  limit: bool = True) -> Bounds:
    """``log Σ_t P(t) · max_pairs Ψ_α(pair)`` for one case (tight, as upper bounds)."""
    return branches_log_psi(tight_branches(terms, mechanism, Quantity.RDP), alphas, limit)


def terms_delta(terms: list[Term], mechanism: Mechanism, epsilons: np.ndarray) -> Bounds:
    """``Σ_t P(t) · max_pairs δ(ε; pair)`` for one case (tight, as upper bounds)."""
    return branches_delta(tight_branches(terms, mechanism), epsilons)


def branches_log_psi(branches: Sequence[RenyiBranch], alphas: np.ndarray,
                     limit: bool = True) -> Bounds:
    """``log Σ_b P(b) · max_pairs Ψ_α(pair)`` (upper bounds and estimates)."""
    worst = [maximum([_pair_log_psi(pair, alphas, limit) for pair in pairs])
             for _, pairs in branches]
    return mixture_log_psi(np.array([log_weight for log_weight, _ in branches]), worst)


def cases_log_psi(cases: Sequence[Sequence[RenyiBranch]], alphas: np.ndarray,
                  limit: bool = True) -> list[Bounds]:
    """:func:`branches_log_psi` of every case (on every core for a large group)."""
    return mapped(functools.partial(branches_log_psi, alphas=alphas, limit=limit), cases)


def _pair_log_psi(pair, alphas: np.ndarray, limit: bool) -> Bounds:
    """``log Ψ_α`` of a dominating pair (rigorously in certified mode), or of the maximum a
    :class:`~otbound.numerics.three_point.ThreePointMaximum` encloses (always certified)."""
    if isinstance(pair, ThreePointMaximum):
        return pair.log_psi(alphas)
    curve = certified_log_psi_curve if certifying() else log_psi_curve
    return Bounds.of(curve(pair, alphas, limit=limit))


def _tight_rdp(setting, mechanism: Mechanism, alphas: np.ndarray, limit: bool = True,
               uncovered: bool = True) -> Bounds | Refusal:
    """The setting's bound through its dominating pairs; where a case has no exact solver, the
    smaller of that sound bound and the agnostic one (both sound: the best is reported). With
    ``uncovered``, the certified three-point solver's values (the upper ends of enclosures, not
    exact values) are compared with the agnostic bound too, which stands alone at the orders it
    does not cover (above :data:`~otbound.numerics.three_point_formula.MAX_ORDER`); without,
    such orders are refused and nothing is compared (the post-hoc search's many calls). A
    refusal is the answer where the pairs, a certificate they need or the agnostic bound
    compared with them refuse."""
    solution = solutions(setting, mechanism, Quantity.RDP)
    if isinstance(solution, Refusal):
        return solution
    branches, how = solution
    covered = np.ones(alphas.size, dtype=bool)
    enclosed = False
    for pair in (p for case in branches for _, pairs in case for p in pairs):
        if isinstance(pair, ThreePointMaximum) and uncovered:
            enclosed = True
            covered &= pair.covers(alphas)
    if how.basis is Basis.TIGHT and covered.all() and not enclosed:   # nothing compared
        if (refused := _certificates_refusal(branches, alphas)) is not None:
            return refused
        return per_order(maximum(cases_log_psi(branches, alphas, limit)), alphas)
    best = agnostic_rdp(setting, mechanism, alphas)
    if isinstance(best, Refusal):
        return best
    if (refused := _certificates_refusal(branches, alphas[covered])) is not None:
        return refused
    if covered.any():
        at = alphas[covered]
        found = per_order(maximum(cases_log_psi(branches, at, limit)), at)
        mixed = minimum([found.named(PAIRS[how.basis]), best[covered]])
        sources = required(best.sources, "the names of the agnostic bounds").copy()
        upper, estimate = best.upper.copy(), best.estimate.copy()
        upper[covered], estimate[covered] = mixed.upper, mixed.estimate
        sources[covered] = mixed.sources
        best = Bounds(upper, estimate, sources)
    return best


def _certificates_refusal(branches: Sequence[Sequence[RenyiBranch]], alphas: np.ndarray
                          ) -> Refusal | None:
    """The first refusal of a certified three-point maximum among the pairs at ``alphas`` (an
    order it does not cover, a certificate that fails: :meth:`ThreePointMaximum.refusal`,
    which computes and keeps the certificates), or ``None``."""
    if not alphas.size:
        return None
    for pair in (p for case in branches for _, pairs in case for p in pairs):
        if isinstance(pair, ThreePointMaximum) and (found := pair.refusal(alphas)) is not None:
            return found
    return None


PAIRS = {Basis.TIGHT: "the dominating pairs (tight)",
         Basis.RELAXED: "the dominating pairs of a relaxation (sound, not tight)",
         Basis.AGNOSTIC: "the product coupling's pairs (sound, not tight)"}
"""How each value from dominating pairs is named (where it is compared with other bounds)."""


def _posthoc_rdp(setting, mechanism: Mechanism, alphas: np.ndarray) -> Bounds | Refusal:
    """Mironov's group property on the K = 1 tight bound of the setting's scheme; since
    ``ε(α) ≤ ε(α')`` for ``α' ≥ α``, the order ``max(α, α*)`` is used, ``α*`` minimising the
    group bound. Refused where the setting has no K = 1 form (:func:`~otbound.numerics.units.
    posthoc_unit`) and above the orders the K = 1 bound covers at the group's depth (asked
    before the search); a refusal of the K = 1 bound inside the search is raised."""
    unit = posthoc_unit(setting)
    if isinstance(unit, Refusal):
        return unit
    single, size = unit
    depth = math.ceil(math.log2(size)) if size > 1 else 0

    def group(orders: np.ndarray) -> Bounds:
        # the certified three-point solver's orders are not searched over (seconds each)
        return _mironov_group(lambda o: granted(_tight_rdp(single, mechanism, o, False, False)),
                              np.atleast_1d(orders), depth)

    if depth == 0:
        return _tight_rdp(single, mechanism, alphas, False, False)
    highest = min(MAX_ALPHA, _highest_tight_order(single, mechanism) / 2 ** depth)
    if alphas.max() > highest:
        return Refusal(
            f"the post-hoc bound for a group of {size} reads the K = 1 bound at {2 ** depth} "
            f"times the order, and the K = 1 bound here (001 Thm. 3.6's certified three-point "
            f"maximum) covers orders up to {highest * 2 ** depth:g}: alpha up to {highest:g}, "
            f"got {alphas.max():g}; use method 'tight' or 'agnostic' for larger orders")
    best = _minimiser(lambda t: group(1 + np.exp(t)).upper, math.log(1e-3),
                      math.log(highest - 1))
    return group(np.maximum(alphas, 1 + math.exp(best)))


def _highest_tight_order(setting, mechanism: Mechanism) -> float:
    """The largest order at which :func:`_tight_rdp` gives the setting's own bound without
    comparing it: the certified three-point maximum's enclosures stop at
    :data:`~otbound.numerics.three_point.MAX_ORDER`; other dominating pairs cover every order."""
    branches, _ = solved(setting, mechanism, Quantity.RDP)
    enclosed = any(isinstance(pair, ThreePointMaximum)
                   for case in branches for _, pairs in case for pair in pairs)
    return float(MAX_ORDER) if enclosed else math.inf


def _mironov_group(curve, alphas: np.ndarray, depth: int) -> Bounds:
    """Mironov 2017 Cor. 4, ``depth`` times: ``ε_{2K}(α) ≤ (α − ½)/(α − 1) ε_K(2α) +
    α/(α − 1) ε_K(2α − 1)`` (001 App. B.1); returns ε."""
    if depth == 0:
        return curve(alphas)
    inner = _mironov_group(curve, np.concatenate([2 * alphas, 2 * alphas - 1]), depth - 1)
    first, second = (alphas - 0.5) / (alphas - 1), alphas / (alphas - 1)
    n = alphas.size
    upper = (first * inner.upper[:n] + second * inner.upper[n:]) * (1 + 8 * EPS)
    return Bounds(rounded_up(upper, upper), first * inner.estimate[:n]
                  + second * inner.estimate[n:])


def _minimiser(objective: Callable[[np.ndarray], np.ndarray], low: float, high: float,
               points: int = 48, steps: int = 40) -> float:
    """Where a (roughly unimodal) function of one variable is smallest: the best point of a grid,
    refined by golden-section search between its neighbours. Deterministic."""
    grid = np.linspace(low, high, points)
    values = objective(grid)
    best = int(np.argmin(values))
    a, b = grid[max(best - 1, 0)], grid[min(best + 1, points - 1)]
    ratio = (math.sqrt(5) - 1) / 2
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    fc, fd = float(objective(np.array([c]))[0]), float(objective(np.array([d]))[0])
    for _ in range(steps):
        if fc <= fd:
            b, d, fd = d, c, fc
            c = b - ratio * (b - a)
            fc = float(objective(np.array([c]))[0])
        else:
            a, c, fc = c, d, fd
            d = a + ratio * (b - a)
            fd = float(objective(np.array([d]))[0])
    candidates = [(values[best], grid[best]), (fc, c), (fd, d)]
    return float(min(candidates)[1])


# --- one epoch --------------------------------------------------------------------------------

def _epoch_bounds(setting, mechanism: Mechanism, method: Method, points: np.ndarray,
                  quantity: Quantity) -> Bounds | Refusal:
    """ε(α) (RDP) or δ(ε) of one epoch of an epoch-level setting: the largest over its cases
    of its worst case's pairs, composed as often as the step repeats per epoch (RDP adds up;
    δ(ε) of repeated steps needs their composition, which ``account`` does); refused for
    another method, and for δ(ε) of repeated steps."""
    if method is not Method.TIGHT:
        return Refusal(f"{setting.summary()} is bounded by its derived worst case "
                       "(method='tight')")
    if (refused := setting.cannot_solve(mechanism)) is not None:
        return refused
    cases, repeats, _, _ = setting.solved(mechanism)
    if quantity.renyi:
        found = per_order(maximum(cases_log_psi(cases, points)), points)
        return Bounds(rounded_up(found.upper * repeats, found.upper), found.estimate * repeats)
    if repeats != 1:
        return Refusal(f"one epoch of {setting.summary()} is {repeats} steps "
                       "composed: its δ(ε) is `otbound account ... --epochs 1`")
    found = maximum([branches_delta(case, points) for case in cases])
    return Bounds(np.minimum(found.upper, 1.0), np.minimum(found.estimate, 1.0))


# --- ADP ------------------------------------------------------------------------------------

def adp(setting: Setting, mechanism: Mechanism, method: Method | str,
        epsilons, certified: bool = False) -> list[NumericBound]:
    """``δ(ε)`` for every ε; each value is an upper bound with its error estimate
    (``certified``: see :func:`rdp`). Refused (raised) as :func:`adp_or_refusal` refuses."""
    return granted(adp_or_refusal(setting, mechanism, method, epsilons, certified))


def adp_or_refusal(setting: Setting, mechanism: Mechanism, method: Method | str,
               epsilons, certified: bool = False) -> list[NumericBound] | Refusal:
    """:func:`adp`'s bounds, or why ``method`` has none here (as :func:`rdp_or_refusal`)."""
    if certified:
        if (refused := _certified_refusal(method)) is not None:
            return refused
        with certified_mode():
            return adp_or_refusal(setting, mechanism, method, epsilons)
    setting, method = _check_inputs(setting, mechanism, method)
    epsilons = check_epsilons(epsilons)
    if setting.epoch_level:
        found = _epoch_bounds(setting, mechanism, method, epsilons, Quantity.ADP)
        return found if isinstance(found, Refusal) else _monotone(
            found, epsilons, decreasing=True).as_list()
    delta = _delta_by_method(setting, mechanism, method, epsilons)
    if isinstance(delta, Refusal):
        return delta
    result = _monotone(delta, epsilons, decreasing=True)
    sources = (None if result.sources is None
               else np.where(result.upper > 1.0, "δ ≤ 1 (trivial)", result.sources))
    return Bounds(np.minimum(result.upper, 1.0), np.minimum(result.estimate, 1.0),
                  sources).as_list()


def _delta_by_method(setting, mechanism: Mechanism, method: Method,
                     epsilons: np.ndarray) -> Bounds | Refusal:
    """δ(ε) by ``method``. Below ε = 0 the agnostic and post-hoc bounds (proved for ε ≥ 0) give
    it through the swapped relation (:func:`_below_zero`); the tight bound gives it directly
    too, and the smaller of the two is kept. The first refusal of a part is the answer."""
    compute = {Method.TIGHT: _tight_delta, Method.AGNOSTIC: agnostic_delta,
               Method.POSTHOC: _posthoc_delta}[method]
    negative = epsilons < 0
    if not negative.any():
        return compute(setting, mechanism, epsilons)
    below = _below_zero(setting, mechanism, method, epsilons[negative])
    if isinstance(below, Refusal):
        return below
    if method is Method.TIGHT:
        direct = compute(setting, mechanism, epsilons[negative])
        if isinstance(direct, Refusal):
            return direct
        below = minimum([direct, below])
    rest = compute(setting, mechanism, epsilons[~negative]) if (~negative).any() else None
    if isinstance(rest, Refusal):
        return rest
    upper, estimate = np.empty(epsilons.size), np.empty(epsilons.size)
    sources = np.empty(epsilons.size, dtype=object)
    for part, at in ((below, negative), (rest, ~negative)):
        if part is not None:
            upper[at], estimate[at] = part.upper, part.estimate
            sources[at] = part.sources
    return Bounds(upper, estimate, None if any(v is None for v in sources) else sources)


def _below_zero(setting, mechanism: Mechanism, method: Method,
                epsilons: np.ndarray) -> Bounds | Refusal:
    """δ(ε) at ε < 0 from the swapped relation's δ' at −ε > 0: ``H_{e^ε}(P ‖ Q) = 1 − e^ε +
    e^ε H_{e^{−ε}}(Q ‖ P)`` (Zhu et al. 2022, Prop. 6), rounded up; or its refusal."""
    swapped = adp_or_refusal(setting.swapped(), mechanism, method, -epsilons)
    if isinstance(swapped, Refusal):
        return swapped
    mirrored = Bounds.of(swapped)
    gap, scale = -np.expm1(epsilons), np.exp(epsilons)
    upper = (gap + scale * mirrored.upper) * (1 + 4 * EPS)
    return Bounds(upper, gap + scale * mirrored.estimate).named(
        "Zhu et al. 2022 Prop. 6: the swapped relation's bound at -ε")


def branches_delta(branches: Sequence[Branch], epsilons: np.ndarray,
                   tolerance: float | None = None) -> Bounds:
    """``Σ_b P(b) · max_pairs δ(ε; pair)`` (upper bounds and estimates); ε may be negative.
    ``tolerance`` is the relative error of δ tolerated before high-precision recomputation."""
    worst = [maximum([Bounds.of(certified_delta_curve(pair, epsilons)) if certifying()
                      else hockey_stick_bounds(pair, epsilons, tolerance)
                      for pair in pairs]) for _, pairs in branches]
    return weighted_sum([log_weight for log_weight, _ in branches], worst)


def _tight_delta(setting, mechanism: Mechanism, epsilons: np.ndarray) -> Bounds | Refusal:
    """As :func:`_tight_rdp`, for δ(ε)."""
    solution = solutions(setting, mechanism)
    if isinstance(solution, Refusal):
        return solution
    branches, how = solution
    found = maximum([branches_delta(b, epsilons) for b in branches])
    if how.basis is Basis.TIGHT or (epsilons < 0).any():
        # nothing compared (no name), or below ε = 0, where the agnostic bound does not apply
        # directly (adp compares it through the swapped relation)
        return found
    agnostic = agnostic_delta(setting, mechanism, epsilons)
    return agnostic if isinstance(agnostic, Refusal) else minimum(
        [found.named(PAIRS[how.basis]), agnostic])


def _posthoc_delta(setting, mechanism: Mechanism, epsilons: np.ndarray) -> Bounds | Refusal:
    """``(Kε₁, Σ_{k<K} e^{kε₁} δ₁(ε₁))`` from the K = 1 tight profile ``δ₁`` of the setting's
    scheme; any ``ε₁ ≤ ε/K`` is valid, and ``min(ε/K, ε₁*)`` is used, ``ε₁*`` minimising the
    group bound."""
    unit = posthoc_unit(setting)
    if isinstance(unit, Refusal):
        return unit
    single, k = unit

    def group(inner: np.ndarray) -> Bounds:
        inner = np.atleast_1d(inner)
        base = granted(_tight_delta(single, mechanism, inner))
        # ε₁ ≤ POSTHOC_SEARCH/K keeps every term finite
        factor = np.array([math.fsum(math.exp(j * e) for j in range(k)) for e in inner])
        upper = base.upper * factor * (1 + 4 * k * EPS)
        return Bounds(rounded_up(upper, base.upper), base.estimate * factor)

    if k == 1:
        return group(epsilons)
    best = _minimiser(lambda e: np.log(np.maximum(group(e).upper, SMALLEST)), 0.0,
                      POSTHOC_SEARCH / k)
    return group(np.minimum(epsilons / k, best))


POSTHOC_SEARCH = 100.0
"""The largest ``Kε₁`` the post-hoc search considers (far beyond any privacy of interest)."""
