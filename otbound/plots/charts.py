"""Plots of privacy curves (issue 15): ε over α, δ over ε, ε or δ over the number of steps.

A plot is described by data first — a :class:`Chart` of :class:`Panel` s, each with its labelled
:class:`Series` — and drawn by :func:`draw` into a matplotlib ``Figure`` (one line per series,
so a comparison of two methods has two lines that a test can count), which :func:`save` writes
as a PNG. matplotlib is imported only inside :func:`draw` and :func:`save`, with the Agg canvas
and no pyplot state, so that importing this module (and every command run without ``--plot``)
stays free of it; it is the optional extra ``otbound[plots]``.

Axes are logarithmic where the plotted values span two decades or more; points that cannot be
drawn on the chosen scale (non-finite, or not positive on a log scale) are left out of the line
rather than drawn at a wrong place. PNGs are written without a timestamp or version string, so
that the same chart gives the same bytes.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from otbound.choices import Quantity
from otbound.errors import UnsupportedOperation
from otbound.optional import optional_module

if TYPE_CHECKING:
    from matplotlib.figure import Figure

DPI = 110
DECADES = 2.0
"""Values whose largest/smallest positive ratio reaches ``10**DECADES`` get a log axis."""
STYLES = ("-", "--", ":", "-.")
MARKERS = ("o", "x", "+", "s", "^", "v")
TITLE_CHARACTERS_PER_INCH = 14
PANEL_SIZE = (5.2, 4.2)
PURPOSE = "drawing plots"


@dataclass(frozen=True)
class Series:
    """One line: ``y`` over ``x``, named ``label``. ``colour`` and ``style`` index the palette and
    :data:`STYLES`, so that related lines (one group size, one method) share them."""

    label: str
    x: tuple[float, ...]
    y: tuple[float, ...]
    colour: int = 0
    style: int = 0

    def __post_init__(self) -> None:
        if len(self.x) != len(self.y):
            raise ValueError(f"series {self.label!r}: {len(self.x)} x values but "
                             f"{len(self.y)} y values")


@dataclass(frozen=True)
class Panel:
    """One set of axes: its series, axis labels and (short) title."""

    series: tuple[Series, ...]
    xlabel: str
    ylabel: str
    title: str = ""


@dataclass(frozen=True)
class Chart:
    """A figure: panels side by side under one title (the setting)."""

    panels: tuple[Panel, ...]
    title: str


def chart_data(chart: Chart) -> dict:
    """What a chart shows, as JSON: every panel's series (label, x, y), without the styling."""
    return {"title": chart.title,
            "panels": [{"title": panel.title, "xlabel": panel.xlabel, "ylabel": panel.ylabel,
                        "series": [{"label": s.label, "x": [float(v) for v in s.x],
                                    "y": [float(v) for v in s.y]} for s in panel.series]}
                       for panel in chart.panels]}


def spans_decades(values: Sequence[float]) -> bool:
    """Whether the positive finite ``values`` span :data:`DECADES` decades (a log axis)."""
    positive = [v for v in values if math.isfinite(v) and v > 0]
    return len(positive) > 1 and math.log10(max(positive) / min(positive)) >= DECADES


def drawable(x: Sequence[float], y: Sequence[float], log_x: bool,
             log_y: bool) -> tuple[list[float], list[float]]:
    """The points of a line that the axes can show: finite, and positive on a log axis."""
    def shown(value: float, log: bool) -> bool:
        return math.isfinite(value) and (value > 0 or not log)

    kept = [(a, b) for a, b in zip(x, y) if shown(a, log_x) and shown(b, log_y)]
    return [a for a, _ in kept], [b for _, b in kept]


def _matplotlib():
    canvas = optional_module("matplotlib.backends.backend_agg", PURPOSE).FigureCanvasAgg
    return optional_module("matplotlib.figure", PURPOSE).Figure, canvas


def draw(chart: Chart) -> Figure:
    """The chart as a matplotlib ``Figure`` on the Agg canvas, one ``Line2D`` per series."""
    figure_class, canvas = _matplotlib()
    count = len(chart.panels)
    width, height = PANEL_SIZE
    figure = figure_class(figsize=(width * count, height), layout="constrained")
    canvas(figure)
    for axes, panel in zip(figure.subplots(1, count, squeeze=False)[0], chart.panels):
        _draw_panel(axes, panel)
    characters = int(TITLE_CHARACTERS_PER_INCH * width * count)
    figure.suptitle(textwrap.fill(chart.title, characters), fontsize=9)
    return figure


def _draw_panel(axes, panel: Panel) -> None:
    log_x = spans_decades([v for s in panel.series for v in s.x])
    log_y = spans_decades([v for s in panel.series for v in s.y])
    palette = _palette(max((s.colour for s in panel.series), default=0) + 1)
    for series in panel.series:
        x, y = drawable(series.x, series.y, log_x, log_y)
        marker = MARKERS[series.colour % len(MARKERS)] if len(x) <= 16 else None
        axes.plot(x, y, STYLES[series.style % len(STYLES)], color=palette[series.colour],
                  marker=marker, markersize=3.5, linewidth=1.3, label=series.label)
    axes.set(xscale="log" if log_x else "linear", yscale="log" if log_y else "linear",
             xlabel=panel.xlabel, ylabel=panel.ylabel)
    if panel.title:
        axes.set_title(panel.title, fontsize=9)
    axes.grid(True, which="major", linewidth=0.4, alpha=0.5)
    if len(panel.series) > 1:
        axes.legend(fontsize=7, ncol=1 if len(panel.series) <= 6 else 2)


def _palette(count: int) -> list:
    from matplotlib import colormaps

    if count <= 10:
        return [colormaps["tab10"](i) for i in range(count)]
    return [colormaps["viridis"](0.9 * i / (count - 1)) for i in range(count)]


def save(figure: Figure, path: str | Path) -> Path:
    """Write ``figure`` as a PNG at ``path`` (parent folders created); no timestamp or
    software version in the file, so equal charts give equal bytes."""
    path = Path(path)
    if path.suffix.lower() not in ("", ".png"):
        raise UnsupportedOperation(f"--plot writes PNG files; got {str(path)!r} (use a .png "
                                   "name)")
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, format="png", dpi=DPI, metadata={"Software": None})
    return path


def write(chart: Chart, path: str | Path) -> Figure:
    """Draw ``chart`` and save it at ``path``; the figure is returned for inspection."""
    figure = draw(chart)
    save(figure, path)
    return figure


# --- charts of the commands ------------------------------------------------------------------

_SYMBOLS = {"rate": "r", "group": "K", "insertions": "K₊", "removals": "K₋",
            "batch_size": "q", "dataset_size": "N", "substitutions": "substitutions",
            "sigma": "σ", "scale": "b", "theta": "θ", "sensitivity": "L",
            "max_batch": "B"}
_LEFT_OUT = ("bound", "valid_for", "pairs", "distance_unit", "rate_from")
"""Setting entries too long for a title (they are in the text and JSON output)."""
SHORT_VARIANT = 24
"""A derivation's variant label longer than this (characters) is left out of the title."""


def setting_title(setting: dict) -> str:
    """The setting of a command's output in a title: ``poisson, r = 0.01, K = 8, gaussian,
    σ = 1``."""
    parts = []
    for key, value in setting.items():
        if (key in _LEFT_OUT or (key == "sensitivity" and value == 1)
                or (key == "variant" and len(str(value)) > SHORT_VARIANT)):
            continue
        if key in ("scheme", "mechanism", "derivation", "variant"):
            parts.append(str(value))
        elif isinstance(value, dict):
            parts.extend(f"{k} = {v}" for k, v in value.items())
        else:
            parts.append(f"{_SYMBOLS.get(key, key)} = {_number(value)}")
    return ", ".join(parts)


def _number(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def one_step_chart(results: Sequence[dict], quantity: Quantity) -> Chart:
    """``rdp``/``adp`` output (one result per method, as in their JSON) as one panel with a
    line per method: ε over α, or δ over ε."""
    labels = {"alpha": "order α", "epsilon": "ε"}
    inputs, outputs = quantity.axis, quantity.output
    series = tuple(Series(result["method"], tuple(result[inputs]), tuple(result[outputs]),
                          colour=i, style=i) for i, result in enumerate(results))
    ylabel = "RDP ε(α)" if quantity.renyi else "δ(ε)"
    kind = "Rényi DP" if quantity.renyi else "approximate DP"
    return Chart((Panel(series, labels[inputs], ylabel),),
                 f"{kind} of one step: {setting_title(results[0]['setting'])}")


def account_chart(curves: dict[str, tuple[Sequence[int], Sequence[float]]], setting: dict,
                  delta: float | None, epsilon: float | None) -> Chart:
    """``account`` over the number of steps (of epochs, for an epoch-level setting): ε at the
    given δ (or δ at the given ε), one line per accountant (``curves``: name → (steps,
    values))."""
    ylabel = f"ε at δ = {delta:g}" if delta is not None else f"δ at ε = {epsilon:g}"
    series = tuple(Series(name, tuple(map(float, steps)), tuple(values), colour=i, style=i)
                   for i, (name, (steps, values)) in enumerate(curves.items()))
    unit = "epochs E" if "steps_per_epoch" in setting else "steps T"
    return Chart((Panel(series, unit, ylabel),),
                 f"composition over {unit.split()[0]}: {setting_title(setting)}")
