"""Zhu & Wang 2019's Poisson subsampled RDP bound without the factor on the higher-order terms,
for randomized response (ε(l) its exact RDP curve, Mironov 2017); the formula is the Laplace
entry's (``zhu_wang_2019_tight_laplace.py``)."""

import runpy
from pathlib import Path

from otbound import randomized_response
from otbound.audit import Claim, Domain, Quantity, grid, integer, real

_HERE = Path(__file__).parent
_TIGHT = runpy.run_path(str(_HERE / "zhu_wang_2019_tight_laplace.py"))
_GENERAL = runpy.run_path(str(_HERE / "zhu_wang_2019_general_laplace.py"))
_RR = runpy.run_path(str(_HERE / "mironov_2017_randomized_response_rdp.py"))

CLAIM = Claim(
    name="zhu-wang-2019-tight-randomized-response",
    title="Poisson subsampled RDP without the factor on the terms l ≥ 3, randomized response",
    citation="Zhu & Wang 2019, Poisson Subsampled Rényi Differential Privacy (ICML), Thm. 8 "
             "(the bound without the factor, under its χ^l condition), with Mironov 2017's "
             "randomized response RDP",
    setting="Poisson subsampling at rate γ, insertion/removal of one element; randomized "
            "response reporting the bit with probability p",
    domain=Domain((real("p", 0.51, 0.99, log=False), real("rate", 1e-4, 0.9),
                   integer("alpha", 2, 128)),
                  stated="integer α ≥ 2, γ ∈ (0, 1); mechanisms meeting the χ^l condition of "
                         "Thm. 8"),
    quantity=Quantity.RDP,
    points=grid(p=[0.6, 0.9], rate=[0.01, 0.1, 0.3], alpha=[2, 3, 8, 32]),
    claimed=lambda point: _TIGHT["tight_bound"](
        int(point["alpha"]), point["rate"], lambda l: _RR["rr_rdp"](l, point["p"])),
    reference=lambda point: _GENERAL["poisson"](randomized_response(point["p"]), point),
    series=("p", "rate"),
    note="As for the Laplace entry: checked against the authors' autodp, whose experiment "
         "script plots the formula for randomized response as the tight upper/lower bound. "
         "Against otbound's tight K = 1 curve of Poisson subsampled randomized response (both "
         "directions of insertion/removal).",
)
