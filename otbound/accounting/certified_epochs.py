"""Epoch-level accounting in ball arithmetic (``account --certified`` on random allocation and
balls-in-bins): both ends of the bracket from :mod:`otbound.numerics.certified_allocation`, the
worst case over the step's cases, each end rounded the safe way."""

from __future__ import annotations

import math

from otbound.accounting.accountant import ComposeOptions, Guarantee
from otbound.accounting.pld import sole_epoch_pair
from otbound.accounting.steps import subsampled_step
from otbound.choices import Accountant
from otbound.errors import UnsupportedOperation, required
from otbound.numerics.limits import show

CERTIFIED = ("both ends in ball arithmetic (arb): a spread sum's law on a lattice above, a "
             "statistic of the outputs below, composed over the epochs exactly")
"""What ``details["certified_bracket"]`` says of a certified epoch-level guarantee."""


def certified_epochs(setting, mechanism, epochs: int, accountant: Accountant,
                     options: ComposeOptions, lower_end: str) -> Guarantee:
    """ε at ``options["delta"]`` (or δ at ``options["epsilon"]``) after ``epochs`` epochs, the
    upper end certified, with the certified lower end in the details."""
    if accountant is Accountant.RDP:
        raise UnsupportedOperation("certified epoch-level accounting is by PLD (the epochs' "
                                   "insertion RDP carries a measured margin); use "
                                   "accountant='pld' or 'best'")
    if setting.group > 1 or setting.substitution:
        raise UnsupportedOperation("certified epoch-level accounting covers one record's "
                                   "insertion or removal; a group or a substitution is "
                                   "bounded by the fast path only (without --certified)")
    from otbound.numerics.certified_allocation import certified_bracket

    step = subsampled_step(setting, mechanism, epochs)
    found = [sole_epoch_pair(case) for case in step.cases]
    pairs = [pair for pair in found if pair is not None]
    if len(pairs) < len(found):
        raise UnsupportedOperation(f"{setting.summary()} has no certified epoch bracket (it "
                                   "is certified for random allocation and balls-in-bins)")
    brackets = [certified_bracket(pair, epochs, options["discretisation"]) for pair in pairs]
    delta, epsilon = options["delta"], options["epsilon"]
    if delta is not None:
        epsilon = max(bracket.upper.epsilon(delta) for bracket in brackets)
        if not math.isfinite(epsilon):
            raise UnsupportedOperation(f"the certified bracket cannot reach δ = {show(delta)}: "
                                       "more than that mass sits at infinite loss; use a "
                                       "larger delta")
        lower = {"epsilon_lower": max(bracket.lower.epsilon(delta) for bracket in brackets)}
    else:
        epsilon = required(epsilon, "epsilon")   # check_target: one of the two is given
        delta = min(max(bracket.upper.delta(epsilon) for bracket in brackets), 1.0)
        lower = {"delta_lower": max(bracket.lower.delta(epsilon) for bracket in brackets)}
    details = {"method": "tight" if step.tight else "sound (not tight)",
               "bound": step.setting["pairs"], "certified_bracket": CERTIFIED,
               "discretisation": options["discretisation"], "steps_per_epoch":
               setting.steps_per_epoch, "epochs": epochs} | lower | {"lower_end": lower_end}
    return Guarantee(float(epsilon), float(delta), epochs, Accountant.PLD, details)
