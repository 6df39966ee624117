"""One engine run per bundled derivation and test worker, shared by the tests that check its
report: :func:`report_for` keeps it, and :func:`by_derivation` makes test rows of derivation
names that carry an xdist group of that name, so that the rows of one derivation (in every
file) run on one worker (``--dist loadgroup``) and all but the first find its report there."""

from functools import lru_cache

import pytest


@lru_cache(maxsize=None)
def report_for(name: str):
    """The report of the bundled derivation ``name``, derived once per worker."""
    from otbound.engine.bundled import load_derivation
    from otbound.engine.derivation import run
    return run(load_derivation(name))


def by_derivation(names) -> list:
    """``names`` as test rows grouped by derivation (the module docstring)."""
    return [pytest.param(name, id=name, marks=pytest.mark.xdist_group(name)) for name in names]
