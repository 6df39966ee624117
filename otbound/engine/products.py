"""Products formed without sympy's general multiplication.

A derivation at a large group size builds hundreds of masses such as ``35 r³ (1 − r)⁴``; sympy's
general product (``Mul.flatten``) is most of its cost. When the factors are powers of distinct
bases, the canonical product is just the factors in sympy's order with the numeric coefficient
first, which these functions build directly. Anything else goes through sympy's product, and a
test checks that both routes give identical expressions.
"""

from __future__ import annotations

import functools

import sympy as sp

_ORDER = functools.cmp_to_key(sp.Basic.compare)


def scaled(count: int, expr: sp.Expr) -> sp.Expr:
    """``count · expr`` for an expression without a numeric factor."""
    factors = expr.args if expr.is_Mul else (expr,)
    if count == 1 or expr.is_Add or any(factor.is_Number for factor in factors):
        return count * expr
    return sp.Mul._from_args((sp.Integer(count),) + factors)


def power_product(*factors: sp.Expr) -> sp.Expr:
    """The product of powers of distinct, non-numeric bases (factors equal to 1 are dropped)."""
    kept = [factor for factor in factors if factor != 1]
    bases = [factor.as_base_exp()[0] for factor in kept]
    if (any(factor.is_Number or factor.is_Mul for factor in kept)
            or any(base.is_Number for base in bases) or len(set(bases)) != len(bases)):
        return sp.Mul(*factors)
    if len(kept) <= 1:
        return kept[0] if kept else sp.Integer(1)
    return sp.Mul._from_args(tuple(sorted(kept, key=_ORDER)))
