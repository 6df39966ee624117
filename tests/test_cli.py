import json
import subprocess
import sys

import pytest
from cli_runs import run_cli

NAMES = ["001-prop-E.4", "001-prop-E.5", "001-thm-3.6", "001-thm-4.1", "001-thm-F.2",
         "001-thm-F.3", "002-thm-3.1", "002-thm-3.3", "002-thm-3.4", "003-thm-3.7",
         "wor-group-substitution", "wr-group-substitution", "wr-insertion-removal",
         "wr-substitution"]
EPOCH_LEVEL = ["epoch-balls-in-bins", "epoch-poisson", "epoch-random-allocation",
               "epoch-shuffling"]
"""Their reports: tests/test_epoch_derivations.py."""
TIGHTER_THAN_PUBLISHED = ("002-thm-3.3", "002-thm-3.4")
"""Derived with a tighter coupling than the statement as published: none is compared."""



def test_list_names_the_bundled_derivations(capsys):
    code, out, _ = run_cli(capsys, "derive", "--list")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == sorted(NAMES + EPOCH_LEVEL)


JSON_BY_DEFAULT = ("001-thm-4.1", "wr-substitution", "wor-group-substitution", "002-thm-3.3")
"""Symbolic validity, no statement, a statement for one variant only, and tighter than the
statement; the slow run takes every derivation (``derive --all`` runs each by default)."""


@pytest.mark.parametrize("name", [
    name if name in JSON_BY_DEFAULT else pytest.param(name, marks=pytest.mark.slow)
    for name in NAMES])
def test_json_report_of_each_derivation(capsys, name):
    code, out, _ = run_cli(capsys, "derive", name, "--json")
    report = json.loads(out)
    assert code == 0
    assert report["valid"] is True and report["d_compatible"] is True
    # sampling with replacement: no published statement in the seeds (vacuously matched)
    with_replacement = name.startswith("wr-")
    assert report["matches_published"] is True
    if name in ("001-prop-E.4", "001-thm-3.6", "001-thm-4.1"):
        assert report["validity"] == "symbolic"
    for variant in report["variants"]:
        # otbound's own extension (wor-group-substitution, K > 1) has no published statement
        own = with_replacement or name in TIGHTER_THAN_PUBLISHED or (
            name == "wor-group-substitution" and variant["variant"] != "K = 1")
        assert variant["bound"] and (variant["published"] is None) == own
        for case in variant["cases"]:
            assert case["instances_checked"] > 0 and case["N_range"][1] >= 8


def test_text_and_latex_output(capsys):
    code, out, _ = run_cli(capsys, "derive", "thm_3_6")
    assert code == 0 and "Theorem." in out and "matches the published statement: yes" in out
    code, out, _ = run_cli(capsys, "derive", "001-thm-3.6", "--latex")
    assert code == 0 and out.startswith(r"\begin{theorem}") and r"\Psi_\alpha" in out


@pytest.mark.slow
def test_all_prints_a_summary_table(capsys):
    code, out, _ = run_cli(capsys, "derive", "--all")
    assert code == 0 and "18 of 18 derivations passed every check" in out


def test_all_runs_the_catalogue_on_every_core_in_its_order(tmp_path):
    """``derive --all`` on a catalogue of three (the whole catalogue: the slow test above, and
    the README's ``otbound derive --all`` in a user's install, tests/test_user_install.py). A
    command-line process (not threaded) maps the derivations over forked workers: the rows and
    the JSON reports come back in the catalogue's order."""
    import os
    import shutil

    from otbound.engine.bundled import catalogue_directory

    for name in ("thm_3_6.py", "thm_f2.py", "thm_f3.py"):
        shutil.copy(catalogue_directory() / name, tmp_path / name)
    env = os.environ | {"OTBOUND_DERIVATIONS": str(tmp_path)}
    table = subprocess.run([sys.executable, "-m", "otbound.cli", "derive", "--all"], env=env,
                           capture_output=True, text=True, timeout=600)
    assert table.returncode == 0, table.stderr
    rows = [line.split()[0] for line in table.stdout.splitlines()[1:4]]
    assert rows == ["001-thm-3.6", "001-thm-F.2", "001-thm-F.3"]
    assert "3 of 3 derivations passed every check" in table.stdout
    reports = subprocess.run([sys.executable, "-m", "otbound.cli", "derive", "--all", "--json"],
                             env=env, capture_output=True, text=True, timeout=600)
    assert [r["name"] for r in json.loads(reports.stdout)] == rows


@pytest.fixture
def bad_files(tmp_path):
    (tmp_path / "empty.py").write_text("x = 1\n")
    (tmp_path / "broken.py").write_text("from otbound import (\n")
    (tmp_path / "notes.txt").write_text("hello\n")
    return tmp_path


@pytest.mark.parametrize("argv, message", [
    (["derive", "no-such-derivation"], "unknown derivation 'no-such-derivation'"),
    (["derive", "{dir}/empty.py"], "does not define DERIVATION"),
    (["derive", "{dir}/broken.py"], "could not be loaded: SyntaxError"),
    (["derive", "{dir}/notes.txt"], "must be a Python file"),
    (["derive", "{dir}/missing.py"], "does not exist"),
    (["derive", "--list", "001-thm-3.6"], "exactly one of NAME_OR_PATH, --list or --all"),
    (["derive"], "exactly one of NAME_OR_PATH, --list or --all"),
])
def test_bad_input_gives_one_line_and_exit_code_two(capsys, bad_files, argv, message):
    argv = [a.format(dir=bad_files) for a in argv]
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1


def test_unknown_option_is_one_line_with_exit_code_two():
    result = subprocess.run([sys.executable, "-m", "otbound.cli", "derive", "--frobnicate"],
                            capture_output=True, text=True)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_console_script_reports_bad_names_without_traceback():
    result = subprocess.run(["otbound", "derive", "nothing-here"], capture_output=True, text=True)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("otbound: error: unknown derivation") and \
        "Traceback" not in result.stderr
