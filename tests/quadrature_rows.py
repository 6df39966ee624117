"""What the tests against the high-precision quadratures share: the families a quadrature
applies to, the subsampled group pairs they compare, and which rows run by default."""

import numpy as np
import pytest

from otbound.numerics.families import FAMILIES
from otbound.numerics.noise import LineDensity
from otbound.numerics.pairs import MixturePair
from otbound.verify.high_precision import log_binomial_weights

ON_THE_LINE = [family for family in FAMILIES.values() if isinstance(family, LineDensity)]
"""The families the quadratures apply to (a lattice family's sums are checked exactly in
tests/test_discrete_gaussian.py)."""


def pair(family, scale, inserted, removed, rate) -> MixturePair:
    """A group's pair under Poisson subsampling: ``removed`` records at +1 each, ``inserted``
    at −1 each, every record in the batch with probability ``rate``."""
    return MixturePair(family, scale, np.arange(removed + 1), log_binomial_weights(removed, rate),
                       -np.arange(inserted + 1), log_binomial_weights(inserted, rate))


def some(cases, step: int) -> list:
    """Every ``step``-th case in the default run, all of them in the slow run (a ``step``
    co-prime with the sizes of a grid's axes keeps the default rows varying along each)."""
    return [case if i % step == 0 else pytest.param(*case, marks=pytest.mark.slow)
            for i, case in enumerate(cases)]
