"""Rubicon Piquet as pure functions of a state (RULES.md). See docs/engine-api.md."""

from engine.actions import (
    Action,
    Answer,
    Call,
    CarteBlanche,
    ChooseDealer,
    Discard,
    NextDeal,
    Pass,
    Play,
    See,
    parse_action,
)
from engine.cards import CARD_NAMES, DECK, Card, Rank, Suit
from engine.combos import Category, Combo
from engine.errors import IllegalActionError, MalformedActionError, OutOfTurnError, PiquetError
from engine.record import (
    RECORD_SCHEMA,
    RecordBuilder,
    RecordError,
    record_from_states,
    record_of,
)
from engine.rules import (
    NO_SEAT,
    DiscardRule,
    apply,
    check_pack,
    deal_again,
    deck_for,
    legal,
    legal_json,
    new_partie,
    partie_result,
    replay,
    replaying,
    rubicon,
)
from engine.state import PARTS, Phase, Result, State, Step
from engine.variants import RUBICON, Rules
from engine.view import deal_log, public_view, view

legal_actions = legal

__all__ = [
    "CARD_NAMES",
    "DECK",
    "NO_SEAT",
    "PARTS",
    "RECORD_SCHEMA",
    "RUBICON",
    "Action",
    "Answer",
    "Call",
    "Card",
    "CarteBlanche",
    "Category",
    "ChooseDealer",
    "Combo",
    "Discard",
    "DiscardRule",
    "IllegalActionError",
    "MalformedActionError",
    "NextDeal",
    "OutOfTurnError",
    "Pass",
    "Phase",
    "PiquetError",
    "Play",
    "Rank",
    "RecordBuilder",
    "RecordError",
    "Result",
    "Rules",
    "See",
    "State",
    "Step",
    "Suit",
    "apply",
    "check_pack",
    "deal_again",
    "deal_log",
    "deck_for",
    "legal",
    "legal_actions",
    "legal_json",
    "new_partie",
    "parse_action",
    "partie_result",
    "public_view",
    "record_from_states",
    "record_of",
    "replay",
    "replaying",
    "rubicon",
    "view",
]
