"""A package's public surface: the names it documents, each loaded from its module on first use
(so ``import otbound`` and the command line start fast), and names that moved to another
surface, which still load, with a ``DeprecationWarning`` (issue 46 item 1).

A package's ``__init__`` says ``__all__, __getattr__, __dir__ = surface(__name__, EXPORTS)``;
docs/api.md documents the surface of ``otbound``, docs/building_blocks.md (generated) those of
the sub-packages.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable


def surface(package: str, exports: dict[str, list[str]], moved: dict[str, str] | None = None
            ) -> tuple[list[str], Callable[[str], Any], Callable[[], list[str]]]:
    """``__all__``, ``__getattr__`` and ``__dir__`` of ``package``: ``exports`` maps each module
    to the names it gives the surface; ``moved`` maps an old name of the surface to the surface
    that has it now. ``__getattr__`` returns ``Any`` (a module ``__getattr__``'s type is that of
    every lazy name to a type checker: ``object`` would reject each use, ``otbound.account(...)``;
    ``Any`` leaves the uses unchecked)."""
    module_of = {name: module for module, names in exports.items() for name in names}
    moved = moved or {}
    names = sorted(module_of)

    def getattr_(name: str) -> Any:
        if name in module_of:
            value = getattr(importlib.import_module(module_of[name]), name)
        elif name in moved:
            warnings.warn(f"{package}.{name} has moved: import it from {moved[name]} (the old "
                          "name will be removed)", DeprecationWarning, stacklevel=2)
            return getattr(importlib.import_module(moved[name]), name)
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)
        return value

    def dir_() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(names))

    return names, getattr_, dir_
