"""Values of microsoft/prv_accountant's test suite (and README), transcribed as facts.

Most of its tests assert against formulas or brackets rather than printed numbers: the exact
rows are the closed forms the tests compare with, evaluated at the tests' settings; the
bracket rows (eps_lower / eps_upper of the PRV accountant) were computed by running the
peer's own code at the commit named in each row, at the settings its tests use."""

from peer_values import PeerValue

SOURCE = "prv_accountant"
COMMIT_0 = 'a844f7200af2722d6a81e0386b2b7351688ecf35'
COMMIT_1 = '9d736f934d72b4e39220a5d35a8684d1608a39cb'

# The reasons, shared by the rows that cite them.
REASON_0 = (
    'closed-form delta of the composed Gaussian (mu = sqrt(T)/sigma) that the test brackets; '
    "value is the test's own formula evaluated in 60-digit arithmetic (mpmath)"
)
REASON_1 = (
    'closed-form delta of the composed Gaussian (mu = sqrt(T)/sigma) that the test brackets; '
    "value is the test's own formula evaluated in 60-digit arithmetic (mpmath); it underflows"
    ' to 0 in double, so one subnormal of slack'
)
REASON_2 = (
    '50 steps of sigma=10 then 50 of sigma=5 compose exactly to one Gaussian with mu = '
    'sqrt(50/100 + 50/25) = sqrt(2.5), i.e. noise multiplier 1/sqrt(2.5) (as a double: mu '
    "2e-16 relative smaller); the test's closed form at mu = sqrt(2.5) in 60 digits"
)
REASON_3 = 'closed-form delta of the composed Gaussian (mu = 1) in an earlier version of the test'
REASON_4 = (
    "Renyi divergence of the subsampled Gaussian (TF Privacy's series, exact); the test "
    "asserts it equals TF Privacy's compute_rdp to 6 decimals (line 89); value is the peer's "
    'rdp() at this commit'
)
REASON_5 = (
    "the peer's Poisson subsampled Gaussian is the remove direction only (mixture vs N(0)), "
    "so the row uses otbound's removal-only setting; PRV accountant's eps_lower (a sound "
    "lower bound), eps_error 0.1, delta_error 1e-10 as in the README's DP-SGD example; no "
    "number is printed there: computed by running the peer's code at this commit"
)
REASON_6 = (
    "the peer's Poisson subsampled Gaussian is the remove direction only (mixture vs N(0)), "
    "so the row uses otbound's removal-only setting; PRV accountant's eps_upper (a sound "
    "upper bound), eps_error 0.1, delta_error 1e-10 as in the README's DP-SGD example; no "
    "number is printed there: computed by running the peer's code at this commit"
)
REASON_7 = (
    "the peer's Poisson subsampled Gaussian is the remove direction only (mixture vs N(0)), "
    "so the row uses otbound's removal-only setting; PRV accountant's eps_lower (a sound "
    'lower bound), eps_error 0.1, delta_error delta/1000, max_compositions 1000; no number is'
    " printed there: computed by running the peer's code at this commit"
)
REASON_8 = (
    "the peer's Poisson subsampled Gaussian is the remove direction only (mixture vs N(0)), "
    "so the row uses otbound's removal-only setting; PRV accountant's eps_upper (a sound "
    'upper bound), eps_error 0.1, delta_error delta/1000, max_compositions 1000; no number is'
    " printed there: computed by running the peer's code at this commit"
)
REASON_9 = (
    "the peer's Poisson subsampled Gaussian is the remove direction only (mixture vs N(0)), "
    "so the row uses otbound's removal-only setting; PRV accountant's eps_lower (a sound "
    'lower bound), eps_error 0.1, delta_error 1e-8; no number is printed there: computed by '
    "running the peer's code at this commit"
)
REASON_10 = (
    "the peer's Poisson subsampled Gaussian is the remove direction only (mixture vs N(0)), "
    "so the row uses otbound's removal-only setting; PRV accountant's eps_upper (a sound "
    'upper bound), eps_error 0.1, delta_error 1e-8; no number is printed there: computed by '
    "running the peer's code at this commit"
)
REASON_11 = (
    "the peer's Poisson subsampled Gaussian is the remove direction only (mixture vs N(0)), "
    "so the row uses otbound's removal-only setting; PRV accountant's eps_lower (a sound "
    'lower bound), eps_error 0.1, delta_error delta/100; no number is printed there: computed'
    " by running the peer's code at this commit"
)
REASON_12 = (
    "the peer's Poisson subsampled Gaussian is the remove direction only (mixture vs N(0)), "
    "so the row uses otbound's removal-only setting; PRV accountant's eps_upper (a sound "
    'upper bound), eps_error 0.1, delta_error delta/100; no number is printed there: computed'
    " by running the peer's code at this commit"
)
REASON_13 = (
    "the peer's Poisson subsampled Gaussian is the remove direction only (mixture vs N(0)), "
    "so the row uses otbound's removal-only setting; PRV accountant's eps_lower (a sound "
    "lower bound), eps_error 0.5, delta_error 1e-9, at the noise multiplier the peer's "
    'find_noise_multiplier returns for target epsilon 4 (line 17); no number is printed '
    "there: computed by running the peer's code at this commit"
)
REASON_14 = (
    "the peer's Poisson subsampled Gaussian is the remove direction only (mixture vs N(0)), "
    "so the row uses otbound's removal-only setting; PRV accountant's eps_upper (a sound "
    "upper bound), eps_error 0.5, delta_error 1e-9, at the noise multiplier the peer's "
    'find_noise_multiplier returns for target epsilon 4 (line 17); no number is printed '
    "there: computed by running the peer's code at this commit"
)
REASON_15 = (
    "PRV accountant's eps_lower (a sound lower bound), eps_error 0.1, delta_error delta/1000;"
    " no number is printed there: computed by running the peer's code at this commit"
)
REASON_16 = (
    "PRV accountant's eps_upper (a sound upper bound), eps_error 0.1, delta_error delta/1000;"
    " no number is printed there: computed by running the peer's code at this commit"
)
REASON_17 = (
    "the test's analytic bound mu*n*sqrt(2 log(1/delta)), at least n*mu (pure composition), "
    'so a sound upper bound on epsilon'
)
REASON_18 = (
    "the test's analytic bound mu*n*sqrt(2 log(1/delta)) >= n*mu, a sound (very loose) upper "
    'bound; RDP accountant because a 100000-step PLD costs ~20 s here and the bound is loose'
)
REASON_19 = (
    'composition of an (0, delta)-DP guarantee (ApproximateDPMechanism): otbound has no '
    'generic (epsilon, delta)-DP mechanism'
)
REASON_20 = (
    'heterogeneous composition (100 subsampled Gaussian, 200 Gaussian sigma=8, 100 Laplace '
    "mu=0.1 steps); a row holds one mechanism; value is the peer's eps_upper, computed by "
    'running its code'
)


def _row(where, setting, mechanism, steps, quantity, at, value, direction, reason, commit,
         **options) -> PeerValue:
    return PeerValue(SOURCE, where, setting, mechanism, steps, quantity, at, value, direction,
                     reason=reason, commit=commit, **options)


ROWS = (
    _row('tests/test_accountant.py:31', {'scheme': 'poisson', 'rate': 1.0}, ('gaussian', 100.0),
         9999, 'delta', 0.1, 0.35230675760350594, 'exact', REASON_0, COMMIT_0,
         peer_tolerance=3.52306757603506e-16, accountant='pld'),
    _row('tests/test_accountant.py:31', {'scheme': 'poisson', 'rate': 1.0}, ('gaussian', 100.0),
         9999, 'delta', 1.0, 0.12691913413029954, 'exact', REASON_0, COMMIT_0,
         peer_tolerance=1.269191341302995e-16, accountant='pld'),
    _row('tests/test_accountant.py:31', {'scheme': 'poisson', 'rate': 1.0}, ('gaussian', 100.0),
         10000, 'delta', 0.1, 0.3523251716813667, 'exact', REASON_0, COMMIT_0,
         peer_tolerance=3.5232517168136663e-16, accountant='pld'),
    _row('tests/test_accountant.py:31', {'scheme': 'poisson', 'rate': 1.0}, ('gaussian', 100.0),
         10000, 'delta', 1.0, 0.12693673750664394, 'exact', REASON_0, COMMIT_0,
         peer_tolerance=1.2693673750664393e-16, accountant='pld'),
    _row('tests/test_accountant.py:31', {'scheme': 'poisson', 'rate': 1.0}, ('gaussian', 100.0),
         10000, 'delta', 10.0, 9.812705826846956e-23, 'exact', REASON_0, COMMIT_0,
         peer_tolerance=9.812705826847544e-38),
    _row('tests/test_accountant.py:31', {'scheme': 'poisson', 'rate': 1.0}, ('gaussian', 100.0),
         10000, 'delta', 100.0, 0.0, 'exact', REASON_1, COMMIT_0, peer_tolerance=5e-324),
    _row('tests/test_accountant.py:46', {'scheme': 'poisson', 'rate': 1.0},
         ('gaussian', 0.6324555320336759), 1, 'delta', 4.0, 0.016455672864108928, 'exact',
         REASON_2, COMMIT_0, peer_tolerance=1e-17, accountant='pld'),
    _row('tests/test_accountant.py:30', {'scheme': 'poisson', 'rate': 1.0}, ('gaussian', 100.0),
         10000, 'delta', 4.0, 4.71224120079312e-05, 'exact', REASON_3, COMMIT_1,
         peer_tolerance=1e-19, accountant='pld'),
    _row('tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
         {'scheme': 'poisson', 'rate': 0.01}, ('gaussian', 1.0), 1, 'rdp', 1.1,
         9.241470982855839e-05, 'exact', REASON_4, COMMIT_0, peer_tolerance=1.5e-06),
    _row('tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
         {'scheme': 'poisson', 'rate': 0.01}, ('gaussian', 1.0), 1, 'rdp', 1.5,
         0.00012725374351154145, 'exact', REASON_4, COMMIT_0, peer_tolerance=1.5e-06),
    _row('tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
         {'scheme': 'poisson', 'rate': 0.01}, ('gaussian', 1.0), 1, 'rdp', 2.0,
         0.00017181342207453428, 'exact', REASON_4, COMMIT_0, peer_tolerance=1.5e-06),
    _row('tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
         {'scheme': 'poisson', 'rate': 0.01}, ('gaussian', 1.0), 1, 'rdp', 2.5,
         0.00021757533233085147, 'exact', REASON_4, COMMIT_0, peer_tolerance=1.5e-06),
    _row('tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
         {'scheme': 'poisson', 'rate': 0.01}, ('gaussian', 1.0), 1, 'rdp', 3.0,
         0.00026463757458465543, 'exact', REASON_4, COMMIT_0, peer_tolerance=1.5e-06),
    _row('tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
         {'scheme': 'poisson', 'rate': 0.01}, ('gaussian', 1.0), 1, 'rdp', 4.0,
         0.00036315404891075525, 'exact', REASON_4, COMMIT_0, peer_tolerance=1.5e-06),
    _row('tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
         {'scheme': 'poisson', 'rate': 0.01}, ('gaussian', 1.0), 1, 'rdp', 5.5,
         0.0005246956673178559, 'exact', REASON_4, COMMIT_0, peer_tolerance=1.5e-06),
    _row('tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
         {'scheme': 'poisson', 'rate': 0.01}, ('gaussian', 1.0), 1, 'rdp', 8.0,
         0.0008936439076060318, 'exact', REASON_4, COMMIT_0, peer_tolerance=1.5e-06),
    _row('tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
         {'scheme': 'poisson', 'rate': 0.01}, ('gaussian', 1.0), 1, 'rdp', 10.9,
         0.3876114113003885, 'exact', REASON_4, COMMIT_0, peer_tolerance=1.5e-06),
    _row('tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
         {'scheme': 'poisson', 'rate': 0.01}, ('gaussian', 1.0), 1, 'rdp', 12.0,
         0.9780117180253621, 'exact', REASON_4, COMMIT_0, peer_tolerance=1.5e-06),
    _row('tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
         {'scheme': 'poisson', 'rate': 0.01}, ('gaussian', 1.0), 1, 'rdp', 16.0, 3.087850783696245,
         'exact', REASON_4, COMMIT_0, peer_tolerance=1.5e-06),
    _row('tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
         {'scheme': 'poisson', 'rate': 0.01}, ('gaussian', 1.0), 1, 'rdp', 20.0, 5.1524530196775,
         'exact', REASON_4, COMMIT_0, peer_tolerance=1.5e-06),
    _row('tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
         {'scheme': 'poisson', 'rate': 0.01}, ('gaussian', 1.0), 1, 'rdp', 32.0,
         11.246275937048072, 'exact', REASON_4, COMMIT_0, peer_tolerance=1.5e-06),
    _row('tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
         {'scheme': 'poisson', 'rate': 0.01}, ('gaussian', 1.0), 1, 'rdp', 48.0,
         19.296847469629185, 'exact', REASON_4, COMMIT_0, peer_tolerance=1.5e-06),
    _row('tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
         {'scheme': 'poisson', 'rate': 0.01}, ('gaussian', 1.0), 1, 'rdp', 63.0,
         26.820552875528232, 'exact', REASON_4, COMMIT_0, peer_tolerance=1.5e-06),
    _row('README.md:145', {'scheme': 'poisson', 'rate': 0.005, 'insertions': 0, 'removals': 1},
         ('gaussian', 0.8), 1000, 'epsilon', 1e-06, 1.9039518173599024, 'lower', REASON_5,
         COMMIT_0, accountant='pld'),
    _row('README.md:145', {'scheme': 'poisson', 'rate': 0.005, 'insertions': 0, 'removals': 1},
         ('gaussian', 0.8), 1000, 'epsilon', 1e-06, 2.10398929481545, 'upper', REASON_6, COMMIT_0,
         accountant='pld'),
    _row('tests/test_backwards_compatibility.py:15',
         {'scheme': 'poisson', 'rate': 0.005, 'insertions': 0, 'removals': 1}, ('gaussian', 0.8),
         10, 'epsilon', 1e-06, 0.6872174370486688, 'lower', REASON_7, COMMIT_0, accountant='pld'),
    _row('tests/test_backwards_compatibility.py:15',
         {'scheme': 'poisson', 'rate': 0.005, 'insertions': 0, 'removals': 1}, ('gaussian', 0.8),
         10, 'epsilon', 1e-06, 0.8875447641311621, 'upper', REASON_8, COMMIT_0, accountant='pld'),
    _row('tests/test_accountant.py:86',
         {'scheme': 'poisson', 'rate': 0.00256, 'insertions': 0, 'removals': 1}, ('gaussian', 0.9),
         4900, 'epsilon', 1e-05, 1.039977828643593, 'lower', REASON_9, COMMIT_0, accountant='pld'),
    _row('tests/test_accountant.py:86',
         {'scheme': 'poisson', 'rate': 0.00256, 'insertions': 0, 'removals': 1}, ('gaussian', 0.9),
         4900, 'epsilon', 1e-05, 1.2401464035680627, 'upper', REASON_10, COMMIT_0,
         accountant='pld'),
    _row('tests/test_discrete_privacy_random_variable.py:18',
         {'scheme': 'poisson', 'rate': 0.001, 'insertions': 0, 'removals': 1}, ('gaussian', 1.0),
         100, 'epsilon', 1e-07, 0.027392969514540417, 'lower', REASON_11, COMMIT_0,
         accountant='pld'),
    _row('tests/test_discrete_privacy_random_variable.py:18',
         {'scheme': 'poisson', 'rate': 0.001, 'insertions': 0, 'removals': 1}, ('gaussian', 1.0),
         100, 'epsilon', 1e-07, 0.22785310286933264, 'upper', REASON_12, COMMIT_0,
         accountant='pld'),
    _row('tests/test_dpsgd.py:19',
         {'scheme': 'poisson', 'rate': 0.002, 'insertions': 0, 'removals': 1},
         ('gaussian', 0.6764091442228624), 10000, 'epsilon', 1e-07, 3.4379247843817042, 'lower',
         REASON_13, COMMIT_0, accountant='pld'),
    _row('tests/test_dpsgd.py:19',
         {'scheme': 'poisson', 'rate': 0.002, 'insertions': 0, 'removals': 1},
         ('gaussian', 0.6764091442228624), 10000, 'epsilon', 1e-07, 4.443028891064294, 'upper',
         REASON_14, COMMIT_0, accountant='pld'),
    _row('tests/test_privacy_random_variables/test_laplace.py:30',
         {'scheme': 'poisson', 'rate': 1.0}, ('laplace', 1.0, 0.01), 10000, 'epsilon', 1e-06,
         4.767408935391428, 'lower', REASON_15, COMMIT_0, accountant='pld'),
    _row('tests/test_privacy_random_variables/test_laplace.py:30',
         {'scheme': 'poisson', 'rate': 1.0}, ('laplace', 1.0, 0.01), 10000, 'epsilon', 1e-06,
         4.967827516573777, 'upper', REASON_16, COMMIT_0, accountant='pld'),
    _row('tests/test_privacy_random_variables/test_laplace.py:31',
         {'scheme': 'poisson', 'rate': 1.0}, ('laplace', 1.0, 0.01), 10000, 'epsilon', 1e-06,
         525.6521769756932, 'upper', REASON_17, COMMIT_0, accountant='pld'),
    _row('tests/test_privacy_random_variables/test_laplace.py:31',
         {'scheme': 'poisson', 'rate': 1.0}, ('laplace', 1.0, 0.01), 100000, 'epsilon', 1e-05,
         4798.525912188081, 'upper', REASON_18, COMMIT_0, accountant='rdp'),
    _row('tests/test_privacy_random_variables/test_laplace.py:31',
         {'scheme': 'poisson', 'rate': 1.0}, ('laplace', 1.0, 0.01), 100000, 'epsilon', 1e-06,
         5256.521769756932, 'upper', REASON_18, COMMIT_0, accountant='rdp'),
    _row('tests/test_privacy_random_variables/test_approximate_dp.py:42',
         {'scheme': 'poisson', 'rate': 1.0}, ('approximate_dp', 0.0, 1e-07), 10000, 'delta', 0.0,
         0.0009995002165750365, 'none', REASON_19, COMMIT_0),
    _row('tests/test_privacy_random_variables/test_approximate_dp.py:42',
         {'scheme': 'poisson', 'rate': 1.0}, ('approximate_dp', 0.0, 1e-08), 10000, 'delta', 0.0,
         9.999500066661252e-05, 'none', REASON_19, COMMIT_0),
    _row('tests/test_privacy_random_variables/test_approximate_dp.py:42',
         {'scheme': 'poisson', 'rate': 1.0}, ('approximate_dp', 0.0, 1e-07), 100000, 'delta', 0.0,
         0.009950166745856895, 'none', REASON_19, COMMIT_0),
    _row('tests/test_privacy_random_variables/test_approximate_dp.py:42',
         {'scheme': 'poisson', 'rate': 1.0}, ('approximate_dp', 0.0, 1e-08), 100000, 'delta', 0.0,
         0.000999500171620011, 'none', REASON_19, COMMIT_0),
    _row('tests/test_readme.py:22', {'scheme': 'poisson', 'rate': 0.005}, ('gaussian', 0.8), 100,
         'epsilon', 1e-06, 11.253428017958752, 'none', REASON_20, COMMIT_0),
)
