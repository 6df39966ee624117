"""Epoch-level derivations (issue 28): an epoch's sequence of T batches as the outcome, checked
by exact enumeration (``otbound derive``) and against the real sampling simulated
(``otbound verify``); each check fails on a mutant."""

import json
from dataclasses import replace
from fractions import Fraction

import pytest
import sympy as sp

from otbound import InvalidSpecification, load_derivation, run
from otbound.engine import (BallsInBinsEpoch, EpochStatement, InsertIntoSteps, ShuffledEpoch,
                            SwapIntoSteps)
from otbound.cli import main
from otbound.engine.epoch_couplings import RECORD, component_label
from otbound.engine.epoch_schemes import PoissonEpoch, held
from otbound.verify import epoch_montecarlo
from otbound.verify.verification import verify_derivation

NAMES = ["epoch-balls-in-bins", "epoch-poisson", "epoch-random-allocation", "epoch-shuffling"]


@pytest.mark.parametrize("name", NAMES)
def test_every_epoch_derivation_passes_its_exact_checks_up_to_eight_steps(name):
    """Valid, d_Y-compatible (within its worst case's pattern), its worst case named with its
    proof, the published statement matched where there is one; exact checks up to T = 8."""
    report = run(load_derivation(name))
    assert report.passed and max(v.values["T"] for v in report.variants) >= 8
    for variant in report.variants:
        for case in variant.cases:
            assert case.instances >= 1 and case.valid and case.weights_match
            assert case.within_pattern and case.pattern.proof
            if name == "epoch-shuffling":
                assert case.matches_published is None and not case.pattern.tight
            elif name != "epoch-random-allocation" or variant.values["k"] == 1:
                assert case.matches_published is True and case.pattern.tight


def test_epoch_reports_have_the_keys_of_every_derivation_report():
    """Tools that read derivation reports read epoch-level ones the same way."""
    per_step = run(load_derivation("001-prop-E.4")).to_json()
    epoch = run(load_derivation("epoch-balls-in-bins").at({"T": 2})).to_json()
    assert set(per_step) <= set(epoch)
    assert set(per_step["variants"][0]) <= set(epoch["variants"][0])
    assert set(per_step["variants"][0]["cases"][0]) <= set(epoch["variants"][0]["cases"][0])
    case = epoch["variants"][0]["cases"][0]
    assert case["worst_case"]["pattern"] == "pinned product" and case["d_compatible"] is True


def test_the_balls_in_bins_statement_is_the_published_pair():
    """T = 3, removal: weights 1/3, the record's step differs by one record, two components in
    their two steps."""
    (variant,) = run(load_derivation("epoch-balls-in-bins").at({"T": 3})).variants
    removal, insertion = variant.cases
    assert {c.label: c.weight for c in removal.derived.left} == {
        "A1": sp.Rational(1, 3), "A2": sp.Rational(1, 3), "A3": sp.Rational(1, 3)}
    assert removal.derived.distances[frozenset({"A2", "E0"})] == (0, 1, 0)
    assert removal.derived.distances[frozenset({"A1", "A3"})] == (1, 0, 1)
    assert insertion.derived.distances[frozenset({"A0", "E3"})] == (0, 0, 1)


def test_random_allocation_derives_k_of_t_with_its_pattern():
    """k = 2 of T = 4: weights 1/6, a placement differs from the base in its two steps and from
    another in their symmetric difference; the worst case is the pinned product."""
    (variant,) = run(load_derivation("epoch-random-allocation").at({"T": 4, "k": 2})).variants
    removal = variant.cases[0]
    assert set(c.weight for c in removal.derived.left) == {sp.Rational(1, 6)}
    assert removal.derived.distances[frozenset({"A12", "E0"})] == (1, 1, 0, 0)
    assert removal.derived.distances[frozenset({"A12", "A23"})] == (1, 0, 1, 0)
    assert removal.pattern.name == "pinned product" and removal.within_pattern


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
    with pytest.raises(InvalidSpecification, match="balls-in-bins puts each record in one step"):
        BallsInBinsEpoch(5, 2)


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
    assert not report.passed and report.validity == "invalid"


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
        assert report.validity == "instances"


def test_distances_beyond_the_pattern_are_caught():
    """A mutant coupling that puts the record into one step more than its event: the pinned
    product's distances are exceeded, so the report is not d_Y-compatible."""
    class _Spilling(InsertIntoSteps):
        def draws(self, scheme, case, others):
            for mass, outcomes in super().draws(scheme, case, others):
                yield mass, {name: (o[:-1] + (o[-1] | {RECORD},) if name[1:] != "0" else o)
                             for name, o in outcomes.items()}

    report = run(replace(load_derivation("epoch-balls-in-bins").at({"T": 3}),
                         coupling=_Spilling()))
    assert not report.passed and not report.d_compatible


@pytest.mark.parametrize("name", NAMES)
def test_the_simulated_epochs_agree_with_the_reported_bounds(name):
    """The verifier's independent Monte Carlo of the real sampling, every T and case, within
    4 standard errors of the bounds (above the lower end where there is one)."""
    report = verify_derivation(load_derivation(name), mc_draws=60_000, seed=3)
    assert report.passed, report.to_text()
    assert len(report.checks) == 2 * sum(len(v.cases) for v in report.report.variants)
    assert all(c.standard_error > 0 or c.estimate == 0 for c in report.checks)
    json.dumps(report.to_json())


def test_a_bound_below_the_simulated_truth_is_caught(monkeypatch):
    """The simulation can fail: with the balls-in-bins bracket scaled down by 5 %, the
    estimates lie above it by more than 4 standard errors."""
    original = epoch_montecarlo._allocation_bounds

    def lowered(*args):
        upper, lower, reference = original(*args)
        return 0.95 * upper, 0.95 * lower, reference

    monkeypatch.setattr(epoch_montecarlo, "_allocation_bounds", lowered)
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
    (["derive", "epoch-poisson", "--param", "T=9"], "T (steps per epoch) must be an integer in "
                                                    "[1, 8], got '9'"),
    (["derive", "epoch-poisson", "--param", "K=2"], "has the structural parameters T"),
    (["derive", "epoch-poisson", "--latex"], "--latex is not available for epoch-level"),
    (["derive", "epoch-poisson", "--coupling", "auto"], "--coupling auto does not apply"),
    (["account", "--derivation", "epoch-balls-in-bins", "--mechanism", "gaussian", "--sigma",
      "1", "--steps", "2", "--delta", "1e-5"], "composes epochs: give --epochs, not --steps"),
    (["account", "--derivation", "epoch-balls-in-bins", "--mechanism", "gaussian", "--sigma",
      "1", "--epochs", "2", "--delta", "1e-5"], "needs a value for T"),
])
def test_bad_epoch_requests_are_refused_clearly(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_derivation_file_with_a_broken_statement_is_reported_not_raised(tmp_path, capsys):
    path = tmp_path / "broken.py"
    path.write_text("from otbound.engine import (BallsInBinsEpoch, BatchRelation,\n"
                    "                            EpochDerivation, InsertIntoSteps)\n"
                    "DERIVATION = EpochDerivation(name='broken', source='-', title='-',\n"
                    "    scheme=BallsInBinsEpoch, relation=BatchRelation.INSERTION_REMOVAL,\n"
                    "    coupling=InsertIntoSteps(), published=lambda T: {},\n"
                    "    variants=({'T': 2},))\n")
    assert main(["derive", str(path)]) == 2
    err = capsys.readouterr().err
    assert "its published statement at T = 2, case removal failed: KeyError" in err
    assert "Traceback" not in err
