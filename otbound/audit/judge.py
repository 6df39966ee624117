"""Running audits: every point of every entry's grid, in parallel.

A task is one point of one entry, named by the entry file's path and the point's index, so that
it can run anywhere the file can be read: in this process (``workers=1``), in local processes
(the default, one per core), or on a Dask distributed cluster (``scheduler=ADDRESS``, or a
``distributed.Client``; the optional extra ``otbound[dask]``).

An entry's error (:class:`~otbound.errors.AuditFileError`, raised where the point runs:
:func:`otbound.audit.verdict.judge_point`) is a plain exception with its message, so it comes
back from a worker process or a Dask worker as it is, and stops the run.
"""

from __future__ import annotations

import functools
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Callable, Iterable

from otbound.audit.catalog import load_claim_file
from otbound.audit.claims import Claim
from otbound.audit.verdict import EntryResult, PointResult, judge_point
from otbound.errors import InvalidSpecification
from otbound.optional import optional_module

Task = tuple[str, int]


@functools.lru_cache(maxsize=64)
def _claim(path: str) -> Claim:
    return load_claim_file(path)


def judge_task(task: Task) -> PointResult:
    """One point of one entry (what a worker runs)."""
    path, index = task
    claim = _claim(path)
    return judge_point(claim, claim.points[index])


def run_audits(entries: list[tuple[Path, Claim]], workers: int | None = None,
               scheduler=None, progress: Callable[[str], None] | None = None
               ) -> list[EntryResult]:
    """Every entry judged at every point of its grid; ``progress`` (if given) hears of each
    point as it is judged (``[k/n] entry-file point i``)."""
    if workers is not None and workers < 1:
        raise InvalidSpecification(f"workers must be at least 1, got {workers}",
                                   parameter="workers")
    tasks = [(str(path), index) for path, claim in entries for index in range(len(claim.points))]
    results = iter(_reported(tasks, _map(tasks, workers, scheduler), progress))
    return [EntryResult(claim, tuple(next(results) for _ in claim.points))
            for _, claim in entries]


def _reported(tasks: list[Task], results: Iterable[PointResult],
              progress: Callable[[str], None] | None) -> list[PointResult]:
    """The results, in task order, with ``progress`` told of each as it arrives."""
    collected = []
    for number, (result, task) in enumerate(zip(results, tasks), 1):   # results run out first
        collected.append(result)
        if progress:
            progress(f"[{number}/{len(tasks)}] {Path(task[0]).stem} point {task[1] + 1}")
    return collected


def _map(tasks: list[Task], workers: int | None, scheduler) -> Iterable[PointResult]:
    """The tasks' results in order, as they arrive (lazily, except on Dask)."""
    if scheduler is not None:
        return _on_dask(tasks, scheduler)
    workers = workers or os.cpu_count() or 1
    if workers == 1 or len(tasks) == 1:
        return map(judge_task, tasks)
    # spawn: the workers start clean (no inherited threads of numpy or sympy caches)
    import multiprocessing

    return _in_processes(tasks, workers, multiprocessing.get_context("spawn"))


def _in_processes(tasks: list[Task], workers: int, context) -> Iterable[PointResult]:
    """The tasks in local processes. A task that fails (an entry's error, carried back with its
    message) cancels the tasks not yet started, so the error is reported at once."""
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context)
    try:
        yield from pool.map(judge_task, tasks, chunksize=max(1, len(tasks) // (4 * workers)))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _on_dask(tasks: list[Task], scheduler) -> list[PointResult]:
    """The tasks on a Dask cluster: ``scheduler`` is its address or a ``distributed.Client``."""
    Client = optional_module("distributed", "running on a Dask cluster").Client
    client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
    try:
        return client.gather(client.map(judge_task, tasks, pure=False))
    finally:
        if client is not scheduler:
            client.close()
