"""Plots and progress (issue 15): ``--plot`` on ``rdp``/``adp``/``account``, several methods in
one plot, log axes and left-out points, ``otbound figures``, and the progress line on stderr."""

import io
import json
import math
import pathlib
import subprocess
import sys

import pytest
from cli_runs import run_cli

from otbound.plots import charts
from otbound.plots.charts import Chart, Panel, Series, draw, drawable, spans_decades
from otbound.plots.figures import FIGURES
from otbound.progress import Progress

PNG = b"\x89PNG\r\n\x1a\n"
POISSON = ("--scheme", "poisson", "--rate", "0.01", "--mechanism", "gaussian", "--sigma", "1")
COMMANDS = {
    "rdp": ("rdp", *POISSON, "--alpha", "2,8,32"),
    "adp": ("adp", *POISSON, "--epsilon", "0.1,0.5,1"),
    # a coarse PLD grid and 4 steps: the plot's grid of step counts is 1, 2, 3, 4
    "account": ("account", *POISSON, "--steps", "4", "--delta", "1e-6", "--accountant", "pld",
                "--discretisation", "1e-2"),
}


def _chart(*series: Series) -> Chart:
    return Chart((Panel(series, "x", "y"),), "title")


@pytest.mark.parametrize("command", COMMANDS)
def test_plot_writes_a_png(capsys, tmp_path, command):
    path = tmp_path / "sub" / f"{command}.png"
    code, out, err = run_cli(capsys, *COMMANDS[command], "--plot", path)
    assert code == 0, err
    assert out and path.stat().st_size > 0
    assert path.read_bytes().startswith(PNG)


def test_plot_accepts_only_png_names(capsys, tmp_path):
    code, _, err = run_cli(capsys, *COMMANDS["rdp"], "--plot", tmp_path / "curve.pdf")
    assert code == 2 and "PNG" in err and "Traceback" not in err
    assert not (tmp_path / "curve.pdf").exists()


def test_several_methods_are_drawn_as_one_line_each(capsys, tmp_path, monkeypatch):
    drawn, original = [], charts.write

    def write(chart, path):
        drawn.append(original(chart, path))
        return drawn[-1]

    monkeypatch.setattr(charts, "write", write)
    argv = ("rdp", "--scheme", "poisson", "--rate", "0.01", "--group", "8", "--mechanism",
            "gaussian", "--sigma", "1", "--alpha", "2,8,32,100")
    code, out, _ = run_cli(capsys, *argv, "--method", "tight,posthoc", "--plot",
                           tmp_path / "methods.png")
    assert code == 0 and (tmp_path / "methods.png").stat().st_size > 0
    assert "method tight" in out and "method posthoc" in out
    (figure,) = drawn
    (axes,) = figure.axes
    assert [line.get_label() for line in axes.get_lines()] == ["tight", "posthoc"]
    assert axes.get_yscale() == "log"   # ε from 1e-2 to 3e3
    assert "K = 8" in figure.get_suptitle() and "σ = 1" in figure.get_suptitle()


def test_several_methods_without_plot_are_a_usage_error(capsys):
    code, out, err = run_cli(capsys, *COMMANDS["rdp"], "--method", "tight,posthoc")
    assert code == 2 and out == ""
    assert "--plot" in err and "Traceback" not in err


def test_a_refused_method_prints_nothing(capsys, tmp_path):
    """Every method is evaluated before anything is printed or drawn."""
    code, out, err = run_cli(capsys, "rdp", "--derivation", "001-thm-F.3", "--param", "q=2",
                             "--param", "N=10",
                             "--mechanism", "gaussian", "--sigma", "1", "--alpha", "2",
                             "--method", "tight,posthoc", "--plot", tmp_path / "p.png")
    assert code == 2 and out == "" and "posthoc" in err
    assert not (tmp_path / "p.png").exists()


@pytest.mark.parametrize("methods", ["tight,tight", "tight,exact"])
def test_a_bad_method_list_is_refused_by_the_parser(capsys, methods):
    with pytest.raises(SystemExit) as exit:
        run_cli(capsys, *COMMANDS["rdp"], "--method", methods)
    assert exit.value.code == 2
    assert "--method takes one of" in capsys.readouterr().err


def test_log_axes_where_values_span_decades():
    assert spans_decades([1e-3, 1.0, 10.0]) and not spans_decades([1.0, 50.0])
    assert not spans_decades([0.0, -1.0, 5.0, math.nan])
    figure = draw(_chart(Series("a", (1.0, 2.0, 3.0), (1e-4, 1e-2, 1.0))))
    (axes,) = figure.axes
    assert (axes.get_xscale(), axes.get_yscale()) == ("linear", "log")


def test_points_that_cannot_be_drawn_are_left_out():
    x = (1.0, 2.0, 3.0, 4.0, 5.0)
    y = (1e-6, math.nan, math.inf, 0.0, 1.0)
    assert drawable(x, y, log_x=False, log_y=True) == ([1.0, 5.0], [1e-6, 1.0])
    assert drawable(x, y, log_x=False, log_y=False) == ([1.0, 4.0, 5.0], [1e-6, 0.0, 1.0])
    (axes,) = draw(_chart(Series("a", x, y))).axes
    (line,) = axes.get_lines()
    assert list(line.get_xdata()) == [1.0, 5.0] and axes.get_yscale() == "log"


class Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_progress_is_silent_when_stderr_is_not_a_terminal(monkeypatch):
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    with Progress("verify") as progress:
        progress("[1/3] N = 4")
        progress.step("T = 10")
    assert stream.getvalue() == ""


def test_progress_is_silent_when_quiet(monkeypatch):
    stream = Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    with Progress("verify", quiet=True) as progress:
        progress("[1/3] N = 4")
    assert stream.getvalue() == ""


def test_progress_on_a_terminal_shows_a_line_and_clears_it(monkeypatch):
    stream = Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    with Progress("account", total=2) as progress:
        progress.step("T = 1")
        shown = stream.getvalue()
    assert "account: [1/2] T = 1" in shown and "\n" not in shown
    assert stream.getvalue().endswith("\r\x1b[K") and len(stream.getvalue()) > len(shown)


def test_quiet_commands_print_no_progress(capsys, tmp_path, monkeypatch):
    stream = Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    code, out, _ = run_cli(capsys, *COMMANDS["account"], "--plot", tmp_path / "a.png",
                           "--quiet")
    assert code == 0 and out and stream.getvalue() == ""


def test_figures_list_names_them(capsys):
    code, out, _ = run_cli(capsys, "figures", "--list")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == [f.name for f in FIGURES]


def test_one_figure_is_regenerated(capsys, tmp_path):
    name = "003-fig4-laplace-groups-adp"   # the quickest (about a second)
    code, out, _ = run_cli(capsys, "figures", "--out", tmp_path, name, "--quiet")
    assert code == 0 and out.strip() == f"wrote {tmp_path / name}.png"
    assert (tmp_path / f"{name}.png").read_bytes().startswith(PNG)
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{name}.json", f"{name}.png"]


def test_figures_check_finds_data_that_is_stale(capsys, tmp_path):
    """``figures --check`` recomputes a figure's data and compares it with its NAME.json: a
    value changed by one part in a million is found (issue 43: two committed figures had gone
    stale unnoticed)."""
    name = "003-fig4-laplace-groups-adp"
    assert run_cli(capsys, "figures", "--out", tmp_path, name, "--quiet")[0] == 0
    code, out, _ = run_cli(capsys, "figures", "--check", "--out", tmp_path, name, "--quiet")
    assert code == 0 and out.splitlines()[0] == f"current: {name}"
    path = tmp_path / f"{name}.json"
    data = json.loads(path.read_text())
    data["panels"][0]["series"][2]["y"][3] *= 1 + 1e-6   # K = 2 tight, 0.049
    path.write_text(json.dumps(data))
    code, out, _ = run_cli(capsys, "figures", "--check", "--out", tmp_path, name, "--quiet")
    assert code == 1 and out.startswith(f"stale: {name}: ") and "y[3]" in out
    path.unlink()
    code, out, _ = run_cli(capsys, "figures", "--check", "--out", tmp_path, name, "--quiet")
    assert code == 1 and "no data file" in out


def test_every_committed_figure_is_one_that_figures_check_compares():
    """No picture in docs/ escapes ``figures --check`` (issue 43: two were drawn by benchmarks
    and never compared): each is a registered figure with its data file. (docs/audit/ holds the
    audit report's plots, drawn from the tables of docs/audit.md, which
    tests/test_audit.py compares.)"""
    docs = pathlib.Path(__file__).resolve().parent.parent / "docs"
    pictures = [p for p in docs.rglob("*") if p.suffix in (".png", ".svg", ".jpg")
                and docs / "audit" not in p.parents]
    names = {figure.name for figure in FIGURES}
    assert pictures and all(p.parent == docs / "figures" and p.stem in names
                            and p.with_suffix(".json").exists() for p in pictures), pictures
    assert {p.stem for p in pictures} == names


@pytest.mark.slow
def test_the_committed_figures_are_current():
    """Every figure in docs/figures/ is what otbound computes now (its data, not its pixels)."""
    from otbound.plots.figures import stale_figures

    assert stale_figures(pathlib.Path(__file__).resolve().parent.parent / "docs" / "figures") \
        == {}


def test_an_unknown_figure_is_refused(capsys, tmp_path):
    code, _, err = run_cli(capsys, "figures", "--out", tmp_path, "fig-99")
    assert code == 2 and "fig-99" in err and FIGURES[0].name in err


def test_commands_without_plot_do_not_import_matplotlib():
    script = ("import sys\nfrom otbound.cli import main\n"
              f"main({list(COMMANDS['rdp'])!r})\n"
              "print(sorted(m for m in sys.modules if m.startswith(('matplotlib', "
              "'otbound.plots'))))")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "[]"
