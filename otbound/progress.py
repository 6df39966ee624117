"""Progress of long runs on stderr (issue 15): one status line, rewritten in place.

The line is shown only when stderr is a terminal and the user did not ask for ``--quiet``: piped
or redirected stderr (logs, CI, tests) stays clean, and stdout is never touched, so that
``otbound verify … --json | jq`` reads the same bytes with or without progress. The line is
cleared when the run ends. ``--progress`` (``force``) shows it in a log too: there it is plain
lines, at most one every :data:`LINE_INTERVAL` seconds, and the time taken at the end (issue 44).
This module imports nothing beyond the standard library: the command line may create a
:class:`Progress` before it knows whether anything is long.
"""

from __future__ import annotations

import shutil
import sys
import time
from types import TracebackType
from typing import Callable

_CLEAR = "\r\x1b[K"
"""Carriage return, then erase to the end of the line (ANSI)."""
LINE_INTERVAL = 5.0
"""Seconds between two lines of progress written to a stderr that is not a terminal."""


def stderr_is_terminal() -> bool:
    """Whether ``sys.stderr`` (looked up now: tests and callers may replace it) is a TTY."""
    stream = sys.stderr
    try:
        return stream is not None and bool(stream.isatty())
    except (AttributeError, ValueError):   # no isatty, or a closed stream
        return False


class Progress:
    """A status line ``label: [done/total] detail`` on stderr, as a context manager.

    ``quiet`` silences it; so does a stderr that is not a terminal (decided on entry), unless
    ``force``: then each message is a line of its own, the first and then at most one every
    :data:`LINE_INTERVAL` seconds of ``clock``, and ``label: done in … s`` ends a run that did
    not fail. Use it as a callback taking a message (``progress("[3/10] N = 4 gaussian")``) or
    call :meth:`step` to count: ``step("T = 100")`` shows ``label: [k/total] T = 100``.
    """

    def __init__(self, label: str, total: int | None = None, *, quiet: bool = False,
                 force: bool = False, clock: Callable[[], float] = time.monotonic) -> None:
        self.label, self.total, self.quiet, self.force = label, total, quiet, force
        self.done = 0
        self.enabled = self.lines = False
        self._shown = False
        self._clock = clock
        self._started = self._written = 0.0

    def __enter__(self) -> Progress:
        terminal = stderr_is_terminal()
        self.enabled = not self.quiet and (terminal or self.force)
        self.lines = self.enabled and not terminal
        self._started = self._clock()
        self._written = -LINE_INTERVAL   # the first message is written at once
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._shown:
            self._write(_CLEAR)
        if self.lines and kind is None:
            self._write(f"{self.label}: done in {self._clock() - self._started:.1f} s\n")
        self.enabled = self.lines = self._shown = False

    def __call__(self, message: str) -> None:
        """Show ``label: message`` (the message says where the run is)."""
        if not self.enabled:
            return
        if self.lines:
            self._line(message)
            return
        width = max(20, shutil.get_terminal_size((80, 24)).columns - 1)
        self._write(f"{_CLEAR}{self.label}: {message}"[:width + len(_CLEAR)])
        self._shown = True

    def step(self, detail: str = "") -> None:
        """Count one more item done and show the count (of ``total`` when known)."""
        self.done += 1
        count = f"{self.done}/{self.total}" if self.total is not None else str(self.done)
        self(f"[{count}] {detail}".rstrip())

    def _line(self, message: str) -> None:
        """A line of the log, unless the last one was written less than LINE_INTERVAL ago."""
        now = self._clock() - self._started
        if now - self._written >= LINE_INTERVAL:
            self._write(f"{self.label}: {message}\n")
            self._written = now

    @staticmethod
    def _write(text: str) -> None:
        sys.stderr.write(text)
        sys.stderr.flush()
