"""001 Thm. G.2 as printed: the expression of 001 Thm. G.1 stated as *attained*.

Thm. G.2 says that the maximum of 001 Thm. G.1 is reached by a pair of datasets and a binary
function, i.e. that Thm. G.1 is tight. With the reverse term as printed (numerator exponent
``α − 1`` instead of ``α``; see ``schuchardt_2024_thm_g1_printed``) the expression exceeds the
exact divergence wherever the reverse term decides the maximum, so no pair attains it: the
equality is false. The exact value is otbound's tight reference (its construction attains it).
"""

from dataclasses import replace

from otbound.audits.schuchardt_2024_thm_g1_printed import CLAIM as G1_PRINTED

CLAIM = replace(
    G1_PRINTED,
    name="schuchardt-2024-thm-g2-printed",
    title="Randomized response, Poisson group privacy: the printed bound stated as attained",
    citation="Schuchardt et al. 2024 (seed 001), Thm. G.2 (App. G.2), with Thm. G.1 as printed",
    attained=True,
    note="Stated as attained (Thm. G.2); above the exact value wherever the printed reverse "
         "term decides the maximum.",
)
