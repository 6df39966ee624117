"""The optional dependencies, imported in this one place.

A missing optional package is the user's installation, not a defect of otbound: it becomes an
:class:`~otbound.errors.UnsupportedOperation` naming the pip command that installs it (the
command line exits 2 with that message).
"""

from __future__ import annotations

import importlib
from types import ModuleType

from otbound.errors import UnsupportedOperation

EXTRAS = {"matplotlib": "plots", "distributed": "dask", "opacus": "opacus"}
"""Each optional package's top-level module, and the extra of otbound that installs it."""


def optional_module(name: str, purpose: str) -> ModuleType:
    """The module ``name`` (``"matplotlib.figure"``, ``"distributed"``), or an
    :class:`UnsupportedOperation` saying that ``purpose`` needs it and how to install it."""
    package = name.partition(".")[0]
    try:
        return importlib.import_module(name)
    except ImportError:
        raise UnsupportedOperation(
            f"{purpose} needs {package}: pip install 'otbound[{EXTRAS[package]}]'") from None


def require(package: str, purpose: str) -> None:
    """Fail early, before any long computation, when ``package`` is not installed."""
    optional_module(package, purpose)
