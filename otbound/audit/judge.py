"""Running audits: every point of every entry's grid, then each entry's search, in parallel.

A task is one point of one entry (named by the entry file's path and the point's index), or,
in the second round, one entry's search of its domain, seeded by its grid's ratios, and the
confirmation of its witness by the high-precision oracle (:func:`settle_task`). Tasks are plain
data, so that they run anywhere the file can be read: in this process (``workers=1``), in local
processes (the default, one per core), or on a Dask distributed cluster
(``scheduler=ADDRESS``, or a ``distributed.Client``; the optional extra ``otbound[dask]``).

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
from otbound.audit.domain import Domain
from otbound.audit.search import SearchOutcome, search_domain
from otbound.audit.verdict import (RELATIVE, EntryResult, PointResult, construction_ratio,
                                   judge_point)
from otbound.errors import InvalidSpecification, required
from otbound.optional import optional_module

Task = tuple[str, int]
Seeds = list[tuple[dict, float | None]]


@functools.lru_cache(maxsize=64)
def _claim(path: str) -> Claim:
    return load_claim_file(path)


def judge_task(task: Task) -> PointResult:
    """One point of one entry (what a worker runs), not yet confirmed by the oracle."""
    path, index = task
    claim = _claim(path)
    return judge_point(claim, claim.points[index], confirm=False)


def settle_task(task: tuple[str, Seeds]) -> tuple[SearchOutcome | None, PointResult | None]:
    """One entry's second round: where its domain is data, the search seeded by the grid's
    ``(point, claim / construction)``; then the witness — the search's violation, else the
    grid's worst unsound point — judged again with the high-precision oracle (``None`` if
    nothing is unsound)."""
    path, seeds = task
    claim = _claim(path)
    outcome = None
    if isinstance(claim.domain, Domain) and any(ratio is not None for _, ratio in seeds):
        outcome = search_domain(claim.name, claim.domain,
                                lambda point: construction_ratio(claim, point), seeds)
    unsound = sorted(((point, ratio) for point, ratio in seeds
                      if ratio is not None and ratio < 1 - RELATIVE), key=lambda seed: seed[1])
    candidates = [point for point, _ in unsound[:1]]
    if outcome is not None and outcome.violated:
        candidates.insert(0, required(outcome.at, "the point of the smallest ratio"))
    settled = None
    for point in candidates:
        settled = judge_point(claim, point)
        if settled.status == "unsound":
            break
    return outcome, settled


def run_audits(entries: list[tuple[Path, Claim]], workers: int | None = None,
               scheduler=None, progress: Callable[[str], None] | None = None
               ) -> list[EntryResult]:
    """Every entry judged at every point of its grid; ``progress`` (if given) hears of each
    point as it is judged (``[k/n] entry-file point i``)."""
    if workers is not None and workers < 1:
        raise InvalidSpecification(f"workers must be at least 1, got {workers}",
                                   parameter="workers")
    tasks = [(str(path), index) for path, claim in entries for index in range(len(claim.points))]
    results = iter(_reported(tasks, _map(judge_task, tasks, workers, scheduler), progress))
    grids = [(str(path), tuple(next(results) for _ in claim.points)) for path, claim in entries]
    seeds = [(path, [(p.point, p.construction_ratio if p.lower else None) for p in points])
             for path, points in grids]
    settled = _reported(seeds, _map(settle_task, seeds, workers, scheduler), progress, "search")
    return [EntryResult(claim, points, *found)
            for (_, claim), (_, points), found in zip(entries, grids, settled)]


def _reported(tasks: list, results: Iterable, progress: Callable[[str], None] | None,
              what: str = "point") -> list:
    """The results, in task order, with ``progress`` told of each as it arrives."""
    collected = []
    for number, (result, task) in enumerate(zip(results, tasks), 1):   # results run out first
        collected.append(result)
        if progress:
            shown = f"point {task[1] + 1}" if what == "point" else what
            progress(f"[{number}/{len(tasks)}] {Path(task[0]).stem} {shown}")
    return collected


def _map(run: Callable, tasks: list, workers: int | None, scheduler) -> Iterable:
    """``run`` over the tasks, results in order, as they arrive (lazily, except on Dask)."""
    if scheduler is not None:
        return _on_dask(run, tasks, scheduler)
    workers = workers or os.cpu_count() or 1
    if workers == 1 or len(tasks) == 1:
        return map(run, tasks)
    # spawn: the workers start clean (no inherited threads of numpy or sympy caches)
    import multiprocessing

    return _in_processes(run, tasks, workers, multiprocessing.get_context("spawn"))


def _in_processes(run: Callable, tasks: list, workers: int, context) -> Iterable:
    """The tasks in local processes. A task that fails (an entry's error, carried back with its
    message) cancels the tasks not yet started, so the error is reported at once."""
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context)
    try:
        yield from pool.map(run, tasks, chunksize=max(1, len(tasks) // (4 * workers)))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _on_dask(run: Callable, tasks: list, scheduler) -> list:
    """The tasks on a Dask cluster: ``scheduler`` is its address or a ``distributed.Client``."""
    Client = optional_module("distributed", "running on a Dask cluster").Client
    client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
    try:
        return client.gather(client.map(run, tasks, pure=False))
    finally:
        if client is not scheduler:
            client.close()
