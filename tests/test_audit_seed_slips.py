"""001 Thm. G.1 as printed and corrected (issue 12): the printed reverse exponent α − 1 makes the
bound loose, never unsound; the corrected statement is tight; and 001 Thm. G.2, which states the
printed expression as attained, is wrong."""

import math

import pytest

from otbound.audit.catalog import find_claim
from otbound.audit.judge import run_audits
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
    assert "x = {" in str(witness.witness) and witness.witness.by_count is not None
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


def test_the_printed_g1_is_at_or_above_the_corrected_one_and_says_so():
    # issue 24, 7.4: |z − τ₁| ≤ 1 (equal to 1 at θ ∈ {0, 1}), so the printed reverse term is
    # at or above the corrected one; the entries state exactly that
    printed, corrected = (_result(name) for name in ("schuchardt-2024-thm-g1-printed",
                                                     "schuchardt-2024-thm-g1-corrected"))
    pairs = [(p.claimed, c.claimed) for p, c in zip(printed.points, corrected.points)]
    assert all(p >= c for p, c in pairs)
    assert any(p == c for p, c in pairs) and any(p > c for p, c in pairs)
    path, claim = find_claim("schuchardt-2024-thm-g1-printed")
    text = path.read_text(encoding="utf-8")
    assert "|z − τ₁| < 1" not in text and "|z − τ₁| ≤ 1" in claim.note
    assert "at or above" in claim.note and "equality only at θ ∈ {0, 1}" in claim.note
    g2 = find_claim("schuchardt-2024-thm-g2-printed")[1]
    assert g2.note.startswith("Stated as attained (Thm. G.2). At or above the exact value")


def test_entries_that_reuse_g1_find_it_through_the_catalogue(tmp_path, monkeypatch):
    # issue 24, 7.5: a catalogue given by OTBOUND_AUDITS is the one G.2 and corrected G.1 read
    import shutil

    from otbound.audit.catalog import AUDITS_SOURCE, AUDITS_VARIABLE

    folder = tmp_path / "audits"
    shutil.copytree(AUDITS_SOURCE, folder)
    printed = folder / "schuchardt_2024_thm_g1_printed.py"
    original = ("POINTS = grid(theta=[0.75, 0.9], r=[0.001, 0.1, 0.5], K=[2, 4], "
                "alpha=[2.0, 8.0, 64.0])")
    text = printed.read_text(encoding="utf-8")
    assert original in text
    printed.write_text(text.replace(original, "POINTS = grid(theta=[0.6], r=[0.3], K=[3], "
                                              "alpha=[5.0])"), encoding="utf-8")
    monkeypatch.setenv(AUDITS_VARIABLE, str(folder))
    modified = ({"theta": 0.6, "r": 0.3, "K": 3, "alpha": 5.0},)
    g2_path, g2 = find_claim("schuchardt-2024-thm-g2-printed")
    assert g2_path.parent == folder and g2.points == modified and g2.attained
    corrected_path, corrected = find_claim("schuchardt-2024-thm-g1-corrected")
    assert corrected_path.parent == folder and corrected.points == modified
    # the worker processes read the same catalogue
    (result,) = run_audits([(g2_path, g2)], workers=2)
    assert [p.point for p in result.points] == list(modified)


def test_an_entry_that_reuses_itself_is_an_error(tmp_path, monkeypatch):
    from otbound.audit.catalog import AUDITS_VARIABLE
    from otbound.errors import AuditFileError

    (tmp_path / "loop.py").write_text(
        "from otbound.audit.catalog import catalogue_entry\n"
        "_, CLAIM = catalogue_entry('loop')\n", encoding="utf-8")
    monkeypatch.setenv(AUDITS_VARIABLE, str(tmp_path))
    with pytest.raises(AuditFileError, match="unknown audit entry 'loop'"):
        find_claim(str(tmp_path / "loop.py"))
