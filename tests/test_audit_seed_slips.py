"""001 Thm. G.1 as printed and corrected (issue 12): the printed reverse exponent α − 1 makes the
bound loose, never unsound; the corrected statement is tight; and 001 Thm. G.2, which states the
printed expression as attained, is wrong."""

import math

from otbound.audit.catalog import find_claim
from otbound.audit.runner import run_audits
from otbound.audit.verdict import AuditVerdict


def _result(name):
    (result,) = run_audits([find_claim(name)], workers=1)
    return result


def test_the_corrected_g1_is_tight():
    result = _result("schuchardt-2024-thm-g1-corrected")
    assert result.verdict is AuditVerdict.TIGHT and result.count("tight") == 36


def test_the_printed_g1_is_loose_and_vacuous_for_small_rates():
    result = _result("schuchardt-2024-thm-g1-printed")
    assert result.verdict is AuditVerdict.LOOSE and result.count("unsound") == 0
    assert min(result.ratios) >= 1 - 1e-9 and result.largest_ratio > 1e5
    # the slip adds log(Σ_z |z − τ₁|^{α−1} …): at r = 0.001 the printed claim stays near
    # log 2/(α − 1) while the exact value tends to 0
    small = [p for p in result.points if p.point["r"] == 0.001 and p.point["alpha"] == 2.0]
    assert all(p.claimed > 0.5 * math.log(2) and p.upper < 1e-3 for p in small)


def test_the_printed_g1_stated_as_attained_is_wrong_with_a_witness(capsys):
    # 001 Thm. G.2 states the printed expression as attained: above the exact value, it is false
    result = _result("schuchardt-2024-thm-g2-printed")
    assert result.verdict is AuditVerdict.WRONG and result.verdict.failed
    assert result.count("not attained") == 18 and result.count("unsound") == 0
    witness = result.witness
    assert witness.status == "not attained" and witness.claimed > 1e5 * witness.upper
    assert "neighbouring datasets" in witness.witness
    from cli_runs import run_cli

    code, out, _ = run_cli(capsys, "audit", "schuchardt-2024-thm-g2-printed")
    assert code == 1 and "claimed attained with" in out
    code, _, _ = run_cli(capsys, "audit", "schuchardt-2024-thm-g1-printed")
    assert code == 0


def test_an_attained_claim_that_is_exact_is_tight():
    from dataclasses import replace

    path, claim = find_claim("schuchardt-2024-thm-g1-corrected")
    (result,) = run_audits([(path, replace(claim, attained=True))], workers=1)
    assert result.verdict is AuditVerdict.TIGHT
