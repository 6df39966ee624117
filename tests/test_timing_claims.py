"""Every timing sentence of README.md and docs/*.md names the benchmark row that measures it
(issue 43).

A **timing sentence** states a wall or CPU time, in one of two ways:

* a number with a unit of time: ``0.62 s``, ``[61.3 s]``, ``1.7 ms``, ``19–21 s``, ``8 minutes``
  (units ``ms``, ``s``, ``min``, ``second(s)``, ``minute(s)``, ``hour(s)``);
* a time in words: ``four minutes``, ``a few seconds``, ``about an hour``, ``under a quarter of
  a second``, ``about a second``, ``seconds each``, ``takes seconds``.

A markdown table is a **timing table** when a cell holds such a time or a header cell names a
time column (``s``, ``ms``, ``seconds``, ``time``, ``s/point``, ``ms/pt``, …); a fenced code block
is a **timing block** when a line holds such a time or a lone ``s`` or ``ms`` (a column of
seconds in a benchmark's printout).

Excluded, so that formulas and flags are not read as times: inline ``code spans`` (``--timings``,
``s²``, ``erfc((B − c_k)/(s√2))``) and HTML comments. "second" alone is an ordinal ("a second
Gaussian"); only "about, than, under, over, within, quarter of, half" + "a second" count.

A timing sentence must contain a reference of exactly this form::

    (benchmark: benchmarks/FILE.py, row "ROW LABEL")

A timing table or block is covered by a reference in the paragraph immediately before it (its
caption). ``ROW LABEL`` is the text by which the benchmark's source names the row: the label it
prints in the row's first cell, or, for a table whose rows a loop prints, a part of that table's
header row. Every reference, in a timing sentence or not, must name a file of ``benchmarks/``
whose source contains the label, so a renamed or removed row fails this test.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

NUMBER_WITH_UNIT = r"\d+(?:[.,]\d+)?\s?(?:ms|s|min|seconds?|minutes?|hours?)\b"
IN_WORDS = (r"\b(?:(?:one|two|three|four|five|six|seven|eight|nine|ten|twenty|few|several|many)"
            r"\s+(?:milli)?(?:seconds?|minutes?|hours?)"
            r"|(?:about|than|under|over|within|quarter of|half) an?\s+(?:milli)?(?:second|minute|hour)"
            r"|an?\s+(?:minute|hour|millisecond)"
            r"|(?:milli)?seconds\s+(?:each|per)|(?:takes?|took)\s+(?:milli)?seconds)\b")
TIME = re.compile(f"{NUMBER_WITH_UNIT}|{IN_WORDS}")
TIME_COLUMN = re.compile(r"(?:^|\s)(?:m?s|seconds|time)(?:/\w+)?$")
LONE_UNIT = re.compile(r"(?<!\S)m?s(?!\S)")
REFERENCE = re.compile(r'\(benchmark:\s+benchmarks/(?P<file>[\w.-]+\.py),\s+row\s+"(?P<row>[^"]+)"\)')
CODE_SPAN = re.compile(r"`[^`]+`")
COMMENT = re.compile(r"<!--.*?-->", re.S)
ITEM = re.compile(r"\s*(?:[*-]|\d+\.)\s")
BOUNDARY = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`(*_\[])")
ABBREVIATIONS = {"Thm", "Prop", "Sec", "App", "Fig", "Eq", "Cor", "Lem", "Def", "al", "e.g",
                 "i.e", "cf", "vs", "resp", "No"}


@dataclass(frozen=True)
class Block:
    """A paragraph, a table or a fenced code block: its kind, first line and lines."""

    kind: str
    line: int
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Claim:
    """A timing sentence, table or block, where it is, and whether it names a row."""

    page: str
    line: int
    text: str
    referenced: bool

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: {' '.join(self.text.split())[:300]}"


def pages(root: Path = ROOT) -> list[Path]:
    """README.md and docs/*.md."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def blocks(text: str) -> list[Block]:
    """The page's paragraphs, tables and fenced code blocks, in order (HTML comments and blank
    lines separate them)."""
    found: list[Block] = []
    kind, start, lines = "", 0, []
    for number, line in enumerate(COMMENT.sub(_blank_lines, text).splitlines(), 1):
        if kind == "fence":
            lines.append(line)
            if line.startswith("```"):
                found.append(Block(kind, start, tuple(lines)))
                kind, lines = "", []
            continue
        this = ("fence" if line.startswith("```") else "" if not line.strip()
                else "table" if line.startswith("|") else "paragraph")
        if this != kind and lines:
            found.append(Block(kind, start, tuple(lines)))
            lines = []
        if this:
            if not lines:
                start = number
            lines.append(line)
        kind = this
    if lines:
        found.append(Block(kind, start, tuple(lines)))
    return found


def _blank_lines(comment: re.Match) -> str:
    return "\n" * comment.group().count("\n")


def masked(text: str) -> str:
    """``text`` with every code span's characters (newlines kept) replaced by ``_``."""
    return CODE_SPAN.sub(lambda span: re.sub(r"[^\n]", "_", span.group()), text)


def sentences(paragraph: Block) -> list[tuple[int, str, str]]:
    """``(line, sentence, sentence with code masked)`` of each sentence of the paragraph's
    items (a list item starts a new sentence)."""
    items: list[tuple[int, list[str]]] = []
    for offset, line in enumerate(paragraph.lines):
        if not items or ITEM.match(line):
            items.append((paragraph.line + offset, []))
        items[-1][1].append(line)
    found = []
    for line, lines in items:
        text = "\n".join(lines)
        hidden = masked(text)
        start = 0
        for end in [*_boundaries(hidden), len(text)]:
            found.append((line + text.count("\n", 0, start), text[start:end], hidden[start:end]))
            start = end
    return found


def _boundaries(text: str) -> list[int]:
    """Where sentences end in ``text``: after ``.``, ``!`` or ``?`` and white space, before a
    capital, digit, code span or bracket, unless the word before is an abbreviation."""
    ends = []
    for boundary in BOUNDARY.finditer(text):
        word = text[:boundary.start()].rsplit(None, 1)[-1].rstrip(".").lstrip("(")
        if word not in ABBREVIATIONS:
            ends.append(boundary.start())
    return ends


def is_timing_table(table: Block) -> bool:
    header = [cell.strip() for cell in table.lines[0].strip().strip("|").split("|")]
    return any(TIME_COLUMN.search(cell) for cell in header) or bool(time_lines(table))


def is_timing_block(fence: Block) -> bool:
    return bool(time_lines(fence))


def time_lines(block: Block) -> list[int]:
    """The lines of a table or fenced block that hold a time (in a fenced block, also a lone
    ``s`` or ``ms``; code spans of a table do not count)."""
    if block.kind == "fence":
        held = [bool(TIME.search(line) or LONE_UNIT.search(line)) for line in block.lines]
    else:
        held = [bool(TIME.search(masked(line))) for line in block.lines]
    return [block.line + offset for offset, holds in enumerate(held) if holds]


def claims(page: Path, root: Path = ROOT) -> list[Claim]:
    """Every timing sentence, table and block of ``page``."""
    name = str(page.relative_to(root))
    found: list[Claim] = []
    previous: Block | None = None
    for block in blocks(page.read_text(encoding="utf-8")):
        if block.kind == "paragraph":
            for line, sentence, hidden in sentences(block):
                time = TIME.search(hidden)
                if time:
                    found.append(Claim(name, line + hidden.count("\n", 0, time.start()),
                                       sentence, bool(REFERENCE.search(sentence))))
        elif (is_timing_table(block) if block.kind == "table" else is_timing_block(block)):
            caption = "\n".join(previous.lines) if previous and previous.kind == "paragraph" else ""
            line = (time_lines(block) or [block.line])[0]
            found.append(Claim(name, line, block.lines[line - block.line],
                               bool(REFERENCE.search(caption))))
        previous = block
    return found


def references(page: Path) -> list[tuple[str, str]]:
    """``(file, row label)`` of every reference on ``page``, white space in labels normalised."""
    return [(match["file"], " ".join(match["row"].split()))
            for match in REFERENCE.finditer(page.read_text(encoding="utf-8"))]


def unreferenced(root: Path = ROOT) -> list[Claim]:
    return [claim for page in pages(root) for claim in claims(page, root) if not claim.referenced]


def broken_references(root: Path = ROOT) -> list[str]:
    """References whose benchmark file is missing or whose source lacks the row label."""
    broken = []
    for page in pages(root):
        for file, row in references(page):
            source = root / "benchmarks" / file
            if not source.is_file():
                broken.append(f"{page.relative_to(root)}: benchmarks/{file} does not exist")
            elif row not in source.read_text(encoding="utf-8"):
                broken.append(f"{page.relative_to(root)}: benchmarks/{file} has no row "
                              f"labelled {row!r}")
    return broken


def test_every_timing_sentence_names_its_benchmark_row():
    missing = unreferenced()
    assert not missing, ("timing sentences without (benchmark: benchmarks/FILE.py, row \"ROW "
                         "LABEL\"):\n" + "\n".join(map(str, missing)))


def test_every_named_row_exists():
    broken = broken_references()
    assert not broken, "\n".join(broken)


def test_the_pages_have_timing_claims_and_references():
    found = [claim for page in pages() for claim in claims(page)]
    assert len(found) > 15 and sum(len(references(page)) for page in pages()) > 15


def test_what_counts_as_a_time(tmp_path: Path):
    text = ("Intro.\n\n"
            "It takes 10 s on 2 cores. Thm. 4.1 of Prop. E.5 holds in `s²` and `--timings`.\n"
            "A second Gaussian, 3 steps, K = 8 substitutions. It runs in under a quarter of a\n"
            "second (benchmark: benchmarks/x.py,\nrow \"a row\"). Slow checks take about an hour.\n"
            "\n"
            "Caption (benchmark: benchmarks/x.py, row \"t\"):\n\n"
            "| σ | seconds |\n|---|---|\n| 1 | 0.5 |\n\n"
            "| what | ε |\n|---|---|\n| a | 1.2 s |\n\n"
            "```\nB  s otbound\n```\n\n```\notbound account --steps 1000\n```\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text(text)
    found = [(claim.line, claim.referenced) for claim in claims(tmp_path / "README.md", tmp_path)]
    assert found == [(3, False), (4, True), (6, False), (10, True), (16, False), (19, False)]


def test_references_must_name_rows_the_benchmark_has(tmp_path: Path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "x.py").write_text('ROWS = [("a row", 1)]\n')
    (tmp_path / "README.md").write_text(
        'In 1 s (benchmark: benchmarks/x.py, row "a row"). In 2 s (benchmark: benchmarks/x.py, '
        'row "renamed"). In 3 s (benchmark: benchmarks/y.py, row "a row").\n')
    assert not unreferenced(tmp_path)
    assert broken_references(tmp_path) == [
        "README.md: benchmarks/x.py has no row labelled 'renamed'",
        "README.md: benchmarks/y.py does not exist"]
