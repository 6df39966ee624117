"""001 Prop. E.5 (Daigavane et al., 2022): sampling without replacement, K-fold substitution.

Source: Schuchardt et al., ICML 2024 (seed 001), App. E.3. Status: verified.

No conditioning (``A1 = E1 = Y``, i.e. 001 Thm. 3.3). For ``x' = x \\ g ∪ g'`` with ``|g| = |g'| = K``,
couple by drawing ``y_A1`` and replacing its elements of ``g`` by as many uniformly random elements
of ``g'``. The distance from ``y_A1`` to the support of ``s_{x'}`` is ``|y_A1 ∩ g|``, which is
hypergeometric, so the bound is an expectation over it. Published statement:
``Σ_{k=0}^{K} HyperGeom(k | N, K, q) · max_{d_Δ(y, y') ≤ k} Ψ_α(b_y ‖ b_{y'})``.
"""

import sympy as sp

from otbound.engine import (BatchRelation, Case, Coupling, Derivation, Everything, InstanceGrid,
                            KFoldSubstitution, ReplaceGroup, StructuralParameter, Variant,
                            WithoutReplacement, problem, statement)
from otbound.engine.symbols import N, q


def case(relation: KFoldSubstitution) -> Case:
    (pair,) = relation.pairs()
    return Case(pair, events_x={"A1": Everything()}, events_x_prime={"E1": Everything()},
                coupling=Coupling("A1", (ReplaceGroup("A1", pair.removed, pair.inserted, "E1"),)))


def published(K: int):
    hypergeometric = [sp.binomial(K, k) * sp.binomial(N - K, q - k) / sp.binomial(N, q)
                      for k in range(K + 1)]
    return statement(substitution=[
        (hypergeometric[k], problem(left=[("y", 1)], right=[("y'", 1)],
                                    constraints={("y", "y'"): k}))
        for k in range(K + 1)])


def variant(K: int) -> Variant:
    relation = KFoldSubstitution(K)
    return Variant(f"K = {K}", relation, (case(relation),), lambda: published(K))


DERIVATION = Derivation(
    name="001-prop-E.5",
    source="001 Prop. E.5 (App. E.3); Daigavane et al. (2022)",
    title="sampling without replacement, K-fold substitution, no conditioning",
    scheme=WithoutReplacement(q),
    batch_relation=BatchRelation.SUBSTITUTION,
    variants=tuple(variant(K) for K in (1, 2, 3)),
    parameters=(StructuralParameter("K", "group size", minimum=1),),
    variant_for=variant,
    grid=InstanceGrid(range(2, 10), tuple({q: v} for v in (1, 2, 3, 4))),
    errata=(
        "The statement writes Ψ_k(b_y ‖ b_{y'}) inside the sum; it is Ψ_α.",
        "The proof starts from 'x ≃_{Δ,X} x''; it means the K-fold relation ≃_{KΔ,X}.",
        "The coupling is printed with g̃ ⊆ g; the inserted elements come from g' (g̃ ⊆ g').",
        "The validity count ends with '· C(|x| − 1, q)'; the marginal is s_x(y1 | A1) itself.",
        "The Gaussian remark gives exp(α(α − 1) k²C²/σ²); the Rényi divergence of Gaussians with "
        "mean distance kC is α k²C²/(2σ²), i.e. Ψ_α = exp(α(α − 1) k²C²/(2σ²)).",
    ),
)
