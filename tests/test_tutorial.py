"""docs/tutorial.md runs as printed (issue 15): its file is the one it shows, every command
succeeds, and every output matches the page."""

import re

import pytest
from console_docs import ROOT, matches, run, sessions

TUTORIAL = ROOT / "docs" / "tutorial.md"
TEXT = TUTORIAL.read_text()


def test_the_page_shows_the_derivation_file_it_uses():
    (included,) = re.findall(r"```python\n(.*?)```", TEXT, re.S)
    path = ROOT / "docs" / "tutorial" / "poisson_substitution.py"
    assert included == path.read_text()


def test_the_page_has_its_commands():
    commands = [s.command.split()[1] for s in sessions(TEXT)]
    assert {"derive", "verify", "rdp", "adp", "account"} <= set(commands)
    assert any("--plot" in s.command for s in sessions(TEXT))


@pytest.mark.parametrize("session", sessions(TEXT), ids=lambda s: " ".join(s.command.split()[:2]))
def test_each_command_prints_what_the_page_shows(session):
    code, output = run(session.command)
    assert code == 0
    assert session.output.strip() and matches(session.output, output), output
