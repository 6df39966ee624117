"""Sampling without replacement under K-fold substitution, conditioned on the swapped elements.

Source: 001 Thm. 3.6 (Sec. 3.1, proof in App. E.1) for K = 1; for K > 1 the same construction
carried over to groups by otbound (no published statement). Status: verified for every K up to
32 at the level of types (every dataset size and batch size q ≥ K), and on instances for K ≤ 3.

For ``x' = x \\ g ∪ g'`` with ``|g| = |g'| = K``, condition ``s_x`` on ``L_k = {|y ∩ g| = k}`` and
``s_{x'}`` on ``R_k = {|y ∩ g'| = k}`` (hypergeometric weights on both sides); couple by drawing
``y_L0``, setting ``y_R0 = y_L0``, and swapping distinct random members of ``y_L0`` for the
elements of ``g`` (for ``L_k``) and of ``g'`` (for ``R_k``), one at a time in one random order.
Then ``d(L_t, L_u) = d(R_t, R_u) = |t − u|`` and ``d(L_t, R_u) = max(t, u)``: the distances between
the supports, so the coupling is ``d_Y``-compatible. For randomized response the bound is tight.
"""

from otbound.engine import (BatchRelation, Case, Copy, Coupling, Derivation, InstanceGrid,
                            KFoldSubstitution, StructuralParameter, SwapInRandomOrder, Variant,
                            WithoutReplacement, count_partition, problem, statement)
from otbound.engine.symbols import N, q


def case(relation: KFoldSubstitution) -> Case:
    (pair,) = relation.pairs()
    size = len(pair.removed)
    chains = (tuple(f"L{k}" for k in range(1, size + 1)),
              tuple(f"R{k}" for k in range(1, size + 1)))
    return Case(pair, events_x=count_partition("L", pair.removed),
                events_x_prime=count_partition("R", pair.inserted),
                coupling=Coupling("L0", (Copy("L0", "R0"),
                                         SwapInRandomOrder("L0", (pair.removed, pair.inserted),
                                                           chains))))


def published_k1():
    """001 Thm. 3.6 as published (K = 1), with w = q/N."""
    w = q / N
    return statement(substitution=problem(
        left=[("y1", 1 - w), ("y2", w)], right=[("y3", 1 - w), ("y4", w)],
        constraints={("y1", "y3"): 0, ("y1", "y2"): 1, ("y1", "y4"): 1, ("y2", "y4"): 1}))


def variant(K: int) -> Variant:
    relation = KFoldSubstitution(K)
    return Variant(f"K = {K}", relation, (case(relation),), published_k1 if K == 1 else None)


DERIVATION = Derivation(
    name="wor-group-substitution",
    source="001 Thm. 3.6 (K = 1); K-fold substitution by otbound (not published)",
    title="sampling without replacement, K-fold substitution, conditioned on the swapped elements",
    scheme=WithoutReplacement(q),
    batch_relation=BatchRelation.SUBSTITUTION,
    variants=tuple(variant(K) for K in (1, 2, 3)),
    parameters=(StructuralParameter("K", "group size", minimum=1),),
    variant_for=variant,
    tight=(("randomized-response", "001 Thm. 3.7/F.1 (K = 1); otbound's construction (K > 1)"),),
    grid=InstanceGrid(range(2, 11), tuple({q: v} for v in (1, 2, 3, 4))),
    remarks=(
        "For q < K the events L_k, R_k with k > q are empty; their weights are zero, and the "
        "bound is that of the coupling with chains of length q.",
    ),
)
