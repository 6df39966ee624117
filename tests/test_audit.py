"""The audit machinery (issue 12): verdicts, the command, its reports, and where it runs."""

import json
import math

import pytest
from cli_runs import run_cli

from otbound.audit.catalog import bundled_claims, find_claim, load_claim_file
from otbound.audit.claims import Claim, Reference, grid
from otbound.audit.judge import run_audits
from otbound.audit.verdict import AuditVerdict, EntryResult, judge_point
from otbound.choices import Quantity
from otbound.errors import AuditFileError, InvalidSpecification

UNDER_OPTIMAL = '''
import math
from otbound.audit.claims import Claim, grid
from otbound.choices import Quantity
from otbound.audit.references import conversion
from otbound.accounting.conversion import optimal_epsilon

CLAIM = Claim(
    name="test-under-optimal", title="0.9 times the optimal conversion", citation="a test",
    setting="(alpha, rho)-RDP", domain="all", quantity=Quantity.EPSILON,
    points=grid(alpha=[4.0, 16.0], rho=[0.5], delta=[1e-6]),
    claimed=lambda p: 0.9 * optimal_epsilon(p["alpha"], p["rho"], p["delta"]).epsilon,
    reference=lambda p: conversion(p["alpha"], p["rho"], Quantity.EPSILON, p["delta"]))
'''


def _claim(claimed, reference, points=({"alpha": 2.0},)) -> Claim:
    return Claim("test", "t", "c", "s", "d", Quantity.RDP, points, claimed, reference)


@pytest.mark.parametrize("claimed, reference, status", [
    (1.0, Reference(1.0, 1.0), "tight"),
    (1.0 + 1e-12, Reference(1.0, 1.0 - 1e-12), "tight"),
    (1.5, Reference(1.0, 1.0), "sound"),
    (0.9, Reference(1.0, 0.8), "undecided"),
    (0.9, Reference(1.0, None), "undecided"),
    (0.9, Reference(None, 0.95, "w", lambda: 0.96), "unsound"),
    (0.9, Reference(1.0, 0.95, "w", lambda: 0.85), "undecided"),   # oracle disagrees
    (1 - 1e-12, Reference(1.0, 1.0), "tight"),
])
def test_point_status(claimed, reference, status):
    result = judge_point(_claim(lambda p: claimed, lambda p: reference), {"alpha": 2.0})
    assert result.status == status


def test_entry_verdicts_and_ratios():
    def entry(*pairs):
        claim = _claim(lambda p: pairs[int(p["alpha"]) - 2][0],
                       lambda p: pairs[int(p["alpha"]) - 2][1],
                       points=tuple({"alpha": float(k + 2)} for k in range(len(pairs))))
        return EntryResult(claim, tuple(judge_point(claim, p) for p in claim.points))
    tight, loose = Reference(1.0, 1.0), Reference(2.0, 2.0)
    assert entry((1.0, tight), (2.0, loose)).verdict is AuditVerdict.TIGHT
    result = entry((1.0, tight), (3.0, loose), (4.0, loose))
    assert result.verdict is AuditVerdict.LOOSE
    assert result.largest_ratio == 2.0 and result.median_ratio == 1.5
    assert entry((1.0, tight), (1.0, Reference(2.0, 1.5))).verdict is AuditVerdict.UNSOUND
    assert entry((1.0, tight), (1.8, Reference(2.0, 1.5))).verdict is AuditVerdict.UNDECIDED


def test_an_unsound_row_shows_its_smallest_ratio_and_where(tmp_path):
    # issue 24, 7.1: the most damning point, not the least; ratios claim / construction
    from otbound.audit.findings import to_json, to_markdown, to_text

    cases = {2.0: (0.9, Reference(None, 1.0, "w", lambda: 1.0)),     # ratio 0.9
             3.0: (0.25, Reference(1.0, 0.5, "w", lambda: 0.5)),     # ratio 0.5 (upper: 0.25)
             4.0: (0.25, Reference(2.0, 1.0, "w", lambda: 1.0)),     # ratio 0.25: the smallest
             5.0: (3.0, Reference(1.0, 1.0))}                        # sound, ratio 3
    claim = _claim(lambda p: cases[p["alpha"]][0], lambda p: cases[p["alpha"]][1],
                   points=tuple({"alpha": a} for a in cases))
    result = EntryResult(claim, tuple(judge_point(claim, p) for p in claim.points))
    assert result.verdict is AuditVerdict.UNSOUND and result.largest_ratio == 3.0
    assert result.smallest_ratio == (0.25, {"alpha": 4.0}) and result.witness.point == {
        "alpha": 4.0}
    row = next(line for line in to_text([result]).splitlines() if line.startswith("test "))
    assert "smallest 0.25 at alpha = 4" in row and "largest" not in row
    entry = to_json([result])["entries"][0]
    assert entry["smallest_ratio"] == 0.25 and entry["smallest_ratio_at"] == {"alpha": 4.0}
    markdown = to_markdown([result], {})
    assert "| 1 sound, 3 unsound | smallest 0.25 at alpha = 4 | 0.25 |" in markdown
    assert "smallest ratio claim / construction 0.25 at alpha = 4, median" in markdown
    # entries that are not unsound keep their largest ratio
    sound = EntryResult(claim, result.points[-1:])
    assert sound.smallest_ratio is None and "largest 3" in to_text([sound])
    assert to_json([sound])["entries"][0]["smallest_ratio_at"] is None


def test_a_shown_smallest_ratio_is_rounded_up():
    from otbound.audit.findings import _rounded_up

    for value in (1 / 3, 2 / 3, 0.28474451, 1.2345678e-7, 9.9999995e-5):
        shown = _rounded_up(value)
        assert float(shown) >= value and len(shown.replace(".", "").split("e")[0]) <= 7
    assert _rounded_up(0.25) == "0.25" and _rounded_up(1 / 3) == "0.333334"


def test_a_failing_formula_is_an_error_of_the_entry():
    with pytest.raises(AuditFileError, match=r"^audit entry 'test': its formula raised "
                                             r"ValueError: math domain error at point "
                                             r"\{'alpha': 2.0\}$"):
        judge_point(_claim(lambda p: math.log(-1.0), lambda p: Reference(1, 1)), {"alpha": 2.0})


def test_claims_are_checked():
    with pytest.raises(InvalidSpecification, match="has no alpha"):
        Claim("x", "t", "c", "s", "d", Quantity.RDP, ({"epsilon": 1.0},), abs, abs)
    with pytest.raises(InvalidSpecification, match="finite number"):
        Claim("x", "t", "c", "s", "d", Quantity.RDP, ({"alpha": math.inf},), abs, abs)
    assert grid(a=[1, 2], b=[3]) == ({"a": 1, "b": 3}, {"a": 2, "b": 3})


def test_an_unsound_formula_is_caught_with_a_confirmed_witness(tmp_path, capsys):
    path = tmp_path / "under.py"
    path.write_text(UNDER_OPTIMAL)
    code, out, _ = run_cli(capsys, "audit", str(path), "--json", "--workers", "1")
    (entry,) = json.loads(out)["entries"]
    assert code == 1 and entry["verdict"] == "UNSOUND"
    witness = entry["witness"]
    assert witness["confirmed"] > witness["claimed"] and "Bern(" in witness["witness"]


def test_the_command_lists_audits_and_reports_text(capsys):
    code, out, _ = run_cli(capsys, "audit", "--list")
    assert code == 0 and "mironov-2017-rdp-to-dp" in out
    code, out, _ = run_cli(capsys, "audit", "mironov-2017-rdp-to-dp", "--workers", "1")
    assert code == 0 and "sound but loose" in out and "0 unsound" in out


@pytest.mark.parametrize("argv, message", [
    (["audit"], "audit needs entries"),
    (["audit", "nothing-here"], "unknown audit entry 'nothing-here'"),
    (["audit", "--all", "--workers", "0"], "--workers must be at least 1, got 0"),
    (["audit", "missing.py"], "does not exist"),
])
def test_bad_audit_input_exits_2(capsys, argv, message):
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and message in err and "Traceback" not in err


def test_markdown_report_with_plots(tmp_path, capsys):
    target = tmp_path / "docs" / "audit.md"
    target.parent.mkdir()
    code, _, _ = run_cli(capsys, "audit", "mironov-2017-rdp-to-dp", "--workers", "1",
                         "--markdown", str(target))
    text = target.read_text()
    plot = tmp_path / "docs" / "audit" / "mironov-2017-rdp-to-dp.svg"
    assert code == 0 and "| mironov-2017-rdp-to-dp | ε(δ) | sound but loose |" in text
    assert "](audit/mironov-2017-rdp-to-dp.svg)" in text and plot.read_text().startswith("<?xml")


def _statuses(results):
    return [[(p.status, p.claimed, p.upper) for p in r.points] for r in results]


def test_local_processes_give_the_serial_results(tmp_path):
    path = tmp_path / "under.py"
    path.write_text(UNDER_OPTIMAL)
    entries = [find_claim("mironov-2017-rdp-to-dp"), (path, load_claim_file(path))]
    assert _statuses(run_audits(entries, workers=2)) == _statuses(run_audits(entries, workers=1))


def test_an_audit_runs_on_a_dask_local_cluster(capsys):
    distributed = pytest.importorskip("distributed")
    entries = [find_claim("mironov-2017-rdp-to-dp")]
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            on_dask = run_audits(entries, scheduler=client)
        code, out, _ = run_cli(capsys, "audit", "mironov-2017-rdp-to-dp", "--json",
                               "--scheduler", cluster.scheduler_address)
    assert _statuses(on_dask) == _statuses(run_audits(entries, workers=1))
    assert code == 0 and json.loads(out)["entries"][0]["verdict"] == "sound but loose"


def test_every_bundled_entry_loads():
    names = [claim.name for _, claim in bundled_claims()]
    assert len(names) == len(set(names)) and "mironov-2017-rdp-to-dp" in names


def test_a_distance_constraint_lowered_by_one_is_caught():
    # 001 Thm. 4.1, K = 2 removals, with d(ŷ_A3, ŷ_E1) <= 2 lowered to <= 1: every component is
    # then within 1 of ŷ_E1, and the Gaussian optimum puts A2 and A3 together at distance 1.
    import numpy as np

    from otbound.audit.references import subsampled
    from otbound.numerics.families import GAUSSIAN
    from otbound.numerics.mechanisms import gaussian
    from otbound.numerics.pairs import MixturePair
    from otbound.numerics.renyi import log_psi
    from otbound.numerics.settings import Subsampling

    def claimed(p):
        stay = (1 - p["r"]) ** 2
        pair = MixturePair(GAUSSIAN, p["sigma"], np.array([0.0, 1.0]),
                           np.log([stay, 1 - stay]), np.array([0.0]), np.array([0.0]))
        return log_psi(pair, p["alpha"]).value / (p["alpha"] - 1)

    claim = Claim("lowered", "t", "c", "s", "d", Quantity.RDP,
                  grid(r=[0.2], sigma=[1.0], alpha=[2.0, 8.0]), claimed,
                  lambda p: subsampled(Subsampling("poisson", rate=p["r"], group=2),
                                       gaussian(p["sigma"]), Quantity.RDP, p["alpha"]))
    result = EntryResult(claim, tuple(judge_point(claim, p) for p in claim.points))
    assert result.verdict is AuditVerdict.UNSOUND
    witness = result.witness
    assert witness.confirmed > witness.claimed and "003-thm-3.7" in str(witness.witness)


@pytest.mark.slow
def test_the_committed_audit_report_is_current(tmp_path):
    from pathlib import Path

    from otbound.audit.findings import write_markdown

    target = tmp_path / "audit.md"
    write_markdown(run_audits(bundled_claims()), target)
    committed = Path(__file__).resolve().parent.parent / "docs" / "audit.md"
    assert target.read_text() == committed.read_text()
    assert ({p.name for p in (tmp_path / "audit").glob("*.svg")}
            == {p.name for p in (committed.parent / "audit").glob("*.svg")})
