"""Actions a seat may take, as frozen values with a JSON form (docs/engine-api.md).

`parse_action(obj)` turns the JSON dict a client sent into an Action or raises
MalformedActionError; `action.to_json()` is its inverse.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from engine.cards import DECK, Card, parse_cards, sort_hand
from engine.combos import Category
from engine.errors import MalformedActionError

Reply = Literal["good", "not_good", "equal"]
REPLIES = ("good", "not_good", "equal")


@dataclass(frozen=True, slots=True)
class ChooseDealer:
    deal: bool  # True: the cut's winner deals first

    def to_json(self) -> dict[str, Any]:
        return {"type": "choose_dealer", "deal": self.deal}


@dataclass(frozen=True, slots=True)
class CarteBlanche:
    announce: bool
    take: int | None = None  # elder announcing says how many cards he will take

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "carte_blanche", "announce": self.announce}
        if self.take is not None:
            out["take"] = self.take
        return out


@dataclass(frozen=True, slots=True)
class Discard:
    cards: tuple[Card, ...]
    expose: bool = False  # younger: turn her leftover stock cards face up after the first lead

    def to_json(self) -> dict[str, Any]:
        return {"type": "discard", "cards": [str(c) for c in self.cards], "expose": self.expose}


@dataclass(frozen=True, slots=True)
class Call:
    category: Category
    cards: tuple[Card, ...]

    def to_json(self) -> dict[str, Any]:
        return {"type": "call", "category": self.category.word,
                "cards": [str(c) for c in self.cards]}


@dataclass(frozen=True, slots=True)
class Pass:
    """"Nothing" in a category, or "Done" after lesser calls."""

    def to_json(self) -> dict[str, Any]:
        return {"type": "pass"}


@dataclass(frozen=True, slots=True)
class Answer:
    reply: Reply
    # "Equal" at a call's last stage names which of her equal calls younger ties with
    # (she may hold more than one, in different suits: which one is her choice, and the
    # suit shown tells only that). Empty at any other answer.
    cards: tuple[Card, ...] = ()

    def to_json(self) -> dict[str, Any]:
        if self.cards:
            return {"type": "answer", "reply": self.reply,
                    "cards": [str(c) for c in self.cards]}
        return {"type": "answer", "reply": self.reply}


@dataclass(frozen=True, slots=True)
class Play:
    card: Card

    def to_json(self) -> dict[str, Any]:
        return {"type": "play", "card": str(self.card)}


# One Play per card, made once: legal lists them and parse_action returns them, so
# checking a play against legal is mostly an identity test.
PLAYS: dict[Card, Play] = {c: Play(c) for c in DECK}


@dataclass(frozen=True, slots=True)
class See:
    combo: int  # an id from the view's `combos`

    def to_json(self) -> dict[str, Any]:
        return {"type": "see", "combo": self.combo}


@dataclass(frozen=True, slots=True)
class NextDeal:
    def to_json(self) -> dict[str, Any]:
        return {"type": "next_deal"}


Action = ChooseDealer | CarteBlanche | Discard | Call | Pass | Answer | Play | See | NextDeal
ACTION_TYPES = (ChooseDealer, CarteBlanche, Discard, Call, Pass, Answer, Play, See, NextDeal)
_ACTION_TYPES = frozenset(ACTION_TYPES)  # (final classes: a set lookup beats isinstance)


def _field(obj: Mapping[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    if name not in obj:
        raise MalformedActionError(
            f"{obj.get('type')!r} action needs a {name!r} field: {dict(obj)!r}")
    value = obj[name]
    # bool is an int in Python; never accept one where a number is meant, or vice versa.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise MalformedActionError(f"field {name!r} has the wrong type: {value!r}")
    return value


def _cards(obj: Mapping[str, Any]) -> tuple[Card, ...]:
    items = _field(obj, "cards", list)
    if len(items) > 12:
        raise MalformedActionError(f"too many cards ({len(items)}): {items!r}")
    cards = parse_cards(items)
    if len(set(cards)) != len(cards):
        raise MalformedActionError(f"a card is named twice: {items!r}")
    return cards


def parse_action(obj: Any) -> Action:
    """The Action a JSON dict describes; MalformedActionError if it describes none."""
    if type(obj) in _ACTION_TYPES:
        return obj  # type: ignore[no-any-return]  # (an Action: its type is one of them)
    if type(obj) is not dict:  # (dict first: ABCs are slow)
        if isinstance(obj, ACTION_TYPES):
            return obj
        if not isinstance(obj, Mapping):
            raise MalformedActionError(f"an action must be a JSON object, not {obj!r}")
    kind = obj.get("type")
    if kind == "choose_dealer":
        return ChooseDealer(_field(obj, "deal", bool))
    if kind == "carte_blanche":
        take = obj.get("take")
        if take is not None and (not isinstance(take, int) or isinstance(take, bool)):
            raise MalformedActionError(f"field 'take' must be a number: {take!r}")
        return CarteBlanche(_field(obj, "announce", bool), take)
    if kind == "discard":
        expose = obj.get("expose", False)
        if not isinstance(expose, bool):
            raise MalformedActionError(f"field 'expose' must be true or false: {expose!r}")
        return Discard(_cards(obj), expose)
    if kind == "call":
        word = _field(obj, "category", str)
        if word not in ("point", "sequence", "set"):
            raise MalformedActionError(f"unknown category {word!r} (point, sequence or set)")
        return Call(Category.from_word(word), _cards(obj))
    if kind == "pass":
        return Pass()
    if kind == "answer":
        reply = _field(obj, "reply", str)
        if reply not in REPLIES:
            raise MalformedActionError(f"unknown reply {reply!r} (good, not_good or equal)")
        if "cards" in obj:
            return Answer(reply, sort_hand(_cards(obj)))
        return Answer(reply)
    if kind == "play":
        return PLAYS[Card.parse(_field(obj, "card", str))]
    if kind == "see":
        return See(_field(obj, "combo", int))
    if kind == "next_deal":
        return NextDeal()
    raise MalformedActionError(f"unknown action type {kind!r}")
