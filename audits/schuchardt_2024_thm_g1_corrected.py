"""001 Thm. G.1 with the reverse term's exponent corrected to α (docs/errata.md); the formula and
the reference are those of ``schuchardt_2024_thm_g1_printed.py``."""

import runpy
from pathlib import Path

from otbound.audit.claims import Claim

_PRINTED = runpy.run_path(str(Path(__file__).with_name("schuchardt_2024_thm_g1_printed.py")))

CLAIM = Claim(
    name="schuchardt-2024-thm-g1-corrected",
    title="Randomized response, Poisson group privacy (001 Thm. G.1, reverse exponent α)",
    citation="Schuchardt et al. 2024 (seed 001), Thm. G.1 (App. G.2), corrected",
    setting=_PRINTED["CLAIM"].setting,
    domain=_PRINTED["CLAIM"].domain,
    quantity=_PRINTED["CLAIM"].quantity,
    points=_PRINTED["POINTS"],
    claimed=lambda p: _PRINTED["g1"](p, reverse_power_offset=0),
    reference=_PRINTED["group_of_one_kind"],
    series=_PRINTED["CLAIM"].series,
    note="Tight: 001 Thm. G.2's construction attains it.",
)
