"""003 Thm. 3.7: Poisson subsampling, insertion of K₊ and removal of K₋ elements.

Source: Schuchardt et al., NeurIPS 2024 (seed 003), Sec. 3.1, proof sketch (the appendix is not in
the seeds). Status: verified for every K₊, K₋ ≤ 32
at the level of types (every dataset size), and on instances for K₊ + K₋ ≤ 3.

For ``x' = x \\ g ∪ h`` (``|g| = K₋`` removed, ``|h| = K₊`` inserted) condition ``s_x`` on
``A_i = {|y ∩ g| = i − 1}`` and ``s_{x'}`` on ``E_j = {|y ∩ h| = j − 1}``; couple by drawing
``y_A1``, setting ``y_E1 = y_A1``, and inserting ``g`` (resp. ``h``) in a uniformly random order.
Published statement: ``max Ψ(Σ_i Binom(i − 1 | K₋, r) b_{y_i^{(1)}} ‖ Σ_j Binom(j − 1 | K₊, r)
b_{y_j^{(2)}})`` s.t. ``d(y_t^{(l)}, y_u^{(l)}) ≤ |t − u|`` and
``d(y_t^{(1)}, y_u^{(2)}) ≤ (t − 1) + (u − 1)``.
"""

import itertools
from fractions import Fraction

import sympy as sp

from otbound.engine import (BatchRelation, Case, Copy, Coupling, Derivation, InsertInRandomOrder,
                            InsertRemove, InstanceGrid, Poisson, StructuralParameter, Variant,
                            count_partition, problem, statement)
from otbound.engine.symbols import r


def case(relation: InsertRemove) -> Case:
    (pair,) = relation.pairs()
    steps = [Copy("A1", "E1")]
    for source, group, prefix in (("A1", pair.removed, "A"), ("E1", pair.inserted, "E")):
        if group:
            chain = tuple(f"{prefix}{i}" for i in range(2, len(group) + 2))
            steps.append(InsertInRandomOrder(source, group, chain))
    return Case(pair, events_x=count_partition("A", pair.removed, start=1),
                events_x_prime=count_partition("E", pair.inserted, start=1),
                coupling=Coupling("A1", tuple(steps)))


def binomial_weights(side: str, K: int) -> list[tuple[str, sp.Expr]]:
    return [(f"y{side}{i}", sp.binomial(K, i - 1) * r ** (i - 1) * (1 - r) ** (K - i + 1))
            for i in range(1, K + 2)]


def published(inserted: int, removed: int):
    left, right = binomial_weights("(1)", removed), binomial_weights("(2)", inserted)
    constraints = {}
    for side in (left, right):
        for (t, (a, _)), (u, (b, _)) in itertools.combinations(enumerate(side, 1), 2):
            constraints[(a, b)] = u - t
    for (t, (a, _)), (u, (b, _)) in itertools.product(enumerate(left, 1), enumerate(right, 1)):
        constraints[(a, b)] = (t - 1) + (u - 1)
    return statement(**{"insert-remove": problem(left, right, constraints)})


def variant(K_plus: int, K_minus: int) -> Variant:
    relation = InsertRemove(K_plus, K_minus)
    return Variant(f"K+ = {K_plus}, K- = {K_minus}", relation, (case(relation),),
                   lambda: published(K_plus, K_minus))


DERIVATION = Derivation(
    name="003-thm-3.7",
    source="003 Thm. 3.7 (Sec. 3.1)",
    title="Poisson subsampling, insertion of K+ and removal of K- elements",
    scheme=Poisson(r),
    batch_relation=BatchRelation.INSERTION_REMOVAL,
    variants=tuple(variant(kp, km) for kp in range(4) for km in range(4) if 1 <= kp + km <= 3),
    parameters=(StructuralParameter("K_plus", "number of inserted elements K+"),
                StructuralParameter("K_minus", "number of removed elements K-")),
    variant_for=variant,
    mirror=("K_plus", "K_minus"),
    tight=(("gaussian", "003 Thm. 3.8"), ("laplace", "003 Thm. M.2 (not in the seeds)"),
           ("randomized-response", "003 App. M.2 (not in the seeds)")),
    grid=InstanceGrid(range(1, 9), tuple({r: Fraction(*v)} for v in ((1, 2), (1, 3), (2, 7)))),
    errata=(
        "The proof sketch bounds d(y_u^(1), y_t^(2)) by '(t − i) + (u − 1)'; it is (t − 1) + (u − 1) "
        "as in the statement.",
    ),
)
