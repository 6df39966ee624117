"""Finding and loading derivation files.

A derivation file is a Python file that defines a module-level ``DERIVATION`` (an
:class:`otbound.engine.Derivation`, or an :class:`otbound.engine.EpochDerivation` for an
epoch-level scheme).
The catalogue is the folder named by the environment variable ``OTBOUND_DERIVATIONS``, else the
repository's top-level ``derivations/`` folder: installed, it is the subpackage
``otbound.derivations`` (pyproject.toml maps the folder there); in a source checkout without that
mapping, the folder itself. Derivation files are always loaded by path.
"""

from __future__ import annotations

import contextlib
import importlib.resources
import importlib.util
import os
import sys
from dataclasses import replace
from pathlib import Path

from otbound.engine.derivation import Derivation
from otbound.engine.epoch_derivation import EpochDerivation
from otbound.errors import DerivationFileError

ENVIRONMENT_VARIABLE = "OTBOUND_DERIVATIONS"
PACKAGE = "otbound.derivations"
"""Where the bundled derivations are installed (the repository's ``derivations/`` folder)."""
SOURCE_TREE = Path(__file__).resolve().parents[2] / "derivations"
"""The ``derivations/`` folder of a source checkout (``otbound/engine/bundled.py`` → root)."""


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


def load_file(path: Path) -> Derivation | EpochDerivation:
    """The ``DERIVATION`` defined by the Python file at ``path``."""
    derivation = load_definition(Path(path), "DERIVATION", (Derivation, EpochDerivation),
                                 "derivation", DerivationFileError)
    return replace(derivation, path=str(path))


def load_definition(path: Path, attribute: str, kind: type | tuple[type, ...], what: str,
                    error: type[Exception]):
    """The object named ``attribute`` (an instance of ``kind``, or of one of them) that the
    Python file at ``path`` defines; ``error`` (naming the file as a ``what`` file) when there is
    none or the file fails.
    """
    kinds = kind if isinstance(kind, tuple) else (kind,)
    paths = [f"{'.'.join(k.__module__.split('.')[:2])}.{k.__name__}" for k in kinds]
    names = " or ".join(paths)   # as documented: otbound.engine.Derivation, otbound.audit.Claim
    if not path.is_file():
        raise error(f"{what} file {str(path)!r} does not exist")
    if path.suffix != ".py":
        raise error(f"{what} file {str(path)!r} must be a Python file (.py)")
    spec = importlib.util.spec_from_file_location(f"otbound_{what}_{path.stem}", path)
    if spec is None or spec.loader is None:   # not for a .py file
        raise error(f"{what} file {str(path)!r} could not be loaded")
    module = importlib.util.module_from_spec(spec)
    try:
        # Whatever the file prints goes to stderr, so that stdout stays one clean result (JSON).
        with contextlib.redirect_stdout(sys.stderr):
            spec.loader.exec_module(module)
    except BaseException as failure:  # noqa: BLE001
        # A definition file is user input: whatever it raises, even SystemExit or
        # KeyboardInterrupt, is reported as a bad file, never propagated.
        raise error(f"{what} file {str(path)!r} could not be loaded: "
                    f"{_one_line(failure)}") from failure
    if not hasattr(module, attribute):
        raise error(f"{what} file {str(path)!r} does not define {attribute} = "
                    + " or ".join(f"{path}(...)" for path in paths))
    value = getattr(module, attribute)
    if not isinstance(value, kinds):
        raise error(f"{what} file {str(path)!r} defines {attribute} of type "
                    f"{type(value).__name__}, not {names}")
    return value


def _one_line(error: BaseException) -> str:
    """``Type: message`` on one line (``SystemExit: 7``, ``KeyboardInterrupt``)."""
    message = " ".join(str(error).split())
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def bundled_derivations() -> list[tuple[Path, Derivation | EpochDerivation]]:
    """Every derivation of the catalogue, sorted by name."""
    directory = catalogue_directory()
    if not directory.is_dir():
        raise DerivationFileError(
            f"no derivations folder at {str(directory)!r}; set {ENVIRONMENT_VARIABLE}")
    entries = [(path, load_file(path)) for path in sorted(directory.glob("*.py"))
               if not path.name.startswith("_")]
    return sorted(entries, key=lambda entry: entry[1].name)


def load_derivation(name_or_path: str) -> Derivation | EpochDerivation:
    """A derivation by name (``001-thm-4.1``), file stem (``thm_4_1``) or path."""
    if name_or_path.endswith(".py") or os.sep in name_or_path:
        return load_file(Path(name_or_path))
    wanted = name_or_path.lower()
    directory = catalogue_directory()
    # the files that mention the name are tried first, so one lookup loads one file
    likely = [path for path in sorted(directory.glob("*.py")) if not path.name.startswith("_")
              and (path.stem.lower() == wanted or f'"{wanted}"' in path.read_text().lower())]
    for path in likely:
        derivation = load_file(path)
        if wanted in (derivation.name.lower(), path.stem.lower()):
            return derivation
    for path, derivation in bundled_derivations():
        if wanted in (derivation.name.lower(), path.stem.lower()):
            return derivation
    names = ", ".join(d.name for _, d in bundled_derivations())
    raise DerivationFileError(f"unknown derivation {name_or_path!r}; known: {names}")
