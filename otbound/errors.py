"""The exceptions otbound raises.

Every error derives from :class:`OtboundError`, so a caller can catch the whole family at once.
Errors about bad input also derive from the matching builtin (``ValueError``), and their messages
name the argument, its value and the allowed range.
"""


class OtboundError(Exception):
    """Root of every otbound error."""


class InvalidSpecification(OtboundError, ValueError):
    """A scheme, relation, event, coupling or parameter is outside its allowed range."""


class UnsupportedOperation(OtboundError):
    """The request is well formed, but otbound has no sound method for it (it never guesses)."""


class DerivationFileError(OtboundError):
    """A derivation file is missing, malformed, or does not define a derivation."""
