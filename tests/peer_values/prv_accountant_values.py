"""Values of microsoft/prv_accountant's test suite (and README), transcribed as facts.

Most of its tests assert against formulas or brackets rather than printed numbers: the exact
rows are the closed forms the tests compare with, evaluated at the tests' settings; the
bracket rows (eps_lower / eps_upper of the PRV accountant) were computed by running the
peer's own code at the commit named in each row, at the settings its tests use."""

from peer_values import PeerValue

SOURCE = "prv_accountant"

ROWS = (
    PeerValue(
        source=SOURCE,
        where='tests/test_accountant.py:31',
        setting={'scheme': 'poisson', 'rate': 1.0},
        mechanism=('gaussian', 100.0),
        steps=9999,
        quantity='delta',
        at=0.1,
        value=0.35230675760350594,
        direction='exact',
        peer_tolerance=3.52306757603506e-16,
        accountant='pld',
        reason=(
            'closed-form delta of the composed Gaussian (mu = sqrt(T)/sigma) that the test '
            "brackets; value is the test's own formula evaluated in 60-digit arithmetic (mpmath)"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_accountant.py:31',
        setting={'scheme': 'poisson', 'rate': 1.0},
        mechanism=('gaussian', 100.0),
        steps=9999,
        quantity='delta',
        at=1.0,
        value=0.12691913413029954,
        direction='exact',
        peer_tolerance=1.269191341302995e-16,
        accountant='pld',
        reason=(
            'closed-form delta of the composed Gaussian (mu = sqrt(T)/sigma) that the test '
            "brackets; value is the test's own formula evaluated in 60-digit arithmetic (mpmath)"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_accountant.py:31',
        setting={'scheme': 'poisson', 'rate': 1.0},
        mechanism=('gaussian', 100.0),
        steps=10000,
        quantity='delta',
        at=0.1,
        value=0.3523251716813667,
        direction='exact',
        peer_tolerance=3.5232517168136663e-16,
        accountant='pld',
        reason=(
            'closed-form delta of the composed Gaussian (mu = sqrt(T)/sigma) that the test '
            "brackets; value is the test's own formula evaluated in 60-digit arithmetic (mpmath)"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_accountant.py:31',
        setting={'scheme': 'poisson', 'rate': 1.0},
        mechanism=('gaussian', 100.0),
        steps=10000,
        quantity='delta',
        at=1.0,
        value=0.12693673750664394,
        direction='exact',
        peer_tolerance=1.2693673750664393e-16,
        accountant='pld',
        reason=(
            'closed-form delta of the composed Gaussian (mu = sqrt(T)/sigma) that the test '
            "brackets; value is the test's own formula evaluated in 60-digit arithmetic (mpmath)"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_accountant.py:31',
        setting={'scheme': 'poisson', 'rate': 1.0},
        mechanism=('gaussian', 100.0),
        steps=10000,
        quantity='delta',
        at=10.0,
        value=9.812705826846956e-23,
        direction='exact',
        peer_tolerance=9.812705826847544e-38,
        accountant='best',
        reason=(
            'closed-form delta of the composed Gaussian (mu = sqrt(T)/sigma) that the test '
            "brackets; value is the test's own formula evaluated in 60-digit arithmetic (mpmath)"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_accountant.py:31',
        setting={'scheme': 'poisson', 'rate': 1.0},
        mechanism=('gaussian', 100.0),
        steps=10000,
        quantity='delta',
        at=100.0,
        value=0.0,
        direction='exact',
        peer_tolerance=5e-324,
        accountant='best',
        reason=(
            'closed-form delta of the composed Gaussian (mu = sqrt(T)/sigma) that the test '
            "brackets; value is the test's own formula evaluated in 60-digit arithmetic (mpmath); it "
            'underflows to 0 in double, so one subnormal of slack'
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_accountant.py:46',
        setting={'scheme': 'poisson', 'rate': 1.0},
        mechanism=('gaussian', 0.6324555320336759),
        steps=1,
        quantity='delta',
        at=4.0,
        value=0.016455672864108928,
        direction='exact',
        peer_tolerance=1e-17,
        accountant='pld',
        reason=(
            '50 steps of sigma=10 then 50 of sigma=5 compose exactly to one Gaussian with mu = '
            "sqrt(50/100 + 50/25) = sqrt(2.5), i.e. noise multiplier 1/sqrt(2.5) (as a double: mu "
            '2e-16 relative smaller); the test\'s closed form at mu = sqrt(2.5) in 60 digits'
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_accountant.py:30',
        setting={'scheme': 'poisson', 'rate': 1.0},
        mechanism=('gaussian', 100.0),
        steps=10000,
        quantity='delta',
        at=4.0,
        value=4.71224120079312e-05,
        direction='exact',
        peer_tolerance=1e-19,
        accountant='pld',
        reason=(
            'closed-form delta of the composed Gaussian (mu = 1) in an earlier version of the '
            'test'
        ),
        commit='9d736f934d72b4e39220a5d35a8684d1608a39cb',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
        setting={'scheme': 'poisson', 'rate': 0.01},
        mechanism=('gaussian', 1.0),
        steps=1,
        quantity='rdp',
        at=1.1,
        value=9.241470982855839e-05,
        direction='exact',
        peer_tolerance=1.5e-06,
        reason=(
            "Renyi divergence of the subsampled Gaussian (TF Privacy's series, exact); the test "
            "asserts it equals TF Privacy's compute_rdp to 6 decimals (line 89); value is the "
            "peer's rdp() at this commit"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
        setting={'scheme': 'poisson', 'rate': 0.01},
        mechanism=('gaussian', 1.0),
        steps=1,
        quantity='rdp',
        at=1.5,
        value=0.00012725374351154145,
        direction='exact',
        peer_tolerance=1.5e-06,
        reason=(
            "Renyi divergence of the subsampled Gaussian (TF Privacy's series, exact); the test "
            "asserts it equals TF Privacy's compute_rdp to 6 decimals (line 89); value is the "
            "peer's rdp() at this commit"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
        setting={'scheme': 'poisson', 'rate': 0.01},
        mechanism=('gaussian', 1.0),
        steps=1,
        quantity='rdp',
        at=2.0,
        value=0.00017181342207453428,
        direction='exact',
        peer_tolerance=1.5e-06,
        reason=(
            "Renyi divergence of the subsampled Gaussian (TF Privacy's series, exact); the test "
            "asserts it equals TF Privacy's compute_rdp to 6 decimals (line 89); value is the "
            "peer's rdp() at this commit"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
        setting={'scheme': 'poisson', 'rate': 0.01},
        mechanism=('gaussian', 1.0),
        steps=1,
        quantity='rdp',
        at=2.5,
        value=0.00021757533233085147,
        direction='exact',
        peer_tolerance=1.5e-06,
        reason=(
            "Renyi divergence of the subsampled Gaussian (TF Privacy's series, exact); the test "
            "asserts it equals TF Privacy's compute_rdp to 6 decimals (line 89); value is the "
            "peer's rdp() at this commit"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
        setting={'scheme': 'poisson', 'rate': 0.01},
        mechanism=('gaussian', 1.0),
        steps=1,
        quantity='rdp',
        at=3.0,
        value=0.00026463757458465543,
        direction='exact',
        peer_tolerance=1.5e-06,
        reason=(
            "Renyi divergence of the subsampled Gaussian (TF Privacy's series, exact); the test "
            "asserts it equals TF Privacy's compute_rdp to 6 decimals (line 89); value is the "
            "peer's rdp() at this commit"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
        setting={'scheme': 'poisson', 'rate': 0.01},
        mechanism=('gaussian', 1.0),
        steps=1,
        quantity='rdp',
        at=4.0,
        value=0.00036315404891075525,
        direction='exact',
        peer_tolerance=1.5e-06,
        reason=(
            "Renyi divergence of the subsampled Gaussian (TF Privacy's series, exact); the test "
            "asserts it equals TF Privacy's compute_rdp to 6 decimals (line 89); value is the "
            "peer's rdp() at this commit"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
        setting={'scheme': 'poisson', 'rate': 0.01},
        mechanism=('gaussian', 1.0),
        steps=1,
        quantity='rdp',
        at=5.5,
        value=0.0005246956673178559,
        direction='exact',
        peer_tolerance=1.5e-06,
        reason=(
            "Renyi divergence of the subsampled Gaussian (TF Privacy's series, exact); the test "
            "asserts it equals TF Privacy's compute_rdp to 6 decimals (line 89); value is the "
            "peer's rdp() at this commit"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
        setting={'scheme': 'poisson', 'rate': 0.01},
        mechanism=('gaussian', 1.0),
        steps=1,
        quantity='rdp',
        at=8.0,
        value=0.0008936439076060318,
        direction='exact',
        peer_tolerance=1.5e-06,
        reason=(
            "Renyi divergence of the subsampled Gaussian (TF Privacy's series, exact); the test "
            "asserts it equals TF Privacy's compute_rdp to 6 decimals (line 89); value is the "
            "peer's rdp() at this commit"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
        setting={'scheme': 'poisson', 'rate': 0.01},
        mechanism=('gaussian', 1.0),
        steps=1,
        quantity='rdp',
        at=10.9,
        value=0.3876114113003885,
        direction='exact',
        peer_tolerance=1.5e-06,
        reason=(
            "Renyi divergence of the subsampled Gaussian (TF Privacy's series, exact); the test "
            "asserts it equals TF Privacy's compute_rdp to 6 decimals (line 89); value is the "
            "peer's rdp() at this commit"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
        setting={'scheme': 'poisson', 'rate': 0.01},
        mechanism=('gaussian', 1.0),
        steps=1,
        quantity='rdp',
        at=12.0,
        value=0.9780117180253621,
        direction='exact',
        peer_tolerance=1.5e-06,
        reason=(
            "Renyi divergence of the subsampled Gaussian (TF Privacy's series, exact); the test "
            "asserts it equals TF Privacy's compute_rdp to 6 decimals (line 89); value is the "
            "peer's rdp() at this commit"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
        setting={'scheme': 'poisson', 'rate': 0.01},
        mechanism=('gaussian', 1.0),
        steps=1,
        quantity='rdp',
        at=16.0,
        value=3.087850783696245,
        direction='exact',
        peer_tolerance=1.5e-06,
        reason=(
            "Renyi divergence of the subsampled Gaussian (TF Privacy's series, exact); the test "
            "asserts it equals TF Privacy's compute_rdp to 6 decimals (line 89); value is the "
            "peer's rdp() at this commit"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
        setting={'scheme': 'poisson', 'rate': 0.01},
        mechanism=('gaussian', 1.0),
        steps=1,
        quantity='rdp',
        at=20.0,
        value=5.1524530196775,
        direction='exact',
        peer_tolerance=1.5e-06,
        reason=(
            "Renyi divergence of the subsampled Gaussian (TF Privacy's series, exact); the test "
            "asserts it equals TF Privacy's compute_rdp to 6 decimals (line 89); value is the "
            "peer's rdp() at this commit"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
        setting={'scheme': 'poisson', 'rate': 0.01},
        mechanism=('gaussian', 1.0),
        steps=1,
        quantity='rdp',
        at=32.0,
        value=11.246275937048072,
        direction='exact',
        peer_tolerance=1.5e-06,
        reason=(
            "Renyi divergence of the subsampled Gaussian (TF Privacy's series, exact); the test "
            "asserts it equals TF Privacy's compute_rdp to 6 decimals (line 89); value is the "
            "peer's rdp() at this commit"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
        setting={'scheme': 'poisson', 'rate': 0.01},
        mechanism=('gaussian', 1.0),
        steps=1,
        quantity='rdp',
        at=48.0,
        value=19.296847469629185,
        direction='exact',
        peer_tolerance=1.5e-06,
        reason=(
            "Renyi divergence of the subsampled Gaussian (TF Privacy's series, exact); the test "
            "asserts it equals TF Privacy's compute_rdp to 6 decimals (line 89); value is the "
            "peer's rdp() at this commit"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_privacy_random_variables/test_poisson_subsampled_gaussian.py:86',
        setting={'scheme': 'poisson', 'rate': 0.01},
        mechanism=('gaussian', 1.0),
        steps=1,
        quantity='rdp',
        at=63.0,
        value=26.820552875528232,
        direction='exact',
        peer_tolerance=1.5e-06,
        reason=(
            "Renyi divergence of the subsampled Gaussian (TF Privacy's series, exact); the test "
            "asserts it equals TF Privacy's compute_rdp to 6 decimals (line 89); value is the "
            "peer's rdp() at this commit"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='README.md:145',
        setting={'scheme': 'poisson', 'rate': 0.005, 'insertions': 0, 'removals': 1},
        mechanism=('gaussian', 0.8),
        steps=1000,
        quantity='epsilon',
        at=1e-06,
        value=1.9039518173599024,
        direction='lower',
        accountant='pld',
        reason=(
            "the peer's Poisson subsampled Gaussian is the remove direction only (mixture vs "
            "N(0)), so the row uses otbound's removal-only setting; PRV accountant's eps_lower (a"
            " sound lower bound), eps_error 0.1, delta_error 1e-10 as in the README's DP-SGD "
            "example; no number is printed there: computed by running the peer's code at this "
            'commit'
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='README.md:145',
        setting={'scheme': 'poisson', 'rate': 0.005, 'insertions': 0, 'removals': 1},
        mechanism=('gaussian', 0.8),
        steps=1000,
        quantity='epsilon',
        at=1e-06,
        value=2.10398929481545,
        direction='upper',
        accountant='pld',
        reason=(
            "the peer's Poisson subsampled Gaussian is the remove direction only (mixture vs "
            "N(0)), so the row uses otbound's removal-only setting; PRV accountant's eps_upper (a"
            " sound upper bound), eps_error 0.1, delta_error 1e-10 as in the README's DP-SGD "
            "example; no number is printed there: computed by running the peer's code at this "
            'commit'
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_backwards_compatibility.py:15',
        setting={'scheme': 'poisson', 'rate': 0.005, 'insertions': 0, 'removals': 1},
        mechanism=('gaussian', 0.8),
        steps=10,
        quantity='epsilon',
        at=1e-06,
        value=0.6872174370486688,
        direction='lower',
        accountant='pld',
        reason=(
            "the peer's Poisson subsampled Gaussian is the remove direction only (mixture vs "
            "N(0)), so the row uses otbound's removal-only setting; PRV accountant's eps_lower (a"
            ' sound lower bound), eps_error 0.1, delta_error delta/1000, max_compositions 1000; '
            "no number is printed there: computed by running the peer's code at this commit"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_backwards_compatibility.py:15',
        setting={'scheme': 'poisson', 'rate': 0.005, 'insertions': 0, 'removals': 1},
        mechanism=('gaussian', 0.8),
        steps=10,
        quantity='epsilon',
        at=1e-06,
        value=0.8875447641311621,
        direction='upper',
        accountant='pld',
        reason=(
            "the peer's Poisson subsampled Gaussian is the remove direction only (mixture vs "
            "N(0)), so the row uses otbound's removal-only setting; PRV accountant's eps_upper (a"
            ' sound upper bound), eps_error 0.1, delta_error delta/1000, max_compositions 1000; '
            "no number is printed there: computed by running the peer's code at this commit"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_accountant.py:86',
        setting={'scheme': 'poisson', 'rate': 0.00256, 'insertions': 0, 'removals': 1},
        mechanism=('gaussian', 0.9),
        steps=4900,
        quantity='epsilon',
        at=1e-05,
        value=1.039977828643593,
        direction='lower',
        accountant='pld',
        reason=(
            "the peer's Poisson subsampled Gaussian is the remove direction only (mixture vs "
            "N(0)), so the row uses otbound's removal-only setting; PRV accountant's eps_lower (a"
            ' sound lower bound), eps_error 0.1, delta_error 1e-8; no number is printed there: '
            "computed by running the peer's code at this commit"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_accountant.py:86',
        setting={'scheme': 'poisson', 'rate': 0.00256, 'insertions': 0, 'removals': 1},
        mechanism=('gaussian', 0.9),
        steps=4900,
        quantity='epsilon',
        at=1e-05,
        value=1.2401464035680627,
        direction='upper',
        accountant='pld',
        reason=(
            "the peer's Poisson subsampled Gaussian is the remove direction only (mixture vs "
            "N(0)), so the row uses otbound's removal-only setting; PRV accountant's eps_upper (a"
            ' sound upper bound), eps_error 0.1, delta_error 1e-8; no number is printed there: '
            "computed by running the peer's code at this commit"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_discrete_privacy_random_variable.py:18',
        setting={'scheme': 'poisson', 'rate': 0.001, 'insertions': 0, 'removals': 1},
        mechanism=('gaussian', 1.0),
        steps=100,
        quantity='epsilon',
        at=1e-07,
        value=0.027392969514540417,
        direction='lower',
        accountant='pld',
        reason=(
            "the peer's Poisson subsampled Gaussian is the remove direction only (mixture vs "
            "N(0)), so the row uses otbound's removal-only setting; PRV accountant's eps_lower (a"
            ' sound lower bound), eps_error 0.1, delta_error delta/100; no number is printed '
            "there: computed by running the peer's code at this commit"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_discrete_privacy_random_variable.py:18',
        setting={'scheme': 'poisson', 'rate': 0.001, 'insertions': 0, 'removals': 1},
        mechanism=('gaussian', 1.0),
        steps=100,
        quantity='epsilon',
        at=1e-07,
        value=0.22785310286933264,
        direction='upper',
        accountant='pld',
        reason=(
            "the peer's Poisson subsampled Gaussian is the remove direction only (mixture vs "
            "N(0)), so the row uses otbound's removal-only setting; PRV accountant's eps_upper (a"
            ' sound upper bound), eps_error 0.1, delta_error delta/100; no number is printed '
            "there: computed by running the peer's code at this commit"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_dpsgd.py:19',
        setting={'scheme': 'poisson', 'rate': 0.002, 'insertions': 0, 'removals': 1},
        mechanism=('gaussian', 0.6764091442228624),
        steps=10000,
        quantity='epsilon',
        at=1e-07,
        value=3.4379247843817042,
        direction='lower',
        accountant='pld',
        reason=(
            "the peer's Poisson subsampled Gaussian is the remove direction only (mixture vs "
            "N(0)), so the row uses otbound's removal-only setting; PRV accountant's eps_lower (a"
            ' sound lower bound), eps_error 0.5, delta_error 1e-9, at the noise multiplier the '
            "peer's find_noise_multiplier returns for target epsilon 4 (line 17); no number is "
            "printed there: computed by running the peer's code at this commit"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_dpsgd.py:19',
        setting={'scheme': 'poisson', 'rate': 0.002, 'insertions': 0, 'removals': 1},
        mechanism=('gaussian', 0.6764091442228624),
        steps=10000,
        quantity='epsilon',
        at=1e-07,
        value=4.443028891064294,
        direction='upper',
        accountant='pld',
        reason=(
            "the peer's Poisson subsampled Gaussian is the remove direction only (mixture vs "
            "N(0)), so the row uses otbound's removal-only setting; PRV accountant's eps_upper (a"
            ' sound upper bound), eps_error 0.5, delta_error 1e-9, at the noise multiplier the '
            "peer's find_noise_multiplier returns for target epsilon 4 (line 17); no number is "
            "printed there: computed by running the peer's code at this commit"
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_privacy_random_variables/test_laplace.py:30',
        setting={'scheme': 'poisson', 'rate': 1.0},
        mechanism=('laplace', 1.0, 0.01),
        steps=10000,
        quantity='epsilon',
        at=1e-06,
        value=4.767408935391428,
        direction='lower',
        accountant='pld',
        reason=(
            "PRV accountant's eps_lower (a sound lower bound), eps_error 0.1, delta_error "
            "delta/1000; no number is printed there: computed by running the peer's code at this "
            'commit'
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_privacy_random_variables/test_laplace.py:30',
        setting={'scheme': 'poisson', 'rate': 1.0},
        mechanism=('laplace', 1.0, 0.01),
        steps=10000,
        quantity='epsilon',
        at=1e-06,
        value=4.967827516573777,
        direction='upper',
        accountant='pld',
        reason=(
            "PRV accountant's eps_upper (a sound upper bound), eps_error 0.1, delta_error "
            "delta/1000; no number is printed there: computed by running the peer's code at this "
            'commit'
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_privacy_random_variables/test_laplace.py:31',
        setting={'scheme': 'poisson', 'rate': 1.0},
        mechanism=('laplace', 1.0, 0.01),
        steps=10000,
        quantity='epsilon',
        at=1e-06,
        value=525.6521769756932,
        direction='upper',
        accountant='pld',
        reason=(
            "the test's analytic bound mu*n*sqrt(2 log(1/delta)), at least n*mu (pure "
            'composition), so a sound upper bound on epsilon'
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_privacy_random_variables/test_laplace.py:31',
        setting={'scheme': 'poisson', 'rate': 1.0},
        mechanism=('laplace', 1.0, 0.01),
        steps=100000,
        quantity='epsilon',
        at=1e-05,
        value=4798.525912188081,
        direction='upper',
        accountant='rdp',
        reason=(
            "the test's analytic bound mu*n*sqrt(2 log(1/delta)) >= n*mu, a sound (very loose) "
            'upper bound; RDP accountant because a 100000-step PLD costs ~20 s here and the bound'
            ' is loose'
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_privacy_random_variables/test_laplace.py:31',
        setting={'scheme': 'poisson', 'rate': 1.0},
        mechanism=('laplace', 1.0, 0.01),
        steps=100000,
        quantity='epsilon',
        at=1e-06,
        value=5256.521769756932,
        direction='upper',
        accountant='rdp',
        reason=(
            "the test's analytic bound mu*n*sqrt(2 log(1/delta)) >= n*mu, a sound (very loose) "
            'upper bound; RDP accountant because a 100000-step PLD costs ~20 s here and the bound'
            ' is loose'
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_privacy_random_variables/test_approximate_dp.py:42',
        setting={'scheme': 'poisson', 'rate': 1.0},
        mechanism=('approximate_dp', 0.0, 1e-07),
        steps=10000,
        quantity='delta',
        at=0.0,
        value=0.0009995002165750365,
        direction='none',
        reason=(
            'composition of an (0, delta)-DP guarantee (ApproximateDPMechanism): otbound has no '
            'generic (epsilon, delta)-DP mechanism'
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_privacy_random_variables/test_approximate_dp.py:42',
        setting={'scheme': 'poisson', 'rate': 1.0},
        mechanism=('approximate_dp', 0.0, 1e-08),
        steps=10000,
        quantity='delta',
        at=0.0,
        value=9.999500066661252e-05,
        direction='none',
        reason=(
            'composition of an (0, delta)-DP guarantee (ApproximateDPMechanism): otbound has no '
            'generic (epsilon, delta)-DP mechanism'
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_privacy_random_variables/test_approximate_dp.py:42',
        setting={'scheme': 'poisson', 'rate': 1.0},
        mechanism=('approximate_dp', 0.0, 1e-07),
        steps=100000,
        quantity='delta',
        at=0.0,
        value=0.009950166745856895,
        direction='none',
        reason=(
            'composition of an (0, delta)-DP guarantee (ApproximateDPMechanism): otbound has no '
            'generic (epsilon, delta)-DP mechanism'
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_privacy_random_variables/test_approximate_dp.py:42',
        setting={'scheme': 'poisson', 'rate': 1.0},
        mechanism=('approximate_dp', 0.0, 1e-08),
        steps=100000,
        quantity='delta',
        at=0.0,
        value=0.000999500171620011,
        direction='none',
        reason=(
            'composition of an (0, delta)-DP guarantee (ApproximateDPMechanism): otbound has no '
            'generic (epsilon, delta)-DP mechanism'
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
    PeerValue(
        source=SOURCE,
        where='tests/test_readme.py:22',
        setting={'scheme': 'poisson', 'rate': 0.005},
        mechanism=('gaussian', 0.8),
        steps=100,
        quantity='epsilon',
        at=1e-06,
        value=11.253428017958752,
        direction='none',
        reason=(
            'heterogeneous composition (100 subsampled Gaussian, 200 Gaussian sigma=8, 100 '
            "Laplace mu=0.1 steps); a row holds one mechanism; value is the peer's eps_upper, "
            'computed by running its code'
        ),
        commit='a844f7200af2722d6a81e0386b2b7351688ecf35',
    ),
)
