"""The sympy symbols shared by schemes, derivations and published statements.

Using one set of symbols everywhere lets the engine compare its own result with a statement as
published by plain symbolic subtraction.
"""

import sympy as sp

__all__ = ["r", "q", "N", "n", "m", "B"]

r = sp.Symbol("r", positive=True)
"""Poisson sampling rate, 0 < r < 1."""

q = sp.Symbol("q", integer=True, positive=True)
"""Batch size of fixed-size schemes."""

N = sp.Symbol("N", integer=True, positive=True)
"""Dataset size (which dataset of the pair is fixed by each derivation)."""

n = sp.Symbol("n", integer=True, nonnegative=True)
"""Number of background elements shared by both datasets of a neighbouring pair."""

m = sp.Symbol("m", integer=True, nonnegative=True)
"""Number of background elements in a batch (the free part of a batch type)."""

B = sp.Symbol("B", integer=True, positive=True)
"""Largest batch of truncated Poisson sampling (002 Algorithm 1)."""
