"""`otbound derive` / `otbound verify` on hostile or malformed input: one line, the right exit code.

Each test pins one defect: a derivation file that exits, interrupts or prints at import; verify_derivation
flags out of range; verify on a derivation whose case has no bound; a grid parameter outside its
range; timings in the JSON output; and the verifier's cache of derived bounds.
"""

import json
import textwrap
from dataclasses import replace
from fractions import Fraction

import pytest
from cli_runs import BROKEN_COUPLINGS, run_cli

from otbound import InvalidSpecification
from otbound.engine import Copy, Coupling, InstanceGrid
from otbound.cli import main
from otbound.engine.bundled import load_derivation
from otbound.engine.conditionals import SizeReference
from otbound.engine.derivation import run
from otbound.engine.symbols import N, q, r
from otbound.verify.verification import MAX_N, MAX_SAMPLES, instances, smallest_max_n, verify_derivation


def write(directory, name, source):
    path = directory / name
    path.write_text(textwrap.dedent(source))
    return path


def one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


# --- 1. a derivation file that raises KeyboardInterrupt or calls sys.exit at import -----------

@pytest.mark.parametrize("source, raised", [
    ("raise KeyboardInterrupt\n", "KeyboardInterrupt"),
    ("import sys\nsys.exit(7)\n", "SystemExit: 7"),
])
@pytest.mark.parametrize("command", ["derive", "verify"])
def test_derivation_file_that_interrupts_or_exits_gives_one_line_and_exit_two(
        capsys, tmp_path, source, raised, command):
    path = write(tmp_path, "hostile.py", source)
    try:
        code = main([command, str(path)])
    except (KeyboardInterrupt, SystemExit) as escaped:   # the old behaviour; never stop pytest
        pytest.fail(f"{type(escaped).__name__} escaped otbound.cli.main")
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    line = one_line(err)
    assert line == (f"otbound: error: derivation file '{path}' could not be loaded: {raised}")


# --- 2. a derivation file that prints at import ---------------------------------------------

def test_derivation_file_that_prints_leaves_stdout_valid_json(capsys, tmp_path):
    path = write(tmp_path, "chatty.py", """
        print("loading my derivation ...")
        from otbound.engine.bundled import load_derivation
        DERIVATION = load_derivation("001-prop-E.4")
    """)
    code, out, err = run_cli(capsys, "derive", path, "--json")
    assert code == 0 and json.loads(out)["name"] == "001-prop-E.4"
    assert "loading my derivation ..." in err


# --- 3. verify flags out of range -----------------------------------------------------------

@pytest.mark.parametrize("flags, message", [
    (["--seed", "-1"], "--seed must be an integer >= 0, got -1"),
    (["--samples", "0"], f"--soundness-cases must be an integer in [1, {MAX_SAMPLES}], got 0"),
    (["--samples", str(MAX_SAMPLES + 1)],
     f"--soundness-cases must be an integer in [1, {MAX_SAMPLES}], got {MAX_SAMPLES + 1}"),
    (["--max-n", "3"], f"--max-n must be an integer in [4, {MAX_N}] for 001-thm-3.6, got 3"),
    (["--max-n", "0"], f"--max-n must be an integer in [4, {MAX_N}] for 001-thm-3.6, got 0"),
    (["--max-n", str(MAX_N + 1)],
     f"--max-n must be an integer in [4, {MAX_N}] for 001-thm-3.6, got {MAX_N + 1}"),
])
def test_verify_flags_out_of_range_give_one_line_naming_the_range(capsys, flags, message):
    code, out, err = run_cli(capsys, "verify", "001-thm-3.6", *flags)
    assert code == 2 and out == ""
    assert one_line(err) == f"otbound: error: {message}"


@pytest.mark.parametrize("arguments", [
    {"seed": -1}, {"seed": 1.5}, {"seed": True}, {"samples": 0}, {"samples": 2.0},
    {"max_n": 2}, {"max_n": MAX_N + 1}, {"max_n": "6"},
])
def test_verify_validates_its_parameters_in_the_library(arguments):
    (parameter,) = arguments
    with pytest.raises(InvalidSpecification, match=f"^{parameter} must be an integer") as raised:
        verify_derivation(load_derivation("001-thm-3.6"), **arguments)
    assert raised.value.parameter == parameter


def test_smallest_max_n_is_the_size_at_which_every_case_has_an_instance():
    assert smallest_max_n(load_derivation("001-prop-E.4")) == 1
    assert smallest_max_n(load_derivation("001-thm-3.6")) == 4     # q = 3, the grid's middle batch size


def test_verify_at_the_smallest_max_n_runs(capsys):
    # Two batches only (N = 1): the hill climbing used to ask numpy for 3 distinct batches.
    code, out, err = run_cli(capsys, "verify", "001-prop-E.4", "--max-n", 1, "--samples", 1,
                             "--json")
    report = json.loads(out)
    assert code == 0 and report["passed"] and "Traceback" not in err
    assert {c["parameters"]["N"] for c in report["checks"]} == {1}


# --- 4. verify on a derivation whose cases have no bound ------------------------------------

def test_verify_reports_cases_without_a_bound_as_failed_checks(capsys, tmp_path):
    path = write(tmp_path, "broken.py", BROKEN_COUPLINGS)
    code, out, err = run_cli(capsys, "verify", path, "--json")
    assert code == 1 and "Traceback" not in err
    report = json.loads(out)
    assert report["passed"] is False and report["soundness_cases"] == 0
    assert [(c["check"], c["parameters"]["case"], c["verdict"]) for c in report["checks"]] == \
        [("derived bound", "removal", "NO BOUND"), ("derived bound", "insertion", "NO BOUND")]
    assert report["checks"][0]["bound"] is None
    assert report["checks"][0]["witness"].startswith("invalid coupling at N = 1, r = 1/2")
    code, out, _ = run_cli(capsys, "verify", path)
    assert code == 1 and "FAILED derived bound: invalid coupling" in out


def test_verify_skips_only_the_case_without_a_bound():
    derivation = load_derivation("001-prop-E.4")
    removal, insertion = derivation.variants[0].cases
    broken = replace(removal, coupling=Coupling("A1", (Copy("A1", "E1"), Copy("A1", "A2"))))
    variant = replace(derivation.variants[0], cases=(broken, insertion))
    report = verify_derivation(replace(derivation, variants=(variant,)), max_n=3, samples=1)
    assert not report.passed
    failed = [f for f in report.findings if not f.passed]
    assert [(f.check, f.parameters["case"]) for f in failed] == [("derived bound", "removal")]
    assert {f.parameters["case"] for f in report.findings} == {"removal", "insertion"}


# --- 5. grid parameters outside their range -------------------------------------------------

@pytest.mark.parametrize("name, grid, message", [
    ("001-prop-E.4", InstanceGrid(range(1, 9), ({r: 5},)),
     "instance grid point r = 5: rate r must be in [0, 1], got 5"),
    ("001-prop-E.4", InstanceGrid(range(1, 9), ({r: Fraction(-1, 2)},)),
     "rate r must be in [0, 1], got -1/2"),
    ("001-thm-3.6", InstanceGrid(range(2, 10), ({q: 0},)),
     "instance grid point q = 0: batch size q must be an integer >= 1, got 0"),
    ("001-thm-3.6", InstanceGrid(range(2, 10), ({q: 1.5},)),
     "batch size q must be an integer >= 1, got 3/2"),
    ("001-thm-3.6", InstanceGrid(range(2, 10), ({q: 12},)),
     "batch size q = 12 exceeds the dataset size N = 9 (the largest N of the grid)"),
    ("001-prop-E.4", InstanceGrid(range(1, 9), ({q: 2},)),
     "q is not a parameter of the scheme"),
    ("001-prop-E.4", InstanceGrid(range(1, 9), ({},)),
     "scheme parameter rate = r must be a rational number (give r a value)"),
])
def test_grid_parameters_are_validated_when_the_derivation_is_built(name, grid, message):
    with pytest.raises(InvalidSpecification) as raised:
        replace(load_derivation(name), grid=grid)
    assert message in str(raised.value) and f"derivation {name!r}" in str(raised.value)


@pytest.mark.parametrize("sizes", [range(-2, 3), [1, 2.5]])
def test_grid_sizes_must_be_non_negative_integers(sizes):
    with pytest.raises(InvalidSpecification, match="instance grid sizes N must be integers >= 0"):
        InstanceGrid(sizes, ({r: Fraction(1, 2)},))


def test_grid_rate_outside_the_unit_interval_is_bad_input_on_the_command_line(capsys, tmp_path):
    path = write(tmp_path, "rate.py", """
        from dataclasses import replace
        from otbound.engine import InstanceGrid
        from otbound.engine.bundled import load_derivation
        from otbound.engine.symbols import r
        DERIVATION = replace(load_derivation("001-prop-E.4"), grid=InstanceGrid(range(1, 9), ({r: 5},)))
    """)
    for command in ("derive", "verify"):
        code, out, err = run_cli(capsys, command, path)
        assert code == 2 and out == ""
        assert "r = 5: rate r must be in [0, 1], got 5" in one_line(err)


# --- 6. reproducible JSON -------------------------------------------------------------------

def test_derive_json_is_byte_identical_between_runs(capsys):
    first = run_cli(capsys, "derive", "001-prop-E.4", "--json")
    second = run_cli(capsys, "derive", "001-prop-E.4", "--json")
    assert first[0] == 0 and first == second
    assert "elapsed_seconds" not in json.loads(first[1])
    code, out, _ = run_cli(capsys, "derive", "001-thm-3.6", "--json", "--timings")
    assert code == 0 and json.loads(out)["elapsed_seconds"] >= 0


def test_verify_json_has_timings_only_when_asked(capsys, tmp_path):
    path = write(tmp_path, "broken.py", BROKEN_COUPLINGS)
    first = run_cli(capsys, "verify", path, "--json")
    assert first == run_cli(capsys, "verify", path, "--json")
    assert "elapsed_seconds" not in json.loads(first[1])
    _, out, _ = run_cli(capsys, "verify", path, "--json", "--timings")
    assert json.loads(out)["elapsed_seconds"] >= 0


# --- no traceback for malformed files -------------------------------------------------------

@pytest.mark.parametrize("source, message", [
    ("", "does not define DERIVATION = otbound.engine.Derivation(...)"),
    ("x = 1\n", "does not define DERIVATION = otbound.engine.Derivation(...)"),
    ("DERIVATION = 42\n", "defines DERIVATION of type int, not otbound.engine.Derivation"),
    ("def broken(:\n", "could not be loaded: SyntaxError: "),
    ("raise ValueError('first line\\nsecond line')\n",
     "could not be loaded: ValueError: first line second line"),
    ("from otbound.engine import Coupling\nCoupling('A1', (1,))\n", "could not be loaded: "),
])
@pytest.mark.parametrize("command", ["derive", "verify"])
def test_malformed_derivation_file_gives_one_line_and_exit_two(capsys, tmp_path, source, message,
                                                               command):
    path = write(tmp_path, "malformed.py", source)
    code, out, err = run_cli(capsys, command, path)
    assert code == 2 and out == ""
    line = one_line(err)
    assert line.startswith(f"otbound: error: derivation file '{path}'") and message in line


@pytest.mark.parametrize("argv", [
    ["verify", "no-such-derivation"],
    ["verify", "001-thm-3.6", "--seed", "abc"],
    ["verify", "001-thm-3.6", "--max-n", "6.5"],
    ["derive", "001-thm-3.6", "--timings", "--frobnicate"],
])
def test_bad_names_and_flag_values_give_one_line_and_exit_two(capsys, argv):
    try:
        code = main(argv)
    except SystemExit as exit:        # argparse errors exit from the parser
        code = exit.code
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and one_line(err).startswith("otbound: error: ")


# --- the verifier verifies the bounds of the derivation's report ---------------------------

def test_the_verifier_takes_the_case_bounds_from_the_derivation_report():
    derivation = load_derivation("001-thm-F.3")
    # Same name, same case object, another size reference: another bound (001 Thm. F.3's weight
    # q/N is only right with N the larger dataset).
    other = replace(derivation, size_reference=SizeReference.X_PRIME)
    reports = [run(d) for d in (derivation, other)]
    bounds = [instances(report, 6)[0].case_bound for report in reports]
    assert [b is r.variants[0].cases[0].bound for b, r in zip(bounds, reports)] == [True, True]
    weights = [bound.terms[0][1].left[1].weight for bound in bounds]
    assert weights[0] != weights[1] and weights[0].has(N)


def test_a_reader_that_stops_early_gets_no_traceback():
    import subprocess

    process = subprocess.Popen(["otbound", "derive", "--list"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    process.stdout.close()   # the reader is gone before anything is written (``| head -0``)
    with process.stderr:
        error = process.stderr.read().decode()
    assert process.wait() == 1 and error == ""
