"""002 Thm. 3.1: truncated Poisson subsampling under insertion/removal of one element.

Source: seed 002, Thm. 3.1 and its proof (Sec. 3.1). Status: verified (exactly on the grid's
instances; every N by the generative argument below).

Poisson sampling at rate r keeps a sample ``S``; if more than B records were kept, a uniformly
random B of them form the batch. The latent ``T = [|S ∩ background| ≥ B]`` (the other records
alone fill the batch) has the same law on both datasets, ``w = P[Binom(N − 1, r) ≥ B]``, so the
bound is a public mixture of its two branches (002 Sec. 3.1). Removal (``x' = x \\ {a}``): condition
``s_x`` on ``A1 = {a ∉ y}`` and ``A2 = {a ∈ y}`` and leave ``s_{x'}`` whole (``E1``); couple from
``y_A1`` with ``y_E1 = y_A1`` and

- ``¬T``: ``y_A2 = y_A1 ∪ {a}`` (no truncation can touch ``a``); ``P(A2 | ¬T) = r``;
- ``T``: ``y_A2`` replaces a uniformly random member of ``y_A1`` by ``a`` (every batch has B
  records); ``P(A2 | T) = q̃ = P[Binom(N, r) ≥ B + 1] / w · B / N`` (002 Sec. 3.4).

Both couplings generate the batches from one shared sample, so they are valid for every N; the
engine checks them, the branch law and the closed forms exactly on every instance of the grid.
Insertion is the same read in the other direction.
"""

from otbound.engine import (BatchRelation, Case, Copy, Coupling, Derivation, Everything,
                            InsertInRandomOrder, InsertionRemoval, ReplaceRandomMember, Variant,
                            contains_none, contains_some, problem, statement)
from otbound.engine.symbols import r
from otbound.engine.truncated_latent import (DEFINITIONS, GRID, REMARK, SCHEME, SIZE_REFERENCE,
                                             filled_branches, q_trunc, w)

removal, insertion = InsertionRemoval().pairs()


def cases(step) -> tuple[Case, Case]:
    """Removal and insertion, ``step(source, target)`` taking the batch without ``a`` to one
    with it."""
    return (Case(removal, {"A1": contains_none(["a"]), "A2": contains_some(["a"])},
                 {"E1": Everything()}, Coupling("A1", (Copy("A1", "E1"), step("A1", "A2")))),
            Case(insertion, {"A1": Everything()},
                 {"E1": contains_none(["a"]), "E2": contains_some(["a"])},
                 Coupling("A1", (Copy("A1", "E1"), step("A1", "E2")))))


BRANCHES = filled_branches(
    cases(lambda source, target: InsertInRandomOrder(source, ("a",), (target,))),
    cases(lambda source, target: ReplaceRandomMember(source, ("a",), (target,))))


def _branch(rate, distance: int):
    return problem(left=[("y", 1 - rate), ("y'", rate)], right=[("y*", 1)],
                   constraints={("y", "y*"): 0, ("y", "y'"): distance})


_removal = [(1 - w, _branch(r, 1)), (w, _branch(q_trunc, 2))]
published = statement(removal=_removal,
                      insertion=[(p, branch.swapped()) for p, branch in _removal])
"""002 Thm. 3.1 in the form of 001 Thm. 3.4: the untruncated branch is the Poisson pair at rate
r and distance 1; in the truncated one ``a`` displaces a record (distance 2) at rate q̃."""

DERIVATION = Derivation(
    name="002-thm-3.1",
    source="002 Thm. 3.1 (truncated Poisson, add/remove)",
    title="truncated Poisson subsampling, insertion/removal of one element",
    scheme=SCHEME,
    batch_relation=BatchRelation.INSERTION_REMOVAL,
    variants=(Variant("K = 1", InsertionRemoval(), (), published, BRANCHES),),
    grid=GRID,
    size_reference=SIZE_REFERENCE,
    definitions=DEFINITIONS,
    remarks=(REMARK,),
)
