"""Verdicts: a claim against otbound's reference, point by point and over its domain.

At a point, with the reference's bracket ``[lower, upper]`` around the exact value:

* **unsound** — the claim is below ``lower``: a concrete construction has a larger divergence
  than claimed. For the entry's witness (the worst point found) the construction's divergence
  is recomputed by the independent high-precision oracle, and the verdict stands only if that
  number is above the claim too;
* **tight** — the bracket is narrow (1e-8) and the claim lies in it (to 1e-9);
* **sound** — the claim is at least ``upper``;
* **circular** — the claim is at least ``upper``, but ``upper`` is a published bound (the
  audited statement itself, or another paper's): no evidence either way, not counted;
* **undecided** — the claim lies between a lower end and an upper end that do not meet, or one
  of them is unknown;
* **not attained** — for a claim stated as attained (an equality), the claim is above a tight
  bracket: the stated value is not the divergence of any pair (the equality is false; the
  reference's construction is the witness).

Over the entry: unsound if its witness is (the search's, else the grid's worst point: see
:mod:`otbound.audit.search`), else wrong if any point is not attained, else undecided if any
point is, else tight if every independent point is, else sound but loose, with the largest and
median ratio ``claim / upper``; an unsound entry is shown with its ratio ``claim / lower`` (claim
over construction) at the witness. Unsound and wrong entries are failures (``otbound audit``
exits 1).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from enum import Enum

from otbound.audit.blame import call_entry
from otbound.audit.claims import Claim, Point, Reference, Witness
from otbound.audit.references import constructions_only
from otbound.audit.search import SearchOutcome
from otbound.errors import AuditFileError, UnsupportedOperation, required

RELATIVE = 1e-9
"""Relative tolerance of the comparisons (the claims are evaluated in double precision)."""
ABSOLUTE = 1e-300
"""Values this small are equal: a δ of 1e-320 is no witness."""
SEARCHED_FROM = 1e-200
"""The search compares with constructions whose divergence is at least this (below, the claim's
and the reference's double-precision values are too close to underflow to be compared)."""


class AuditVerdict(Enum):
    TIGHT = "tight"
    LOOSE = "sound but loose"
    UNSOUND = "UNSOUND"
    WRONG = "WRONG (stated as attained, above the exact value)"
    UNDECIDED = "undecided"

    @property
    def failed(self) -> bool:
        """A claim that is false as stated: unsound, or an equality that does not hold."""
        return self in (AuditVerdict.UNSOUND, AuditVerdict.WRONG)


@dataclass(frozen=True)
class PointResult:
    """One point of the grid: the claim, the reference, and the point's status."""

    point: dict
    claimed: float
    upper: float | None
    lower: float | None
    status: str
    witness: Witness | str = ""
    confirmed: float | None = None
    """The witness's divergence recomputed by the high-precision oracle (unsound points)."""

    @property
    def ratio(self) -> float | None:
        """``claim / upper`` (``None`` without an upper end; 1 when both are zero)."""
        if self.upper is None:
            return None
        if self.upper <= ABSOLUTE:
            return 1.0 if self.claimed <= ABSOLUTE else math.inf
        return self.claimed / self.upper

    @property
    def construction_ratio(self) -> float | None:
        """``claim / lower``: the claim against the construction's divergence (its computed
        value less its error), ``None`` without a lower end. Below 1 at an unsound point; the
        lower end, not ``upper``, so that the shortfall shown is one the construction proves."""
        if self.lower is None:
            return None
        return self.claimed / max(self.lower, ABSOLUTE)


def judge_point(claim: Claim, point: Point, confirm: bool = True) -> PointResult:
    """Evaluate the claim and the reference at ``point`` and compare them (an unsound point is
    confirmed by the high-precision oracle only if ``confirm``).

    The entry's callables are user code: whatever they raise is an :class:`AuditFileError`
    naming the entry, the point and the failure, unless otbound's own reference code raised it
    (:mod:`otbound.audit.blame`)."""
    claimed = _claimed(claim, point)
    try:
        reference = call_entry(claim, "its reference", point, claim.reference, point,
                               passes=(UnsupportedOperation,))
    except UnsupportedOperation as error:
        return PointResult(dict(point), claimed, None, None, "undecided",
                           f"otbound has no reference here: {error}")
    if not isinstance(reference, Reference):
        raise AuditFileError(f"{claim.where}: its reference returned "
                             f"{type(reference).__name__}, not an otbound Reference, at point "
                             f"{dict(point)}")
    status = _status(claimed, reference)
    if claim.attained and status == "sound" and reference.tight:
        return PointResult(dict(point), claimed, reference.upper, reference.lower,
                           "not attained", reference.witness)
    if status == "circular":
        return PointResult(dict(point), claimed, reference.upper, reference.lower, status,
                           f"otbound's smallest bound here is {reference.published}")
    if status != "unsound" or not confirm:
        return PointResult(dict(point), claimed, reference.upper, reference.lower, status,
                           reference.witness if status == "unsound" else "")
    confirmed = _confirmed(claim, point, reference)
    if confirmed is not None and not _below(claimed, confirmed):
        return PointResult(dict(point), claimed, reference.upper, reference.lower, "undecided",
                           f"the fast lower end {reference.lower:.12g} is above the claim, but "
                           f"the high-precision oracle gives {confirmed:.12g}", confirmed)
    return PointResult(dict(point), claimed, reference.upper, reference.lower, "unsound",
                       reference.witness, confirmed)


def construction_ratio(claim: Claim, point: Point) -> float | None:
    """``claim / lower`` at ``point`` — the search's objective — computing only what a
    construction gives (:func:`~otbound.audit.references.constructions_only`); ``None`` where
    there is none."""
    claimed = _claimed(claim, point)
    try:
        with constructions_only():
            reference = call_entry(claim, "its reference", point, claim.reference, point,
                                   passes=(UnsupportedOperation,))
    except UnsupportedOperation:
        return None
    if not isinstance(reference, Reference) or reference.lower is None \
            or reference.lower < SEARCHED_FROM:
        return None
    return claimed / reference.lower


def _claimed(claim: Claim, point: Point) -> float:
    """The claim's formula at ``point`` (its failures are the entry's)."""
    return _number(claim, "its formula", point,
                   call_entry(claim, "its formula", point, claim.claimed, point))


def _confirmed(claim: Claim, point: Point, reference: Reference) -> float | None:
    """The witness's divergence by the reference's independent evaluation, if it has one."""
    if reference.confirm is None:
        return None
    what = "its reference's confirmation"
    value = call_entry(claim, what, point, reference.confirm)
    return _number(claim, what, point, value, nan=True)   # NaN confirms nothing: undecided


def _number(claim: Claim, what: str, point: Point, value, nan: bool = False) -> float:
    """``value`` (what an entry's callable returned) as a float; NaN only if ``nan``."""
    try:
        number = None if isinstance(value, (str, bytes)) else float(value)
    except (TypeError, ValueError, OverflowError):
        number = None
    if number is None or (math.isnan(number) and not nan):
        raise AuditFileError(f"{claim.where}: {what} gave {value!r}, not a number, at point "
                             f"{dict(point)}")
    return number


def _status(claimed: float, reference: Reference) -> str:
    if reference.lower is not None and _below(claimed, reference.lower):
        return "unsound"
    if (reference.tight and reference.upper is not None   # tight: both ends are known
            and claimed <= reference.upper * (1 + RELATIVE) + ABSOLUTE):
        return "tight"
    if reference.upper is not None and not _below(claimed, reference.upper):
        return "circular" if reference.published else "sound"
    return "undecided"


def _below(claimed: float, value: float) -> bool:
    """Whether the claim is below ``value`` by more than the tolerances."""
    return claimed < value * (1 - RELATIVE) - ABSOLUTE


@dataclass(frozen=True)
class EntryResult:
    """A claim's verdict over its grid and, where its domain is data, the search's outcome;
    ``settled`` is the witness judged with the oracle (the search's, else the grid's worst
    unsound point), ``None`` where nothing was unsound."""

    claim: Claim
    points: tuple[PointResult, ...]
    search: SearchOutcome | None = None
    settled: PointResult | None = None

    @property
    def verdict(self) -> AuditVerdict:
        statuses = {p.status for p in self.points}
        if self.settled is not None:
            if self.settled.status == "unsound":
                return AuditVerdict.UNSOUND
            if self.settled.status == "undecided" or "unsound" in statuses:
                statuses = (statuses - {"unsound"}) | {"undecided"}   # the oracle disagreed
        if "unsound" in statuses:
            return AuditVerdict.UNSOUND
        if "not attained" in statuses:
            return AuditVerdict.WRONG
        if "undecided" in statuses:
            return AuditVerdict.UNDECIDED
        if statuses - {"circular"} <= {"tight"} and "tight" in statuses:
            return AuditVerdict.TIGHT
        return AuditVerdict.LOOSE

    @property
    def independent(self) -> int:
        """The points that are evidence (not circular)."""
        return sum(p.status != "circular" for p in self.points)

    @property
    def ratios(self) -> list[float]:
        return [p.ratio for p in self.points if p.ratio is not None and math.isfinite(p.ratio)
                and p.status != "circular"]

    @property
    def largest_ratio(self) -> float | None:
        return max(self.ratios, default=None)

    @property
    def median_ratio(self) -> float | None:
        return statistics.median(self.ratios) if self.ratios else None

    @property
    def smallest_ratio(self) -> tuple[float, dict] | None:
        """For an unsound entry, the ratio ``claim / construction``
        (:attr:`PointResult.construction_ratio`) at its witness, and the witness's point: the
        most damning point found (then shrunk to a simple one). ``None`` for any other entry."""
        witness = self.witness
        if witness is None or witness.status != "unsound":
            return None
        # an unsound point has a construction
        return required(witness.construction_ratio, "an unsound point's ratio"), witness.point

    @property
    def witness(self) -> PointResult | None:
        """The settled witness if it is unsound; else the grid's unsound point where the claim
        falls furthest below the construction, or, for a wrong equality, the point where it
        exceeds the exact value most."""
        if self.settled is not None and self.settled.status == "unsound":
            return self.settled
        unsound = [p for p in self.points if p.status == "unsound"]
        if unsound and self.settled is None:
            return min(unsound, key=lambda p: required(p.construction_ratio,
                                                       "an unsound point's ratio"))
        wrong = [p for p in self.points if p.status == "not attained"]
        return max(wrong, key=lambda p: p.ratio or 0.0, default=None)

    def count(self, status: str) -> int:
        return sum(p.status == status for p in self.points)
