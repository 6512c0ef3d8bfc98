"""How long a seat's state message is padded to (issue 25 §3, docs/protocol.md "pad").

A passive observer of the encrypted stream reads each frame's length. A seat's view holds
its own cards (its hand, its discards, its own calls' cards) and its `legal` entries
(about 50 bytes a card it may play), so unpadded the follower's state told the number of
cards it held in the suit led (r = 0.97). Every state message a seat gets is therefore
padded to a length worked out from public information only: the length of the *largest*
view this seat could have now, given what anyone at the table knows (how many cards each
holds, how many each took, the calls as told, the step and whose turn it is).

`view_ceiling(public, seat)` builds that largest view: the public view (engine.public_view,
the same for either seat and any watcher) with each field a seat's view has of its own
filled with the longest thing it could hold — every card its longest code ("10S"), every
label and phrase (`say`) the longest the engine writes, and `legal` the most entries the
step allows (for a call, the most natural calls any twelve cards offer, worked out once
below). Its JSON
length bounds the seat's real view; the state message is padded so that its view part
takes exactly that room. The cost is bounded by the ceiling, and measured in
docs/protocol.md. Padding holds only while frames are not compressed
(PIQUET_WS_DEFLATE, off by default): deflate squeezes the padding out.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

import orjson

import engine
from engine import exchange
from engine.cards import DECK, Card, Rank, Suit
from engine.combos import Category, Combo, natural_calls
from engine.words import Words

CODE = "10S"  # the longest card code
HAND = 12  # the most cards a seat holds


def _size(value: Any) -> int:
    return len(orjson.dumps(value))


def _longest(words: Iterable[str]) -> str:
    """A stand-in as long (in UTF-8 bytes) as the longest of `words`: plain ASCII, so
    its JSON is as long as it."""
    return "x" * max(len(w.encode()) for w in words)


_SAY = _size({"code": ""})


def _longest_say(phrases: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """A stand-in phrase whose JSON is as long as the longest of `phrases`'."""
    return {"code": "x" * (max(_size(p) for p in phrases) - _SAY)}


def _words(words: Words) -> dict[str, Any]:
    """An entry's label and phrase, at their longest among `words` (engine.words.Words)."""
    return {"label": words, "say": words.say}


def _group_calls_of(category: Category, cards: tuple[Card, ...]) -> tuple[Combo, ...]:
    """The calls of one suit's cards (one rank's, for a set): a hand of only those."""
    return natural_calls(category, cards)


def _call_entry(combo: Combo) -> dict[str, Any]:
    return {"type": "call", "category": combo.category.word,
            "cards": [c.code for c in combo.cards], "label": combo.label,
            "say": combo.label.say}


def _suit_cards(suit: Suit, mask: int) -> tuple[Card, ...]:
    """The cards of `suit` whose ranks are the bits of `mask` (bit 0: the seven), high
    first, as a hand holds them."""
    ranks = [Rank(7 + r) for r in range(8) if mask >> r & 1]
    return tuple(sorted((c for c in DECK if c.suit is suit and c.rank in ranks),
                        key=lambda c: -int(c.rank)))


@cache
def most_calls(category: Category) -> int:
    """The most bytes the natural calls of any twelve cards in `category` take as `legal`
    entries (each entry and its comma). A point's and a sequence's calls are made suit by
    suit, a set's rank by rank, so the most is found suit by suit (rank by rank): the
    best share-out of twelve cards among them."""
    if category is Category.SET:
        # Tens and above in sets; the rest of the twelve are sevens, eights and nines.
        groups: list[list[tuple[int, int]]] = []
        for rank in (Rank.ACE, Rank.KING, Rank.QUEEN, Rank.JACK, Rank.TEN):
            cards = [c for c in DECK if c.rank is rank]
            options = [(k, sum(_size(_call_entry(x)) + 1
                               for x in _group_calls_of(category, tuple(cards[:k])))
                        if k >= 3 else 0) for k in range(5)]
            groups.append(options)
    else:
        options = [(bin(m).count("1"), sum(_size(_call_entry(x)) + 1 for x in
                                           _group_calls_of(category, _suit_cards(Suit.SPADES, m))))
                   for m in range(256)]
        groups = [options] * 4  # (the suits' codes and labels are as long as each other)
    best = {0: 0}  # cards used -> the most bytes
    for options in groups:
        step: dict[int, int] = {}
        for used, total in best.items():
            for k, size in options:
                if used + k <= HAND and step.get(used + k, -1) < total + size:
                    step[used + k] = total + size
        best = step
    return max(best.values())


def _calls_of(category: Category) -> list[Combo]:
    """Every call of this category any hand offers."""
    calls: list[Combo] = []
    for suit in Suit:
        for mask in range(1, 256):
            calls += _group_calls_of(category, _suit_cards(suit, mask))
    if category is Category.SET:
        for rank in (Rank.ACE, Rank.KING, Rank.QUEEN, Rank.JACK, Rank.TEN):
            cards = tuple(c for c in DECK if c.rank is rank)
            calls += _group_calls_of(category, cards)
    return calls


@cache
def longest_label(category: Category) -> str:
    """The longest label a call of this category has."""
    return _longest([x.label for x in _calls_of(category) if x.label])


@cache
def longest_say(category: Category) -> dict[str, Any]:
    """A stand-in as long as the longest phrase a call of this category has (its label's)."""
    return _longest_say(x.label.say for x in _calls_of(category))


# The longest label of each category's calls, by its word.
LONGEST_LABEL = {c.word: longest_label(c) for c in Category}
LONGEST_SAY = {c.word: longest_say(c) for c in Category}
PLAY = {"type": "play", "card": CODE, "label": _longest(c.name for c in DECK)}


def _exchange() -> list[dict[str, Any]]:
    """The exchange: elder's carte blanche, taking five to one, then the discard (the
    template with the longest label and phrase); younger's carte blanche, out of turn."""
    takes = [Words({"code": "carte_blanche_taking", "n": n}) for n in range(1, 6)]
    discards = [Words({"code": code, "n": n}) for n in range(1, 9)
                for code in ("discard_to", "discard_n", "discard_or_pat")]
    take = {"label": _longest(takes), "say": _longest_say(x.say for x in takes)}
    return [
        *({"type": "carte_blanche", "announce": True, "take": n, **take}
          for n in range(5, 0, -1)),
        {"type": "carte_blanche", "announce": True, **_words(Words(exchange.CARTE_BLANCHE))},
        {"type": "discard", "min": 1, "max": 8, "expose_choice": True,
         "label": _longest(discards), "say": _longest_say(x.say for x in discards)},
    ]


EXCHANGE = _exchange()
# (The engine's own entries: their words are its words.)
CHOOSE_DEALER = [{"type": "choose_dealer", "deal": deal, **_words(label)}
                 for deal, (_, label) in zip(
                     (True, False), engine.dealing.legal_choose_dealer(engine.new_partie(0), 0),
                     strict=True)]
PASS = {"type": "pass", **_words(Words({"code": "nothing"}))}  # ("Done": shorter)
NEXT_DEAL = {"type": "next_deal", **_words(Words({"code": "next_deal"}))}
DECLARING = ("elder_call", "younger_call", "elder_lesser", "younger_lesser")


def _codes(n: int) -> list[str]:
    return [CODE] * n


def _told_length(call: dict[str, Any]) -> int:
    """How many cards a call as told has: its length, or a set's count."""
    return int(call.get("length") or call.get("count") or 0)


def _own_combo(combo: dict[str, Any]) -> dict[str, Any]:
    """A combination of this seat's, not shown, as its owner may see it at the most: the
    full call told (pips, top card), the longest label, and its cards."""
    category = combo["category"]
    call = dict(combo["call"])
    if category == "point":
        call["pips"] = 99
    elif category == "sequence":
        call["top"] = "10"
    label = LONGEST_LABEL[category]
    if len(label) < len(combo["label"].encode()):
        label = combo["label"]
    say = LONGEST_SAY[category]
    if _size(say) < _size(combo["say"]):
        say = combo["say"]
    return {**combo, "call": call, "label": label, "say": say,
            "cards": _codes(_told_length(combo["call"]))}


def _see_entries(public: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    """The `see` entries this seat may have: one per combination of the other seat's not
    yet shown (its label as long as the one the public view gives it, "See the " and
    all)."""
    return [{"type": "see", "combo": c["id"], "label": "See the " + c["label"],
             "say": {"code": "see", "what": {**c["say"], "code": "the_" + c["say"]["code"]}}}
            for c in public["combos"] if c["seat"] != seat and not c["shown"]]


def _most_legal(public: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    step = public["step"]
    mover = public["to_move"] == seat
    hand = public["hand_counts"][seat]
    out: list[dict[str, Any]] = []
    if public["phase"] == "exchange":
        out += EXCHANGE  # (younger's carte blanche comes out of turn)
    elif not mover:
        pass
    elif step == "choose_dealer":
        out += CHOOSE_DEALER
    elif step in ("lead", "follow"):
        out += [PLAY] * hand
    elif step in DECLARING:
        category = Category.from_word(public["declaring"]["category"])
        # Each call entry and its comma; the pass entry, and the brackets' share.
        out.append({"x": "x" * most_calls(category)})
        out.append(PASS)
    elif step == "younger_answer":
        category = Category.from_word(public["declaring"]["category"])
        declaration = next(d for d in public["declarations"]
                           if d["category"] == public["declaring"]["category"])
        n = _told_length(declaration["elder_call"] or {})
        label = "Equal: " + longest_label(category) + " in diamonds"
        say = {"code": "equal_in", "what": longest_say(category), "suit": "D"}
        not_good = {"type": "answer", "reply": "not_good",
                    **_words(Words({"code": "not_good"}))}
        out += [not_good] * 2
        out += [{"type": "answer", "reply": "equal", "cards": _codes(n),
                 "label": label, "say": say}] * len(Suit)
    out += _see_entries(public, seat)
    if public["step"] == "deal_over":
        out.append(NEXT_DEAL)
    return out


# The fields of a seat's view that are not the public view's (a seat's view has no
# `hand_counts`; the rest of the two are the same).
OWN_FIELDS = ("seat", "role", "hand", "discards", "seen_stock", "opponent_hand_count",
              "combos", "seen", "legal")


def view_ceiling(public: dict[str, Any], seat: int, shared_size: int | None = None) -> int:
    """The most bytes `seat`'s view (without its log) can take now, from `public`, the
    public view (engine.public_view) of the same state, and nothing else; `shared_size`:
    `shared_size_of(public)`, if known (the same for both seats). The fields a seat's
    view shares with the public view are as long in both: only the others are written
    out, at their largest."""
    took = public["took"][seat] or 0
    elder = public["elder"] == seat
    rest_of_five = max(0, 5 - took) if elder and public["took"][seat] is not None else 0
    largest = {
        "seat": seat,
        "role": "younger",
        "hand": _codes(public["hand_counts"][seat]),
        "discards": _codes(took),
        "seen_stock": _codes(rest_of_five),
        "opponent_hand_count": public["hand_counts"][1 - seat],
        "combos": [_own_combo(c) if c["seat"] == seat and not c["shown"] else c
                   for c in public["combos"]],
        "seen": {**public["seen"], "discards": _codes(took), "rest_of_five": _codes(rest_of_five)},
        "legal": _most_legal(public, seat),
    }
    if shared_size is None:
        shared_size = shared_size_of(public)
    return shared_size + _size(largest)


def shared_size_of(public: dict[str, Any]) -> int:
    """The bytes of the public view's JSON that are not the fields a seat's view has of
    its own (so, with those fields at their largest added, a seat's ceiling)."""
    theirs = {name: public[name] for name in (*OWN_FIELDS, "hand_counts")}
    return _size(public) - _size(theirs)


class Ceilings:
    """One state's public view, its JSON length and each seat's ceiling, worked out once
    for every message sent of that state (each seat's, each watcher's) instead of once a
    message. The room keeps the latest in its snapshots (app/seat_view.py's `Working`),
    and makes a new one when its state is another."""

    __slots__ = ("by_seat", "public", "shared", "state")

    def __init__(self, state: engine.State) -> None:
        self.state = state
        self.public = engine.public_view(state, log=False)
        self.shared = shared_size_of(self.public)
        self.by_seat: dict[int, int] = {}

    def ceiling(self, seat: int) -> int:
        found = self.by_seat.get(seat)
        if found is None:
            found = self.by_seat[seat] = view_ceiling(self.public, seat, self.shared)
        return found

