"""Values published by Feldman & Shenfeld's accounting packages, and by dp_accounting's port of
them (PR #414), for random allocation and for the Poisson-subsampled Gaussian.

- ``pld_accounting`` (github.com/moshenfeld/PLD_accounting): the golden-oracle test (removed from
  the current tree; read at commit 502cc64) and the printed outputs of the tutorial notebook
  (commit 139082d; outputs produced by release 0.1.4). All are pessimistic (``DOMINATES``) PLDs of
  the k-of-t reduction to k compositions of one-of-⌈t/k⌉ allocations, so they are upper bounds.
- ``dp_accounting`` (github.com/google/differential-privacy, pull request #414, head 125d46c):
  ``PLDAccountant`` on a ``RandomAllocationDpEvent``: the same pessimistic reduction, an upper bound.
- ``pld_subsampling`` (github.com/moshenfeld/PLD_subsampling, which the ``random_allocation``
  package depends on; ``random_allocation`` itself publishes no fixed numbers in its tests, README
  or docs): the "GT" column of the example notebook, the analytic ε of one direction of the
  Poisson-subsampled Gaussian found by bisection to 1e-6 (returning the upper end) and printed to
  six decimals, so exact to 1.5e-6.

Values and settings only; no code or prose of the peers is copied.
"""

from peer_values import PeerValue

_GOLDEN = "502cc640f93952426840c7856ab30e8110db3456"  # last commit with test_golden_oracles.py
_TUTORIAL = "139082d890313d40a7cc39dca5c6136963166b11"  # tutorial notebook with outputs
_DP_PR414 = "125d46c8cb4253115c545dd4d574a2d5e52ef4bd"  # refs/pull/414/head
_SUB = "625f922ce2d45df4be947f5b965401324eeb4bd9"  # example notebook with outputs

_GOLDEN_FILE = "tests/integration/test_golden_oracles.py"
_TUTORIAL_FILE = "PLD_accounting_tutorial.ipynb"
_PR_FILE = "python/dp_accounting/dp_accounting/pld/pld_privacy_accountant_test.py"
_SUB_FILE = "PLD_subsampling/example.ipynb"

_UPPER_RA = ("pessimistic PLD of the k-of-t reduction (composition of k one-of-t/k "
             "allocations): an upper bound of the true scheme")
_ONE_EPOCH_K1 = "pessimistic (DOMINATES) PLD of one-of-t allocation, both directions"


def _ra(steps, selected):
    return {"scheme": "random-allocation", "steps": steps, "selected": selected}


def _remove(rate):
    # PLD_subsampling's remove direction: the first distribution holds the extra record
    # (dp_accounting's REMOVE), otbound's removal x' = x \ {a}.
    return {"scheme": "poisson", "rate": rate, "insertions": 0, "removals": 1}


def _add(rate):
    return {"scheme": "poisson", "rate": rate, "insertions": 1, "removals": 0}


_GT = 1.5e-6  # bisection to 1e-6 (upper end returned) + printing to 6 decimals
_GT_REASON = "analytic one-direction ε of the Poisson-subsampled Gaussian (bisection)"

ROWS = (
    # --- pld_accounting: golden oracles (t = 2, k = 1, one epoch), |ε − oracle| < 0.03 ---
    PeerValue(source="pld_accounting", where=f"{_GOLDEN_FILE}:63", commit=_GOLDEN,
              setting=_ra(2, 1), mechanism=("gaussian", 1.0), steps=1,
              quantity="epsilon", at=1e-3, value=2.49944, direction="upper",
              peer_tolerance=0.03, reason=_ONE_EPOCH_K1),
    PeerValue(source="pld_accounting", where=f"{_GOLDEN_FILE}:102", commit=_GOLDEN,
              setting=_ra(2, 1), mechanism=("gaussian", 2.0), steps=1,
              quantity="epsilon", at=1e-5, value=1.465, direction="upper",
              peer_tolerance=0.03, reason=_ONE_EPOCH_K1),
    # --- pld_accounting: tutorial notebook, σ = 3, k = 10 of t = 100, one epoch, both
    #     directions, loss_discretization 0.05, tail truncation 1e-7 (printed values) ---
    PeerValue(source="pld_accounting", where=f"{_TUTORIAL_FILE}:408", commit=_TUTORIAL,
              setting=_ra(100, 10), mechanism=("gaussian", 3.0), steps=1,
              quantity="epsilon", at=1e-4, value=1.1540, direction="upper",
              peer_tolerance=5e-5, reason=_UPPER_RA),
    PeerValue(source="pld_accounting", where=f"{_TUTORIAL_FILE}:409", commit=_TUTORIAL,
              setting=_ra(100, 10), mechanism=("gaussian", 3.0), steps=1,
              quantity="epsilon", at=1e-5, value=1.3614, direction="upper",
              peer_tolerance=5e-5, reason=_UPPER_RA),
    PeerValue(source="pld_accounting", where=f"{_TUTORIAL_FILE}:307", commit=_TUTORIAL,
              setting=_ra(100, 10), mechanism=("gaussian", 3.0), steps=1,
              quantity="epsilon", at=1e-6, value=1.5485, direction="upper",
              peer_tolerance=5e-5, reason=_UPPER_RA),
    PeerValue(source="pld_accounting", where=f"{_TUTORIAL_FILE}:413", commit=_TUTORIAL,
              setting=_ra(100, 10), mechanism=("gaussian", 3.0), steps=1,
              quantity="delta", at=1.5, value=1.84e-6, direction="upper",
              peer_tolerance=5e-9, reason=_UPPER_RA),
    PeerValue(source="pld_accounting", where=f"{_TUTORIAL_FILE}:310", commit=_TUTORIAL,
              setting=_ra(100, 10), mechanism=("gaussian", 3.0), steps=1,
              quantity="delta", at=2.0, value=9.81e-8, direction="upper",
              peer_tolerance=5e-10,
              reason=_UPPER_RA + "; the truncated tail mass (≈1e-7) dominates it"),
    PeerValue(source="pld_accounting", where=f"{_TUTORIAL_FILE}:415", commit=_TUTORIAL,
              setting=_ra(100, 10), mechanism=("gaussian", 3.0), steps=1,
              quantity="delta", at=2.5, value=9.81e-8, direction="upper",
              peer_tolerance=5e-10,
              reason=_UPPER_RA + "; the truncated tail mass (≈1e-7) dominates it"),
    # The notebook's PREAMBLE example: each round is one k = 10 of t = 100 allocation (σ = 3),
    # the round is Poisson-subsampled at q = 0.05 (subsample_PLD) and 50 rounds are composed.
    PeerValue(source="pld_accounting", where=f"{_TUTORIAL_FILE}:487", commit=_TUTORIAL,
              setting=_ra(100, 10), mechanism=("gaussian", 3.0), steps=50,
              quantity="epsilon", at=1e-6, value=0.6362, direction="none",
              peer_tolerance=5e-5,
              reason="Poisson subsampling (q = 0.05) of a whole random-allocation round, then 50 "
                     "rounds composed: otbound has no subsampling of an epoch-level scheme"),
    # --- dp_accounting PR #414: PLDAccountant on RandomAllocationDpEvent(Gaussian(2), k = 10,
    #     t = 100); asserted to delta=1e-3 (ε) and delta=1e-7 (δ) ---
    PeerValue(source="dp_accounting", where=f"{_PR_FILE}:262", commit=_DP_PR414,
              setting=_ra(100, 10), mechanism=("gaussian", 2.0), steps=1,
              quantity="epsilon", at=1e-6, value=2.4265, direction="upper",
              peer_tolerance=1e-3, reason=_UPPER_RA),
    PeerValue(source="dp_accounting", where=f"{_PR_FILE}:263", commit=_DP_PR414,
              setting=_ra(100, 10), mechanism=("gaussian", 2.0), steps=1,
              quantity="delta", at=2.4265, value=1e-6, direction="upper",
              peer_tolerance=1e-7, reason=_UPPER_RA),
    # --- pld_subsampling: Poisson-subsampled Gaussian, one step, one direction ("GT") ---
    # σ = 0.5, q = 0.1, remove direction
    PeerValue(source="pld_subsampling", where=f"{_SUB_FILE}:66", commit=_SUB,
              setting=_remove(0.1), mechanism=("gaussian", 0.5), steps=1,
              quantity="epsilon", at=1e-2, value=1.687418, direction="exact",
              peer_tolerance=_GT, reason=_GT_REASON),
    PeerValue(source="pld_subsampling", where=f"{_SUB_FILE}:69", commit=_SUB,
              setting=_remove(0.1), mechanism=("gaussian", 0.5), steps=1,
              quantity="epsilon", at=1e-5, value=6.575540, direction="exact",
              peer_tolerance=_GT, reason=_GT_REASON),
    PeerValue(source="pld_subsampling", where=f"{_SUB_FILE}:72", commit=_SUB,
              setting=_remove(0.1), mechanism=("gaussian", 0.5), steps=1,
              quantity="epsilon", at=1e-8, value=9.605344, direction="exact",
              peer_tolerance=_GT, reason=_GT_REASON),
    PeerValue(source="pld_subsampling", where=f"{_SUB_FILE}:76", commit=_SUB,
              setting=_remove(0.1), mechanism=("gaussian", 0.5), steps=1,
              quantity="epsilon", at=1e-12, value=12.671791, direction="exact",
              peer_tolerance=_GT, reason=_GT_REASON),
    # σ = 2, q = 0.5, remove direction
    PeerValue(source="pld_subsampling", where=f"{_SUB_FILE}:187", commit=_SUB,
              setting=_remove(0.5), mechanism=("gaussian", 2.0), steps=1,
              quantity="epsilon", at=1e-3, value=0.796192, direction="exact",
              peer_tolerance=_GT, reason=_GT_REASON),
    PeerValue(source="pld_subsampling", where=f"{_SUB_FILE}:190", commit=_SUB,
              setting=_remove(0.5), mechanism=("gaussian", 2.0), steps=1,
              quantity="epsilon", at=1e-6, value=1.592561, direction="exact",
              peer_tolerance=_GT, reason=_GT_REASON),
    PeerValue(source="pld_subsampling", where=f"{_SUB_FILE}:194", commit=_SUB,
              setting=_remove(0.5), mechanism=("gaussian", 2.0), steps=1,
              quantity="epsilon", at=1e-10, value=2.396923, direction="exact",
              peer_tolerance=_GT, reason=_GT_REASON),
    # σ = 2, q = 0.5, add direction
    PeerValue(source="pld_subsampling", where=f"{_SUB_FILE}:256", commit=_SUB,
              setting=_add(0.5), mechanism=("gaussian", 2.0), steps=1,
              quantity="epsilon", at=1e-2, value=0.277396, direction="exact",
              peer_tolerance=_GT, reason=_GT_REASON),
    PeerValue(source="pld_subsampling", where=f"{_SUB_FILE}:260", commit=_SUB,
              setting=_add(0.5), mechanism=("gaussian", 2.0), steps=1,
              quantity="epsilon", at=1e-6, value=0.567728, direction="exact",
              peer_tolerance=_GT, reason=_GT_REASON),
    PeerValue(source="pld_subsampling", where=f"{_SUB_FILE}:266", commit=_SUB,
              setting=_add(0.5), mechanism=("gaussian", 2.0), steps=1,
              quantity="epsilon", at=1e-12, value=0.653444, direction="exact",
              peer_tolerance=_GT, reason=_GT_REASON),
    # σ = 1, q = 0.05, remove direction (the deltas of the previous cells)
    PeerValue(source="pld_subsampling", where=f"{_SUB_FILE}:324", commit=_SUB,
              setting=_remove(0.05), mechanism=("gaussian", 1.0), steps=1,
              quantity="epsilon", at=1e-2, value=0.045068, direction="exact",
              peer_tolerance=_GT, reason=_GT_REASON),
    PeerValue(source="pld_subsampling", where=f"{_SUB_FILE}:328", commit=_SUB,
              setting=_remove(0.05), mechanism=("gaussian", 1.0), steps=1,
              quantity="epsilon", at=1e-6, value=1.464659, direction="exact",
              peer_tolerance=_GT, reason=_GT_REASON),
    PeerValue(source="pld_subsampling", where=f"{_SUB_FILE}:334", commit=_SUB,
              setting=_remove(0.05), mechanism=("gaussian", 1.0), steps=1,
              quantity="epsilon", at=1e-12, value=3.822482, direction="exact",
              peer_tolerance=_GT, reason=_GT_REASON),
)
