"""RDP references under the insertion/removal relation of a whole group (001 Sec. 4).

001 Thm. 4.1 and G.1 bound ``Ψ_α(m_x ‖ m_x')`` for ``x ≃_{±K} x'``: ``x'`` is ``x`` with ``K``
elements inserted, or with ``K`` elements removed — never a mix of both. otbound's
``Subsampling(group=K)`` covers every pair at distance ``K``, mixed ones included (003 Thm. 3.7
at every ``(K₊, K₋)`` with ``K₊ + K₋ = K``), so it may exceed the quantity such a theorem bounds;
:func:`pure_group_rdp` takes only the two pure shapes ``(K, 0)`` and ``(0, K)``. For ``K = 1`` the
two coincide.
"""

from __future__ import annotations

from collections.abc import Sequence

from otbound.audit.claims import Reference
from otbound.audit.references import subsampled
from otbound.choices import Quantity, SchemeKind
from otbound.numerics.mechanisms import Mechanism
from otbound.numerics.settings import Subsampling


def larger_reference(references: Sequence[Reference]) -> Reference:
    """The reference for the supremum over the union of several relations, given one per relation.

    The upper end is the largest upper end (unknown if any is); the lower end is the largest
    lower end, with the witness and the independent confirmation of the construction attaining
    it — a construction for one of the relations is one for the union.
    """
    if not references:
        raise ValueError("larger_reference needs at least one reference")
    uppers = [reference.upper for reference in references if reference.upper is not None]
    upper = max(uppers) if len(uppers) == len(references) else None
    known = [(reference.lower, reference) for reference in references
             if reference.lower is not None]
    if not known:   # no construction: the witnesses are texts
        return Reference(upper, None, "; ".join(r.witness for r in references
                                                if isinstance(r.witness, str) and r.witness))
    lower, best = max(known, key=lambda entry: entry[0])
    return Reference(upper, lower, best.witness, best.confirm)


def pure_group_rdp(rate: float, group: int, mechanism: Mechanism, alpha: float) -> Reference:
    """otbound's ``ε(α)`` for Poisson subsampling at ``rate`` when ``group`` elements are all
    inserted or all removed (the relation ``≃_{±K}`` of 001 Thm. 4.1 and G.1): the larger of
    003 Thm. 3.7 at ``(K₊, K₋) = (K, 0)`` and at ``(0, K)``, each with its worst-case
    construction where the mechanism's solver is tight."""
    shapes = [(group, 0), (0, group)]
    return larger_reference([
        subsampled(Subsampling(SchemeKind.POISSON, rate=rate, insertions=inserted,
                               removals=removed), mechanism, Quantity.RDP, alpha)
        for inserted, removed in shapes])
