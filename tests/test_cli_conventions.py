"""Issue 44, item 5 (conventions): ``--noise-multiplier`` (σ/L, Opacus's and TF Privacy's name),
``--epochs`` for the per-step schemes (converted to steps, rounded up, the conversion shown),
the unit of every sensitivity printed, and ``--progress`` (the progress line in a log)."""

import argparse
import io
import json
import sys

import pytest
from cli_runs import run_cli

from otbound.accounting.truncated import TruncatedPoissonSetting
from otbound.cli import build_parser
from otbound.command_line.flags import as_solved, gaussian_sigma
from otbound.progress import LINE_INTERVAL, Progress

POISSON = ["--scheme", "poisson", "--rate", "0.01", "--mechanism", "gaussian"]
RDP = ["--accountant", "rdp", "--delta", "1e-5", "--json"]


def _json(capsys, *argv) -> dict:
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    return json.loads(out)


def _refused(capsys, *argv) -> str:
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    return err


# --- --noise-multiplier -----------------------------------------------------------------------

@pytest.mark.parametrize("command", [
    ["rdp", *POISSON, "--alpha", "2,8", "--json"],
    ["adp", *POISSON, "--epsilon", "0.5", "--json"],
    ["account", *POISSON, "--steps", "100", *RDP],
])
def test_the_noise_multiplier_is_sigma_over_the_sensitivity(capsys, command):
    """At L = 1 it is --sigma; at L = 2 it is σ = 2z, the same privacy as σ = z at L = 1 (a
    plain alias of --sigma would give σ = z at L = 2: more privacy loss)."""
    sigma = _json(capsys, *command, "--sigma", "1.3")
    same = _json(capsys, *command, "--noise-multiplier", "1.3")
    scaled = _json(capsys, *command, "--noise-multiplier", "1.3", "--sensitivity", "2")
    key = "delta" if "adp" in command else "epsilon"
    assert same == sigma
    assert scaled["setting"]["sigma"] == 2.6 and scaled["setting"]["sensitivity"] == 2.0
    assert scaled[key] == pytest.approx(sigma[key], rel=1e-9)


def test_sigma_from_a_multiplier_never_exceeds_it():
    """σ = z·L is lowered by an ulp where the division by L would give more noise than z."""
    for multiplier, sensitivity in ((0.7, 3.0), (1.1, 3.0), (0.3, 7.0), (2.2, 0.1)):
        args = argparse.Namespace(noise_multiplier=multiplier, sigma=None,
                                  sensitivity=sensitivity)
        sigma = gaussian_sigma(args)
        assert sigma / sensitivity <= multiplier
        assert sigma == pytest.approx(multiplier * sensitivity, rel=1e-15)


@pytest.mark.parametrize("extra, message", [
    (["--sigma", "1", "--noise-multiplier", "1"], "give --sigma or --noise-multiplier, not both"),
    (["--noise-multiplier", "0.01"], "--noise-multiplier (σ/L) must be in [0.1, 1e+06], got 0.01"),
    (["--noise-multiplier", "nan"], "--noise-multiplier (σ/L) must be in [0.1, 1e+06], got nan"),
    (["--noise-multiplier", "1", "--sensitivity", "0"],
     "--sensitivity must be a finite number > 0, got 0"),
    ([], "--mechanism gaussian needs --sigma (or --noise-multiplier)"),
])
def test_noise_multiplier_errors_name_the_flag_given(capsys, extra, message):
    assert message in _refused(capsys, "rdp", *POISSON, "--alpha", "2", *extra)


def test_the_noise_multiplier_is_the_gaussian_noise_only(capsys):
    err = _refused(capsys, "rdp", "--scheme", "poisson", "--rate", "0.01", "--mechanism",
                   "laplace", "--scale", "1", "--noise-multiplier", "1", "--alpha", "2")
    assert "--noise-multiplier does not apply to --mechanism laplace" in err


CALIBRATE = ["calibrate", *POISSON, "--steps", "100", "--target-epsilon", "2", "--delta", "1e-6",
             "--accountant", "rdp", "--json"]


def test_calibrate_solves_for_the_noise_multiplier(capsys):
    """--solve-for noise-multiplier reports σ/L, rounded up (at least the σ found), under its
    own key; at L = 1 it is the σ of --solve-for sigma."""
    sigma = _json(capsys, *CALIBRATE, "--solve-for", "sigma")
    multiplier = _json(capsys, *CALIBRATE, "--solve-for", "noise-multiplier")
    assert multiplier["noise_multiplier"] == sigma["sigma"] and "sigma" not in multiplier
    scaled = _json(capsys, *CALIBRATE, "--solve-for", "noise-multiplier", "--sensitivity", "3")
    found = scaled["setting"]["sigma"]
    assert scaled["noise_multiplier"] * 3 >= found and scaled["unsafe"] * 3 <= found
    assert scaled["noise_multiplier"] == pytest.approx(sigma["sigma"], rel=1e-3)
    code, out, _ = run_cli(capsys, *CALIBRATE[:-1], "--solve-for", "noise-multiplier")
    assert code == 0 and out.startswith("noise_multiplier = ") and "the smallest" in out


def test_a_multiplier_reported_is_rounded_towards_safety():
    args = argparse.Namespace(solve_for="noise-multiplier", sensitivity=3.0)
    for sigma in (0.1, 2.3, 1.7000000000000002, 7.77):
        assert as_solved(args, sigma) * 3.0 >= sigma
        assert as_solved(args, sigma, safe=False) * 3.0 <= sigma


@pytest.mark.parametrize("solve_for", ["sigma", "noise-multiplier"])
def test_calibrate_refuses_the_noise_it_solves_for(capsys, solve_for):
    err = _refused(capsys, *CALIBRATE, "--solve-for", solve_for, "--noise-multiplier", "1")
    assert f"--noise-multiplier is solved for (--solve-for {solve_for}): leave it out" in err


def test_calibrating_the_epochs_of_an_epoch_scheme_names_the_epochs_given(capsys):
    """An epoch-level scheme's --epochs are its steps: solving for them, the flag to leave out
    is the one given (it said --steps)."""
    err = _refused(capsys, "calibrate", "--scheme", "balls-in-bins", "--batch-size", "100",
                   "--dataset-size", "1000", "--epochs", "2", "--mechanism", "gaussian",
                   "--sigma", "1", "--solve-for", "steps", "--target-epsilon", "2",
                   "--delta", "1e-5")
    assert "--epochs is solved for (--solve-for steps): leave it out" in err


# --- --epochs of per-step schemes ---------------------------------------------------------------

@pytest.mark.parametrize("setting, epochs, steps, per_epoch, rounded", [
    (["--scheme", "poisson", "--batch-size", "256", "--dataset-size", "60000"], 10, 2344,
     234.375, True),
    (["--scheme", "poisson", "--rate", "256/60000"], 8, 1875, 234.375, False),
    (["--scheme", "poisson", "--rate", "0.01"], 3, 300, 100.0, False),
    (["--scheme", "poisson", "--rate", "0.3"], 3, 10, 10 / 3, False),
    (["--scheme", "wor", "--batch-size", "300", "--dataset-size", "1000"], 2, 7, 10 / 3, True),
    (["--scheme", "truncated-poisson", "--rate", "0.05", "--max-batch", "80",
      "--dataset-size", "1000"], 2, 40, 20.0, False),
])
def test_epochs_of_a_per_step_scheme_are_steps_rounded_up(capsys, setting, epochs, steps,
                                                          per_epoch, rounded):
    """An epoch is N/B steps (B the expected batch size under Poisson) or 1/r at the rate as
    typed (0.3: 10 steps in 3 epochs, not 11 from the double's 1/r), rounded up; the JSON and
    the text say so, and the guarantee is that of --steps."""
    common = ["account", *setting, "--mechanism", "gaussian", "--sigma", "2", *RDP]
    result = _json(capsys, *common, "--epochs", epochs)
    assert result["steps"] == steps
    assert result["steps_from_epochs"] == {
        "epochs": epochs, "steps_per_epoch": pytest.approx(per_epoch, rel=1e-15),
        "steps_per_epoch_from": result["steps_from_epochs"]["steps_per_epoch_from"],
        "steps": steps, "rounded_up": rounded}
    counted = _json(capsys, *common, "--steps", steps)
    assert counted["epsilon"] == result["epsilon"] and "steps_from_epochs" not in counted
    code, out, _ = run_cli(capsys, *common[:-1], "--epochs", epochs)
    line = out.splitlines()[1]
    assert code == 0 and line.startswith(f"  steps = {steps} ({epochs} epochs × ")
    assert line.endswith("; rounded up)") == rounded


def test_the_text_names_where_an_epoch_comes_from(capsys):
    code, out, _ = run_cli(capsys, "account", "--scheme", "poisson", "--batch-size", "256",
                           "--dataset-size", "60000", "--mechanism", "gaussian", "--sigma", "1",
                           "--epochs", "10", "--delta", "1e-5", "--accountant", "rdp")
    assert code == 0 and ("  steps = 2344 (10 epochs × 234.375 steps per epoch, dataset size "
                          "/ expected batch size = 60000/256; rounded up)") in out


def test_calibrate_takes_epochs_and_shows_the_steps(capsys):
    argv = ["calibrate", *POISSON, "--epochs", "2", "--solve-for", "sigma",
            "--target-epsilon", "1", "--delta", "1e-5", "--accountant", "rdp"]
    result = _json(capsys, *argv, "--json")
    assert result["steps"] == 200 and result["steps_from_epochs"]["epochs"] == 2
    code, out, _ = run_cli(capsys, *argv)
    assert code == 0 and "  steps = 200 (2 epochs × 100 steps per epoch, 1/rate = 100)" in out


@pytest.mark.parametrize("argv, message", [
    (["account", *POISSON, "--sigma", "1", "--steps", "10", "--epochs", "1", "--delta", "1e-5"],
     "give --steps or --epochs, not both"),
    (["account", *POISSON, "--sigma", "1", "--epochs", "0", "--delta", "1e-5"],
     "--epochs must be an integer >= 1, got 0"),
    (["account", "--scheme", "poisson", "--rate", "0", "--mechanism", "gaussian", "--sigma", "1",
      "--epochs", "1", "--delta", "1e-5"],
     "--rate must be in (0, 1] with --epochs (an epoch is 1/rate steps), got 0"),
    (["account", *POISSON, "--sigma", "1", "--epochs", "20000000", "--delta", "1e-5"],
     "--epochs 20000000 is 2000000000 steps: at most 1e+09 steps are accounted"),
    (["account", "--scheme", "wor", "--batch-size", "0", "--dataset-size", "10", "--mechanism",
      "gaussian", "--sigma", "1", "--epochs", "1", "--delta", "1e-5"],
     "--batch-size must be an integer >= 1, got 0"),
    (["account", "--scheme", "poisson", "--mechanism", "gaussian", "--sigma", "1", "--epochs",
      "1", "--delta", "1e-5"], "--scheme poisson needs --rate"),
    (["account", "--derivation", "wr-substitution", "--param", "q=2", "--param", "N=9",
      "--mechanism", "gaussian", "--sigma", "1", "--epochs", "1", "--delta", "1e-5"],
     "wr-substitution counts steps: give --steps"),
    (["calibrate", *POISSON, "--sigma", "1", "--epochs", "1", "--solve-for", "steps",
      "--target-epsilon", "1", "--delta", "1e-5"],
     "--epochs does not apply with --solve-for steps"),
    (["calibrate", "--scheme", "poisson", "--mechanism", "gaussian", "--sigma", "1", "--epochs",
      "1", "--solve-for", "rate", "--target-epsilon", "1", "--delta", "1e-5"],
     "--epochs does not apply with --solve-for rate"),
])
def test_epoch_errors_name_the_flags(capsys, argv, message):
    assert message in _refused(capsys, *argv)


# --- the unit of the sensitivity -------------------------------------------------------------

INSERTION_REMOVAL = "element inserted into or removed from a batch (a replaced element counts 2)"
SUBSTITUTION = "element of a batch replaced by another"
ZERO_OUT = "non-null element inserted into or removed from a batch"
TRUNCATED = ["--scheme", "truncated-poisson", "--rate", "0.05", "--max-batch", "80",
             "--dataset-size", "1000"]
BALLS = ["--scheme", "balls-in-bins", "--batch-size", "10", "--dataset-size", "100"]


@pytest.mark.parametrize("setting, unit", [
    (TRUNCATED, INSERTION_REMOVAL),
    ([*TRUNCATED, "--neighbouring", "zero-out"], ZERO_OUT),
    ([*TRUNCATED, "--neighbouring", "replace-one"], INSERTION_REMOVAL),
    (["--scheme", "random-allocation", "--steps-per-epoch", "4"], INSERTION_REMOVAL),
    ([*BALLS, "--neighbouring", "replace-one"], INSERTION_REMOVAL),
    (["--scheme", "wor", "--batch-size", "10", "--dataset-size", "100"], SUBSTITUTION),
])
def test_every_sensitivity_printed_has_its_unit(capsys, setting, unit):
    """In the text and in the JSON (``distance_unit`` beside ``sensitivity``); truncated
    Poisson printed none, and a balls-in-bins substitution said "each of sensitivity 1"
    whatever the sensitivity."""
    argv = ["adp", *setting, "--mechanism", "laplace", "--scale", "3", "--sensitivity", "2",
            "--epsilon", "1"]
    code, out, _ = run_cli(capsys, *argv)
    assert code == 0 and f"sensitivity = 2.0 per {unit}" in out
    described = _json(capsys, *argv, "--json")["setting"]
    assert described["sensitivity"] == 2.0 and described["distance_unit"].startswith(unit)


def test_account_of_shuffled_batches_states_the_unit(capsys):
    """The issue's example: ``account --scheme shuffle`` printed ``sensitivity = 1.0``."""
    code, out, _ = run_cli(capsys, "account", "--scheme", "shuffle", "--batch-size", "10",
                           "--dataset-size", "100", "--epochs", "2", "--mechanism", "gaussian",
                           "--sigma", "2", "--delta", "1e-5", "--accountant", "rdp")
    assert code == 0 and f"sensitivity = 1.0 per {SUBSTITUTION}" in out.splitlines()[-1]


@pytest.mark.parametrize("neighbouring", ["add-remove", "zero-out", "replace-one"])
def test_truncated_poisson_states_the_unit_of_its_derivation(neighbouring):
    setting = TruncatedPoissonSetting(0.05, 80, 1000, neighbouring)
    assert (setting.describe()["distance_unit"]
            == setting.derived_setting().describe()["distance_unit"])


# --- --progress ----------------------------------------------------------------------------

class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_forced_progress_writes_plain_lines_at_most_one_per_interval(monkeypatch):
    stream, clock = io.StringIO(), Clock()
    monkeypatch.setattr(sys, "stderr", stream)
    with Progress("audit", total=3, force=True, clock=clock) as progress:
        progress.step("a")
        clock.now += LINE_INTERVAL / 2
        progress.step("b")                  # too soon: not written
        clock.now += LINE_INTERVAL
        progress.step("c")
        clock.now += 0.25
    assert stream.getvalue() == (f"audit: [1/3] a\naudit: [3/3] c\n"
                                 f"audit: done in {1.5 * LINE_INTERVAL + 0.25:.1f} s\n")


def test_forced_progress_says_nothing_more_when_the_run_fails(monkeypatch):
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    with pytest.raises(KeyError), Progress("verify", force=True) as progress:
        progress("[1/2] N = 4")
        raise KeyError("x")
    assert stream.getvalue() == "verify: [1/2] N = 4\n"


def test_forced_progress_on_a_terminal_is_the_line_rewritten_in_place(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    with Progress("account", force=True) as progress:
        progress("one")
        progress("two")
    assert stream.getvalue() == "\r\x1b[Kaccount: one\r\x1b[Kaccount: two\r\x1b[K"


def test_account_progress_goes_to_a_log_and_leaves_stdout_alone(capsys):
    argv = ["account", *POISSON, "--sigma", "1", "--steps", "10", *RDP]
    code, out, err = run_cli(capsys, *argv, "--progress")
    assert code == 0 and json.loads(out)["steps"] == 10
    assert err.startswith("account: composing 10 steps (rdp)\n")
    assert err.splitlines()[-1].startswith("account: done in ") and "\r" not in err
    assert run_cli(capsys, *argv)[1:] == (out, "")   # without the flag: the same, no log


@pytest.mark.parametrize("command", ["verify", "account", "calibrate", "audit", "figures"])
def test_every_command_with_a_progress_line_takes_progress_or_quiet(command):
    parser = build_parser()
    actions = {a.dest: a for a in parser._subparsers._group_actions[0].choices[command]._actions}
    assert {"progress", "quiet"} <= set(actions)
    with pytest.raises(SystemExit):
        parser.parse_args([command, "--progress", "--quiet"])
