"""001 Thm. G.1 with the reverse term's exponent corrected to α (docs/errata.md); the formula and
the reference are those of the entry ``schuchardt-2024-thm-g1-printed``, whose file is found
through the catalogue (:func:`otbound.audit.catalog.catalogue_entry`), so that a catalogue given
by ``OTBOUND_AUDITS`` is the one read."""

import runpy

from otbound.audit import Claim, catalogue_entry

_PRINTED_PATH, _PRINTED_CLAIM = catalogue_entry("schuchardt-2024-thm-g1-printed")
_PRINTED = runpy.run_path(str(_PRINTED_PATH))

CLAIM = Claim(
    name="schuchardt-2024-thm-g1-corrected",
    title="Randomized response, Poisson group privacy (001 Thm. G.1, reverse exponent α)",
    citation="Schuchardt et al. 2024 (seed 001), Thm. G.1 (App. G.2), corrected",
    setting=_PRINTED_CLAIM.setting,
    domain=_PRINTED_CLAIM.domain,
    quantity=_PRINTED_CLAIM.quantity,
    points=_PRINTED_CLAIM.points,
    claimed=lambda p: _PRINTED["g1"](p, reverse_power_offset=0),
    reference=_PRINTED_CLAIM.reference,
    series=_PRINTED_CLAIM.series,
    note="Tight: 001 Thm. G.2's construction attains it.",
)
