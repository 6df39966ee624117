"""Rewriting the generated region of a docs page: what lies between its start and end markers
(HTML comments), shared by the benchmarks that write their tables into docs/ (``--docs``)."""

from __future__ import annotations

from pathlib import Path


def write_region(page: Path, start: str, end: str, text: str) -> None:
    """``page`` with ``text`` between the markers ``start`` and ``end`` (each on a line of its
    own, kept)."""
    head, rest = page.read_text().split(start)
    _, tail = rest.split(end)
    page.write_text(f"{head}{start}\n{text}\n{end}{tail}")
