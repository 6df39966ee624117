"""A coupling left to the search: :data:`AUTO`, or ``coupling="auto"`` in a :class:`Case`.

Instead of a generative process (:class:`otbound.engine.couplings.Coupling`), a case may ask
otbound to *find* a ``d_Y``-compatible coupling (001 Def. D.4) of its conditional pmfs. The search
(:mod:`otbound.engine.coupling_search`) is a linear program over the batch tuples of one concrete
instance, so a searched coupling exists only instance by instance: it has no steps, and its
results hold on the instances searched, not for every dataset size.
"""

from __future__ import annotations

from dataclasses import dataclass

from otbound.errors import InvalidSpecification, UnsupportedOperation

AUTO_NAME = "auto"
"""The string that stands for :data:`AUTO` where a coupling is expected."""


@dataclass(frozen=True)
class SearchedCoupling:
    """A coupling found by linear programming on each instance (001 Def. D.4, Cor. D.7).

    ``reference`` is the coordinate ``y_1`` of Def. D.4 (default: the first event on ``x``);
    ``coordinates`` are the case's labels, filled in by :class:`Case`.
    """

    reference: str | None = None
    coordinates: tuple[str, ...] = ()

    @property
    def steps(self) -> tuple:
        """A searched coupling has no generative steps."""
        return ()

    def bound_to(self, labels: tuple[str, ...], case_name: str) -> "SearchedCoupling":
        """This coupling for a case with event labels ``labels`` (reference first)."""
        reference = labels[0] if self.reference is None else self.reference
        if reference not in labels:
            raise InvalidSpecification(
                f"case {case_name!r}: the reference coordinate of the searched coupling must be "
                f"one of the event labels {list(labels)}, got {reference!r}")
        if self.coordinates and sorted(self.coordinates) != sorted(labels):
            raise InvalidSpecification(
                f"case {case_name!r}: the searched coupling has coordinates "
                f"{list(self.coordinates)} but the events are {list(labels)}")
        rest = tuple(label for label in labels if label != reference)
        return SearchedCoupling(reference, (reference,) + rest)

    def describe(self) -> list[str]:
        return [f"searched on each instance by linear programming: a d_Y-compatible coupling "
                f"(001 Def. D.4, reference y_{self.reference}) of the conditional pmfs"]

    def joint(self, reference, given):
        raise UnsupportedOperation(
            "a searched coupling has no generative process: it is found on each instance by "
            "otbound.engine.coupling_search, which needs the batch relation")

    def marginal_types(self, reference, given):
        raise UnsupportedOperation(
            "a searched coupling exists only on the instances searched: its marginals are not "
            "proved for every N (give a generative coupling for that)")


AUTO = SearchedCoupling()
"""Ask for a searched coupling with the default reference coordinate."""


def resolve(coupling: object, labels: tuple[str, ...], case_name: str):
    """``coupling`` with :data:`AUTO` / ``"auto"`` bound to the case's labels (others as given)."""
    if isinstance(coupling, str):
        if coupling != AUTO_NAME:
            raise InvalidSpecification(
                f"case {case_name!r}: coupling must be a Coupling, otbound.engine.AUTO or "
                f"{AUTO_NAME!r}, got {coupling!r}")
        coupling = AUTO
    if isinstance(coupling, SearchedCoupling):
        return coupling.bound_to(labels, case_name)
    return coupling
