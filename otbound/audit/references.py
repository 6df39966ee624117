"""What otbound holds a claim to: its bound, and a construction whose exact divergence meets it.

* :func:`subsampled` — a built-in setting (Poisson, group or not; sampling without replacement)
  through the one pipeline. Where the mechanism's solver is tight, each case's dominating pair is
  the output distribution of a concrete pair of datasets and a concrete ``f`` (001 F.1, G.2, G.3,
  003 M.3): its divergence, less its error, is the lower end, and the high-precision oracle
  confirms it independently. Elsewhere only the upper end is known.
* :func:`conversion` — the optimal RDP → (ε, δ) conversion of seed 004, attained by a Bernoulli
  pair that satisfies the RDP constraint.
"""

from __future__ import annotations

import contextlib
import contextvars
import math

import numpy as np

from otbound.audit.claims import Reference, Witness
from otbound.choices import Quantity, SchemeKind
from otbound.errors import Refusal, granted, required
from otbound.numerics.mechanisms import Mechanism, describe
from otbound.numerics.pairs import FinitePair, MixturePair
from otbound.numerics.settings import Subsampling


_CONSTRUCTIONS_ONLY = contextvars.ContextVar("constructions_only", default=False)


@contextlib.contextmanager
def constructions_only():
    """References computed inside need only their lower end (the audit's search): where there
    is no construction, :func:`subsampled` refuses at once instead of computing otbound's
    bound (a certified three-point maximum takes seconds)."""
    token = _CONSTRUCTIONS_ONLY.set(True)
    try:
        yield
    finally:
        _CONSTRUCTIONS_ONLY.reset(token)


def constructions_only_mode() -> bool:
    """Whether references are being computed for their lower end only
    (:func:`constructions_only`)."""
    return _CONSTRUCTIONS_ONLY.get()


def subsampled(setting: Subsampling, mechanism: Mechanism, quantity: Quantity,
               at: float) -> Reference:
    """otbound's value of ``ε(α)`` (``quantity`` RDP, ``at = α``) or ``δ(ε)`` (ADP) for the
    setting, with the worst case that attains it where the solver is tight
    (:func:`subsampled_reference`, its refusal raised)."""
    return granted(subsampled_reference(setting, mechanism, quantity, at))


def subsampled_reference(setting: Subsampling, mechanism: Mechanism, quantity: Quantity,
                         at: float) -> Reference | Refusal:
    """:func:`subsampled`'s reference, or the refusal of :func:`constructions_only` mode where
    the setting has no single worst-case construction, or, where it has none and neither of
    otbound's tight and agnostic bounds answers, the agnostic bound's refusal."""

    candidates: list[tuple[object, np.ndarray, tuple[str, tuple[tuple[str, ...], ...],
                                                     tuple[str, ...]]]] = []
    for where, sides, terms in _named_cases(setting):
        # a mixture over constraint profiles, or a pattern without an exact worst case: no
        # single construction, otbound's bound only
        if len(terms) != 1 or mechanism.cannot_solve(terms[0].problem) is not None:
            candidates = []
            break
        problem = terms[0].problem
        candidates += [(pair, values, (where, sides, problem.constraints.labels))
                       for pair, values in mechanism.worst_components(problem)]
    if not candidates:
        if constructions_only_mode():
            return Refusal("no single worst-case construction")
        return _own_bound(setting, mechanism, quantity, at)
    judged = [(_divergence(pair, quantity, at), pair, values, where)
              for pair, values, where in candidates]
    upper = max(entry[0].value for entry in judged)
    bound, pair, on_components, where = max(judged,
                                            key=lambda entry: entry[0].value - 2 * entry[0].error)
    lower = math.nextafter(bound.value - 2 * bound.error, -math.inf)
    scale = 1 / (at - 1) if quantity is Quantity.RDP else 1.0
    return Reference(upper * scale, max(lower, 0.0) * scale,
                     _witness(setting, *where, mechanism, pair, on_components),
                     lambda: _precise(pair, quantity, at) * scale)


def _own_bound(setting: Subsampling, mechanism: Mechanism, quantity: Quantity,
               at: float) -> Reference | Refusal:
    """The smaller of otbound's sound bounds, tight (e.g. 001 Thm. 3.6's certified three-point
    bound) and agnostic, as a reference with no lower end; each method's refusal is a value
    (:func:`~otbound.numerics.one_step.rdp_or_refusal`): one that refuses is left out, and
    where both do, the agnostic bound's refusal is the answer."""
    from otbound.numerics.one_step import adp_or_refusal, rdp_or_refusal

    evaluate = rdp_or_refusal if quantity is Quantity.RDP else adp_or_refusal
    answers = {method: evaluate(setting, mechanism, method, [at])
               for method in ("tight", "agnostic")}
    refusals = {method: found for method, found in answers.items()
                if isinstance(found, Refusal)}
    values = {method: found[0] for method, found in answers.items()
              if not isinstance(found, Refusal)}
    if not values:
        return refusals["agnostic"]
    method = min(values, key=lambda m: values[m].value)
    return Reference(values[method].value, None,
                     f"otbound's {method} bound; no single worst-case construction",
                     published=_published(values[method].source))


def _published(source: str) -> str:
    """``source`` if it names one of the published bounds otbound compares with, else ``""``."""
    from otbound.numerics.baselines import BASELINES

    return source if any(b.name in source for b in BASELINES) else ""


def _divergence(pair, quantity: Quantity, at: float):
    from otbound.numerics.hockey_stick import hockey_stick
    from otbound.numerics.renyi import log_psi

    return log_psi(pair, at) if quantity is Quantity.RDP else hockey_stick(pair, at)


def _precise(pair, quantity: Quantity, at: float) -> float:
    """The pair's divergence by an independent high-precision evaluation (``log Ψ`` or ``δ``):
    50-digit sums for finite pairs, the tanh-sinh oracle for mixtures."""
    from otbound.verify.high_precision import precise_hockey_stick, precise_log_psi

    if isinstance(pair, FinitePair):
        import mpmath as mp

        with mp.workdps(50):
            p, q = ([mp.mpf(float(v)) for v in side] for side in (pair.p, pair.q))
            if quantity is Quantity.RDP:
                return float(mp.log(mp.fsum(a ** at * b ** (1 - at)
                                            for a, b in zip(p, q) if a > 0)))
            return float(mp.fsum(max(a - mp.e ** at * b, 0) for a, b in zip(p, q)))
    if quantity is Quantity.RDP:
        return float(precise_log_psi(pair, at)[0])
    return float(precise_hockey_stick(pair, at)[0])


def _named_cases(setting: Subsampling):
    """``(where, sides, terms)`` for every case of the setting's bundled derivations, ``where``
    naming the derivation, its structural parameters and the case, ``sides`` the labels of
    the components of the case's first mixture problem on each side (all of them, in order:
    the component at position ``k`` is the event that the batch holds ``k`` of that side's own
    records, in 003 Thm. 3.7 and in the without-replacement group derivation)."""
    from otbound.numerics.derived import bundled, evaluate

    for name, structural in setting.derivations():
        derived = bundled(name, **structural)
        shown = ", ".join(f"{k} = {v}" for k, v in structural.items())
        for case, terms in zip(derived.cases, evaluate(derived, setting.values())):
            problem = case.terms[0][1]
            sides = tuple(tuple(label for label, _ in side)
                          for side in (problem.left, problem.right))
            yield f"{name} ({shown}), case {case.name}", sides, terms


def _witness(setting: Subsampling, where: str, sides: tuple[tuple[str, ...], ...],
             kept: tuple[str, ...], mechanism: Mechanism, pair, values: np.ndarray) -> Witness:
    """The construction as data: ``x`` holds the records ``r_i`` that ``x'`` lacks, ``x'`` the
    records ``i_j`` (inserted) or ``s_j`` (substituted) that ``x`` lacks (under Poisson
    subsampling records common to both change nothing and are left out; without replacement
    the other ``N − K`` records are listed as common); the mixture's component ``k`` on
    either side is the event that the batch holds ``k`` of that side's own records, and ``f``
    takes the construction's value there. ``kept`` are the components of positive
    probability, in the order of ``values``."""
    value_of = dict(zip(kept, (float(v) + 0.0 for v in values)))   # + 0.0: no "-0"
    on_x, on_x_prime = (tuple(value_of.get(label) for label in side) for side in sides)
    own = "i" if setting.scheme is SchemeKind.POISSON else "s"   # inserted / substituted
    function = (f"{count_table(on_x, 'of the r_i')} (y ⊆ x); "
                f"{count_table(on_x_prime, f'of the {own}_j')} (y ⊆ x')")
    removed, inserted = len(on_x) - 1, len(on_x_prime) - 1
    if setting.scheme is SchemeKind.POISSON:
        sampling, common = f"Poisson, each record kept with probability {setting.rate:g}", 0
    else:
        sampling = (f"without replacement, {setting.batch_size} of the {setting.dataset_size} "
                    "records, every batch equally likely")
        common = required(setting.dataset_size, "the dataset size") - removed
    return Witness(tuple(f"r{i}" for i in range(1, removed + 1)),
                   tuple(f"{own}{j}" for j in range(1, inserted + 1)), sampling, function,
                   mechanism_text(mechanism), outputs_text(pair),
                   f"{where}; worst case: {mechanism.worst_case_source}",
                   (on_x, on_x_prime), common)


def count_table(values: tuple[float | None, ...], counted: str) -> str:
    """``f`` by how many records (or copies) ``counted`` a batch holds, ``—`` for a count no
    batch has."""
    shown = ", ".join("—" if v is None else f"{v:.6g}" for v in values)
    return f"({shown}) on batches holding 0, 1, … {counted}"


def mechanism_text(mechanism: Mechanism) -> str:
    """The mechanism and its parameters, as a witness shows them."""
    described = dict(describe(mechanism))
    name = described.pop("mechanism", mechanism.name)
    return f"{name} ({', '.join(f'{k} = {v}' for k, v in described.items())})"


def outputs_text(pair) -> str:
    """The output distributions of a construction, in words."""
    if isinstance(pair, MixturePair):
        def side(means, logs):
            return " + ".join(f"{math.exp(w):.6g}·D({m + 0.0:.6g})" for m, w in zip(means, logs))
        return (f"P = {side(pair.p_means, pair.p_log_weights)}, Q = "
                f"{side(pair.q_means, pair.q_log_weights)} with {pair.family.name} scale "
                f"{pair.scale:.6g}")
    return f"P = {np.array2string(pair.p, precision=6)}, Q = {np.array2string(pair.q, precision=6)}"


def conversion(alpha: float, rho: float, quantity: Quantity, at: float) -> Reference:
    """The optimal conversion of one RDP guarantee ``(α, ρ)`` (seed 004): ``ε(δ)`` with
    ``quantity`` EPSILON (``at = δ``) or ``δ(ε)`` with ADP, and the Bernoulli pair attaining it
    (checked to satisfy the RDP constraint)."""
    from otbound.accounting.conversion import optimal_delta, optimal_epsilon

    if quantity is Quantity.EPSILON:
        converted = optimal_epsilon(alpha, rho, at)
        upper = converted.epsilon
    else:
        converted = optimal_delta(alpha, rho, at)
        upper = converted.delta
    p, q = _feasible(*required(converted.bernoulli, "the optimal Bernoulli pair"), alpha, rho)
    if p is None:
        return Reference(upper, None, "", None)
    exact = _bernoulli_value(p, q, quantity, at)
    lower = math.nextafter(float(exact) * (1 - 1e-12), -math.inf)
    witness = (f"P = Bern({p:.12g}), Q = Bern({q:.12g}): (α = {alpha:g}, ρ = {rho:g})-RDP, "
               f"{'ε' if quantity is Quantity.EPSILON else 'δ'} = {float(exact):.12g} "
               "(seed 004)")
    return Reference(upper, lower, witness, lambda: float(_bernoulli_value(p, q, quantity, at)))


def _feasible(p: float, q: float, alpha: float, rho: float) -> tuple[float | None, float]:
    """The optimal pair ``(p, q)``, with ``p`` moved towards ``q`` by at most a relative 1e-6
    of their gap until the pair satisfies the RDP constraint in 50 digits (the optimum lies on
    its boundary, where rounding may leave it just outside); ``(None, q)`` if it does not."""
    for shrink in (0.0, 1e-14, 1e-12, 1e-10, 1e-8, 1e-6):
        moved = p - (p - q) * shrink
        if _within_rdp(moved, q, alpha, rho):
            return moved, q
    return None, q


def _within_rdp(p: float, q: float, alpha: float, rho: float) -> bool:
    import mpmath as mp

    with mp.workdps(50):
        p, q = mp.mpf(p), mp.mpf(q)
        psi = p ** alpha * q ** (1 - alpha) + (1 - p) ** alpha * (1 - q) ** (1 - alpha)
        return bool(mp.log(psi) <= (alpha - 1) * mp.mpf(rho))


def _bernoulli_value(p: float, q: float, quantity: Quantity, at: float):
    """``ε`` at ``δ = at`` (largest ε with δ(ε) ≥ at is ``log((p − δ)/q)``) or ``δ`` at
    ``ε = at`` of ``(Bern(p), Bern(q))``, in 50 digits."""
    import mpmath as mp

    with mp.workdps(50):
        p, q = mp.mpf(p), mp.mpf(q)
        if quantity is Quantity.EPSILON:
            return mp.log((p - mp.mpf(at)) / q) if p > at else mp.mpf(0)
        return max(p - mp.e ** mp.mpf(at) * q, 0)
