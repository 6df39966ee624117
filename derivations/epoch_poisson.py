"""Poisson subsampling over one epoch of T steps, for comparison with the epoch-level schemes
(issue 28).

Source: 001 Thm. 4.1 with K = 1 in each step; the steps sample independently, so the epoch's
bound is the product of T one-step bounds (composition). Here it is derived for the epoch as one
mechanism: condition on the set S of steps that hold the record a (probability
``r^|S| (1 − r)^(T − |S|)``), draw the epoch of ``x' = x \\ {a}`` once and put a into the
batches of S. ``ŷ_AS`` and ``ŷ_AS'`` then differ by one record in each step of the symmetric
difference of S and S': the constraints of T independent one-step pairs ``(1 − r) b(y) + r b(y')`` against
``b(y)``, whose product is the published statement (insertion is symmetric).
"""

import itertools

import sympy as sp

from otbound.engine import (BatchRelation, EpochDerivation, EpochStatement, InsertIntoSteps,
                            PoissonEpoch)
from otbound.engine.symbols import r


def name(prefix: str, steps) -> str:
    return prefix + ("".join(map(str, sorted(steps))) or "0")


def published(T: int) -> dict[str, EpochStatement]:
    subsets = [frozenset(s) for k in range(T + 1)
               for s in itertools.combinations(range(1, T + 1), k)]

    def differ(first, second) -> tuple[int, ...]:
        return tuple(int(t in first ^ second) for t in range(1, T + 1))

    def one_side(prefix: str, base: str):
        mixture = tuple((name(prefix, s), r ** len(s) * (1 - r) ** (T - len(s)))
                        for s in subsets)
        distances = {frozenset({name(prefix, s), base}): differ(s, frozenset())
                     for s in subsets}
        distances |= {frozenset({name(prefix, s), name(prefix, u)}): differ(s, u)
                      for s, u in itertools.combinations(subsets, 2)}
        return mixture, distances

    mixture, distances = one_side("A", "E0")
    removal = EpochStatement(mixture, (("E0", sp.Integer(1)),), distances)
    mixture, distances = one_side("E", "A0")
    # the base outcome is ŷ_A0 on x's side; ŷ_E0 (the record in no step) equals it
    insertion = EpochStatement((("A0", sp.Integer(1)),), mixture, distances)
    return {"removal": removal, "insertion": insertion}


DERIVATION = EpochDerivation(
    name="epoch-poisson",
    source="001 Thm. 4.1 (K = 1) in each of T independent steps",
    title="Poisson subsampling over one epoch of T steps, insertion/removal of one record",
    scheme=lambda T: PoissonEpoch(T, r),
    relation=BatchRelation.INSERTION_REMOVAL,
    coupling=InsertIntoSteps(),
    published=published,
    variants=({"T": 1}, {"T": 2}, {"T": 3}, {"T": 8}),
    others=range(0, 3),
    values=({r: sp.Rational(1, 3)}, {r: sp.Rational(1, 2)}),
    remarks=("Numbers: the per-step Poisson bound composed over T steps (otbound account "
             "--scheme poisson --steps T).",),
)
