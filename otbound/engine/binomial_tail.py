"""The binomial tail ``P[Binom(n, p) ≥ k]`` as a closed form of a derivation's bound.

Truncated Poisson subsampling states its branch probability and rate through such tails (002
Thm. 3.1). As a symbol of its own the tail serves both readers of a closed form: the engine's
exact checks expand it into its finite sum (:meth:`BinomialTail.as_sum`), and the numbers
evaluate it at any precision as a regularised incomplete beta function (``evalf``), which takes
milliseconds where adding the sum's terms at ``n = 60000`` takes minutes.
"""

from __future__ import annotations

import sympy as sp


class BinomialTail(sp.Function):
    """``BinomialTail(n, p, k) = P[Binom(n, p) ≥ k]
    = Σ_{s=k}^{n} C(n, s) p^s (1 − p)^{n−s}``."""

    nargs = 3

    def as_sum(self) -> sp.Sum:
        """The tail as its finite sum (exact at rational ``p`` and integer ``n``, ``k``)."""
        n, p, k = self.args
        s = sp.Dummy("s", integer=True)
        return sp.Sum(sp.binomial(n, s) * p ** s * (1 - p) ** (n - s), (s, k, n))

    def doit(self, deep: bool = True, **hints) -> sp.Expr:
        total = self.as_sum()
        return total.doit(deep=deep, **hints) if deep else total

    def _eval_evalf(self, prec: int):
        import mpmath as mp

        n, p, k = (arg.evalf(prec) for arg in self.args)
        if not all(a.is_number and a.is_real for a in (n, p, k)):
            return None
        with mp.workprec(prec + 10):
            n, p, k = mp.mpf(n), mp.mpf(p), mp.ceil(mp.mpf(k))
            if k <= 0:
                value = mp.mpf(1)
            elif k > n:
                value = mp.mpf(0)
            else:
                value = mp.betainc(k, n - k + 1, 0, p, regularized=True)
            return sp.Float(value, sp.core.evalf.prec_to_dps(prec))

    def _sympystr(self, printer) -> str:
        n, p, k = (printer._print(arg) for arg in self.args)
        return f"P[Binom({n}, {p}) ≥ {k}]"

    def _latex(self, printer) -> str:
        n, p, k = (printer._print(arg) for arg in self.args)
        return rf"\Pr[\mathrm{{Binom}}({n}, {p}) \ge {k}]"
