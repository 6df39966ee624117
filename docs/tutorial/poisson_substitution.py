"""Poisson subsampling under substitution of K elements (x' = x \\ g ∪ g', |g| = |g'| = K).

The tutorial's derivation (docs/tutorial.md). Condition ``s_x`` on how many elements of ``g`` the
batch holds (``A0 … AK``) and ``s_{x'}`` on how many of ``g'`` it holds (``E0 … EK``); couple them
through one shared batch: draw ``y_A0`` (no element of g), take ``y_E0 = y_A0``, and insert the
elements of ``g`` (for the A-side) and of ``g'`` (for the E-side) in a uniformly random order.
"""

from fractions import Fraction

from otbound.engine import (BatchRelation, Case, Copy, Coupling, Derivation, InsertInRandomOrder,
                            InstanceGrid, KFoldSubstitution, Poisson, StructuralParameter, Variant,
                            count_partition)
from otbound.engine.symbols import r


def variant(K: int) -> Variant:
    relation = KFoldSubstitution(K)
    (pair,) = relation.pairs()
    chain = tuple(range(1, K + 1))
    coupling = Coupling("A0", (
        Copy("A0", "E0"),
        InsertInRandomOrder("A0", pair.removed, tuple(f"A{i}" for i in chain)),
        InsertInRandomOrder("E0", pair.inserted, tuple(f"E{i}" for i in chain))))
    case = Case(pair, events_x=count_partition("A", pair.removed),
                events_x_prime=count_partition("E", pair.inserted), coupling=coupling)
    return Variant(f"K = {K}", relation, (case,), None)


DERIVATION = Derivation(
    name="tutorial-poisson-substitution",
    source="docs/tutorial.md",
    title="Poisson subsampling, substitution of K elements",
    scheme=Poisson(r),
    batch_relation=BatchRelation.INSERTION_REMOVAL,
    variants=(variant(1), variant(2)),
    parameters=(StructuralParameter("K", "number of substituted elements", minimum=1),),
    variant_for=variant,
    tight=(("gaussian", "003 Thm. 3.8: the pattern of 003 Thm. 3.7 with K+ = K- = K"),),
    grid=InstanceGrid(range(1, 7), ({r: Fraction(1, 3)}, {r: Fraction(1, 5)})),
)
