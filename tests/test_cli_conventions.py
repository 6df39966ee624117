"""Issue 44, item 5 (conventions): the unit of every sensitivity printed."""


import json

import pytest
from cli_runs import run_cli

from otbound.accounting.truncated import TruncatedPoissonSetting



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


