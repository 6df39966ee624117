"""Finding and loading derivation files.

A derivation file is a Python file that defines a module-level ``DERIVATION`` (an
:class:`otbound.Derivation`). The catalogue is the folder named by the environment variable
``OTBOUND_DERIVATIONS``, else the repository's top-level ``derivations/`` folder: installed, it is
the subpackage ``otbound.derivations`` (pyproject.toml maps the folder there); in a source checkout
without that mapping, the folder itself. Derivation files are always loaded by path.
"""

from __future__ import annotations

import contextlib
import importlib.resources
import importlib.util
import os
import sys
from pathlib import Path

from otbound.engine.derivation import Derivation
from otbound.errors import DerivationFileError

ENVIRONMENT_VARIABLE = "OTBOUND_DERIVATIONS"
PACKAGE = "otbound.derivations"
"""Where the bundled derivations are installed (the repository's ``derivations/`` folder)."""
SOURCE_TREE = Path(__file__).resolve().parents[2] / "derivations"
"""The ``derivations/`` folder of a source checkout (``otbound/engine/catalog.py`` → root)."""


def catalogue_directory() -> Path:
    """The folder holding the bundled derivations."""
    configured = os.environ.get(ENVIRONMENT_VARIABLE)
    if configured:
        return Path(configured)
    return _installed_directory() or SOURCE_TREE


def _installed_directory() -> Path | None:
    """The folder of the package ``otbound.derivations``, if it is installed as real files."""
    try:
        folder = importlib.resources.files(PACKAGE)
    except ImportError:  # not installed (a checkout on sys.path, or an older editable install)
        return None
    return folder if isinstance(folder, Path) and folder.is_dir() else None


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


def bundled_derivations() -> list[tuple[Path, Derivation]]:
    """Every derivation of the catalogue, sorted by name."""
    directory = catalogue_directory()
    if not directory.is_dir():
        raise DerivationFileError(
            f"no derivations folder at {str(directory)!r}; set {ENVIRONMENT_VARIABLE}")
    entries = [(path, load_file(path)) for path in sorted(directory.glob("*.py"))
               if not path.name.startswith("_")]
    return sorted(entries, key=lambda entry: entry[1].name)


def load_derivation(name_or_path: str) -> Derivation:
    """A derivation by name (``001-thm-4.1``), file stem (``thm_4_1``) or path."""
    if name_or_path.endswith(".py") or os.sep in name_or_path:
        return load_file(Path(name_or_path))
    wanted = name_or_path.lower()
    for path, derivation in bundled_derivations():
        if wanted in (derivation.name.lower(), path.stem.lower()):
            return derivation
    names = ", ".join(d.name for _, d in bundled_derivations())
    raise DerivationFileError(f"unknown derivation {name_or_path!r}; known: {names}")
