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


def _witness_point() -> dict[sp.Symbol, sp.Rational]:
    """Values of the shared symbols inside every range they are used with (rate in (0, 1),
    dataset sizes far above batch sizes and group sizes up to 32)."""
    from otbound.engine import symbols

    return {symbols.r: sp.Rational(3, 11), symbols.q: sp.Integer(40),
            symbols.N: sp.Integer(128), symbols.n: sp.Integer(96), symbols.m: sp.Integer(7)}


def is_identically_zero(expr: sp.Expr) -> bool:
    """True when ``expr`` simplifies to exactly zero.

    An expression whose exact value is non-zero at one admissible point of its symbols is not
    identically zero: that settles most differences without rewriting."""
    expr = sp.sympify(expr)
    if expr == 0:
        return True
    point = _witness_point()
    if expr.free_symbols <= set(point):
        value = expr.subs(point)
        if value.is_Rational and value != 0:
            return False
    return any(candidate == 0 for candidate in _rewrites(expr))


def _linear(expr: sp.Expr) -> bool:
    """A number, a symbol, or a sum of numbers and number-times-symbol terms (``1 − r``)."""
    terms = expr.args if expr.is_Add else (expr,)
    return all(t.is_Number or t.is_Symbol
               or (t.is_Mul and len(t.args) == 2 and t.args[0].is_Number and t.args[1].is_Symbol)
               for t in terms)


def _plain_product(expr: sp.Expr) -> bool:
    """A product of powers of distinct linear bases or binomials of linear arguments, such as
    ``136 r² (1 − r)¹⁵`` or ``C(N − 3, q − 1) / C(N, q)``."""
    factors = expr.args if expr.is_Mul else (expr,)
    bases = [f.base if f.is_Pow else f for f in factors]
    return len(set(bases)) == len(bases) and all(
        _linear(b) or (isinstance(b, sp.binomial) and all(_linear(a) for a in b.args))
        for b in bases)


def tidy(expr: sp.Expr) -> sp.Expr:
    """A compact, readable form of a probability expression (for printing and comparison)."""
    expr = sp.sympify(expr)
    if _plain_product(expr):
        return expr
    raw = sp.powsimp(expr, force=True)
    expr = sp.powsimp(sp.gammasimp(raw), force=True)
    candidates = [raw, expr, sp.together(expr)]
    if expr.is_rational_function():
        candidates += [sp.cancel(expr), sp.factor(expr)]
    return min(candidates, key=lambda e: (sp.count_ops(e), len(str(e))))
