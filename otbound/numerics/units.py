"""The K = 1 bound post-hoc group privacy starts from, asked of a setting (a capability).

Group privacy holds for any mechanism (001 App. B.1; 003 Prop. 2.6): datasets ``K`` steps apart
under a relation are joined by a chain of ``K`` neighbouring datasets, so the K = 1 bound of the
same scheme, with the sensitivity counted in the same distance, bounds each link. otbound has
that K = 1 bound for Poisson subsampling (one insertion or removal), for sampling without
replacement (one substitution, at one dataset size ``N``) and for sampling with replacement
(one substitution: the bundled ``wr-substitution``, at the same ``N``: a substitution keeps
the dataset size along the chain). :func:`posthoc_unit` answers with that bound and ``K``, or
with a :class:`~otbound.errors.Refusal` that says what would give one.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from otbound.choices import SchemeKind
from otbound.engine.relations import BatchRelation
from otbound.errors import Refusal, granted
from otbound.numerics.settings import UNIT_RELATION, Subsampling

WR_UNIT = "wr-substitution"
"""The bundled derivation of sampling with replacement's K = 1 bound (one substitution)."""
BUILT_IN = {SchemeKind.POISSON: "--scheme poisson --group K",
            SchemeKind.WOR: "--scheme wor --substitutions K"}
"""The built-in setting that is post-hoc's own, per scheme (said in refusals)."""
ALTERNATIVES = "use method='tight' or method='agnostic'"


def posthoc_unit(setting) -> tuple[Any, int] | Refusal:
    """The setting of the smallest step of ``setting``'s relation, at its values, and how many
    such steps separate its datasets (001 App. B.1); or why otbound has no such K = 1 bound,
    naming what would give one. A setting that knows its own (a built-in one, an epoch-level
    one) is asked; a derivation's is read off its scheme, relation and cases."""
    own = getattr(setting, "unit_setting", None)
    if own is not None:
        return own()
    draws = getattr(getattr(setting, "derived", None), "draws", None)
    if draws is not None:
        return _with_replacement(setting, draws)
    if setting.scheme is None:
        return Refusal(
            "method='posthoc' applies group privacy to a K = 1 bound of the same scheme, which "
            "otbound has for Poisson subsampling (insertion/removal), sampling without "
            f"replacement (substitution, at one dataset size N) and sampling with replacement "
            f"(substitution: {WR_UNIT}); not for {setting.summary()}: {ALTERNATIVES}")
    if setting.batch_relation is not UNIT_RELATION[setting.scheme]:
        return _other_distance(setting)
    if setting.scheme is SchemeKind.POISSON:
        return (Subsampling(SchemeKind.POISSON, rate=setting.rate, group=1),
                max(inserted + removed for inserted, removed in setting.shapes()))
    return _without_replacement(setting)


def unit_of(setting) -> tuple[Any, int]:
    """:func:`posthoc_unit`, where the caller needs it (its refusal raised)."""
    return granted(posthoc_unit(setting))


def _other_distance(setting) -> Refusal:
    """A derivation whose sensitivity is counted in another distance than its scheme's K = 1
    bound (001 Thm. F.2, F.3 count a replaced element as 2)."""
    wanted = UNIT_RELATION[setting.scheme]
    return Refusal(
        "method='posthoc' applies group privacy to a K = 1 bound of the same scheme whose "
        f"sensitivity is counted in the same distance; {setting.summary()} counts it per "
        f"{setting.batch_relation.unit()}, otbound's K = 1 bound of its scheme per "
        f"{wanted.unit()}. Post-hoc works for a derivation with "
        f"batch_relation=BatchRelation.{wanted.name} (or the built-in "
        f"{BUILT_IN[setting.scheme]}), where the mechanism's sensitivity is stated in that "
        f"unit; here, {ALTERNATIVES}")


def _without_replacement(setting) -> tuple[Subsampling, int] | Refusal:
    """One substitution without replacement at the setting's ``q`` and ``N``, ``K`` times."""
    shapes = setting.shapes()
    if len(set(shapes)) != 1 or shapes[0][0] != shapes[0][1]:
        return Refusal(
            "method='posthoc' reads a derivation without replacement as K substitutions: every "
            "case's pair removes K elements and inserts K; the cases of "
            f"{setting.summary()} insert and remove {_shown(shapes)}: {ALTERNATIVES}")
    missing = [name for name in ("q", "N") if name not in setting.values]
    if missing:
        also = (" (the maximum over N > Q is not formed for post-hoc)"
                if "Q" in setting.values else "")
        return Refusal(
            "method='posthoc' starts from the K = 1 bound without replacement (001 Thm. 3.6) "
            "at the batch size q and one dataset size N; "
            f"{setting.summary()} has no value for {' and '.join(missing)}{also}: give "
            f"{' and '.join(f'--param {name}=...' for name in missing)} on the command line "
            "(the derivation's scheme must name them q and N)")
    return (Subsampling(SchemeKind.WOR, batch_size=_integer(setting.values["q"]),
                        dataset_size=_integer(setting.values["N"]), substitutions=1),
            shapes[0][0])


def _with_replacement(setting, draws: int):
    """``wr-substitution`` at ``q`` draws and the setting's ``N`` (or ``Q``), ``K`` times."""
    from otbound.engine.bundled import load_derivation
    from otbound.numerics.derived import DerivedSetting, bundled

    shapes = setting.shapes()
    if len(set(shapes)) != 1 or shapes[0][0] != shapes[0][1]:
        return Refusal(
            "method='posthoc' with replacement starts from the K = 1 bound of one substitution "
            f"({WR_UNIT}) and reads the derivation as K substitutions (every case's pair "
            "removes K elements and inserts K; along a chain of insertions or removals the "
            f"dataset size would change); the cases of {setting.summary()} insert and remove "
            f"{_shown(shapes)}: {ALTERNATIVES}")
    if setting.batch_relation is not BatchRelation.SUBSTITUTION:
        return _other_distance_wr(setting)
    (largest,) = [p.maximum for p in load_derivation(WR_UNIT).parameters if p.name == "q"]
    if draws > largest:
        return Refusal(f"method='posthoc' with replacement starts from {WR_UNIT}, derived for "
                       f"q up to {largest}; {setting.summary()} has q = {draws}: "
                       f"{ALTERNATIVES}")
    sizes = {name: value for name, value in setting.values.items() if name in ("N", "Q")}
    return DerivedSetting(bundled(WR_UNIT, q=draws), sizes), shapes[0][0]


def _other_distance_wr(setting) -> Refusal:
    """A derivation with replacement whose sensitivity is not counted per replaced draw."""
    return Refusal(
        f"method='posthoc' with replacement starts from {WR_UNIT}, whose sensitivity is "
        f"counted per {BatchRelation.SUBSTITUTION.unit()}; {setting.summary()} counts it per "
        f"{setting.batch_relation.unit()}. Post-hoc works for a derivation with "
        "batch_relation=BatchRelation.SUBSTITUTION, where the mechanism's sensitivity is "
        f"stated in that unit; here, {ALTERNATIVES}")


def _shown(shapes: list[tuple[int, int]]) -> str:
    return ", ".join(f"({inserted}, {removed})" for inserted, removed in shapes)


def _integer(value) -> int:
    """A checked integer parameter value (``"60000"``, ``60000``)."""
    return int(Fraction(str(value)))
