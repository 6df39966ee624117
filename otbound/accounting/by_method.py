"""Accounting a subsampled mechanism by method: ``tight`` (the engine's dominating pairs, 001,
003 Thm. 3.8), ``agnostic`` (the per-step mechanism-agnostic bounds of
:mod:`otbound.numerics.one_step`, e.g. Wang, Balle & Kasiviswanathan 2019 for sampling without
replacement) or ``posthoc`` (group privacy after the K = 1 bound, :mod:`.posthoc`).

Without replacement, the Gaussian and Laplace mechanisms have no exact solver; ``tight`` then
reports the better of two sound bounds, 001 Prop. E.5's dominating pairs and the agnostic
bound, and says which one it is (``details["method"]``).
"""

from __future__ import annotations

from otbound.accounting import pld
from otbound.accounting.accountant import Guarantee, best_guarantee, check_target, compose
from otbound.accounting.posthoc import posthoc_guarantee
from otbound.accounting.profiles import profile_guarantee
from otbound.accounting.steps import prop_e5_step, subsampled_step
from otbound.accounting.truncated import TruncatedPoissonSetting, truncated_step
from otbound.choices import (DEFAULT_DISCRETISATION, Accountant, Conversion, Method, Posthoc,
                             SchemeKind)
from otbound.errors import UnsupportedOperation, as_choice
from otbound.numerics.mechanisms import Mechanism
from otbound.numerics.one_step import exact
from otbound.numerics.settings import Subsampling

def account_method(setting, mechanism: Mechanism, count: int,
                   method: Method | str = Method.TIGHT,
                   accountant: Accountant | str = Accountant.BEST, *,
                   posthoc: Posthoc | str = Posthoc.BEST, delta: float | None = None,
                   epsilon: float | None = None, conversion: Conversion = Conversion.OPTIMAL,
                   discretisation: float = DEFAULT_DISCRETISATION) -> Guarantee:
    """ε at ``delta`` (or δ at ``epsilon``) after ``count`` steps of ``setting`` (built-in, a
    derivation's, or truncated Poisson: ``tight`` only) with ``mechanism``, bounded by ``method``; ``details["method"]`` names the
    bound used. Where ``tight`` has no exact solver, the smallest of the sound alternatives is
    reported: the relaxed pairs, 001 Prop. E.5's pairs (without replacement), the agnostic
    bound."""
    method = as_choice(Method, method, "method")
    accountant = as_choice(Accountant, accountant, "accountant")
    posthoc = as_choice(Posthoc, posthoc, "posthoc")
    conversion = as_choice(Conversion, conversion, "conversion")
    check_target(delta, epsilon)
    pld.check_discretisation(discretisation)
    options = {"delta": delta, "epsilon": epsilon, "conversion": conversion,
               "discretisation": discretisation}
    if isinstance(setting, TruncatedPoissonSetting):
        if method is not Method.TIGHT:
            raise UnsupportedOperation(f"method='{method.value}' does not apply to truncated "
                                       "Poisson sampling; use method='tight'")
        return _named(compose([truncated_step(setting, mechanism, count)], accountant,
                              **options), "tight")
    step = subsampled_step(setting, mechanism, count)   # checks the inputs, even if unused
    if method is Method.AGNOSTIC:
        return _named(profile_guarantee(setting, mechanism, Method.AGNOSTIC, count, accountant,
                                        **options), "agnostic")
    if method is Method.POSTHOC:
        return _named(posthoc_guarantee(setting, mechanism, count, posthoc, accountant,
                                        **options), "posthoc")
    if exact(step.setting["pairs"]):
        return _named(compose([step], accountant, **options), "tight")
    alternatives = {RELAXED: lambda: _named(compose([step], accountant, **options), RELAXED),
                    "agnostic": lambda: _named(profile_guarantee(
                        setting, mechanism, Method.AGNOSTIC, count, accountant, **options),
                        "agnostic")}
    if isinstance(setting, Subsampling) and setting.scheme is SchemeKind.WOR:
        pairs = prop_e5_step(setting, mechanism, count)
        alternatives[E5_PAIRS] = lambda: _named(compose([pairs], accountant, **options),
                                                E5_PAIRS)
    return best_guarantee(alternatives, delta, what="method")


RELAXED = "tight (relaxed pairs)"
"""``tight``'s fallback where no exact solver applies: the relaxed or product-coupling pairs."""
E5_PAIRS = "tight (001 Prop. E.5 pairs)"
"""The name of ``tight``'s fallback without replacement, in ``details["method"]``."""


def _named(guarantee: Guarantee, method: str) -> Guarantee:
    return Guarantee(guarantee.epsilon, guarantee.delta, guarantee.steps, guarantee.accountant,
                     {"method": method} | guarantee.details)
