"""The commands README.md and docs/*.md show can run as written (the slow run of each, in a
user's install, is tests/test_user_install.py), and .ci/run is the README's test command."""

import json
import re
import shlex

import pytest
from cli_runs import run_cli
from documented_commands import ROOT, Documented, all_commands, commands, placeholders

from otbound.cli import build_parser

DOCUMENTED = all_commands()


def test_the_pages_show_commands_of_every_kind():
    shown = {d.command.split()[1] for d in DOCUMENTED}
    assert {"derive", "verify", "rdp", "adp", "account", "calibrate", "audit"} <= shown


PER_STEP = ("--scheme poisson", "--scheme wor", "--scheme truncated-poisson")
CONVENTIONS = ("--noise-multiplier", "--epochs", "--sensitivity", "--progress")
"""Issue 44, item 5: the flags of the training libraries' conventions, each shown in the docs."""


def _conventions(documented: Documented) -> list[str]:
    """The conventions a documented command uses (``--epochs``: of a per-step scheme;
    ``--noise-multiplier``: also as ``--solve-for noise-multiplier``)."""
    words = documented.command.replace("--solve-for noise-multiplier", "--noise-multiplier")
    return [flag for flag in CONVENTIONS if flag in words.split()
            and (flag != "--epochs" or any(s in documented.command for s in PER_STEP))]


SHOWING = [d for d in DOCUMENTED if _conventions(d)]


def test_the_pages_show_each_convention():
    assert {flag for d in SHOWING for flag in _conventions(d)} == set(CONVENTIONS)
    epochs = [d.command for d in SHOWING if "--epochs" in _conventions(d)]
    assert all(any(scheme in c for c in epochs) for scheme in PER_STEP[:2])


def _shows(flag: str, argv: list[str], out: str, err: str) -> bool:
    """Whether the output of ``otbound ARGV`` shows what the pages say of ``flag``."""
    value = dict(zip(argv, argv[1:]))
    result = json.loads(out) if "--json" in argv else None
    if flag == "--epochs":
        return (result["steps_from_epochs"]["epochs"] == int(value["--epochs"]) if result
                else re.search(rf"^  steps = \d+ \({value['--epochs']} epochs? × ", out, re.M)
                is not None)
    if flag == "--progress":
        lines = err.splitlines()
        return (lines[0].startswith(f"{argv[0]}: ") and lines[-1].startswith(
            f"{argv[0]}: done in ") and "\r" not in err)
    sensitivity = float(value.get("--sensitivity", 1))
    if flag == "--sensitivity":
        return f"sensitivity = {sensitivity} per " in out
    if "--noise-multiplier" in argv:
        return f"sigma = {float(value['--noise-multiplier']) * sensitivity}, " in out
    return result["noise_multiplier"] * sensitivity >= result["setting"]["sigma"]


@pytest.mark.parametrize("documented", SHOWING, ids=str)
def test_each_convention_shown_does_what_the_pages_say(capsys, documented: Documented):
    """Run here, not only in a fresh install: its output shows each convention it uses."""
    argv = shlex.split(documented.command)[1:]
    code, out, err = run_cli(capsys, *argv)
    assert code == documented.exit_code, err
    for flag in _conventions(documented):
        assert _shows(flag, argv, out, err), (flag, out, err)


@pytest.mark.parametrize("documented", DOCUMENTED, ids=str)
def test_each_command_runs_as_written(documented: Documented):
    assert not placeholders(documented), f"placeholder syntax in {documented}"
    build_parser().parse_args(shlex.split(documented.command)[1:])   # exits 2 on a bad flag


@pytest.mark.parametrize("documented", DOCUMENTED, ids=str)
def test_commands_that_need_an_extra_say_so(documented: Documented):
    needs = {"--plot": "plots", "--markdown": "plots", "--scheduler": "dask"}
    wanted = {extra for flag, extra in needs.items() if flag in documented.command.split()}
    assert wanted == ({documented.extra} if documented.extra else set()), str(documented)


def test_annotations_are_read_from_the_comment(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("text otbound derive --x\n```\n"
                    "otbound audit --all \\\n"
                    "        --json          # exits 1: unsound claims\n"
                    "otbound rdp --plot a.png  # needs pip install 'otbound[plots]'\n"
                    "pip install otbound\n"
                    "```\n```console\n$ otbound derive --list\noutput # exits 3\n```\n")
    found = [(d.command, d.exit_code, d.extra) for d in commands(page)]
    assert found == [("otbound audit --all --json", 1, None),
                     ("otbound rdp --plot a.png", 0, "plots"),
                     ("otbound derive --list", 0, None)]


def test_placeholders_are_found():
    def documented(command: str) -> Documented:
        return Documented("page", command, 0, None)

    assert placeholders(documented("otbound derive --all [--json]")) == ["["]
    assert placeholders(documented("otbound account --accountant rdp|pld")) == ["|"]
    assert placeholders(documented("otbound derive path/to/file.py")) == ["path/to"]
    assert not placeholders(documented("otbound rdp --rate 256/60000"))


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    (command,) = re.findall(r"^pip install -e '\.\[test\]' && .*$", readme, re.M)
    assert command in (ROOT / ".ci" / "run").read_text().splitlines()
    assert "-m install" in command
