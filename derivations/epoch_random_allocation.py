"""Random allocation over one epoch: each record in k of the T steps (issue 42).

Source: Feldman & Shenfeld 2025 ("Privacy amplification by random allocation"), the scheme; its
k = 1 is balls-in-bins (Chua et al. 2025, whose pair is the published statement compared at
k = 1). Each record's k steps are chosen uniformly among the T, independently of the other
records. For removal of a record a (``x' = x \\ {a}``), condition on the set S of steps that
hold a (``A_S``, probability ``1/C(T, k)``) and couple by drawing the epoch of ``x'`` once and
putting a into the batches of S: ``ŷ_AS`` and ``ŷ_E0`` differ by one record in the steps of S,
``ŷ_AS`` and ``ŷ_AS'`` in those of ``S △ S'``. Insertion is symmetric. The engine recognises the
pinned product, whose worst case is the mixture over S of ``⊗_{t∈S} P₁ ⊗_{t∉S} P₀`` against
``P₀^⊗T`` for the mechanism's worst pair ``(P₁, P₀)`` at distance 1 (any noise family), which
``otbound.RandomAllocation`` evaluates (``otbound account --scheme random-allocation``).
"""

import itertools

import sympy as sp

from otbound.engine import (BatchRelation, EPOCH_STEPS, EpochDerivation, EpochStatement,
                            InsertIntoSteps, RandomAllocationEpoch, SELECTED)


def label(prefix: str, steps) -> str:
    return prefix + "".join(map(str, sorted(steps)))


def published(T: int, k: int) -> dict[str, EpochStatement] | None:
    """Chua et al. 2025's pair, as the engine's statement, for k = 1; nothing is published
    as a statement for k > 1."""
    if k != 1:
        return None
    sets = [frozenset(s) for s in itertools.combinations(range(1, T + 1), k)]

    def vector(chosen) -> tuple[int, ...]:
        return tuple(int(t in chosen) for t in range(1, T + 1))

    def side(prefix: str, base: str):
        mixture = tuple((label(prefix, s), sp.Rational(1, len(sets))) for s in sets)
        distances = {frozenset({label(prefix, s), base}): vector(s) for s in sets}
        distances |= {frozenset({label(prefix, s), label(prefix, u)}): vector(s ^ u)
                      for s, u in itertools.combinations(sets, 2)}
        return mixture, distances

    mixture, distances = side("A", "E0")
    removal = EpochStatement(mixture, (("E0", sp.Integer(1)),), distances)
    mixture, distances = side("E", "A0")
    insertion = EpochStatement((("A0", sp.Integer(1)),), mixture, distances)
    return {"removal": removal, "insertion": insertion}


DERIVATION = EpochDerivation(
    name="epoch-random-allocation",
    source="Feldman & Shenfeld 2025 (random allocation); k = 1: Chua et al. 2025",
    title="Random allocation, one epoch of T steps, k steps per record, insertion/removal of "
          "one record",
    scheme=RandomAllocationEpoch,
    relation=BatchRelation.INSERTION_REMOVAL,
    coupling=InsertIntoSteps(),
    published=published,
    parameters=(EPOCH_STEPS, SELECTED),
    variants=({"T": 2, "k": 1}, {"T": 3, "k": 2}, {"T": 5, "k": 3}, {"T": 8, "k": 1},
              {"T": 8, "k": 2}),
    others=range(0, 4),
    remarks=("Numbers: otbound.RandomAllocation (account/calibrate --scheme random-allocation "
             "--steps-per-epoch T --selected k): for k = 1 the pair bounded above and below in "
             "convex order; for k > 1 above by joint convexity over a hidden partition into k "
             "blocks (one step drawn in each), below by a statistic of the outputs "
             "(otbound.numerics.allocation).",
             "The pinned product's worst case holds for adaptive steps (the kernels are applied "
             "step by step, each given the earlier outputs).",),
)
