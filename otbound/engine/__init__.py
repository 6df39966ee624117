"""The engine: subsampling schemes, neighbouring relations, events, couplings and derivations,
symbolic and exact (../shared/DESIGN.md §3). Derivation files import from here; the shared sympy
symbols are ``otbound.engine.symbols``, and the latent of truncated Poisson sampling that 002's
derivations share is ``otbound.engine.truncated_latent``."""

from otbound.surface import surface

EXPORTS = {
    "otbound.engine.schemes": ["Poisson", "TruncatedPoisson", "WithoutReplacement",
                               "WithReplacement"],
    "otbound.engine.epoch_schemes": ["BallsInBinsEpoch", "PoissonEpoch", "RandomAllocationEpoch",
                                     "ShuffledEpoch", "EPOCH_STEPS", "SELECTED"],
    "otbound.engine.batch_size_family": ["BatchSizeFamily", "enumerable_sizes"],
    "otbound.engine.relations": ["BatchRelation", "GroupInsertionRemoval", "InsertionRemoval",
                                 "InsertRemove", "KFoldSubstitution", "NeighbourPair",
                                 "Substitution", "ZeroOut"],
    "otbound.engine.events": ["AllOf", "CountAtLeast", "CountIs", "Everything", "Not",
                              "contains_none", "contains_some", "count_partition"],
    "otbound.engine.conditionals": ["Case", "ConcreteConditionals", "SizeReference",
                                    "SymbolicConditionals"],
    "otbound.engine.couplings": ["Copy", "Coupling", "DrawIndependently", "InsertInRandomOrder",
                                 "ReplaceGroup", "ReplaceRandomMember", "SwapInRandomOrder"],
    "otbound.engine.multiset_steps": ["ReplaceCopiesInRandomOrder"],
    "otbound.engine.epoch_couplings": ["InsertIntoSteps", "SwapIntoSteps", "SwapThroughHole"],
    "otbound.engine.auto_coupling": ["AUTO", "SearchedCoupling"],
    "otbound.engine.coupling_search": ["search_instance"],
    "otbound.engine.derivation": ["Derivation", "InstanceGrid", "PublicBranch",
                                  "StructuralParameter", "Variant", "run",
                                  "with_searched_couplings"],
    "otbound.engine.public_branch": ["GivenBranch"],
    "otbound.engine.epoch_derivation": ["EpochDerivation", "EpochStatement", "run_epoch"],
    "otbound.engine.bound": ["CaseBound", "Component", "ConstraintMatrix", "MixtureBound",
                             "MixtureProblem", "problem", "statement"],
    "otbound.engine.case_bounds": ["instance_case_bound", "symbolic_case_bound"],
    "otbound.engine.validity": ["Verdict"],
    "otbound.engine.bundled": ["bundled_derivations", "load_derivation", "load_file"],
}
"""Module → the names it gives the engine's surface, in the order a derivation file uses them."""

__all__, __getattr__, __dir__ = surface(__name__, EXPORTS)
