"""The engine's errors: `ValueError` subclasses split by kind, as python-chess does.

A refused action raises one of these and leaves the state untouched.
"""

from __future__ import annotations

from typing import Any


class PiquetError(ValueError):
    """Any refused action. Its message is English, for a program and a log; `say`, when
    given, is the refusal as a phrase (engine.words) for a person, in their language."""

    code = "illegal_action"

    def __init__(self, message: str, say: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.say = say


class MalformedActionError(PiquetError):
    """Not an action at all: wrong shape, unknown type, a string that is not a card."""

    code = "bad_message"


class OutOfTurnError(PiquetError):
    """A well-formed action from a seat that may not act now."""

    code = "out_of_turn"


class IllegalActionError(PiquetError):
    """A well-formed action from a seat that may act, but not like that."""

    code = "illegal_action"
