"""Balls-in-bins sampling over one epoch: the epoch's dominating pair (issue 28).

Source: Chua et al., "Balls-and-Bins Sampling for DP-SGD" (AISTATS 2025). Each record is put in
one of the T steps of the epoch, uniformly and independently. For removal of a record a
(``x' = x \\ {a}``), condition on the step that holds a (``A_t``, probability 1/T) and couple by
drawing the epoch of ``x'`` once and putting a into batch t: ``ŷ_At`` and ``ŷ_E0`` differ in step
t only, by one record; ``ŷ_At`` and ``ŷ_As`` in steps t and s. Insertion is symmetric. For the
Gaussian mechanism (sensitivity 1 per step, σ per step) the worst case is the published pair
``(1/T) Σ_t N(e_t, σ² I_T)`` against ``N(0, σ² I_T)``, which ``otbound.BallsInBins`` evaluates
(``otbound account --scheme balls-in-bins``).
"""

import sympy as sp

from otbound.engine import (BallsInBinsEpoch, BatchRelation, EpochDerivation, EpochStatement,
                            InsertIntoSteps)


def unit(steps: int, *chosen: int) -> tuple[int, ...]:
    """The per-step distance vector with 1 at the ``chosen`` steps."""
    return tuple(int(t in chosen) for t in range(1, steps + 1))


def published(T: int) -> dict[str, EpochStatement]:
    mixture = tuple((f"A{t}", sp.Rational(1, T)) for t in range(1, T + 1))
    distances = {frozenset({f"A{t}", "E0"}): unit(T, t) for t in range(1, T + 1)}
    distances |= {frozenset({f"A{t}", f"A{s}"}): unit(T, t, s)
                  for t in range(1, T + 1) for s in range(t + 1, T + 1)}
    removal = EpochStatement(mixture, (("E0", sp.Integer(1)),), distances)
    rename = {f"A{t}": f"E{t}" for t in range(1, T + 1)} | {"E0": "A0"}
    insertion = EpochStatement(
        (("A0", sp.Integer(1)),), tuple((rename[n], w) for n, w in mixture),
        {frozenset(rename[n] for n in pair): v for pair, v in distances.items()})
    return {"removal": removal, "insertion": insertion}


DERIVATION = EpochDerivation(
    name="epoch-balls-in-bins",
    source="Chua et al. 2025 (balls-and-bins sampling), the epoch's dominating pair",
    title="Balls-in-bins sampling, one epoch of T steps, insertion/removal of one record",
    scheme=BallsInBinsEpoch,
    relation=BatchRelation.INSERTION_REMOVAL,
    coupling=InsertIntoSteps(),
    published=published,
    variants=({"T": 1}, {"T": 2}, {"T": 3}, {"T": 5}, {"T": 8}),
    remarks=("Numbers: otbound.BallsInBins (account/calibrate --scheme balls-in-bins), the "
             "worst case solved for the mechanism's worst pair at distance 1, bounded above and "
             "below deterministically (otbound.numerics.allocation).",
             "The paper states the pair for its adaptive batch linear queries mechanism "
             "(ABLQ_B), so adaptive steps are covered; read from its abstract and summary, "
             "the theorem's number was not checked against the full text.",),
)
