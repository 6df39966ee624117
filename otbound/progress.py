"""Progress of long runs on stderr (issue 15): one status line, rewritten in place.

The line is shown only when stderr is a terminal and the user did not ask for ``--quiet``: piped
or redirected stderr (logs, CI, tests) stays clean, and stdout is never touched, so that
``otbound verify … --json | jq`` reads the same bytes with or without progress. The line is
cleared when the run ends. This module imports nothing beyond the standard library: the command
line may create a :class:`Progress` before it knows whether anything is long.
"""

from __future__ import annotations

import shutil
import sys
from types import TracebackType

_CLEAR = "\r\x1b[K"
"""Carriage return, then erase to the end of the line (ANSI)."""


def stderr_is_terminal() -> bool:
    """Whether ``sys.stderr`` (looked up now: tests and callers may replace it) is a TTY."""
    stream = sys.stderr
    try:
        return stream is not None and bool(stream.isatty())
    except (AttributeError, ValueError):   # no isatty, or a closed stream
        return False


class Progress:
    """A status line ``label: [done/total] detail`` on stderr, as a context manager.

    ``quiet`` silences it; so does a stderr that is not a terminal (decided on entry). Use it as
    a callback taking a message (``progress("[3/10] N = 4 gaussian")``) or call
    :meth:`step` to count: ``step("T = 100")`` shows ``label: [k/total] T = 100``.
    """

    def __init__(self, label: str, total: int | None = None, *, quiet: bool = False) -> None:
        self.label, self.total, self.quiet = label, total, quiet
        self.done = 0
        self.enabled = False
        self._shown = False

    def __enter__(self) -> Progress:
        self.enabled = not self.quiet and stderr_is_terminal()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._shown:
            self._write(_CLEAR)
        self.enabled = self._shown = False

    def __call__(self, message: str) -> None:
        """Show ``label: message`` (the message says where the run is)."""
        if not self.enabled:
            return
        width = max(20, shutil.get_terminal_size((80, 24)).columns - 1)
        self._write(f"{_CLEAR}{self.label}: {message}"[:width + len(_CLEAR)])
        self._shown = True

    def step(self, detail: str = "") -> None:
        """Count one more item done and show the count (of ``total`` when known)."""
        self.done += 1
        count = f"{self.done}/{self.total}" if self.total is not None else str(self.done)
        self(f"[{count}] {detail}".rstrip())

    @staticmethod
    def _write(text: str) -> None:
        sys.stderr.write(text)
        sys.stderr.flush()
