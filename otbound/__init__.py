"""otbound: derive, verify and evaluate privacy amplification by subsampling bounds.

The public API (``docs/api.md``, every name with a doctested example): the calls users make and
the types they meet. The building blocks of derivations and audits live in the sub-packages'
surfaces (``docs/building_blocks.md``): ``otbound.engine`` (schemes, relations, events,
couplings, derivations), ``otbound.numerics``, ``otbound.accounting``, ``otbound.verify`` and
``otbound.audit``. Names load on first use, so that ``import otbound`` (and the command line)
start fast; a name that moved to a sub-package still loads from here, with a warning.
"""

from __future__ import annotations

from otbound import moved
from otbound.choices import family_modules
from otbound.surface import surface

EXPORTS = {
    "otbound.numerics.settings": ["Subsampling"],
    "otbound.numerics.epoch_settings": ["BallsInBins", "RandomAllocation", "ShuffledBatches"],
    "otbound.accounting.truncated": ["TruncatedPoissonSetting"],
    "otbound.numerics.mechanisms": ["randomized_response"],
    "otbound.numerics.one_step": ["adp", "rdp"],
    "otbound.numerics.rounding": ["NumericBound"],
    "otbound.numerics.shuffling": ["shuffled_lower_bound"],
    "otbound.accounting.guarantees": ["account", "calibrate"],
    "otbound.accounting.calibrate": ["Calibration"],
    "otbound.accounting.steps": ["subsampled_step"],
    "otbound.accounting.accountant": ["Guarantee", "compose"],
    "otbound.accounting.case_plds": ["step_pld"],
    "otbound.accounting.running": ["RunningAccountant"],
    "otbound.accounting.dp_events": ["DpEventAccountant", "OtboundStepEvent"],
    "otbound.accounting.samplers": ["TorchLoader"],
    "otbound.engine.bundled": ["bundled_derivations", "load_derivation"],
    "otbound.engine.derivation": ["run"],
    "otbound.numerics.derived": ["DerivedSetting", "derive_bound"],
    "otbound.verify.verification": ["verify_derivation"],
    "otbound.audit.judge": ["run_audits"],
    "otbound.choices": ["Accountant", "Conversion", "Method", "Neighbouring"],
    "otbound.errors": ["AuditFileError", "DerivationFileError", "InvalidSpecification",
                       "OtboundError", "UnsupportedOperation"],
}
EXPORTS["otbound.numerics.mechanisms"][-1:-1] = family_modules()   # before randomized_response
"""Module → the names it gives ``otbound``; every noise family module gives a constructor
(``otbound.gaussian``, ``otbound.laplace``, …), found by its file alone
(:func:`otbound.numerics.mechanisms.constructor`)."""

moved.install()   # old module paths keep working
__all__, __getattr__, __dir__ = surface(__name__, EXPORTS, moved.MOVED_NAMES)
