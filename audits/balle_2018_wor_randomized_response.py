"""Balle, Barthe & Gaboardi 2018, sampling without replacement under substitution: a mechanism
run on ``m`` of ``n`` records drawn without replacement has ``δ'(log(1 + η(e^ε − 1))) ≤ η δ(ε)``
with ``η = m/n`` and ``δ`` the base mechanism's profile under substitution of one batch element
— here randomized response, ``δ(ε) = max(0, p − e^ε(1 − p))`` (the bit reported with
probability p > 1/2)."""

import mpmath as mp

from otbound import Subsampling, randomized_response
from otbound.audit import Claim, Condition, Domain, Point, Quantity, integer, real, subsampled


def claimed(point: Point) -> float:
    """``η max(0, p − e^{ε₀}(1 − p))`` at the base ``ε₀`` with ``ε = log(1 + η(e^{ε₀} − 1))``,
    i.e. ``e^{ε₀} = 1 + (e^ε − 1)/η``, ``η = m/n`` (40 digits: the difference cancels)."""
    with mp.workdps(40):
        eta = mp.mpf(int(point["batch_size"])) / int(point["dataset_size"])
        p = mp.mpf(point["p"])
        base = 1 + mp.expm1(mp.mpf(point["epsilon"])) / eta   # e^{ε₀}
        return float(eta * max(mp.mpf(0), p - base * (1 - p)))


def reference(point: Point):
    setting = Subsampling("wor", batch_size=int(point["batch_size"]),
                          dataset_size=int(point["dataset_size"]), substitutions=1)
    return subsampled(setting, randomized_response(point["p"]), Quantity.ADP, point["epsilon"])


CLAIM = Claim(
    name="balle-2018-wor-randomized-response",
    title="Sampling without replacement: δ'(log(1 + η(e^ε − 1))) = η δ(ε), η = m/n, "
          "randomized response",
    citation="Balle, Barthe & Gaboardi 2018, Privacy Amplification by Subsampling: Tight Analyses "
             "via Couplings and Divergences, Sec. 5, Thm. 9 (sampling without replacement, "
             "Table 1)",
    setting="m of n records drawn without replacement (η = m/n), substitution of one record; "
            "randomized response reporting the bit with probability p, and its exact profile "
            "δ(ε) = max(0, p − e^ε(1 − p))",
    domain=Domain((integer("batch_size", 1, 100), integer("dataset_size", 2, 10000),
                   real("p", 0.51, 0.99, log=False), real("epsilon", 1e-3, 5.0)),
                  (Condition("m < n", lambda p: p["batch_size"] < p["dataset_size"]),),
                  stated="1 ≤ m < n, ε' ≥ 0 (any ε ≥ 0 of the base mechanism)"),
    quantity=Quantity.ADP,
    points=tuple({"batch_size": m, "dataset_size": n, "p": p, "epsilon": epsilon}
                 for m, n in ((10, 1000), (1, 10), (5, 20)) for p in (0.6, 0.75, 0.9)
                 for epsilon in (0.001, 0.01, 0.1)),
    claimed=claimed,
    reference=reference,
    series=("batch_size", "dataset_size", "p"),
    note="The points are the amplified ε' (the base ε = log(1 + (e^{ε'} − 1)/η)). Against "
         "otbound's tight profile of 001 Thm. 3.6's bound (wor-group-substitution, K = 1) for "
         "randomized response, whose worst case is a construction: f(y) takes one value on the "
         "batches holding the substituted record of x and the other on all others, so the "
         "batches without it give the same output distribution as those holding its "
         "replacement, and the hockey-stick divergence is exactly η δ(ε) (Balle et al.'s "
         "advanced joint convexity is an equality for this pair). The Gaussian and Laplace "
         "forms are not entered: there otbound's smallest bound is this theorem itself (a "
         "circular point).",
)
