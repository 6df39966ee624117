"""Inputs at the edges of the allowed ranges: a number (exit 0) or one line (exit 2), never a
traceback, a warning, NaN or inf (issue 9). Warnings are errors in this module."""

import json
import math

import pytest

from otbound.cli import main

pytestmark = pytest.mark.filterwarnings("error")

POISSON = ["--scheme", "poisson"]
EDGE_SETTINGS = [
    [*POISSON, "--rate", "1e-300"],
    [*POISSON, "--rate", "1"],
    [*POISSON, "--rate", "0"],
    [*POISSON, "--rate", "0.5", "--group", "16"],
    [*POISSON, "--rate", "1e-6", "--insertions", "3", "--removals", "5"],
    ["--scheme", "wor", "--batch-size", "1", "--dataset-size", "1000000000",
     "--substitutions", "4"],
    ["--scheme", "wor", "--batch-size", "999", "--dataset-size", "1000"],
]
EDGE_MECHANISMS = [
    ["--mechanism", "gaussian", "--sigma", "0.1"],
    ["--mechanism", "gaussian", "--sigma", "1e6"],
    ["--mechanism", "laplace", "--scale", "0.1"],
    ["--mechanism", "laplace", "--scale", "1e6"],
    ["--mechanism", "randomized-response", "--theta", "1e-12"],
    ["--mechanism", "randomized-response", "--theta", "0.999999999999"],
    ["--mechanism", "randomized-response", "--theta", "0.5"],
]


def run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    if code == 2:
        assert err.count("\n") == 1 and err.startswith("otbound: error: "), err
    else:
        assert code == 0 and err == "", err
    return code, out


def finite_json(out: str, key: str) -> list[float]:
    values = json.loads(out)[key]
    assert all(math.isfinite(v) and v >= 0 for v in values)
    return values


# Every edge setting meets two edge mechanisms, and every edge mechanism two settings.
PAIRS = [(setting, EDGE_MECHANISMS[(i + shift) % len(EDGE_MECHANISMS)])
         for i, setting in enumerate(EDGE_SETTINGS) for shift in (0, 3)]


SLOW_EDGES = {("tight", "wor --batch-size 1 gaussian --sigma 1e6")}
"""Edges that take a minute: the certified three-point solver spends its 6000 boxes at σ = 10⁶
before refusing (exit 2); run with ``-m slow``."""
EDGE_CASES = [pytest.param(setting, mechanism, method, id=f"{method}-{label}",
                           marks=[pytest.mark.slow] if (method, label) in SLOW_EDGES else [])
              for method in ("tight", "agnostic", "posthoc") for setting, mechanism in PAIRS
              for label in [" ".join(setting[1:4] + mechanism[1:])]]


@pytest.mark.parametrize("setting, mechanism, method", EDGE_CASES)
def test_edges_of_every_range(capsys, setting, mechanism, method):
    for command, flag, points in (("rdp", "--alpha", "1.000001,2,10000"),
                                  ("adp", "--epsilon", "0,1e-12,50,1000")):
        code, out = run(capsys, [command, *setting, *mechanism, "--method", method, flag, points,
                                 "--json"])
        if code == 0:
            finite_json(out, "epsilon" if command == "rdp" else "delta")


GAUSSIAN_EDGES, RR_EDGES = EDGE_MECHANISMS[:2], EDGE_MECHANISMS[4:6]
ACCOUNTING_EDGES = [
    (GAUSSIAN_EDGES[0], ["--delta", "1e-300"]), (GAUSSIAN_EDGES[0], ["--epsilon", "1000"]),
    (GAUSSIAN_EDGES[1], ["--delta", "0.999999"]), (GAUSSIAN_EDGES[1], ["--epsilon", "0"]),
    (RR_EDGES[0], ["--delta", "1e-300"]), (RR_EDGES[0], ["--epsilon", "0"]),
    (RR_EDGES[1], ["--delta", "0.999999"]), (RR_EDGES[1], ["--epsilon", "1000"]),
]


@pytest.mark.parametrize("mechanism, target", ACCOUNTING_EDGES,
                         ids=[" ".join(m[1:] + t) for m, t in ACCOUNTING_EDGES])
def test_accounting_at_the_edges(capsys, mechanism, target):
    code, out = run(capsys, ["account", *POISSON, "--rate", "0.01", *mechanism,
                             "--steps", "1000000000", *target, "--json"])
    if code == 0:
        result = json.loads(out)
        assert math.isfinite(result["epsilon"]) and 0 <= result["delta"] <= 1
