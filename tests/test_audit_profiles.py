"""Audit entries for privacy profiles, conversions and group privacy (audits/balle_2018_*,
balle_2020_conversion, mironov_2017_group, dwork_roth_2014_group, truncated_poisson_naive) and
the references they need (otbound.audit.reference_replacement, reference_truncated)."""

import itertools
import math
from fractions import Fraction

import mpmath as mp
import pytest

from otbound.accounting.conversion import balle_epsilon
from otbound.accounting.truncated import TruncatedPoissonSetting
from otbound.audit.catalog import AUDITS_SOURCE, load_claim_file
from otbound.audit.claims import Claim
from otbound.audit.reference_replacement import draw_counts, with_replacement
from otbound.audit.reference_truncated import outputs, truncated_poisson
from otbound.audit.judge import run_audits
from otbound.audit.verdict import AuditVerdict, EntryResult, judge_point


def _entry(stem: str):
    path = AUDITS_SOURCE / f"{stem}.py"
    claim = load_claim_file(path)
    (result,) = run_audits([(path, claim)], workers=1)
    return claim, result


def _statuses(result: EntryResult) -> set[str]:
    return {point.status for point in result.points}


def _scaled(claim: Claim, factor: float, points) -> EntryResult:
    """The entry's claim multiplied by ``factor``, judged at ``points``."""
    scaled = Claim(claim.name, claim.title, claim.citation, claim.setting, claim.domain,
                   claim.quantity, points, lambda p: factor * claim.claimed(p), claim.reference)
    return EntryResult(scaled, tuple(judge_point(scaled, p) for p in scaled.points))


# --- 1. Balle, Barthe & Gaboardi 2018, Poisson ------------------------------------------------

def test_balle_2018_poisson_meets_the_tight_profile():
    claim, result = _entry("balle_2018_poisson")
    assert result.verdict is AuditVerdict.TIGHT and _statuses(result) == {"tight"}
    assert len(result.points) == 36
    assert all(abs(ratio - 1) < 1e-9 for ratio in result.ratios)
    # a claim 1e-6 below the formula is refuted by the worst-case construction
    lowered = _scaled(claim, 1 - 1e-6, claim.points[:1])
    assert lowered.verdict is AuditVerdict.UNSOUND
    assert lowered.witness.confirmed > lowered.witness.claimed


# --- 2. Balle, Barthe & Gaboardi 2018, sampling with replacement ------------------------------

def test_balle_2018_replacement_is_undecided_and_above_its_construction():
    claim, result = _entry("balle_2018_replacement")
    assert result.verdict is AuditVerdict.UNDECIDED and _statuses(result) == {"undecided"}
    assert result.largest_ratio is None and all(p.upper is None for p in result.points)
    over = [p.claimed / p.lower for p in result.points]
    assert min(over) >= 1 - 1e-9
    assert max(over) == pytest.approx(5.0349, rel=1e-3)   # n = 10, m = 4, σ = 2, ε' = 1
    assert sorted(over)[len(over) // 2] < 1.05             # mostly within a few percent


def test_with_replacement_construction_is_exact_where_the_claim_is():
    """m = 1: only k = 1 copies, so the claim is the construction's δ exactly (BBG's advanced
    joint convexity is an equality for a two-component mixture against its first part)."""
    claim = load_claim_file(AUDITS_SOURCE / "balle_2018_replacement.py")
    for n, sigma, epsilon in ((4, 1.0, 0.3), (10, 2.0, 0.05), (7, 0.5, 1.0)):
        point = {"n": n, "m": 1, "sigma": sigma, "epsilon": epsilon}
        reference = with_replacement(n, 1, sigma, epsilon)
        assert claim.claimed(point) == pytest.approx(reference.lower, rel=1e-9)
    # the high-precision oracle agrees with the fast lower end (one case: it takes seconds)
    assert reference.confirm() == pytest.approx(reference.lower, rel=1e-9)


def test_with_replacement_draw_counts_are_binomial():
    for n, m in ((4, 4), (10, 5), (3, 8)):
        expected = [math.comb(m, k) * Fraction(n - 1) ** (m - k) / Fraction(n) ** m
                    for k in range(m + 1)]
        assert list(draw_counts(n, m)) == expected


# --- 3. Balle et al. 2020, Thm. 21 -------------------------------------------------------------

def test_balle_2020_conversion_is_sound_but_loose():
    claim, result = _entry("balle_2020_conversion")
    # tight only where (α − 1)ρ is large (α = 256, ρ = 2), sound elsewhere
    assert result.verdict is AuditVerdict.LOOSE and _statuses(result) == {"sound", "tight"}
    assert {p.point["rho"] for p in result.points if p.status == "tight"} == {2.0}
    assert result.largest_ratio == pytest.approx(2.0056, rel=1e-3)   # α = 1.5, ρ = 0.01
    assert result.median_ratio == pytest.approx(1.0779, rel=1e-3)
    assert min(result.ratios) > 1 - 1e-8
    for point in claim.points:   # otbound's own implementation of the same formula
        ours = balle_epsilon(point["alpha"], point["rho"], point["delta"])
        assert claim.claimed(point) == pytest.approx(ours, rel=1e-12)


def test_balle_2020_meets_the_optimum_for_large_orders():
    """Beyond (α − 1)ρ ≈ 25 the claim is inside the optimal conversion's bracket."""
    claim = load_claim_file(AUDITS_SOURCE / "balle_2020_conversion.py")
    point = {"alpha": 256.0, "rho": 2.0, "delta": 1e-10}
    judged = judge_point(claim, point)
    assert judged.status == "tight"
    assert judged.lower <= judged.claimed <= judged.upper
    assert judged.claimed / judged.lower - 1 < 1e-11


# --- 4. Mironov 2017, Prop. 2 -------------------------------------------------------------------

def test_mironov_2017_group_rdp_is_sound_but_loose():
    _, result = _entry("mironov_2017_group")
    assert result.verdict is AuditVerdict.LOOSE and _statuses(result) == {"sound"}
    assert result.largest_ratio == pytest.approx(18.19, rel=1e-3)   # K = 4, r = 0.1, σ = 1, α = 2
    assert result.median_ratio == pytest.approx(2.2168, rel=1e-3)
    by_group = {k: [p.ratio for p in result.points if p.point["group"] == k] for k in (2, 4)}
    assert min(by_group[2]) > 1.5 and min(by_group[4]) > 2.25   # 3^c/2^c at best


# --- 5. Dwork & Roth 2014, group privacy for (ε, δ) -------------------------------------------

def test_dwork_roth_group_adp_is_sound_but_loose():
    _, result = _entry("dwork_roth_2014_group")
    assert result.verdict is AuditVerdict.LOOSE and _statuses(result) == {"sound"}
    assert result.largest_ratio == pytest.approx(63.89, rel=1e-3)   # k = 8, σ = 2, r = 0.01, ε = 3
    assert result.median_ratio == pytest.approx(2.3208, rel=1e-3)
    assert min(result.ratios) > 1.04


# --- 6. truncated Poisson, the naive bound -----------------------------------------------------

def test_naive_truncation_bound_is_sound_but_very_loose():
    _, result = _entry("truncated_poisson_naive")
    assert result.verdict is AuditVerdict.LOOSE and _statuses(result) == {"sound"}
    assert result.largest_ratio > 1e8 and result.median_ratio > 500
    assert min(result.ratios) > 1
    assert all(p.lower <= p.upper for p in result.points)


@pytest.mark.parametrize("setting, sigma, epsilon", [
    (TruncatedPoissonSetting(0.05, 200, 200), 1.0, 0.5),    # B = n: plain Poisson
    (TruncatedPoissonSetting(1.0, 20, 500), 3.0, 0.2),      # p = 1: a fixed batch of B
])
def test_truncated_construction_attains_the_bound_at_002s_extremes(setting, sigma, epsilon):
    reference = truncated_poisson(setting, sigma, epsilon)
    assert reference.tight
    assert reference.confirm() == pytest.approx(reference.lower, rel=1e-9)


def test_truncated_construction_is_the_enumerated_output():
    """The mixtures of reference_truncated against every Poisson draw and every B-subset."""
    n, rate, max_batch, others = 6, 0.4, 2, -1.0
    records = [1.0] + [others] * (n - 1)

    def enumerate_sums(values):
        mass = {}
        for size in range(len(values) + 1):
            for drawn in itertools.combinations(range(len(values)), size):
                chance = mp.mpf(rate) ** size * (1 - mp.mpf(rate)) ** (len(values) - size)
                kept = (list(itertools.combinations(drawn, max_batch)) if size > max_batch
                        else [drawn])
                for batch in kept:
                    total = sum(values[i] for i in batch)
                    mass[total] = mass.get(total, 0) + chance / len(kept)
        return mass

    first, second = outputs(TruncatedPoissonSetting(rate, max_batch, n), others)
    for mixture, values in ((first, records), (second, records[1:])):
        with mp.workdps(50):
            expected = enumerate_sums(values)
        assert sorted(expected) == list(mixture[0])
        for mean, weight in zip(*mixture):
            assert abs(weight - expected[mean]) < 1e-30
