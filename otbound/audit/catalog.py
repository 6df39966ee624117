"""Finding and loading audit entries.

An audit entry is a Python file that defines a module-level ``CLAIM`` (an
:class:`otbound.audit.claims.Claim`). The catalogue is the folder named by the environment
variable ``OTBOUND_AUDITS``, else the repository's top-level ``audits/`` folder (installed: the
subpackage ``otbound.audits``), found as :mod:`otbound.engine.bundled` finds derivations.
"""

from __future__ import annotations

import importlib.resources
import os
import re
import threading
from dataclasses import replace
from pathlib import Path

from otbound.audit.claims import Claim
from otbound.engine.bundled import load_definition
from otbound.errors import AuditFileError

AUDITS_VARIABLE = "OTBOUND_AUDITS"
AUDITS_PACKAGE = "otbound.audits"
AUDITS_SOURCE = Path(__file__).resolve().parents[2] / "audits"
_LOADING = threading.local()


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
    """The ``CLAIM`` defined by the Python file at ``path`` (with ``path`` recorded in it).

    While the file runs it is on this thread's loading stack: an entry that reuses another
    (:func:`catalogue_entry`) never loads itself, and a cycle of entries is an error."""
    path = Path(path)
    key = path.resolve()
    loading = _loading()
    if key in loading:
        cycle = " → ".join(p.name for p in loading[loading.index(key):] + [key])
        raise AuditFileError(f"audit file {str(path)!r} reuses itself through the catalogue: "
                             f"{cycle}")
    loading.append(key)
    try:
        claim = load_definition(path, "CLAIM", Claim, "audit", AuditFileError)
    finally:
        loading.pop()
    return replace(claim, path=str(path))


def _loading() -> list[Path]:
    """The entry files this thread is loading, outermost first."""
    if not hasattr(_LOADING, "stack"):
        _LOADING.stack = []
    return _LOADING.stack


def bundled_claims() -> list[tuple[Path, Claim]]:
    """Every entry of the catalogue, sorted by name."""
    entries = [(path, load_claim_file(path)) for path in _entry_files()]
    return sorted(entries, key=lambda entry: entry[1].name)


def _entry_files() -> list[Path]:
    """The catalogue's entry files, by file name."""
    directory = audits_directory()
    if not directory.is_dir():
        raise AuditFileError(f"no audits folder at {str(directory)!r}; set {AUDITS_VARIABLE}")
    return [path for path in sorted(directory.glob("*.py")) if not path.name.startswith("_")]


def catalogue_entry(name: str) -> tuple[Path, Claim]:
    """The entry of the current catalogue (:func:`audits_directory`) with this name or file
    stem: how an entry that reuses another finds it (001 Thm. G.2 restates G.1), so that a
    catalogue given by ``OTBOUND_AUDITS`` is the one read.

    Files whose text sets ``name="NAME"`` are tried first, so that a lookup loads one file;
    the files being loaded (the entry asking, and those that asked for it) are skipped."""
    wanted = name.lower()
    loading = _loading()
    files = [path for path in _entry_files() if path.resolve() not in loading]
    named = re.compile(r"\bname\s*=\s*[\"']" + re.escape(wanted) + r"[\"']")
    likely = [path for path in files if path.stem.lower() == wanted
              or named.search(path.read_text(encoding="utf-8").lower())]
    known = []
    for path in likely + [path for path in files if path not in likely]:
        claim = load_claim_file(path)
        if wanted in (claim.name.lower(), path.stem.lower()):
            return path, claim
        known.append(claim.name)
    raise AuditFileError(f"unknown audit entry {name!r} in {str(audits_directory())!r}; known: "
                         f"{', '.join(sorted(known))}")


def find_claim(name_or_path: str) -> tuple[Path, Claim]:
    """An entry by name, file stem or path."""
    if name_or_path.endswith(".py") or os.sep in name_or_path:
        return Path(name_or_path), load_claim_file(name_or_path)
    return catalogue_entry(name_or_path)
