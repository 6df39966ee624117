"""Mironov 2017, Table 2 / Prop. 5: randomized response that reports the bit with probability
p > 1/2 has ``ε(α) = log(p^α (1 − p)^{1−α} + (1 − p)^α p^{1−α})/(α − 1)`` (stated exactly)."""

import math
import runpy
from pathlib import Path

from otbound import randomized_response
from otbound.audit import Claim, Domain, Quantity, grid, real

_BASE = runpy.run_path(str(Path(__file__).with_name("mironov_2017_laplace_rdp.py")))


def rr_rdp(alpha: float, p: float) -> float:
    """The formula in logarithms."""
    first = alpha * math.log(p) + (1 - alpha) * math.log1p(-p)
    second = alpha * math.log1p(-p) + (1 - alpha) * math.log(p)
    top = max(first, second)
    return (top + math.log(math.exp(first - top) + math.exp(second - top))) / (alpha - 1)


CLAIM = Claim(
    name="mironov-2017-randomized-response-rdp",
    title="RDP of randomized response (stated exactly)",
    citation="Mironov 2017, Rényi Differential Privacy (CSF), Table 2 and Prop. 5",
    setting="randomized response on one bit, reporting it with probability p (a record's bit "
            "changed between neighbours)",
    domain=Domain((real("p", 0.51, 0.999, log=False), real("alpha", 1.01, 1000.0)),
                  stated="α > 1, p ∈ (1/2, 1)"),
    quantity=Quantity.RDP,
    points=grid(p=[0.6, 0.75, 0.9], alpha=[1.5, 2.0, 8.0, 32.0]),
    claimed=lambda point: rr_rdp(point["alpha"], point["p"]),
    reference=lambda point: _BASE["unsubsampled"](randomized_response(point["p"]),
                                                  point["alpha"]),
    series=("p",),
    attained=True,
    note="Against otbound's tight K = 1 value at rate 1 (the randomized response pair).",
)
