"""Compositions of a growing run, kept by prefix: after one more step, composing the run costs
one composition, not all of them again (the accountant you step, :mod:`.running`).

A composition is a left fold over the run's steps (PLDs convolved, RDP curves added); the fold
of a prefix is kept and extended in the same order, so the result is the one composing the
whole run at once gives, to the last bit.
"""

from __future__ import annotations

from typing import Any, Callable, Hashable, TypeVar

from otbound.accounting.steps import Step

Folded = TypeVar("Folded")


class Prefixes:
    """Folds over steps, kept by key and extended where the steps extend those folded."""

    def __init__(self) -> None:
        # the folds and values of every key, each of its own type
        self._folds: dict[Hashable, tuple[tuple[Step, ...], Any]] = {}
        self._once: dict[Hashable, tuple[object, Any]] = {}

    def fold(self, key: Hashable, steps: list[Step], one: Callable[[Step], Folded],
             combine: Callable[[Folded, Folded], Folded]) -> Folded:
        """``combine(…combine(one(s₁), one(s₂))…, one(sₙ))``, from the longest kept prefix."""
        value = self._prefix(key, steps)[1]
        for step in self.unfolded(key, steps):
            item = one(step)
            value = item if value is None else combine(value, item)
        self._folds[key] = (tuple(steps), value)
        return value

    def unfolded(self, key: Hashable, steps: list[Step]) -> list[Step]:
        """The steps :meth:`fold` would still call ``one`` on: those after the longest kept
        prefix."""
        return steps[len(self._prefix(key, steps)[0]):]

    def _prefix(self, key: Hashable, steps: list[Step]) -> tuple[tuple[Step, ...], Any]:
        """The steps folded under ``key`` and their fold, where they begin ``steps``."""
        known, value = self._folds.get(key, ((), None))
        if len(known) > len(steps) or any(a is not b for a, b in zip(known, steps)):
            return (), None
        return known, value

    def kept(self, key: Hashable, steps: list[Step]) -> tuple[object, list[object]]:
        """What :meth:`fold` keeps under ``key`` for ``steps``, and what :meth:`once` keeps
        under it for each step's cases (``None`` where nothing), in a form that crosses to
        another process: by position, not identity."""
        return self._folds[key][1], [self._once.get((id(step.cases), key), (None, None))[1]
                                     for step in steps]

    def keep(self, key: Hashable, steps: list[Step], kept: tuple[object, list[object]]) -> None:
        """Keep what :meth:`kept` gave (in another process) as if computed here."""
        fold, ones = kept
        self._folds[key] = (tuple(steps), fold)
        for step, one in zip(steps, ones):
            if one is not None:
                self._once[(id(step.cases), key)] = (step.cases, one)

    def once(self, owner: object, key: Hashable, compute: Callable[[], Folded]) -> Folded:
        """``compute()`` once per ``owner`` (by identity; kept alive with its value) and key."""
        kept = self._once.get((id(owner), key))
        if kept is None or kept[0] is not owner:
            kept = self._once[(id(owner), key)] = (owner, compute())
        return kept[1]
