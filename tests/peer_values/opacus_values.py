"""Opacus (github:pytorch/opacus) accounting values from its own tests.

``opacus/tests/accountants_test.py``: the RDP accountant (orders 1.1, 1.2, …, 10.9 and
12, …, 63; Balle et al. 2020's conversion), the PRV accountant (Gopi et al.; ``get_epsilon``
returns the upper end ``eps_upper`` at ``eps_error`` = 0.01, ``delta_error`` = δ/1000), the GDP
accountant (the central-limit approximation of Bu et al.), and ``get_noise_multiplier``
(bisection on σ until the accountant's ε is below the target and within ``epsilon_tolerance``
= 0.01 of it).
``opacus/tests/prv_accountant.py``: PRV ε at δ = 1e-6 for (σ, q, steps), checked to places=4
(the values are said to come from microsoft/prv_accountant).

Every setting is the Poisson-subsampled Gaussian with noise multiplier σ. The peer's PRV
(``PoissonSubsampledGaussianPRV``, support t > log(1 - q)) is the removal direction only (the
subsampled mixture is the first distribution), so its rows use ``removals=1``, which is also
half the cost; otbound's add-or-remove default gives the same ε at every row here (the removal
direction dominates). The RDP rows keep the default relation (Mironov et al. 2019: the
removal direction is the larger one for the sampled Gaussian's Rényi divergence).

Left out for evaluation time (composed PLDs of 0.4-2 s each; all of them passed, each about
0.0101 below the peer): prv_accountant.py lines 23, 27, 29, 31, 32, 34, 35, 39, 41, 49, 50, 51,
56, 57. The lines commented out in the peer (47, 55, 59-62) are not tested there either.
"""

from peer_values import PeerValue

SOURCE = "opacus"
COMMIT = "4d0ebc84613d214fbfd37fbfd1390e3747a625ce"
ACCOUNTANTS = "opacus/tests/accountants_test.py"
PRV_TEST = "opacus/tests/prv_accountant.py"

_RDP = "Opacus's RDP accountant: a sound upper bound (otbound searches more orders)"
_PRV = ("Opacus's PRV accountant returns eps_upper (estimate at delta - delta_error plus "
        "eps_error = 0.01): a sound upper bound; its PRV is the removal direction")
_GDP = ("Opacus's GDP accountant is the CLT approximation (mu = q sqrt(T (e^(1/sigma^2) - 1)), "
        "then mu-GDP's profile): not a bound in either direction; here it is below the tight "
        "value (6.767)")


def _calibrated(line, sigma, steps, accountant, conversion, what, slope_tol, relation=None):
    """A noise multiplier returned by get_noise_multiplier: the peer promises eps <= 8 at it.
    sigma is pinned to places=4 only, so eps at the published sigma may be above eps at the
    returned one by |d eps / d sigma| * 5e-5 (slope_tol)."""
    return PeerValue(
        source=SOURCE, where=f"{ACCOUNTANTS}:{line}", commit=COMMIT,
        setting={"scheme": "poisson", "rate": 0.04, **(relation or {})},
        mechanism=("gaussian", sigma),
        steps=steps, quantity="epsilon", at=1e-5, value=8.0, direction="upper",
        peer_tolerance=slope_tol, accountant=accountant, conversion=conversion,
        reason=(f"get_noise_multiplier({what}) returns sigma with eps <= target 8; "
                "peer_tolerance = |d eps/d sigma| * 5e-5 for sigma's places=4"))


_REMOVAL = {"insertions": 0, "removals": 1}


def _msr(line, sigma, rate, steps, value):
    return PeerValue(
        source=SOURCE, where=f"{PRV_TEST}:{line}", commit=COMMIT,
        setting={"scheme": "poisson", "rate": rate, **_REMOVAL}, mechanism=("gaussian", sigma),
        steps=steps, quantity="epsilon", at=1e-6, value=value, direction="upper",
        peer_tolerance=5e-5, accountant="pld", reason=_PRV)


ROWS = (
    # RDP accountant, sigma 1.5, q 0.04, int(90 / 0.04) = 2250 steps, delta 1e-5; places=7.
    PeerValue(source=SOURCE, where=f"{ACCOUNTANTS}:104", commit=COMMIT,
              setting={"scheme": "poisson", "rate": 0.04}, mechanism=("gaussian", 1.5),
              steps=2250, quantity="epsilon", at=1e-5, value=7.32911117143,
              direction="upper", peer_tolerance=5e-8, tolerance=1e-6, accountant="rdp",
              conversion="balle2020", reason=_RDP),
    # The same run restored from a state dict (test_accountant_load_state_dict).
    PeerValue(source=SOURCE, where=f"{ACCOUNTANTS}:290", commit=COMMIT,
              setting={"scheme": "poisson", "rate": 0.04}, mechanism=("gaussian", 1.5),
              steps=2250, quantity="epsilon", at=1e-5, value=7.32911117143,
              direction="upper", peer_tolerance=5e-8, tolerance=1e-6, accountant="rdp",
              conversion="balle2020", reason=_RDP),
    # GDP accountant, int(90 // 0.04) = 2249 steps: 6.59 < eps < 6.6.
    PeerValue(source=SOURCE, where=f"{ACCOUNTANTS}:116", commit=COMMIT,
              setting={"scheme": "poisson", "rate": 0.04}, mechanism=("gaussian", 1.5),
              steps=2249, quantity="epsilon", at=1e-5, value=6.595, direction="none",
              peer_tolerance=0.005, accountant="pld", reason=_GDP),
    # PRV accountant, 2249 steps; places=7.
    PeerValue(source=SOURCE, where=f"{ACCOUNTANTS}:130", commit=COMMIT,
              setting={"scheme": "poisson", "rate": 0.04, **_REMOVAL},
              mechanism=("gaussian", 1.5),
              steps=2249, quantity="epsilon", at=1e-5, value=6.777395712150674,
              direction="upper", peer_tolerance=5e-8, accountant="pld", reason=_PRV),
    # get_noise_multiplier, target (8, 1e-5), q 0.04.
    _calibrated(146, 1.416, 2250, "rdp", "balle2020", "rdp, 90 epochs", 4.4e-4),
    _calibrated(161, 1.3562, 2000, "rdp", "balle2020", "rdp, 2000 steps", 4.7e-4),
    _calibrated(177, 1.34765625, 2250, "pld", "optimal", "prv, 90 epochs", 5.1e-4, _REMOVAL),
    _calibrated(193, 1.2915, 2000, "pld", "optimal", "prv, 2000 steps", 5.4e-4, _REMOVAL),
    PeerValue(source=SOURCE, where=f"{ACCOUNTANTS}:234", commit=COMMIT,
              setting={"scheme": "poisson", "rate": 0.04},
              mechanism=("gaussian", 1.3232421875),
              steps=2250, quantity="epsilon", at=1e-5, value=8.0, direction="none",
              peer_tolerance=5.5e-7, accountant="pld",
              reason=("get_noise_multiplier(gdp, 90 epochs): eps <= 8 by the GDP CLT "
                      "approximation, which is not a bound (the tight eps there is 8.22)")),
    # PRV accountant at delta 1e-6 (microsoft/prv_accountant values), places=4.
    _msr(24, 1.5, 0.001, 100, 0.0393694193095203287535710501288),
    _msr(25, 2.0, 0.001, 100, 0.0291045369484074882560076247273),
    _msr(26, 3.0, 0.001, 100, 0.0215200934390882663016508757892),
    _msr(28, 1.5, 0.05, 100, 1.95385313568420015961635272106),
    _msr(30, 3.0, 0.05, 100, 0.767933789666825572517439013609),
    _msr(33, 2.0, 0.2, 100, 5.67205560882372950004537415225),
    _msr(36, 1.5, 0.001, 1000, 0.0998206602308474855167474970585),
    _msr(37, 2.0, 0.001, 1000, 0.0712187825381152272985474382949),
    _msr(38, 3.0, 0.001, 1000, 0.0476159308713589302097801692071),
    _msr(40, 1.5, 0.05, 1000, 6.20996924657726712126759593957),
    _msr(42, 3.0, 0.05, 1000, 2.52757432605973830774814814504),
    _msr(43, 0.8, 0.001, 20000, 1.29600925757016161021795142005),
    _msr(44, 1.5, 0.001, 20000, 0.437005108654860807693154356457),
    _msr(45, 2.0, 0.001, 20000, 0.305837939762453436820521801565),
    _msr(46, 3.0, 0.001, 20000, 0.194031030686054706269061398416),
    _msr(48, 1.5, 0.05, 20000, 38.3066179140872336006395926233),
    _msr(52, 1.5, 0.001, 50000, 0.704218384555810095193351116905),
    _msr(53, 2.0, 0.001, 50000, 0.491354910211401318953505779064),
    _msr(54, 3.0, 0.001, 50000, 0.309694161156544023327796821832),
    _msr(58, 3.0, 0.05, 50000, 24.9420056431444763234139827546),
)
