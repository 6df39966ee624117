"""Issue 44, item 5 (conventions): the unit of every sensitivity printed, and ``--progress``
(the progress line in a log)."""


import io
import json
import sys

import pytest
from cli_runs import run_cli

from otbound.accounting.truncated import TruncatedPoissonSetting
from otbound.cli import build_parser
from otbound.progress import LINE_INTERVAL, Progress

POISSON = ["--scheme", "poisson", "--rate", "0.01", "--mechanism", "gaussian"]
RDP = ["--accountant", "rdp", "--delta", "1e-5", "--json"]


def _json(capsys, *argv) -> dict:
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    return json.loads(out)


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
