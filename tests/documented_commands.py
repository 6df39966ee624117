"""The ``otbound …`` commands that README.md and docs/*.md show, read from the files.

A command is a line of a fenced code block that starts with ``otbound `` (or ``$ otbound `` in a
console block), joined with its ``\\`` continuation lines. A trailing ``# comment`` documents it:
``exits N`` is its exit code (0 when not said), and ``otbound[EXTRA]`` names the optional extra it
needs — without that extra installed it must exit 2 and name the pip command. Every command must
run as written: no placeholders (``[--json]``, ``a|b``, ``...``, ``path/to``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
PLACEHOLDERS = ("[", "|", "...", "…", "path/to", "<", ">")


@dataclass(frozen=True)
class Documented:
    """One documented command: where it is shown, what it exits with, the extra it needs."""

    page: str
    command: str
    exit_code: int
    extra: str | None

    def __str__(self) -> str:
        return f"{self.page}: {self.command}"


def pages() -> list[Path]:
    """README.md and every page of docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def commands(page: Path) -> list[Documented]:
    """Every ``otbound`` command of the code blocks of ``page``."""
    found = []
    for block in FENCE.findall(page.read_text(encoding="utf-8")):
        for line in _logical_lines(block):
            text = line.removeprefix("$ ")
            if text.startswith("otbound "):
                found.append(_documented(page, text))
    return found


def all_commands() -> list[Documented]:
    return [command for page in pages() for command in commands(page)]


def _logical_lines(block: str) -> list[str]:
    """The block's lines with ``\\`` continuations joined."""
    joined, pending = [], ""
    for line in block.splitlines():
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1].rstrip() + " "
            continue
        joined.append(pending + line.strip() if pending else line)
        pending = ""
    return joined


def _documented(page: Path, text: str) -> Documented:
    command, _, comment = text.partition(" #")
    code = re.search(r"\bexits (\d)\b", comment)
    extra = re.search(r"otbound\[(\w+)\]", comment)
    name = page.relative_to(ROOT) if page.is_relative_to(ROOT) else page.name
    return Documented(str(name), " ".join(command.split()),
                      int(code[1]) if code else 0, extra[1] if extra else None)


def placeholders(command: Documented) -> list[str]:
    """The placeholder syntax in a command (it cannot run as written)."""
    return [mark for mark in PLACEHOLDERS if mark in command.command]
