"""Deciding whether a symbolic identity holds.

Sympy cannot always reduce a true identity to zero, so :func:`is_identically_zero` tries a short,
fixed sequence of rewrites and answers ``True`` only when one of them yields exactly zero; a
``False`` means "not shown", never "shown false". Powers are combined assuming positive bases,
which holds for every base otbound produces (sampling rates in (0, 1) and their complements,
dataset sizes).
"""

from __future__ import annotations

import sympy as sp


def _rewrites(expr: sp.Expr):
    yield expr
    combined = sp.powsimp(sp.expand_power_exp(expr), force=True)
    yield combined
    gamma = sp.powsimp(sp.gammasimp(combined), force=True)
    yield gamma
    yield sp.simplify(gamma)
    yield sp.simplify(sp.powsimp(sp.expand_func(sp.combsimp(expr)), force=True))


def is_identically_zero(expr: sp.Expr) -> bool:
    """True when ``expr`` simplifies to exactly zero."""
    expr = sp.sympify(expr)
    return any(candidate == 0 for candidate in _rewrites(expr))


def tidy(expr: sp.Expr) -> sp.Expr:
    """A compact, readable form of a probability expression (for printing and comparison)."""
    raw = sp.powsimp(sp.sympify(expr), force=True)
    expr = sp.powsimp(sp.gammasimp(raw), force=True)
    candidates = [raw, expr, sp.together(expr)]
    if expr.is_rational_function():
        candidates += [sp.cancel(expr), sp.factor(expr)]
    return min(candidates, key=lambda e: (sp.count_ops(e), len(str(e))))
