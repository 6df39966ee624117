"""Products formed directly are the expressions sympy's own product gives (same arguments, so
equal, with equal hashes and printing)."""

import itertools

import pytest
import sympy as sp

from otbound.engine.products import power_product, scaled
from otbound.engine.symbols import N, n, q, r

FACTORS = ([r ** a for a in range(4)] + [(1 - r) ** b for b in range(4)]
           + [sp.binomial(n, 3), N ** 2, 1 / N, sp.Rational(1, 2), r + 1, 2 * r, q, 2 ** r])


def same(mine: sp.Expr, theirs: sp.Expr) -> bool:
    return mine == theirs and mine.args == theirs.args and str(mine) == str(theirs)


@pytest.mark.parametrize("a, b", list(itertools.product(FACTORS, repeat=2)))
def test_power_product_is_sympys_product(a, b):
    assert same(power_product(a, b), sp.Mul(a, b))


@pytest.mark.parametrize("count", [1, 2, 35, 10 ** 12])
@pytest.mark.parametrize("expr", FACTORS + [r ** 3 * (1 - r) ** 5, sp.binomial(N, q) / N,
                                            (r + 1) * (r + 2)])
def test_scaled_is_sympys_product(count, expr):
    assert same(scaled(count, expr), count * expr)
