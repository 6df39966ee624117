"""Sampling with replacement under insertion/removal of one element.

Source: 003 Sec. 3.4 and Thm. L.5 (dominating pairs for sampling with replacement; the proof is
not in the seeds). Derived by otbound with its own events and coupling; no statement is
compared. Batches always hold q draws, so the batch relation is substitution (one draw
replaced), as for 001 Thm. 3.6. Status: valid and d_Y-compatible on every instance of the grid,
for each batch size q up to :data:`MAX_Q`; the weights are closed forms in N
(``docs/with_replacement.md``).

Removal, ``x' = x \\ {a}`` with ``|x| = N``: condition ``s_x`` on ``A_k = {a is drawn k
times}``, k = 0 … q (weights ``Binom(k | q, 1/N)``), leave ``s_{x'}`` unconditioned (``E = Y``).
``s_x(· | A_0)`` is ``s_{x'}``: draw ``y_A0``, set ``y_E = y_A0``, order the draws uniformly at
random and replace the first k by ``a`` (``y_Ak``). Then ``d(A_t, A_u) = |t − u|`` and
``d(A_t, E) = t``, the distances between the supports: the pattern of 003 Thm. 3.7 with
``K₊ = 0``, ``K₋ = q``. Insertion, ``x' = x ∪ {a}``, is the mirror image with weights
``Binom(k | q, 1/(N + 1))`` (N is ``|x|``). Read backwards, the coupling replaces every copy of
``a`` in ``y_Ak`` by an independent uniform draw from ``x'``.
"""

from otbound.engine import (BatchRelation, BatchSizeFamily, Case, Copy, CountIs, Coupling,
                            Everything, InsertionRemoval, InstanceGrid, ReplaceCopiesInRandomOrder,
                            StructuralParameter, Variant, WithReplacement, enumerable_sizes)

MAX_Q = 5
"""The largest batch size derived: the coupling is enumerated exactly (q! orderings a batch)."""
DEFAULT_Q = 3


def _counted(prefix: str, q: int) -> dict:
    return {f"{prefix}{k}": CountIs(("a",), k) for k in range(q + 1)}


def cases(q: int) -> tuple[Case, Case]:
    removal, insertion = InsertionRemoval().pairs()
    chain = lambda prefix: (tuple(f"{prefix}{k}" for k in range(1, q + 1)),)   # noqa: E731
    removal_case = Case(removal, events_x=_counted("A", q), events_x_prime={"E": Everything()},
                        coupling=Coupling("A0", (Copy("A0", "E"), ReplaceCopiesInRandomOrder(
                            "A0", (("a",),), chain("A")))))
    insertion_case = Case(insertion, events_x={"A": Everything()},
                          events_x_prime=_counted("E", q),
                          coupling=Coupling("E0", (Copy("E0", "A"), ReplaceCopiesInRandomOrder(
                              "E0", (("a",),), chain("E")))))
    return removal_case, insertion_case


def variant(q: int) -> Variant:
    return Variant(f"q = {q}", InsertionRemoval(), cases(q), None)


def setting(q: int):
    return WithReplacement(q), InstanceGrid(enumerable_sizes(q, 1, 1, 12))


DERIVATION = BatchSizeFamily(
    name="wr-insertion-removal",
    source="003 Sec. 3.4, Thm. L.5 (not in the seeds); derived by otbound",
    title="sampling with replacement, insertion/removal of one element",
    scheme=setting(DEFAULT_Q)[0],
    batch_relation=BatchRelation.SUBSTITUTION,
    variants=(variant(DEFAULT_Q),),
    grid=setting(DEFAULT_Q)[1],
    parameters=(StructuralParameter("q", "batch size (draws with replacement)", minimum=1,
                                    maximum=MAX_Q),),
    variant_for=variant,
    setting_for=setting,
    tight=(("gaussian", "003 Thm. 3.8 (K₊ = 0, K₋ = q pattern)"),
           ("laplace", "003 Thm. M.2 (not in the seeds)"),
           ("randomized-response", "001 Thm. G.1 pattern")),
    remarks=(
        "q is structural (the partition by multiplicity has q + 1 events); N is symbolic: the "
        "weights are the scheme's content masses C(q, k) (N − 1)^(q − k) / N^q (removal) and "
        "C(q, k) N^(q − k) / (N + 1)^q (insertion).",
        "Validity and compatibility are checked exactly on the instances of the grid; for every "
        "N they follow from the exchangeability of the draws (docs/with_replacement.md).",
    ),
)
