"""Output polish (issue 15): help without markup, one number format, the PLD floor said."""

import json
import re
from pathlib import Path

import pytest

from otbound.cli import main

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


@pytest.mark.parametrize("argv", [["--help"], ["derive", "--help"], ["account", "--help"]])
def test_help_shows_no_markup(capsys, argv):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    out = capsys.readouterr().out
    assert stop.value.code == 0 and out.startswith("usage: otbound")
    assert "``" not in out and ":func:" not in out and ":class:" not in out


def _run(capsys, *argv):
    from cli_runs import run_cli

    return run_cli(capsys, *argv)


ACCOUNT = ["account", "--scheme", "poisson", "--rate", "0.01", "--mechanism", "gaussian",
           "--sigma", "2", "--steps", "1000"]


def test_a_delta_at_the_pld_floor_is_reported_as_a_limit(capsys):
    code, out, _ = _run(capsys, *ACCOUNT, "--epsilon", "2", "--accountant", "pld")
    assert code == 0 and "(2, ≤ " in out and "floor" in out
    code, out, _ = _run(capsys, *ACCOUNT, "--epsilon", "2", "--accountant", "pld", "--json")
    answer = json.loads(out)
    assert 1e-14 <= answer["at_floor"] < 1e-13 and answer["delta"] <= answer["at_floor"]
    # a δ well above the floor is printed as it is
    code, out, _ = _run(capsys, *ACCOUNT, "--epsilon", "0.3", "--accountant", "pld")
    assert code == 0 and "≤" not in out and "floor" not in out


def test_best_marks_the_pld_row_at_its_floor(capsys):
    code, out, _ = _run(capsys, *ACCOUNT, "--epsilon", "2")
    assert code == 0 and "pld: δ ≤ " in out and "rdp: δ = " in out


@pytest.mark.parametrize("argv", [
    ["rdp", "--scheme", "poisson", "--rate", "0.01", "--mechanism", "gaussian", "--sigma", "2",
     "--alpha", "2,8"],
    ACCOUNT + ["--delta", "1e-6"],
])
def test_text_bounds_have_the_same_number_of_significant_digits(capsys, argv):
    from otbound.numerics.rounding import TEXT_DIGITS

    code, out, _ = _run(capsys, *argv)
    numbers = re.findall(r"(?<![\w.])(\d\.\d+|0\.0*\d+)(?:e-?\d+)?(?![\d])", out)
    bounds = [n for n in numbers if len(n.replace(".", "").lstrip("0")) > 3]   # not inputs
    assert code == 0 and bounds
    for number in bounds:
        assert len(number.replace(".", "").lstrip("0")) <= TEXT_DIGITS, number


def test_the_readme_example_of_adp_without_replacement_shows_a_delta(capsys):
    code, out, _ = _run(capsys, "adp", "--scheme", "wor", "--batch-size", "10", "--dataset-size",
                        "1000", "--mechanism", "randomized-response", "--theta", "0.75",
                        "--epsilon", "0.001,0.005", "--method", "agnostic")
    rows = [line.split() for line in out.splitlines() if line.split()[:1] in (["0.001"],
                                                                                ["0.005"])]
    assert code == 0 and len(rows) == 2 and all(float(row[1]) > 0 for row in rows)
    assert "--epsilon 0.001,0.005 --method agnostic" in README


def test_verify_table_has_one_quantity_per_row_and_shows_mutation_witnesses(capsys):
    code, out, _ = _run(capsys, "verify", "001-thm-4.1", "--soundness-cases", "30")
    assert code == 0
    header, *rows = [line for line in out.splitlines()
                     if line.startswith(("check ", "tightness", "soundness", "Monte Carlo"))]
    assert header.split()[:4] == ["check", "parameters", "quantity", "bound"]
    soundness = [row for row in rows if row.startswith("soundness search")]
    assert soundness and all("largest divergence/bound  —" in row for row in soundness)
    assert all(("ε_α (RDP)" in row) == ("RDP" in row.split("  ")[0] and "Monte" not in row)
               for row in rows if row.startswith("tightness"))
    assert any(line.startswith("mutation: ") and "observed" in line for line in out.splitlines())
