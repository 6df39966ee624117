"""Sampling with replacement under substitution of a group of K elements (otbound's own result).

Source: none — a result beyond the seeds (issue 13, item 3), derived by otbound. Status: valid
and d_Y-compatible on every instance of the grid for each (K, q) offered; the argument for
every N is in ``docs/with_replacement.md`` (Theorem: group substitution).

For ``x' = x \\ g ∪ g'`` with ``|g| = |g'| = K`` and q draws with replacement from N elements,
condition ``s_x`` on ``A_k = {k of the draws land in g}`` and ``s_{x'}`` on ``E_k = {k of the
draws land in g'}`` (counted with multiplicity), k = 0 … q, weights ``Binom(k | q, K/N)`` on
both sides. Couple by drawing ``y_A0``, setting ``y_E0 = y_A0``, ordering its draws uniformly at
random and replacing the first k by independent uniform elements of g (for ``A_k``) and by the
elements of g' with the same indices (for ``E_k``). Then ``d(A_t, A_u) = d(E_t, E_u) = |t − u|``
and ``d(A_t, E_u) = max(t, u)``, the distances between the supports: the bound is that of one
substituted element (``wr-substitution``) with the rate ``1/N`` replaced by ``K/N``.
"""

from otbound.engine import (BatchRelation, BatchSizeFamily, Case, Copy, CountIs, Coupling,
                            InstanceGrid, KFoldSubstitution, ReplaceCopiesInRandomOrder,
                            StructuralParameter, Variant, WithReplacement, enumerable_sizes)

MAX_K, MAX_Q = 3, 4
"""The largest group and batch sizes derived: the coupling is enumerated exactly (``q!``
orderings and ``K^q`` index draws a batch)."""


def case(K: int, q: int) -> Case:
    (pair,) = KFoldSubstitution(K).pairs()
    group, replacement = pair.removed, pair.inserted
    chains = (tuple(f"A{k}" for k in range(1, q + 1)), tuple(f"E{k}" for k in range(1, q + 1)))
    return Case(pair,
                events_x={f"A{k}": CountIs(group, k) for k in range(q + 1)},
                events_x_prime={f"E{k}": CountIs(replacement, k) for k in range(q + 1)},
                coupling=Coupling("A0", (Copy("A0", "E0"),
                                         ReplaceCopiesInRandomOrder("A0", (group, replacement),
                                                                    chains))))


def variant(K: int, q: int) -> Variant:
    return Variant(f"K = {K}, q = {q}", KFoldSubstitution(K), (case(K, q),), None)


def setting(K: int, q: int):
    return WithReplacement(q), InstanceGrid(enumerable_sizes(q, 2 * K, K + 1, K + 10))


DEFAULTS = ((2, 2), (3, 2))
"""The variants checked by default; they share the scheme (q = 2) and the grid of the first."""

DERIVATION = BatchSizeFamily(
    name="wr-group-substitution",
    source="otbound (beyond the seeds): group substitution under sampling with replacement",
    title="sampling with replacement, substitution of a group of K elements",
    scheme=setting(*DEFAULTS[0])[0],
    batch_relation=BatchRelation.SUBSTITUTION,
    variants=tuple(variant(K, q) for K, q in DEFAULTS),
    grid=setting(*DEFAULTS[0])[1],
    parameters=(StructuralParameter("K", "group size", minimum=1, maximum=MAX_K),
                StructuralParameter("q", "batch size (draws with replacement)", minimum=1,
                                    maximum=MAX_Q)),
    variant_for=variant,
    setting_for=setting,
    tight=(("randomized-response", "otbound: as wr-substitution's at rate K/N, with "
                                   "f(y) = 1[y ∩ g ≠ ∅] (or its complement); checked by "
                                   "the verifier"),),
    remarks=(
        "K and q are structural; N is symbolic: the weights are the scheme's content masses "
        "C(q, k) K^k (N − K)^(q − k) / N^q = Binom(k | q, K/N).",
        "Validity and compatibility are checked exactly on the instances of the grid; for every "
        "N they follow from the exchangeability of the draws (docs/with_replacement.md).",
    ),
)
