"""002 Thm. 3.3: truncated Poisson subsampling under zero-out neighbouring.

Source: seed 002, Thm. 3.3. Derived by otbound with its own coupling; its bound is tighter than
the statement as published. Status: verified (exactly on the grid's instances; every N by the
generative argument of 002-thm-3.1).

``x = D ∪ {a}``, ``x' = D ∪ {⊥}``, where the null record ⊥ is sampled like any record but a query
gives it the value 0, so the batch distance does not count it (``BatchRelation.ZERO_OUT``). The
latent ``T = [|S ∩ D| ≥ B]`` is public, as under insertion/removal (002-thm-3.1), with the same
``w`` and ``q̃``. Events and couplings are those of replace-one substitution (002-thm-3.4) with
⊥ in place of ``a'``: untruncated, ``y_E2 = y_A1 ∪ {⊥}`` has the output of ``y_A1``; truncated,
⊥ displaces a record, so ``d_Y(y_A1, y_E2) = 1`` and ``d_Y(y_A2, y_E2) = 1``. 002 Thm. 3.3's pair
puts the two displaced means 3 apart; dropping the constraint ``d_Y(y_A2, y_E2) ≤ 1`` from this
bound gives it exactly (tests/test_truncated_poisson_derivations.py).
"""

from otbound.engine import (BatchRelation, Case, Copy, Coupling, Derivation, InsertInRandomOrder,
                            ReplaceRandomMember, Variant, ZeroOut, contains_none, contains_some)
from otbound.engine.truncated_latent import (DEFINITIONS, GRID, REMARK, SCHEME, SIZE_REFERENCE,
                                             filled_branches)


def cases(untruncated: bool) -> tuple[Case, ...]:
    """Both directions: from the batch without either special record, ``x``'s record ``a`` or
    ``⊥`` goes in (untruncated: inserted; truncated: in place of the same random member)."""
    found = []
    for pair in ZeroOut().pairs():
        (mine,), (theirs,) = pair.removed, pair.inserted
        steps = ((InsertInRandomOrder("A1", (mine,), ("A2",)),
                  InsertInRandomOrder("A1", (theirs,), ("E2",))) if untruncated
                 else (ReplaceRandomMember("A1", (mine, theirs), ("A2", "E2")),))
        found.append(Case(pair, {"A1": contains_none([mine]), "A2": contains_some([mine])},
                          {"E1": contains_none([theirs]), "E2": contains_some([theirs])},
                          Coupling("A1", (Copy("A1", "E1"), *steps))))
    return tuple(found)


BRANCHES = filled_branches(cases(untruncated=True), cases(untruncated=False))


DERIVATION = Derivation(
    name="002-thm-3.3",
    source="002 Thm. 3.3 (truncated Poisson, zero-out); tighter coupling by otbound",
    title="truncated Poisson subsampling, zero-out of one element",
    scheme=SCHEME,
    batch_relation=BatchRelation.ZERO_OUT,
    variants=(Variant("K = 1", ZeroOut(), (), None, BRANCHES),),
    grid=GRID,
    size_reference=SIZE_REFERENCE,
    definitions=DEFINITIONS,
    remarks=(REMARK,),
)
