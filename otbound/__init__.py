"""otbound: derive, verify and evaluate privacy amplification by subsampling bounds.

The public API (``docs/api.md``): every name below is importable from ``otbound``. Names are
loaded on first use, so that ``import otbound`` (and the command line) start fast.

- the engine (``otbound.engine``): schemes, relations, events, couplings, derivations;
- the numbers (``otbound.numerics``): settings, mechanisms, RDP and (ε, δ) by method;
- accounting (``otbound.accounting``): steps, composition, the RDP and PLD accountants;
- verification (``otbound.verify``): exact enumeration, adversarial search, Monte Carlo;
- audits (``otbound.audit``): published claims as data, judged with witnesses.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "otbound.errors": ["AuditFileError", "DerivationFileError", "InternalError",
                       "InvalidSpecification", "OtboundError", "UnsupportedOperation"],
    "otbound.engine.bound": ["CaseBound", "Component", "ConstraintMatrix", "MixtureBound",
                             "MixtureProblem", "problem", "statement"],
    "otbound.engine.conditionals": ["Case", "ConcreteConditionals", "SizeReference",
                                    "SymbolicConditionals"],
    "otbound.engine.auto_coupling": ["AUTO", "SearchedCoupling"],
    "otbound.engine.coupling_search": ["search_instance"],
    "otbound.engine.couplings": ["Copy", "Coupling", "DrawIndependently", "InsertInRandomOrder",
                                 "ReplaceGroup", "ReplaceRandomMember", "SwapInRandomOrder"],
    "otbound.engine.derivation": ["Derivation", "InstanceGrid", "PublicBranch",
                                  "StructuralParameter", "Variant", "run",
                                  "with_searched_couplings"],
    "otbound.engine.public_branch": ["GivenBranch"],
    "otbound.engine.epoch_derivation": ["EpochDerivation", "EpochStatement", "run_epoch"],
    "otbound.engine.epoch_schemes": ["BallsInBinsEpoch", "PoissonEpoch", "RandomAllocationEpoch",
                                     "ShuffledEpoch"],
    "otbound.engine.epoch_couplings": ["InsertIntoSteps", "SwapIntoSteps"],
    "otbound.engine.case_bounds": ["instance_case_bound", "symbolic_case_bound"],
    "otbound.engine.events": ["AllOf", "CountAtLeast", "CountIs", "Everything", "Not",
                              "contains_none", "contains_some", "count_partition"],
    "otbound.engine.relations": ["BatchRelation", "GroupInsertionRemoval", "InsertionRemoval",
                                 "InsertRemove", "KFoldSubstitution", "NeighbourPair",
                                 "Substitution", "ZeroOut"],
    "otbound.engine.schemes": ["Poisson", "TruncatedPoisson", "WithoutReplacement",
                               "WithReplacement"],
    "otbound.engine.validity": ["Verdict"],
    "otbound.engine.bundled": ["bundled_derivations", "load_derivation"],
    "otbound.choices": ["Accountant", "Conversion", "Method", "Neighbouring", "Quantity",
                        "SchemeKind"],
    "otbound.numerics.settings": ["Subsampling"],
    "otbound.numerics.epoch_settings": ["BallsInBins", "EpochSetting", "RandomAllocation",
                                        "ShuffledBatches"],
    "otbound.numerics.shuffling": ["shuffled_lower_bound"],
    "otbound.numerics.problems": ["NumericProblem", "Term"],
    "otbound.numerics.derived": ["DerivedBound", "DerivedSetting", "derive_bound"],
    "otbound.numerics.mechanisms": ["Mechanism", "gaussian", "laplace", "randomized_response"],
    "otbound.numerics.one_step": ["adp", "rdp"],
    "otbound.numerics.rounding": ["NumericBound"],
    "otbound.accounting.steps": ["Step", "subsampled_step"],
    "otbound.accounting.truncated": ["TruncatedPoissonSetting"],
    "otbound.accounting.accountant": ["Guarantee", "compose"],
    "otbound.accounting.running": ["RunningAccountant"],
    "otbound.accounting.guarantees": ["account", "calibrate"],
    "otbound.accounting.calibrate": ["Calibration"],
    "otbound.accounting.case_plds": ["CasePLDs", "step_pld"],
    "otbound.accounting.dp_events": ["DpEventAccountant", "OtboundStepEvent"],
    "otbound.accounting.samplers": ["JaxBallsInBinsSampling", "JaxBMinSepSampling",
                                    "JaxCyclicPoissonSampling", "JaxFixedBatchSampling",
                                    "JaxRandomAllocationSampling", "JaxUserSelection",
                                    "OpacusPoisson", "Sampler", "SamplerMismatchWarning",
                                    "SamplerPlan", "TorchLoader"],
    "otbound.verify.verification": ["verify_derivation"],
    "otbound.verify.verify_report": ["VerifyReport"],
    "otbound.audit.claims": ["Claim", "Reference", "grid"],
    "otbound.audit.judge": ["run_audits"],
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}

importlib.import_module("otbound.moved").install()   # old module paths keep working

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str):
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'otbound' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
