"""Privacy of many steps: RDP composition and conversion, PLD accounting, truncated Poisson.

* :mod:`~otbound.accounting.conversion` — RDP → (ε, δ): Mironov 2017, Balle et al. 2020
  Thm. 21, and the optimal conversion of seed 004 (Bernoulli pairs).
* :mod:`~otbound.accounting.rdp` — composing per-step RDP curves.
* :mod:`~otbound.accounting.pld` — dominating pairs as privacy loss distributions (dp_accounting),
  and :mod:`~otbound.accounting.case_plds`, a step handed to dp_accounting with its cases apart.
* :mod:`~otbound.accounting.truncated` — truncated Poisson sampling (seed 002).
* :mod:`~otbound.accounting.guarantees` — ``account`` and ``calibrate``: any setting by method
  (tight, agnostic, post-hoc) in one call, with
  :mod:`~otbound.accounting.profiles` (per-step curves and profiles composed) and
  :mod:`~otbound.accounting.posthoc` (group privacy after the K = 1 bound, 003 App. C.1.4).
* :mod:`~otbound.accounting.calibrate` — the search for the noise, steps or rate that meet a
  target (ε, δ).

Its surface (docs/building_blocks.md, generated): what ``otbound`` gives users, and the steps,
per-case PLDs and sampler descriptions beside them.
"""

from otbound.surface import surface

EXPORTS = {
    "otbound.accounting.steps": ["Step", "subsampled_step"],
    "otbound.accounting.truncated": ["TruncatedPoissonSetting"],
    "otbound.accounting.accountant": ["Guarantee", "compose"],
    "otbound.accounting.guarantees": ["account"],
    "otbound.accounting.calibrate": ["Calibration"],
    "otbound.accounting.running": ["RunningAccountant"],
    "otbound.accounting.case_plds": ["CasePLDs", "step_pld"],
    "otbound.accounting.dp_events": ["DpEventAccountant", "OtboundStepEvent"],
    "otbound.accounting.samplers": ["JaxBallsInBinsSampling", "JaxBMinSepSampling",
                                    "JaxCyclicPoissonSampling", "JaxFixedBatchSampling",
                                    "JaxRandomAllocationSampling", "JaxUserSelection",
                                    "OpacusPoisson", "Sampler", "SamplerMismatchWarning",
                                    "SamplerPlan", "TorchLoader"],
}
"""Module → the names it gives the accounting's surface (not ``calibrate``, which is also the
name of a module here: ``otbound.calibrate``)."""

__all__, __getattr__, __dir__ = surface(__name__, EXPORTS)
