"""otbound: derive, verify and evaluate privacy amplification by subsampling bounds.

The public names are re-exported here; see ``docs/`` for the mathematics and the architecture.
"""

from otbound.bound import (CaseBound, Component, ConstraintMatrix, MixtureBound, MixtureProblem,
                           problem, statement)
from otbound.conditionals import Case, ConcreteConditionals, SizeReference, SymbolicConditionals
from otbound.coupling import (Copy, Coupling, DrawIndependently, InsertInRandomOrder, ReplaceGroup,
                              ReplaceRandomMember)
from otbound.derivation import Derivation, InstanceGrid, Variant, run
from otbound.derive import instance_case_bound, symbolic_case_bound
from otbound.errors import (DerivationFileError, InvalidSpecification, OtboundError,
                            UnsupportedOperation)
from otbound.events import (AllOf, CountAtLeast, CountIs, Everything, Not, contains_none,
                            contains_some, count_partition)
from otbound.relations import (BatchRelation, GroupInsertionRemoval, InsertionRemoval,
                               InsertRemove, KFoldSubstitution, NeighbourPair, Substitution)
from otbound.schemes import Poisson, TruncatedPoisson, WithoutReplacement, WithReplacement
from otbound.validity import Verdict

__all__ = [
    "AllOf", "BatchRelation", "Case", "CaseBound", "Component", "ConcreteConditionals",
    "ConstraintMatrix", "Copy", "CountAtLeast", "CountIs", "Coupling", "Derivation",
    "DerivationFileError", "DrawIndependently", "Everything", "GroupInsertionRemoval",
    "InsertInRandomOrder", "InsertRemove", "InsertionRemoval", "InstanceGrid",
    "InvalidSpecification", "KFoldSubstitution", "MixtureBound", "MixtureProblem", "NeighbourPair",
    "Not", "OtboundError", "Poisson", "ReplaceGroup", "ReplaceRandomMember", "SizeReference",
    "Substitution", "SymbolicConditionals", "TruncatedPoisson", "UnsupportedOperation", "Variant",
    "Verdict", "WithReplacement", "WithoutReplacement", "contains_none", "contains_some",
    "count_partition", "instance_case_bound", "problem", "run", "statement", "symbolic_case_bound",
]
