"""The engine's errors: `ValueError` subclasses split by kind, as python-chess does.

A refused action raises one of these and leaves the state untouched.
"""


class PiquetError(ValueError):
    """Any refused action."""

    code = "illegal_action"


class MalformedActionError(PiquetError):
    """Not an action at all: wrong shape, unknown type, a string that is not a card."""

    code = "bad_message"


class OutOfTurnError(PiquetError):
    """A well-formed action from a seat that may not act now."""

    code = "out_of_turn"


class IllegalActionError(PiquetError):
    """A well-formed action from a seat that may act, but not like that."""

    code = "illegal_action"
