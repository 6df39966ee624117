"""002 Thm. 3.4: truncated Poisson subsampling under replace-one substitution.

Source: seed 002, Thm. 3.4 (proof in its Sec. 3.4). Derived by otbound with its own coupling;
its bound is tighter than the statement as published. Status: verified (exactly on the grid's
instances; every N by the generative argument of 002-thm-3.1).

``x = D ∪ {a}``, ``x' = D ∪ {a'}``. The latent ``T = [|S ∩ D| ≥ B]`` is public, as under
insertion/removal (002-thm-3.1), with the same ``w`` and ``q̃``. Events ``A1 = {a ∉ y}``,
``A2 = {a ∈ y}`` on ``x`` and ``E1 = {a' ∉ y'}``, ``E2 = {a' ∈ y'}`` on ``x'``; couple from
``y_A1`` with ``y_E1 = y_A1`` and

- ``¬T``: ``y_A2 = y_A1 ∪ {a}``, ``y_E2 = y_A1 ∪ {a'}``;
- ``T``: the same uniformly random member of ``y_A1`` replaced by ``a`` (``y_A2``) and by ``a'``
  (``y_E2``).

So ``d_Y(y_A2, y_E2) = 2`` in both branches (insertion/removal distance: ``a`` for ``a'``). 002
Thm. 3.4 reduces the truncated branch by its Lemma 2.4, which allows ``‖v − u‖ = 4`` between the
two displaced means; dropping the constraint ``d_Y(y_A2, y_E2) ≤ 2`` from this bound gives 002
Thm. 3.4 exactly (tests/test_truncated_poisson_derivations.py), and the numbers evaluate the bound
through that relaxation where no exact solver covers the constraint.
"""

from otbound.engine import (BatchRelation, Case, Copy, Coupling, Derivation, InsertInRandomOrder,
                            ReplaceRandomMember, Substitution, Variant, contains_none,
                            contains_some)
from otbound.engine.truncated_latent import (DEFINITIONS, GRID, REMARK, SCHEME, SIZE_REFERENCE,
                                             filled_branches)

(pair,) = Substitution().pairs()


def cases(*steps) -> tuple[Case]:
    """The one case; ``steps`` take ``y_A1`` to ``y_A2`` and ``y_E2``."""
    return (Case(pair, {"A1": contains_none(["a"]), "A2": contains_some(["a"])},
                 {"E1": contains_none(["a'"]), "E2": contains_some(["a'"])},
                 Coupling("A1", (Copy("A1", "E1"), *steps))),)


BRANCHES = filled_branches(
    cases(InsertInRandomOrder("A1", ("a",), ("A2",)), InsertInRandomOrder("A1", ("a'",), ("E2",))),
    cases(ReplaceRandomMember("A1", ("a", "a'"), ("A2", "E2"))))


DERIVATION = Derivation(
    name="002-thm-3.4",
    source="002 Thm. 3.4 (truncated Poisson, replace-one); tighter coupling by otbound",
    title="truncated Poisson subsampling, substitution of one element",
    scheme=SCHEME,
    batch_relation=BatchRelation.INSERTION_REMOVAL,
    variants=(Variant("K = 1", Substitution(), (), None, BRANCHES),),
    grid=GRID,
    size_reference=SIZE_REFERENCE,
    definitions=DEFINITIONS,
    remarks=(REMARK,),
)
