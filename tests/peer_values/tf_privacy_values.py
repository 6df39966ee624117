"""Values from TensorFlow Privacy's analysis tests (github:tensorflow/privacy), transcribed as
facts: the setting, the peer's number, the file and line, the commit read.

Which conversion the peer used, read from its code at each commit:

* ``rdp_accountant.get_privacy_spent`` before commit be8175b (Dec 2020) converted RDP to (ε, δ)
  by Mironov 2017 Prop. 3 (``conversion="mironov"``); from then on by Balle et al. 2020 Thm. 21
  with the KL bound on δ (first its own code, from Apr 2022 dp_accounting's ``RdpAccountant``):
  ``conversion="balle2020"``. ``compute_dp_sgd_privacy_lib`` uses dp_accounting's
  ``RdpAccountant`` / ``PLDAccountant`` at the head commit (the same Balle et al. conversion).
* ``compute_dp_sgd_privacy`` accounts ``ceil(epochs * n / batch_size)`` steps of Poisson sampling
  at ``q = batch_size / n``; ``_compute_dp_sgd_example_privacy`` accounts ``ceil(epochs / q)``
  steps at ``q`` (or ``ceil(epochs)`` unsampled steps, one per epoch) and halves the noise
  multiplier with microbatching: the L2 sensitivity doubles, written here as
  ``("gaussian", σ, 2.0)``.
* User-level values: without subsampling the peer divides the noise multiplier by the number of
  examples per user K (all of a user's examples in one round), i.e. the Gaussian with
  sensitivity 2K, written as that mechanism; with Poisson sampling it bounds add-or-remove of a
  user's K examples by group privacy (Vadhan 2017 Lemma 2.2 from the example-level (ε, δ), valid
  for every pair at distance ≤ K, so it bounds otbound's ``group=K``), and at the head commit
  with PLDs by the mixture of Gaussians of Ganesh 2024 (only the pure add/remove shapes).

The peer's own orders differ from otbound's accountant orders (``DEFAULT_ORDERS``): where they
are a subset of ours (dp_accounting's defaults; integers 2..32) otbound can only be tighter.
"""

from peer_values import PeerValue

SOURCE = "tf_privacy"

HEAD = "03035d5d4a271ac795dab80f5bc1cef82fc3d462"
"""Newest snapshot: compute_dp_sgd_privacy_test, compute_noise_from_budget_test,
tree_aggregation_accountant_test."""
RDP_LAST = "38fe4aa984ca5da36416c8b5b4197fbad105b020"
"""Last commit with rdp_accountant_test.py (delegating to dp_accounting; Balle et al.)."""
MIRONOV_ERA = "8d53d8cc59c65a671865fb8d16f8f1ef4e87c823"
"""Parent of be8175b ("Improved conversion from Renyi DP to approx DP"): Mironov's conversion."""
RDP_FORK = "34f8774dad8b68e5d4f12bbb1ad38b34e7209e72"
"""Last commit with TF Privacy's fork of dp_accounting (rdp_privacy_accountant_test.py)."""
USER_VADHAN = "8b3d8e132f6734fa405538efcba5fd81151227ec"
"""User-level values by Vadhan's lemma also without subsampling (before 99c25e3)."""
USER_VADHAN_OLD = "d5d60e2eacb91bb8c6d139fb8817a624f8da01da"
"""First privacy statement: the looser form k·e^{kε}·δ of Vadhan's lemma."""

RDP_TEST = "tensorflow_privacy/privacy/analysis/rdp_accountant_test.py"
FORK_TEST = "tensorflow_privacy/privacy/analysis/rdp_privacy_accountant_test.py"
SGD_TEST = "tensorflow_privacy/privacy/analysis/compute_dp_sgd_privacy_test.py"
NOISE_TEST = "tensorflow_privacy/privacy/analysis/compute_noise_from_budget_test.py"
TREE_TEST = "tensorflow_privacy/privacy/analysis/tree_aggregation_accountant_test.py"

_PLACES7 = 5e-8      # assertAlmostEqual's default places=7
_PRINTED3 = 5e-4     # a value printed with three decimals (the privacy statement)


def _poisson(rate: float, **relation) -> dict:
    return {"scheme": "poisson", "rate": rate, **relation}


def _row(where, commit, setting, mechanism, steps, quantity, at, value, direction, **rest):
    return PeerValue(source=SOURCE, where=where, commit=commit, setting=setting,
                     mechanism=mechanism, steps=steps, quantity=quantity, at=at, value=value,
                     direction=direction, **rest)


def _all_close(value: float) -> float:
    """tf.test assertAllClose(rtol=1e-4) with its default atol=1e-6."""
    return 1e-6 + 1e-4 * abs(value)


_ROWS = []

# --- rdp_accountant_test.py, last version (commit RDP_LAST) -----------------------------------

_ROWS += [
    _row(f"{RDP_TEST}:85", RDP_LAST, _poisson(1.0), ("gaussian", 10.0), 1, "rdp", 20, 0.1,
         "none", reason="heterogeneous composition of q = 0 and q = 1 steps (σ = 10); a row "
         "holds one setting (its parts are the rows at lines 92 and 96)"),
    _row(f"{RDP_TEST}:92", RDP_LAST, _poisson(0.0), ("gaussian", 10.0), 1, "rdp", 20, 0.0,
         "exact", reason="q = 0: no record is ever used, RDP 0 (assertEqual)"),
    _row(f"{RDP_TEST}:96", RDP_LAST, _poisson(1.0), ("gaussian", 10.0), 1, "rdp", 20, 0.1,
         "exact", reason="q = 1: α/(2σ²) (assertEqual)"),
    _row(f"{RDP_TEST}:100", RDP_LAST, _poisson(0.1), ("gaussian", 2.0), 10, "rdp", 5, 0.07737,
         "exact", peer_tolerance=5e-6,
         reason="sampled Gaussian at an integer order: exact binomial expansion (places=5)"),
]

# (Orders 1.001 (3.4701e-3, as at 1.5), 512 (1.8174e3) and 1024 (3.8656e3) are left out: up to
# 2 s each to evaluate; otbound is below the peer at each.)
_WOR_ORDERS = (1.5, 2.5, 5, 50, 100, 256)
_WOR_VALUES = (3.4701e-3, 4.6386e-3, 8.7634e-3, 9.8474e-2, 1.6776e2, 7.9297e2)
_WOR = {"scheme": "wor", "batch_size": 100, "dataset_size": 10000, "substitutions": 1}
_ROWS += [
    _row(f"{RDP_TEST}:{107 if order <= 100 else 108}", RDP_LAST, _WOR, ("gaussian", 2.5), 50,
         "rdp", order, value,
         "upper", peer_tolerance=_all_close(value),
         reason="Wang, Balle & Kasiviswanathan 2019 Thm. 27 (sampling m = q·n without "
         "replacement, replace-one): a sound upper bound for any m/n = 0.01")
    for order, value in zip(_WOR_ORDERS, _WOR_VALUES)
]
_ROWS.append(
    _row(f"{RDP_TEST}:108", RDP_LAST, _WOR, ("gaussian", 2.5), 50, "rdp", 10000.0,
         float("inf"), "none",
         reason="order ∞ (the peer returns ∞); otbound's orders are finite, at most 10000: the "
         "row stands at the largest one only as a placeholder and is not evaluated"))

_POISSON_ORDERS = (1.5, 2.5, 5, 50, 100)
_POISSON_VALUES = (6.5007e-04, 1.0854e-03, 2.1808e-03, 2.3846e-02, 1.6742e+02)
_ROWS += [
    _row(f"{RDP_TEST}:117", RDP_LAST, _poisson(0.01), ("gaussian", 2.5), 50, "rdp", order,
         value, "exact", peer_tolerance=_all_close(value),
         reason="RDP of the Poisson-subsampled Gaussian (Mironov et al. 2019), exact")
    for order, value in zip(_POISSON_ORDERS, _POISSON_VALUES)
]
_ROWS += [
    _row(f"{RDP_TEST}:117", RDP_LAST, _poisson(0.01), ("gaussian", 2.5), 50, "rdp", 10000.0,
         float("inf"), "none",
         reason="order ∞ (the peer returns ∞); otbound's orders are finite, at most 10000: the "
         "row stands at the largest one only as a placeholder and is not evaluated"),
    _row(f"{RDP_TEST}:170", RDP_LAST, _poisson(1.0), ("gaussian", 1.0), 1, "epsilon", 1e-5,
         1.32783806176, "none",
         reason="conversion of a constant RDP curve (1.1 at orders 2..32): no mechanism"),
    _row(f"{RDP_TEST}:187", RDP_LAST, _poisson(1.0), ("gaussian", 1.0), 1, "delta",
         1.32783806176, 1e-5, "none",
         reason="conversion of a constant RDP curve (1.1 at orders 2..32): no mechanism"),
    # σ chosen by the peer so that its RDP conversion (orders 1.000..99.999 by 0.001) gives
    # exactly (1, 1e-6)-DP; the exact ε of this Gaussian is smaller.
    _row(f"{RDP_TEST}:178", RDP_LAST, _poisson(1.0), ("gaussian", 4.530877117), 1, "epsilon",
         1e-6, 1.0, "upper", peer_tolerance=_PLACES7, accountant="rdp",
         conversion="balle2020",
         reason="RDP accountant's ε (Balle et al. 2020), a sound upper bound"),
    _row(f"{RDP_TEST}:194", RDP_LAST, _poisson(1.0), ("gaussian", 4.530877117), 1, "delta",
         1.0, 1e-6, "upper", peer_tolerance=_PLACES7, accountant="rdp",
         conversion="balle2020",
         reason="RDP accountant's δ (Balle et al. 2020), a sound upper bound"),
    _row(f"{RDP_TEST}:212", RDP_LAST, _poisson(1e-4), ("gaussian", 0.4), 40000, "epsilon",
         1e-5, 8.509656, "none",
         reason="heterogeneous composition (q = 1e-4, σ = 0.4, 40000 steps, then q = 0.1, "
         "σ = 2, 100 steps); a row holds one setting"),
]

# test_get_privacy_spent_gaussian: the Gaussian mechanism (σ = 1, no subsampling) checked
# between the exact δ of Balle & Wang 2018 Thm. 8 (line 243) and the "standard" bound
# exp(−(ε − 1/2)²/2) (line 250); ε on the peer's grid 0.1·x. The values are the peer's formulas.
_EXACT_GAUSSIAN = ((0.0, 0.38292492254802624), (0.5, 0.23842170813487656),
                   (1.0, 0.1269367375066439), (2.0, 0.02092363582111372),
                   (3.0, 0.0015371853694009585), (4.0, 4.712241200793116e-05),
                   (5.0, 5.793721691919479e-07))
_ROWS += [
    _row(f"{RDP_TEST}:243", RDP_LAST, _poisson(1.0), ("gaussian", 1.0), 1, "delta", eps,
         value, "exact", peer_tolerance=1e-15,
         reason="exact privacy profile of the Gaussian mechanism (Balle & Wang 2018 Thm. 8)")
    for eps, value in _EXACT_GAUSSIAN
]
_STANDARD_GAUSSIAN = ((1.0, 0.8824969025845955), (2.0, 0.32465246735834974),
                      (3.0, 0.04393693362340742), (4.0, 0.002187491118182885),
                      (5.0, 4.006529739295107e-05))
_ROWS += [
    _row(f"{RDP_TEST}:250", RDP_LAST, _poisson(1.0), ("gaussian", 1.0), 1, "delta", eps,
         value, "upper", accountant="rdp", conversion="balle2020",
         reason="the peer asserts its RDP δ is at most exp(−(ε − 1/2)²/2) (orders 1.0..50.4 "
         "by 0.1, all among otbound's up to 10.9)")
    for eps, value in _STANDARD_GAUSSIAN
]

# --- rdp_accountant_test.py before the improved conversion (commit MIRONOV_ERA) ---------------

_OLD_POISSON_VALUES = (0.00065, 0.001085, 0.00218075, 0.023846, 167.416307)
_ROWS += [
    _row(f"{RDP_TEST}:108", MIRONOV_ERA, _poisson(0.01), ("gaussian", 2.5), 50, "rdp", order,
         value, "exact", peer_tolerance=1e-5,
         reason="RDP of the Poisson-subsampled Gaussian, exact (assertSequenceAlmostEqual "
         "delta=1e-5)")
    for order, value in zip(_POISSON_ORDERS, _OLD_POISSON_VALUES)
]
_ROWS += [
    _row(f"{RDP_TEST}:136", MIRONOV_ERA, _poisson(0.01), ("gaussian", 4.0), 10000, "epsilon",
         1e-5, 1.258575, "upper", peer_tolerance=5e-6, accountant="rdp", conversion="mironov",
         reason="RDP accountant (orders 2..32, Mironov's conversion), a sound upper bound"),
    _row(f"{RDP_TEST}:144", MIRONOV_ERA, _poisson(0.01), ("gaussian", 4.0), 10000, "delta",
         1.258575, 1e-5, "upper", peer_tolerance=_PLACES7, accountant="rdp",
         conversion="mironov",
         reason="RDP accountant (orders 2..32, Mironov's conversion), a sound upper bound"),
    _row(f"{RDP_TEST}:165", MIRONOV_ERA, _poisson(1e-4), ("gaussian", 0.4), 40000, "epsilon",
         1e-5, 8.509656, "none",
         reason="heterogeneous composition (q = 1e-4, σ = 0.4, 40000 steps, then q = 0.1, "
         "σ = 2, 100 steps); a row holds one setting"),
]

# --- rdp_privacy_accountant_test.py, TF Privacy's fork of dp_accounting (commit RDP_FORK) -----

_ROWS += [
    _row(f"{FORK_TEST}:201", RDP_FORK, _poisson(1.0), ("gaussian", 2.71828), 1, "rdp",
         3.14159, 0.21258427222223966, "exact", peer_tolerance=_PLACES7,
         reason="Gaussian RDP α/(2σ²), the peer's closed form"),
    _row(f"{FORK_TEST}:146", RDP_FORK, _poisson(1.0), ("gaussian", 3.14159), 6, "rdp",
         2.71828, 0.8262594370362716, "exact", peer_tolerance=_PLACES7,
         reason="6 compositions of the Gaussian, 6·α/(2σ²) (the peer's base value times 6)"),
    _row(f"{FORK_TEST}:219", RDP_FORK, _poisson(1.0), ("gaussian", 2.494815210062087), 1,
         "rdp", 3.14159, 0.25237291495195807, "exact", peer_tolerance=_PLACES7,
         reason="two Gaussians (σ = 2.71828, 6.28319) on one batch at q = 1: the sum of their "
         "RDP, that of one Gaussian of σ = (σ₁⁻² + σ₂⁻²)^(−1/2)"),
    _row(f"{FORK_TEST}:178", RDP_FORK, _poisson(0.0), ("gaussian", 1.0), 1, "epsilon", 1e-10,
         0.0, "exact", accountant="rdp", conversion="balle2020",
         reason="q = 0: nothing is released about any record (assertEqual)"),
    _row(f"{FORK_TEST}:179", RDP_FORK, _poisson(0.0), ("gaussian", 1.0), 1, "delta", 1e-10,
         0.0, "exact", accountant="rdp", conversion="balle2020",
         reason="q = 0: nothing is released about any record (assertEqual)"),
    _row(f"{FORK_TEST}:187", RDP_FORK, {"scheme": "wor", "batch_size": 1, "dataset_size": 1000,
                                        "substitutions": 1},
         ("gaussian", 1.0), 1, "epsilon", 1e-10, 0.0, "none",
         reason="a batch of 0 of 1000 records without replacement: otbound's scheme needs a "
         "batch of at least one (the row's batch_size stands in for 0)"),
    _row(f"{FORK_TEST}:193", RDP_FORK, _poisson(1.0), ("gaussian", 1.0), 1, "epsilon", 0.1,
         float("inf"), "none",
         reason="σ = 0, the non-private Gaussian (ε = ∞): otbound's Gaussian needs σ > 0 (the "
         "row's σ stands in for 0)"),
]

# --- compute_dp_sgd_privacy_test.py, head (commit HEAD) ---------------------------------------

# compute_dp_sgd_privacy: RdpAccountant with orders [1.25, 1.5, 1.75, 2, 2.25, 2.5, 3, 3.5, 4,
# 4.5] + 5..63 + [128, 256, 512], steps = ceil(epochs·n/batch), q = batch/n.
_DP_SGD = (
    (42, 60000, 150, 1.3, 15, 1e-5, 0.7242234026109595, 6000),
    (43, 100000, 100, 1.0, 30, 1e-7, 1.4154988495444842, 30000),
    (44, 100000000, 1024, 0.1, 10, 1e-7, 5907982.3113984, 976563),
)
_ROWS += [
    _row(f"{SGD_TEST}:{line}", HEAD, _poisson(batch / n), ("gaussian", sigma), steps,
         "epsilon", delta, value, "upper", peer_tolerance=_PLACES7, accountant="rdp",
         conversion="balle2020",
         reason="dp_accounting RdpAccountant (Balle et al. 2020 conversion), a sound upper "
         "bound")
    for line, n, batch, sigma, epochs, delta, value, steps in _DP_SGD
]

# _compute_dp_sgd_example_privacy(1.2 epochs, σ = 0.7, δ = 1e-5): ceil(1.2) = 2 unsampled steps,
# or ceil(1.2/0.01) = 120 steps at q = 0.01; microbatching doubles the sensitivity.
_EXAMPLE = (
    (86, False, None, "rdp", 10.8602036),
    (87, True, None, "rdp", 26.2880374),
    (88, False, 1e-2, "rdp", 3.2392676),
    (89, True, 1e-2, "rdp", 22.6248601),
)
# (The PLD values of lines 90-93, 10.1224946, 24.7160779, 2.4612381 and 18.6977407, are left
# out: 5 to 17 s each to evaluate; otbound's PLD reproduces them to 5e-8.)
_ROWS += [
    _row(f"{SGD_TEST}:{line}", HEAD, _poisson(1.0 if q is None else q),
         ("gaussian", 0.7, 2.0 if micro else 1.0), 2 if q is None else 120, "epsilon", 1e-5,
         value, "upper", peer_tolerance=_PLACES7, accountant=accountant,
         conversion="balle2020" if accountant == "rdp" else "optimal",
         reason=("dp_accounting RdpAccountant (Balle et al. 2020 conversion)" if accountant ==
                 "rdp" else "dp_accounting PLDAccountant (pessimistic)")
         + ", a sound upper bound")
    for line, micro, q, accountant, value in _EXAMPLE
]

# compute_dp_sgd_privacy_statement: 10000 examples, batch 64, 5 epochs, noise multiplier 2.0
# with microbatching (sensitivity 2), δ = 1e-6; q = 0.0064, ceil(5/0.0064) = 782 steps, or 5
# unsampled steps ("each example occurring once per epoch").
_Q = 64 / 10000
_STATEMENT_RDP = dict(accountant="rdp", conversion="balle2020")
_ROWS += [
    _row(f"{SGD_TEST}:199", HEAD, _poisson(1.0), ("gaussian", 2.0, 2.0), 5, "epsilon", 1e-6,
         13.376, "upper", peer_tolerance=_PRINTED3, **_STATEMENT_RDP,
         reason="dp_accounting RdpAccountant, one unsampled step per epoch"),
    _row(f"{SGD_TEST}:200", HEAD, _poisson(_Q), ("gaussian", 2.0, 2.0), 782, "epsilon", 1e-6,
         1.616, "upper", peer_tolerance=_PRINTED3, **_STATEMENT_RDP,
         reason="dp_accounting RdpAccountant, Poisson sampling"),
    _row(f"{SGD_TEST}:233", HEAD, _poisson(1.0), ("gaussian", 2.0, 6.0), 5, "epsilon", 1e-6,
         56.224, "upper", peer_tolerance=_PRINTED3, **_STATEMENT_RDP,
         reason="3 examples per user, unsampled: the peer accounts the Gaussian of noise "
         "multiplier 2/3 (sensitivity 3·2) by RDP"),
    _row(f"{SGD_TEST}:234", HEAD, _poisson(_Q, group=3), ("gaussian", 2.0, 2.0), 782,
         "epsilon", 1e-6, 6.425, "upper", peer_tolerance=_PRINTED3, **_STATEMENT_RDP,
         reason="3 examples per user under Poisson sampling: example-level RDP ε then group "
         "privacy (Vadhan Lemma 2.2), valid at every distance ≤ 3"),
    _row(f"{SGD_TEST}:264", HEAD, _poisson(1.0), ("gaussian", 2.0, 20.0), 5, "epsilon", 1e-6,
         366.374, "upper", peer_tolerance=_PRINTED3, **_STATEMENT_RDP,
         reason="10 examples per user, unsampled: the Gaussian of noise multiplier 2/10 by RDP"),
    _row(f"{SGD_TEST}:265", HEAD, _poisson(_Q, group=10), ("gaussian", 2.0, 2.0), 782,
         "epsilon", 1e-6, float("inf"), "none",
         reason="the peer's group-privacy bound is ∞ here (no value to compare against)"),
    _row(f"{SGD_TEST}:329", HEAD, _poisson(_Q, group=2), ("gaussian", 2.0, 2.0), 782,
         "epsilon", 1e-6, 2.532, "upper", peer_tolerance=_PRINTED3, accountant="pld",
         reason="2 examples per user under Poisson sampling: mixture of Gaussians (Ganesh 2024 "
         "Thm. 3.1) with a pessimistic PLD; of otbound's group=2 shapes the mixed one (one "
         "inserted, one removed) is not covered by the peer, but is the smaller here"),
]

# (The PLD values of lines 294, 295 and 328, 12.595, 1.199 and 30.579, are left out: 2 to 16 s
# each to evaluate; otbound reproduces them.)

# Earlier user-level values, by Vadhan's lemma also without subsampling.
_ROWS += [
    _row(f"{SGD_TEST}:233", USER_VADHAN, _poisson(1.0), ("gaussian", 2.0, 6.0), 5, "epsilon",
         1e-6, 85.940, "upper", peer_tolerance=_PRINTED3, **_STATEMENT_RDP,
         reason="3 examples per user, unsampled: example-level RDP ε then Vadhan Lemma 2.2, "
         "which also bounds all 3 in one round"),
    _row(f"{SGD_TEST}:204", USER_VADHAN_OLD, _poisson(1.0), ("gaussian", 2.0, 6.0), 5,
         "epsilon", 1e-6, 113.899, "upper", peer_tolerance=_PRINTED3, **_STATEMENT_RDP,
         reason="3 examples per user, unsampled: Vadhan Lemma 2.2 in its form k·e^{kε}·δ"),
    _row(f"{SGD_TEST}:205", USER_VADHAN_OLD, _poisson(_Q, group=3), ("gaussian", 2.0, 2.0), 782,
         "epsilon", 1e-6, 8.129, "upper", peer_tolerance=_PRINTED3, **_STATEMENT_RDP,
         reason="3 examples per user, Poisson: Vadhan Lemma 2.2 in its form k·e^{kε}·δ, "
         "valid at every distance ≤ 3"),
]

# --- compute_dp_sgd_privacy_test.py with Mironov's conversion (commit MIRONOV_ERA) ------------

_DP_SGD_MIRONOV = (
    (29, 60000, 150, 1.3, 1e-5, 0.941870567, 6000),
    (30, 100000, 100, 1.0, 1e-7, 1.70928734, 30000),
    (31, 100000000, 1024, 0.1, 1e-7, 5907984.81339406, 976563),
)
_ROWS += [
    _row(f"{SGD_TEST}:{line}", MIRONOV_ERA, _poisson(batch / n), ("gaussian", sigma), steps,
         "epsilon", delta, value, "upper", peer_tolerance=_PLACES7, accountant="rdp",
         conversion="mironov",
         reason="TF Privacy's RDP accountant with Mironov's conversion, a sound upper bound")
    for line, n, batch, sigma, delta, value, steps in _DP_SGD_MIRONOV
]

# --- compute_noise_from_budget_test.py (commit HEAD) -------------------------------------------

_NOISE = (
    (25, 60000, 150, 0.941870567, 15, 1e-5, 1.3, 6000),
    (26, 100000, 100, 1.70928734, 30, 1e-7, 1.0, 30000),
    (27, 100000000, 1024, 5907984.81339406, 10, 1e-7, 0.1, 976563),
    (28, 100000000, 1024, 5907984.81339406, 10, 1e-7, 1.0, 976563),
)
_ROWS += [
    _row(f"{NOISE_TEST}:{line}", HEAD, _poisson(batch / n), ("gaussian", noise), steps,
         "epsilon", delta, target, "none",
         reason="noise calibration (the peer's value is a noise multiplier, not ε or δ); the "
         "test is skipped (skipTest) and its targets are the Mironov-era ε values"
         + ("; the lower end 1 already overshoots, the peer returns 0" if line == 28 else ""))
    for line, n, batch, target, epochs, delta, noise, steps in _NOISE
]

# --- tree_aggregation_accountant_test.py (commit HEAD) ----------------------------------------

_ROWS += [
    _row(f"{TREE_TEST}:24", HEAD, _poisson(1.0), ("gaussian", 1.13), 1600, "epsilon", 1e-6,
         19.74, "none", reason="tree aggregation (DP-FTRL) with restarts: no such scheme"),
    _row(f"{TREE_TEST}:24", HEAD, _poisson(1.0), ("gaussian", 8.83), 1600, "epsilon", 1e-6,
         2.04, "none", reason="tree aggregation (DP-FTRL) with restarts: no such scheme"),
    _row(f"{TREE_TEST}:201", HEAD, _poisson(1.0), ("gaussian", 0.7856742013183862), 1,
         "epsilon", 1e-10, 8.92, "upper", peer_tolerance=0.01, accountant="rdp",
         conversion="balle2020",
         reason="zCDP ρ = 0.81 as the Gaussian of noise multiplier (2ρ)^(−1/2), by an "
         "RdpAccountant (orders 1.1..10.9, 12..63) at the default δ = 1e-10 (assertNear "
         "err=0.01)"),
]

ROWS = tuple(_ROWS)
