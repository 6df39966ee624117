"""001 Thm. F.2: sampling without replacement, substitution of datasets, insertion/removal of batches.

Source: Schuchardt et al., ICML 2024 (seed 001), App. F.2 ("hybrid" relations). Status: verified.

Same events and coupling as 001 Thm. 3.6, but the base mechanism is only known to be private
under insertion/removal of batch elements: a substitution is an insertion and a removal, so every
distance bound doubles. Published statement: ``max Ψ_α((1−w) b_{y1} + w b_{y2} ‖ (1−w) b_{y3} +
w b_{y4})`` s.t. ``y1 = y3`` and ``d_±(y1, y2), d_±(y1, y4), d_±(y2, y4) ≤ 2``, with ``w = q/N``.
"""

from pathlib import Path

from otbound.engine import (BatchRelation, Derivation, InstanceGrid, Substitution, Variant,
                            WithoutReplacement, load_file, problem, statement)
from otbound.engine.symbols import N, q

# The events and the coupling are those of 001 Thm. 3.6; only the batch relation changes.
(CASE,) = load_file(Path(__file__).with_name("thm_3_6.py")).variants[0].cases

w = q / N
published = statement(substitution=problem(
    left=[("y1", 1 - w), ("y2", w)], right=[("y3", 1 - w), ("y4", w)],
    constraints={("y1", "y3"): 0, ("y1", "y2"): 2, ("y1", "y4"): 2, ("y2", "y4"): 2}))

DERIVATION = Derivation(
    name="001-thm-F.2",
    source="001 Thm. F.2 (App. F.2)",
    title="sampling without replacement, substitution of datasets / insertion-removal of batches",
    scheme=WithoutReplacement(q),
    batch_relation=BatchRelation.INSERTION_REMOVAL,
    variants=(Variant("K = 1", Substitution(), (CASE,), published),),
    tight=(("randomized-response", "otbound: randomized response sees only whether a batch "
                                   "distance is 0, so doubling the distances leaves 001 Thm. "
                                   "3.7/F.1's worst case f(y) = 1[a ∈ y] (or its "
                                   "complement); checked by the verifier"),),
    grid=InstanceGrid(range(2, 10), tuple({q: v} for v in (1, 2, 3, 4))),
    errata=(
        "The statement names the dataset relation '≃_{S,X}' and then '≃_{Δ,X}'; both mean "
        "substitution.",
    ),
)
