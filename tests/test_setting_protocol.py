"""Issue 42: one setting protocol. Every epoch shorthand is the setting of its derivation, so the
two give identical numbers or the identical refusal, for every method and mechanism and through
every route (``account``, ``rdp``, ``adp``, the command line); and the library asks a setting
what it can do instead of testing its class."""

import ast
import json
import pathlib

import pytest

import otbound
from otbound.cli import main
from otbound.errors import OtboundError
from otbound.numerics.derived import derived_setting

SETTING_CLASSES = {"Subsampling", "DerivedSetting", "TruncatedPoissonSetting", "EpochSetting",
                   "BallsInBins", "ShuffledBatches", "RandomAllocation"}
SHORTHANDS = [
    ("random-allocation", lambda: otbound.RandomAllocation(10, 2),
     "epoch-random-allocation", {"T": 10, "k": 2}),
    ("balls-in-bins", lambda: otbound.BallsInBins(batch_size=3, dataset_size=20),
     "epoch-balls-in-bins", {"T": 7}),
    ("shuffle", lambda: otbound.ShuffledBatches(batch_size=3, dataset_size=20),
     "epoch-shuffling", {"T": 7}),
]
MECHANISMS = [otbound.gaussian(1.5), otbound.laplace(1.0), otbound.randomized_response(0.7)]


def outcome(call):
    """The numbers of a call, or the refusal it ends in (its message)."""
    try:
        found = call()
    except OtboundError as error:
        return ("refused", type(error).__name__, str(error))
    if isinstance(found, list):
        return ("values", [bound.value for bound in found])
    return ("guarantee", found.epsilon, found.delta, found.details.get("epsilon_lower"))


@pytest.mark.parametrize("name, shorthand, derivation, values", SHORTHANDS,
                         ids=[s[0] for s in SHORTHANDS])
@pytest.mark.parametrize("method", ["tight", "agnostic", "posthoc"])
@pytest.mark.parametrize("mechanism", MECHANISMS, ids=lambda m: m.name)
def test_a_shorthand_and_its_derivation_give_identical_numbers(name, shorthand, derivation,
                                                               values, method, mechanism):
    derived = derived_setting(otbound.load_derivation(derivation), values)
    for setting in (shorthand(), derived):
        assert setting.epoch_level and setting.steps_per_epoch == values["T"]
    calls = [
        lambda s: otbound.account(s, mechanism, 2, delta=1e-5, method=method),
        lambda s: otbound.adp(s, mechanism, method, [0.5, 1.0]),
        lambda s: otbound.rdp(s, mechanism, method, [2, 8]),
    ]
    for call in calls:   # outcome calls its argument at once, in this iteration
        assert outcome(lambda: call(shorthand())) == outcome(lambda: call(derived))  # noqa: B023


def test_the_command_line_gives_the_shorthand_and_the_derivation_the_same_numbers(capsys):
    common = ["--mechanism", "gaussian", "--sigma", "1", "--epochs", "3", "--delta", "1e-5",
              "--json"]
    runs = [["account", "--scheme", "random-allocation", "--steps-per-epoch", "12",
             "--selected", "3", *common],
            ["account", "--derivation", "epoch-random-allocation", "--param", "T=12",
             "--param", "k=3", *common]]
    found = []
    for argv in runs:
        assert main(argv) == 0
        report = json.loads(capsys.readouterr().out)
        found.append((report["epsilon"], report["epsilon_lower"], report["steps"]))
    assert found[0] == found[1] and found[0][1] <= found[0][0]


def test_no_setting_class_is_tested_outside_its_factories():
    """Accounting, the numbers and the command line ask a setting (``epoch_level``,
    ``solved``, ``relation_key``, ``unit_setting`` …); none tests which class it is."""
    root = pathlib.Path(otbound.__file__).parent
    found = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance"
                    and len(node.args) == 2):
                names = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
                found += [f"{path.name}:{node.lineno}" for _ in names & SETTING_CLASSES]
    assert found == []
