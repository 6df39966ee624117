"""The worst case of an epoch-level bound: the patterns the engine recognises in a derived
statement (001 Thm. 3.4 and Prop. 3.5 with per-step distance vectors), and why each is the
maximum.

An epoch's base mechanism releases one output per step; step ``t``'s output depends on its own
batch (and, adaptively, on the earlier outputs). Two patterns cover the bundled couplings:

* :class:`PinnedProduct` — one side is a single component ``ŷ₀`` (the epoch without the
  record), the other has a component ``ŷ_S`` for each set ``S`` of steps that can hold the
  record, with weight ``w_S``; per step, ``d_t(ŷ_S, ŷ₀) ≤ [t ∈ S]`` and ``d_t(ŷ_S, ŷ_S') ≤ [t ∈
  S △ S']``. So at step ``t`` every component holding the record has one batch and every other
  the batch of ``ŷ₀``: the mixture is ``Σ_S w_S ⊗_t b_t(· | [t ∈ S])``, and its worst case over
  base mechanisms whose pair at distance 1 is dominated by ``(P₁, P₀)`` is the product mixture
  ``Σ_S w_S ⊗_{t ∈ S} P₁ ⊗_{t ∉ S} P₀`` against ``P₀^{⊗T}`` (:data:`PINNED_PROOF`).
* :class:`DiagonalSteps` — components ``ŷ_At`` and ``ŷ_Et`` (``t = 1 … T``, weight ``1/T`` on
  both sides) whose only bounded distances are ``d_t(ŷ_At, ŷ_Et) ≤ 1`` at step ``t``: joint
  convexity over the diagonal pairs bounds the mixture by one pair at distance 1 in one step —
  the mechanism once, no amplification. Sound, not known to be tight.

Both are stated for every ``T``: they follow from how the couplings draw their outcomes
(:meth:`otbound.engine.epoch_couplings.EpochCoupling.pattern`); the derivations check them
exactly on every instance up to ``T = 8``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import sympy as sp

from otbound.engine.bound import Component


def component_label(prefix: str, steps) -> str:
    """``A2`` for the record in step 2, ``A13`` in steps 1 and 3, ``A0`` in none (or ``E…``)."""
    return prefix + ("".join(map(str, sorted(steps))) if steps else "0")

PINNED_PROOF = (
    "At step t the components that hold the record share one batch and the others share "
    "ŷ₀'s (their per-step distance is 0), so the mixture is Σ_S w_S ∏_t b_t(y_t | y_<t, [t ∈ S]) "
    "against ∏_t b_t(y_t | y_<t, 0). If at every step and history the pair (b_t(· | 0), "
    "b_t(· | 1)) is dominated by (P₀, P₁) in every hockey-stick divergence, Blackwell's theorem "
    "for pairs gives a kernel K_{t, y<t} with K P₀ = b_t(· | 0) and K P₁ = b_t(· | 1); applying "
    "these kernels step by step to a draw of the product mixture Σ_S w_S ⊗_{t∈S} P₁ ⊗_{t∉S} P₀ "
    "(or of P₀^⊗T) produces the mechanism's outputs under every component at once, so by data "
    "processing its divergence, in either direction and for every Rényi or hockey-stick "
    "divergence, is at most the product mixture's. The product mixture is attained (the "
    "mechanism whose step t outputs P₁ when the record is in its batch), so it is the maximum.")
DIAGONAL_PROOF = (
    "Pairing ŷ_At with ŷ_Et (a coupling of the two mixtures, weight 1/T each) and using joint "
    "convexity, the divergence is at most the average over t of the divergence of one pair of "
    "outputs whose batches differ in step t only, by one record: at most that of the "
    "mechanism's worst pair at distance 1, once (sound for adaptive steps, which see that step "
    "only once). No amplification is claimed.")


@dataclass(frozen=True)
class AllocationWeights:
    """``w_S = 1/C(T, k)`` for every ``k``-subset ``S``: random allocation of ``k`` steps."""

    selected: int

    def weight(self, steps: int, chosen: frozenset) -> sp.Expr:
        return (sp.Rational(1, math.comb(steps, self.selected)) if len(chosen) == self.selected
                else sp.Integer(0))

    def sets(self, steps: int):
        return (frozenset(s) for s in itertools.combinations(range(1, steps + 1),
                                                             self.selected))

    def describe(self) -> str:
        return f"uniform over the {self.selected}-subsets of the steps (random allocation)"


@dataclass(frozen=True)
class IndependentWeights:
    """``w_S = r^|S| (1 − r)^(T − |S|)``: the record in every step independently (Poisson)."""

    rate: sp.Expr

    def weight(self, steps: int, chosen: frozenset) -> sp.Expr:
        return self.rate ** len(chosen) * (1 - self.rate) ** (steps - len(chosen))

    def sets(self, steps: int):
        return (frozenset(s) for k in range(steps + 1)
                for s in itertools.combinations(range(1, steps + 1), k))

    def describe(self) -> str:
        return (f"independent steps, each with probability {self.rate} (a product of one-step "
                "mixtures: T steps of Poisson subsampling)")


@dataclass(frozen=True)
class PinnedProduct:
    """The pinned product pattern (module docstring) for ``steps`` steps; ``removal``: the
    mixture is on ``x``'s side (``H(mixture ‖ single)``), else on ``x'``'s."""

    steps: int
    weights: AllocationWeights | IndependentWeights
    removal: bool
    name = "pinned product"
    proof = PINNED_PROOF
    tight = True

    def describe(self) -> str:
        sides = ("Σ_S w_S ⊗_{t∈S} P₁ ⊗_{t∉S} P₀ against P₀^⊗T" if self.removal
                 else "P₀^⊗T against Σ_S w_S ⊗_{t∈S} P₁ ⊗_{t∉S} P₀")
        return (f"pinned product over T = {self.steps} steps, weights "
                f"{self.weights.describe()}: worst case {sides}")

    def measured(self, parts) -> list[tuple[str, str]]:
        """The pairs of components whose distances the pattern bounds: every pair."""
        labels = [part.label for part in parts]
        return list(itertools.combinations(labels, 2))

    def labels(self) -> tuple[str, str]:
        """The prefixes of the mixture's components and the single one's label."""
        return ("A", "E0") if self.removal else ("E", "A0")

    def distances(self) -> dict[frozenset, tuple[int, ...]]:
        """The per-step distance bounds the pattern states, pair by pair."""
        prefix, single = self.labels()
        sets = [s for s in self.weights.sets(self.steps)
                if self.weights.weight(self.steps, s) != 0]
        found = {frozenset({component_label(prefix, s), single}): _indicator(self.steps, s)
                 for s in sets}
        for first, second in itertools.combinations(sets, 2):
            found[frozenset({component_label(prefix, first), component_label(prefix, second)})] \
                = _indicator(self.steps, first ^ second)
        return found

    def components(self) -> tuple[tuple[Component, ...], tuple[Component, ...]]:
        """``(left, right)``: the mixture's components with their weights, and the single one."""
        prefix, single = self.labels()
        mixture = tuple(Component(component_label(prefix, s), self.weights.weight(self.steps, s))
                        for s in self.weights.sets(self.steps))
        alone = (Component(single, sp.Integer(1)),)
        return (mixture, alone) if self.removal else (alone, mixture)

    def to_json(self) -> dict:
        return {"pattern": self.name, "steps": self.steps,
                "weights": self.weights.describe(), "removal": self.removal,
                "worst_case": self.describe(), "tight": self.tight, "proof": self.proof}


@dataclass(frozen=True)
class DiagonalSteps:
    """The diagonal pattern (module docstring) for ``steps`` steps."""

    steps: int
    name = "diagonal, one step each"
    proof = DIAGONAL_PROOF
    tight = False
    removal = None

    def describe(self) -> str:
        return (f"diagonal over T = {self.steps} steps: each pair (ŷ_At, ŷ_Et) differs in one "
                "step by one record: bounded by the mechanism's worst pair at distance 1, once")

    def measured(self, parts) -> list[tuple[str, str]]:
        """The diagonal pairs ``(ŷ_At, ŷ_Et)``, the only ones the bound uses (the statement
        leaves the others unconstrained, which only loosens it)."""
        return [(f"A{t}", f"E{t}") for t in range(1, self.steps + 1)]

    def distances(self) -> dict[frozenset, tuple[int, ...]]:
        return {frozenset({f"A{t}", f"E{t}"}): _indicator(self.steps, {t})
                for t in range(1, self.steps + 1)}

    def to_json(self) -> dict:
        return {"pattern": self.name, "steps": self.steps, "worst_case": self.describe(),
                "tight": self.tight, "proof": self.proof}


EpochPattern = PinnedProduct | DiagonalSteps


def _indicator(steps: int, chosen) -> tuple[int, ...]:
    return tuple(int(t in chosen) for t in range(1, steps + 1))


def holds_on(pattern: EpochPattern, distances: dict[frozenset, tuple[float, ...]]) -> bool:
    """Whether the distances found on the instances are within the pattern's bounds (for every
    pair it bounds; a pinned product bounds every pair, the diagonal its pairs only)."""
    stated = pattern.distances()
    if isinstance(pattern, PinnedProduct) and set(distances) - set(stated):
        return False
    return all(pair in distances and all(a <= b for a, b in zip(distances[pair], bound))
               for pair, bound in stated.items())
