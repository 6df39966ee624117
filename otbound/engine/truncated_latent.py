"""Truncated Poisson subsampling's public latent (002 Sec. 3.1), shared by the derivation files
of 002 Thm. 3.1, 3.3 and 3.4.

Poisson sampling at rate ``r`` keeps a sample ``S``; more than ``B`` kept records are cut to a
uniformly random ``B``. ``T = [|S ∩ background| ≥ B]`` (the other records alone fill the batch)
has the same law on both datasets of a pair, so each bound is a public mixture of the branches
``¬T`` (weight ``1 − w``, the special record kept at rate ``r``) and ``T`` (weight ``w``, kept at
rate ``q̃``). This module holds what the three files share: the scheme, the two symbols and their
closed forms (in the pair's larger dataset size ``N``), the branches, and the grid on which the
engine checks all of it exactly.
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp

from otbound.engine.conditionals import Case, SizeReference
from otbound.engine.derivation_spec import InstanceGrid, PublicBranch
from otbound.engine.public_branch import GivenBranch
from otbound.engine.schemes import TruncatedPoisson
from otbound.engine.symbols import B, N, r

__all__ = ["SCHEME", "w", "q_trunc", "DEFINITIONS", "SIZE_REFERENCE", "GRID", "REMARK",
           "filled_branches"]

w = sp.Symbol("w", nonnegative=True)
"""``P[T]``, the branch probability."""
q_trunc = sp.Symbol("q_trunc", nonnegative=True)
"""``q̃``: the chance that the special record is in the batch given ``T``."""
SCHEME = TruncatedPoisson(r, B)
"""Truncated Poisson sampling at rate ``r`` with batches of at most ``B`` records."""
DEFINITIONS = {w: SCHEME.fill_probability(N), q_trunc: SCHEME.inclusion_when_filled(N)}
"""``w`` and ``q̃`` in closed form, in the larger dataset size ``N`` of the pair."""
GRID = InstanceGrid(range(1, 9), tuple({r: Fraction(*p), B: b}
                                       for p, b in (((1, 2), 1), ((1, 3), 2), ((2, 5), 3))))
"""The instances on which the engine checks the three derivations exactly: ``N = 1, …, 8`` at
three pairs ``(r, B)``."""
SIZE_REFERENCE = SizeReference.LARGER
"""The bounds are stated in the pair's larger dataset size."""
REMARK = ("The branch probability w and the rate q̃ (q_trunc) are symbols of the bound; their "
          "closed forms are checked exactly on every instance, and the numbers evaluate them "
          "from r, B and N (regularised incomplete beta functions) to 40 significant digits.")
"""What the three derivations' reports say of ``w`` and ``q̃``."""


def filled_branches(untruncated: tuple[Case, ...],
                    truncated: tuple[Case, ...]) -> tuple[PublicBranch, PublicBranch]:
    """The public mixture over ``T``: ``untruncated``'s cases given ``¬T``, ``truncated``'s
    given ``T``."""
    return (PublicBranch("¬T (the other records do not fill the batch)", 1 - w,
                         GivenBranch(SCHEME, False, "¬T", r), untruncated),
            PublicBranch("T (the other records alone fill the batch)", w,
                         GivenBranch(SCHEME, True, "T", q_trunc), truncated))
