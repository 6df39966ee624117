"""``otbound calibrate``, :func:`otbound.calibrate` and the search behind them
(:func:`otbound.accounting.calibrate.safe_value`): agreement with dp_accounting, the safe end of
the bracket, and clear errors."""

import json
import math

import pytest
from cli_runs import run_cli

from otbound.accounting.accountant import Guarantee, compose
from otbound.accounting.calibrate import calibrate_steps, safe_value
from otbound.accounting.steps import subsampled_step
from otbound.choices import Accountant
from otbound.errors import InvalidSpecification, UnsupportedOperation
from otbound.numerics.mechanisms import gaussian, laplace
from otbound.numerics.settings import Subsampling

RATE, STEPS, TARGET, DELTA = 0.01, 100, 1.0, 1e-5


def _step(rate=RATE, sigma=None, scale=None, steps=STEPS):
    mechanism = gaussian(sigma) if sigma is not None else laplace(scale)
    return subsampled_step(Subsampling("poisson", rate=rate), mechanism, steps)


def test_poisson_gaussian_sigma_agrees_with_dp_accounting():
    """K = 1: the same calibration by dp_accounting's PLD accountant, to 1e-3 relative."""
    import dp_accounting
    from dp_accounting.pld import PLDAccountant

    found = calibrate_steps(lambda sigma: [_step(sigma=sigma)], "sigma", target_epsilon=TARGET,
                            delta=DELTA, accountant="pld", discretisation=1e-3)

    def event(sigma):
        return dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(RATE, dp_accounting.GaussianDpEvent(sigma)), STEPS)

    theirs = dp_accounting.calibrate_dp_mechanism(
        lambda: PLDAccountant(value_discretization_interval=1e-3), event, TARGET, DELTA)
    assert found.value == pytest.approx(theirs, rel=1e-3)
    assert found.guarantee.epsilon <= TARGET and found.unsafe < found.value


COMMON = ["--scheme", "poisson", "--steps", str(STEPS), "--accountant", "rdp"]
CASES = {   # --solve-for: its other flags, the step at a value, and which way is unsafe
    "sigma": (["--rate", str(RATE), "--mechanism", "gaussian"],
              lambda v: _step(sigma=v), lambda v: v * (1 - 1e-3)),
    "scale": (["--rate", str(RATE), "--mechanism", "laplace"],
              lambda v: _step(scale=v), lambda v: v * (1 - 1e-3)),
    "rate": (["--mechanism", "gaussian", "--sigma", "1"],
             lambda v: _step(rate=v, sigma=1.0), lambda v: v * (1 + 1e-3)),
    "steps": (["--rate", str(RATE), "--mechanism", "gaussian", "--sigma", "1"],
              lambda v: _step(sigma=1.0, steps=v), lambda v: max(v + 1, math.ceil(v * 1.001))),
}


EPSILON_TARGET = ["--target-epsilon", "1", "--delta", "1e-5"]
DELTA_TARGET = ["--target-delta", "1e-5", "--epsilon", "1"]


@pytest.mark.parametrize("quantity, target", [(quantity, EPSILON_TARGET) for quantity in CASES]
                         + [("sigma", DELTA_TARGET), ("steps", DELTA_TARGET)])
def test_calibrated_value_is_safe_and_tight(capsys, quantity, target):
    flags, step, unsafe = CASES[quantity]
    common = [f for f in COMMON if quantity != "steps" or f not in ("--steps", str(STEPS))]
    code, out, _ = run_cli(capsys, "calibrate", *common, *flags, "--solve-for", quantity,
                           *target, "--json")
    result = json.loads(out)
    assert code == 0 and result["accountant"] == "rdp" and result["method"] == "tight"
    value = result[quantity]
    options = ({"delta": 1e-5} if target[0] == "--target-epsilon" else {"epsilon": 1.0})
    wanted = "epsilon" if target[0] == "--target-epsilon" else "delta"

    def accounted(v):
        return getattr(compose([step(v)], "rdp", **options), wanted)

    assert accounted(value) <= float(target[1]) and result[wanted] == accounted(value)
    assert accounted(unsafe(value)) > float(target[1])


def test_text_output_names_the_value_and_the_verification(capsys):
    code, out, _ = run_cli(capsys, "calibrate", "--scheme", "poisson", "--accountant", "rdp",
                           *CASES["steps"][0], "--solve-for", "steps", "--target-epsilon", "1",
                           "--delta", "1e-5")
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("steps = ") and "the largest meeting" in lines[0]
    assert lines[1].startswith("verified: (") and "accountant rdp" in lines[1]


def test_group_posthoc_calibration(capsys):
    code, out, _ = run_cli(capsys, "calibrate", "--scheme", "poisson", "--rate", "0.001",
                           "--group", "2", "--mechanism", "gaussian", "--steps", "10",
                           "--solve-for", "sigma", "--target-epsilon", "0.5", "--delta", "1e-6",
                           "--method", "posthoc", "--posthoc", "composed", "--accountant", "pld",
                           "--json")
    result = json.loads(out)
    assert code == 0 and result["method"] == "posthoc" and result["posthoc"] == "composed"
    assert result["epsilon"] <= 0.5 and result["sigma"] > 0


@pytest.mark.parametrize("argv, message", [
    (["--rate", "0.01", "--mechanism", "gaussian", "--sigma", "0.2", "--solve-for", "steps",
      "--target-epsilon", "0.01", "--delta", "1e-5"],
     "the target cannot be met: even --steps 1"),
    (["--rate", "0.01", "--mechanism", "gaussian", "--sigma", "1", "--steps", "10",
      "--solve-for", "sigma", "--target-epsilon", "1", "--delta", "1e-5"],
     "--sigma is solved for (--solve-for sigma): leave it out"),
    (["--rate", "0.01", "--mechanism", "laplace", "--steps", "10", "--solve-for", "sigma",
      "--target-epsilon", "1", "--delta", "1e-5"],
     "--solve-for sigma needs --mechanism discrete-gaussian or gaussian"),
    (["--rate", "0.01", "--mechanism", "gaussian", "--steps", "10", "--solve-for", "sigma",
      "--target-epsilon", "1", "--epsilon", "1"], "--target-epsilon E with --delta D"),
    (["--rate", "0.01", "--mechanism", "gaussian", "--solve-for", "sigma",
      "--target-epsilon", "1", "--delta", "1e-5"], "calibrate needs --steps"),
])
def test_calibrate_errors_name_the_argument(capsys, argv, message):
    code, out, err = run_cli(capsys, "calibrate", "--scheme", "poisson", "--accountant", "rdp",
                             *argv)
    assert code == 2 and out == "" and message in err


def test_rate_solve_needs_a_rate_scheme(capsys):
    code, _, err = run_cli(capsys, "calibrate", "--scheme", "wor", "--batch-size", "10",
                           "--dataset-size", "100", "--mechanism", "gaussian", "--sigma", "1",
                           "--steps", "10", "--solve-for", "rate", "--target-epsilon", "1",
                           "--delta", "1e-5")
    assert code == 2 and "--solve-for rate needs --scheme poisson" in err


def test_api_errors():
    with pytest.raises(InvalidSpecification, match="solve_for must be one of"):
        safe_value(lambda v: None, "noise", target_epsilon=1)
    with pytest.raises(InvalidSpecification, match="exactly one of target_epsilon"):
        safe_value(lambda v: None, "sigma")
    with pytest.raises(UnsupportedOperation, match="met even at --steps 1000000000"):
        safe_value(lambda t: Guarantee(0.0, 1e-5, t, Accountant.RDP), "steps", target_epsilon=1)
    found = safe_value(lambda r: Guarantee(r, 1e-5, 1, Accountant.RDP), "rate", target_epsilon=2)
    assert found.value == 1.0 and found.unsafe is None   # every rate meets it: the largest, 1


def test_api_calibrate_steps_example():
    """The docstring's example: the smallest σ for ε <= 2 at δ = 1e-6 after 100 steps."""
    found = calibrate_steps(lambda sigma: [_step(sigma=sigma)], "sigma", target_epsilon=2,
                            delta=1e-6, accountant="rdp")
    assert found.solved_for == "sigma" and found.guarantee.epsilon <= 2
    assert compose([_step(sigma=found.unsafe)], "rdp", delta=1e-6).epsilon > 2


@pytest.mark.parametrize("solved, flags", [
    ("sigma", ["--rate", "0.01"]),
    ("rate", ["--sigma", "1"]),
])
def test_text_rounds_the_calibrated_value_towards_safety(capsys, solved, flags):
    """Eight significant digits in text, as every bound: σ rounded up, a rate rounded down."""
    common = ["calibrate", "--scheme", "poisson", "--mechanism", "gaussian", "--steps", "100",
              "--solve-for", solved, "--target-epsilon", "2", "--delta", "1e-6",
              "--accountant", "rdp", *flags]
    _, text, _ = run_cli(capsys, *common)
    setting = text.splitlines()[-1]                       # the setting, with full floats
    exact = float(setting.split(f"{solved} = ")[1].split(",")[0])
    shown = float(text.split()[2])
    assert len(text.split()[2].replace(".", "").lstrip("0")) <= 8
    assert (shown >= exact) if solved == "sigma" else (shown <= exact)


@pytest.mark.parametrize("accountant", ["rdp", "pld"])
def test_the_search_needs_few_accountings(accountant):
    """Each trial is a full accounting, so their number is the calibration's cost: the first
    step is sized by the start's gap and the bracket narrowed by secant steps (7 trials for
    RDP and PLD before; at most 6 and 5 now), and the bracket still closes to the tolerance
    with the safe end returned."""
    found = calibrate_steps(lambda sigma: [_step(sigma=sigma, steps=1000)], "sigma",
                            target_epsilon=2.0, delta=1e-6, accountant=accountant,
                            discretisation=1e-4)
    assert found.evaluations <= {"rdp": 6, "pld": 5}[accountant]
    assert found.guarantee.epsilon <= 2.0
    assert found.unsafe < found.value <= found.unsafe * (1 + 1e-4)
