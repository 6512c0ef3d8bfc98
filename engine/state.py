"""The state of a partie: plain values, replaced (never mutated) by `engine.rules.apply`.

Every field holds an immutable value (ints, enums, tuples, frozen records), so a
shallow copy is a new, independent state; `apply` copies, assigns, returns.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

from engine.cards import Card
from engine.combos import Category, Combo
from engine.variants import RUBICON, Rules
from engine.words import Phrase, Words


class Phase(enum.Enum):
    CUT = "cut"
    EXCHANGE = "exchange"
    DECLARE = "declare"
    PLAY = "play"
    DEAL_OVER = "deal_over"
    PARTIE_OVER = "partie_over"

    word: str  # == value, as a plain attribute (see Step)

    def __init__(self, word: str) -> None:
        self.word = word


class Step(enum.Enum):
    """Who must do what now; each step has one handler in engine.rules."""

    CHOOSE_DEALER = ("choose_dealer", Phase.CUT)
    ELDER_EXCHANGE = ("elder_exchange", Phase.EXCHANGE)
    YOUNGER_DISCARD = ("younger_discard", Phase.EXCHANGE)  # elder announced carte blanche
    YOUNGER_EXCHANGE = ("younger_exchange", Phase.EXCHANGE)
    ELDER_CALL = ("elder_call", Phase.DECLARE)
    YOUNGER_ANSWER = ("younger_answer", Phase.DECLARE)
    ELDER_LESSER = ("elder_lesser", Phase.DECLARE)
    YOUNGER_CALL = ("younger_call", Phase.DECLARE)  # after elder's first lead
    YOUNGER_LESSER = ("younger_lesser", Phase.DECLARE)
    LEAD = ("lead", Phase.PLAY)
    FOLLOW = ("follow", Phase.PLAY)
    DEAL_OVER = ("deal_over", Phase.DEAL_OVER)
    PARTIE_OVER = ("partie_over", Phase.PARTIE_OVER)

    # Plain attributes, not properties over .value: an Enum's .value is a slow descriptor,
    # and the view reads these on every action.
    word: str
    phase: Phase

    def __init__(self, word: str, phase: Phase) -> None:
        self.word = word
        self.phase = phase


class Reckon(enum.IntEnum):
    """Law 67 reckoning order of a deal's scores (RULES.md §6)."""

    CARTE_BLANCHE = 1
    POINT = 2
    SEQUENCE = 3
    SET = 4
    PLAY = 5
    CARDS = 6
    BONUS = 7  # pique and repique themselves

    @classmethod
    def of(cls, category: Category) -> Reckon:
        return cls(int(category) + 2)


class Outcome(enum.Enum):
    PENDING = "pending"
    ELDER = "elder"
    YOUNGER = "younger"
    EQUAL = "equal"
    NONE = "none"  # nobody called anything

    word: str  # == value, as a plain attribute (see Step)

    def __init__(self, word: str) -> None:
        self.word = word


# The parts of a deal's score, in Law 67 order (the view's `scores.parts`).
PARTS = ("carte_blanche", "point", "sequences", "sets", "play", "cards", "capot",
         "pique", "repique")
# With the variants' own scores (RULES.md §8): a deal's parts as the state keeps them.
ALL_PARTS = (*PARTS, "carte_rouge")
_PART_OF_RECKON = {1: 0, 2: 1, 3: 2, 4: 3, 5: 4}  # Reckon I-V
# By what scored: these whatever their reckoning (the cards at the seventh trick reckon
# as play, carte rouge with the sets).
_PART_OF_BONUS = {"cards": 5, "capot": 6, "pique": 7, "repique": 8, "carte_rouge": 9}


class ScoreEvent(NamedTuple):
    seat: int
    points: int
    reckon: Reckon
    what: str  # a bonus's kind, "lead", "trick", or a call's label
    combo: Combo | None = None  # the call that scored


class LogLine(NamedTuple):
    seat: int | None
    role: str | None  # "elder" / "younger" / None
    kind: str
    # What was said: its phrase, or Words made once (the English and the phrase). A
    # line's English is worked out when it is read (`text`), not at every step.
    said: Words | Phrase
    points: int = 0

    @property
    def text(self) -> Words:
        """Its English (a str), whose `say` is its phrase."""
        said = self.said
        return said if type(said) is Words else Words(said)  # type: ignore[arg-type]

    @property
    def say(self) -> Phrase:
        """Its phrase (engine.words)."""
        said = self.said
        return said.say if type(said) is Words else said  # type: ignore[return-value]


class Declaration(NamedTuple):
    """One category's dialogue in the current deal. (A named tuple: `_replace` is several
    times quicker than dataclasses.replace, and a deal replaces one at every word.)"""

    category: Category
    outcome: Outcome = Outcome.PENDING
    elder_call: Combo | None = None
    stage: int = 0  # the stage younger is answering
    younger_beat_stage: int | None = None  # the stage at which younger said "not good"
    said: tuple[tuple[int, Phrase], ...] = ()  # (seat, phrase), in the order said
    # The same dialogue as data (the view's declarations): what each seat said, no more.
    elder_nothing: bool = False  # elder said "Nothing"
    answers: tuple[str, ...] = ()  # younger's replies, stage by stage: good/not_good/equal
    younger_call: Combo | None = None  # her call after the lead
    younger_told: int = 0  # how many stages of it she told
    younger_nothing: bool = False  # she said "Nothing" after the lead
    lesser: tuple[Combo, ...] = ()  # the winner's lesser calls (told by length only)


@dataclass(frozen=True, slots=True)
class ComboRecord:
    """A combination that scored, or tied; its cards are public only once shown."""

    seat: int
    combo: Combo
    status: str  # "scored" | "tied"
    public: Words  # what the other seat was told of it, e.g. "Quart" (Combo.public)
    shown: bool = False
    told: int = 2  # how many stages of it the other seat was told (Combo.told)


@dataclass(frozen=True, slots=True)
class Shown:
    seat: int
    what: Words  # "Carte blanche", a combination's label...
    cards: tuple[Card, ...]


class Trick(NamedTuple):
    leader: int
    cards: tuple[tuple[Card, int], ...]
    winner: int


@dataclass(frozen=True, slots=True)
class Result:
    winner: int | None  # None: a draw after eight deals (seven: one more deal)
    totals: tuple[int, int]  # au cent: the games won, a double counting two
    points: int  # au cent: the winner's games
    rubiconed: bool
    text: Words  # "120 + 99 + 100 = 319, rubiconed" (its phrase: `text.say`)
    # The seat that left the table before the end: the partie ended, abandoned by it
    # (engine.abandon), the other seat winning; None for a partie played out.
    abandoned: int | None = None


@dataclass(frozen=True, slots=True)
class Game:
    """A finished game of Piquet au cent (RULES.md §8)."""

    winner: int
    scores: tuple[int, int]
    double: bool  # the loser had under 50: it counts two
    deals: int


def parts_of(events: tuple[ScoreEvent, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A deal's scores by part (ALL_PARTS), for each seat, from its score events."""
    parts = [[0] * len(ALL_PARTS), [0] * len(ALL_PARTS)]
    by_reckon = _PART_OF_RECKON
    by_what = _PART_OF_BONUS
    for e in events:
        i = by_what.get(e.what)
        parts[e.seat][by_reckon[e.reckon] if i is None else i] += e.points
    return (tuple(parts[0]), tuple(parts[1]))


def _totals(events: tuple[ScoreEvent, ...]) -> tuple[int, int]:
    s = [0, 0]
    for e in events:
        s[e.seat] += e.points
    return (s[0], s[1])


T = TypeVar("T")


@dataclass(eq=True)
class State:
    # The partie.
    seed: int
    decks: tuple[tuple[Card, ...], ...]  # fixed deck orders for the first deals (tests)
    packet: int  # cards dealt at a time: 2 or 3, one way for the whole partie
    step: Step
    to_move: int | None
    cut: tuple[Card, Card] | None
    cut_winner: int | None
    first_dealer: int | None
    deal_number: int
    deals_in_partie: int | None  # None: no limit (au cent)
    dealer: int | None
    sheet: tuple[tuple[int, int], ...]  # finished deals' scores
    log: tuple[LogLine, ...]  # this deal's lines (before the first deal: the cut's)
    result: Result | None
    # The deal.
    hands: tuple[tuple[Card, ...], tuple[Card, ...]]
    stock: tuple[Card, ...]
    discards: tuple[tuple[Card, ...], tuple[Card, ...]]
    took: tuple[int | None, int | None]
    seen_stock: tuple[Card, ...]  # elder's rest of his five, seen by him only
    carte_blanche: int | None  # the seat dealt one
    carte_blanche_take: int | None  # elder announced, taking this many
    younger_pending_draw: int  # younger discarded first, draws after elder
    expose: bool
    exposed: tuple[Card, ...]  # younger's leftovers, once turned up
    declarations: tuple[Declaration, Declaration, Declaration]
    younger_queue: tuple[Category, ...]  # categories younger calls after the first lead
    first_call: Combo | None  # the first call of the current category (for lesser calls)
    called_cards: frozenset[Card]  # cards already called in the current category
    reckoned: bool  # declarations complete and repique reckoned
    pique_settled: bool
    repique_seat: int | None
    combos: tuple[ComboRecord, ...]
    shown: tuple[Shown, ...]
    trick: tuple[tuple[Card, int], ...]
    trick_leader: int
    tricks: tuple[Trick, ...]
    tricks_won: tuple[int, int]
    led: bool  # elder has made the first lead
    events: tuple[ScoreEvent, ...]
    bonuses: tuple[tuple[int, str, int], ...]
    # Each finished deal's scores by part (PARTS), one row per deal beside `sheet`.
    sheet_parts: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = ()
    # The rules in force (RULES.md §8), and how they make the flow (engine.rules.Flow,
    # made from them: the same rules, the same flow).
    rules: Rules = RUBICON
    flow: Any = field(default=None, repr=False, compare=False)
    # Piquet au cent: the games finished, and the sheet's row where this game began.
    games: tuple[Game, ...] = ()
    game_start: int = 0
    # The pack a dealing action deals from (`apply(..., pack=)`): set only while `apply`
    # runs, so no state that leaves the engine holds a deal not yet dealt.
    pack: tuple[Card, ...] | None = field(default=None, repr=False, compare=False)
    # `legal(state, seat)` by seat, worked out once: the view lists it and apply checks
    # against it. A state is never changed once new_partie or apply has returned it.
    legal_memo: dict[int, Any] = field(default_factory=dict, init=False, repr=False,
                                       compare=False)
    # The view's part both seats see alike, worked out once per state (engine.view).
    view_memo: dict[str, Any] = field(default_factory=dict, init=False, repr=False,
                                      compare=False)
    # Values derived from one field's value (see `derived`), shared by the states that
    # follow: most fields keep their value from one action to the next.
    carried: dict[str, tuple[Any, Any]] = field(default_factory=dict, init=False,
                                                repr=False, compare=False)

    def copy(self) -> State:
        """A new state with the same field values (all immutable, so independent)."""
        new = object.__new__(State)
        fields = self.__dict__.copy()  # (a new dict, given whole: 3x quicker than update)
        fields["legal_memo"] = {}
        fields["view_memo"] = {}
        new.__dict__ = fields
        return new

    def forget_views(self) -> None:
        """Drop what was worked out for views (this state's shared part, and the values
        carried from state to state): memory only, never meaning, since each is worked out
        again when next asked for. A server holding thousands of tables calls it on a
        table nobody has acted at for a while (about 15 KB a table, docs/reliability.md)."""
        self.view_memo.clear()
        self.carried.clear()

    def derived(self, name: str, source: Any, make: Callable[[Any], T]) -> T:
        """`make(source)`, worked out once for as long as the field's value `source` is
        the same object (values are immutable, so the same object means the same value)."""
        hit = self.carried.get(name)
        if hit is not None and hit[0] is source:
            return hit[1]  # type: ignore[no-any-return]
        value = make(source)
        self.carried[name] = (source, value)
        return value

    @property
    def phase(self) -> Phase:
        return self.step.phase

    @property
    def elder(self) -> int | None:
        return None if self.dealer is None else 1 - self.dealer

    @property
    def younger(self) -> int | None:
        return self.dealer

    def role(self, seat: int) -> str | None:
        if self.dealer is None:
            return None
        return "younger" if seat == self.dealer else "elder"

    def deal_scores(self) -> tuple[int, int]:
        return self.derived("deal_scores", self.events, _totals)

    def deal_parts(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """This deal's scores so far by part (PARTS), for each seat."""
        return self.derived("parts", self.events, parts_of)

    def game_scores(self, deal: tuple[int, int] | None = None) -> tuple[int, int]:
        """Au cent: the current game's scores (its finished deals and this one's so far);
        after a game, the next one's (0-0)."""
        a = b = 0
        for x, y in self.sheet[self.game_start:]:
            a, b = a + x, b + y
        if self.step not in (Step.DEAL_OVER, Step.PARTIE_OVER) and self.deal_number:
            d = self.deal_scores() if deal is None else deal
            a, b = a + d[0], b + d[1]
        return (a, b)

    def partie_scores(self, deal: tuple[int, int] | None = None) -> tuple[int, int]:
        """Totals over the finished deals plus the deal in progress (its scores may be
        given, if the caller has them already)."""
        a = b = 0
        for x, y in self.sheet:
            a, b = a + x, b + y
        if self.step not in (Step.DEAL_OVER, Step.PARTIE_OVER) and self.deal_number:
            d = self.deal_scores() if deal is None else deal
            a, b = a + d[0], b + d[1]
        return (a, b)
