"""Truncated Poisson pairs from the bundled derivations (``derivations/truncated_*.py``: 002
Thm. 3.1 add/remove, 3.3 zero-out, 3.4 replace-one).

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

import math

from otbound.choices import Neighbouring
from otbound.errors import UnsupportedOperation
from otbound.numerics.mechanisms import Mechanism
from otbound.numerics.solvers import Basis

SOURCES = {Neighbouring.ADD_REMOVE: "002 Thm. 3.1", Neighbouring.ZERO_OUT: "002 Thm. 3.3",
           Neighbouring.REPLACE_ONE: "002 Thm. 3.4"}
"""The relations of truncated Poisson sampling, each derived by the engine, with the theorem its
bound reproduces."""


DERIVATIONS = {Neighbouring.ADD_REMOVE: "002-thm-3.1", Neighbouring.ZERO_OUT: "002-thm-3.3",
               Neighbouring.REPLACE_ONE: "002-thm-3.4"}
"""The bundled derivation of each relation (``derivations/truncated_*.py``)."""


def derived(neighbouring: Neighbouring = Neighbouring.ADD_REMOVE):
    """The bundled derivation's bound, a :class:`DerivedBound` (valid on its grid's instances
    exactly, and for every N by its generative coupling)."""
    from otbound.numerics.derived import bundled

    return bundled(DERIVATIONS[neighbouring])


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
