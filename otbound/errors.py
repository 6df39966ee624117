"""The exceptions otbound raises.

Every error derives from :class:`OtboundError`, so a caller can catch the whole family at once.
Errors about bad input also derive from the matching builtin (``ValueError``), and their messages
name the argument, its value and the allowed range.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TypeVar

E = TypeVar("E", bound=Enum)
_T = TypeVar("_T")


class OtboundError(Exception):
    """Root of every otbound error."""


class InvalidSpecification(OtboundError, ValueError):
    """A scheme, relation, event, coupling or parameter is outside its allowed range.

    ``parameter`` names the Python parameter (or field) at fault, when there is one, so that a
    front end such as the command line can name its own spelling of it instead.
    """

    def __init__(self, message: str, *, parameter: str | None = None) -> None:
        super().__init__(message)
        self.parameter = parameter


class UnsupportedOperation(OtboundError):
    """The request is well formed, but otbound has no sound method for it (it never guesses)."""


class DerivationFileError(OtboundError):
    """A derivation file is missing, malformed, or does not define a derivation."""


class AuditFileError(OtboundError):
    """An audit entry file is missing, malformed, or does not define a claim."""


class InternalError(OtboundError):
    """otbound failed where it should not have: a defect to report, not a fault of the input."""


@dataclass(frozen=True)
class Refusal:
    """The answer "no" to a capability question ("can you?"), with the reason, naming what the
    user can change. Settings, methods, solvers and accountants are asked before a route calls
    them; a refusal becomes an :class:`UnsupportedOperation` only where the user asked for that
    one thing (:func:`granted`)."""

    reason: str

    def __str__(self) -> str:
        return self.reason

    def error(self) -> UnsupportedOperation:
        """The refusal as the error the user sees."""
        return UnsupportedOperation(self.reason)


def granted(answer: _T | Refusal) -> _T:
    """``answer``, unless it is a :class:`Refusal`: then its :class:`UnsupportedOperation`."""
    if isinstance(answer, Refusal):
        raise answer.error()
    return answer


def required(value: _T | None, what: str) -> _T:
    """``value``, which the caller knows is set (the type checker does not): an
    :class:`InternalError` naming ``what`` if it is ``None`` after all."""
    if value is None:
        raise InternalError(f"{what} is missing")
    return value


def as_choice(enum: type[E], value: object, parameter: str) -> E:
    """``value`` as a member of ``enum`` (a member, or its string value), or an
    :class:`InvalidSpecification` that names ``parameter``, the value and the allowed ones."""
    if isinstance(value, enum):
        return value
    allowed = ", ".join(repr(member.value) for member in enum)
    if isinstance(value, str):
        try:
            return enum(value)
        except ValueError:
            pass
    raise InvalidSpecification(
        f"{parameter} must be one of {allowed} (or {enum.__name__}.<NAME>), got {value!r}",
        parameter=parameter)
