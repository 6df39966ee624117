"""The noise families, one module each behind :class:`otbound.numerics.noise.NoiseFamily`.

A new family is a module here implementing the protocol and one entry in :data:`FAMILIES`."""

from __future__ import annotations

from otbound.errors import InvalidSpecification
from otbound.numerics.families.gaussian import GAUSSIAN
from otbound.numerics.families.laplace import LAPLACE
from otbound.numerics.noise import NoiseFamily

FAMILIES: dict[str, NoiseFamily] = {family.name: family for family in (GAUSSIAN, LAPLACE)}


def family_named(name: str) -> NoiseFamily:
    """The registered family called ``name``."""
    try:
        return FAMILIES[name]
    except KeyError:
        raise InvalidSpecification(f"mechanism must be one of {', '.join(FAMILIES)}, got "
                                   f"{name!r}", parameter="mechanism") from None


__all__ = ["FAMILIES", "GAUSSIAN", "LAPLACE", "NoiseFamily", "family_named"]
