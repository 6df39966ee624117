"""Independent pieces of one computation on every core of this machine: the cases of a group.

A group of ``K`` records has ``K + 1`` cases, each as costly as a whole small setting; they are
independent, so forked worker processes take them in turn. The workers inherit the work when
they are forked (nothing but indices goes to them; only the results come back). It is used only
where it pays and is safe: many items, more than one core, and a process that is neither
threaded (forking a threaded process can deadlock it; pytest-xdist's workers are threaded) nor
daemonic (Dask's workers, which may not have children). Anywhere else the items are mapped here,
one after the other: the results are the same either way.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Callable, Sequence, TypeVar

from otbound.errors import required

Item = TypeVar("Item")
Result = TypeVar("Result")

MIN_ITEMS = 32
"""Fewer items than this are mapped in this process (forking costs about 0.1 s)."""

_WORK: tuple[Callable, Sequence] | None = None
"""The function and items of the map under way, read by the forked workers."""


def mapped(function: Callable[[Item], Result], items: Sequence[Item],
           min_items: int = MIN_ITEMS) -> list[Result]:
    """``[function(item) for item in items]``, on every core where that pays (at least
    ``min_items`` items: fewer where each takes seconds) and is safe; the results must pickle."""
    global _WORK
    workers = min(_cores(), len(items))
    if len(items) < min_items or workers < 2 or not _may_fork():
        return [function(item) for item in items]
    import multiprocessing   # here: importing them costs a cold start 30 ms
    from concurrent.futures import ProcessPoolExecutor

    _WORK = (function, items)
    try:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            return list(pool.map(_run, range(len(items)),
                                 chunksize=max(1, len(items) // (4 * workers))))
    finally:
        _WORK = None


def _cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):   # Linux
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _may_fork() -> bool:
    """Linux only (forking is unsafe on macOS, absent on Windows), and see the module text."""
    import multiprocessing

    return (sys.platform.startswith("linux") and threading.active_count() == 1
            and not multiprocessing.current_process().daemon)


def _run(index: int):
    function, items = required(_WORK, "the work a forked worker inherits")
    return function(items[index])
