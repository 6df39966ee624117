"""One route from a setting to a number (issue 25): a command-line shorthand and the bundled
derivation it stands for give identical numbers, or the identical refusal, for every method and
mechanism; the published baselines of a scheme and relation apply whichever route names them.
"""

import json

import numpy as np
import pytest

from otbound.accounting.truncated import DERIVATIONS
from otbound.choices import Neighbouring
from otbound import (Subsampling, UnsupportedOperation, adp, gaussian, laplace, load_derivation,
                     randomized_response, rdp)
from otbound.numerics.derived import derived_setting
from tests.cli_runs import run_cli

ALPHAS = [2.0, 8.0, 20.5]
EPSILONS = [0.1, 1.0]
MECHANISMS = {"gaussian": gaussian(2.0), "laplace": laplace(2.0),
              "randomized-response": randomized_response(0.75)}
SHORTHANDS = [
    # (shorthand, [(derivation, its parameters)]: the shorthand is their maximum)
    (Subsampling("poisson", rate=0.1, insertions=0, removals=1),
     [("003-thm-3.7", {"K_plus": 0, "K_minus": 1, "r": "0.1"})]),
    (Subsampling("poisson", rate=0.1, insertions=2, removals=1),
     [("003-thm-3.7", {"K_plus": 2, "K_minus": 1, "r": "0.1"})]),
    (Subsampling("poisson", rate=0.05, group=2),
     [("003-thm-3.7", {"K_plus": k, "K_minus": 2 - k, "r": "0.05"}) for k in range(3)]),
    (Subsampling("wor", batch_size=10, dataset_size=1000),
     [("wor-group-substitution", {"K": 1, "q": 10, "N": 1000})]),
    (Subsampling("wor", batch_size=10, dataset_size=1000, substitutions=2),
     [("wor-group-substitution", {"K": 2, "q": 10, "N": 1000})]),
]


def outcome(evaluate, setting, mechanism, method, points):
    """The values, or the refusal's message."""
    try:
        return [bound.value for bound in evaluate(setting, mechanism, method, points)]
    except UnsupportedOperation as error:
        return str(error)


def through_derivations(evaluate, derivations, mechanism, method, points):
    """The largest over the derivations' values (or the first refusal)."""
    found = [outcome(evaluate, derived_setting(load_derivation(name), parameters), mechanism,
                     method, points) for name, parameters in derivations]
    refusals = [f for f in found if isinstance(f, str)]
    return refusals[0] if refusals else list(np.max(found, axis=0))


@pytest.mark.parametrize("method", ["tight", "agnostic", "posthoc"])
@pytest.mark.parametrize("mechanism", MECHANISMS, ids=str)
@pytest.mark.parametrize("shorthand, derivations", SHORTHANDS,
                         ids=lambda s: s.summary() if isinstance(s, Subsampling) else "")
@pytest.mark.parametrize("evaluate, points", [(rdp, ALPHAS), (adp, EPSILONS)],
                         ids=["rdp", "adp"])
def test_a_shorthand_and_its_derivation_agree(evaluate, points, shorthand, derivations,
                                              mechanism, method):
    if evaluate is rdp and shorthand.scheme.value == "wor" and mechanism == "gaussian" \
            and method == "tight" and shorthand.substitutions == 1:
        points = ALPHAS[:2]   # the certified three-point solver: seconds an order
    mechanism = MECHANISMS[mechanism]
    direct = outcome(evaluate, shorthand, mechanism, method, points)
    assert direct == through_derivations(evaluate, derivations, mechanism, method, points)


def test_published_baselines_apply_to_a_derivation():
    """One removal under Poisson subsampling: 001 Prop. E.4 (Zhu & Wang) applies to the
    derivation as to the shorthand, far below the product coupling alone."""
    setting = derived_setting(load_derivation("003-thm-3.7"),
                              {"K_plus": 0, "K_minus": 1, "r": "0.1"})
    (agnostic,) = rdp(setting, gaussian(2.0), "agnostic", [8.0])
    (tight,) = rdp(setting, gaussian(2.0), "tight", [8.0])
    assert tight.value <= agnostic.value < 0.02   # the product coupling alone: 0.672


def test_posthoc_is_refused_where_the_sensitivity_is_counted_in_another_distance():
    setting = derived_setting(load_derivation("001-thm-F.3"), {"q": 2, "N": 10})
    with pytest.raises(UnsupportedOperation, match="K = 1 bound of the same scheme"):
        rdp(setting, gaussian(1.0), "posthoc", [2.0])


NOISE_FLAGS = {"gaussian": ["--sigma", "1"], "laplace": ["--scale", "1"],
               "randomized-response": ["--theta", "0.75"]}


POINTS = {"rdp": ["--alpha", "2,8"], "adp": ["--epsilon", "0.5,1"]}
TRUNCATED_BY_DEFAULT = {("rdp", "add-remove", "gaussian"), ("adp", "add-remove", "laplace"),
                        ("rdp", "add-remove", "randomized-response"),
                        ("adp", "zero-out", "gaussian"), ("rdp", "replace-one", "gaussian")}
"""Every command, relation and mechanism once by default; each combination in the slow run."""


@pytest.mark.parametrize("command, points, neighbouring, mechanism", [
    pytest.param(command, points, neighbouring, mechanism,
                 id=f"{command}-{neighbouring}-{mechanism}",
                 marks=() if (command, neighbouring, mechanism) in TRUNCATED_BY_DEFAULT
                 else pytest.mark.slow)
    for command, points in POINTS.items()
    for neighbouring, mechanism in [("add-remove", m) for m in NOISE_FLAGS]
    + [("zero-out", "gaussian"), ("replace-one", "gaussian")]])
def test_the_truncated_poisson_shorthand_is_its_derivation_on_the_command_line(
        capsys, command, points, neighbouring, mechanism):
    """``--scheme truncated-poisson`` and ``--derivation 002-thm-3.x`` at the same ``r``,
    ``B`` and ``N`` give the same numbers, or the same refusal, for every method."""
    shorthand = ["--scheme", "truncated-poisson", "--rate", "0.05", "--max-batch", "55",
                 "--dataset-size", "1000", "--neighbouring", neighbouring]
    derivation = ["--derivation", DERIVATIONS[Neighbouring(neighbouring)], "--param", "r=0.05",
                  "--param", "B=55", "--param", "N=1000"]
    quantity = "epsilon" if command == "rdp" else "delta"
    for method in ("tight", "agnostic", "posthoc"):
        found = []
        for flags in (shorthand, derivation):
            code, out, err = run_cli(capsys, command, *flags, "--mechanism", mechanism,
                                     *NOISE_FLAGS[mechanism], *points, "--method", method,
                                     "--json")
            found.append(json.loads(out)[quantity] if code == 0 else err)
        assert found[0] == found[1]
        assert isinstance(found[0], list) == (method != "posthoc")
