"""Mutant of dwork-roth-2014-group-adp: (kε, e^{(k−1)ε} δ), the factor k on δ dropped."""

import math
from dataclasses import replace

from otbound import Subsampling, adp, gaussian
from otbound.audit import catalogue_entry


def claimed(point) -> float:
    k = int(point["group"])
    single = point["epsilon"] / k
    delta = adp(Subsampling("poisson", rate=point["rate"], group=1), gaussian(point["sigma"]),
                "tight", [single])[0].value
    return math.exp((k - 1) * single) * delta


_, _BASE = catalogue_entry("dwork-roth-2014-group-adp")
CLAIM = replace(_BASE, name="mutant-group-delta", claimed=claimed, path=None)
