"""Audit reports: a table in text, markdown and JSON, and one plot per entry.

Every number in a report is computed by the run that writes it; ``docs/audit.md`` is generated
by ``otbound audit --all --markdown``, never typed in.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

from otbound.audit.claims import Witness
from otbound.audit.verdict import AuditVerdict, EntryResult, PointResult
from otbound.optional import optional_module

_HEADER = ("entry", "bounds", "verdict", "points", "ratio", "median ratio")
STATUSES = ("tight", "sound", "undecided", "unsound", "not attained", "circular")


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.6g}"


def _rounded_up(value: float) -> str:
    """``value`` to 6 significant digits, rounded up: a claim shown at a fraction of a
    construction is never further below it than proved."""
    text = f"{value:.6g}"
    if not math.isfinite(value) or float(text) >= value:
        return text
    return f"{float(text) + 10.0 ** (math.floor(math.log10(abs(value))) - 5):.6g}"


def _point(point: dict) -> str:
    return ", ".join(f"{k} = {v:g}" for k, v in point.items())


def _counts(result: EntryResult) -> str:
    shown = [f"{result.count(s)} {s}" for s in STATUSES if result.count(s)]
    return ", ".join(shown)


def _rows(results: list[EntryResult]) -> list[tuple[str, ...]]:
    return [(r.claim.name, r.claim.quantity.symbol, r.verdict.value, _counts(r), _ratio(r),
             _number(r.median_ratio)) for r in results]


def _ratio(result: EntryResult) -> str:
    """The row's ratio: for an unsound entry the smallest ``claim / construction`` and where
    it occurs (its most damning point); otherwise the largest ``claim / bound``."""
    if result.smallest_ratio is not None:
        ratio, point = result.smallest_ratio
        return f"smallest {_rounded_up(ratio)} at {_point(point)}"
    return "—" if result.largest_ratio is None else f"largest {result.largest_ratio:.6g}"


def _searched(result: EntryResult) -> str:
    """What the search of the domain saw, in words."""
    if result.search is None:
        return ("not searched: " + ("its domain is stated in words only"
                                    if isinstance(result.claim.domain, str)
                                    else "no construction to compare with on its grid"))
    if result.search.violated:
        return "violation found: " + result.search.text()
    return "no violation found: " + result.search.text()


def _witness_lines(result: EntryResult) -> list[str]:
    witness = result.witness
    if witness is None:
        return []
    if witness.status == "not attained":
        return [f"  witness at {_point(witness.point)}: claimed attained with "
                f"{witness.claimed:.12g}, but the exact value is at most {witness.upper:.12g}",
                f"    {witness.witness}"]
    return [f"  witness at {_point(witness.point)}: claimed {witness.claimed:.12g}, but the "
            f"construction's divergence is {_exact(witness)}",
            f"    {witness.witness}"]


def _exact(witness: PointResult) -> str:
    shown = f"at least {witness.lower:.12g}"
    if witness.confirmed is not None:
        shown += f" (high-precision oracle: {witness.confirmed:.12g})"
    return shown


def to_text(results: list[EntryResult]) -> str:
    rows = [_HEADER] + _rows(results)
    widths = [max(len(row[i]) for row in rows) for i in range(len(_HEADER))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    for result in results:
        lines.append(f"{result.claim.name}: {result.verdict.value}; {_searched(result)}")
        if result.verdict.failed:
            lines.extend(_witness_lines(result))
    unsound = sum(r.verdict is AuditVerdict.UNSOUND for r in results)
    wrong = sum(r.verdict is AuditVerdict.WRONG for r in results)
    lines.append(f"{len(results)} entries audited, {unsound} unsound, {wrong} wrong equalities")
    return "\n".join(lines)


def to_json(results: list[EntryResult]) -> dict:
    return {"entries": [_entry_json(r) for r in results],
            "unsound": sum(r.verdict is AuditVerdict.UNSOUND for r in results),
            "wrong": sum(r.verdict is AuditVerdict.WRONG for r in results)}


def _entry_json(result: EntryResult) -> dict:
    claim, witness, smallest = result.claim, result.witness, result.smallest_ratio
    return {"name": claim.name, "title": claim.title, "citation": claim.citation,
            "setting": claim.setting, "domain": claim.domain_text,
            "quantity": claim.quantity.value, "independent_points": result.independent,
            "search": None if result.search is None else {
                "evaluations": result.search.evaluations, "smallest_ratio": result.search.smallest,
                "at": result.search.at},
            "note": claim.note or None, "verdict": result.verdict.value,
            "counts": {s: result.count(s) for s in STATUSES},
            "largest_ratio": result.largest_ratio, "median_ratio": result.median_ratio,
            "smallest_ratio": None if smallest is None else smallest[0],
            "smallest_ratio_at": None if smallest is None else smallest[1],
            "witness": None if witness is None else _point_json(witness),
            "points": [_point_json(p) for p in result.points]}


def _point_json(point: PointResult) -> dict:
    return {"point": point.point, "claimed": point.claimed, "upper": point.upper,
            "lower": point.lower, "status": point.status, "ratio": point.ratio,
            "confirmed": point.confirmed, "witness": _witness_json(point.witness)}


def _witness_json(witness) -> dict | str | None:
    """A construction as data (its fields), or its description where it has only one."""
    if isinstance(witness, Witness):
        return dataclasses.asdict(witness) | {"text": str(witness)}
    return witness or None


def to_markdown(results: list[EntryResult], plots: dict[str, str]) -> str:
    """The report as markdown; ``plots`` maps an entry's name to its plot's relative path."""
    lines = ["# Audit of published amplification bounds", "",
             "Generated by `otbound audit --all --markdown`; every number and plot comes from "
             "that run. Each entry is judged on its grid, then its domain (parameters, ranges "
             "and stated conditions, as data) is searched for the point where the claim falls "
             "furthest below a construction: a scrambled Sobol sample, compass descent from the "
             "best points, and a violation shrunk to a simple point (`otbound.audit.search`); "
             "only the final witness goes through the high-precision oracle. Verdicts: **tight** "
             "(the claim equals the exact value to 1e-9), **sound but loose** (no violation "
             "found; ratio claim / otbound's bound; where otbound's bound is tight, the ratio to "
             "the exact value), **UNSOUND** (a concrete construction exceeds the claim; its "
             "divergence is confirmed by the high-precision oracle), **WRONG** (a value stated "
             "as attained lies above the exact value), **undecided** (the claim lies between "
             "what otbound can prove and what it can construct). A **circular** point is one "
             "where otbound's smallest bound is itself a published bound (the audited one or "
             "another paper's): it is not counted as evidence. The ratio column gives the "
             "largest ratio claim / otbound's bound over the independent grid points, and for "
             "an UNSOUND entry the ratio claim / construction at its witness.", "",
             "| " + " | ".join(_HEADER) + " |", "|" + "---|" * len(_HEADER)]
    lines += ["| " + " | ".join(row) + " |" for row in _rows(results)]
    for result in results:
        claim = result.claim
        lines += ["", f"## {claim.name}: {claim.title}", "",
                  f"- **Citation:** {claim.citation}", f"- **Setting:** {claim.setting}",
                  f"- **Claimed domain:** {claim.domain_text}",
                  f"- **Verdict:** {result.verdict.value} ({_counts(result)} of "
                  f"{len(result.points)} grid points, {result.independent} independent); "
                  f"{_ratio_words(result)}, median {_number(result.median_ratio)}",
                  f"- **Search:** {_searched(result)}"]
        if claim.note:
            lines.append(f"- **Note:** {claim.note}")
        if result.witness is not None:
            lines.append("- **Witness:** " + " ".join(
                line.strip() for line in _witness_lines(result)))
        undecided = [p for p in result.points if p.status == "undecided"]
        if undecided:
            lines.append(f"- **Undecided at:** {_point(undecided[0].point)} (claimed "
                         f"{undecided[0].claimed:.6g}, otbound's bound "
                         f"{_number(undecided[0].upper)}, construction "
                         f"{_number(undecided[0].lower)}){' …' if len(undecided) > 1 else ''}")
        if claim.name in plots:
            lines += ["", f"![{claim.name}]({plots[claim.name]})"]
    return "\n".join(lines) + "\n"


def _ratio_words(result: EntryResult) -> str:
    if result.smallest_ratio is not None:
        ratio, point = result.smallest_ratio
        return f"smallest ratio claim / construction {_rounded_up(ratio)} at {_point(point)}"
    return f"largest ratio {_number(result.largest_ratio)}"


def plot(result: EntryResult, path: Path) -> None:
    """Claimed against otbound's bound (and the construction, where it differs) over the
    entry's axis, one line per combination of the other parameters."""
    matplotlib = optional_module("matplotlib", "the audit's plots (--markdown)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    matplotlib.rcParams["svg.hashsalt"] = "otbound"
    matplotlib.rcParams["svg.fonttype"] = "none"   # text as text: small, diffable files
    claim, axis = result.claim, result.claim.quantity.axis
    curves: dict[tuple, list[PointResult]] = {}
    for point in result.points:
        key = tuple((k, v) for k, v in point.point.items() if k != axis)
        curves.setdefault(key, []).append(point)
    figure, ax = plt.subplots(figsize=(6.4, 4.0))
    for number, (key, points) in enumerate(list(curves.items())[:8]):
        points.sort(key=lambda p: p.point[axis])
        x = [p.point[axis] for p in points]
        label = ", ".join(f"{k}={v:g}" for k, v in key) or claim.quantity.symbol
        colour = f"C{number}"
        ax.plot(x, [p.claimed for p in points], "o-", color=colour, label=f"claimed ({label})",
                markersize=3)
        ax.plot(x, [math.nan if p.upper is None else p.upper for p in points], "--",
                color=colour, linewidth=1)
        if any(p.lower is not None and p.upper is not None and not
               math.isclose(p.lower, p.upper, rel_tol=1e-6) for p in points):
            ax.plot(x, [math.nan if p.lower is None else p.lower for p in points], ":",
                    color=colour, linewidth=1)
        bad = [p for p in points if p.status == "unsound"]
        ax.plot([p.point[axis] for p in bad], [p.claimed for p in bad], "x", color="red",
                markersize=8)
    positive = [v for p in result.points for v in (p.claimed, p.upper) if v and v > 0]
    if positive and max(positive) / min(positive) > 100:
        ax.set_yscale("log")
    values = [p.point[axis] for p in result.points]
    if min(values) > 0 and max(values) / min(values) > 20:
        ax.set_xscale("log")
    ax.set_xlabel(axis)
    ax.set_ylabel(claim.quantity.symbol)
    ax.set_title(f"{claim.name}: claimed (solid), otbound (dashed), construction (dotted)",
                 fontsize=8)
    ax.legend(fontsize=6)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, metadata={"Date": None})
    plt.close(figure)


def write_markdown(results: list[EntryResult], path: Path) -> None:
    """``path`` (e.g. ``docs/audit.md``) and the plots beside it (``docs/audit/NAME.svg``)."""
    folder = path.parent / path.stem
    plots = {}
    for result in results:
        target = folder / f"{result.claim.name}.svg"
        plot(result, target)
        plots[result.claim.name] = f"{folder.name}/{target.name}"
    path.write_text(to_markdown(results, plots), encoding="utf-8")
