"""The commands README.md and docs/*.md show can run as written (the slow run of each, in a
user's install, is tests/test_user_install.py), and .ci/run is the README's test command."""

import re
import shlex

import pytest
from documented_commands import ROOT, Documented, all_commands, commands, placeholders

from otbound.cli import build_parser

DOCUMENTED = all_commands()


def test_the_pages_show_commands_of_every_kind():
    shown = {d.command.split()[1] for d in DOCUMENTED}
    assert {"derive", "verify", "rdp", "adp", "account", "calibrate", "audit"} <= shown


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
