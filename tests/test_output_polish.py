"""Output polish (issue 15): help without markup."""

import pytest

from otbound.cli import main


@pytest.mark.parametrize("argv", [["--help"], ["derive", "--help"], ["account", "--help"]])
def test_help_shows_no_markup(capsys, argv):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    out = capsys.readouterr().out
    assert stop.value.code == 0 and out.startswith("usage: otbound")
    assert "``" not in out and ":func:" not in out and ":class:" not in out
