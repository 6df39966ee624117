"""A newcomer's first hour (issue 24): each mistake a new user made is refused in one line that
names the problem and a way forward, and what the output shows needs no guessing.
"""

import json

import pytest
from cli_runs import run_cli
from console_docs import ROOT

from otbound import DerivationFileError, InvalidSpecification
from otbound.engine import (Coupling, Derivation, DrawIndependently, InsertInRandomOrder,
                            ReplaceGroup, SwapInRandomOrder)
from otbound.engine.bundled import load_derivation

TUTORIAL = ROOT / "docs" / "tutorial" / "poisson_substitution.py"
GAUSSIAN = ("--mechanism", "gaussian", "--sigma", "1")


def refusal(capsys, *argv) -> str:
    """The one line with which ``otbound ARGV`` exits 2."""
    try:
        code, out, err = run_cli(capsys, *argv)
    except SystemExit as exited:   # a usage error found by the argument parser
        (out, err), code = capsys.readouterr(), exited.code
    assert code == 2 and out == "", err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err.strip()


def tutorial_with(tmp_path, old: str, new: str):
    """The tutorial's derivation file with one change (a user's edit)."""
    source = TUTORIAL.read_text()
    assert old in source
    path = tmp_path / "mine.py"
    path.write_text(source.replace(old, new).replace(
        "BatchRelation, Case, Copy,", "BatchRelation, Case, Copy, DrawIndependently,"))
    return path


# --- user files -----------------------------------------------------------------------------

def test_a_coupling_step_with_a_tuple_for_a_label_names_the_field(capsys, tmp_path):
    path = tutorial_with(tmp_path, 'Copy("A0", "E0"),', 'Copy("A0", "E0"), '
                                   'DrawIndependently(("A1", "A2")),')
    line = refusal(capsys, "derive", path)
    assert str(path) in line
    assert "DrawIndependently: target must be a name (str)" in line
    assert "('A1', 'A2')" in line and "TypeError" not in line


@pytest.mark.parametrize("make, field", [
    (lambda: DrawIndependently(("A1", "A2")), "target"),
    (lambda: InsertInRandomOrder("A0", "ab", ("A1", "A2")), "elements"),
    (lambda: SwapInRandomOrder("A0", ("a",), (("A1",),)), "groups"),
    (lambda: ReplaceGroup("A0", ("a",), ("b",), 2), "target"),
    (lambda: Coupling(("A0",), ()), "reference"),
    (lambda: Coupling("A0", DrawIndependently("E0")), "steps"),
])
def test_coupling_steps_check_their_arguments(make, field):
    with pytest.raises(InvalidSpecification, match=f"{field} must be") as raised:
        make()
    assert raised.value.parameter == field


def test_lists_are_taken_as_tuples():
    step = SwapInRandomOrder("A0", [["a"]], [["A1"]])
    assert step.groups == (("a",),) and step.chains == (("A1",),)


def test_a_variant_for_that_raises_is_the_files_fault(tmp_path):
    path = tutorial_with(tmp_path, "    relation = KFoldSubstitution(K)",
                         "    relation = KFoldSubstitution(K)\n    if K > 2:\n        {}['oops']")
    derivation = load_derivation(str(path))
    with pytest.raises(DerivationFileError) as raised:
        derivation.at({"K": 3})
    message = str(raised.value)
    assert "'tutorial-poisson-substitution'" in message and str(path) in message
    assert "variant_for(K=3) failed: KeyError: 'oops'" in message


def test_a_published_statement_that_raises_is_the_files_fault(capsys, tmp_path):
    path = tutorial_with(tmp_path, "(case,), None)", "(case,), lambda: 1 / 0)")
    line = refusal(capsys, "derive", path)
    assert "published statement failed: ZeroDivisionError" in line


# --- input ----------------------------------------------------------------------------------

def test_a_rate_as_a_fraction_is_the_nearest_double(capsys):
    outputs = [run_cli(capsys, "rdp", "--scheme", "poisson", "--rate", rate, *GAUSSIAN,
                       "--alpha", "2,8", "--json")[1] for rate in ("256/60000",
                                                                   "0.004266666666666667")]
    assert json.loads(outputs[0])["epsilon"] == json.loads(outputs[1])["epsilon"]
    assert refusal(capsys, "rdp", "--scheme", "poisson", "--rate", "1/0", *GAUSSIAN,
                   "--alpha", "2").endswith("got '1/0' (see 'otbound --help')")


def test_poisson_takes_an_expected_batch_size_and_says_so(capsys):
    code, out, _ = run_cli(capsys, "rdp", "--scheme", "poisson", "--batch-size", "256",
                           "--dataset-size", "60000", *GAUSSIAN, "--alpha", "2")
    assert code == 0
    assert "rate = 0.004266666666666667 (expected batch size / dataset size = 256/60000)" in out
    line = refusal(capsys, "rdp", "--scheme", "poisson", "--batch-size", "256", *GAUSSIAN,
                   "--alpha", "2")
    assert "needs --rate (or --batch-size and --dataset-size" in line
    assert "None" not in line


def test_an_unknown_param_is_refused_with_the_known_ones(capsys):
    line = refusal(capsys, "rdp", "--derivation", "001-thm-4.1", "--param", "K=2", "--param",
                   "k=2", "--param", "r=0.1", *GAUSSIAN, "--alpha", "2")
    assert "has no parameter k; its parameters: K (group size); r (of its scheme)" in line


def test_a_coupling_that_is_not_compatible_says_why_and_what_to_do(capsys, tmp_path):
    path = tutorial_with(tmp_path, 'Copy("A0", "E0"),', 'DrawIndependently("E0"),')
    line = refusal(capsys, "rdp", "--derivation", path, "--param", "K=1", "--param", "r=0.1",
                   *GAUSSIAN, "--alpha", "2")
    assert "not d_Y-compatible" in line and "tuple (y_A0 = {}, y_E0 = {b1}" in line
    assert "--coupling auto" in line


def test_a_maximum_over_sizes_that_is_not_computed_names_the_way_forward(capsys):
    line = refusal(capsys, "rdp", "--derivation", "wor-group-substitution", "--param", "K=2",
                   "--param", "q=64", "--param", "Q=60000", "--mechanism",
                   "randomized-response", "--theta", "0.75", "--alpha", "2")
    assert "is not computed" in line and "--param N=" in line


# --- output ---------------------------------------------------------------------------------

@pytest.mark.parametrize("argv, unit", [
    (("--scheme", "poisson", "--rate", "0.01"), "per element inserted into or removed from a "
                                                "batch (a replaced element counts 2)"),
    (("--scheme", "wor", "--batch-size", "10", "--dataset-size", "100"),
     "per element of a batch replaced by another"),
    (("--derivation", "001-thm-F.2", "--param", "q=10", "--param", "N=100"),
     "per element inserted into or removed from a batch"),
])
def test_the_sensitivity_has_its_unit_of_distance(capsys, argv, unit):
    code, out, _ = run_cli(capsys, "adp", *argv, "--mechanism", "laplace", "--scale", "1",
                           "--epsilon", "1", "--method", "agnostic")
    assert code == 0 and f"sensitivity = 1.0 {unit}" in out


def test_sigma_is_one_thing_in_help_and_errors(capsys):
    with pytest.raises(SystemExit):
        run_cli(capsys, "rdp", "--help")
    help_text = " ".join(capsys.readouterr().out.split())
    assert ("σ of the noise: the Gaussian's standard deviation, another family's parameter σ "
            "(σ/L is the noise multiplier") in help_text
    line = refusal(capsys, "rdp", "--scheme", "poisson", "--rate", "0.01", "--mechanism",
                   "gaussian", "--sigma", "0.01", "--alpha", "2")
    assert "--sigma/--sensitivity (the noise multiplier) must be in [0.1, 1e+06]" in line


def test_latex_defines_the_dataset_size(capsys):
    latex = run_cli(capsys, "derive", "001-thm-3.6", "--latex")[1]
    assert "binom{N - 1}" in latex and "with dataset size $N = |x|$" in latex
    assert "N = " not in run_cli(capsys, "derive", "001-prop-E.4", "--latex")[1]


def test_skipped_grid_points_give_their_reason(capsys):
    out = run_cli(capsys, "derive", "001-thm-3.6")[1]
    assert ("6 grid points skipped: 3 where an event has probability zero (001 Thm. 3.4 "
            "conditions on events of positive probability); 3 where the scheme is undefined "
            "(e.g. a batch larger than the dataset)") in out
    report = json.loads(run_cli(capsys, "derive", "001-thm-3.6", "--json")[1])
    (case,) = report["variants"][0]["cases"]
    assert case["instances_skipped"] == 6 and sum(case["skip_reasons"].values()) == 6


@pytest.mark.parametrize("argv", [
    ("--scheme", "poisson", "--rate", "1e-320", *GAUSSIAN, "--alpha", "2,8"),
    ("--scheme", "wor", "--batch-size", "10", "--dataset-size", "1000", "--mechanism",
     "gaussian", "--sigma", "0.1", "--alpha", "8"),
])
def test_no_stray_warnings(capsys, argv):
    code, out, err = run_cli(capsys, "rdp", *argv)   # pytest turns a warning into an error
    assert code == 0 and err == ""


def test_a_derivation_knows_its_file():
    assert load_derivation(str(TUTORIAL)).path == str(TUTORIAL)
    assert isinstance(load_derivation("001-thm-3.6"), Derivation)
