"""The Opacus accountant (otbound.integrations.opacus, issue 44 item 3): registered in Opacus,
stepped by its optimiser, its answers those of otbound's own accounting of the same steps, and
Opacus's published RDP and PRV values reproduced. Run with ``python -m pytest -m opacus`` where
torch and opacus are installed (``pip install torch==2.13.0 -e '.[opacus]'``)."""

from __future__ import annotations

import doctest
import math
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import otbound
from otbound.accounting.conversion import balle_epsilon
from otbound.errors import InvalidSpecification, UnsupportedOperation

torch = pytest.importorskip("torch")
accountants = pytest.importorskip("opacus.accountants")
PrivacyEngine = pytest.importorskip("opacus").PrivacyEngine
bridge = pytest.importorskip("otbound.integrations.opacus")
RDPAccountant, PRVAccountant = accountants.RDPAccountant, accountants.PRVAccountant
create_accountant, registry = accountants.create_accountant, accountants.registry

pytestmark = [pytest.mark.opacus,
              pytest.mark.filterwarnings("ignore:Secure RNG turned off:UserWarning"),
              pytest.mark.filterwarnings("ignore:Full backward hook is firing:UserWarning")]

ROOT = pathlib.Path(__file__).resolve().parent.parent
RECORDS, BATCH, FEATURES = 200, 20, 8            # 10 batches an epoch: sample_rate 0.1
RATE = 1 / (RECORDS // BATCH)
SIGMA, DELTA = 1.1, 1e-5
EPOCHS_OF = {"batch_size": BATCH, "dataset_size": RECORDS}   # an epoch sampler's loader


@pytest.fixture
def names():
    """Names registered by a test, taken out of Opacus's registry afterwards."""
    taken: list[str] = []
    yield taken
    for name in taken + [bridge.DEFAULT_NAME]:
        registry._ACCOUNTANTS.pop(name, None)
        bridge._REGISTERED.pop(name, None)


def _register(names: list[str], name: str = bridge.DEFAULT_NAME, **options):
    names.append(name)
    return bridge.register(name, **options)


def _training(engine: PrivacyEngine, steps: int, **private) -> torch.optim.Optimizer:
    """A two-layer model trained for ``steps`` optimiser steps on random data, made private
    by ``engine`` (``make_private`` with ``private``, or ``make_private_with_epsilon`` when
    it holds ``target_epsilon``)."""
    torch.manual_seed(0)
    data = torch.utils.data.TensorDataset(torch.randn(RECORDS, FEATURES),
                                          torch.randint(0, 2, (RECORDS,)))
    shuffle = not private.get("poisson_sampling", True)
    loader = torch.utils.data.DataLoader(data, batch_size=BATCH, shuffle=shuffle)
    model = torch.nn.Sequential(torch.nn.Linear(FEATURES, 16), torch.nn.ReLU(),
                                torch.nn.Linear(16, 2))
    optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
    make = (engine.make_private_with_epsilon if "target_epsilon" in private
            else engine.make_private)
    model, optimiser, loader = make(module=model, optimizer=optimiser, data_loader=loader,
                                    max_grad_norm=1.0, **private)
    taken = 0
    while taken < steps:
        for features, labels in loader:
            optimiser.zero_grad()
            torch.nn.functional.cross_entropy(model(features), labels).backward()
            optimiser.step()
            taken += 1
            if taken == steps:
                break
    return optimiser


def _poisson(sigma: float, steps: int, group: int = 1) -> float:
    return otbound.account(otbound.Subsampling("poisson", rate=RATE, group=group),
                           otbound.gaussian(sigma), steps, delta=DELTA).epsilon


# --- training through PrivacyEngine ----------------------------------------------------------

def test_a_two_layer_model_trained_for_20_steps_is_accounted_as_otbound_accounts(names):
    _register(names)
    engine = PrivacyEngine(accountant="otbound")
    _training(engine, 20, noise_multiplier=SIGMA)
    assert engine.accountant.history == [(SIGMA, RATE, 20)] and len(engine.accountant) == 20
    epsilon = engine.get_epsilon(DELTA)
    assert epsilon == pytest.approx(_poisson(SIGMA, 20), rel=1e-12)
    assert epsilon == otbound.compose(engine.accountant.running().as_steps(),
                                      delta=DELTA).epsilon
    opacus_rdp = RDPAccountant()
    opacus_rdp.history = list(engine.accountant.history)
    assert epsilon < opacus_rdp.get_epsilon(DELTA)     # tighter than Opacus's RDP, as it should


def test_make_private_with_epsilon_finds_a_noise_that_otbound_says_meets_the_target(names):
    _register(names)
    engine = PrivacyEngine(accountant="otbound")
    optimiser = _training(engine, 20, target_epsilon=3.0, target_delta=DELTA, epochs=2)
    sigma = optimiser.noise_multiplier
    assert 3.0 - 0.01 <= _poisson(sigma, 20) <= 3.0   # Opacus's search stops within 0.01
    assert engine.get_epsilon(DELTA) == pytest.approx(_poisson(sigma, 20), rel=1e-12)


def test_shuffled_batches_are_accounted_per_epoch(names):
    _register(names, "otbound-shuffled", sampler="shuffled", **EPOCHS_OF)
    engine = PrivacyEngine(accountant="otbound-shuffled")
    _training(engine, 25, noise_multiplier=SIGMA, poisson_sampling=False)
    expected = otbound.account(otbound.ShuffledBatches(BATCH, RECORDS), otbound.gaussian(SIGMA),
                               3, delta=DELTA)             # 25 steps: 2.5 epochs, counted as 3
    assert engine.get_epsilon(DELTA) == pytest.approx(expected.epsilon, rel=1e-12)


# --- options of the registered name ----------------------------------------------------------

def test_a_group_is_accounted_at_user_level_and_the_noise_search_keeps_the_options(names):
    made = _register(names, "otbound-users", group=2)
    accountant = PrivacyEngine(accountant="otbound-users").accountant
    assert isinstance(accountant, made) and accountant.mechanism() == "otbound-users"
    assert create_accountant(accountant.mechanism()).options.group == 2   # what the search uses
    for _ in range(20):
        accountant.step(noise_multiplier=SIGMA, sample_rate=RATE)
    epsilon = accountant.get_epsilon(DELTA)
    assert epsilon == pytest.approx(_poisson(SIGMA, 20, group=2), rel=1e-12)
    assert epsilon > 1.5 * _poisson(SIGMA, 20)


def test_balls_in_bins_counts_epochs_and_each_at_its_smallest_noise(names):
    _register(names, "otbound-bins", sampler="balls-in-bins", **EPOCHS_OF)
    accountant = create_accountant("otbound-bins")
    for sigma in [1.2] * 5 + [1.0] * 10 + [1.3] * 10:     # epochs at 1.0, 1.0 and 1.3
        accountant.step(noise_multiplier=sigma, sample_rate=RATE)
    history = accountant.running().history
    assert [(entry.mechanism.scale, entry.count) for entry in history] == [(1.0, 2), (1.3, 1)]
    steps = [otbound.subsampled_step(otbound.BallsInBins(BATCH, RECORDS), otbound.gaussian(s), n)
             for s, n in [(1.0, 2), (1.3, 1)]]
    assert accountant.get_epsilon(DELTA) == otbound.compose(steps, delta=DELTA).epsilon


@pytest.mark.parametrize("history, expected", [
    ([(1.0, 0.1, 25)], [(1.0, 3)]),
    ([(1.0, 0.1, 5), (2.0, 0.1, 10)], [(1.0, 1), (2.0, 1)]),
    ([(2.0, 0.1, 5), (1.0, 0.1, 5), (2.0, 0.1, 20)], [(1.0, 1), (2.0, 2)]),
    ([(1.0, 0.1, 3), (0.5, 0.1, 1), (1.0, 0.1, 3)], [(0.5, 1)]),
    ([(1.0, 0.1, 10), (1.0, 0.2, 10)], [(1.0, 2)]),
])
def test_steps_are_cut_into_epochs_rounding_up(history, expected):
    assert bridge.epoch_runs(history, 10) == expected


# --- Opacus's history and checkpoints --------------------------------------------------------

def test_a_history_assigned_or_loaded_is_accounted_afresh(names):
    _register(names)
    accountant = create_accountant("otbound")
    for _ in range(10):
        accountant.step(noise_multiplier=SIGMA, sample_rate=RATE)
    assert accountant.get_epsilon(DELTA) == pytest.approx(_poisson(SIGMA, 10), rel=1e-12)
    accountant.history = [(2.0, RATE, 5)]           # as Opacus's noise search does
    assert accountant.get_epsilon(DELTA) == pytest.approx(_poisson(2.0, 5), rel=1e-12)
    for _ in range(3):
        accountant.step(noise_multiplier=2.0, sample_rate=RATE)
    saved = accountant.state_dict()
    restored = create_accountant("otbound")
    restored.load_state_dict(saved)
    assert restored.history == [(2.0, RATE, 8)]
    # composed as one run of 8 steps, where the accountant it was saved from composed 5, then 3
    assert restored.get_epsilon(DELTA) == pytest.approx(accountant.get_epsilon(DELTA), rel=1e-9)
    assert restored.get_epsilon(DELTA) == pytest.approx(_poisson(2.0, 8), rel=1e-12)
    with pytest.raises(ValueError, match="cannot be loaded"):
        RDPAccountant().load_state_dict(saved)


def test_noise_outside_otbound_range_is_bounded_soundly(names):
    _register(names)
    accountant = create_accountant("otbound")
    assert accountant.get_epsilon(DELTA) == 0.0                  # no step taken
    accountant.history = [(0.05, RATE, 10)]
    assert accountant.get_epsilon(DELTA) == math.inf              # below sigma = 0.1: vacuous
    accountant.history = [(1e7, RATE, 10)]                        # accounted at sigma = 1e6
    assert accountant.get_epsilon(DELTA) == pytest.approx(_poisson(1e6, 10), rel=1e-12)


# --- refusals --------------------------------------------------------------------------------

@pytest.mark.parametrize("options, parameter, message", [
    ({"sampler": "uniform"}, "sampler", "sampler must be one of 'poisson', 'balls-in-bins', "
                                        "'shuffled'"),
    ({"batch_size": 20}, "batch_size", "batch_size is for the epoch samplers"),
    ({"sampler": "balls-in-bins", "batch_size": 20}, "dataset_size",
     "sampler='balls-in-bins' needs batch_size and dataset_size"),
    ({"group": 0}, "group", "group must be"),
    ({"accountant": "prv"}, "accountant", "accountant must be one of"),
])
def test_options_out_of_range_are_refused_by_name(names, options, parameter, message):
    with pytest.raises(InvalidSpecification, match=message) as raised:
        _register(names, "otbound-refused", **options)
    assert raised.value.parameter == parameter
    assert "otbound-refused" not in registry._ACCOUNTANTS


def test_groups_of_shuffled_batches_are_refused():
    with pytest.raises(UnsupportedOperation, match="not derived for shuffled batches"):
        bridge.register("otbound-shuffled-group", sampler="shuffled", group=2, **EPOCHS_OF)


def test_a_step_the_epoch_sampler_cannot_take_is_refused(names):
    _register(names, "otbound-bins", sampler="balls-in-bins", **EPOCHS_OF)
    accountant = create_accountant("otbound-bins")
    with pytest.raises(InvalidSpecification, match=r"sample_rate must be 1/10 .* got 0\.2") \
            as raised:
        accountant.step(noise_multiplier=SIGMA, sample_rate=0.2)   # gradient accumulation
    assert raised.value.parameter == "sample_rate"
    accountant.history = [(SIGMA, 0.05, 20)]                         # assigned, not stepped
    with pytest.raises(InvalidSpecification, match="sample_rate must be 1/10"):
        accountant.get_epsilon(DELTA)


def test_misuse_of_the_accountant_is_refused_by_name(names):
    _register(names)
    accountant = create_accountant("otbound")
    with pytest.raises(InvalidSpecification, match="noise_multiplier must be a number >= 0"):
        accountant.step(noise_multiplier=-1.0, sample_rate=RATE)
    with pytest.raises(InvalidSpecification, match="rate must be in"):
        accountant.step(noise_multiplier=SIGMA, sample_rate=1.5)
    accountant.step(noise_multiplier=SIGMA, sample_rate=RATE)
    with pytest.raises(InvalidSpecification, match="alphas is an option of Opacus's own"):
        accountant.get_epsilon(DELTA, alphas=[2, 3])
    with pytest.raises(InvalidSpecification, match="delta must be in"):
        accountant.get_epsilon(0.0)
    with pytest.raises(UnsupportedOperation, match="register"):
        bridge.OtboundAccountant()


def test_names_are_registered_once(names):
    made = _register(names)
    assert bridge.register() is made                              # the same options: the same
    with pytest.raises(InvalidSpecification, match="'otbound' is already registered") as raised:
        bridge.register(group=2)
    assert raised.value.parameter == "name"
    with pytest.raises(InvalidSpecification, match="'rdp' is already registered"):
        bridge.register("rdp")
    assert create_accountant("rdp").mechanism() == "rdp"
    assert bridge.register(group=2, replace=True).options.group == 2


# --- Opacus's published values ---------------------------------------------------------------

# opacus 1.6.0, opacus/tests/accountants_test.py, AccountingTest: sigma = 1.5, q = 0.04,
# delta = 1e-5; test_rdp_accountant (lines 94-104) takes int(90 / 0.04) = 2250 steps and asserts
# epsilon = 7.32911117143 (line 104); test_prv_accountant (lines 119-130) takes
# int(90 // 0.04) = 2249 steps and asserts epsilon = 6.777395712150674 (line 130), the PRV
# accountant's upper end with its default eps_error = 0.01 and delta_error = delta / 1000.
PUBLISHED = {"sigma": 1.5, "rate": 0.04, "delta": 1e-5, "rdp_steps": 2250,
             "rdp_epsilon": 7.32911117143, "prv_steps": 2249, "prv_epsilon": 6.777395712150674,
             "prv_eps_error": 0.01}


def _published_setting():
    return (otbound.Subsampling("poisson", rate=PUBLISHED["rate"]),
            otbound.gaussian(PUBLISHED["sigma"]))


def test_opacus_published_rdp_value_is_otbound_rdp_route_to_1e9():
    setting, mechanism = _published_setting()
    found = otbound.account(setting, mechanism, PUBLISHED["rdp_steps"], delta=PUBLISHED["delta"],
                            accountant="rdp", conversion="balle2020")
    assert found.details["order"] == 3.9
    assert found.epsilon == pytest.approx(PUBLISHED["rdp_epsilon"], rel=1e-9)
    # at Opacus's own orders (RDPAccountant.DEFAULT_ALPHAS, which otbound's orders contain)
    orders = RDPAccountant.DEFAULT_ALPHAS
    curve = [bound.value * PUBLISHED["rdp_steps"]
             for bound in otbound.rdp(setting, mechanism, "tight", orders)]
    at_opacus_orders = min(balle_epsilon(a, rho, PUBLISHED["delta"])
                           for a, rho in zip(orders, curve))
    assert at_opacus_orders == pytest.approx(PUBLISHED["rdp_epsilon"], rel=1e-9)
    opacus = RDPAccountant()
    opacus.history = [(PUBLISHED["sigma"], PUBLISHED["rate"], PUBLISHED["rdp_steps"])]
    assert found.epsilon == pytest.approx(opacus.get_epsilon(PUBLISHED["delta"]), rel=1e-9)


def test_opacus_published_prv_value_brackets_otbound_pld_route():
    setting, mechanism = _published_setting()
    delta, error = PUBLISHED["delta"], PUBLISHED["prv_eps_error"]
    ours = otbound.account(setting, mechanism, PUBLISHED["prv_steps"], delta=delta,
                           accountant="pld").epsilon
    prv = PRVAccountant()
    prv.history = [(PUBLISHED["sigma"], PUBLISHED["rate"], PUBLISHED["prv_steps"])]
    lower, estimate, upper = prv._get_dprv(eps_error=error, delta_error=delta / 1000) \
        .compute_epsilon(delta, delta / 1000, error)
    assert upper == pytest.approx(PUBLISHED["prv_epsilon"], rel=1e-9)  # the published setting
    assert lower <= ours <= PUBLISHED["prv_epsilon"]   # sound (>= PRV's lower end) and as tight
    assert abs(ours - estimate) <= error               # within the PRV estimate's stated error


# --- the import path and the documentation ---------------------------------------------------

def test_importing_otbound_and_its_command_line_loads_neither_torch_nor_opacus():
    code = ("import sys, otbound, otbound.cli; otbound.Subsampling; otbound.RunningAccountant; "
            "print(sorted({'torch', 'opacus'} & set(sys.modules)))")
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True)
    assert found.stdout.strip() == "[]"


def test_the_opacus_page_examples_run_as_documented(names):
    names.append("otbound-users")
    failures, attempted = doctest.testfile(
        str(ROOT / "docs" / "opacus.md"), module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert attempted > 5 and failures == 0


def test_the_accountant_steps_with_numpy_numbers(names):
    _register(names)
    accountant = create_accountant("otbound")
    accountant.step(noise_multiplier=np.float64(SIGMA), sample_rate=np.float64(RATE))
    assert accountant.get_epsilon(DELTA) == pytest.approx(_poisson(SIGMA, 1), rel=1e-12)
