"""dp_accounting's RDP accountant (google/differential-privacy, ``python/dp_accounting/``): the values
its test ``dp_accounting/rdp/rdp_privacy_accountant_test.py`` pins, transcribed as facts.

How its numbers map onto otbound's:

* Poisson-subsampled Gaussian RDP: dp_accounting evaluates ``log A_α / (α − 1)`` of Mironov et al.
  (2019), the removal direction ``D_α((1−q)N(0,σ²) + qN(1,σ²) ‖ N(0,σ²))``, the larger of the two
  (checked at q = 0.01, σ = 2.5, α ∈ {1.5, 2.5}: the insertion direction is 0.4 % / 0.7 % below).
  At integer orders its binomial sum is exact ("exact"). At fractional orders it sums the absolute
  values of the series terms (``_log_comb`` is ``gammaln``, the log of ``|C(α, i)|``), so those
  values are upper bounds ("upper"): 3.2 % above the true value at α = 1.5 (line 525).
* ``test_compute_log_a_equals_mp``'s reference is a numerical integration (mpmath, 15 digits) of
  ``A_α`` itself, so it is the exact quantity at every order ("exact"), pinned to the test's
  ``rtol=1e-4, atol=1e-8`` on ``log A_α``. At σ = 0.1, α ≈ 256 that quadrature comes out 7e-5
  (relative) below the exact binomial sum, inside that tolerance.
* ``GaussianDpEvent`` at sampling rate 1 is ``α / (2σ²)``; a composition of Gaussians is one Gaussian
  with ``σ = (Σ σᵢ⁻²)^(−1/2)`` (what dp_accounting itself does, ``_effective_gaussian_noise_multiplier``).
* ε / δ of the RDP accountant: dp_accounting's conversion is the optimal-style one (rows mirror it
  with ``accountant="rdp"``, ``conversion="optimal"``); its ε is an upper bound on the truth.
* ``test_delta_bounds_gaussian`` (σ = 1, no subsampling) states the exact δ(ε) of the Gaussian
  (Balle & Wang 2018, Thm. 8) as a lower bound of the RDP δ ("exact", against otbound's best
  accountant) and ``exp(−(ε − 1/2)²/2)`` as an upper bound of the RDP δ ("upper", RDP accountant).
  The exact values are the test's own double-precision formula; ``peer_tolerance`` is twice its
  rounding error against a 50-digit evaluation.
* Randomized response with ``num_buckets = 2`` reports the truth with probability ``1 − p/2``;
  ``k > 2`` buckets, tree aggregation, repeat-and-select, the exponential mechanism, zCDP events and
  the discrete Gaussian have no otbound counterpart ("none").

``mechanism_calibration_test.py`` uses only a fake accountant (ε as an explicit function of the
parameter), so it has no value otbound can be compared with.
"""

from peer_values import PeerValue

_SOURCE = "dp_accounting"
_COMMIT = "b5b0286e313b64a692abfc8c528d54ef47d960a0"
_TEST = "python/dp_accounting/dp_accounting/rdp/rdp_privacy_accountant_test.py"
_FULL = {"scheme": "poisson", "rate": 1.0}
_PLACES7 = 5e-8  # assertAlmostEqual's default: |difference| rounds to 0 at 7 places


def _row(line: int, setting: dict, mechanism: tuple, steps: int, quantity: str, at: float,
         value: float, direction: str, peer_tolerance: float = 0.0, **keywords) -> PeerValue:
    return PeerValue(source=_SOURCE, where=f"{_TEST}:{line}", commit=_COMMIT, setting=setting,
                     mechanism=mechanism, steps=steps, quantity=quantity, at=at, value=value,
                     direction=direction, peer_tolerance=peer_tolerance, **keywords)


def _allclose(value: float) -> float:
    """np.allclose(..., rtol=1e-4) with its default atol=1e-8."""
    return 1e-4 * abs(value) + 1e-8


# The Gaussian without subsampling: α / (2σ²), assertAlmostEqual (7 places).
_GAUSSIAN = (
    # test_compute_rdp_gaussian: α = 3.14159, σ = 2.71828.
    _row(252, _FULL, ("gaussian", 2.71828), 1, "rdp", 3.14159, 3.14159 / (2 * 2.71828**2),
         "exact", _PLACES7, reason="closed form α/(2σ²)"),
    # test_compute_rdp_multi_gaussian: σ = 2.71828 and 6.28319 composed, at rate 1, α = 3.14159.
    _row(272, _FULL, ("gaussian", (2.71828**-2 + 6.28319**-2) ** -0.5), 1, "rdp", 3.14159,
         3.14159 / (2 * 2.71828**2) + 3.14159 / (2 * 6.28319**2), "exact", _PLACES7,
         reason="two Gaussians composed = one Gaussian of σ = (Σσᵢ⁻²)^(−1/2)"),
    # test_rdp_composition: σ = 3.14159 at α = 2.71828, six times (count, self-composed, ...).
    _row(186, _FULL, ("gaussian", 3.14159), 6, "rdp", 2.71828, 6 * 2.71828 / (2 * 3.14159**2),
         "exact", _PLACES7, reason="six times the closed form α/(2σ²)"),
    # ... and heterogeneous: σ = 3.14159 with σ = 1.61803.
    _row(216, _FULL, ("gaussian", (3.14159**-2 + 1.61803**-2) ** -0.5), 1, "rdp", 2.71828,
         2.71828 / (2 * 3.14159**2) + 2.71828 / (2 * 1.61803**2), "exact", _PLACES7,
         reason="two Gaussians composed = one Gaussian of σ = (Σσᵢ⁻²)^(−1/2)"),
    # test_zcdp_matches_gaussian: σ = 3.14159 at α = 2.71828, once.
    _row(374, _FULL, ("gaussian", 3.14159), 1, "rdp", 2.71828, 2.71828 / (2 * 3.14159**2),
         "exact", _PLACES7, reason="closed form α/(2σ²)"),
)

# test_compute_rdp_poisson_sampled_gaussian: q = 0.01, σ = 2.5, 50 steps, np.allclose rtol=1e-4.
_POISSON = tuple(
    _row(line, {"scheme": "poisson", "rate": 0.01}, ("gaussian", 2.5), 50, "rdp", order, value,
         direction, _allclose(value), reason=reason)
    for line, order, value, direction, reason in (
        (525, 1.5, 6.70579741e-04, "upper",
         "fractional order: dp_accounting sums |terms| of Mironov's series, an upper bound"),
        (526, 2.5, 1.08548710e-03, "upper",
         "fractional order: dp_accounting sums |terms| of Mironov's series, an upper bound"),
        (527, 5, 2.18075656e-03, "exact", "integer order: exact binomial sum, removal direction"),
        (528, 50, 2.38460375e-02, "exact", "integer order: exact binomial sum, removal direction"),
        (529, 100, 1.67416308e02, "exact", "integer order: exact binomial sum, removal direction"),
    )
) + (
    _row(530, {"scheme": "poisson", "rate": 0.01}, ("gaussian", 2.5), 50, "rdp", float("inf"),
         float("inf"), "none", reason="order ∞ (RDP ∞): outside otbound's orders (1, 10000]",
         extra={"refused": True}),
)

# test_compute_log_a_equals_mp: the mpmath integral of A_α (15 digits, maxdegree 8), as RDP
# log A_α / (α − 1); the test pins log A_α to rtol 1e-4, atol 1e-8 (divided by α − 1 here).
_LOG_A = tuple(
    _row(line, {"scheme": "poisson", "rate": q}, ("gaussian", sigma), 1, "rdp", order, value,
         "exact", tolerance_, reason="numerical integration of A_α, removal direction")
    for line, q, sigma, order, value, tolerance_ in (
        (752, 1e-7, 0.1, 1.01, 4.0034159629823445e-06, 1.0004003415962973e-06),
        (753, 1e-6, 0.1, 256, 12785.233372258728, 1.2785233372650886),
        (754, 1e-5, 0.1, 256.1, 12792.458966236602, 1.2792458966628604),
        (755, 1e-6, 1, 27, 3.37288572991677e-11, 3.846187575011146e-10),
        (756, 1e-4, 1.0, 1.5, 1.2885374059537738e-08, 2.0001288537405954e-08),
        (757, 1e-3, 1.0, 2, 1.7182803521333247e-06, 1.0171828035213333e-08),
        (758, 0.01, 10, 20, 1.006826311200815e-05, 1.5331421006744994e-09),
        (759, 0.1, 100, 20.5, 1.025221459390708e-05, 1.5380419722112212e-09),
        (760, 0.99, 0.1, 256, 12799.092971540533, 1.279909297193269),
        (761, 0.999, 100, 256.1, 0.012779725746660574, 1.2780117749796601e-06),
    )
)

# test_log_a_frac_positive: q = 0.4, σ = 12, orders linspace(58.5, 59.5, 21): log A_α > 0.
_LOG_A_POSITIVE = tuple(
    _row(1222, {"scheme": "poisson", "rate": 0.4}, ("gaussian", 12.0), 1, "rdp", order, 0.0,
         "lower", reason="the test asserts only that the RDP is positive")
    for order in (58.5, 58.75, 59.0, 59.25, 59.5)
)

# test_compute_epsilon_delta_gaussian: q = 1, σ = 4.530877117 "chosen to obtain exactly
# (1, 1e-6)-DP" from RDP at orders 1.000, 1.001, ..., 99.999 (assertAlmostEqual, 7 places).
_GAUSSIAN_EPSILON_DELTA = (
    _row(746, _FULL, ("gaussian", 4.530877117), 1, "epsilon", 1e-6, 1.0, "upper", _PLACES7,
         accountant="rdp", reason="RDP accountant's ε: an upper bound"),
    _row(749, _FULL, ("gaussian", 4.530877117), 1, "delta", 1.0, 1e-6, "upper", _PLACES7,
         accountant="rdp", reason="RDP accountant's δ: an upper bound"),
)

# test_delta_bounds_gaussian: σ = 1, rate 1; ε = 0.1·x. The exact δ(ε) of the Gaussian (line 785),
# and the standard bound exp(−(ε − 1/2)²/2) for ε ≥ 1/2 (line 794) above the RDP δ.
_EXACT_DELTA = tuple(
    _row(785, _FULL, ("gaussian", 1.0), 1, "delta", epsilon, value, "exact", tolerance_,
         reason="exact δ(ε) of the Gaussian mechanism (Balle & Wang 2018, Thm. 8)")
    for epsilon, value, tolerance_ in (
        (0.0, 0.38292492254802624, 3.8e-16),
        (0.2, 0.322376349989183, 3.2e-16),
        (0.5, 0.23842170813487656, 2.4e-16),
        (1.0, 0.1269367375066439, 1.3e-16),
        (1.5, 0.05669623623055345, 5.7e-17),
        (2.0, 0.02092363582111372, 2.1e-17),
        (2.5, 0.006305007330280072, 6.3e-18),
        (3.0, 0.0015371853694009585, 7.4e-18),
        (4.0, 4.712241200793116e-05, 6.8e-20),
        (5.0, 5.793721691919479e-07, 3.0e-21),
        (6.0, 2.7878597637636723e-09, 2.0e-23),
        (7.0, 5.167629703917552e-12, 3.7e-25),
        (8.0, 3.650821687421918e-15, 2.6e-28),
        (10.0, 9.812705826847524e-23, 1.1e-35),
        (12.0, 5.208442068948954e-32, 3.0e-44),
        (15.0, 3.87512304169375e-49, 9.6e-62),
        (20.0, 2.6647067053660867e-86, 1.2e-98),
        (30.0, 4.709326318110523e-193, 2.6e-204),
    )
)
_STANDARD_DELTA = tuple(
    _row(794, _FULL, ("gaussian", 1.0), 1, "delta", epsilon, value, "upper", 1e-300,
         accountant="rdp", reason="asserted above the RDP accountant's δ")
    for epsilon, value in (
        (0.5, 1.0),
        (1.0, 0.8824969025845955),
        (2.0, 0.32465246735834974),
        (3.0, 0.04393693362340742),
        (5.0, 4.006529739295107e-05),
        (8.0, 6.101936677605324e-13),
        (10.0, 2.5261637809256925e-20),
        (15.0, 2.2120380336009962e-46),
        (20.0, 2.6900579025827697e-83),
        (30.0, 1.065647478940987e-189),
    )
)

# test_laplace: Laplace of scale 1/ε₀, orders up to 1e10 to "simulate pure DP": ε(1e-10) ≈ ε₀·count
# (7 places), an upper bound on the truth; the KL divergence ≤ min(ε₀, ε₀²/2)·count.
_LAPLACE = tuple(
    _row(930, _FULL, ("laplace", 1 / eps0), count, "epsilon", 1e-10, eps0 * count, "upper",
         _PLACES7, accountant=accountant,
         reason="pure-DP ε of the composition, an upper bound; the peer reaches it at order 1e10")
    for eps0, count, accountant in ((1.0, 100, "rdp"), (0.01, 1, "best"), (1.0, 1, "best"))
) + tuple(
    _row(930, _FULL, ("laplace", 1 / eps0), 1, "epsilon", 1e-10, eps0, "none", _PLACES7,
         accountant="rdp",
         reason="otbound's RDP accountant searches orders up to 1024, the peer's reaches pure DP "
                "at order 1e10 (otbound's RDP: 0.024078 and 1.014078); its best accountant "
                "meets the value (the rows above)")
    for eps0 in (0.01, 1.0)
) + (
    _row(930, _FULL, ("laplace", 0.01), 1, "epsilon", 1e-10, 100.0, "none", _PLACES7,
         accountant="rdp", extra={"refused": True},
         reason="noise multiplier 0.01 is below otbound's range [0.1, 1e6]"),
) + tuple(
    _row(932, _FULL, ("laplace", 1 / eps0), count, "rdp", 1.0, min(eps0, eps0 * eps0 / 2) * count,
         "none", extra={"refused": True},
         reason="order 1 (KL divergence) is outside otbound's orders (1, 10000]")
    for eps0, count in ((0.01, 1), (1.0, 1), (100.0, 1), (1.0, 100))
)

# Degenerate settings: nothing sampled is perfectly private (assertEqual).
_DEGENERATE = (
    # (accountant "pld": otbound's RDP conversion of the all-zero curve takes seconds.)
    _row(226, {"scheme": "poisson", "rate": 0.0}, ("gaussian", 1.0), 1, "epsilon", 1e-10, 0.0,
         "exact", accountant="pld", reason="rate 0: nothing is released"),
    _row(227, {"scheme": "poisson", "rate": 0.0}, ("gaussian", 1.0), 1, "delta", 1e-10, 0.0,
         "exact", reason="rate 0: nothing is released"),
    _row(226, {"scheme": "poisson", "rate": 0.0}, ("gaussian", 0.0), 1, "epsilon", 1e-10, 0.0,
         "none", extra={"refused": True}, reason="σ = 0 is refused by otbound's gaussian"),
    _row(227, {"scheme": "poisson", "rate": 0.0}, ("gaussian", 0.0), 1, "delta", 1e-10, 0.0,
         "none", extra={"refused": True}, reason="σ = 0 is refused by otbound's gaussian"),
    _row(238, {"scheme": "wor", "batch_size": 0, "dataset_size": 1000, "substitutions": 1},
         ("gaussian", 1.0), 1, "epsilon", 1e-10, 0.0, "none", extra={"refused": True},
         reason="batch size 0 is refused by otbound (batch_size ≥ 1)"),
    _row(239, {"scheme": "wor", "batch_size": 0, "dataset_size": 1000, "substitutions": 1},
         ("gaussian", 1.0), 1, "delta", 1e-10, 0.0, "none", extra={"refused": True},
         reason="batch size 0 is refused by otbound (batch_size ≥ 1)"),
    _row(244, _FULL, ("gaussian", 0.0), 1, "epsilon", 0.1, float("inf"), "none",
         extra={"refused": True}, reason="σ = 0 (no noise) is refused by otbound's gaussian"),
)

# Randomized response with 2 buckets and noise parameter p: truth reported w.p. 1 − p/2
# (assertSequenceAlmostEqual, 7 places); under REPLACE_ONE and REPLACE_SPECIAL alike.
_BINARY_RR = tuple(
    _row(655, _FULL, ("randomized_response", 0.5), 1, "rdp", order, 0.0, "exact", _PLACES7,
         reason="p = 1: the output is independent of the input")
    for order in (1.1, 1.2)
) + tuple(
    _row(656, _FULL, ("randomized_response", 1.0), 1, "rdp", order, float("inf"), "none",
         extra={"refused": True}, reason="p = 0: no noise; otbound needs θ in (0, 1)")
    for order in (1.1, 1.2)
) + tuple(
    _row(657, _FULL, ("k_ary_randomized_response", 0.1, 1), 1, "rdp", order, 0.0, "none",
         reason="one bucket: a constant output, no otbound mechanism")
    for order in (1.1, 1.2)
)

# k-ary randomized response (k = 10, 20, 3), np.allclose rtol=1e-4.
_K_ARY = (
    (542, "REPLACE_SPECIAL", 0.3, 10, (1.5030552584146897, 1.7801182478869704, 1.9091969256833639,
                                       1.9814516798923105, 1.9846954517418232, 1.9878743481543455)),
    (555, "REPLACE_SPECIAL", 0.05, 20, (2.8985312222056674, 2.9615414620514047, 2.982908949957726,
                                        2.994685471627712, 2.9952141594692665, 2.995732273553991)),
    (568, "REPLACE_SPECIAL", 0.01, 3, (3.851345343526459, 4.334924907685137, 4.503803908976894,
                                       4.596895387863428, 4.601074578835478, 4.605170185988092)),
    (601, "REPLACE_ONE", 0.3, 10, (2.6946320226546314, 2.983865364028855, 3.11316970070507,
                                   3.1854244842182466, 3.1886682560677593, 3.1918471524802814)),
    (614, "REPLACE_ONE", 0.05, 20, (5.850317703374384, 5.910360162307462, 5.930633082131939,
                                    5.94180620835157, 5.942307807732949, 5.942799375126701)),
    (627, "REPLACE_ONE", 0.01, 3, (5.684126770932727, 5.692634596034571, 5.695421239467805,
                                   5.696956976543137, 5.697025920968522, 5.697093486505405)),
)
_K_ARY_RR = tuple(
    _row(line + offset, _FULL, ("k_ary_randomized_response", p, k), 1, "rdp", order, value,
         "none", _allclose(value), extra={"relation": relation},
         reason=f"randomized response with k = {k} > 2 buckets ({relation}): not in otbound")
    for line, relation, p, k, values in _K_ARY
    for offset, (order, value) in enumerate(zip((1.5, 2.5, 5, 50, 100, float("inf")), values))
) + (
    _row(677, _FULL, ("k_ary_randomized_response", 0.1, 10), 1, "rdp", float("inf"),
         2.302585092994046, "none", _PLACES7, extra={"relation": "REPLACE_SPECIAL"},
         reason="randomized response with k = 10 > 2 buckets: not in otbound"),
    _row(682, _FULL, ("k_ary_randomized_response", 0.1, 10), 1, "rdp", float("inf"),
         4.51085950651685, "none", _PLACES7, extra={"relation": "REPLACE_ONE"},
         reason="randomized response with k = 10 > 2 buckets: not in otbound"),
)

# Events otbound has no counterpart for.
_OTHER = (
    _row(487, _FULL, ("exponential_mechanism", 1.0), 1, "rdp", 1.0, 0.123301561, "none",
         _PLACES7, reason="exponential mechanism: not in otbound"),
    _row(488, _FULL, ("exponential_mechanism", 1.0), 1, "rdp", 1000.0, 1.0, "none", _PLACES7,
         reason="exponential mechanism: not in otbound"),
    _row(364, _FULL, ("zcdp", (2.71828, 3.14159), (6.28319, 1.23456)), 1, "rdp", 2.0,
         3.14159 + 1.23456 + 2.0 * (2.71828 + 6.28319), "none", _PLACES7,
         reason="zCDP events with ξ > 0: not an otbound mechanism"),
    _row(387, _FULL, ("discrete_gaussian", 5.0, 2.0), 1, "rdp", 3.14159,
         3.14159 * 2.0**2 / (2 * 5.0**2), "none", _PLACES7,
         reason="discrete Gaussian: not in otbound"),
    _row(728, _FULL, ("constant_rdp", 1.1), 1, "epsilon", 1e-5, 1.32783806176, "none", _PLACES7,
         reason="a constant RDP curve at orders 2..32 converted, no mechanism"),
    _row(734, _FULL, ("constant_rdp", 1.1), 1, "delta", 1.32783806176, 1e-5, "none", _PLACES7,
         reason="a constant RDP curve at orders 2..32 converted, no mechanism"),
    _row(829, _FULL, ("tree_aggregation", 1.13, 1600), 1, "epsilon", 1e-6, 19.74, "none",
         reason="single-epoch tree aggregation (REPLACE_SPECIAL): not in otbound"),
    _row(829, _FULL, ("tree_aggregation", 8.83, 1600), 1, "epsilon", 1e-6, 2.04, "none",
         reason="single-epoch tree aggregation (REPLACE_SPECIAL): not in otbound"),
    _row(1268, _FULL, ("epsilon_delta", 1.0, 0.0), 1, "epsilon", 1e-5, 1.01, "none",
         reason="an (ε, δ)-DP event converted through zCDP: no otbound mechanism"),
    _row(1269, _FULL, ("epsilon_delta", 1.0, 0.0), 1, "epsilon", 1e-3, 1.0, "none",
         reason="an (ε, δ)-DP event converted through zCDP: no otbound mechanism"),
)

# Repeat-and-select of a Laplace of scale 1/ε (negative binomial repetitions, mean 1000 or 100):
# ε·(2 + shape) at order 1e10 and at δ = 1e-10 (7 places).
_REPEAT_AND_SELECT = tuple(
    _row(line, _FULL, ("repeat_and_select_laplace", 1.0, mean, shape), 1, quantity, at,
         2.0 + shape, "none", _PLACES7, reason="repeat-and-select: not in otbound")
    for line, mean, shape in ((1028, 1000, 0), (1029, 1000, 1), (1030, 1000, 0.5), (1031, 100, 2),
                              (1032, 1000, 5))
    for quantity, at in (("rdp", 1e10), ("epsilon", 1e-10))
) + tuple(
    # Poisson repetitions: the closed form of line 1161 at order 1 + 1/(e^ε − 1) (3 places, ratio).
    _row(line, _FULL, ("repeat_and_select_laplace", eps0, mean, float("inf")), 1, "rdp", order,
         value, "none", 5e-4 * value, reason="repeat-and-select: not in otbound")
    for line, eps0, mean, order, value in (
        (1147, 1, 1, 1.5819767068693265, 0.5328475535336578),
        (1148, 0.1, 2, 10.50833194477505, 0.11725732565610561),
        (1149, 10, 10, 1.0000454019910097, 50724.50931882705),
        (1150, 0.001, 100, 1000.500083333332, 0.005041352060433794),
        (1151, 2, 1000, 1.1565176427496657, 45.385350504508146),
        (1152, 1, 1e10, 1.5819767068693265, 40.097748791257146),
    )
)

ROWS = (_GAUSSIAN + _POISSON + _LOG_A + _LOG_A_POSITIVE + _GAUSSIAN_EPSILON_DELTA + _EXACT_DELTA
        + _STANDARD_DELTA + _LAPLACE + _DEGENERATE + _BINARY_RR + _K_ARY_RR + _OTHER
        + _REPEAT_AND_SELECT)
