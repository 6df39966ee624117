"""Slow checks: every derivation on a larger grid of instances (run with ``pytest -m slow``)."""

from dataclasses import replace
from fractions import Fraction

import pytest

from otbound.engine.bundled import bundled_derivations
from otbound.engine.derivation import InstanceGrid, run
from otbound.engine.epoch_derivation import EpochDerivation
from otbound.engine.symbols import B, q, r

RATES = tuple({r: Fraction(*v)} for v in ((1, 2), (1, 3), (2, 7), (1, 10), (9, 10)))
BATCH_SIZES = tuple({q: v} for v in range(1, 7))


@pytest.mark.slow
@pytest.mark.parametrize("path, derivation", bundled_derivations(),
                         ids=lambda x: getattr(x, "name", ""))
def test_derivation_on_a_larger_grid(path, derivation):
    if isinstance(derivation, EpochDerivation):   # a T the defaults skip (k: half of it)
        report = run(derivation.at({p.name: 6 if p.name == "T" else 3
                                    for p in derivation.parameters}))
        assert report.passed, report.to_text()
        return
    if not derivation.grid.parameters[0]:
        # sampling with replacement: q (and K) are structural and the grid already holds every
        # enumerable N, so the larger check is at the largest structural values offered (a
        # group of K = 2 at q = 4: K = 3 there would take minutes)
        largest = {p.name: p.maximum for p in derivation.parameters}
        report = run(derivation.at(largest | ({"K": 2} if "K" in largest else {})))
        assert report.passed, report.to_text()
        return
    symbol = next(iter(derivation.grid.parameters[0]))
    parameters = RATES if symbol == r else BATCH_SIZES
    if B in derivation.grid.parameters[0]:   # truncated Poisson: every rate at B = 1, 2, 3
        parameters = tuple(rate | {B: cap} for rate in RATES for cap in (1, 2, 3))
    wider = replace(derivation, grid=InstanceGrid(range(1, 12), parameters))
    report = run(wider)
    assert report.passed, report.to_text()
