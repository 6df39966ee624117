"""Helpers shared by the command-line tests."""

from otbound.cli import main

# A derivation file built from a bundled one: 001 Prop. E.4 with both couplings copying the batch
# of A1 into events that contain the changed element, so that the marginals are wrong and the
# engine derives no bound for either case (and verify has nothing to sample: it is fast).
BROKEN_COUPLINGS = """
    from dataclasses import replace
    from otbound.engine import Copy, Coupling
    from otbound.engine.bundled import load_derivation

    base = load_derivation("001-prop-E.4")
    removal, insertion = base.variants[0].cases
    removal = replace(removal, coupling=Coupling("A1", (Copy("A1", "E1"), Copy("A1", "A2"))))
    insertion = replace(insertion, coupling=Coupling("A1", (Copy("A1", "E1"), Copy("A1", "E2"))))
    variant = replace(base.variants[0], cases=(removal, insertion))
    DERIVATION = replace(base, name="broken-couplings", variants=(variant,))
"""


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    """Exit code, standard output and standard error of ``otbound ARGV``."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err

# A user's derivation file: Poisson subsampling under substitution of two elements (x' = x \ g ∪ g'),
# conditioned on how many elements of g (on x) and of g' (on x') the batch holds, coupled by
# inserting each group into one shared batch in a random order. It has no published statement.
POISSON_TWO_SUBSTITUTION = """
    from fractions import Fraction
    from otbound.engine import (BatchRelation, Case, Copy, Coupling, Derivation,
                                InsertInRandomOrder, InstanceGrid, KFoldSubstitution, Poisson,
                                Variant, count_partition)
    from otbound.engine.symbols import r

    relation = KFoldSubstitution(2)
    (pair,) = relation.pairs()
    case = Case(pair, events_x=count_partition("A", pair.removed),
                events_x_prime=count_partition("E", pair.inserted),
                coupling=Coupling("A0", (Copy("A0", "E0"),
                                         InsertInRandomOrder("A0", pair.removed, ("A1", "A2")),
                                         InsertInRandomOrder("E0", pair.inserted, ("E1", "E2")))))
    DERIVATION = Derivation(
        name="poisson-2-substitution", source="a user's derivation",
        title="Poisson subsampling, substitution of two elements",
        scheme=Poisson(r), batch_relation=BatchRelation.INSERTION_REMOVAL,
        variants=(Variant("K = 2", relation, (case,), None),),
        grid=InstanceGrid(range(1, 6), ({r: Fraction(1, 3)},)))
"""

# 001 Thm. 3.6 with a valid coupling that is not d_Y-compatible: y_A2 and y_E2 replace two
# independently drawn members of y_A1, so they may differ in two elements instead of one.
INDEPENDENT_MEMBERS = """
    from dataclasses import replace
    from otbound.engine import Copy, Coupling, ReplaceRandomMember
    from otbound.engine.bundled import load_derivation

    base = load_derivation("001-thm-3.6")
    (case,) = base.variants[0].cases
    coupling = Coupling("A1", (Copy("A1", "E1"), ReplaceRandomMember("A1", ("a",), ("A2",)),
                               ReplaceRandomMember("A1", ("a'",), ("E2",))))
    variant = replace(base.variants[0], cases=(replace(case, coupling=coupling),))
    DERIVATION = replace(base, name="independent-members", variants=(variant,))
"""


def write_derivation(folder, name: str, text: str):
    """``text`` (indented as above) written to ``folder/name.py``; its path."""
    import textwrap

    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(text))
    return path
