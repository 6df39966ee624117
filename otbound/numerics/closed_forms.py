"""The closed forms of a derived bound as data: small expression trees that evaluate without sympy.

A derived bound's probabilities (``1 − r``, ``binom(N − 2, q − 1)/binom(N, q)`` …) are sympy
expressions while the engine works on them; to be evaluated they become trees of tuples —

* ``("number", p, q)`` the rational ``p/q``; ``("symbol", name)``;
* ``("product", a, b, …)``; ``("sum", (sign, a), (sign, b), …)`` with each term ``sign · a``
  and ``a`` free of a leading minus;
* ``("power", base, p, q)`` the rational exponent ``p/q``; ``("binomial", n, k)``;
* ``("other", text)`` anything else, which has no value —

which are plain Python data: a table of bundled bounds stores them (``bound_table``), and a
process that only evaluates never imports sympy. :class:`LogValues` evaluates their logarithms
in mpmath at exact values of the symbols, without forming huge integers.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import TYPE_CHECKING, Mapping

import mpmath as mp

if TYPE_CHECKING:
    import sympy as sp

Tree = tuple


def from_sympy(expr: "sp.Expr") -> Tree:
    """The tree of a sympy expression (the engine's closed forms)."""
    import sympy as sp

    if expr.is_Symbol:
        return ("symbol", str(expr))
    if expr.is_Rational:
        return ("number", int(expr.p), int(expr.q))
    if expr.is_Mul:
        return ("product", *(from_sympy(arg) for arg in expr.args))
    if expr.is_Pow and expr.exp.is_Rational:
        return ("power", from_sympy(expr.base), int(expr.exp.p), int(expr.exp.q))
    if isinstance(expr, sp.binomial):
        return ("binomial", *(from_sympy(arg) for arg in expr.args))
    if expr.is_Add:
        terms = []
        for term in expr.args:
            sign = -1 if term.could_extract_minus_sign() else 1
            terms.append((sign, from_sympy(sign * term)))
        return ("sum", *terms)
    return ("other", str(expr))


@functools.lru_cache(maxsize=1 << 16)
def symbols_of(tree: Tree) -> frozenset[str]:
    """The names of the symbols in ``tree``."""
    kind, *args = tree
    if kind == "symbol":
        return frozenset(args)
    if kind == "sum":
        return frozenset().union(*(symbols_of(term) for _, term in args))
    if kind in ("product", "binomial"):
        return frozenset().union(*(symbols_of(arg) for arg in args))
    if kind == "power":
        return symbols_of(args[0])
    return frozenset()


def exact_value(tree: Tree, values: Mapping[str, Fraction]) -> Fraction | None:
    """The exact value of a small tree (a binomial's arguments, such as ``N − 3``), or ``None``
    where it is not rational."""
    kind, *args = tree
    if kind == "symbol":
        return values.get(args[0])
    if kind == "number":
        return Fraction(args[0], args[1])
    if kind == "sum" or kind == "product":
        found = [exact_value(arg if kind == "product" else arg[1], values) for arg in args]
        parts = [part for part in found if part is not None]
        if len(parts) < len(found):
            return None
        if kind == "product":
            result = Fraction(1)
            for part in parts:
                result *= part
            return result
        return sum((sign * part for (sign, _), part in zip(args, parts)), Fraction(0))
    if kind == "power" and args[2] == 1:
        base = exact_value(args[0], values)
        return None if base is None or (base == 0 and args[1] < 0) else base ** args[1]
    return None


class LogValues:
    """``log`` of trees at exact values of their symbols, as mpmath numbers at the working
    precision (binomials through log-gamma); sub-trees shared by many probabilities
    (``(1 − r)^k``, ``binom(N, q)`` …) are evaluated once."""

    def __init__(self, exact: Mapping[str, Fraction]) -> None:
        self.exact = dict(exact)
        self._memo: dict = {}
        self.problems: dict = {}
        self.sides: dict = {}
        self.tolerance = mp.mpf(10) ** (-mp.mp.dps + 10)
        """The working precision's slack: how far above 0 a probability's logarithm, and how
        far from 1 a sum of probabilities, may come out."""

    def log(self, tree: Tree):
        """``log`` of a positive value (``-inf`` for zero, ``None`` for a negative or
        non-numeric one)."""
        if tree not in self._memo:
            self._memo[tree] = self._log(tree)
        return self._memo[tree]

    def _log(self, tree: Tree):
        kind, *args = tree
        if kind == "symbol":
            value = self.exact.get(args[0])
            return None if value is None else self._log_rational(value)
        if kind == "number":
            return self._log_rational(Fraction(args[0], args[1]))
        if kind == "product":
            parts = [self.log(arg) for arg in args]
            # `is None`, not `None in parts`: that compares every mpf with None (slowly)
            return None if any(part is None for part in parts) else mp.fsum(parts)
        if kind == "power":
            base = self.log(args[0])
            if base is None:
                return None
            exponent = mp.mpf(args[1]) / args[2]
            return -mp.inf if mp.isinf(base) and exponent > 0 else base * exponent
        if kind == "binomial":
            return self._log_binomial(*args)
        if kind == "sum":
            value = mp.mpf(0)
            for sign, term in args:
                logarithm = self.log(term)
                if logarithm is None:
                    return None
                value += sign * mp.exp(logarithm)
            return None if value < 0 else (-mp.inf if value == 0 else mp.log(value))
        return None

    @staticmethod
    def _log_rational(value: Fraction):
        if value <= 0:
            return -mp.inf if value == 0 else None
        return mp.log(mp.mpf(value.numerator) / value.denominator)

    def _log_binomial(self, n_tree: Tree, k_tree: Tree):
        exact_n, exact_k = exact_value(n_tree, self.exact), exact_value(k_tree, self.exact)
        if (exact_n is None or exact_k is None or exact_n.denominator != 1
                or exact_k.denominator != 1):
            return None
        n, k = int(exact_n), int(exact_k)
        if n < 0 or not 0 <= k <= n:
            return None if n < 0 else -mp.inf
        if min(k, n - k) <= 64:
            return mp.log(math.comb(n, k))   # exact, then rounded once
        # log Γ(n + 1) is about n log n: its digits before the point are not the binomial's
        with mp.extradps(len(str(n))):
            value = mp.loggamma(n + 1) - mp.loggamma(k + 1) - mp.loggamma(n - k + 1)
        return +value


def to_sympy(tree: Tree) -> "sp.Expr":
    """The sympy expression of a tree (for printing and for the engine)."""
    import sympy as sp

    kind, *args = tree
    if kind == "symbol":
        return sp.Symbol(args[0])
    if kind == "number":
        return sp.Rational(args[0], args[1])
    if kind == "product":
        return sp.Mul(*(to_sympy(arg) for arg in args))
    if kind == "power":
        return sp.Pow(to_sympy(args[0]), sp.Rational(args[1], args[2]))
    if kind == "binomial":
        return sp.binomial(*(to_sympy(arg) for arg in args))
    if kind == "sum":
        return sp.Add(*(sign * to_sympy(term) for sign, term in args))
    return sp.Symbol(args[0])


def as_text(tree: Tree) -> str:
    """A tree as the engine prints the expression."""
    return str(to_sympy(tree))
