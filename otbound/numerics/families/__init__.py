"""The noise families, one module each behind :class:`otbound.numerics.noise.NoiseFamily`.

A family is added by adding its module here, and nothing else: every module of this package
defines its :class:`~otbound.numerics.noise.NoiseFamily` object under the module's name in
capitals (``gaussian.py`` defines ``GAUSSIAN``). The registries are filled from the modules:
:data:`FAMILIES` (imported here); the command line's ``--mechanism`` choices and the
constructors of ``otbound`` and ``otbound.numerics`` (``otbound.gaussian(sigma, sensitivity)``,
:func:`otbound.numerics.mechanisms.constructor`), from the module names alone
(:func:`otbound.choices.family_modules`, so that listing them loads no numpy); the verifier's
independent references (:func:`otbound.verify.noise_references.reference`, a module
``<name>_reference`` in :mod:`otbound.verify.noise_families`).
"""

from __future__ import annotations

import importlib

from otbound.choices import family_modules, mechanism_name
from otbound.errors import InvalidSpecification
from otbound.numerics.families.gaussian import GAUSSIAN
from otbound.numerics.families.laplace import LAPLACE
from otbound.numerics.noise import NoiseFamily


def _load() -> dict[str, NoiseFamily]:
    found: dict[str, NoiseFamily] = {}
    for module in family_modules():
        family = getattr(importlib.import_module(f"{__name__}.{module}"), module.upper())
        if family.name != mechanism_name(module):
            raise ImportError(f"{__name__}.{module} defines the family {family.name!r}: a "
                              f"family module is named as its family")
        found[family.name] = family
    return found


FAMILIES: dict[str, NoiseFamily] = _load()
"""Every family by name (``--mechanism``), from the modules of this package."""


def family_named(name: str) -> NoiseFamily:
    """The registered family called ``name``."""
    try:
        return FAMILIES[name]
    except KeyError:
        raise InvalidSpecification(f"mechanism must be one of {', '.join(FAMILIES)}, got "
                                   f"{name!r}", parameter="mechanism") from None


__all__ = ["FAMILIES", "GAUSSIAN", "LAPLACE", "NoiseFamily", "family_modules", "family_named",
           "mechanism_name"]
