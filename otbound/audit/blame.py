"""Whose fault a failure is: the audit entry's, or otbound's.

An entry's callables — its formula ``claimed``, its ``reference``, a ``confirm`` its reference
carries — are the user's code, and they may call otbound's own reference computations
(:mod:`otbound.audit.references`, the numerics). A failure inside them is the entry's, an
:class:`~otbound.errors.AuditFileError` naming the file, the entry, what failed and where,
unless otbound's own code raised it: that is a defect of otbound (an
:class:`~otbound.errors.InternalError`), never passed off as a fault of the input.

Who raised it is read from the traceback below the call: the deepest frame outside library code
(the standard library, installed packages, generated code) decides. A frame of the ``otbound``
package, but its bundled entry and derivation files, is otbound's; any other is the user's. With
no such frame (the callable is a builtin or a library function, or cannot be called at all), the
entry's callable itself failed. Library frames are passed over, so an error that mpmath raises
inside otbound's reference code stays otbound's. otbound's errors about the input
(:class:`~otbound.errors.InvalidSpecification`, :class:`~otbound.errors.UnsupportedOperation`,
file errors) are the entry's wherever they are raised: the input came from the entry.
"""

from __future__ import annotations

import functools
import site
import sys
import sysconfig
from pathlib import Path
from types import TracebackType
from typing import Callable

from otbound.audit.claims import Claim, Point
from otbound.errors import AuditFileError, InternalError, OtboundError

OTBOUND_FOLDER = Path(__file__).resolve().parents[1]
"""The ``otbound`` package folder: its code is otbound's."""
SHIPPED_USER_FILES = (OTBOUND_FOLDER / "audits", OTBOUND_FOLDER / "derivations")
"""Installed copies of the catalogues: entry files, written as a user writes them."""


def call_entry(claim: Claim, what: str, point: Point, function: Callable, *args,
               passes: tuple[type[BaseException], ...] = ()):
    """``function(*args)``, one of the entry's callables (``what``: "its formula", …) at
    ``point``; a failure is an :class:`AuditFileError` if it is the entry's, an
    :class:`InternalError` if otbound's own code raised it. Exceptions of the types ``passes``
    are the caller's to handle and propagate unchanged."""
    try:
        return function(*args)
    except passes:
        raise
    except InternalError:
        raise
    except OtboundError as error:
        raise AuditFileError(entry_failure(claim, what, error, point)) from error
    except (Exception, SystemExit) as error:   # noqa: BLE001 (user code may raise anything)
        traceback = error.__traceback__   # set: the error was raised
        if raised_by_otbound(traceback.tb_next if traceback is not None else None):
            raise InternalError(f"otbound's own code failed while evaluating {what} of "
                                f"{claim.where} at point {dict(point)}: "
                                f"{one_line(error)}") from error
        raise AuditFileError(entry_failure(claim, what, error, point)) from error


def entry_failure(claim: Claim, what: str, error: BaseException, point: Point) -> str:
    """One line: ``audit entry 'x' (path): its formula raised KeyError: 'r' at point {…}``."""
    return f"{claim.where}: {what} raised {one_line(error)} at point {dict(point)}"


def one_line(error: BaseException) -> str:
    """``Type: message`` on one line."""
    message = " ".join(str(error).split())
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def raised_by_otbound(traceback: TracebackType | None) -> bool:
    """Whether the deepest frame of ``traceback`` outside library code is otbound's own."""
    owner = None
    while traceback is not None:
        filename = traceback.tb_frame.f_code.co_filename
        if _otbound_own(filename):
            owner = "otbound"
        elif not _library(filename):
            owner = "user"
        traceback = traceback.tb_next
    return owner == "otbound"


@functools.lru_cache(maxsize=1024)
def _otbound_own(filename: str) -> bool:
    if filename.startswith("<"):
        return False
    path = Path(filename).resolve()
    return (path.is_relative_to(OTBOUND_FOLDER)
            and not any(path.is_relative_to(folder) for folder in SHIPPED_USER_FILES))


@functools.lru_cache(maxsize=1024)
def _library(filename: str) -> bool:
    """Generated code (``<frozen …>``, ``<lambdifygenerated-1>``) or a file of the Python
    installation. Counting too much as library only ever blames otbound, never the user."""
    if filename.startswith("<"):
        return True
    path = Path(filename).resolve()
    return any(path.is_relative_to(root) for root in _library_roots())


@functools.lru_cache(maxsize=1)
def _library_roots() -> tuple[Path, ...]:
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             *sysconfig.get_paths().values(), *site.getsitepackages()}
    if site.ENABLE_USER_SITE:
        roots.add(site.getusersitepackages())
    resolved = (Path(root).resolve() for root in roots if root)
    return tuple(root for root in resolved if root.parent != root)   # never the whole disk
