"""dp_accounting (github:google/differential-privacy, python/dp_accounting): PLD test values.

``pld/privacy_loss_mechanism_test.py``: the closed-form hockey-stick divergence δ(ε) of the
Laplace and Gaussian privacy losses (``get_delta_for_epsilon``, scalar and vectorised, also at
negative ε), with and without Poisson subsampling (``sampling_prob`` q), for the ADD, REMOVE and
REPLACE adjacencies, asserted with assertAlmostEqual (places=7: peer_tolerance 5e-8); and the
Gaussian calibration ``from_privacy_guarantee`` (σ pinned to places=3 only).
``pld/pld_privacy_accountant_test.py``: composed values of the PLD accountant.
``pld/privacy_loss_distribution_test.py``: pessimistic PLDs at value discretisation 1, published
as probability mass functions only (no δ for these mechanisms); the rows from it are the
hockey-stick of the published pmf (see ``_pmf``).

Mapping. The peer's Laplace ``parameter`` b and ``sensitivity`` Δ are ``("laplace", b, Δ)``; its
Gaussian ``standard_deviation`` s and Δ are ``("gaussian", s, Δ)``. ADD is the pair
(μ, qμ(·−Δ) + (1−q)μ), REMOVE (qμ(·+Δ) + (1−q)μ, μ): the two directions of otbound's add-or-remove
relation, whose bound is the larger of the two. So a row is "exact" with the larger of the two
values the peer gives at the same setting; where it gives only one direction the row is "lower"
(the larger is at least it), except where the other direction is provably 0: ADD's privacy loss is
at most −log(1−q), so its δ(ε) is 0 for ε ≥ −log(1−q) (the peer's get_delta_for_epsilon docstring
says so, and its own ADD values at those ε are 0). At q = 1 both directions are one pair.
REPLACE with subsampling is (qμ(·+Δ) + (1−q)μ, qμ(·−Δ) + (1−q)μ), which is otbound's Poisson
subsampling with one insertion and one removal (the same pair; symmetric, so one direction);
at q = 1 it is (μ(·+Δ), μ(·−Δ)), the same setting at rate 1.
Skipped: discrete Laplace, discrete Gaussian, mixtures of Gaussians (the mechanism tests); the
accountant's rows otbound cannot express are "none".
"""

import math

from peer_values import PeerValue

SOURCE = "dp_accounting"
COMMIT = "b5b0286e313b64a692abfc8c528d54ef47d960a0"
_DIR = "python/dp_accounting/dp_accounting/pld/"
MECH = _DIR + "privacy_loss_mechanism_test.py"
ACC = _DIR + "pld_privacy_accountant_test.py"
PLD = _DIR + "privacy_loss_distribution_test.py"

_PLACES7 = 5e-8
ACCOUNTANT = "pld"  # one step: the exact profile; composed: otbound's PLD (the RDP search is slow)


def _poisson(q):
    return {"scheme": "poisson", "rate": q}


def _replace(q):
    return {"scheme": "poisson", "rate": q, "insertions": 1, "removals": 1}


def _mechanism(family, scale, sensitivity):
    return ("laplace" if family == "L" else "gaussian", scale, sensitivity)


def _pair(family, scale, sensitivity, q, eps, add, rem):
    """Both directions published at one setting: exact, the larger. add/rem: (line, δ)."""
    (line_a, d_a), (line_r, d_r) = add, rem
    line, value = (line_a, d_a) if d_a >= d_r else (line_r, d_r)
    return PeerValue(
        source=SOURCE, where=f"{MECH}:{line}", commit=COMMIT, setting=_poisson(q),
        accountant=ACCOUNTANT,
        mechanism=_mechanism(family, scale, sensitivity), steps=1, quantity="delta", at=eps,
        value=value, direction="exact", peer_tolerance=_PLACES7,
        reason=(f"closed form; the larger of ADD (line {line_a}: {d_a!r}) and REMOVE "
                f"(line {line_r}: {d_r!r})"))


def _sym(family, scale, sensitivity, eps, add, rem):
    """q = 1: ADD and REMOVE are one pair (the peer publishes both, equal)."""
    return _pair(family, scale, sensitivity, 1.0, eps, add, rem)


def _one(family, scale, sensitivity, q, eps, line, value, which):
    """One direction only: a lower bound on the larger of the two."""
    return PeerValue(
        source=SOURCE, where=f"{MECH}:{line}", commit=COMMIT, setting=_poisson(q),
        accountant=ACCOUNTANT,
        mechanism=_mechanism(family, scale, sensitivity), steps=1, quantity="delta", at=eps,
        value=value, direction="lower", peer_tolerance=_PLACES7,
        reason=f"closed form of the {which} direction only; the other is not published here")


def _remove_only_add_zero(family, scale, sensitivity, q, eps, line, value, add_zero=""):
    """REMOVE published, ε ≥ −log(1−q): ADD is 0 there, so REMOVE is the larger: exact."""
    assert eps >= -math.log1p(-q)
    return PeerValue(
        source=SOURCE, where=f"{MECH}:{line}", commit=COMMIT, setting=_poisson(q),
        accountant=ACCOUNTANT,
        mechanism=_mechanism(family, scale, sensitivity), steps=1, quantity="delta", at=eps,
        value=value, direction="exact", peer_tolerance=_PLACES7,
        reason=("closed form, REMOVE; ADD's δ is 0 for ε >= -log(1-q) (its loss is at most "
                "-log(1-q))" + (f"; the peer's ADD value {add_zero}" if add_zero else "")))


def _rep(scale, sensitivity, q, eps, line, value, peer_tolerance=_PLACES7, reason=""):
    """REPLACE: Poisson subsampling with one insertion and one removal; symmetric."""
    return PeerValue(
        source=SOURCE, where=f"{MECH}:{line}", commit=COMMIT, setting=_replace(q),
        accountant=ACCOUNTANT,
        mechanism=("gaussian", scale, sensitivity), steps=1, quantity="delta", at=eps,
        value=value, direction="exact", peer_tolerance=peer_tolerance,
        reason=reason or ("closed form, REPLACE: the pair q N(-D) + (1-q) N(0) against "
                          "q N(D) + (1-q) N(0), otbound's (1 insertion, 1 removal)"))


def _calibrated(line, sensitivity, q, adjacency, eps, delta, std, slope_tol, digits_tol,
                other=""):
    """from_privacy_guarantee(ε, δ) returns σ* with δ_adjacency(ε; σ*) = δ, asserted equal to
    ``std`` to places=3; δ is the closed form at ``std`` to the digits printed (checked), so
    peer_tolerance = |dδ/dσ|·5e-4 (slope_tol) + half a unit of δ's last digit (digits_tol)."""
    tol = slope_tol + digits_tol
    base = (f"from_privacy_guarantee(eps={eps}, delta={delta}) gives std {std} (places=3); "
            f"peer_tolerance = |d delta/d std| * 5e-4 + half a unit of delta's last digit")
    if adjacency == "REPLACE":
        return _rep(std, sensitivity, q, eps, line, delta, peer_tolerance=tol,
                    reason=base + "; REPLACE = otbound's (1 insertion, 1 removal), symmetric")
    if q == 1.0:
        direction, why = "exact", "; q = 1: ADD and REMOVE are one pair"
    elif other:
        direction, why = "exact", other
    else:
        direction, why = "lower", f"; {adjacency} direction only (the other is larger here)"
    return PeerValue(
        source=SOURCE, where=f"{MECH}:{line}", commit=COMMIT, setting=_poisson(q),
        accountant=ACCOUNTANT,
        mechanism=("gaussian", std, sensitivity), steps=1, quantity="delta", at=eps,
        value=delta, direction=direction, peer_tolerance=tol, reason=base + why)


def _laplace_pure(line, sensitivity, eps, delta, parameter):
    """Laplace from_privacy_guarantee at q = 1: the parameter makes it (ε, δ)-DP (in fact
    ε-DP: the loss is at most Δ/b = ε); ADD and REMOVE are one pair at q = 1."""
    return PeerValue(
        source=SOURCE, where=f"{MECH}:{line}", commit=COMMIT, setting=_poisson(1.0),
        accountant=ACCOUNTANT,
        mechanism=("laplace", parameter, sensitivity), steps=1, quantity="delta", at=eps,
        value=delta, direction="upper", peer_tolerance=_PLACES7,
        reason=(f"from_privacy_guarantee(eps={eps}, delta={delta}) gives parameter "
                f"{parameter} (places=7): a promise that delta(eps) <= {delta}"))


def _pmf(line, family, scale, sensitivity, q, eps, value, tol, what):
    """A pessimistic PLD at value discretisation 1 published as its pmf (and infinity mass):
    the value is that PLD's δ(ε) = Σ p_l (1 − e^{ε−l})₊ + p_∞, the larger over the published
    ADD/REMOVE pmfs, computed from the published numbers (not printed by the peer). A
    pessimistic PLD dominates the mechanism, so it is an upper bound. peer_tolerance: the
    pmf entries are pinned by np.isclose (rtol 1e-5, atol 1e-8), the infinity mass to places=7."""
    setting = _poisson(q) if family != "RR" else _poisson(1.0)
    mechanism = (("randomized_response", scale) if family == "RR"
                 else _mechanism(family, scale, sensitivity))
    return PeerValue(
        source=SOURCE, where=f"{PLD}:{line}", commit=COMMIT, accountant=ACCOUNTANT, setting=setting,
        mechanism=mechanism, steps=1, quantity="delta", at=eps, value=value,
        direction="upper", peer_tolerance=tol,
        reason=("pessimistic PLD, value_discretization_interval=1 (" + what + "): delta of "
                "the published pmf, computed from it"),
        extra={"derived_from_pmf": True})


def _none(where, quantity, at, value, reason, setting=None, mechanism=("gaussian", 1.0),
          steps=1):
    return PeerValue(
        source=SOURCE, where=where, commit=COMMIT, setting=setting or _poisson(1.0),
        accountant=ACCOUNTANT,
        mechanism=mechanism, steps=steps, quantity=quantity, at=at, value=value,
        direction="none", reason=reason)


_ADD_ZERO = "at eps 0.3 (line 939) is 0.0"

ROWS = (
    # ---- Laplace get_delta_for_epsilon (test_laplace_get_delta_for_epsilon) ----
    # (parameter, sensitivity, q, eps); ADD lines 311-322, REMOVE lines 324-334.
    _sym("L", 1.0, 1.0, 1.0, (311, 0.0), (324, 0.0)),
    _sym("L", 3.0, 3.0, 1.0, (311, 0.0), (324, 0.0)),
    _sym("L", 2.0, 4.0, 2.0, (312, 0.0), (325, 0.0)),
    _sym("L", 2.0, 4.0, 0.5, (313, 0.52763345), (325, 0.52763345)),
    _sym("L", 1.0, 1.0, 0.0, (314, 0.39346934), (326, 0.39346934)),
    _sym("L", 2.0, 2.0, 0.0, (315, 0.39346934), (327, 0.39346934)),
    _sym("L", 1.0, 1.0, -2.0, (316, 0.86466472), (328, 0.86466472)),
    _pair("L", 1.0, 1.0, 0.8, 1.0, (318, 0.0), (330, 0.0)),
    _pair("L", 2.0, 4.0, 0.8, 0.5, (319, 0.3243606497234246), (331, 0.4039564635032081)),
    _pair("L", 1.0, 1.0, 0.6, 0.2, (320, 0.1401134521354217), (332, 0.1741992102060086)),
    _pair("L", 2.0, 2.0, 0.3, 0.0, (321, 0.1180408020862099), (333, 0.1180408020862099)),
    _one("L", 5.0, 5.0, 0.2, 2.0, 322, 0.0, "ADD"),
    _one("L", 5.0, 5.0, 0.2, -0.25, 334, 0.2211992169285951, "REMOVE"),
    # ---- Laplace vectorised (test_laplace_get_delta_for_epsilon_vectorized) ----
    _sym("L", 1.0, 1.0, -2.0, (348, 0.86466472), (357, 0.86466472)),
    _sym("L", 1.0, 1.0, -1.0, (348, 0.63212056), (357, 0.63212056)),
    _sym("L", 1.0, 1.0, 0.0, (348, 0.39346934), (357, 0.39346934)),
    _sym("L", 1.0, 1.0, 1.0, (348, 0.0), (357, 0.0)),
    _sym("L", 2.0, 4.0, -0.5, (350, 0.7134952031), (359, 0.7134952031)),
    _sym("L", 2.0, 4.0, 0.0, (350, 0.6321205588), (359, 0.6321205588)),
    _sym("L", 2.0, 4.0, 0.5, (350, 0.5276334473), (359, 0.5276334473)),
    _sym("L", 2.0, 4.0, 1.0, (350, 0.3934693403), (359, 0.3934693403)),
    _sym("L", 2.0, 4.0, 2.0, (350, 0.0), (359, 0.0)),
    _pair("L", 1.0, 1.0, 0.2, -0.3, (353, 0.2591817793), (362, 0.2591817793)),
    _pair("L", 1.0, 1.0, 0.2, -0.2, (353, 0.2008511573), (362, 0.1812692469)),
    _pair("L", 1.0, 1.0, 0.2, -0.1, (353, 0.1405456165), (362, 0.1121734314)),
    _pair("L", 1.0, 1.0, 0.2, 0.0, (353, 0.07869386806), (362, 0.07869386806)),
    _pair("L", 1.0, 1.0, 0.2, 0.1, (354, 0.01879989609), (363, 0.05015600993)),
    _pair("L", 1.0, 1.0, 0.2, 0.2, (354, 0.0), (363, 0.02391739939)),
    _pair("L", 1.0, 1.0, 0.2, 0.3, (354, 0.0), (363, 0.0)),
    # ---- Gaussian get_delta_for_epsilon (test_gaussian_get_delta_for_epsilon) ----
    # (standard_deviation, sensitivity, q, eps); ADD 880-892, REMOVE 894-906, REPLACE 908-920.
    _sym("G", 1.0, 1.0, 1.0, (880, 0.12693674), (894, 0.12693674)),
    _sym("G", 2.0, 2.0, 1.0, (881, 0.12693674), (895, 0.12693674)),
    _sym("G", 1.0, 3.0, 1.0, (882, 0.78760074), (896, 0.78760074)),
    _sym("G", 2.0, 6.0, 1.0, (883, 0.78760074), (897, 0.78760074)),
    _sym("G", 1.0, 1.0, 2.0, (884, 0.02092364), (898, 0.02092364)),
    _sym("G", 5.0, 5.0, 2.0, (885, 0.02092364), (899, 0.02092364)),
    _pair("G", 1.0, 1.0, 0.8, 1.0, (887, 0.0231362104090899), (901, 0.0816951786585355)),
    _pair("G", 2.0, 2.0, 0.8, 1.0, (888, 0.0231362104090899), (902, 0.0816951786585355)),
    _pair("G", 1.0, 3.0, 0.7, 1.0, (889, 0.1195051215523554), (903, 0.5356298793262404)),
    _pair("G", 2.0, 6.0, 0.4, 1.0, (890, 0.0), (904, 0.2888308005139968)),
    _pair("G", 1.0, 1.0, 0.3, 2.0, (891, 0.0), (905, 0.0003341102928869332)),
    _one("G", 5.0, 5.0, 0.2, 2.0, 892, 0.0, "ADD"),
    _one("G", 5.0, 5.0, 0.2, -0.25, 906, 0.2211992169285951, "REMOVE"),
    # REPLACE (the comment above lines 908-913 says sampling_prob = 1, but the cases have
    # q < 1 and repeat lines 915-920 exactly; both blocks are transcribed as written).
    _rep(2.0, 1.0, 0.8, 1.0, 908, 0.05808665654484252),
    _rep(3.0, 2.0, 0.8, 1.0, 909, 0.13711260900644096),
    _rep(2.0, 3.0, 0.7, 1.0, 910, 0.4013057526509164),
    _rep(3.0, 6.0, 0.4, 1.0, 911, 0.20752885274183325),
    _rep(2.0, 1.0, 0.3, 2.0, 912, 2.4770380148941894e-09),
    _rep(10.0, 5.0, 0.2, -0.25, 913, 0.22989794629827498),
    _rep(2.0, 1.0, 0.8, 1.0, 915, 0.05808665654484252),
    _rep(3.0, 2.0, 0.8, 1.0, 916, 0.13711260900644096),
    _rep(2.0, 3.0, 0.7, 1.0, 917, 0.4013057526509164),
    _rep(3.0, 6.0, 0.4, 1.0, 918, 0.20752885274183325),
    _rep(2.0, 1.0, 0.3, 2.0, 919, 2.4770380148941894e-09),
    _rep(10.0, 5.0, 0.2, -0.25, 920, 0.22989794629827498),
    # ---- Gaussian vectorised (test_gaussian_get_delta_for_epsilon_vectorized) ----
    _sym("G", 1.0, 1.0, -2.0, (935, 0.86749642), (942, 0.86749642)),
    _sym("G", 1.0, 1.0, -1.0, (935, 0.67881797), (942, 0.67881797)),
    _sym("G", 1.0, 1.0, 0.0, (935, 0.38292492), (942, 0.38292492)),
    _sym("G", 1.0, 1.0, 1.0, (935, 0.12693674), (942, 0.12693674)),
    _sym("G", 1.0, 1.0, 2.0, (935, 0.020923636), (942, 0.020923636)),
    _pair("G", 1.0, 1.0, 0.2, -0.3, (938, 0.27768558), (945, 0.25918178)),
    _pair("G", 1.0, 1.0, 0.2, -0.2, (938, 0.21052945), (945, 0.1814346)),
    _pair("G", 1.0, 1.0, 0.2, -0.1, (938, 0.14204776), (945, 0.11631708)),
    _pair("G", 1.0, 1.0, 0.2, 0.0, (938, 0.076584985), (945, 0.076584985)),
    _pair("G", 1.0, 1.0, 0.2, 0.1, (938, 0.02337934), (945, 0.051816131)),
    _pair("G", 1.0, 1.0, 0.2, 0.2, (939, 0.00020196), (946, 0.035738492)),
    _one("G", 1.0, 1.0, 0.2, 0.3, 939, 0.0, "ADD"),
    _remove_only_add_zero("G", 1.0, 1.0, 0.2, 0.5, 946, 0.012494629, _ADD_ZERO),
    _remove_only_add_zero("G", 1.0, 1.0, 0.2, 1.0, 946, 0.00229682, _ADD_ZERO),
    _rep(1.0, 1.0, 1.0, -2.0, 949, 0.90958223),
    _rep(1.0, 1.0, 1.0, -1.0, 949, 0.81968818),
    _rep(1.0, 1.0, 1.0, 0.0, 949, 0.68268949),
    _rep(1.0, 1.0, 1.0, 1.0, 949, 0.50986166),
    _rep(1.0, 1.0, 1.0, 2.0, 949, 0.331897999),
    _rep(1.0, 1.0, 0.2, -0.3, 952, 0.29584154),
    _rep(1.0, 1.0, 0.2, -0.2, 952, 0.23846474),
    _rep(1.0, 1.0, 0.2, -0.1, 952, 0.18414510),
    _rep(1.0, 1.0, 0.2, 0.0, 952, 0.13653790),
    _rep(1.0, 1.0, 0.2, 0.1, 952, 0.098340892),
    _rep(1.0, 1.0, 0.2, 0.2, 953, 0.069858734),
    _rep(1.0, 1.0, 0.2, 0.5, 953, 0.0250311655),
    _rep(1.0, 1.0, 0.2, 1.0, 953, 0.004734828),
    # ---- Gaussian from_privacy_guarantee (test_gaussian_from_privacy_parameters) ----
    # (line, sensitivity, q, adjacency, eps, delta, std, |d delta/d std| * 5e-4, half-digit)
    _calibrated(842, 1.0, 1.0, "ADD", 1.0, 0.12693674, 1.0, 1.8e-4, 5e-9),
    _calibrated(843, 2.0, 1.0, "REMOVE", 1.0, 0.12693674, 2.0, 8.8e-5, 5e-9),
    _calibrated(844, 2.0, 1.0, "REPLACE", 1.0, 0.12693674, 4.0, 4.4e-5, 5e-9),
    _calibrated(845, 3.0, 1.0, "ADD", 1.0, 0.78760074, 1.0, 3.1e-4, 5e-9),
    _calibrated(846, 6.0, 1.0, "REMOVE", 1.0, 0.78760074, 2.0, 1.6e-4, 5e-9),
    _calibrated(847, 6.0, 1.0, "REPLACE", 1.0, 0.78760074, 4.0, 7.6e-5, 5e-9),
    _calibrated(848, 1.0, 1.0, "ADD", 2.0, 0.02092364, 1.0, 6.5e-5, 5e-9),
    _calibrated(849, 5.0, 1.0, "REMOVE", 2.0, 0.02092364, 5.0, 1.3e-5, 5e-9),
    _calibrated(850, 5.0, 1.0, "REPLACE", 2.0, 0.02092364, 10.0, 6.5e-6, 5e-9),
    _calibrated(851, 1.0, 1.0, "ADD", 16.0, 1.016e-05, 0.344, 4.8e-7, 5e-9),
    _calibrated(852, 2.0, 1.0, "REMOVE", 16.0, 1.016e-05, 0.688, 2.4e-7, 5e-9),
    _calibrated(853, 2.0, 1.0, "REPLACE", 16.0, 1.016e-05, 1.376, 1.2e-7, 5e-9),
    _calibrated(855, 1.0, 0.8, "ADD", 1.0, 0.02313621, 1.0, 5.2e-5, 5e-9),
    _calibrated(856, 2.0, 0.7, "ADD", 1.0, 0.01080649, 1.5, 1.9e-5, 5e-9),
    _calibrated(857, 1.0, 0.1, "REMOVE", 2.0, 2.355e-06, 1.0, 2.4e-8, 5e-10,
                other="; ADD's delta is 0 for eps >= -log(1-q)"),
    _calibrated(858, 5.0, 0.75, "REMOVE", 2.0, 0.00877201, 5.0, 6.5e-6, 5e-9,
                other="; ADD's delta is 0 for eps >= -log(1-q)"),
    _calibrated(859, 1.0, 0.3, "REMOVE", 16.0, 3.294e-05, 0.3, 1.6e-6, 5e-9,
                other="; ADD's delta is 0 for eps >= -log(1-q)"),
    _calibrated(860, 2.0, 0.2, "REMOVE", 16.0, 0.02302382, 0.4, 3.0e-4, 5e-9,
                other="; ADD's delta is 0 for eps >= -log(1-q)"),
    _calibrated(861, 5.0, 0.75, "REPLACE", 2.0, 0.09233932, 5.0, 3.3e-5, 5e-9),
    _calibrated(862, 1.0, 0.3, "REPLACE", 16.0, 4.960e-05, 0.3, 2.2e-6, 5e-9),
    _calibrated(863, 1.0, 0.1, "REPLACE", 2.0, 3.828e-06, 1.0, 3.7e-8, 5e-10),
    _calibrated(864, 2.0, 0.2, "REPLACE", 16.0, 0.02477823, 0.4, 3.2e-4, 5e-9),
    # ---- Laplace from_privacy_guarantee at q = 1 (test_laplace_from_privacy_parameters) ----
    _laplace_pure(289, 1.0, 1.0, 0.0, 1.0),
    _laplace_pure(290, 1.0, 1.0, 0.1, 1.0),
    _laplace_pure(291, 2.0, 1.0, 0.01, 2.0),
    _laplace_pure(292, 1.0, 3.0, 0.01, 0.33333333),
    # ---- PLD accountant (ADD_OR_REMOVE_ONE, value discretisation 1e-4) ----
    # Gaussian sqrt(3) composed 1 + 2 times = Gaussian sigma 1: the peer's "exact" values,
    # asserted to delta=1e-3.
    PeerValue(source=SOURCE, where=f"{ACC}:264", commit=COMMIT, setting=_poisson(1.0),
              accountant=ACCOUNTANT,
              mechanism=("gaussian", math.sqrt(3)), steps=3, quantity="delta", at=1.0,
              value=0.126936, direction="exact", peer_tolerance=1e-3,
              reason="closed form (three Gaussians sqrt(3) = one Gaussian 1); delta=1e-3"),
    # (Its epsilon at delta 0.126936, line 266, is left out: another 2-5 s of composition.)
    # Poisson q = 0.2, Gaussian 0.5, composed 1 + 2 times (and as SelfComposedDpEvent x 3).
    PeerValue(source=SOURCE, where=f"{ACC}:286", commit=COMMIT, setting=_poisson(0.2),
              accountant=ACCOUNTANT,
              mechanism=("gaussian", 0.5), steps=3, quantity="delta", at=1.0, value=0.15594,
              direction="upper", peer_tolerance=1e-3,
              reason="pessimistic PLD (discretisation 1e-4), asserted to delta=1e-3"),
    PeerValue(source=SOURCE, where=f"{ACC}:288", commit=COMMIT, setting=_poisson(0.2),
              accountant=ACCOUNTANT,
              mechanism=("gaussian", 0.5), steps=3, quantity="epsilon", at=0.15594, value=1.0,
              direction="upper", peer_tolerance=1e-3,
              reason="pessimistic PLD (discretisation 1e-4), asserted to delta=1e-3"),
    PeerValue(source=SOURCE, where=f"{ACC}:299", commit=COMMIT, setting=_poisson(0.2),
              accountant=ACCOUNTANT,
              mechanism=("gaussian", 0.5), steps=3, quantity="delta", at=1.0, value=0.15594,
              direction="upper", peer_tolerance=1e-3,
              reason="pessimistic PLD (discretisation 1e-4), self-composed event; delta=1e-3"),
    PeerValue(source=SOURCE, where=f"{ACC}:301", commit=COMMIT, setting=_poisson(0.2),
              accountant=ACCOUNTANT,
              mechanism=("gaussian", 0.5), steps=3, quantity="epsilon", at=0.15594, value=1.0,
              direction="upper", peer_tolerance=1e-3,
              reason="pessimistic PLD (discretisation 1e-4), self-composed event; delta=1e-3"),
    # Poisson q = 0.2, Laplace 0.5, composed 1 + 2 times: pure eps = 3 log(1 + q(e^2 - 1))
    # = 2.469628; the peer's "exact_epsilon" 2.46964 (delta=1e-3) and delta 1e-14 (delta=1e-6).
    PeerValue(source=SOURCE, where=f"{ACC}:329", commit=COMMIT, setting=_poisson(0.2),
              accountant=ACCOUNTANT,
              mechanism=("laplace", 0.5), steps=3, quantity="delta", at=2.46964, value=1e-14,
              direction="exact", peer_tolerance=1e-6,
              reason="pure DP: 3 log(1 + q(e^2 - 1)) = 2.469628 < 2.46964, so delta is 0"),
    PeerValue(source=SOURCE, where=f"{ACC}:331", commit=COMMIT, setting=_poisson(0.2),
              accountant=ACCOUNTANT,
              mechanism=("laplace", 0.5), steps=3, quantity="epsilon", at=1e-14,
              value=2.46964, direction="exact", peer_tolerance=1e-3,
              reason=("the peer's exact_epsilon (the pure-DP eps 2.469628; the loss reaches it "
                      "with probability 0.154^3, so eps(1e-14) equals it to 1e-11)")),
    # Not comparable.
    _none(f"{ACC}:316", "epsilon", 1e-14, 4.0, mechanism=("laplace", 1.0), steps=5,
          reason="3 x Laplace(1) composed with 2 x Laplace(2): a row has one mechanism"),
    _none(f"{ACC}:348", "epsilon", 0.0, 4.0, mechanism=("discrete_laplace", 1.0), steps=5,
          reason="discrete Laplace: otbound has no discrete mechanisms"),
    _none(f"{ACC}:371", "epsilon", 1e-6, 17.193115, steps=5,
          reason="mixture of Gaussians (several sensitivities): otbound lacks it"),
    _none(f"{ACC}:397", "epsilon", 1e-6, 17.904330, steps=5,
          reason=("truncated Poisson Gaussian at two dataset sizes composed: a row has one "
                  "setting, and the truncated-Poisson setting is not a row setting")),
    _none(f"{ACC}:101", "delta", 1.0, 0.0,
          mechanism=("randomized_response_k", 4 / (3 + math.e), 4),
          reason="randomized response with 4 buckets (REPLACE_ONE): k > 2"),
    _none(f"{ACC}:103", "delta", 1.0, 0.0,
          mechanism=("randomized_response_k", (4 - math.e) / 3, 4),
          reason="randomized response with 4 buckets, REPLACE_SPECIAL: k > 2, special bucket"),
    _none(f"{ACC}:105", "delta", 1.0, 0.0,
          mechanism=("randomized_response", 1 - math.exp(-1) / 2),
          reason=("binary randomized response under REPLACE_SPECIAL (a record against a "
                  "special one answered uniformly): otbound's pair is theta against 1 - theta")),
    # ---- Pessimistic PLDs at discretisation 1 (privacy_loss_distribution_test.py) ----
    # Binary randomized response, noise 0.5 (truth w.p. 0.75), REPLACE_ONE: {2: .75, -1: .25}.
    _pmf(2720, "RR", 0.75, None, 1.0, 0.0, 0.6484985375725405, 6.5e-6,
         "randomized response, noise 0.5, 2 buckets, REPLACE_ONE"),
    _pmf(2720, "RR", 0.75, None, 1.0, 1.0, 0.47409041912141825, 4.8e-6,
         "randomized response, noise 0.5, 2 buckets, REPLACE_ONE"),
    # Laplace (1, 1), q = 1: {1: .69673467, 0: .11932561, -1: .18393972}.
    _pmf(516, "L", 1.0, 1.0, 1.0, 0.0, 0.4404203089556307, 4.5e-6, "Laplace 1, q = 1"),
    _pmf(516, "L", 1.0, 1.0, 1.0, 0.5, 0.27414373096023603, 2.8e-6, "Laplace 1, q = 1"),
    # Laplace (1, 1), q = 0.8: ADD {1: .69673467, 0: .30326533}, REMOVE {1: .6180408, ...}.
    _pmf(541, "L", 1.0, 1.0, 0.8, 0.0, 0.4404203089556307, 4.5e-6,
         "Laplace 1, q = 0.8, the larger of ADD and REMOVE"),
    # Laplace (2, 4), q = 0.3: ADD {1: .81606028, ...}, REMOVE {2: .20651251, 1: .16706338, ...}.
    _pmf(564, "L", 2.0, 4.0, 0.3, 0.0, 0.5158484802313892, 5.2e-6,
         "Laplace 2, sensitivity 4, q = 0.3, ADD (the larger)"),
    _pmf(564, "L", 2.0, 4.0, 0.3, 1.0, 0.1305408032262881, 1.4e-6,
         "Laplace 2, sensitivity 4, q = 0.3, REMOVE (ADD is 0)"),
    # Gaussian (1, 1), q = 1, connect-the-dots (pessimistic), infinity mass 0.020923636.
    _pmf(950, "G", 1.0, 1.0, 1.0, 0.0, 0.38292492219920504, 3.7e-6,
         "Gaussian 1, q = 1, connect-the-dots, truncated at 2 Phi(-0.9)"),
    _pmf(950, "G", 1.0, 1.0, 1.0, 1.0, 0.12693673737612102, 1.2e-6,
         "Gaussian 1, q = 1, connect-the-dots, truncated at 2 Phi(-0.9)"),
    # Gaussian (1, 1), q = 0.8, connect-the-dots: ADD inf 0.023136210, REMOVE inf 0.010728796.
    _pmf(1017, "G", 1.0, 1.0, 0.8, 0.0, 0.306339937759277, 3.1e-6,
         "Gaussian 1, q = 0.8, connect-the-dots, the larger of ADD and REMOVE"),
    _pmf(1017, "G", 1.0, 1.0, 0.8, 1.0, 0.08169517844577733, 8e-7,
         "Gaussian 1, q = 0.8, connect-the-dots, REMOVE (the larger)"),
)
