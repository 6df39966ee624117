"""Why the engine's amplified epoch patterns cannot hold for shuffled batches (issue 45): an
exhaustive certificate on instances, and the proof for every instance.

Every amplified epoch-level bound the engine solves (:class:`otbound.engine.epoch_patterns.
PinnedProduct`: Poisson, balls-in-bins, random allocation) rests on one structure of the coupling's
joint draws: at every step, the components of one side show **at most two distinct batches**
(those holding the record share one batch, the others another), so that one dominating pair per
step and history carries the whole mixture (Blackwell's theorem for pairs). For shuffled batches
with the natural events — ``A_t``: "the record is in batch ``t``", ``t = 1 … T`` — no coupling
has a single joint draw with that structure once ``T ≥ 3``:

    Suppose every step ``w`` shows at most two batches among ``ŷ_A1 … ŷ_AT``. ``ŷ_Aw``'s batch
    ``w`` holds the record and no other component's does, so all ``ŷ_At`` (``t ≠ w``) share
    batch ``w``: call it ``B_w`` (``b`` records other than the modified one). Each ``ŷ_At`` is a
    cut of the ``N = T·b`` records, so its batches ``B_v`` (``v ≠ t``) are disjoint; as ``T ≥ 3``,
    any two ``B_v, B_v'`` appear together in some ``ŷ_At`` (``t ∉ {v, v'}``), so all ``T`` of them
    are disjoint: ``T·b = N`` records other than the modified one. There are only ``N − 1``.

(For ``T = 2`` the structure exists: swapping the record with a random member of the other batch
is the whole coupling.) :func:`fewest_batches` confirms the statement by exhaustive search on small
instances, independently of the proof, and finds the fewest distinct batches per step any joint
draw can have (three: a step that sees the record, a displaced record and neither).

    python -m otbound.engine.shuffle_certificate      # the certificate table
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from otbound.engine.epoch_couplings import SwapThroughHole
from otbound.engine.epoch_schemes import Outcome, ShuffledEpoch, held

RECORD = "a"
"""The modified record."""
INSTANCES = ((3, 1), (3, 2), (3, 3), (4, 1), (4, 2), (5, 1))
"""``(T, b)`` searched by the command: every instance whose outcomes stay below a few thousand
per event (``N ≤ 9``)."""


@dataclass(frozen=True)
class DrawSearch:
    """The outcome of searching every joint draw ``(ŷ_A1, …, ŷ_AT)`` of a shuffled epoch for one
    in which every step shows at most ``most`` distinct batches."""

    steps: int
    batch_size: int
    most: int
    visited: int
    """Partial draws the search visited (``ŷ_A1`` fixed: relabelling the other records maps any
    draw to one with that ``ŷ_A1``, and keeps the number of distinct batches of every step)."""
    example: tuple[Outcome, ...] | None
    """A joint draw with the structure, or ``None``: the search was exhaustive, none exists."""


def search_draws(steps: int, batch_size: int, most: int) -> DrawSearch:
    """Exhaustive depth-first search over ``ŷ_A2 … ŷ_AT`` (``ŷ_A1`` fixed, see
    :attr:`DrawSearch.visited`), pruning a partial draw as soon as a step shows more than
    ``most`` batches."""
    records = (RECORD,) + tuple(f"o{i}" for i in range(1, steps * batch_size))
    by_event: dict[int, list[Outcome]] = {t: [] for t in range(1, steps + 1)}
    for outcome in ShuffledEpoch(steps).pmf(records):
        (step,) = held(outcome, RECORD)
        by_event[step].append(outcome)
    visited = 0

    def extend(chosen: tuple[Outcome, ...]) -> tuple[Outcome, ...] | None:
        nonlocal visited
        visited += 1
        if len(chosen) == steps:
            return chosen
        for outcome in by_event[len(chosen) + 1]:
            if all(len({draw[s] for draw in chosen} | {outcome[s]}) <= most
                   for s in range(steps)):
                found = extend(chosen + (outcome,))
                if found is not None:
                    return found
        return None

    example = extend((min(by_event[1], key=_canonical),))
    return DrawSearch(steps, batch_size, most, visited, example)


def _canonical(outcome: Outcome) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(sorted(batch)) for batch in outcome)


def fewest_batches(steps: int, batch_size: int) -> tuple[DrawSearch, ...]:
    """The searches for ``most = 2, 3, …`` up to the first that finds a draw: the last is the
    fewest distinct batches per step that any coupling's draws can have."""
    searches: list[DrawSearch] = []
    for most in range(2, steps + 1):
        searches.append(search_draws(steps, batch_size, most))
        if searches[-1].example is not None:
            break
    return tuple(searches)


def certificate_table(instances=INSTANCES) -> str:
    """One line per instance and bound on the batches per step: found or not, exhaustively."""
    lines = ["| T | b | N | at most … distinct batches per step | joint draws visited | result |",
             "|---|---|---|---|---|---|"]
    for steps, batch_size in instances:
        for search in fewest_batches(steps, batch_size):
            result = ("none exists (exhaustive)" if search.example is None
                      else "exists: " + _draw_text(search.example))
            lines.append(f"| {steps} | {batch_size} | {steps * batch_size} | {search.most} | "
                         f"{search.visited} | {result} |")
    return "\n".join(lines)


def _draw_text(draw: tuple[Outcome, ...]) -> str:
    return "; ".join(f"A{t}: " + " | ".join("{" + ", ".join(sorted(batch)) + "}"
                                          for batch in outcome)
                     for t, outcome in enumerate(draw, start=1))


@dataclass(frozen=True)
class HubCheck:
    """:class:`otbound.engine.epoch_couplings.SwapThroughHole` on one instance, draw by draw."""

    steps: int
    batch_size: int
    draws: int
    own_steps_and_hole: bool
    """Every two components differ only in their own steps and the hole's step (``ŷ_At`` and
    ``ŷ_Et`` in step ``t`` only), in every draw."""
    most_batches: int
    """The most distinct batches a step shows among one side's components (the hole's step:
    one per event)."""


def hole_steps_only(steps: int, batch_size: int) -> HubCheck:
    """Check the hub coupling's per-arrangement pattern exactly on one instance."""
    scheme = ShuffledEpoch(steps)
    others = tuple(f"o{i}" for i in range(1, steps * batch_size))
    draws, holds, most = 0, True, 0
    for _, (hole, drawn) in SwapThroughHole().arranged_draws(scheme, others):
        draws += 1
        for first, second in itertools.combinations(drawn, 2):
            own = {int(first[1:]), int(second[1:])}
            allowed = own if own == {int(first[1:])} else own | {hole}
            differ = {s for s in range(1, steps + 1)
                      if drawn[first][s - 1] != drawn[second][s - 1]}
            holds &= differ <= allowed
        one_side = [outcome for label, outcome in drawn.items() if label.startswith("A")]
        most = max(most, max(len({o[s] for o in one_side}) for s in range(steps)))
    return HubCheck(steps, batch_size, draws, holds, most)


if __name__ == "__main__":
    print(certificate_table())
