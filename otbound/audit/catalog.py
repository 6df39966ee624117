"""Finding and loading audit entries.

An audit entry is a Python file that defines a module-level ``CLAIM`` (an
:class:`otbound.audit.claims.Claim`). The catalogue is the folder named by the environment
variable ``OTBOUND_AUDITS``, else the repository's top-level ``audits/`` folder (installed: the
subpackage ``otbound.audits``), found as :mod:`otbound.engine.catalog` finds derivations.
"""

from __future__ import annotations

import importlib.resources
import os
from pathlib import Path

from otbound.audit.claims import Claim
from otbound.engine.catalog import load_definition
from otbound.errors import AuditFileError

AUDITS_VARIABLE = "OTBOUND_AUDITS"
AUDITS_PACKAGE = "otbound.audits"
AUDITS_SOURCE = Path(__file__).resolve().parents[2] / "audits"


def audits_directory() -> Path:
    """The folder holding the bundled audit entries."""
    configured = os.environ.get(AUDITS_VARIABLE)
    if configured:
        return Path(configured)
    try:
        folder = importlib.resources.files(AUDITS_PACKAGE)
    except ImportError:
        return AUDITS_SOURCE
    return folder if isinstance(folder, Path) and folder.is_dir() else AUDITS_SOURCE


def load_claim_file(path: Path | str) -> Claim:
    """The ``CLAIM`` defined by the Python file at ``path``."""
    return load_definition(Path(path), "CLAIM", Claim, "audit", AuditFileError)


def bundled_claims() -> list[tuple[Path, Claim]]:
    """Every entry of the catalogue, sorted by name."""
    directory = audits_directory()
    if not directory.is_dir():
        raise AuditFileError(f"no audits folder at {str(directory)!r}; set {AUDITS_VARIABLE}")
    entries = [(path, load_claim_file(path)) for path in sorted(directory.glob("*.py"))
               if not path.name.startswith("_")]
    return sorted(entries, key=lambda entry: entry[1].name)


def find_claim(name_or_path: str) -> tuple[Path, Claim]:
    """An entry by name, file stem or path."""
    if name_or_path.endswith(".py") or os.sep in name_or_path:
        return Path(name_or_path), load_claim_file(name_or_path)
    wanted = name_or_path.lower()
    entries = bundled_claims()
    for path, claim in entries:
        if wanted in (claim.name.lower(), path.stem.lower()):
            return path, claim
    names = ", ".join(claim.name for _, claim in entries)
    raise AuditFileError(f"unknown audit entry {name_or_path!r}; known: {names}")
