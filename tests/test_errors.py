"""Errors (issue 10): user errors exit 2, internal failures exit 1 and say they are otbound's, library
messages name Python parameters (the command line shows its flags), and the verifier reports an
invalid derivation as a failed check."""

import ast
import json
import pathlib
import textwrap

import pytest
from cli_runs import BROKEN_COUPLINGS, run_cli

import otbound
import otbound.numerics.one_step
from otbound.accounting.steps import subsampled_step
from otbound.choices import Method
from otbound.cli import build_parser
from otbound.command_line.flags import FLAGS
from otbound.engine.bundled import load_derivation
from otbound.engine.derivation import run
from otbound.errors import InternalError, InvalidSpecification
from otbound.numerics.mechanisms import gaussian
from otbound.numerics.one_step import rdp
from otbound.numerics.settings import Subsampling
from otbound.verify.verification import verify_derivation

RDP = ["rdp", "--scheme", "poisson", "--rate", "0.1", "--mechanism", "gaussian", "--sigma", "1",
       "--alpha", "2"]
INTERNAL = "otbound: internal error (not a problem with your input; please report it): "




# --- internal failures ----------------------------------------------------------------------

@pytest.mark.parametrize("raised, shown", [
    (ZeroDivisionError("division by zero"), "ZeroDivisionError: division by zero"),
    (FloatingPointError("overflow\nin exp"), "FloatingPointError: overflow in exp"),
    (InternalError("a broken invariant"), "InternalError: a broken invariant"),
])
def test_an_internal_failure_exits_1_with_one_line_that_blames_otbound(capsys, monkeypatch,
                                                                       raised, shown):
    def broken(*args, **kwargs):
        raise raised

    monkeypatch.setattr(otbound.numerics.one_step, "check_orders", broken)
    code, out, err = run_cli(capsys, *RDP)
    assert code == 1 and out == "" and "Traceback" not in err
    assert err == INTERNAL + shown + "\n"


def test_user_errors_still_exit_2(capsys):
    code, out, err = run_cli(capsys, *RDP[:-1], "1")
    assert code == 2 and out == ""
    assert err == "otbound: error: --alpha (the Rényi order) must be in (1, 10000], got 1\n"


# --- verifying an invalid derivation ---------------------------------------------------------

@pytest.mark.parametrize("json_output", [False, True])
def test_verifying_a_derivation_with_wrong_marginals_exits_1_without_traceback(
        capsys, tmp_path, json_output):
    path = tmp_path / "wrong_marginals.py"
    path.write_text(textwrap.dedent(BROKEN_COUPLINGS))
    code, out, err = run_cli(capsys, "verify", path, *(["--json"] if json_output else []))
    assert code == 1 and "Traceback" not in err and "error" not in err
    if json_output:
        report = json.loads(out)
        assert report["passed"] is False
        assert [c["verdict"] for c in report["checks"]] == ["NO BOUND", "NO BOUND"]
        assert all(c["witness"].startswith("invalid coupling at N = ")
                   for c in report["checks"])
    else:
        assert out.count("FAILED derived bound: invalid coupling at N = ") == 2


def test_verify_takes_the_derivation_report_or_runs_the_derivation_once():
    derivation = load_derivation("001-prop-E.4")
    from_report = verify_derivation(run(derivation), max_n=1, samples=1)
    from_derivation = verify_derivation(derivation, max_n=1, samples=1)
    assert from_report.derivation is derivation and from_report.passed
    assert from_report.to_json() == from_derivation.to_json()


def test_verify_refuses_what_is_neither_a_derivation_nor_its_report():
    with pytest.raises(InvalidSpecification, match="^derivation must be a Derivation") as raised:
        verify_derivation("001-prop-E.4")
    assert raised.value.parameter == "derivation"


# --- library messages name Python parameters -------------------------------------------------

@pytest.mark.parametrize("call, parameter, message", [
    (lambda: subsampled_step(Subsampling("poisson", rate=0.1), gaussian(1.0), 0), "count",
     "count must be an integer in [1, 1e+09], got 0"),
    (lambda: Subsampling("poisson", rate=1.5), "rate", "rate must be in [0, 1], got 1.5"),
    (lambda: Subsampling("wor", batch_size=8, dataset_size=8), "batch_size",
     "batch_size must be smaller than dataset_size, got q = 8, N = 8"),
    (lambda: rdp(Subsampling("poisson", rate=0.1), gaussian(1.0), Method.TIGHT, [2.0, 1.0]),
     "alphas", "alpha (the Rényi order) must be in (1, 10000], got 1"),
])
def test_a_bad_value_raises_an_error_naming_the_python_parameter(call, parameter, message):
    with pytest.raises(InvalidSpecification) as raised:
        call()
    assert raised.value.parameter == parameter and str(raised.value) == message
    assert "--" not in str(raised.value)


def test_every_flag_the_cli_substitutes_is_a_flag_of_some_command():
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices.values()
    flags = {flag for command in commands for action in command._actions
             for flag in action.option_strings}
    assert set(FLAGS.values()) <= flags


def test_the_library_uses_no_assert_for_its_checks():
    root = pathlib.Path(otbound.__file__).parent
    found = [f"{path.relative_to(root)}:{node.lineno}" for path in sorted(root.rglob("*.py"))
             for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.Assert)]
    assert found == []
