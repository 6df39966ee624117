"""``otbound rdp`` and ``otbound adp``: output keys, agreement with the library, bad input."""

import json

import pytest
from cli_runs import run_cli

from otbound.cli import main

BASE = ["--scheme", "poisson", "--rate", "0.01", "--mechanism", "gaussian", "--sigma", "1"]



def test_rdp_json(capsys):
    code, out, _ = run_cli(capsys, "rdp", *BASE, "--alpha", "2,8,1.5", "--json")
    result = json.loads(out)
    assert code == 0 and result["alpha"] == [2.0, 8.0, 1.5]
    assert set(result) == {"alpha", "epsilon", "method", "setting", "error_bound", "pairs"}
    assert result["pairs"].startswith("tight: the worst case of the gaussian mechanism")
    assert result["method"] == "tight" and result["setting"]["group"] == 1
    assert abs(result["epsilon"][0] - 1.7181342207454e-4) < 1e-15


def test_adp_json_and_text(capsys):
    code, out, _ = run_cli(capsys, "adp", "--scheme", "poisson", "--rate", "0.2", "--group", "4",
                           "--mechanism", "laplace", "--scale", "2", "--epsilon", "0.5,1",
                           "--method", "agnostic", "--json")
    result = json.loads(out)
    assert code == 0 and set(result) == {"epsilon", "delta", "method", "setting", "error_bound",
                                         "pairs", "bound_used"}
    assert result["method"] == "agnostic" and len(result["delta"]) == 2
    assert len(result["bound_used"]) == 2 and all(result["bound_used"])
    code, out, _ = run_cli(capsys, "adp", *BASE, "--epsilon", "1")
    assert code == 0 and "delta" in out


@pytest.mark.parametrize("argv, message", [
    (["rdp", "--scheme", "poisson", "--rate", "1.5", "--mechanism", "gaussian", "--sigma", "1",
      "--alpha", "2"], "--rate must be in [0, 1], got 1.5"),
    (["rdp", *BASE, "--alpha", "1"], "--alpha (the Rényi order) must be in (1, 10000], got 1"),
    (["rdp", "--scheme", "poisson", "--rate", "0.1", "--mechanism", "gaussian", "--sigma", "0",
      "--alpha", "2"], "--sigma must be a finite number > 0, got 0"),
    (["adp", "--scheme", "poisson", "--rate", "0.1", "--mechanism", "randomized-response",
      "--theta", "1", "--epsilon", "1"], "--theta must be in (0, 1), got 1"),
    (["adp", "--scheme", "wor", "--batch-size", "8", "--dataset-size", "8", "--mechanism",
      "gaussian", "--sigma", "1", "--epsilon", "1"], "--batch-size must be smaller than"),
    (["adp", *BASE, "--group", "-3", "--epsilon", "1"], "--group must be an integer >= 1, got -3"),
    (["adp", *BASE, "--epsilon", "-1001"], "--epsilon must be in [-1000, 1000], got -1001"),
    (["adp", *BASE, "--epsilon", "1,a"], "--epsilon takes a number or a comma-separated list"),
    (["adp", "--scheme", "poisson", "--rate", "0.1", "--mechanism", "gaussian", "--epsilon", "1"],
     "--mechanism gaussian needs --sigma"),
    (["rdp", *BASE, "--scale", "2", "--alpha", "2"], "--scale does not apply to --mechanism gaussian"),
    (["adp", "--derivation", "001-thm-F.3", "--param", "q=2", "--param", "N=9",
      "--mechanism", "gaussian", "--sigma", "1", "--epsilon", "1", "--method", "posthoc"],
     "use --method tight or --method agnostic"),
])
def test_invalid_settings_exit_2_with_one_line(capsys, argv, message):
    with pytest.raises(SystemExit) as exit_info:
        code = main(argv)
        raise SystemExit(code)
    out, err = capsys.readouterr()
    assert exit_info.value.code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1


# --- otbound account ----------------------------------------------------------------------------

TRUNCATED = ["--scheme", "truncated-poisson", "--rate", "0.05", "--max-batch", "55",
             "--dataset-size", "1000", "--mechanism", "gaussian", "--sigma", "1"]


def test_account_json_and_text(capsys):
    code, out, _ = run_cli(capsys, "account", *BASE, "--steps", "1000", "--delta", "1e-6",
                           "--accountant", "rdp", "--conversion", "balle2020", "--json")
    result = json.loads(out)
    assert code == 0 and {"epsilon", "delta", "steps", "accountant", "setting"} <= set(result)
    assert result["steps"] == 1000 and result["accountant"] == "rdp"
    assert result["epsilon"] == pytest.approx(2.4366938030221523, rel=1e-6)  # dp_accounting
    code, out, _ = run_cli(capsys, "account", *TRUNCATED, "--neighbouring", "replace-one",
                           "--steps", "10", "--epsilon", "1", "--json")
    result = json.loads(out)
    assert code == 0 and result["accountant"] == "pld" and result["epsilon"] == 1.0
    assert result["setting"]["neighbouring"] == "replace-one" and 0 < result["delta"] < 1
    code, out, _ = run_cli(capsys, "account", *BASE, "--steps", "10", "--delta", "1e-5")
    assert code == 0 and "-DP after 10 steps" in out


@pytest.mark.parametrize("argv, message", [
    ([*BASE, "--steps", "0", "--delta", "1e-6"], "--steps must be an integer in [1, 1e+09], got 0"),
    ([*BASE, "--steps", "10", "--delta", "1"], "--delta must be in (0, 1), got 1"),
    ([*BASE, "--steps", "10", "--delta", "0"], "--delta must be in (0, 1), got 0"),
    ([*BASE, "--steps", "10", "--epsilon", "-1001"],
     "--epsilon must be in [-1000, 1000], got -1001"),
    ([*BASE, "--steps", "10"], "one of the arguments --delta --epsilon is required"),
    ([*BASE, "--steps", "10", "--delta", "1e-5", "--accountant", "pld", "--conversion",
      "optimal"], "--conversion applies to --accountant rdp or best"),
    ([*BASE, "--steps", "10", "--delta", "1e-5", "--discretisation", "0"],
     "--discretisation must be in [1e-07, 1], got 0"),
    ([*BASE, "--steps", "10", "--delta", "1e-5", "--max-batch", "3"],
     "--max-batch applies to --scheme truncated-poisson"),
    (["--scheme", "truncated-poisson", "--rate", "0.05", "--max-batch", "0", "--dataset-size",
      "10", "--mechanism", "gaussian", "--sigma", "1", "--steps", "1", "--delta", "1e-5"],
     "--max-batch must be an integer >= 1, got 0"),
    ([*TRUNCATED, "--group", "2", "--steps", "1", "--delta", "0.1"], "--group does not apply"),
])
def test_account_rejects_invalid_input(capsys, argv, message):
    with pytest.raises(SystemExit) as exit_info:
        raise SystemExit(main(["account", *argv]))
    out, err = capsys.readouterr()
    assert exit_info.value.code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1
