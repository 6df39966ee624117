"""Epoch-level derivations (issue 28): an epoch's sequence of T batches as the outcome, checked
by exact enumeration (``otbound derive``) and against the real sampling simulated
(``otbound verify``); each check fails on a mutant."""

import json
from dataclasses import replace
from fractions import Fraction

import pytest
import sympy as sp

from otbound import (BallsInBinsEpoch, EpochStatement, InsertIntoSteps, InvalidSpecification,
                     ShuffledEpoch, SwapIntoSteps, load_derivation, run)
from otbound.cli import main
from otbound.engine.epoch_couplings import RECORD, component_label
from otbound.engine.epoch_schemes import PoissonEpoch, held
from otbound.verify import epoch_montecarlo
from otbound.verify.verification import verify_derivation

NAMES = ["epoch-balls-in-bins", "epoch-poisson", "epoch-shuffling"]


@pytest.mark.parametrize("name", NAMES)
def test_every_epoch_derivation_passes_its_exact_checks(name):
    report = run(load_derivation(name))
    assert report.passed and [steps for steps, _ in report.variants] == [1, 2, 3]
    for _, cases in report.variants:
        for case in cases:
            assert case.instances >= 3 and case.valid and case.weights_match and case.compatible
            assert case.matches_published is (None if name == "epoch-shuffling" else True)


def test_the_balls_in_bins_statement_is_the_published_pair():
    """T = 3, removal: weights 1/3, the record's step differs by one record, two components in
    their two steps."""
    (_, (removal, insertion)), = run(load_derivation("epoch-balls-in-bins").at({"T": 3})).variants
    assert {c.label: c.weight for c in removal.derived.left} == {
        "A1": sp.Rational(1, 3), "A2": sp.Rational(1, 3), "A3": sp.Rational(1, 3)}
    assert removal.derived.distances[frozenset({"A2", "E0"})] == (0, 1, 0)
    assert removal.derived.distances[frozenset({"A1", "A3"})] == (1, 0, 1)
    assert insertion.derived.distances[frozenset({"A0", "E3"})] == (0, 0, 1)


def test_the_schemes_pmfs_are_exact():
    records = ("a", "o1", "o2")
    balls = BallsInBinsEpoch(2).pmf(records)
    assert sum(balls.values()) == 1 and len(balls) == 8
    assert sum(p for o, p in balls.items() if held(o, "a") == {2}) == Fraction(1, 2)
    shuffled = ShuffledEpoch(2).pmf(("a", "o1", "o2", "o3"))
    assert len(shuffled) == 6 and set(shuffled.values()) == {Fraction(1, 6)}
    poisson = PoissonEpoch(2, Fraction(1, 3)).pmf(("a",))
    assert poisson[(frozenset({"a"}), frozenset({"a"}))] == Fraction(1, 9)
    with pytest.raises(InvalidSpecification, match="N = T·b"):
        ShuffledEpoch(2).pmf(("a", "o1", "o2"))
    with pytest.raises(InvalidSpecification, match=r"in \[1, 4\]"):
        BallsInBinsEpoch(5)


class _WrongStep(InsertIntoSteps):
    """A mutant: the record goes into the next step, not the event's."""

    def draws(self, scheme, case, others):
        for mass, outcomes in super().draws(scheme, case, others):
            yield mass, {name: (o[1:] + o[:1] if name != component_label(
                "E" if case.x else "A", None) and any(RECORD in b for b in o) else o)
                for name, o in outcomes.items()}


class _NoSwap(SwapIntoSteps):
    """A mutant: every E_t is the epoch drawn with a' in step 1."""

    def draws(self, scheme, case, others):
        for mass, outcomes in super().draws(scheme, case, others):
            yield mass, {name: outcomes[name[0] + "1"] for name in outcomes}


@pytest.mark.parametrize("name, mutate", [
    ("epoch-balls-in-bins", lambda d: replace(d, coupling=_WrongStep())),
    ("epoch-shuffling", lambda d: replace(d, coupling=_NoSwap())),
])
def test_a_coupling_with_wrong_marginals_is_caught(name, mutate):
    report = run(mutate(load_derivation(name)))
    assert not report.passed and report.validity == "FAILED"


def test_a_published_statement_with_another_weight_or_distance_is_caught():
    derivation = load_derivation("epoch-balls-in-bins")

    def heavier(T):
        statements = derivation.published(T)
        removal = statements["removal"]
        left = tuple(replace(c, weight=c.weight * sp.Rational(97, 100)) for c in removal.left)
        return statements | {"removal": replace(removal, left=left)}

    def farther(T):
        statements = derivation.published(T)
        removal = statements["removal"]
        distances = dict(removal.distances) | {frozenset({"A1", "E0"}): (2,) + (0,) * (T - 1)}
        return statements | {"removal": EpochStatement(removal.left, removal.right, distances)}

    for published in (heavier, farther):
        report = run(replace(derivation, published=published))
        assert not report.passed and not report.matches_published
        assert report.validity == "exact"


@pytest.mark.parametrize("name", NAMES)
def test_the_simulated_epochs_agree_with_the_reported_bounds(name):
    """The verifier's independent Monte Carlo of the real sampling, every T and case, within
    4 standard errors of the bounds (above the lower end where there is one)."""
    report = verify_derivation(load_derivation(name), mc_draws=60_000, seed=3)
    assert report.passed, report.to_text()
    assert len(report.checks) == 2 * sum(len(cases) for _, cases in report.report.variants)
    assert all(c.standard_error > 0 or c.estimate == 0 for c in report.checks)
    json.dumps(report.to_json())


def test_a_bound_below_the_simulated_truth_is_caught(monkeypatch):
    """The simulation can fail: with the balls-in-bins bracket scaled down by 5 %, the
    estimates lie above it by more than 4 standard errors."""
    original = epoch_montecarlo._balls_in_bins_bounds

    def lowered(steps, case, epsilon):
        upper, lower, reference = original(steps, case, epsilon)
        return 0.95 * upper, 0.95 * lower, reference

    monkeypatch.setattr(epoch_montecarlo, "_balls_in_bins_bounds", lowered)
    report = verify_derivation(load_derivation("epoch-balls-in-bins"), mc_draws=200_000, seed=3)
    assert not report.passed and "DISAGREES" in report.to_text()


def test_the_command_line_derives_and_verifies_epochs(capsys):
    assert main(["derive", "epoch-balls-in-bins", "--param", "T=2"]) == 0
    out = capsys.readouterr().out
    assert "1/2 b(ŷ_A1) + 1/2 b(ŷ_A2) ‖ b(ŷ_E0)" in out and "(ŷ_A1, ŷ_E0) ≤ (1, 0)" in out
    assert main(["derive", "epoch-shuffling", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["passed"] is True
    assert main(["verify", "epoch-shuffling", "--param", "T=2", "--mc-draws", "20000"]) == 0
    assert "Chua et al. 2024" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["derive", "epoch-poisson", "--param", "T=5"], "T (steps per epoch) must be an integer in "
                                                    "[1, 4], got '5'"),
    (["derive", "epoch-poisson", "--param", "K=2"], "has one structural parameter, T"),
    (["derive", "epoch-poisson", "--latex"], "--latex is not available for epoch-level"),
    (["derive", "epoch-poisson", "--coupling", "auto"], "--coupling auto does not apply"),
    (["account", "--derivation", "epoch-balls-in-bins", "--mechanism", "gaussian", "--sigma",
      "1", "--steps", "2", "--delta", "1e-5"], "is epoch-level: its numbers come from --scheme"),
])
def test_bad_epoch_requests_are_refused_clearly(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_derivation_file_with_a_broken_statement_is_reported_not_raised(tmp_path, capsys):
    path = tmp_path / "broken.py"
    path.write_text("from otbound import (BallsInBinsEpoch, BatchRelation, EpochDerivation,\n"
                    "                     InsertIntoSteps)\n"
                    "DERIVATION = EpochDerivation(name='broken', source='-', title='-',\n"
                    "    scheme=BallsInBinsEpoch, relation=BatchRelation.INSERTION_REMOVAL,\n"
                    "    coupling=InsertIntoSteps(), published=lambda T: {}, steps=(2,))\n")
    assert main(["derive", str(path)]) == 2
    err = capsys.readouterr().err
    assert "its published statement at T = 2, case removal failed: KeyError" in err
    assert "Traceback" not in err
