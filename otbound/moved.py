"""Module paths and names that moved keep working (issue 46 item 1): derivation and audit files
that users wrote import by path, so an old path gives the module's new home, and a name that
left ``otbound`` for a sub-package's surface still loads from ``otbound``, each with a
``DeprecationWarning`` that names the new place. A path is listed here when a module is renamed;
real modules always win (the finder is consulted after the normal ones)."""

from __future__ import annotations

import importlib
import sys
import warnings
from importlib.machinery import ModuleSpec

MOVED = {
    "otbound.numerics.methods": "otbound.numerics.one_step",
    "otbound.accounting.methods": "otbound.accounting.guarantees",
    "otbound.accounting.by_method": "otbound.accounting.guarantees",
    "otbound.audit.report": "otbound.audit.findings",
    "otbound.audit.runner": "otbound.audit.judge",
    "otbound.engine.catalog": "otbound.engine.bundled",
    "otbound.verify.runner": "otbound.verify.verification",
    "otbound.amplification": "otbound.numerics.one_step",
    "otbound.batches": "otbound.engine.batches",
    "otbound.bound": "otbound.engine.bound",
    "otbound.catalog": "otbound.engine.bundled",
    "otbound.compatibility": "otbound.engine.compatibility",
    "otbound.conditionals": "otbound.engine.conditionals",
    "otbound.coupling": "otbound.engine.couplings",
    "otbound.derivation": "otbound.engine.derivation",
    "otbound.derive": "otbound.engine.case_bounds",
    "otbound.events": "otbound.engine.events",
    "otbound.hockey_stick": "otbound.numerics.hockey_stick",
    "otbound.limits": "otbound.numerics.limits",
    "otbound.mechanisms": "otbound.numerics.mechanisms",
    "otbound.numeric": "otbound.numerics.rounding",
    "otbound.pairs": "otbound.numerics.pairs",
    "otbound.problems": "otbound.numerics.problems",
    "otbound.quadrature": "otbound.numerics.quadrature",
    "otbound.reference": "otbound.verify.high_precision",
    "otbound.relations": "otbound.engine.relations",
    "otbound.renyi": "otbound.numerics.renyi",
    "otbound.report": "otbound.engine.report",
    "otbound.schemes": "otbound.engine.schemes",
    "otbound.simplify": "otbound.engine.simplify",
    "otbound.subsampling": "otbound.numerics.settings",
    "otbound.symbols": "otbound.engine.symbols",
    "otbound.validity": "otbound.engine.validity",
}
"""Old module path → where the module lives now."""


MOVED_NAMES = {name: surface for surface, names in {
    "otbound.engine": ["AUTO", "AllOf", "BallsInBinsEpoch", "BatchRelation", "Case",
                       "CaseBound", "Component", "ConcreteConditionals", "ConstraintMatrix",
                       "Copy", "CountAtLeast", "CountIs", "Coupling", "Derivation",
                       "DrawIndependently", "EpochDerivation", "EpochStatement", "Everything",
                       "GivenBranch", "GroupInsertionRemoval", "InsertInRandomOrder",
                       "InsertIntoSteps", "InsertRemove", "InsertionRemoval", "InstanceGrid",
                       "KFoldSubstitution", "MixtureBound", "MixtureProblem", "NeighbourPair",
                       "Not", "Poisson", "PoissonEpoch", "PublicBranch",
                       "RandomAllocationEpoch", "ReplaceGroup", "ReplaceRandomMember",
                       "SearchedCoupling", "ShuffledEpoch", "SizeReference",
                       "StructuralParameter", "Substitution", "SwapInRandomOrder",
                       "SwapIntoSteps", "SymbolicConditionals", "TruncatedPoisson", "Variant",
                       "Verdict", "WithReplacement", "WithoutReplacement", "ZeroOut",
                       "contains_none", "contains_some", "count_partition",
                       "instance_case_bound", "problem", "run_epoch", "search_instance",
                       "statement", "symbolic_case_bound", "with_searched_couplings"],
    "otbound.numerics": ["DerivedBound", "EpochSetting", "Mechanism", "NumericProblem", "Term"],
    "otbound.accounting": ["CasePLDs", "JaxBMinSepSampling", "JaxBallsInBinsSampling",
                           "JaxCyclicPoissonSampling", "JaxFixedBatchSampling",
                           "JaxRandomAllocationSampling", "JaxUserSelection", "OpacusPoisson",
                           "Sampler", "SamplerMismatchWarning", "SamplerPlan", "Step"],
    "otbound.verify": ["VerifyReport"],
    "otbound.audit": ["Claim", "Quantity", "Reference", "grid"],
    "otbound.choices": ["SchemeKind"],
    "otbound.errors": ["InternalError"],
}.items() for name in names}
"""Names ``otbound`` exported before its surface became what users call (issue 46) → the
surface that has them now; ``otbound.NAME`` still loads them, with a ``DeprecationWarning``."""


class MovedModules:
    """Finds an old path of :data:`MOVED` and loads it as the module's new home (a meta path
    finder and its loader; ``importlib.abc`` is not imported: it costs ``import otbound`` 25
    ms)."""

    def find_spec(self, name, path=None, target=None):
        # a loader by protocol (create_module, exec_module), not an importlib.abc.Loader
        return ModuleSpec(name, self) if name in MOVED else None  # type: ignore[arg-type]

    def create_module(self, spec):
        new = MOVED[spec.name]
        warnings.warn(f"{spec.name} has moved to {new}; import it from there (or the name from "
                      "otbound itself, docs/api.md): the old path will be removed",
                      DeprecationWarning, stacklevel=2)
        return importlib.import_module(new)

    def exec_module(self, module) -> None:
        """The module is the new one, already executed."""


def install() -> None:
    """Put the finder after the normal ones (once)."""
    if not any(isinstance(finder, MovedModules) for finder in sys.meta_path):
        sys.meta_path.append(MovedModules())
