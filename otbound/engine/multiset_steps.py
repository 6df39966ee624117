"""Coupling steps on multiset batches: sampling with replacement (003 Sec. 3.4).

A batch of sampling with replacement is ``q`` i.i.d. uniform draws from the dataset, kept as a
multiset (a sorted tuple, :mod:`otbound.engine.batches`). Conditioned on holding exactly ``k``
copies of elements of a group ``g`` (with multiplicity), the batch is: a uniformly random set of
``k`` of the ``q`` draws, each an independent uniform element of ``g``, the other draws i.i.d.
uniform over the rest of the dataset. :class:`ReplaceCopiesInRandomOrder` generates exactly this
from a batch without any element of ``g``: it orders the ``q`` draws uniformly at random and
replaces the first ``k`` of them — the coupling otbound uses for sampling with replacement under
substitution, insertion/removal and group substitution (``docs/with_replacement.md``).

Only the concrete (``Fraction``) semantics is implemented. A batch *type* (special content,
number of background elements) does not determine the probability of a multiset — two background
multisets of one size have different probabilities when their multiplicity patterns differ — so
agreement of type masses would not prove a marginal valid; both symbolic semantics raise
:class:`~otbound.errors.UnsupportedOperation`, and the engine checks these couplings exactly on
instances.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from dataclasses import dataclass
from fractions import Fraction

from otbound.engine.batches import Batch
from otbound.engine.couplings import CouplingStep
from otbound.engine.joint_types import Atoms, JointState
from otbound.errors import InvalidSpecification, UnsupportedOperation

_NO_TYPES = ("the masses of multiset batch types (special content, background count) do not "
             "determine the pmf, so this step is checked exactly on instances only")


def require_multiset(batch: Batch, step: CouplingStep) -> tuple:
    """The batch as a sorted tuple; a set batch is refused with the step named."""
    if not isinstance(batch, tuple):
        raise UnsupportedOperation(f"{step.describe()}: only multiset batches (sampling with "
                                   "replacement) are supported")
    return batch


def draw_orders(batch: tuple, length: int) -> list[tuple[Fraction, tuple[str, ...]]]:
    """The first ``length`` draws of a uniformly random ordering of the batch's draws.

    Each distinct sequence of elements comes with its exact probability: the ``j``-th element is
    ``e`` with probability (copies of ``e`` not yet taken) / (draws not yet taken).
    """
    if not 0 <= length <= len(batch):
        raise InvalidSpecification(f"cannot order {length} of the {len(batch)} draws of "
                                   f"{list(batch)}")
    remaining = Counter(batch)
    orders: list[tuple[Fraction, tuple[str, ...]]] = []

    def extend(prefix: list[str], probability: Fraction, left: int) -> None:
        if len(prefix) == length:
            orders.append((probability, tuple(prefix)))
            return
        for element in sorted(remaining):
            copies = remaining[element]
            if copies:
                remaining[element] -= 1
                extend(prefix + [element], probability * Fraction(copies, left), left - 1)
                remaining[element] += 1

    extend([], Fraction(1), len(batch))
    return orders


def replaced(batch: tuple, removed: tuple[str, ...], added: tuple[str, ...]) -> tuple:
    """The multiset ``batch`` with one copy of each of ``removed`` out and ``added`` put in."""
    counts = Counter(batch)
    counts.subtract(removed)
    if any(c < 0 for c in counts.values()):
        raise InvalidSpecification(f"{list(removed)} are not draws of {list(batch)}")
    counts.update(added)
    return tuple(sorted(counts.elements()))


@dataclass(frozen=True, slots=True)
class ReplaceCopiesInRandomOrder(CouplingStep):
    """Order the draws of a multiset batch uniformly at random and replace the first ones.

    Draw a uniformly random ordering of the ``q`` draws of the source and, independently, for
    each of the first ``L`` positions ``j`` a uniformly random index ``ι_j`` into the groups (all
    groups have the same size ``K``). ``chains[c][i]`` is the source with its first ``i + 1``
    draws replaced by ``groups[c][ι_1] … groups[c][ι_{i+1}]``. With ``groups = ((a,), (a',))``
    the two chains hold ``1 … L`` copies of ``a`` and of ``a'`` at the same positions (sampling
    with replacement under substitution); with ``groups = (g, g')`` every copy of ``g_i`` in the
    first chain is a copy of ``g'_i`` in the second (group substitution).
    """

    source: str
    groups: tuple[tuple[str, ...], ...]
    chains: tuple[tuple[str, ...], ...]

    def __post_init__(self) -> None:
        lengths = {len(c) for c in self.chains}
        sizes = {len(g) for g in self.groups}
        if (len(self.groups) != len(self.chains) or len(lengths) != 1 or lengths == {0}
                or len(sizes) != 1 or sizes == {0}):
            raise InvalidSpecification(
                f"{type(self).__name__} needs one chain per group, chains of one length >= 1 "
                f"and groups of one size >= 1, got groups {self.groups} and chains {self.chains}")

    @property
    def targets(self) -> tuple[str, ...]:
        return tuple(t for chain in self.chains for t in chain)

    def outcomes(self, source, given):
        batch = require_multiset(source, self)
        length, size = len(self.chains[0]), len(self.groups[0])
        if len(batch) < length:
            raise InvalidSpecification(f"{self.describe()}: the source batch has {len(batch)} "
                                       f"draws, fewer than {length}")
        for group in self.groups:
            if set(group) & set(batch):
                raise InvalidSpecification(f"{self.describe()}: the source batch already holds "
                                           f"an element of {group}")
        pick = Fraction(1, size ** length)
        result: dict[tuple, Fraction] = defaultdict(Fraction)
        for probability, order in draw_orders(batch, length):
            for indices in itertools.product(range(size), repeat=length):
                made = tuple(replaced(batch, order[:i + 1],
                                      tuple(group[j] for j in indices[:i + 1]))
                             for group in self.groups for i in range(length))
                result[made] += probability * pick
        return [(p, made) for made, p in result.items()]

    def type_outcomes(self, source, given):
        raise UnsupportedOperation(f"{self.describe()}: {_NO_TYPES}")

    def joint_outcomes(self, state: JointState, atoms: Atoms):
        raise UnsupportedOperation(f"{self.describe()}: {_NO_TYPES}")

    def referenced(self):
        return tuple(frozenset(g) for g in self.groups)

    def describe(self) -> str:
        made = "; ".join(f"y_{', y_'.join(c)} take {{{', '.join(g)}}}"
                         for g, c in zip(self.groups, self.chains))
        return (f"order the draws of y_{self.source} uniformly at random and replace the first "
                f"1, 2, … of them by uniformly random elements of each group, paired across "
                f"groups ({made})")
