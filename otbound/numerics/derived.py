"""Numbers from a derived bound: the engine's :class:`MixtureBound`, evaluated at given values.

Every number otbound prints comes from here: a derivation (bundled, or a user's file) is derived
by the engine — at the level of types where that analysis applies, which proves the coupling
valid for every dataset size, else on the instances of its grid — and its bound is evaluated at
the values of its scheme parameters (``r``, ``q``, ``N`` …): each case becomes a list of
:class:`Term`, which the mechanism solvers turn into dominating pairs.

A coupling that is valid but not ``d_Y``-compatible still gives 001 Thm. 3.4's bound; the
:class:`DerivedBound` says so (``loose``), and so does every output built from it.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Mapping

import mpmath as mp
import numpy as np

from otbound.choices import SchemeKind
from otbound.engine.bound import ConstraintMatrix
from otbound.engine.relations import BatchRelation
from otbound.errors import (InternalError, InvalidSpecification, UnsupportedOperation,
                            required)
from otbound.numerics.closed_forms import LogValues, Tree, as_text, symbols_of
from otbound.numerics.compiled_bound import (CompiledCase, CompiledProblem, DerivedBound,
                                             compiled)
from otbound.numerics.limits import show
from otbound.numerics.problems import NumericProblem, Term

if TYPE_CHECKING:
    from otbound.engine.derivation import Derivation
    from otbound.engine.epoch_derivation import EpochDerivation
    from otbound.numerics.epoch_settings import EpochSetting


def derive_bound(derivation: "Derivation") -> DerivedBound:
    """The bound of a derivation with one variant, refusing one whose coupling is not valid."""
    from otbound.engine.bound import MixtureBound
    from otbound.engine.derivation import variant_cases
    from otbound.engine.report import ALL_SIZES

    if len(derivation.variants) != 1:
        names = ", ".join(p.name for p in derivation.parameters)
        raise InvalidSpecification(
            f"derivation {derivation.name!r} has {len(derivation.variants)} variants; choose one "
            f"with its structural parameters ({names})", parameter="param")
    (variant,) = derivation.variants
    cases, branches = variant_cases(derivation, variant, instances=False)
    reports = cases + tuple(c for branch in branches for c in branch.cases)
    for report in reports:
        if report.bound is None:
            raise UnsupportedOperation(f"derivation {derivation.name!r} ({variant.label}), case "
                                       f"{report.case.pair.name}: no bound to evaluate — "
                                       f"{_no_bound_reason(report)}")
    proof = (ALL_SIZES if all(r.proved_valid for r in reports)
             else "the instances of its grid")
    bound = MixtureBound(tuple(required(r.bound, "a case's bound") for r in cases))
    return DerivedBound(derivation.name, variant.label, compiled(bound),
                        any(r.loose for r in reports), proof, derivation.batch_relation,
                        tuple((len(case.pair.inserted), len(case.pair.removed))
                              for case in variant.cases),
                        scheme_kind(derivation.scheme), bound, _draws(derivation.scheme))


def _draws(scheme) -> int | None:
    """``q`` of sampling with replacement (a number, not a symbol), else ``None``."""
    from otbound.engine.schemes import WithReplacement

    if not isinstance(scheme, WithReplacement) or not scheme.batch_size.is_Integer:
        return None
    return int(scheme.batch_size)


def scheme_kind(scheme) -> SchemeKind | None:
    """The kind of an engine scheme that published baselines know, else ``None``."""
    from otbound.engine.schemes import Poisson, WithoutReplacement

    kinds = {Poisson: SchemeKind.POISSON, WithoutReplacement: SchemeKind.WOR}
    return kinds.get(type(scheme))


def _no_bound_reason(report) -> str:
    """Why a case has no bound, and what to do about it."""
    if report.defect or report.mismatch:
        return ((report.defect or report.mismatch.describe())
                + "; `otbound derive` shows every check")
    if report.violation is not None:
        return (f"its coupling is not d_Y-compatible (001 Def. D.4) "
                f"{report.violation.describe()}, and {report.bound_note or 'no bound was derived'}"
                "; let otbound search for a d_Y-compatible coupling of the same events "
                "(coupling=otbound.engine.AUTO in the case; try it with `otbound derive FILE "
                "--coupling auto`)")
    return (report.bound_note or "no bound was derived") + "; `otbound derive` shows why"


@functools.lru_cache(maxsize=256)
def bundled(name: str, **structural: int) -> DerivedBound:
    """The derived bound of a bundled derivation: its closed form written down for any sizes
    (:mod:`otbound.numerics.group_bounds`), else read from the table of bundled bounds
    (:mod:`otbound.numerics.bound_table`), else derived by the engine (:func:`derived_bundled`);
    the first two are checked against the engine by tests."""
    from otbound.numerics.group_bounds import closed_form

    found = closed_form(name, structural)
    found = found if found is not None else from_table(name, structural)
    return found if found is not None else derived_bundled(name, **structural)


def table_key(name: str, structural: Mapping[str, object]) -> tuple | None:
    """The key of a bundled bound in the table (``None`` for a value that is not an integer)."""
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in structural.values()):
        return None
    return (name, tuple(sorted(structural.items())))


def from_table(name: str, structural: Mapping[str, object]) -> DerivedBound | None:
    """The table's bound of ``name`` at ``structural``, or ``None`` where it has none."""
    import ast

    from otbound.numerics.bound_table_data import TABLE

    key = table_key(name, structural)
    found = None if key is None else TABLE.get(key)
    if found is None:
        return None
    label, cases, loose, proof, relation, shapes, scheme = ast.literal_eval(found)
    return DerivedBound(
        name, label,
        tuple(CompiledCase(case, tuple((p, _problem_from_table(*problem)) for p, problem in terms))
              for case, terms in cases),
        loose, proof, BatchRelation(relation), shapes,
        None if scheme is None else SchemeKind(scheme))


def _problem_from_table(left: tuple, right: tuple, labels: tuple,
                        bounds: tuple) -> CompiledProblem:
    return CompiledProblem(left, right, ConstraintMatrix(labels, tuple(
        tuple(math.inf if d is None else float(d) for d in row) for row in bounds)))


@functools.lru_cache(maxsize=256)
def derived_bundled(name: str, **structural: int) -> DerivedBound:
    """The derived bound of a bundled derivation, derived by the engine once per process. A
    variant that mirrors another (:attr:`Derivation.mirror`) is derived as that one, read in
    the other direction."""
    derivation = bundled_derivation(name)
    chosen = derivation.at(structural)
    if derivation.mirror:
        a, b = derivation.mirror
        if int(structural[a]) < int(structural[b]):
            swapped = {**structural, a: structural[b], b: structural[a]}
            return derived_bundled(name, **swapped).mirrored(chosen.variants[0].label)
    return derive_bound(chosen)


@functools.lru_cache(maxsize=64)
def bundled_derivation(name: str) -> "Derivation":
    from otbound.engine.bundled import load_derivation
    from otbound.engine.derivation_spec import Derivation

    found = load_derivation(name)
    if not isinstance(found, Derivation):
        raise UnsupportedOperation(f"{name} is an epoch-level derivation: it has no derived "
                                   "bound of one step")
    return found


def numeric_values(derived: DerivedBound, values: Mapping[str, object]) -> dict[str, Fraction]:
    """The symbols of the bound with exact values, checked against their ranges."""
    needed = derived.symbols
    unknown = sorted(set(values) - needed)
    if unknown:
        raise InvalidSpecification(
            f"the bound of {derived.name} does not depend on {unknown[0]} (it depends on "
            f"{', '.join(sorted(needed)) or 'no parameter'})", parameter="param")
    missing = sorted(needed - set(values))
    if missing:
        raise InvalidSpecification(f"the bound of {derived.name} depends on {missing[0]}: give "
                                   f"it a value ({_RANGES.get(missing[0], 'a number')})",
                                   parameter="param")
    exact = {name: _exact(name, value) for name, value in values.items()
             if value is not None}   # None: a defined symbol undefined here (with_definitions)
    if "q" in exact and "N" in exact and exact["q"] > exact["N"]:
        raise InvalidSpecification(f"q must be at most N, got q = {exact['q']}, "
                                   f"N = {exact['N']}", parameter="param")
    return exact


_RANGES = {"r": "a rate in [0, 1]", "q": "an integer batch size >= 1",
           "B": "an integer largest batch >= 1",
           "N": "an integer dataset size >= 1"}


def _exact(name: str, value: object) -> Fraction:
    """The value as an exact fraction (floats are read as their decimal literal)."""
    try:
        number = Fraction(str(value)) if not isinstance(value, Fraction) else value
    except (ValueError, ZeroDivisionError):
        raise InvalidSpecification(f"{name} must be a number, got {value!r}",
                                   parameter=name) from None
    if name == "r" and not 0 <= number <= 1:
        raise InvalidSpecification(f"r must be in [0, 1], got {show(value)}", parameter="r")
    if name in ("q", "N", "B") and (number.denominator != 1 or number < 1):
        raise InvalidSpecification(f"{name} must be an integer >= 1, got {show(value)}",
                                   parameter=name)
    return number


def largest_over_sizes(derived: DerivedBound, values: Mapping[str, object]) -> list[list[Term]]:
    """The bound's maximum over every dataset size ``N > Q`` (001 Thm. F.3), given ``Q``.

    It is attained at ``N = Q + 1`` when, in every term, one side is a single component
    ``b_c``, the other side holds a component ``b_s`` with ``ŷ_s = ŷ_c``, the term probabilities
    do not depend on ``N``, and every other weight is ``t(N)`` times its value at ``Q + 1`` with a
    common ``t(N) ≤ 1``: the mixture at ``N`` is then ``t M + (1 − t) b_s`` with ``M`` the mixture
    at ``Q + 1``, and by joint convexity ``Ψ(t M + (1 − t) b_s ‖ b_c) ≤ t Ψ(M ‖ b_c) + (1 − t)``
    ``≤ Ψ(M ‖ b_c)`` (likewise in the other direction and for ``H_γ``). This is checked
    symbolically for the bound at hand; a bound that fails the check is refused."""
    if "N" in values:
        raise InvalidSpecification("give either N (one dataset size) or Q (the maximum over "
                                   "N > Q), not both", parameter="param")
    smallest = _exact("Q", values["Q"]) + 1
    if "N" not in derived.symbols:
        raise InvalidSpecification(f"the bound of {derived.name} does not depend on N, so Q "
                                   "does not apply", parameter="param")
    reason = _not_largest_at_smallest_size(derived)
    if reason:
        raise UnsupportedOperation(f"the maximum over N > Q of {derived.name} is not computed: "
                                   f"{reason}; give one dataset size N instead (--param N=... on "
                                   "the command line), for datasets of that size")
    others = {k: v for k, v in values.items() if k != "Q"}
    return evaluate(derived, others | {"N": smallest})


def _not_largest_at_smallest_size(derived: DerivedBound) -> str:
    """Why the bound might not be largest at the smallest ``N`` (empty when it is)."""
    import sympy as sp

    from otbound.engine import symbols

    if derived.bound is None:
        raise InternalError(f"{derived.name}: the maximum over N needs the engine's bound")
    start = sp.Symbol("N_0", positive=True, integer=True)
    for case in derived.bound.cases:
        for probability, problem in case.terms:
            if symbols.N in probability.free_symbols:
                return f"a term probability of case {case.name} depends on N"
            single, mixture = ((problem.right, problem.left) if len(problem.right) == 1
                               else (problem.left, problem.right))
            if len(single) != 1:
                return f"in case {case.name} neither side is a single component"
            closed = problem.constraints.closure()
            shared = [c for c in mixture if closed.bound(c.label, single[0].label) == 0]
            ratios = {sp.simplify(c.weight / c.weight.subs(symbols.N, start))
                      for c in mixture if c not in shared[:1]}
            if not shared or len(ratios) > 1:
                return (f"in case {case.name} the weights do not shrink towards a component "
                        "shared by both sides")
            (ratio,) = ratios or {sp.Integer(1)}
            if not (sp.diff(ratio, symbols.N)).is_nonpositive:
                return f"in case {case.name} a weight may grow with N"
    return ""


def evaluate(derived: DerivedBound, values: Mapping[str, object]) -> list[list[Term]]:
    """Each case of the bound as numeric terms: every probability's logarithm evaluated from the
    exact parameter values with enough digits to survive cancellation (``N`` may be 10⁹)."""
    exact = numeric_values(derived, values)
    digits = 30 + max((len(str(abs(v.numerator))) + len(str(v.denominator))
                       for v in exact.values()), default=0)
    with mp.workdps(digits):
        logs = _log_values(tuple(sorted(exact.items())), digits)
        cases = []
        for case in derived.cases:
            term_logs = [_probability(logs, p, "term probability") for p, _ in case.terms]
            _check_total(term_logs, f"the term probabilities of case {case.name}",
                         logs.tolerance)
            cases.append([Term(float(log_p), _numeric_problem(problem, logs))
                          for log_p, (_, problem) in zip(term_logs, case.terms)
                          if log_p > -mp.inf])
        return cases


@functools.lru_cache(maxsize=8)
def _log_values(exact: tuple, digits: int) -> LogValues:
    """One evaluator per point and precision, shared by the bounds evaluated there (the cases
    of a group share most of their probabilities)."""
    return LogValues(dict(exact))


def _probability(logs: LogValues, tree: Tree, what: str):
    """``log`` of a probability (``-inf`` for zero); refuses a value outside ``[0, 1]``.
    ``what`` names it in messages (a term probability is shown with its closed form)."""
    def named() -> str:
        return f"{what} {as_text(tree)}" if what == "term probability" else what

    value = logs.log(tree)
    undefined = symbols_of(tree) - set(logs.exact) if value is None else ()
    if undefined:
        raise UnsupportedOperation(
            f"{named()} depends on {', '.join(sorted(undefined))}, whose closed form is "
            "undefined (0/0) at these values")
    if value is None or value > logs.tolerance:
        raise UnsupportedOperation(f"{named()} is not a probability at these values")
    return min(value, mp.mpf(0))


def _numeric_problem(problem: CompiledProblem, logs: LogValues) -> NumericProblem:
    """The problem at these values, without its components of weight zero (a component that
    does not enter the mixture changes nothing; the closure keeps the constraints it implied).
    Kept with the evaluator, which belongs to one point and precision."""
    known = logs.problems.get(id(problem))   # by identity: hashing builds a pattern's bounds
    if known is None or known[0] is not problem:
        known = logs.problems[id(problem)] = (problem, _new_numeric_problem(problem, logs))
    return known[1]


def _new_numeric_problem(problem: CompiledProblem, logs: LogValues) -> NumericProblem:
    left, right = (_side_logs(side, logs) for side in (problem.left, problem.right))
    closed = problem.constraints
    kept = np.flatnonzero(np.concatenate([left, right]) > -math.inf)
    constraints = (closed if len(kept) == len(closed.labels) else ConstraintMatrix(
        tuple(closed.labels[i] for i in kept),
        tuple(tuple(closed.bounds[i][j] for j in kept) for i in kept)))
    return NumericProblem(left[left > -math.inf], right[right > -math.inf], constraints)


def _side_logs(side: tuple, logs: LogValues) -> np.ndarray:
    """The log-weights of one side of a problem, checked to sum to one (once per point for the
    same weights: the cases of a group share their sides)."""
    trees = tuple(weight for _, weight in side)
    if trees not in logs.sides:
        values = [_probability(logs, weight, f"weight of {label}") for label, weight in side]
        _check_total(values, "the mixture weights", logs.tolerance)
        logs.sides[trees] = np.array([float(value) for value in values])
    return logs.sides[trees]


def _check_total(logs: list, what: str, tolerance) -> None:
    """The probabilities sum to one (to the working precision): the bound is well formed."""
    total = mp.fsum(mp.exp(log) for log in logs)
    if abs(total - 1) > tolerance:
        raise UnsupportedOperation(f"{what} sum to {mp.nstr(total, 12)}, not 1, at these values")


@dataclass(frozen=True)
class DerivedSetting:
    """A derived bound with values for its scheme parameters: what ``rdp``, ``adp`` and
    ``account`` evaluate for ``--derivation``."""

    epoch_level = False

    derived: DerivedBound
    values: dict
    origin: dict = field(default_factory=dict, compare=False)
    """What the setting was built from, where a factory built it (truncated Poisson's
    parameters): shown first when it describes itself."""

    _cases: list = field(default_factory=list, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", dict(self.values))
        # evaluated once: every symbol has a value in its range, and the bound evaluates
        self._cases.extend(largest_over_sizes(self.derived, self.values) if "Q" in self.values
                           else evaluate(self.derived, self.values))

    def cases(self) -> list[list[Term]]:
        return list(self._cases)

    def shapes(self) -> list[tuple[int, int]]:
        """``(K₊, K₋)`` of each case."""
        return list(self.derived.shapes)

    @property
    def scheme(self) -> SchemeKind | None:
        return self.derived.scheme_kind

    @property
    def batch_relation(self) -> BatchRelation:
        """The induced distance ``d_Y`` of the bound: the unit of the sensitivity."""
        return self.derived.batch_relation

    @property
    def rate(self) -> float | None:
        """The Poisson rate, where the scheme is Poisson subsampling."""
        if self.scheme is not SchemeKind.POISSON:
            return None
        return float(_exact("r", self.values["r"]))

    @property
    def sampled_fraction(self) -> float | None:
        """``q/N`` without replacement (``q/(Q + 1)``, the largest, for every ``N > Q``)."""
        if self.scheme is not SchemeKind.WOR or "q" not in self.values:
            return None
        size = (_exact("N", self.values["N"]) if "N" in self.values
                else _exact("Q", self.values["Q"]) + 1)
        return float(_exact("q", self.values["q"]) / size)

    def swapped(self) -> "DerivedSetting":
        """The setting with the two datasets of every pair exchanged (001 Thm. 3.4 read in the
        other direction: :meth:`DerivedBound.mirrored`); itself where every case is its own
        mirror."""
        if all(inserted == removed for inserted, removed in self.shapes()):
            return self
        return DerivedSetting(self.derived.mirrored(f"{self.derived.label}, swapped"),
                              self.values, self.origin)

    def relation_key(self) -> tuple:
        """What a step's cases refer to: steps compose only under one relation. The cases are
        the derived bound's (its variant: structural parameters included), whatever the numeric
        values, so phases that differ in them (a rate, a dataset size) compose."""
        return ("derivation", self.derived.name, self.derived.label)

    def with_rate(self, rate: float):
        raise InvalidSpecification("solve_for='rate' needs Poisson sampling given by its rate "
                                   "(Subsampling('poisson', rate=…) or TruncatedPoissonSetting)",
                                   parameter="solve_for")

    def alternative_cases(self) -> dict:
        return {}

    def summary(self) -> str:
        values = ", ".join(f"{k} = {v}" for k, v in self.values.items())
        return f"derivation {self.derived.name} ({self.derived.label}; {values})"

    def describe(self) -> dict:
        return (self.origin | self.derived.describe()
                | {"values": {k: v for k, v in self.values.items()}}
                | ({"bound": self.origin["bound"]} if "bound" in self.origin else {}))


def as_setting(setting):
    """The setting the numbers evaluate: a factory of a bundled derivation's setting (one with
    a ``derived_setting`` method, such as a truncated Poisson setting) gives that setting; any
    other setting is itself."""
    made = getattr(setting, "derived_setting", None)
    return made() if callable(made) else setting


def derived_setting(derivation: Derivation | EpochDerivation,
                    values: Mapping[str, object]) -> DerivedSetting | EpochSetting:
    """A derivation's bound at ``values``: its structural parameters (``K``) choose the variant,
    the others (``r``, ``q``, ``N``, or ``Q`` for the maximum over ``N > Q``) are the values of
    its scheme; a name that is neither is refused with the list of those that are. An
    epoch-level derivation gives its epoch setting (at any ``T``)."""
    from otbound.engine.epoch_derivation import EpochDerivation

    if isinstance(derivation, EpochDerivation):   # derivation.epoch_level
        return _epoch_derived_setting(derivation, values)
    structural = {p.name: p.description for p in derivation.parameters}
    scheme = sorted({str(symbol) for value in derivation.scheme.parameters().values()
                     for symbol in getattr(value, "free_symbols", ())})
    unknown = [name for name in values if name not in {*structural, *scheme, "N", "Q"}]
    if unknown:
        known = ([f"{name} ({description})" for name, description in structural.items()]
                 + [f"{name} (of its scheme)" for name in scheme]
                 + ["N (the dataset size) or Q (the maximum over every N > Q), where the bound "
                    "depends on the dataset size"])
        raise InvalidSpecification(f"derivation {derivation.name!r} has no parameter "
                                   f"{unknown[0]}; its parameters: {'; '.join(known)}",
                                   parameter="param")
    chosen = derivation.at({k: v for k, v in values.items() if k in structural})
    derived = derive_bound(chosen)
    return DerivedSetting(derived, with_definitions(
        chosen, derived, {k: v for k, v in values.items() if k not in structural}))


def _epoch_derived_setting(derivation, values: Mapping[str, object]):
    """An epoch derivation at its structural values (``T``, ``k``) and the values of its
    scheme's symbols (``r``)."""
    from otbound.numerics.epoch_settings import epoch_setting

    structural = {p.name for p in derivation.parameters}
    symbols = derivation.symbols()
    unknown = [name for name in values if name not in structural | symbols]
    if unknown:
        known = ([f"{p.name} ({p.description})" for p in derivation.parameters]
                 + [f"{name} (of its scheme)" for name in sorted(symbols)])
        raise InvalidSpecification(f"derivation {derivation.name!r} has no parameter "
                                   f"{unknown[0]}; its parameters: {'; '.join(known)}",
                                   parameter="param")
    missing = sorted((structural | symbols) - set(values))
    if missing:
        raise InvalidSpecification(f"derivation {derivation.name!r} needs a value for "
                                   f"{missing[0]} (--param {missing[0]}=…)", parameter="param")
    return epoch_setting(derivation, {name: _integer_value(name, values[name])
                                      for name in structural},
                         {name: float(_exact(name, values[name])) for name in symbols})


def _integer_value(name: str, value) -> int:
    number = _exact(name, value)
    if number.denominator != 1 or number < 1:
        raise InvalidSpecification(f"{name} must be an integer >= 1, got {show(value)}",
                                   parameter=name)
    return int(number)


DEFINITION_DIGITS = 40
"""Significant digits of a symbol defined by a closed form (truncated Poisson's ``w`` and
``q̃``): the bound is evaluated at 30 or more digits and then in double precision, so their
error is far below every other rounding."""


def with_definitions(derivation: "Derivation", derived: DerivedBound,
                     values: Mapping[str, object]) -> dict:
    """``values`` with each symbol the derivation defines by a closed form
    (:attr:`Derivation.definitions`) evaluated from them to :data:`DEFINITION_DIGITS`
    significant digits, in place of the values only the closed forms take (``B`` and ``N`` of
    truncated Poisson). A closed form undefined at the values (``0/0``: a rate conditioned on a
    branch of probability zero) leaves its symbol without a value: a term of positive
    probability that needs it is refused, one of probability zero is never evaluated."""
    import sympy as sp

    definitions = derivation.definitions
    if not definitions:
        return dict(values)
    inputs = {str(s) for form in definitions.values() for s in form.free_symbols}
    missing = sorted(inputs - set(values))
    if missing:
        defined = ", ".join(str(symbol) for symbol in definitions)
        raise InvalidSpecification(
            f"derivation {derivation.name!r} defines {defined} from {', '.join(sorted(inputs))}:"
            f" give {missing[0]} a value", parameter="param")
    exact = {name: _exact(name, values[name]) for name in inputs}
    found = {}
    for symbol, form in definitions.items():
        value = form.xreplace({s: sp.Rational(exact[str(s)].numerator, exact[str(s)].denominator)
                               for s in form.free_symbols}).evalf(DEFINITION_DIGITS + 10)
        found[str(symbol)] = str(sp.Float(value, DEFINITION_DIGITS)) if value.is_finite else None
    needed = derived.symbols
    return {k: v for k, v in values.items() if k not in inputs or k in needed} | found
