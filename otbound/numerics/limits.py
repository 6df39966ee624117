"""The ranges in which otbound evaluates soundly and in bounded time and memory.

Inputs outside them are refused with a message naming the argument, its value and the range
(checked where the inputs enter: settings, mechanisms, orders, ε, steps, PLD grids). Each limit
is far beyond practical use; it keeps every intermediate value finite and every command fast.
"""

MAX_GROUP = 512
"""Largest Poisson group K (insertions + removals): the tight bound has ``K + 1`` cases of up to
``K + 2`` mixture components each, so the cost grows as K² (measured on 2 cores: ``account
--group 256 --steps 1000`` in 8–11 s, the tight RDP curve at K = 256 in 2.5–3.7 s)."""

MAX_EPOCH_GROUP = 256
"""Records per user under an epoch-level scheme (each allocated independently)."""

MAX_SUBSTITUTIONS = 32
"""Largest number of substitutions without replacement: beyond the table of bundled bounds
(K ≤ 8) the engine derives the bound, in time growing steeply with K."""

MAX_ALPHA = 1e4
"""Largest Rényi order."""

MAX_EPSILON = 1000.0
"""Largest ε for δ(ε) (δ is then below 1e-400 for every supported mechanism)."""

MAX_STEPS = 10 ** 9
"""Largest number of composed steps."""

NOISE_MULTIPLIER = (0.1, 1e6)
"""Range of σ/L (Gaussian) and b/L (Laplace): the noise in units of the sensitivity."""

DISCRETISATION_RANGE = (1e-7, 1.0)
"""Range of the PLD loss grid spacing."""

MAX_PLD_POINTS = 2 ** 25
"""Largest PLD (grid points of one step's loss distribution, and of the composition)."""


def show(value) -> str:
    """A number as the user typed it (shortest round-trip form, no numpy wrapper)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return repr(value)
    return str(int(number)) if number.is_integer() and abs(number) < 1e16 else repr(number)
