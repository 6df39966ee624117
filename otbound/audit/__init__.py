"""Audits of published amplification bounds: claims as data, verdicts with witnesses, reports.

This is the surface audit files import from (docs/auditing.md; docs/building_blocks.md lists
it, generated): a :class:`Claim` on a :class:`Domain`, and the references that give each point's
true value with a witness."""

from otbound.surface import surface

EXPORTS = {
    "otbound.audit.claims": ["Claim", "Reference", "grid"],
    "otbound.audit.domain": ["Condition", "Domain", "Point", "choice", "fixed", "integer",
                             "real"],
    "otbound.choices": ["Quantity"],
    "otbound.audit.references": ["conversion", "subsampled"],
    "otbound.audit.reference_rdp": ["pure_group_rdp"],
    "otbound.audit.reference_replacement": ["with_replacement"],
    "otbound.audit.reference_steps": ["composed_poisson_gaussian"],
    "otbound.audit.reference_truncated": ["truncated_poisson"],
    "otbound.audit.reference_wor": ["gaussian_group", "wor_removal", "wor_substitution"],
    "otbound.audit.catalog": ["catalogue_entry"],
    "otbound.audit.judge": ["run_audits"],
}
"""Module → the names it gives the audit's surface."""

__all__, __getattr__, __dir__ = surface(__name__, EXPORTS)
