"""Formulas for people: sympy expressions in mathematical notation, as text and as LaTeX.

:func:`plain` writes ``(1 − r)²``, ``2r(1 − r)`` and ``C(N − 2, q)/C(N, q)`` where sympy's own
printer writes ``(1 - r)**2``, ``2*r*(1 - r)`` and ``binomial(N - 2, q)/binomial(N, q)``; JSON
keeps sympy's form, which :func:`sympy.sympify` reads back. :func:`latex_text` makes a plain
description (a scheme, a relation) safe for LaTeX, its symbols in math mode.
"""

from __future__ import annotations

import re

import sympy as sp
from sympy.printing.str import StrPrinter

_SUPERSCRIPTS = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


class _PlainPrinter(StrPrinter):
    """sympy's string printer with superscript powers, ``C(n, k)`` and a true minus sign;
    products are marked with ``*`` here and written by :func:`plain`."""

    def _print_Pow(self, expr: sp.Pow, rational: bool = False) -> str:
        if expr.exp.is_Integer and expr.exp > 0:
            base = self.parenthesize(expr.base, sp.printing.precedence.PRECEDENCE["Pow"])
            return base + str(expr.exp).translate(_SUPERSCRIPTS)
        return super()._print_Pow(expr, rational)

    def _print_binomial(self, expr: sp.binomial) -> str:
        return f"C({self._print(expr.args[0])}, {self._print(expr.args[1])})"


def plain(expr: object) -> str:
    """``expr`` in Unicode mathematical notation: products by juxtaposition after a number, a
    bracket or a power and before a bracket (``2r(1 − r)``), else by ``·`` (``q·r``); powers as
    superscripts; ``C(n, k)`` for binomials."""
    text = _PlainPrinter().doprint(sp.sympify(expr))
    text = text.replace("**", "^")
    # juxtaposition after a number, a closing bracket or a superscript, and before a bracket;
    # "·" between names
    text = re.sub(r"(?<=[0-9)⁰¹²³⁴⁵⁶⁷⁸⁹])\*(?=[A-Za-z(])|\*(?=\()", "", text)
    text = text.replace("*", "·")
    return re.sub(r"(^|[\s(])-", r"\1−", text).replace(" - ", " − ")


_LATEX_TEXT = (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("#", r"\#"),
               ("_", r"\_"), ("±", r"$\pm$"), ("Δ", r"$\Delta$"), ("∞", r"$\infty$"))

_RELATION = re.compile(r"≃([^\s)]*)")
_SYMBOL_AFTER = re.compile(r"\b(rate|batch size|maximum batch|dataset size) ([A-Za-z])\b")
_ASSIGNMENT = re.compile(r"\b([A-Za-z]) = ([0-9/.∞]+)")


def _relation_symbol(match: re.Match) -> str:
    """``≃2Δ`` → ``$\\simeq_{2\\Delta}$``, ``≃K+,K-`` → ``$\\simeq_{K_+, K_-}$``."""
    index = (match.group(1).replace("Δ", r"\Delta").replace("±", r"\pm")
             .replace("K+", "K_+").replace("K-", "K_-").replace(",", ", "))
    return rf"$\simeq_{{{index}}}$" if index else r"$\simeq$"


def latex_text(text: str) -> str:
    """Plain text made safe for LaTeX, with the relation symbol and the scheme's parameters
    (``rate r``, ``q = 10``) in math mode."""
    symbols = []

    def keep(latex: str) -> str:
        symbols.append(latex)
        return f"\0{len(symbols) - 1}\0"

    text = _RELATION.sub(lambda m: keep(_relation_symbol(m)), text)
    text = _ASSIGNMENT.sub(lambda m: keep(f"${m.group(1)} = {_latex_value(m.group(2))}$"), text)
    text = _SYMBOL_AFTER.sub(lambda m: f"{m.group(1)} " + keep(f"${m.group(2)}$"), text)
    for plain_text, latex in _LATEX_TEXT:
        text = text.replace(plain_text, latex)
    return re.sub("\0([0-9]+)\0", lambda m: symbols[int(m.group(1))], text)


def _latex_value(value: str) -> str:
    return r"\infty" if value == "∞" else value
