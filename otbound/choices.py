"""The alternatives a user chooses between, as enums, in a module without dependencies (so that
the command line can offer them without loading numpy, scipy or dp_accounting). Functions that
take one accept the member or its string value, checked by :func:`otbound.errors.as_choice`.
"""

from __future__ import annotations

import pkgutil
from enum import Enum, StrEnum
from pathlib import Path

DEFAULT_DISCRETISATION = 1e-4
"""Default spacing of the PLD accountant's privacy-loss grid."""
DEFAULT_TOLERANCE = 1e-4
"""Default relative width of a calibration's final bracket."""


def family_modules() -> list[str]:
    """The noise family modules of :mod:`otbound.numerics.families` (``gaussian``,
    ``laplace``, …), sorted, read from the package's directory without importing it."""
    where = Path(__file__).parent / "numerics" / "families"
    return sorted(found.name for found in pkgutil.iter_modules([str(where)])
                  if not found.name.startswith("_"))


def mechanism_name(module: str) -> str:
    """The ``--mechanism`` name of a family module: its name with ``-`` for ``_``."""
    return module.replace("_", "-")


def mechanism_choices() -> tuple[str, ...]:
    """The command line's ``--mechanism`` choices: every noise family, and randomized
    response."""
    return (*(mechanism_name(module) for module in family_modules()), "randomized-response")


class SchemeKind(StrEnum):
    """The subsampling schemes of :class:`otbound.Subsampling`."""

    POISSON = "poisson"
    WOR = "wor"
    """Sampling without replacement (fixed batch size)."""


class Method(Enum):
    """How a bound is evaluated: the tight derived bound, a mechanism-agnostic baseline, or
    post-hoc group privacy from the single-element bound (003 Sec. 3.3)."""

    TIGHT = "tight"
    AGNOSTIC = "agnostic"
    POSTHOC = "posthoc"


class Posthoc(Enum):
    """Where ``method='posthoc'`` accounting applies the group privacy property (003 App. C.1.4,
    001 App. B.1): to each step's K = 1 profile (then composed), to the composed K = 1 guarantee
    (once), or to each step's single (ε, δ) pair (then composed exactly); ``BEST`` tries all
    three and reports the smallest answer."""

    BEST = "best"
    STEP_PROFILE = "step-profile"
    COMPOSED = "composed"
    STEP_PAIR = "step-pair"


class Accountant(Enum):
    """Who composes the steps: the better of the two (``BEST``), Rényi DP, or a privacy loss
    distribution."""

    BEST = "best"
    RDP = "rdp"
    PLD = "pld"


class Conversion(Enum):
    """How an RDP curve becomes (ε, δ): the optimal conversion, Balle et al. 2020 or Mironov
    2017."""

    OPTIMAL = "optimal"
    BALLE2020 = "balle2020"
    MIRONOV = "mironov"


class Neighbouring(Enum):
    """The neighbouring relation of truncated Poisson accounting (seed 002)."""

    ADD_REMOVE = "add-remove"
    ZERO_OUT = "zero-out"
    REPLACE_ONE = "replace-one"


class Quantity(Enum):
    """Which number of a privacy guarantee: ``ε(α)`` of Rényi DP, ``δ(ε)``, or ``ε(δ)``; one
    name for it wherever a divergence, a check, a claim or an output is chosen."""

    RDP = "rdp"
    """``ε(α)`` of Rényi DP, at an order ``alpha``."""
    ADP = "adp"
    """``δ(ε)`` of approximate DP (the hockey-stick divergence), at an ``epsilon``."""
    EPSILON = "epsilon"
    """``ε`` at a ``delta``."""

    @property
    def axis(self) -> str:
        """The parameter the quantity's curve runs over."""
        return {"rdp": "alpha", "adp": "epsilon", "epsilon": "delta"}[self.value]

    @property
    def output(self) -> str:
        """The name of the value: ``epsilon`` or ``delta``."""
        return {"rdp": "epsilon", "adp": "delta", "epsilon": "epsilon"}[self.value]

    @property
    def symbol(self) -> str:
        return {"rdp": "ε(α)", "adp": "δ(ε)", "epsilon": "ε(δ)"}[self.value]

    @property
    def renyi(self) -> bool:
        """Whether the quantity is a Rényi divergence (solved by a mechanism's Rényi solvers)."""
        return self is Quantity.RDP

