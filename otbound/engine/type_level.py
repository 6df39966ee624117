"""A case analysed at the level of batch types: validity, ``d_Y``-compatibility and the bound,
for every dataset size at once (001 Thm. 3.4, Prop. 3.5, Def. D.4, Cor. D.7).

The coupling is followed one orbit at a time (:mod:`otbound.engine.joint_types`), so the work
depends on the number of atoms and orbits, not on the group size: ``K = 32`` costs about as much
as ``K = 3``.

* **Validity.** For every coordinate and every type (count per atom, background count), the
  coupling's mass equals the conditional pmf's, as an identity in the symbolic background size.
* **Compatibility.** Every distance between two coordinates of an orbit equals the smallest
  distance between the supports (or from the reference batch to a support). The smallest
  distance is taken over every type the event allows, whether or not the dataset is large enough
  to hold it: that can only make it smaller, so equality proves compatibility for every size.
* **Bound.** Compatible: Cor. D.7, one constraint matrix per reference content. Valid but not
  compatible: Thm. 3.4 with Prop. 3.5, the coupling's distribution over matrices of actual
  distances (sound, possibly loose).

Cases outside this analysis (an independent draw, multiset batches, truncated Poisson, events
given by an opaque predicate) raise :class:`UnsupportedOperation`; their checks run on instances.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections import Counter, defaultdict
from dataclasses import dataclass

import sympy as sp

from otbound.engine import symbols
from otbound.engine.batches import Content
from otbound.engine.bound import CaseBound, Component, ConstraintMatrix, MixtureProblem
from otbound.engine.conditionals import Case, SizeReference
from otbound.engine.events import Everything
from otbound.engine.joint_types import Atoms, JointState, Members, atoms_of
from otbound.engine.products import scaled
from otbound.engine.relations import UNBOUNDED, BatchRelation
from otbound.engine.schemes import Poisson, Scheme, WithoutReplacement
from otbound.engine.simplify import tidy
from otbound.engine.validity import Verdict, type_mass_difference
from otbound.errors import UnsupportedOperation, required

Counts = tuple[int, ...]


@dataclass(frozen=True)
class TypeLevelResult:
    """What the analysis established for every dataset size."""

    partition_defect: str
    validity: Verdict
    validity_note: str
    compatibility: Verdict
    compatibility_note: str
    bound: CaseBound | None
    bound_note: str
    orbits: int


def analyse_case(case: Case, scheme: Scheme, relation: BatchRelation,
                 size_reference: SizeReference) -> TypeLevelResult:
    """Validity, compatibility and the case bound for every dataset size (see the module)."""
    analysis = _Analysis(case, scheme, relation)
    defect = analysis.partition_defect()
    if defect:
        return TypeLevelResult(defect, Verdict.UNDECIDED, "", Verdict.UNDECIDED, "", None, "", 0)
    states = analysis.orbits()
    validity_note = analysis.marginal_difference(states)
    validity = Verdict.UNDECIDED if validity_note else Verdict.PROVED
    violation = analysis.first_violation(states)
    compatibility = Verdict.UNDECIDED if violation else Verdict.PROVED
    bound, bound_note = None, ""
    if validity is not Verdict.PROVED:
        bound_note = "the coupling's marginals were not shown valid for every dataset size"
    else:
        try:
            bound = analysis.bound(states, compatible=not violation,
                                   offset=case.size_offset(size_reference))
        except UnsupportedOperation as error:
            bound_note = str(error)
    return TypeLevelResult("", validity, validity_note, compatibility, violation, bound, bound_note,
                           len(states))


class _Analysis:
    """The conditional pmfs of one case over types, its orbits and their distances."""

    def __init__(self, case: Case, scheme: Scheme, relation: BatchRelation) -> None:
        if not isinstance(scheme, (Poisson, WithoutReplacement)):
            raise UnsupportedOperation(f"the type-level analysis covers Poisson subsampling and "
                                       f"sampling without replacement, not {scheme.describe()}")
        if relation is BatchRelation.ZERO_OUT:
            raise UnsupportedOperation("zero-out distances (the null record not counted) are "
                                       "not analysed at the level of types")
        if relation is BatchRelation.SUBSTITUTION and isinstance(scheme, Poisson):
            raise UnsupportedOperation("substitution distances between Poisson batches depend on "
                                       "the batch sizes; not analysed at the level of types")
        self.case, self.scheme, self.relation = case, scheme, relation
        self.fixed_size = isinstance(scheme, WithoutReplacement)
        self.atoms = atoms_of(case.pair.specials, self._referenced())
        self.n = symbols.n
        self._contents: dict[Counts, Content] = {}
        self.vectors = {label: self._vectors(label) for label in case.labels}
        self.probability = {label: self._event_probability(label) for label in case.labels}
        self._between: dict[tuple[str, str], float] = {}
        self._to_support: dict[tuple[Counts, int | None, str], float] = {}
        self._types: dict[str, list] = {}
        self.pairs = list(itertools.combinations(case.labels, 2))
        reference = case.reference
        self._reference_pairs = [(index, u if t == reference else t)
                                 for index, (t, u) in enumerate(self.pairs) if reference in (t, u)]
        self._between_supports: list[float] | None = None

    def _referenced(self) -> list[frozenset]:
        sets = [frozenset(self.case.pair.removed), frozenset(self.case.pair.inserted)]
        for event in list(self.case.events_x.values()) + list(self.case.events_x_prime.values()):
            referenced = event.referenced()
            if referenced is None:
                raise UnsupportedOperation(f"event {event.describe()} does not say which "
                                           "elements it counts")
            sets.extend(referenced)
        for step in self.case.coupling.steps:
            sets.extend(step.referenced())
        return sets

    # --- conditional pmfs over types --------------------------------------------------------

    def _side(self, label: str) -> tuple[bool, sp.Expr]:
        """Whether ``label`` lives on ``x'``, and that dataset's size."""
        _, on_x_prime = self.case.event(label)
        return on_x_prime, self.n + self.case.special_count(on_x_prime)

    def _side_vectors(self, on_x_prime: bool) -> list[Counts]:
        """The count vectors (per atom) of every batch of ``x`` (or ``x'``)."""
        own = set(self.case.pair.inserted if on_x_prime else self.case.pair.removed)
        ranges = [range(len(members) + 1) if set(members) <= own else range(1)
                  for members in self.atoms.classes]
        return list(itertools.product(*ranges))

    def _vectors(self, label: str) -> list[Counts]:
        """The count vectors of the batches in the event of ``label``."""
        event, on_x_prime = self.case.event(label)
        return [c for c in self._side_vectors(on_x_prime) if event.holds(self._content(c))]

    def partition_defect(self) -> str:
        """Why the events on ``x`` or on ``x'`` fail to partition the batches (empty if none)."""
        for on_x_prime, name in ((False, "x"), (True, "x'")):
            labels = [label for label in self.case.labels
                      if self.case.event(label)[1] == on_x_prime]
            for counts in self._side_vectors(on_x_prime):
                hits = [label for label in labels if counts in self.vectors[label]]
                if len(hits) != 1:
                    return (f"events on {name} do not partition the batch space: batches with "
                            f"special content {self.atoms.describe(counts)} lie in "
                            f"{len(hits)} events ({', '.join(hits) or 'none'})")
        return ""

    def _event_probability(self, label: str) -> sp.Expr:
        """``P(A)``: the masses of its types, or exactly 1 for the whole batch space."""
        if isinstance(self.case.event(label)[0], Everything):
            return sp.Integer(1)
        orbits_by_size: Counter[int] = Counter()
        for counts in self.vectors[label]:
            orbits_by_size[sum(counts)] += self._orbit(counts)
        specials = self.case.special_count(self._side(label)[0])
        return sp.Add(*[_size_mass(self.scheme, held, specials, orbits)
                        for held, orbits in sorted(orbits_by_size.items())])

    def _orbit(self, counts: Counts) -> int:
        return math.prod(math.comb(len(m), c) for m, c in zip(self.atoms.classes, counts))

    def _content(self, counts: Counts) -> Content:
        if counts not in self._contents:
            self._contents[counts] = Content.of(self.atoms.representative(counts))
        return self._contents[counts]

    def content_mass(self, label: str, counts: Counts) -> sp.Expr:
        """``P(batch has these counts)`` on the dataset of ``label``. A set scheme's masses
        depend on the content through its size alone, so they are formed once per size."""
        on_x_prime, _ = self._side(label)
        return _size_mass(self.scheme, sum(counts), self.case.special_count(on_x_prime),
                          self._orbit(counts))

    def background(self, counts: Counts) -> sp.Expr:
        fixed = self.scheme.background_count(self._content(counts))
        return symbols.m if fixed is None else fixed

    def share(self, label: str, counts: Counts) -> sp.Expr:
        """``P(counts | A)``: the part of the event's mass with these counts."""
        if len(self.vectors[label]) == 1:
            return sp.Integer(1)
        return self.content_mass(label, counts) / self.probability[label]

    def types(self, label: str) -> list[tuple[sp.Expr, Counts, sp.Expr]]:
        """Conditional mass of each type ``(counts, background)`` in the event of ``label``."""
        if label not in self._types:
            _, size = self._side(label)
            self._types[label] = [
                (self.share(label, c) * self.scheme.background_mass(
                    self._content(c), self.background(c), self.n, size), c, self.background(c))
                for c in self.vectors[label]]
        return self._types[label]

    # --- orbits of the coupling -------------------------------------------------------------

    def orbits(self) -> list[tuple[sp.Expr, sp.Expr, JointState, Counts]]:
        """Every orbit of batch tuples: the conditional mass of its reference type, its
        probability given that type, its representative, and the reference type's counts."""
        reference = self.case.reference
        states: list[tuple[sp.Expr, sp.Expr, JointState, Counts]] = []
        for mass, counts, background in self.types(reference):
            start = JointState(((reference, Members(self.atoms.representative(counts))),),
                               background)
            grown = [(sp.Integer(1), start)]
            for step in self.case.coupling.steps:
                grown = [(p * q, after) for p, state in grown
                         for q, after in step.joint_outcomes(state, self.atoms)]
            states.extend((mass, p, state, counts) for p, state in grown)
        return states

    def marginal_difference(self, states) -> str:
        """The first marginal identity not shown (empty when every one holds)."""
        for label in self.case.labels:
            produced: dict[Counts, list[tuple[sp.Expr, sp.Expr]]] = defaultdict(list)
            for mass, probability, state, _ in states:
                members = state.get(label)
                produced[self.atoms.counts(members.specials)].append(
                    (state.background(label), mass * probability))
            wanted = {counts: (mass, background) for mass, counts, background in self.types(label)}
            for counts in sorted(set(produced) | set(wanted)):
                target, background = wanted.get(counts, (sp.Integer(0), None))
                note = type_mass_difference(label, self.atoms.describe(counts),
                                            produced.get(counts, []), target, background)
                if note:
                    return note
        return ""

    # --- distances ---------------------------------------------------------------------------

    def _offset(self, state: JointState, label: str) -> int | None:
        """``|y| − q`` for a coordinate under sampling without replacement (``None`` otherwise)."""
        if not isinstance(self.scheme, WithoutReplacement):   # not self.fixed_size
            return None
        offset = sp.simplify(state.size(label) - self.scheme.batch_size)
        if not offset.is_Integer:
            raise UnsupportedOperation(f"y_{label} has size {state.size(label)}, not q plus a "
                                       "constant")
        return int(offset)

    def _distance(self, counts: Counts, offset: int | None, other: Counts) -> float:
        """``d_Y`` from a batch (counts, and size offset ``|y| − q``) to the nearest batch of
        counts ``other`` (with the background that makes it nearest)."""
        if self.relation is BatchRelation.INSERTION_REMOVAL:
            distance = sum(abs(a - b) for a, b in zip(counts, other))
            if not self.fixed_size:
                return distance
            return distance + abs(required(offset, "|y| − q") + sum(counts) - sum(other))
        if offset != 0:
            return UNBOUNDED
        # equal sizes: the background count differs by |other| − |counts|
        return (sum(max(a - b, 0) for a, b in zip(counts, other))
                + max(sum(other) - sum(counts), 0))

    def to_support(self, counts: Counts, offset: int | None, label: str) -> float:
        """``d_Y(y, supp s_label)`` (001 Def. D.2), over every type the event allows."""
        key = (counts, offset, label)
        if key not in self._to_support:
            self._to_support[key] = min(
                (self._distance(counts, offset, other) for other in self.vectors[label]),
                default=UNBOUNDED)
        return self._to_support[key]

    def between(self, t: str, u: str) -> float:
        """``d_Y(supp s_t, supp s_u)`` (001 Def. D.3)."""
        key = (t, u) if t <= u else (u, t)
        if key not in self._between:
            offset = 0 if self.fixed_size else None
            self._between[key] = min((self.to_support(c, offset, u) for c in self.vectors[t]),
                                     default=UNBOUNDED)
        return self._between[key]

    def smallest(self, state: JointState) -> tuple[float, ...]:
        """The smallest distances Def. D.4 allows between the coordinates, pair by pair (in the
        order of :attr:`pairs`): from the reference batch to a support, else between supports."""
        reference = self.case.reference
        if self._between_supports is None:
            self._between_supports = [0.0 if reference in (t, u) else self.between(t, u)
                                      for t, u in self.pairs]
        members = state.get(reference)
        counts, offset = self.atoms.counts(members.specials), self._offset(state, reference)
        distances = list(self._between_supports)
        for index, other in self._reference_pairs:
            distances[index] = self.to_support(counts, offset, other)
        return tuple(distances)

    def actual(self, state: JointState) -> tuple[float, ...]:
        """The distances between the coordinates of the orbit, pair by pair."""
        bit: dict[str, int] = {}
        sets = {label: sum(1 << bit.setdefault(e, len(bit)) for e in members.named)
                for label, members in state.coordinates}
        if self.relation is BatchRelation.INSERTION_REMOVAL:
            return tuple((sets[t] ^ sets[u]).bit_count() for t, u in self.pairs)
        return tuple(_substitution_distance((sets[t] & ~sets[u]).bit_count(),
                                            (sets[u] & ~sets[t]).bit_count())
                     for t, u in self.pairs)

    def first_violation(self, states) -> str:
        """A pair of coordinates farther apart than Def. D.4 allows (empty when none)."""
        for mass, probability, state, _ in states:
            if mass == 0 or probability == 0:   # a zero-probability orbit constrains nothing
                continue
            actual, smallest = self.actual(state), self.smallest(state)
            if actual == smallest:
                continue
            (t, u), a, b = next(x for x in zip(self.pairs, actual, smallest) if x[1] != x[2])
            shown = ", ".join(f"y_{label} = {_format(members, self.atoms)}"
                              for label, members in state.coordinates)
            return (f"in the orbit ({shown}), d_Y(y_{t}, y_{u}) = {_number(a)} but the smallest "
                    f"possible distance is {_number(b)}")
        return ""

    # --- the bound ---------------------------------------------------------------------------

    def bound(self, states, compatible: bool, offset: int) -> CaseBound:
        """Cor. D.7 (compatible) or Thm. 3.4 + Prop. 3.5 (valid), symbolic in ``N``."""
        to_size = {self.n: symbols.N - offset}

        def in_size(expr: sp.Expr) -> sp.Expr:
            return tidy(expr.subs(to_size) if self.n in expr.free_symbols else expr)

        labels = self.case.labels
        components = [Component(label, in_size(self.probability[label]))
                      for label in labels]
        left, right = (tuple(components[:len(self.case.events_x)]),
                       tuple(components[len(self.case.events_x):]))
        reference = self.case.reference
        mass: dict[ConstraintMatrix, sp.Expr] = defaultdict(lambda: sp.Integer(0))
        if compatible:
            matrices: dict[Counts, ConstraintMatrix] = {}
            for _, _, state, counts in states:
                matrix = self._matrix(self.smallest(state))
                if matrices.setdefault(counts, matrix) != matrix:
                    raise UnsupportedOperation("the constraint matrix of one reference content "
                                               "changes with the orbit")
            for counts, matrix in matrices.items():
                mass[matrix] += self.share(reference, counts)
        else:
            for _, step_probability, state, counts in states:
                if symbols.m in sp.sympify(step_probability).free_symbols:
                    raise UnsupportedOperation(
                        "the coupling's distances depend on the background count of the "
                        "reference batch; Thm. 3.4's expectation over it is not formed "
                        "symbolically")
                mass[self._matrix(self.actual(state))] += (self.share(reference, counts)
                                                           * step_probability)
        terms = tuple((in_size(p), MixtureProblem(left, right, matrix))
                      for matrix, p in mass.items())
        return CaseBound(self.case.pair.name, terms)

    def _matrix(self, distances: tuple[float, ...]) -> ConstraintMatrix:
        return ConstraintMatrix.from_pairs(self.case.labels, dict(zip(self.pairs, distances)))


@functools.lru_cache(maxsize=4096)
def _size_mass(scheme: Scheme, held: int, specials: int, orbits: int = 1) -> sp.Expr:
    """``P(the batch holds these `held` special elements)`` out of ``specials`` (with ``n``
    background elements), times ``orbits``: for a set scheme it depends on the content's size
    alone. (Cached: many events of many cases share these masses.)"""
    if orbits != 1:
        return scaled(orbits, _size_mass(scheme, held, specials))
    content = Content.of(f"s{i}" for i in range(held))
    return scheme.content_mass(content, symbols.n, symbols.n + specials)


def _substitution_distance(only_first: int, only_second: int) -> float:
    """Substitution distance between two sets of equal size (unbounded between unequal sizes)."""
    return only_first if only_first == only_second else UNBOUNDED


def _format(members: Members, atoms: Atoms) -> str:
    inner = sorted(members.specials) + sorted(members.tokens) + ["…"]
    return "{" + ", ".join(inner) + "}"


def _number(value: float) -> str:
    return "∞" if value == UNBOUNDED else str(int(value))
