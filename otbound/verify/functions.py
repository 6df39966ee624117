"""Functions ``f`` from batches to outputs, as a base mechanism ``B(y) = f(y) + noise`` uses them.

Every ``L``-Lipschitz function on a finite metric space is ``f(y) = min_a (f(a) + L d(y, a))``
(McShane), so random *anchors* ``a`` with random offsets generate arbitrary functions of bounded
sensitivity; :class:`LipschitzFunction` is that form. :class:`TableFunction` gives an arbitrary
value to every batch (randomized response needs no sensitivity bound).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from otbound.engine.batches import Batch
from otbound.engine.relations import BatchRelation


@dataclass(frozen=True)
class LipschitzFunction:
    """``f(y) = sensitivity · min_k (offset_k + d_Y(y, anchor_k))``: sensitivity-Lipschitz."""

    anchors: tuple[Batch, ...]
    offsets: tuple[float, ...]
    relation: BatchRelation
    sensitivity: float = 1.0
    sign: float = 1.0

    def __call__(self, batch: Batch) -> float:
        return self.sign * self.sensitivity * min(
            offset + self.relation.distance(batch, anchor)
            for offset, anchor in zip(self.offsets, self.anchors))

    def describe(self) -> str:
        parts = [f"{o:g} + d(y, {{{', '.join(sorted(a))}}})"
                 for o, a in zip(self.offsets, self.anchors)]
        sign = "-" if self.sign < 0 else ""
        return f"f(y) = {sign}{self.sensitivity:g}·min({'; '.join(parts)})"


@dataclass(frozen=True)
class TableFunction:
    """An explicit value for every listed batch, ``default`` for the others."""

    table: Mapping[Batch, float] = field(default_factory=dict)
    default: float = 0.0
    label: str = ""

    def __call__(self, batch: Batch) -> float:
        return self.table.get(batch, self.default)

    def describe(self) -> str:
        if self.label:
            return self.label
        ones = sorted(", ".join(sorted(b)) or "∅" for b, v in self.table.items() if v)
        return f"f = 1 on {{{'}, {'.join(ones)}}}" if ones else "f = 0"
