"""001 Prop. E.4 (Zhu & Wang, 2019): Poisson subsampling under insertion/removal of one element.

Source: Schuchardt et al., ICML 2024 (seed 001), App. E.2. Status: verified.

Removal (``x' = x \\ {a}``): condition ``s_x`` on ``A1 = {a ∉ y}`` and ``A2 = {a ∈ y}``, leave
``s_{x'}`` unconditioned (``E1 = Y``); couple by drawing ``y_A1``, setting ``y_E1 = y_A1`` and
inserting ``a`` to get ``y_A2``. Insertion is symmetric. Published intermediate statement (before
the binomial expansion of App. E.2): ``Ψ_α(m_x ‖ m_x')`` is at most the larger of
``max_{y ≃± y'} Ψ_α((1−r) b_y + r b_{y'} ‖ b_y)`` and ``max_{y ≃± y'} Ψ_α(b_y ‖ (1−r) b_y + r b_{y'})``.
"""

from fractions import Fraction

from otbound.engine import (BatchRelation, Case, Copy, Coupling, Derivation, Everything,
                            InsertInRandomOrder, InsertionRemoval, InstanceGrid, Poisson, Variant,
                            contains_none, contains_some, problem, statement)
from otbound.engine.symbols import r

removal, insertion = InsertionRemoval().pairs()

removal_case = Case(
    removal,
    events_x={"A1": contains_none(["a"]), "A2": contains_some(["a"])},
    events_x_prime={"E1": Everything()},
    coupling=Coupling("A1", (Copy("A1", "E1"), InsertInRandomOrder("A1", ("a",), ("A2",)))),
)

insertion_case = Case(
    insertion,
    events_x={"A1": Everything()},
    events_x_prime={"E1": contains_none(["a"]), "E2": contains_some(["a"])},
    coupling=Coupling("A1", (Copy("A1", "E1"), InsertInRandomOrder("A1", ("a",), ("E2",)))),
)

# As published: y is the batch without the element, y' = y ∪ {a} its neighbour.
published = statement(
    removal=problem(left=[("y", 1 - r), ("y'", r)], right=[("y*", 1)],
                    constraints={("y", "y*"): 0, ("y", "y'"): 1}),
    insertion=problem(left=[("y*", 1)], right=[("y", 1 - r), ("y'", r)],
                      constraints={("y", "y*"): 0, ("y", "y'"): 1}),
)

DERIVATION = Derivation(
    name="001-prop-E.4",
    source="001 Prop. E.4 (App. E.2); Zhu & Wang (2019)",
    title="Poisson subsampling, insertion/removal of one element",
    scheme=Poisson(r),
    batch_relation=BatchRelation.INSERTION_REMOVAL,
    variants=(Variant("K = 1", InsertionRemoval(), (removal_case, insertion_case), published),),
    tight=(("gaussian", "001 Thm. 4.2/G.3 with K = 1"),
           ("randomized-response", "001 Thm. G.1/G.2 with K = 1"),
           ("laplace", "003 Thm. M.2 with K = 1 (not in the seeds)")),
    grid=InstanceGrid(range(1, 9), tuple({r: Fraction(*v)} for v in ((1, 2), (1, 3), (2, 7)))),
)
