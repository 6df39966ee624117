"""Derivations whose events depend on the batch size: one derivation per value of ``q``.

Under sampling with replacement a batch may hold ``0 … q`` copies of a special element, so the
partition by multiplicity has ``q + 1`` events: ``q`` shapes the derivation itself and is a
*structural* parameter (like a group size), not a symbol of the bound. A
:class:`BatchSizeFamily` builds, for each structural value, the variant together with its
scheme (:class:`~otbound.engine.schemes.WithReplacement` with that ``q``) and an instance grid
small enough to enumerate. The dataset size ``N`` stays symbolic: the weights of the emitted
bound are the scheme's exact content masses, closed forms in ``N``
(``C(q, k) (N − 1)^{q − k} / N^q = Binom(k | q, 1/N)`` for one substituted element).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping

from otbound.engine.derivation import MAX_INSTANCE_BATCHES, Derivation, InstanceGrid
from otbound.engine.schemes import Scheme


def enumerable_sizes(batch_size: int, specials: int, smallest: int, largest: int,
                     joint_limit: int = 60_000) -> range:
    """Dataset sizes ``N`` from ``smallest`` up to ``largest`` at which every multiset batch of
    sampling with replacement can be listed (at most
    :data:`~otbound.engine.derivation.MAX_INSTANCE_BATCHES` batches, counting the ``specials``
    named elements on top of ``N`` as the engine does) and the coupling's joint pmf stays below
    ``joint_limit`` tuples (batches times orderings of their draws, ``q!`` at most)."""
    top = smallest
    for size in range(smallest, largest + 1):
        batches = math.comb(size + specials + batch_size - 1, batch_size)
        if batches > MAX_INSTANCE_BATCHES or batches * math.factorial(batch_size) > joint_limit:
            break
        top = size
    return range(smallest, top + 1)


@dataclass(frozen=True)
class BatchSizeFamily(Derivation):
    """A :class:`Derivation` whose scheme and instance grid change with its structural
    parameters: ``setting_for(**values)`` gives both (``variant_for`` gives the variant)."""

    setting_for: Callable[..., tuple[Scheme, InstanceGrid]] | None = None

    def at(self, values: Mapping[str, object]) -> "Derivation":
        chosen = super().at(values)
        if not self.parameters or self.setting_for is None:
            return chosen
        checked = {p.name: p.check(values[p.name]) for p in self.parameters}
        scheme, grid = self.setting_for(**checked)
        object.__setattr__(chosen, "scheme", scheme)
        object.__setattr__(chosen, "grid", grid)
        return chosen
