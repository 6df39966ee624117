"""001 Thm. G.2 as printed: the expression of 001 Thm. G.1 stated as *attained*.

Thm. G.2 says that the maximum of 001 Thm. G.1 is reached by a pair of datasets and a binary
function, i.e. that Thm. G.1 is tight. With the reverse term as printed (numerator exponent
``α − 1`` instead of ``α``; see the entry ``schuchardt-2024-thm-g1-printed``) the expression is at
or above the exact divergence everywhere, and above it wherever the printed reverse term's
maximum exceeds the forward term's (for θ ∈ (0, 1)): there no pair attains it, and the equality
is false. The exact value is otbound's tight reference (its construction attains it).

The printed G.1 entry is found through the catalogue (:func:`otbound.audit.catalog.
catalogue_entry`), so that a catalogue given by ``OTBOUND_AUDITS`` is the one read.
"""

from dataclasses import replace

from otbound.audit import catalogue_entry

_, G1_PRINTED = catalogue_entry("schuchardt-2024-thm-g1-printed")

CLAIM = replace(
    G1_PRINTED,
    name="schuchardt-2024-thm-g2-printed",
    title="Randomized response, Poisson group privacy: the printed bound stated as attained",
    citation="Schuchardt et al. 2024 (seed 001), Thm. G.2 (App. G.2), with Thm. G.1 as printed",
    attained=True,
    note="Stated as attained (Thm. G.2). At or above the exact value everywhere, and above it "
         "wherever the printed reverse term's maximum exceeds the forward term's: no pair "
         "attains the value there.",
)
