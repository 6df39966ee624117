"""A derivation's specification: the ingredients of a published bound (scheme, relations, the
events and coupling of every case), the statement as published, and the grid of instances it is
checked on. Frozen dataclasses; :mod:`otbound.engine.derivation` runs the checks.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence, TypeVar

import sympy as sp

from otbound.engine.bound import MixtureBound
from otbound.engine.conditionals import Case, SizeReference
from otbound.engine.relations import BatchRelation, DatasetRelation
from otbound.engine.schemes import Scheme
from otbound.errors import DerivationFileError, InternalError, InvalidSpecification, required

T = TypeVar("T")

MAX_STRUCTURAL = 32
"""The largest value of a structural parameter (a group size) a derivation is built for."""

MAX_INSTANCE_BATCHES = 2 ** 11
"""Instances are enumerated (exact checks, and a cross-check of the type-level analysis) only
when the largest dataset of the grid has at most this many batches: every one is listed."""


@dataclass(frozen=True)
class InstanceGrid:
    """Concrete instances to check: dataset sizes ``N`` times parameter assignments."""

    sizes: Sequence[int]
    parameters: tuple[Mapping[sp.Symbol, object], ...] = ({},)

    def __post_init__(self) -> None:
        object.__setattr__(self, "parameters", tuple(dict(p) for p in self.parameters))
        if not self.sizes or not self.parameters:
            raise InvalidSpecification("an instance grid needs at least one size and one "
                                       "parameter assignment")
        for size in self.sizes:
            if isinstance(size, bool) or not isinstance(size, int) or size < 0:
                raise InvalidSpecification(
                    f"instance grid sizes N must be integers >= 0, got {size!r}")
        for values in self.parameters:
            for symbol in values:
                if not isinstance(symbol, sp.Symbol):
                    raise InvalidSpecification(
                        f"instance grid parameters must be keyed by sympy symbols "
                        f"(otbound.engine.symbols.r, q, ...), got {symbol!r}")


@dataclass(frozen=True)
class PublicBranch:
    """One value of a public latent variable (002 Sec. 3.1; :mod:`otbound.engine.public_branch`):
    its probability ``weight`` (a closed form, or a symbol the derivation defines), the scheme
    conditioned on it (:class:`~otbound.engine.public_branch.GivenBranch`), and one case per
    pair shape of the relation, with the branch's own coupling."""

    label: str
    weight: sp.Expr
    scheme: Scheme
    cases: tuple[Case, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "cases", tuple(self.cases))
        object.__setattr__(self, "weight", sp.sympify(self.weight))


@dataclass(frozen=True)
class Variant:
    """One value of a derivation's structural parameters (e.g. group size K = 2).

    ``published`` is the statement as published, a function building it (built when first
    needed: evaluating a bound does not need it), or ``None`` when nothing was published for
    these parameters (a result of otbound's own).

    A variant with ``branches`` is a public mixture: its bound is the branches' bounds weighted
    by their probabilities, case by case; its ``cases`` are then those of the first branch
    (every branch has the same pairs and events)."""

    label: str
    relation: DatasetRelation
    cases: tuple[Case, ...]
    published: MixtureBound | Callable[[], MixtureBound] | None
    branches: tuple[PublicBranch, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "branches", tuple(self.branches))
        if self.branches:
            _check_branches(self.label, self.branches)
            object.__setattr__(self, "cases", self.branches[0].cases)
        object.__setattr__(self, "cases", tuple(self.cases))
        if len(self.cases) != len(self.relation.pairs()):
            raise InvalidSpecification(
                f"variant {self.label!r}: {len(self.cases)} cases for a relation with "
                f"{len(self.relation.pairs())} pair shapes")

    def statement(self) -> MixtureBound | None:
        """The published statement (``None`` when there is none)."""
        if callable(self.published):
            made = user_code(f"variant {self.label!r}: its published statement",
                             self.published)
            if not isinstance(made, MixtureBound):
                raise DerivationFileError(
                    f"variant {self.label!r}: its published statement must build an "
                    f"otbound.engine.MixtureBound, got {type(made).__name__}")
            object.__setattr__(self, "published", made)
            return made
        return self.published


def _check_branches(label: str, branches: tuple[PublicBranch, ...]) -> None:
    """Every branch has the same pairs and events (the bound adds them case by case)."""
    def shape(branch: PublicBranch) -> list:
        return [(c.pair, list(c.events_x.items()), list(c.events_x_prime.items()))
                for c in branch.cases]

    for branch in branches[1:]:
        if shape(branch) != shape(branches[0]):
            raise InvalidSpecification(
                f"variant {label!r}: branch {branch.label!r} has other pairs or events than "
                f"branch {branches[0].label!r} (a public mixture adds branches case by case)")


def user_code(what: str, call: Callable[[], T]) -> T:
    """``call()``, a function of a user's derivation file: whatever it raises (but an
    :class:`InternalError`) is the file's fault, a :class:`DerivationFileError` saying
    ``what`` failed and how."""
    try:
        return call()
    except InternalError:
        raise
    except Exception as failure:  # noqa: BLE001 (user code may raise anything)
        detail = " ".join(str(failure).split())
        raise DerivationFileError(f"{what} failed: {type(failure).__name__}"
                                  + (f": {detail}" if detail else "")) from failure


@dataclass(frozen=True)
class StructuralParameter:
    """A parameter that shapes the derivation itself, such as the group size ``K``."""

    name: str
    description: str
    minimum: int = 0
    maximum: int = MAX_STRUCTURAL

    def check(self, value: object) -> int:
        if (isinstance(value, bool) or not isinstance(value, (int, float, str))
                or not str(value).lstrip("-").isdigit()
                or not self.minimum <= int(value) <= self.maximum):
            raise InvalidSpecification(
                f"{self.name} ({self.description}) must be an integer in "
                f"[{self.minimum}, {self.maximum}], got {value!r}", parameter=self.name)
        return int(value)


@dataclass(frozen=True)
class Derivation:
    """A published bound, its ingredients, and where it came from."""

    name: str
    source: str
    title: str
    scheme: Scheme
    batch_relation: BatchRelation
    variants: tuple[Variant, ...]
    grid: InstanceGrid
    size_reference: SizeReference = SizeReference.X
    errata: tuple[str, ...] = field(default=())
    remarks: tuple[str, ...] = field(default=())
    tight: tuple[tuple[str, str], ...] = field(default=())
    """``(mechanism name, source)`` for every mechanism the bound is claimed tight for."""
    parameters: tuple[StructuralParameter, ...] = field(default=())
    """The structural parameters; ``variant_for(**values)`` builds the variant for any values
    (the ``variants`` are those checked by default)."""
    variant_for: Callable[..., Variant] | None = None
    mirror: tuple[str, str] | None = None
    """Two structural parameters whose exchange swaps the roles of ``x`` and ``x'`` (``K_plus``
    and ``K_minus``): the variant at ``(b, a)`` is that at ``(a, b)`` read in the other
    direction, so its bound is the swapped bound (:meth:`CaseBound.swapped`)."""
    definitions: Mapping[sp.Symbol, sp.Expr] = field(default_factory=dict)
    """Closed forms, in ``N`` and the scheme's parameters, of the other symbols the bound is
    stated in (a public branch's probability ``w``); checked exactly on the grid's instances
    and substituted wherever the bound is evaluated on one."""
    path: str | None = field(default=None, compare=False)
    """The file that defines the derivation (set when it is loaded from one)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "parameters", tuple(self.parameters))
        if bool(self.parameters) != (self.variant_for is not None):
            raise InvalidSpecification(f"derivation {self.name!r}: give both parameters and "
                                       "variant_for, or neither")
        object.__setattr__(self, "variants", tuple(self.variants))
        object.__setattr__(self, "tight", tuple(tuple(t) for t in self.tight))
        object.__setattr__(self, "errata", tuple(self.errata))
        object.__setattr__(self, "remarks", tuple(self.remarks))
        object.__setattr__(self, "definitions", dict(self.definitions))
        if not self.variants:
            raise InvalidSpecification(f"derivation {self.name!r} declares no variant")
        for values in self.grid.parameters:
            _check_grid_point(self, values)


    def at(self, values: Mapping[str, object]) -> "Derivation":
        """The derivation with one variant, for the given structural parameters."""
        known = {p.name: p for p in self.parameters}
        unknown = sorted(set(values) - set(known))
        if unknown:
            names = ", ".join(known) or "none"
            raise InvalidSpecification(
                f"derivation {self.name!r} has no structural parameter {unknown[0]} (its "
                f"structural parameters: {names})", parameter="param")
        missing = [name for name in known if name not in values]
        if missing:
            raise InvalidSpecification(
                f"derivation {self.name!r} needs a value for {missing[0]} "
                f"({known[missing[0]].description})", parameter="param")
        if not known:
            return self
        # set whenever there are parameters (__post_init__)
        variant_for = required(self.variant_for, f"{self.where}: variant_for")
        checked = {name: known[name].check(value) for name, value in values.items()}
        arguments = ", ".join(f"{k}={v}" for k, v in checked.items())
        variant = user_code(f"{self.where}: variant_for({arguments})",
                            lambda: variant_for(**checked))
        if not isinstance(variant, Variant):
            raise DerivationFileError(f"{self.where}: variant_for({arguments}) must return an "
                                      f"otbound.engine.Variant, got {type(variant).__name__}")
        chosen = copy.copy(self)   # the grid is unchanged: no need to check it again
        object.__setattr__(chosen, "variants", (variant,))
        return chosen

    @property
    def where(self) -> str:
        """The derivation's name, and its file where known (for messages)."""
        return f"derivation {self.name!r}" + (f" ({self.path})" if self.path else "")


def _check_grid_point(derivation: Derivation, values: Mapping[sp.Symbol, object]) -> None:
    """Every assignment of the grid gives each scheme parameter a value in its allowed range.

    The checks run on concrete instances, so an assignment that the scheme rejects (a rate
    outside [0, 1], a batch size that is not a positive integer or exceeds every dataset size of
    the grid) is malformed input; it must not be mistaken for an instance to skip.
    """
    scheme = derivation.scheme
    where = (f"derivation {derivation.name!r}: instance grid point "
             f"{', '.join(f'{k} = {v}' for k, v in values.items()) or '{}'}")
    free = set().union(*(v.free_symbols for v in scheme.parameters().values()
                         if isinstance(v, sp.Basic)))
    for symbol in values:
        if symbol not in free:
            known = ", ".join(sorted(map(str, free))) or "none"
            raise InvalidSpecification(
                f"{where}: {symbol} is not a parameter of the scheme ({scheme.describe()}; "
                f"its symbolic parameters: {known})")
    try:
        concrete = scheme.substitute(values)
    except InvalidSpecification as error:
        raise InvalidSpecification(f"{where}: {error}") from error
    for name, value in concrete.parameters().items():
        if isinstance(value, sp.Basic) and not value.is_Rational:
            missing = ", ".join(sorted(map(str, value.free_symbols)))
            raise InvalidSpecification(
                f"{where}: scheme parameter {name} = {value} must be a rational number"
                + (f" (give {missing} a value)" if missing else ""))
    largest = max(derivation.grid.sizes)
    if hasattr(concrete, "batch_sizes"):
        try:
            concrete.batch_sizes(largest)
        except InvalidSpecification as error:
            raise InvalidSpecification(f"{where}: {error} (the largest N of the grid)") from error
