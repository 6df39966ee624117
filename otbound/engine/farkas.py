"""Farkas certificates: exact proofs that no ``d_Y``-compatible coupling exists on an instance.

A coupling of the conditional pmfs ``s_1 … s_K`` supported on the *allowed* tuples (those whose
pairwise distances are the ones 001 Def. D.4 allows) is a vector ``γ ≥ 0`` with ``A γ = b``: one
row per coordinate ``t`` and batch ``v`` of its support, ``A[(t, v), τ] = 1`` when ``τ_t = v`` and
``b[(t, v)] = s_t(v)``. By Farkas' lemma no such ``γ`` exists exactly when there are multipliers
``y`` with

    y · b > 0   and   Σ_t y[(t, τ_t)] ≤ 0 for every allowed tuple τ,

since then ``0 < y · b = y · A γ = Σ_τ γ_τ (Aᵀ y)_τ ≤ 0`` for any candidate ``γ``. A solver's dual
vector is only a floating-point hint: :func:`rationalised` turns it into exact multipliers by a
repair that needs no tolerance, and :func:`certificate_defect` checks them with ``Fraction``s.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, Mapping, Sequence

from otbound.engine.batches import Batch
from otbound.engine.validity import batch_key, format_batch

DENOMINATOR = 2 ** 20
"""Solver multipliers are rounded to multiples of ``1 / DENOMINATOR`` before the exact repair."""


@dataclass(frozen=True)
class FarkasCertificate:
    """Multipliers ``y[(t, v)]`` (non-zero ones only) proving that the coupling LP of one
    instance is infeasible; ``value`` is ``y · b``, which must be positive."""

    multipliers: tuple[tuple[str, Batch, Fraction], ...]
    value: Fraction

    @property
    def size(self) -> int:
        """Number of non-zero multipliers."""
        return len(self.multipliers)

    def describe(self) -> str:
        text = (f"Farkas certificate with {self.size} non-zero multiplier"
                f"{'' if self.size == 1 else 's'}, y·b = {self.value} > 0 and Aᵀy ≤ 0 on "
                "every allowed tuple")
        if self.size == 1:
            label, batch, _ = self.multipliers[0]
            text += (f" (batch {format_batch(batch)} of y_{label}'s support lies in no tuple with "
                     "the distances of 001 Def. D.4)")
        return text

    def to_json(self) -> dict:
        return {"multipliers": [{"coordinate": label, "batch": sorted(batch), "y": str(y)}
                                for label, batch, y in self.multipliers],
                "size": self.size, "y_dot_b": str(self.value)}


def certificate_defect(certificate: FarkasCertificate,
                       conditionals: Mapping[str, Mapping[Batch, Fraction]],
                       allowed: Iterable[Sequence[Batch]], order: Sequence[str]) -> str:
    """Why ``certificate`` does not prove infeasibility (empty when it does), in exact arithmetic.

    ``conditionals`` maps each coordinate to its conditional pmf, ``allowed`` lists every allowed
    tuple (batches in ``order``)."""
    y: dict[tuple[str, Batch], Fraction] = {}
    for label, batch, value in certificate.multipliers:
        if label not in conditionals or batch not in conditionals[label]:
            return (f"multiplier on batch {format_batch(batch)} of y_{label}, which is not in "
                    "that coordinate's support")
        y[(label, batch)] = y.get((label, batch), Fraction(0)) + Fraction(value)
    total = sum((value * conditionals[label][batch] for (label, batch), value in y.items()),
                Fraction(0))
    if total != certificate.value:
        return f"y·b is {total}, the certificate states {certificate.value}"
    if total <= 0:
        return f"y·b = {total} is not positive"
    for values in allowed:
        weight = sum((y.get((label, batch), Fraction(0)) for label, batch in zip(order, values)),
                     Fraction(0))
        if weight > 0:
            shown = ", ".join(f"y_{label} = {format_batch(b)}" for label, b in zip(order, values))
            return f"Aᵀy = {weight} > 0 on the allowed tuple ({shown})"
    return ""


def rationalised(duals: Sequence[float], rows: Sequence[tuple[int, Batch]],
                 probabilities: Sequence[Fraction], tuples, order: Sequence[str]
                 ) -> FarkasCertificate | None:
    """Exact multipliers from a solver's dual vector, or ``None`` when the repair fails.

    ``rows[i] = (coordinate index, batch)`` and ``probabilities[i]`` describe row ``i`` of ``A``;
    ``tuples`` is the integer array of allowed tuples given as row indices (one column per
    coordinate). The duals are rounded to multiples of ``1/DENOMINATOR``; then, for one coordinate
    ``t``, every row ``(t, v)`` is lowered by the largest positive ``(Aᵀy)_τ`` over the tuples
    with ``τ_t = v``. Each tuple holds exactly one row of coordinate ``t``, so afterwards
    ``Aᵀy ≤ 0`` holds exactly (integer arithmetic); the coordinate kept is the one that leaves
    ``y · b`` largest, and the result must still have ``y · b > 0``.
    """
    import numpy as np

    scale = max((abs(v) for v in duals), default=0.0)
    if not scale or not np.isfinite(scale):
        return None
    numerators = np.rint(np.asarray(duals, dtype=float) / scale * DENOMINATOR).astype(np.int64)
    best = None
    for coordinate in range(tuples.shape[1]):
        repaired = _repaired(numerators, tuples, coordinate)
        value = sum((Fraction(int(n), DENOMINATOR) * p
                     for n, p in zip(repaired, probabilities) if n), Fraction(0))
        if value > 0 and (best is None or value > best[0]):
            best = (value, repaired)
    if best is None:
        return None
    value, repaired = best
    multipliers = sorted(((order[rows[i][0]], rows[i][1], Fraction(int(n), DENOMINATOR))
                          for i, n in enumerate(repaired) if n),
                         key=lambda m: (order.index(m[0]), batch_key(m[1])))
    return FarkasCertificate(tuple(multipliers), value)


def _repaired(numerators, tuples, coordinate: int):
    """The multipliers lowered on one coordinate's rows so that ``Aᵀy ≤ 0`` on every tuple."""
    import numpy as np

    sums = numerators[tuples].sum(axis=1)
    excess = np.zeros_like(numerators)
    np.maximum.at(excess, tuples[:, coordinate], np.maximum(sums, 0))
    return numerators - excess
