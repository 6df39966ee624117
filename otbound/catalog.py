"""Finding and loading derivation files.

A derivation file is a Python file that defines a module-level ``DERIVATION`` (an
:class:`otbound.Derivation`). The catalogue is the ``derivations/`` folder of the source tree, or
the folder named by the environment variable ``OTBOUND_DERIVATIONS``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
from pathlib import Path

from otbound.derivation import Derivation
from otbound.errors import DerivationFileError

ENVIRONMENT_VARIABLE = "OTBOUND_DERIVATIONS"


def catalogue_directory() -> Path:
    """The folder holding the bundled derivations."""
    configured = os.environ.get(ENVIRONMENT_VARIABLE)
    if configured:
        return Path(configured)
    beside_package = Path(__file__).resolve().parents[1] / "derivations"
    return beside_package if beside_package.is_dir() else Path.cwd() / "derivations"


def load_file(path: Path) -> Derivation:
    """The ``DERIVATION`` defined by the Python file at ``path``."""
    path = Path(path)
    if not path.is_file():
        raise DerivationFileError(f"derivation file {str(path)!r} does not exist")
    if path.suffix != ".py":
        raise DerivationFileError(f"derivation file {str(path)!r} must be a Python file (.py)")
    spec = importlib.util.spec_from_file_location(f"otbound_derivation_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        # Whatever the file prints goes to stderr, so that stdout stays one clean result (JSON).
        with contextlib.redirect_stdout(sys.stderr):
            spec.loader.exec_module(module)
    except BaseException as error:  # noqa: BLE001
        # A derivation file is user input: whatever it raises, even SystemExit or
        # KeyboardInterrupt, is reported as a bad file, never propagated.
        raise DerivationFileError(
            f"derivation file {str(path)!r} could not be loaded: {_one_line(error)}") from error
    if not hasattr(module, "DERIVATION"):
        raise DerivationFileError(
            f"derivation file {str(path)!r} does not define DERIVATION = otbound.Derivation(...)")
    derivation = module.DERIVATION
    if not isinstance(derivation, Derivation):
        raise DerivationFileError(
            f"derivation file {str(path)!r} defines DERIVATION of type "
            f"{type(derivation).__name__}, not otbound.Derivation")
    return derivation


def _one_line(error: BaseException) -> str:
    """``Type: message`` on one line (``SystemExit: 7``, ``KeyboardInterrupt``)."""
    message = " ".join(str(error).split())
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def catalogue() -> list[tuple[Path, Derivation]]:
    """Every derivation of the catalogue, sorted by name."""
    directory = catalogue_directory()
    if not directory.is_dir():
        raise DerivationFileError(
            f"no derivations folder at {str(directory)!r}; set {ENVIRONMENT_VARIABLE}")
    entries = [(path, load_file(path)) for path in sorted(directory.glob("*.py"))
               if not path.name.startswith("_")]
    return sorted(entries, key=lambda entry: entry[1].name)


def find(name_or_path: str) -> Derivation:
    """A derivation by name (``001-thm-4.1``), file stem (``thm_4_1``) or path."""
    if name_or_path.endswith(".py") or os.sep in name_or_path:
        return load_file(Path(name_or_path))
    wanted = name_or_path.lower()
    for path, derivation in catalogue():
        if wanted in (derivation.name.lower(), path.stem.lower()):
            return derivation
    names = ", ".join(d.name for _, d in catalogue())
    raise DerivationFileError(f"unknown derivation {name_or_path!r}; known: {names}")
