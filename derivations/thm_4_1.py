"""001 Thm. 4.1: Poisson subsampling under insertion/removal of a group of K elements.

Source: Schuchardt et al., ICML 2024 (seed 001), Sec. 4, proof in App. G.1. Status: verified for
every K up to 32 at the level of types (every dataset size), and on instances for K ≤ 3.

Removal (``x' = x \\ g``, ``|g| = K``): condition ``s_x`` on ``A_i = {|y ∩ g| = i}``, leave ``s_{x'}``
unconditioned; couple by drawing ``y_A0``, setting ``y_E0 = y_A0``, and inserting the elements of
``g`` in a uniformly random order (``y_Ai`` holds the first i). Insertion is symmetric. Published
statement: the maximum of ``Ψ_α(Σ_{i=1}^{K+1} w_i b_{y_i} ‖ b_{y_{K+2}})`` and
``Ψ_α(b_{y_{K+2}} ‖ Σ_{j=1}^{K+1} w_j b_{y_j})`` over ``y_1 = y_{K+2}``,
``d_±(y_t, y_u) ≤ |t − u|`` (t, u ≤ K + 1), with ``w_i = Binom(i − 1 | K, r)``.
"""

import itertools
from fractions import Fraction

import sympy as sp

from otbound.engine import (BatchRelation, Case, Copy, Coupling, Derivation, Everything,
                            GroupInsertionRemoval, InsertInRandomOrder, InstanceGrid, Poisson,
                            StructuralParameter, Variant, count_partition, problem, statement)
from otbound.engine.symbols import r


def cases(relation: GroupInsertionRemoval) -> tuple[Case, Case]:
    removal, insertion = relation.pairs()
    group = removal.removed
    chain = tuple(f"A{i}" for i in range(1, len(group) + 1))
    removal_case = Case(
        removal, events_x=count_partition("A", group), events_x_prime={"E0": Everything()},
        coupling=Coupling("A0", (Copy("A0", "E0"), InsertInRandomOrder("A0", group, chain))))
    chain = tuple(f"E{i}" for i in range(1, len(group) + 1))
    insertion_case = Case(
        insertion, events_x={"A0": Everything()}, events_x_prime=count_partition("E", group),
        coupling=Coupling("A0", (Copy("A0", "E0"), InsertInRandomOrder("A0", group, chain))))
    return removal_case, insertion_case


def published(K: int):
    weights = [(f"y{i}", sp.binomial(K, i - 1) * r ** (i - 1) * (1 - r) ** (K - i + 1))
               for i in range(1, K + 2)]
    last = f"y{K + 2}"
    constraints = {(last, "y1"): 0}
    constraints.update({(f"y{t}", f"y{u}"): u - t
                        for t, u in itertools.combinations(range(1, K + 2), 2)})
    return statement(removal=problem(weights, [(last, 1)], constraints),
                     insertion=problem([(last, 1)], weights, constraints))


def variant(K: int) -> Variant:
    relation = GroupInsertionRemoval(K)
    return Variant(f"K = {K}", relation, cases(relation), lambda: published(K))


DERIVATION = Derivation(
    name="001-thm-4.1",
    source="001 Thm. 4.1 (Sec. 4, proof in App. G.1)",
    title="Poisson subsampling, insertion/removal of a group of K elements",
    scheme=Poisson(r),
    batch_relation=BatchRelation.INSERTION_REMOVAL,
    variants=tuple(variant(K) for K in (1, 2, 3)),
    parameters=(StructuralParameter("K", "group size", minimum=1),),
    variant_for=variant,
    tight=(("gaussian", "001 Thm. 4.2/G.3"), ("randomized-response", "001 Thm. G.1/G.2"),
           ("laplace", "003 Thm. M.2 (not in the seeds)")),
    grid=InstanceGrid(range(1, 9), tuple({r: Fraction(*v)} for v in ((1, 2), (1, 3), (2, 7)))),
    errata=(
        "App. G.1 says y_0 is drawn 'by sampling a batch that does not contain a via Poisson "
        "subsampling from x \\ {a}'; it is a batch without any element of g, from x \\ g.",
        "App. G.1 writes P_{S_x'}(E_1) = 1 for the only event E_0 = Y.",
        "The validity count for y_0 ends with the K = 1 leftover 'Σ_{y2,y3} γ(y1, y2, y3) = "
        "s_x(y1 | A1)', and the count for y_i says '(K − 1)! ways' where it uses (K − i)!.",
        "The last display of the removal case reads 'max Ψ_α((1 − r) b_{y1} + r b_{y2} ‖ b_{y3})' "
        "(the K = 1 form) before stating the constraints of the general K; the claimed first "
        "term of Thm. 4.1 has K + 1 weights Binom(i − 1 | K, r).",
    ),
)
