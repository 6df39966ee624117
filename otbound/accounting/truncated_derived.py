"""Truncated Poisson pairs from the derived bounds (:mod:`otbound.engine.truncation`; 002 Thm.
3.1 add/remove, 3.3 zero-out, 3.4 replace-one).

The engine's bound is a public mixture of two branches whose weights are
``w = P[Binom(N − 1, p) ≥ B]`` and whose rates are ``p`` and ``q̃``; the caller evaluates ``w``
and ``q̃`` with scipy (``TruncatedPoissonSetting``), and they are raised by its
``PROBABILITY_ERROR`` (relative), which can only enlarge the bound: a branch's divergence is
non-negative (hockey stick) or at least one (``Ψ_α``), and each branch problem grows with its
rate. The solver registry (:mod:`otbound.numerics.solvers`) turns each branch into dominating
pairs, as for every derivation: replace-one and zero-out branches through its relaxation to one
stretch per chain (their two inserted components' mutual constraint dropped), whose Gaussian
worst case is 002 Thm. 3.4's pair, resp. Thm. 3.3's.
"""

from __future__ import annotations

import functools
import math

from otbound.choices import Neighbouring
from otbound.engine.relations import BatchRelation
from otbound.errors import UnsupportedOperation
from otbound.numerics.mechanisms import Mechanism
from otbound.numerics.solvers import Basis

SOURCES = {Neighbouring.ADD_REMOVE: "002 Thm. 3.1", Neighbouring.ZERO_OUT: "002 Thm. 3.3",
           Neighbouring.REPLACE_ONE: "002 Thm. 3.4"}
"""The relations of truncated Poisson sampling, each derived by the engine, with the theorem its
bound reproduces."""


@functools.lru_cache(maxsize=3)
def derived(neighbouring: Neighbouring = Neighbouring.ADD_REMOVE):
    """The engine's bound as a :class:`DerivedBound` (validity: a generative coupling, for
    every ``N``; confirmed by exact enumeration in the tests)."""
    from otbound.engine import truncation
    from otbound.numerics.derived import DerivedBound

    bound = {Neighbouring.ADD_REMOVE: truncation.derived_bound,
             Neighbouring.ZERO_OUT: truncation.derived_zero_out_bound,
             Neighbouring.REPLACE_ONE: truncation.derived_substitution_bound}[neighbouring]()
    return DerivedBound("002-truncated-poisson", neighbouring.value, bound, False,
                        f"every N (generative coupling; {SOURCES[neighbouring]})",
                        batch_relation(neighbouring),
                        tuple(SHAPES[neighbouring] for _ in bound.cases), None)


SHAPES = {Neighbouring.ADD_REMOVE: (0, 1), Neighbouring.ZERO_OUT: (1, 1),
          Neighbouring.REPLACE_ONE: (1, 1)}
"""``(K₊, K₋)`` of the datasets of each relation's cases (zero-out replaces a record)."""


def batch_relation(neighbouring: Neighbouring) -> BatchRelation:
    """The batches' relation: a record added or removed, or replaced (by another, or by the
    zero record)."""
    return (BatchRelation.INSERTION_REMOVAL if neighbouring is Neighbouring.ADD_REMOVE
            else BatchRelation.SUBSTITUTION)


def derived_cases(rate: float, truncation: float, branch_rate: float, mechanism: Mechanism,
                  margin: float,
                  neighbouring: Neighbouring = Neighbouring.ADD_REMOVE) -> list[list]:
    """Dominating pairs of both cases (the two directions), each a public mixture of branches:
    the bound evaluated at ``p = rate``, ``w = truncation`` and ``q̃ = branch_rate``, the
    scipy-evaluated ``w`` and ``q̃`` raised by the relative ``margin``."""
    from otbound.numerics.derived import evaluate, solved_cases

    values = {"r": rate, "w": truncation,
              "q_trunc": min(branch_rate * (1 + margin), 1.0) if truncation > 0 else 0.0}
    solved, how = solved_cases(evaluate(derived(neighbouring), values), mechanism)
    if how.basis is Basis.AGNOSTIC:
        raise UnsupportedOperation(f"truncated Poisson: {how}")
    raised = math.log1p(margin)
    return [[(log_probability + raised, pairs) for log_probability, pairs in branches]
            for branches in solved]
