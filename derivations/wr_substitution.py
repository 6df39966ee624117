"""Sampling with replacement under substitution of one element.

Source: 003 Sec. 3.4 and Thm. L.5 (dominating pairs for sampling with replacement; the proof is
not in the seeds). Derived by otbound with its own events and coupling; no statement is
compared (003's is not in the seeds). Status: valid and d_Y-compatible on every instance of the
grid, for each batch size q up to :data:`MAX_Q`; the weights are closed forms in N
(``docs/with_replacement.md``).

For ``x' = x \\ {a} ∪ {a'}`` of size N and q draws with replacement, condition ``s_x`` on
``A_k = {a is drawn k times}`` and ``s_{x'}`` on ``E_k = {a' is drawn k times}``, k = 0 … q
(weights ``Binom(k | q, 1/N)`` on both sides). Couple by drawing ``y_A0``, setting
``y_E0 = y_A0``, ordering its draws uniformly at random and replacing the first k by ``a`` (for
``A_k``) and by ``a'`` (for ``E_k``). Then ``d(A_t, A_u) = d(E_t, E_u) = |t − u|`` and
``d(A_t, E_u) = max(t, u)``: the distances between the supports, so the coupling is
``d_Y``-compatible (001 Def. D.4) and the bound is 001 Cor. D.7's.
"""

from otbound.engine import (BatchRelation, BatchSizeFamily, Case, Copy, CountIs, Coupling,
                            InstanceGrid, ReplaceCopiesInRandomOrder, StructuralParameter,
                            Substitution, Variant, WithReplacement, enumerable_sizes)

MAX_Q = 5
"""The largest batch size derived: the coupling is enumerated exactly (q! orderings a batch)."""
DEFAULT_Q = 3


def case(q: int) -> Case:
    (pair,) = Substitution().pairs()
    chains = (tuple(f"A{k}" for k in range(1, q + 1)), tuple(f"E{k}" for k in range(1, q + 1)))
    return Case(pair,
                events_x={f"A{k}": CountIs(("a",), k) for k in range(q + 1)},
                events_x_prime={f"E{k}": CountIs(("a'",), k) for k in range(q + 1)},
                coupling=Coupling("A0", (Copy("A0", "E0"),
                                         ReplaceCopiesInRandomOrder("A0", (("a",), ("a'",)),
                                                                    chains))))


def variant(q: int) -> Variant:
    return Variant(f"q = {q}", Substitution(), (case(q),), None)


def setting(q: int):
    return WithReplacement(q), InstanceGrid(enumerable_sizes(q, 2, 2, 12))


DERIVATION = BatchSizeFamily(
    name="wr-substitution",
    source="003 Sec. 3.4, Thm. L.5 (not in the seeds); derived by otbound",
    title="sampling with replacement, substitution of one element",
    scheme=setting(DEFAULT_Q)[0],
    batch_relation=BatchRelation.SUBSTITUTION,
    variants=(variant(DEFAULT_Q),),
    grid=setting(DEFAULT_Q)[1],
    parameters=(StructuralParameter("q", "batch size (draws with replacement)", minimum=1,
                                    maximum=MAX_Q),),
    variant_for=variant,
    setting_for=setting,
    tight=(("randomized-response", "otbound: the bits of 001 Thm. G.1's construction, "
                                   "f(y) = 1[a ∈ y]"),),
    remarks=(
        "q is structural (the partition by multiplicity has q + 1 events); N is symbolic: the "
        "weights are the scheme's content masses C(q, k) (N − 1)^(q − k) / N^q.",
        "Validity and compatibility are checked exactly on the instances of the grid; for every "
        "N they follow from the exchangeability of the draws (docs/with_replacement.md).",
    ),
)
