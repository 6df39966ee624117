"""Helpers shared by the command-line tests."""

from otbound.cli import main

# A derivation file built from a bundled one: 001 Prop. E.4 with both couplings copying the batch
# of A1 into events that contain the changed element, so that the marginals are wrong and the
# engine derives no bound for either case (and verify has nothing to sample: it is fast).
BROKEN_COUPLINGS = """
    from dataclasses import replace
    from otbound import Copy, Coupling
    from otbound.engine.catalog import load_derivation

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
