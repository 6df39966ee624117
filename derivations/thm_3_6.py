"""001 Thm. 3.6: sampling without replacement under substitution.

Source: Schuchardt et al., ICML 2024 (seed 001), Sec. 3.1 and App. E.1. Status: verified.

For ``x' = x \\ {a} ∪ {a'}`` of size N, condition both datasets on ``A1 = E1 = {a, a' ∉ y}`` and
their complements; couple by drawing ``y_A1``, setting ``y_E1 = y_A1``, and replacing one uniformly
random member ``ã`` of ``y_A1`` by ``a`` (giving ``y_A2``) and by ``a'`` (giving ``y_E2``).
Published statement: ``Ψ_α(m_x ‖ m_x') ≤ max Ψ_α((1−w) b_{y1} + w b_{y2} ‖ (1−w) b_{y3} + w b_{y4})``
s.t. ``y1 = y3``, ``d_Δ(y1, y2) ≤ 1``, ``d_Δ(y1, y4) ≤ 1``, ``d_Δ(y2, y4) ≤ 1``, with ``w = q/N``.
"""

from otbound.engine import (BatchRelation, Case, Copy, Coupling, Derivation, InstanceGrid,
                            ReplaceRandomMember, Substitution, Variant, WithoutReplacement,
                            contains_none, contains_some, problem, statement)
from otbound.engine.symbols import N, q

(pair,) = Substitution().pairs()
swapped = ["a", "a'"]

CASE = Case(
    pair,
    events_x={"A1": contains_none(swapped), "A2": contains_some(swapped)},
    events_x_prime={"E1": contains_none(swapped), "E2": contains_some(swapped)},
    coupling=Coupling("A1", (Copy("A1", "E1"),
                             ReplaceRandomMember("A1", ("a", "a'"), ("A2", "E2")))),
)

w = q / N
published = statement(substitution=problem(
    left=[("y1", 1 - w), ("y2", w)], right=[("y3", 1 - w), ("y4", w)],
    constraints={("y1", "y3"): 0, ("y1", "y2"): 1, ("y1", "y4"): 1, ("y2", "y4"): 1}))

DERIVATION = Derivation(
    name="001-thm-3.6",
    source="001 Thm. 3.6 (Sec. 3.1, proof in App. E.1)",
    title="sampling without replacement, substitution",
    scheme=WithoutReplacement(q),
    batch_relation=BatchRelation.SUBSTITUTION,
    variants=(Variant("K = 1", Substitution(), (CASE,), published),),
    tight=(("randomized-response", "001 Thm. 3.7/F.1"),),
    grid=InstanceGrid(range(2, 10), tuple({q: v} for v in (1, 2, 3, 4))),
    errata=(
        "App. E.1 writes the conditional pmfs as s_x(y | A1) = C(|x|−1, q) and "
        "s_x(y | A2) = C(|x|−1, q); they are C(N−1, q)^{-1} and C(N−1, q−1)^{-1} "
        "(the engine computes them exactly).",
    ),
)
