"""003 Thm. 3.7's bound for Poisson subsampling at any ``(K₊, K₋)``, written down as data.

The engine derives ``003-thm-3.7`` for given ``K₊, K₋`` (:func:`otbound.numerics.derived.
derived_bundled`), but its time grows like ``K^3.8`` (212 s at ``K = 256``) while the bound itself
is the theorem's closed form: one case, one term of probability 1, the removed elements' batch
count ``t ~ Binom(K₋, r)`` on the left (``L_{t+1}``), the inserted elements' ``u ~ Binom(K₊, r)``
on the right (``R_{u+1}``), under 003 Thm. 3.7's constraint pattern (:class:`~otbound.numerics.
problems.PatternMatrix`, which is stored as four numbers, not ``(K + 2)²`` bounds).

:func:`insert_remove_bound` writes that form down for any sizes. ``tests/test_bound_table.py``
checks that it is what the engine derives — the same components, weights and constraints — for
every ``K₊ + K₋ ≤ ENGINE_CHECKED``, where the engine's type-level analysis proves it for every
dataset size; above that the bound rests on the theorem, and says so (:attr:`DerivedBound.proof`).
"""

from __future__ import annotations

import functools
import math

from otbound.choices import SchemeKind
from otbound.engine.relations import BatchRelation
from otbound.numerics.closed_forms import Tree
from otbound.numerics.compiled_bound import CompiledCase, CompiledProblem, DerivedBound
from otbound.numerics.problems import PatternMatrix

NAME = "003-thm-3.7"
ENGINE_CHECKED = 8
"""``K₊ + K₋`` up to which the tests compare this form with the engine's derivation."""
ENGINE_PROOF = "every N (type level)"
THEOREM_PROOF = (f"every N (003 Thm. 3.7; the engine derives this same bound for K+ + K- <= "
                 f"{ENGINE_CHECKED})")
_RATE: Tree = ("symbol", "r")
_KEEP: Tree = ("sum", (1, ("number", 1, 1)), (-1, _RATE))


def _power(base: Tree, exponent: int) -> tuple[Tree, ...]:
    return () if exponent == 0 else ((base,) if exponent == 1 else (("power", base, exponent, 1),))


def binomial_weight(trials: int, successes: int) -> Tree:
    """``C(n, k) r^k (1 − r)^(n − k)`` as a tree (factors equal to one left out)."""
    count = math.comb(trials, successes)
    factors = ((("number", count, 1),) if count > 1 else ()) + _power(_RATE, successes) \
        + _power(_KEEP, trials - successes)
    if len(factors) < 2:
        return factors[0] if factors else ("number", 1, 1)
    return ("product", *factors)


@functools.lru_cache(maxsize=1024)
def insert_remove_bound(inserted: int, removed: int) -> DerivedBound:
    """003 Thm. 3.7 at ``K₊ = inserted``, ``K₋ = removed``, labelled as the engine labels it
    (the side of the larger count is ``E``, the other ``A``; the engine derives ``K₊ ≥ K₋`` and
    mirrors the rest)."""
    left_name, right_name = ("A", "E") if inserted >= removed else ("E", "A")
    left = tuple((f"{left_name}{t + 1}", binomial_weight(removed, t)) for t in range(removed + 1))
    right = tuple((f"{right_name}{u + 1}", binomial_weight(inserted, u))
                  for u in range(inserted + 1))
    labels = tuple(label for label, _ in left + right)
    problem = CompiledProblem(left, right, PatternMatrix(inserted, removed, labels=labels))
    checked = inserted + removed <= ENGINE_CHECKED
    return DerivedBound(NAME, f"K+ = {inserted}, K- = {removed}",
                        (CompiledCase("insert-remove", ((("number", 1, 1), problem),)),),
                        False, ENGINE_PROOF if checked else THEOREM_PROOF,
                        BatchRelation.INSERTION_REMOVAL, ((inserted, removed),), SchemeKind.POISSON)


def closed_form(name: str, structural: dict) -> DerivedBound | None:
    """The written-down bound of a bundled derivation, where this module has one."""
    if name != NAME or set(structural) != {"K_plus", "K_minus"}:
        return None
    inserted, removed = structural["K_plus"], structural["K_minus"]
    if not all(isinstance(k, int) and not isinstance(k, bool) and k >= 0
               for k in (inserted, removed)) or inserted + removed == 0:
        return None
    return insert_remove_bound(inserted, removed)
