"""Truncated Poisson subsampling, derived by revealing the truncation branch (002 Thm. 3.1, 3.4).

Seed 002 Thm. 3.1 (proof in its Sec. 3.1). Let ``x = x' ∪ {a}`` with ``|x| = N``, and let ``S`` be
the set of records of ``x'`` that Poisson sampling at rate ``p`` keeps before truncation. The
*branch* ``T = [|S| ≥ B]`` is not a function of the batch, so the event framework of 001 (events
on batches) cannot express it; but it has the same law on ``x`` and ``x'``
(``P[T] = w = P[Binom(N − 1, p) ≥ B]``), so by joint convexity

    Ψ(m_x ‖ m_{x'}) ≤ (1 − w) Ψ(m_x | ¬T ‖ m_{x'} | ¬T) + w Ψ(m_x | T ‖ m_{x'} | T),

a *public* mixture of two branches (releasing ``T`` can only enlarge the divergence). In each
branch, 001 Thm. 3.4 applies with events ``A1 = {a ∉ y}``, ``A2 = {a ∈ y}`` on ``x`` and
``E1 = Y`` on ``x'``, and the coupling that generates both batches from the same ``S``:

* ``¬T`` (no truncation of ``x'``): ``y_E1 = S``, ``y_A1 = y_E1``, ``y_A2 = y_E1 ∪ {a}``
  (:class:`InsertInRandomOrder`); ``P(A2 | ¬T) = p``; ``d_Y(y_A2, y_E1) = 1``.
* ``T``: ``y_E1`` is a uniform ``B``-subset of ``S``; ``y_A1 = y_E1``; ``y_A2`` replaces a
  uniformly random member of ``y_E1`` by ``a`` (:class:`ReplaceRandomMember`);
  ``P(A2 | T) = q̃ = p E[B / (|S| + 1) | T] = P[Binom(N, p) ≥ B + 1] / w · B / N`` (002 Sec. 3.4;
  the identity ``p C(N−1, s) / (s + 1) = C(N, s+1) / N`` proves it for every ``N``);
  ``d_Y(y_A2, y_E1) = 2``.

The construction is generative (the same ``S``, the same truncation draw), so it is a valid
coupling for every ``N``; :func:`check_instance` confirms it by exact enumeration: the batches
it generates have exactly the pmf of :class:`TruncatedPoisson` on ``x`` and ``x'``, the branch
conditionals are those of the two coupling steps, and ``w``, ``q̃`` equal their closed forms.
The emitted bound equals 002 Thm. 3.1 (both directions). Replace-one substitution (002 Thm.
3.4) uses the same branches and couplings with ``a'`` inserted or substituted alongside ``a``
(:func:`derived_substitution_bound`, :func:`check_substitution_instance`).
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from fractions import Fraction

import sympy as sp

from otbound.engine.batches import background
from otbound.engine.bound import MixtureBound, problem, statement
from otbound.engine.couplings import CouplingStep, InsertInRandomOrder, ReplaceRandomMember
from otbound.engine.relations import BatchRelation
from otbound.engine.schemes import TruncatedPoisson
from otbound.engine.symbols import r
from otbound.errors import InvalidSpecification

w = sp.Symbol("w", nonnegative=True)
"""Probability of the truncated branch, ``P[Binom(N − 1, p) ≥ B]``."""
q_trunc = sp.Symbol("q_trunc", nonnegative=True)
"""Probability that ``a`` is in the batch of ``x`` given the truncated branch (002's ``q̃``)."""

SPECIAL = "a"
BRANCH_STEPS: dict[bool, CouplingStep] = {
    False: InsertInRandomOrder("E1", (SPECIAL,), ("A2",)),
    True: ReplaceRandomMember("E1", (SPECIAL,), ("A2",)),
}
"""The coupling step from ``y_E1`` to ``y_A2`` in each branch (key: truncated or not)."""
BRANCH_DISTANCE = {False: 1, True: 2}
"""``d_Y(y_A2, y_E1)`` (insertion/removal) in each branch."""


def _branch_problem(rate: sp.Expr, distance: int):
    return problem(left=[("y", 1 - rate), ("y'", rate)], right=[("y*", 1)],
                   constraints={("y", "y*"): 0, ("y", "y'"): distance})


def derived_bound() -> MixtureBound:
    """The emitted bound: removal (``x ∋ a``, ``x' = x \\ {a}``) as a public mixture of the two
    branches, and insertion as the same problems read in the other direction."""
    terms = [(1 - w, _branch_problem(r, BRANCH_DISTANCE[False])),
             (w, _branch_problem(q_trunc, BRANCH_DISTANCE[True]))]
    return statement(removal=terms,
                     insertion=[(p, prob.swapped()) for p, prob in terms])


def truncation_probability(size: int, rate: Fraction, max_batch: int) -> Fraction:
    """``w = P[Binom(N − 1, p) ≥ B]`` exactly."""
    return sum((math.comb(size - 1, s) * rate ** s * (1 - rate) ** (size - 1 - s)
                for s in range(max_batch, size)), Fraction(0))


def branch_rate(size: int, rate: Fraction, max_batch: int) -> Fraction:
    """``q̃ = P[Binom(N, p) ≥ B + 1] / w · B / N`` exactly (0 when ``w = 0``)."""
    truncation = truncation_probability(size, rate, max_batch)
    if truncation == 0:
        return Fraction(0)
    tail = sum((math.comb(size, s) * rate ** s * (1 - rate) ** (size - s)
                for s in range(max_batch + 1, size + 1)), Fraction(0))
    return tail / truncation * Fraction(max_batch, size)


def generate(size: int, rate: Fraction, max_batch: int) -> dict[tuple, Fraction]:
    """The coupling's exact joint law of ``(branch, y, y')`` for ``|x| = size``, generated from
    the shared pre-truncation sample ``S`` of ``x'`` (see the module docstring)."""
    if size < 1 or max_batch < 1 or not 0 <= rate <= 1:
        raise InvalidSpecification(f"need N >= 1, B >= 1 and p in [0, 1], got N = {size}, "
                                   f"B = {max_batch}, p = {rate}")
    others = background(size - 1)
    joint: dict[tuple, Fraction] = defaultdict(Fraction)
    for count in range(size):
        weight = rate ** count * (1 - rate) ** (size - 1 - count)
        for sample in itertools.combinations(others, count):
            for outcome, probability in _given_sample(frozenset(sample), rate, max_batch):
                joint[outcome] += weight * probability
    return dict(joint)


def _given_sample(sample: frozenset, rate: Fraction, max_batch: int):
    """``(branch, y, y')`` given the pre-truncation sample ``S`` of ``x'``."""
    truncated = len(sample) >= max_batch
    if not truncated:
        yield (False, sample, sample), 1 - rate
        yield (False, sample | {SPECIAL}, sample), rate
        return
    kept_a = rate * Fraction(max_batch, len(sample) + 1)   # a sampled and kept by truncation
    subsets = list(itertools.combinations(sorted(sample), max_batch))
    for subset in subsets:
        kept = frozenset(subset)
        yield (True, kept, kept), (1 - kept_a) / len(subsets)
        for member in subset:
            yield ((True, kept - {member} | {SPECIAL}, kept),
                   kept_a / len(subsets) / max_batch)


def check_instance(size: int, rate: Fraction, max_batch: int) -> list[str]:
    """Exact checks of the derivation on one instance; the list of failures (empty: passed)."""
    joint = generate(size, rate, max_batch)
    scheme = TruncatedPoisson(rate, max_batch)
    x_prime = frozenset(background(size - 1))
    failures = []
    for side, dataset, name in ((1, x_prime | {SPECIAL}, "x"), (2, x_prime, "x'")):
        law = _marginal(joint, lambda o: o[side])
        if law != {k: v for k, v in scheme.pmf(dataset).items() if v}:
            failures.append(f"the batches of {name} do not have the truncated Poisson pmf")
    expected = {False: (1 - truncation_probability(size, rate, max_batch), rate),
                True: (truncation_probability(size, rate, max_batch),
                       branch_rate(size, rate, max_batch))}
    for branch, (probability, inside) in expected.items():
        failures += _check_branch(joint, branch, probability, inside)
    return [f"N = {size}, p = {rate}, B = {max_batch}: {f}" for f in failures]


def _marginal(joint: dict, key) -> dict:
    law: dict = defaultdict(Fraction)
    for outcome, probability in joint.items():
        law[key(outcome)] += probability
    return {k: v for k, v in law.items() if v}


def _check_branch(joint: dict, branch: bool, probability: Fraction,
                  inside: Fraction) -> list[str]:
    """The branch has the closed-form probability; given it, ``P(A2) = inside``, the law of
    ``y_A1`` is that of ``y_E1`` (Copy), ``y_A2`` is the step applied to ``y_E1``, and
    ``d_Y(y_A2, y_E1)`` is the branch's constant."""
    name = "truncated" if branch else "untruncated"
    part = {o: v for o, v in joint.items() if o[0] is branch and v}
    total = sum(part.values(), Fraction(0))
    if total != probability:
        return [f"{name} branch has probability {total}, closed form {probability}"]
    if total == 0:
        return []
    prime = _marginal(part, lambda o: o[2])
    with_a = {o: v for o, v in part.items() if SPECIAL in o[1]}
    failures = []
    mass_a = sum(with_a.values(), Fraction(0))
    if mass_a != inside * total:
        failures.append(f"{name}: P(a ∈ y) = {mass_a / total}, closed form {inside}")
    without = _marginal({o: v for o, v in part.items() if o not in with_a}, lambda o: o[1])
    if inside != 1 and {k: v / (total - mass_a) for k, v in without.items()} != \
            {k: v / total for k, v in prime.items()}:
        failures.append(f"{name}: y | a ∉ y does not have the law of y' (Copy)")
    stepped: dict = defaultdict(Fraction)
    for batch, weight in prime.items():
        for share, (target,) in BRANCH_STEPS[branch].outcomes(batch, None):
            stepped[target] += weight / total * share
    if mass_a and {k: v / mass_a for k, v in _marginal(with_a, lambda o: o[1]).items()} != \
            {k: v for k, v in stepped.items() if v}:
        failures.append(f"{name}: y | a ∈ y is not {BRANCH_STEPS[branch].describe()}")
    distances = {BatchRelation.INSERTION_REMOVAL.distance(o[1], o[2]) for o in with_a}
    if distances - {BRANCH_DISTANCE[branch]}:
        failures.append(f"{name}: d_Y(y_A2, y_E1) takes values {sorted(distances)}")
    return failures


# --- replace-one substitution (002 Thm. 3.4) ---------------------------------------------------

REPLACEMENT = "a'"
SUBSTITUTION_STEPS: dict[bool, tuple[CouplingStep, ...]] = {
    False: (InsertInRandomOrder("E1", (SPECIAL,), ("A2",)),
            InsertInRandomOrder("E1", (REPLACEMENT,), ("E2",))),
    True: (ReplaceRandomMember("E1", (SPECIAL, REPLACEMENT), ("A2", "E2")),),
}
"""Substitution (``x = D ∪ {a}``, ``x' = D ∪ {a'}``): from the shared ``y_A1 = y_E1`` to
``(y_A2, y_E2)``; untruncated: insert ``a`` resp. ``a'``; truncated: replace the same uniformly
random member by ``a`` resp. ``a'``. ``d_Y(y_A2, y_E2) = 2`` in both branches."""


def _substitution_problem(rate: sp.Expr, distance: int):
    return problem(left=[("y", 1 - rate), ("y'", rate)], right=[("z", 1 - rate), ("z'", rate)],
                   constraints={("y", "z"): 0, ("y", "y'"): distance, ("z", "z'"): distance,
                                ("y'", "z'"): 2})


def derived_substitution_bound() -> MixtureBound:
    """The emitted bound for replace-one substitution, events ``{a ∉ y}, {a ∈ y}`` on ``x`` and
    ``{a' ∉ y'}, {a' ∈ y'}`` on ``x'``; both directions (the relation is symmetric). Its
    constraint ``d_Y(y_A2, y_E2) ≤ 2`` is tighter than what 002 Thm. 3.4 uses (its Lemma 2.4
    reduction allows ``‖v − u‖ = 4`` in the truncated branch); dropping that constraint (its
    closure then gives 4) recovers 002 Thm. 3.4 exactly."""
    terms = [(1 - w, _substitution_problem(r, BRANCH_DISTANCE[False])),
             (w, _substitution_problem(q_trunc, BRANCH_DISTANCE[True]))]
    return statement(substitution=terms,
                     reversed=[(p, prob.swapped()) for p, prob in terms])


def generate_substitution(size: int, rate: Fraction, max_batch: int) -> dict[tuple, Fraction]:
    """The coupling's exact joint law of ``(branch, y, y')`` under substitution, ``|x| = size``:
    one pre-truncation sample ``S`` of ``D``, one draw of whether the replaced record is sampled,
    one truncation draw."""
    # from the removal coupling: the batch of x' = D ∪ {a'} is that of x with a' in place of a
    joint: dict[tuple, Fraction] = defaultdict(Fraction)
    for (branch, y, _), probability in generate(size, rate, max_batch).items():
        joint[(branch, y, y - {SPECIAL} | {REPLACEMENT} if SPECIAL in y else y)] += probability
    return dict(joint)


def check_substitution_instance(size: int, rate: Fraction, max_batch: int) -> list[str]:
    """Exact checks of the substitution derivation on one instance (empty list: passed)."""
    joint = generate_substitution(size, rate, max_batch)
    failures = _marginal_failures(joint, size, rate, max_batch, REPLACEMENT)
    for branch in (False, True):
        part = {o: v for o, v in joint.items() if o[0] is branch and v}
        if any((SPECIAL in y) != (REPLACEMENT in z) for _, y, z in part):
            failures.append(f"branch {branch}: the events {{a ∈ y}}, {{a' ∈ y'}} disagree")
        base = _marginal({o: v for o, v in part.items() if SPECIAL not in o[1]}, lambda o: o[1])
        if any(o[1] != o[2] for o in part if SPECIAL not in o[1]):
            failures.append(f"branch {branch}: y_A1 and y_E1 are not equal")
        stepped = _substituted(base, branch)
        moved = _marginal({o: v for o, v in part.items() if SPECIAL in o[1]},
                          lambda o: (o[1], o[2]))
        total_base, total_moved = sum(base.values(), Fraction(0)), sum(moved.values(), Fraction(0))
        if total_moved and {k: v / total_moved for k, v in moved.items()} != stepped:
            failures.append(f"branch {branch}: (y_A2, y_E2) is not the coupling step's law")
        rate_here = branch_rate(size, rate, max_batch) if branch else rate
        if total_base + total_moved and total_moved != rate_here * (total_base + total_moved):
            failures.append(f"branch {branch}: P(a ∈ y) is not {rate_here}")
        distances = {BatchRelation.INSERTION_REMOVAL.distance(y, z) for y, z in moved}
        if distances - {2}:
            failures.append(f"branch {branch}: d_Y(y_A2, y_E2) takes values {sorted(distances)}")
    return [f"N = {size}, p = {rate}, B = {max_batch}: {f}" for f in failures]


def _marginal_failures(joint: dict, size: int, rate: Fraction, max_batch: int,
                       replacement: str) -> list[str]:
    """Whether the batches of ``x = D ∪ {a}`` and ``x' = D ∪ {replacement}`` generated by the
    coupling have exactly the truncated Poisson pmf."""
    scheme = TruncatedPoisson(rate, max_batch)
    common = frozenset(background(size - 1))
    return [f"the batches of {name} do not have the truncated Poisson pmf"
            for side, dataset, name in ((1, common | {SPECIAL}, "x"),
                                        (2, common | {replacement}, "x'"))
            if _marginal(joint, lambda o: o[side])
            != {k: v for k, v in scheme.pmf(dataset).items() if v}]


def _substituted(base: dict, branch: bool) -> dict:
    """The normalised law of ``(y_A2, y_E2)`` when the steps act on ``y_E1 ~ base``."""
    total = sum(base.values(), Fraction(0))
    law: dict = defaultdict(Fraction)
    for batch, weight in base.items():
        for share, moved in _substitution_outcomes(batch, branch):
            law[moved] += weight / total * share
    return {k: v for k, v in law.items() if v}


def _substitution_outcomes(batch: frozenset, branch: bool):
    """``(probability, (y_A2, y_E2))`` that the branch's steps generate from ``y_E1 = batch``."""
    states = [(Fraction(1), {"E1": batch})]
    for step in SUBSTITUTION_STEPS[branch]:
        states = [(v * share, state | dict(zip(step.targets, targets)))
                  for v, state in states
                  for share, targets in step.outcomes(state[step.sources[0]], None)]
    return [(v, (state["A2"], state["E2"])) for v, state in states]


# --- zero-out (002 Thm. 3.3) ----------------------------------------------------------------

NULL = "⊥"
"""The null record of zero-out neighbouring: ``f(⊥) = 0``, so a batch's output is that of its
other records (``f(y) = f(y \\ {⊥})`` for the sum-type queries of 002)."""


def visible(batch: frozenset) -> frozenset:
    """The records that move the output: the batch without the null record."""
    return batch - {NULL}


def _zero_out_problem(rate: sp.Expr):
    """Truncated branch: ``y_A2`` replaces a member of ``y_A1 = y_E1`` by ``a`` and ``y_E2`` the
    same member by ``⊥``; distances between visible records: 2, 1 and ``d(y_A2, y_E2) = 1``."""
    return problem(left=[("y", 1 - rate), ("y'", rate)], right=[("z", 1 - rate), ("z'", rate)],
                   constraints={("y", "z"): 0, ("y", "y'"): 2, ("z", "z'"): 1, ("y'", "z'"): 1})


def derived_zero_out_bound() -> MixtureBound:
    """The emitted bound for zero-out (``x = D ∪ {a}``, ``x' = D ∪ {⊥}``, 002 Thm. 3.3), events
    ``{a ∉ y}, {a ∈ y}`` on ``x`` and ``{⊥ ∉ y'}, {⊥ ∈ y'}`` on ``x'``, coupled as under
    substitution. Untruncated, ``y_E2 = y_E1 ∪ {⊥}`` has the output of ``y_E1``, so ``x'``'s
    branch is the single component ``b(y_E1)`` and the branch is the removal problem. Its
    constraint ``d_Y(y_A2, y_E2) ≤ 1`` is tighter than 002 Thm. 3.3's pair (the means 2 and −1
    are 3 apart); dropping it recovers 002 Thm. 3.3 exactly."""
    terms = [(1 - w, _branch_problem(r, BRANCH_DISTANCE[False])),
             (w, _zero_out_problem(q_trunc))]
    return statement(zero_out=terms, reversed=[(p, prob.swapped()) for p, prob in terms])


def generate_zero_out(size: int, rate: Fraction, max_batch: int) -> dict[tuple, Fraction]:
    """The coupling's exact joint law of ``(branch, y, y')`` under zero-out, ``|x| = size``: the
    substitution coupling with ``⊥`` in place of ``a'``."""
    joint: dict[tuple, Fraction] = defaultdict(Fraction)
    for (branch, y, _), probability in generate(size, rate, max_batch).items():
        joint[(branch, y, y - {SPECIAL} | {NULL} if SPECIAL in y else y)] += probability
    return dict(joint)


ZERO_OUT_DISTANCES = {False: (1, 0, 1), True: (2, 1, 1)}
"""``d_Y(y_A1, y_A2)``, ``d_Y(y_E1, y_E2)``, ``d_Y(y_A2, y_E2)`` on visible records, per branch."""


def check_zero_out_instance(size: int, rate: Fraction, max_batch: int) -> list[str]:
    """Exact checks of the zero-out derivation on one instance (empty list: passed): both
    marginals are truncated Poisson with ``⊥`` sampled like any record, the events agree,
    ``y_A1 = y_E1``, the branch rates are the closed forms, and the distances between visible
    records are the bound's."""
    joint = generate_zero_out(size, rate, max_batch)
    failures = _marginal_failures(joint, size, rate, max_batch, NULL)
    for branch in (False, True):
        failures += _check_zero_out_branch(joint, branch, size, rate, max_batch)
    return [f"N = {size}, p = {rate}, B = {max_batch}: {f}" for f in failures]


def _check_zero_out_branch(joint: dict, branch: bool, size: int, rate: Fraction,
                           max_batch: int) -> list[str]:
    part = {o: v for o, v in joint.items() if o[0] is branch and v}
    failures = []
    if any((SPECIAL in y) != (NULL in z) for _, y, z in part):
        failures.append(f"branch {branch}: the events {{a ∈ y}}, {{⊥ ∈ y'}} disagree")
    if any(y != z for _, y, z in part if SPECIAL not in y):
        failures.append(f"branch {branch}: y_A1 and y_E1 are not equal")
    moved = _marginal({o: v for o, v in part.items() if SPECIAL in o[1]},
                      lambda o: (o[1], o[2]))
    stepped = _substituted(_marginal({o: v for o, v in part.items() if SPECIAL not in o[1]},
                                     lambda o: o[1]), branch)
    total_moved = sum(moved.values(), Fraction(0))
    renamed = {(y, z - {REPLACEMENT} | {NULL}): v for (y, z), v in stepped.items()}
    if total_moved and {k: v / total_moved for k, v in moved.items()} != renamed:
        failures.append(f"branch {branch}: (y_A2, y_E2) is not the coupling step's law")
    total = sum(part.values(), Fraction(0))
    rate_here = branch_rate(size, rate, max_batch) if branch else rate
    if total and total_moved != rate_here * total:
        failures.append(f"branch {branch}: P(a ∈ y) is not {rate_here}")
    distance = BatchRelation.INSERTION_REMOVAL.distance
    seen = set()
    for base in {o[1] for o in part if SPECIAL not in o[1]}:
        for _, (y, z) in _substitution_outcomes(base, branch):
            shown = visible(z - {REPLACEMENT})   # the step inserts a'; zero-out inserts ⊥
            seen.add((distance(base, y), distance(base, shown), distance(y, shown)))
    if seen - {ZERO_OUT_DISTANCES[branch]}:
        failures.append(f"branch {branch}: distances (A1–A2, E1–E2, A2–E2) take values "
                        f"{sorted(seen)}, the bound uses {ZERO_OUT_DISTANCES[branch]}")
    return failures
