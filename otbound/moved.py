"""Module paths that moved keep working (issue 46 item 1): derivation and audit files that users
wrote import by path, so an old path gives the module's new home, with a ``DeprecationWarning``
that names it. A path is listed here when a module is renamed; real modules always win (the
finder is consulted after the normal ones)."""

from __future__ import annotations

import importlib
import sys
import warnings
from importlib.machinery import ModuleSpec

MOVED = {
    "otbound.numerics.methods": "otbound.numerics.one_step",
    "otbound.accounting.methods": "otbound.accounting.guarantees",
    "otbound.accounting.by_method": "otbound.accounting.guarantees",
    "otbound.audit.report": "otbound.audit.findings",
    "otbound.audit.runner": "otbound.audit.judge",
    "otbound.engine.catalog": "otbound.engine.bundled",
    "otbound.verify.runner": "otbound.verify.verification",
    "otbound.amplification": "otbound.numerics.one_step",
    "otbound.batches": "otbound.engine.batches",
    "otbound.bound": "otbound.engine.bound",
    "otbound.catalog": "otbound.engine.bundled",
    "otbound.compatibility": "otbound.engine.compatibility",
    "otbound.conditionals": "otbound.engine.conditionals",
    "otbound.coupling": "otbound.engine.couplings",
    "otbound.derivation": "otbound.engine.derivation",
    "otbound.derive": "otbound.engine.case_bounds",
    "otbound.events": "otbound.engine.events",
    "otbound.hockey_stick": "otbound.numerics.hockey_stick",
    "otbound.limits": "otbound.numerics.limits",
    "otbound.mechanisms": "otbound.numerics.mechanisms",
    "otbound.numeric": "otbound.numerics.rounding",
    "otbound.pairs": "otbound.numerics.pairs",
    "otbound.problems": "otbound.numerics.problems",
    "otbound.quadrature": "otbound.numerics.quadrature",
    "otbound.reference": "otbound.verify.high_precision",
    "otbound.relations": "otbound.engine.relations",
    "otbound.renyi": "otbound.numerics.renyi",
    "otbound.report": "otbound.engine.report",
    "otbound.schemes": "otbound.engine.schemes",
    "otbound.simplify": "otbound.engine.simplify",
    "otbound.subsampling": "otbound.numerics.settings",
    "otbound.symbols": "otbound.engine.symbols",
    "otbound.validity": "otbound.engine.validity",
}
"""Old module path → where the module lives now."""


class MovedModules:
    """Finds an old path of :data:`MOVED` and loads it as the module's new home (a meta path
    finder and its loader; ``importlib.abc`` is not imported: it costs ``import otbound`` 25
    ms)."""

    def find_spec(self, name, path=None, target=None):
        # a loader by protocol (create_module, exec_module), not an importlib.abc.Loader
        return ModuleSpec(name, self) if name in MOVED else None  # type: ignore[arg-type]

    def create_module(self, spec):
        new = MOVED[spec.name]
        warnings.warn(f"{spec.name} has moved to {new}; import it from there (or the name from "
                      "otbound itself, docs/api.md): the old path will be removed",
                      DeprecationWarning, stacklevel=2)
        return importlib.import_module(new)

    def exec_module(self, module) -> None:
        """The module is the new one, already executed."""


def install() -> None:
    """Put the finder after the normal ones (once)."""
    if not any(isinstance(finder, MovedModules) for finder in sys.meta_path):
        sys.meta_path.append(MovedModules())
