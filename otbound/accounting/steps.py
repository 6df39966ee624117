"""One step of a training run, as the dominating pairs that describe it.

A step's privacy is a maximum over *cases* (e.g. the ``(K₊, K₋)`` of 003 Thm. 3.7, or the two
directions of an add/remove relation), and each case is a public mixture of *branches* (the terms
of a group bound, or the truncated/untruncated branches of seed 002), each with its dominating
pairs. A pair of datasets stays in one case for the whole run, so composition is per case.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from otbound.choices import SchemeKind
from otbound.errors import InvalidSpecification, UnsupportedOperation
from otbound.numerics.limits import MAX_STEPS, show
from otbound.numerics.mechanisms import Mechanism, describe
from otbound.numerics.methods import Branch, tight_branches
from otbound.numerics.settings import Subsampling

StepCase = tuple[Branch, ...]


@dataclass(frozen=True)
class Step:
    """``count`` repetitions of one mechanism whose privacy is ``max_case profile(case)``.

    ``relation`` names the neighbouring relation; steps are composed only when it agrees, so
    that case ``i`` of every step refers to the same pair of datasets.
    """

    cases: tuple[StepCase, ...]
    count: int
    relation: tuple
    setting: dict

    def __post_init__(self) -> None:
        count = self.count
        if (isinstance(count, bool) or not math.isfinite(float(count))
                or not float(count).is_integer() or not 1 <= count <= MAX_STEPS):
            raise InvalidSpecification(
                f"count must be an integer in [1, {MAX_STEPS:.0e}], got {show(count)}",
                parameter="count")
        object.__setattr__(self, "count", int(count))


def subsampled_step(setting: Subsampling, mechanism: Mechanism, count: int) -> Step:
    """A subsampled mechanism with the engine's tight dominating pairs (001, 003 Thm. 3.8).

    Under substitution, where no exact solver exists for a mechanism (the Gaussian and Laplace),
    the dominating pairs of 001 Prop. E.5 are used instead — the labelled mixture over the number
    of substituted elements sampled, each at its worst distance: sound, not tight, and said so in
    the step's description (``"pairs"``)."""
    described = setting.describe() | describe(mechanism)
    try:
        cases = tuple(tuple(tight_branches(terms, mechanism)) for terms in setting.cases())
        described["pairs"] = "tight"
    except UnsupportedOperation as error:
        if setting.scheme is not SchemeKind.WOR:
            raise UnsupportedOperation(
                f"accounting needs the dominating pairs of an exact solver, and there is none "
                f"for the {mechanism.name} mechanism under {setting.summary()} ({error}); "
                "method='agnostic' gives a sound bound") from error
        (terms,) = setting.agnostic_cases()
        cases = (tuple(tight_branches(terms, mechanism)),)
        described["pairs"] = "001 Prop. E.5 (no exact solver; sound, not tight)"
    if setting.scheme is SchemeKind.WOR:
        relation = ("substitution", setting.substitutions)
    else:
        relation = ("insert-remove", tuple(setting.shapes()))
    return Step(cases, count, relation, described)


def derived_step(setting, mechanism: Mechanism, count: int) -> Step:
    """A step whose privacy is a derivation's bound (``--derivation``): its dominating pairs
    from the mechanism's solver, or mechanism-agnostic ones where it has none (said in
    ``"pairs"``)."""
    from otbound.numerics.derived import solved_cases

    cases, how = solved_cases(setting.cases(), mechanism)
    described = setting.describe() | describe(mechanism) | {"pairs": how}
    relation = ("derivation", setting.derived.name, setting.derived.label,
                tuple(sorted((k, str(v)) for k, v in setting.values.items())))
    return Step(tuple(tuple(branches) for branches in cases), count, relation, described)


def check_composable(steps: list[Step]) -> None:
    if not steps:
        raise InvalidSpecification("nothing to compose: give at least one step")
    if len({step.relation for step in steps}) > 1:
        raise InvalidSpecification(
            "steps can only be composed under one neighbouring relation; got "
            + ", ".join(sorted({str(step.relation) for step in steps})))
