"""Values the peers publish in their own test suites, transcribed as facts (setting, value, file
and line; no code copied), each with the direction in which otbound must meet it.

One module per source; each defines ``ROWS``, a tuple of :class:`PeerValue`. ``tests/test_peers.py``
runs them (``python -m pytest -k peers``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

DIRECTIONS = ("exact", "upper", "lower", "none")
"""``exact``: the peer's value is the truth (a closed form or an exact computation) known to
``peer_tolerance``; otbound is never below it and at most ``tolerance`` (relative) above.
``upper``: the peer's value is a sound upper bound; otbound is at most ``tolerance`` above it.
``lower``: the peer's value is a sound lower bound of the truth; otbound is never below it.
``none``: otbound cannot be compared (``reason`` says why); not run."""

QUANTITIES = ("rdp", "delta", "epsilon")
"""``rdp``: the Rényi DP of ``steps`` composed steps at order ``at``; ``delta``: δ at ε = ``at``;
``epsilon``: ε at δ = ``at``."""


@dataclass(frozen=True)
class PeerValue:
    """One published value.

    ``setting`` holds the keyword arguments of :class:`otbound.Subsampling` (``scheme``:
    ``"poisson"`` or ``"wor"``; ``rate`` 1 is no subsampling), or ``{"scheme":
    "random-allocation", "steps": T, "selected": k}`` / ``{"scheme": "balls-in-bins", ...}`` for
    epoch-level settings (then ``steps`` counts epochs). ``mechanism`` is ``("gaussian", σ)``,
    ``("gaussian", σ, sensitivity)``, ``("laplace", b)``, ``("laplace", b, sensitivity)`` or
    ``("randomized_response", θ)``. ``accountant`` and ``conversion`` are otbound's (``account``);
    ``where`` is ``path:line`` in the peer's repository (``commit``)."""

    source: str
    where: str
    setting: dict
    mechanism: tuple
    steps: int
    quantity: str
    at: float
    value: float
    direction: str
    peer_tolerance: float = 0.0
    tolerance: float = 1e-6
    accountant: str = "best"
    conversion: str = "optimal"
    reason: str = ""
    commit: str = ""
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.direction not in DIRECTIONS:
            raise ValueError(f"{self.where}: direction {self.direction!r} not in {DIRECTIONS}")
        if self.quantity not in QUANTITIES:
            raise ValueError(f"{self.where}: quantity {self.quantity!r} not in {QUANTITIES}")
        if self.direction == "none" and not self.reason:
            raise ValueError(f"{self.where}: a row that is not compared needs its reason")
        if ":" not in self.where:
            raise ValueError(f"{self.where!r}: where must be path:line")
