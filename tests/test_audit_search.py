"""The audit searches each claim's domain (issue 27): domains as data, the search, circular
points, and mutants — audit files outside the catalogue — that the search must catch."""

from pathlib import Path

import pytest

from otbound.audit.catalog import catalogue_entry, load_claim_file
from otbound.audit.domain import Condition, Domain, choice, integer, real
from otbound.audit.judge import run_audits
from otbound.audit.search import search_domain
from otbound.audit.verdict import AuditVerdict
from otbound.errors import InvalidSpecification

MUTANTS = Path(__file__).with_name("audit_mutants")


def _audited(claim_path: Path):
    claim = load_claim_file(claim_path)
    (result,) = run_audits([(claim_path, claim)], workers=1)
    return result


def test_a_domain_maps_the_unit_cube_onto_its_parameters():
    domain = Domain((real("rate", 1e-4, 1.0), integer("alpha", 2, 64), choice("group", 2, 4, 8),
                     real("theta", 0.0, 1.0, log=False)),
                    (Condition("alpha ≥ 4 group", lambda p: p["alpha"] >= 4 * p["group"]),))
    corner = domain.point([0.0, 0.0, 0.0, 0.0])
    assert corner == {"rate": 1e-4, "alpha": 2.0, "group": 2.0, "theta": 0.0}
    middle = domain.point([0.5, 0.5, 0.5, 0.5])
    assert middle["rate"] == pytest.approx(1e-2) and middle["alpha"] == 11.0
    assert middle["group"] == 4.0 and middle["theta"] == 0.5
    assert not domain.contains(corner)                           # the condition fails
    assert domain.contains({**corner, "alpha": 8.0})
    assert not domain.contains({**corner, "alpha": 8.5})         # not an integer
    assert not domain.contains({**corner, "alpha": 8.0, "group": 3.0})
    assert "alpha ≥ 4 group" in domain.text and "integer alpha ∈ [2, 64]" in domain.text


def test_a_grid_point_outside_the_domain_is_refused():
    path, claim = catalogue_entry("zhu-wang-2019-tight")
    from dataclasses import replace

    with pytest.raises(InvalidSpecification, match="outside its domain"):
        replace(claim, points=({"sigma": 1.0, "rate": 0.1, "alpha": 2.5},))


def test_the_search_descends_across_a_condition_to_the_minimum():
    """A minimum on a condition's boundary that moves with an integer parameter (as Abadi et
    al.'s ``λ ≤ σ² ln(1/(qσ))``) is reached by repaired moves, then shrunk to few digits."""
    domain = Domain((real("x", 0.01, 1.0), integer("k", 1, 20)),
                    (Condition("x ≤ 1/k", lambda p: p["x"] <= 1 / p["k"]),))

    def objective(point):
        return 1.5 - point["x"] - 0.001 * point["k"]   # best at x = 1/k, k = 1

    found = search_domain("toy", domain, objective, seeds=[({"x": 0.05, "k": 20.0}, 1.43)])
    assert found.violated
    assert found.at["k"] == 1.0 and found.at["x"] == pytest.approx(1.0, rel=0.02)
    assert len(f"{found.at['x']:g}") <= 4                    # shrunk to a simple value
    assert found.evaluations <= domain.budget + 3 * 2


def test_the_search_finds_abadis_leading_term_unsound_inside_its_stated_domain():
    """The grid (σ ∈ {1, 2, 4}, q ∈ {0.001, 0.01, 0.05}, λ ∈ {1, 2, 4, …}) says sound; at
    σ = 1, q ≈ 0.05, λ = 3 (inside q < 1/(16σ) and λ ≤ σ² ln(1/(qσ))) the leading term is
    below the exact value (dp_accounting's too)."""
    from dp_accounting.rdp.rdp_privacy_accountant import (
        _compute_rdp_poisson_subsampled_gaussian as exact)

    path, _ = catalogue_entry("abadi-2016-lemma-3-leading-term")
    result = _audited(path)
    assert {p.status for p in result.points} == {"sound"}
    assert result.verdict is AuditVerdict.UNSOUND
    witness = result.witness
    assert result.claim.domain.contains(witness.point)
    point = witness.point
    theirs = exact(point["rate"], point["sigma"], [point["alpha"]])[0]
    assert witness.claimed < theirs * 0.97 and witness.confirmed >= theirs * (1 - 1e-9)


@pytest.mark.parametrize("mutant, grid_catches", [
    ("zhu_wang_term_scaled.py", True), ("zhu_wang_fractional_orders.py", False),
    pytest.param("dwork_roth_without_k.py", True, marks=pytest.mark.slow)])   # 18 s: groups
def test_mutants_are_reported_unsound_with_a_confirmed_witness(mutant, grid_catches):
    result = _audited(MUTANTS / mutant)
    assert result.verdict is AuditVerdict.UNSOUND
    assert (result.count("unsound") > 0) == grid_catches
    assert result.witness.confirmed is not None
    assert result.witness.claimed < result.witness.confirmed
    assert result.claim.domain.contains(result.witness.point)


def test_a_correct_claim_restated_is_not_reported_unsound():
    result = _audited(MUTANTS / "zhu_wang_restated.py")
    assert result.verdict is AuditVerdict.TIGHT
    assert result.search is not None and not result.search.violated
    assert result.search.smallest >= 1 - 1e-9 and result.search.evaluations >= 60


@pytest.mark.parametrize("name, verdict", [
    ("mironov-2017-gaussian-rdp", AuditVerdict.TIGHT),
    ("mironov-2017-laplace-rdp", AuditVerdict.TIGHT),
    ("mironov-2017-randomized-response-rdp", AuditVerdict.TIGHT),
    ("balle-wang-2018-analytic-gaussian", AuditVerdict.TIGHT),
    ("balle-2018-poisson-laplace", AuditVerdict.TIGHT),
    ("balle-2018-poisson-randomized-response", AuditVerdict.TIGHT),
    ("zhu-wang-2019-general-laplace", AuditVerdict.LOOSE),
    ("zhu-wang-2019-general-randomized-response", AuditVerdict.LOOSE),
    ("dwork-roth-2014-gaussian-mechanism", AuditVerdict.LOOSE),
    ("dwork-roth-2014-group-adp-laplace", AuditVerdict.LOOSE),
    ("mironov-2017-group-rdp-laplace", AuditVerdict.LOOSE),
])
def test_the_entries_on_other_mechanisms_hold_their_verdicts_over_the_domain(name, verdict):
    """Issue 27's added entries: the base mechanisms' exact RDP and profiles (tight), and
    the general bounds on Laplace and randomized response (sound); the search finds no
    violation, and a loose entry's claim is somewhere above otbound's bound."""
    path, _ = catalogue_entry(name)
    result = _audited(path)
    assert result.verdict is verdict
    assert not result.search.violated and result.search.smallest >= 1 - 1e-4
    if verdict is AuditVerdict.LOOSE:
        assert result.largest_ratio > 1.1


@pytest.mark.parametrize("setting, mechanism", [
    (dict(scheme="poisson", rate=0.1, group=2), "gaussian"),
    (dict(scheme="poisson", rate=0.3, insertions=1, removals=2), "gaussian"),
    (dict(scheme="poisson", rate=0.2, group=1), "randomized_response"),
    (dict(scheme="poisson", rate=1.0, insertions=1, removals=1), "gaussian"),
    (dict(scheme="wor", batch_size=3, dataset_size=6, substitutions=2), "randomized_response"),
    (dict(scheme="wor", batch_size=1, dataset_size=4, substitutions=2), "randomized_response"),
    (dict(scheme="wor", batch_size=2, dataset_size=5, substitutions=1), "randomized_response")])
def test_a_witness_is_datasets_whose_batches_give_its_outputs(setting, mechanism):
    """Issue 27: the witness as data — enumerate every batch of the two datasets it lists
    (Poisson: every subset of the records the two lack in common; without replacement: every
    batch of the batch size, common records included), apply its f by how many of the
    side's own records the batch holds, and the mechanism: the output distributions are the
    reference's pair, whose divergence is the lower end."""
    import itertools
    import math

    from otbound.audit.references import subsampled
    from otbound.choices import Quantity
    from otbound.numerics.mechanisms import gaussian, randomized_response
    from otbound.numerics.pairs import FinitePair
    from otbound.numerics.settings import Subsampling

    built = Subsampling(**setting)
    base = gaussian(1.5) if mechanism == "gaussian" else randomized_response(0.8)
    reference = subsampled(built, base, Quantity.RDP, 3.0)
    witness = reference.witness
    assert witness.x or witness.x_prime
    common = tuple(f"c{i}" for i in range(1, witness.common + 1))

    def batches(records):
        """Every batch of ``records`` with its probability."""
        if built.scheme.value == "poisson":
            for kept in itertools.product((0, 1), repeat=len(records)):
                yield ([r for r, k in zip(records, kept) if k],
                       math.prod(built.rate if k else 1 - built.rate for k in kept))
        else:
            chosen = list(itertools.combinations(records, built.batch_size))
            for batch in chosen:
                yield list(batch), 1 / len(chosen)

    def outputs(own, values):
        """{f(y): P[batch y]} over every batch of the dataset ``own + common``."""
        found = {}
        for batch, weight in batches(own + common):
            if weight > 0:
                value = values[sum(record in own for record in batch)] + 0.0
                found[value] = found.get(value, 0.0) + weight
        return found

    on_x, on_x_prime = (outputs(records, values) for records, values
                        in zip((witness.x, witness.x_prime), witness.by_count))
    pair = _worst_pair(built, base, witness)
    if isinstance(pair, FinitePair):   # randomized response on the bit f(y)
        def bits(found):
            one = sum(w for v, w in found.items() if v == 1.0)
            theta = base.theta
            return [one * (1 - theta) + (1 - one) * theta, one * theta + (1 - one) * (1 - theta)]
        assert bits(on_x) == pytest.approx(list(pair.p), rel=1e-12)
        assert bits(on_x_prime) == pytest.approx(list(pair.q), rel=1e-12)
    else:
        for found, means, logs in ((on_x, pair.p_means, pair.p_log_weights),
                                   (on_x_prime, pair.q_means, pair.q_log_weights)):
            listed = {m + 0.0: math.exp(w) for m, w in zip(means, logs)}
            assert found.keys() == listed.keys()
            for value, weight in found.items():
                assert weight == pytest.approx(listed[value], rel=1e-12)


def test_a_witness_lists_common_records_only_for_a_small_dataset():
    """Without replacement the records both datasets hold are part of the construction: listed
    one by one for a small dataset, elided for a large one."""
    from otbound.audit.references import subsampled
    from otbound.choices import Quantity
    from otbound.numerics.mechanisms import randomized_response
    from otbound.numerics.settings import Subsampling

    def witness(dataset_size):
        return subsampled(Subsampling("wor", batch_size=2, dataset_size=dataset_size,
                                      substitutions=1), randomized_response(0.8),
                          Quantity.ADP, 0.5).witness

    small, large = witness(5), witness(60000)
    assert (small.common, large.common) == (4, 59999)
    assert "x = {r1, c1, c2, c3, c4}, x' = {s1, c1, c2, c3, c4}" in str(small)
    assert "x = {r1, c1, …, c59999}, x' = {s1, c1, …, c59999}" in str(large)
    assert "2 of the 60000 records" in str(large)


def _worst_pair(setting, mechanism, witness):
    """The pair behind the witness: the case its source names, the outputs it prints."""
    from otbound.audit.references import _named_cases, outputs_text

    for where, _, terms in _named_cases(setting):
        for pair, _ in mechanism.worst_components(terms[0].problem):
            if witness.source.startswith(where) and witness.outputs == outputs_text(pair):
                return pair
    raise AssertionError("no case named by the witness")


def test_a_replacement_witness_is_datasets_whose_batches_give_its_outputs():
    """Sampling with replacement: every multiset of draws from the witness's datasets, f by the
    copies of the side's own record, Gaussian noise — the two output mixtures are the pair the
    lower end is the divergence of (in the direction the witness names; the reverse one is
    mirrored, means negated)."""
    import math

    from otbound.audit.reference_replacement import with_replacement
    from otbound.engine.schemes import WithReplacement

    reference = with_replacement(4, 2, 1.0, 0.3)
    witness = reference.witness
    assert witness.common == 3 and witness.x == ("a",) and witness.x_prime == ("a'",)

    def outputs(values):
        """{f(y): P[y]} over the multisets of 2 draws from 4 records, record 0 the own one."""
        found = {}
        for batch, probability in WithReplacement(2).pmf(frozenset(range(4))).items():
            value = values[batch.count(0)] + 0.0
            found[value] = found.get(value, 0.0) + float(probability)
        return found

    on_x, on_x_prime = (outputs(values) for values in witness.by_count)
    first, second = (on_x, on_x_prime) if witness.outputs.startswith("P = M(x),") \
        else (on_x_prime, on_x)
    sign = 1.0 if first is on_x else -1.0   # the reverse direction is mirrored
    text = witness.outputs.split(": ", 1)[1]
    for found, side in zip((first, second), text.split(", Q = ")):
        listed = {}
        for term in side.removeprefix("P = ").split(" with ")[0].split(" + "):
            weight, mean = term.split("·D(")
            listed[sign * float(mean.rstrip(")")) + 0.0] = \
                listed.get(sign * float(mean.rstrip(")")) + 0.0, 0.0) + float(weight)
        assert set(found) == set(listed)
        for value, weight in found.items():
            assert math.isclose(weight, listed[value], rel_tol=1e-5)
