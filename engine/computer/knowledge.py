"""What one seat knows, read from its view alone (never the State).

Every level that counts cards reads the view through `know(view)`, and only through
the view's data: cards seen, the trick record, and the opponent's calls as told
records (`declarations[i].elder_call` / `younger_call`, `answers`); never a word.

Cards are ints 0..31 here: `suit * 8 + (rank - 7)`, so a suit is a byte of a 32-bit
mask and a higher bit within it is a higher card (the solver's representation).
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field
from typing import Any

from engine.cards import DECK, Card
from engine.variants import RUBICON, Rules

View = dict[str, Any]

CARD_OF: dict[str, int] = {c.code: int(c.suit) * 8 + int(c.rank) - 7 for c in DECK}
CODE_OF: dict[int, str] = {v: k for k, v in CARD_OF.items()}
CARD_OBJ: dict[int, Card] = {CARD_OF[c.code]: c for c in DECK}
PIPS = [11 if r == 7 else min(r + 7, 10) for r in range(8)] * 4  # by card int
SUIT_MASK = [0xFF << (8 * s) for s in range(4)]
FULL = 0xFFFFFFFF

def card(code: str) -> int:
    return CARD_OF[code]


def mask(cards: Any) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def bits(m: int) -> list[int]:
    out = []
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


@dataclass
class Claim:
    """What the opponent told of one category: the least she must hold (she may sink,
    never overstate)."""

    category: str
    length: int = 0  # point or sequence length; set count
    pips: int | None = None  # a point's pips, once said
    top: int | None = None  # a sequence's top rank (0..7), once said
    rank: int | None = None  # a set's rank (0..7)


@dataclass
class Ceiling:
    """What she told of a category, read as an honest player's words: her best
    combination there (at the declaring) is at most `key` (`strict`: below it). `key`
    is as far as it was told: (length, pips) for a point, (length, top) for a
    sequence, (count, rank) for a set; a shorter key compares on what was told."""

    category: str
    key: tuple[int, ...]
    strict: bool


@dataclass
class Knowledge:
    """One seat's knowledge of the deal (cards as ints, see the module docstring)."""

    seat: int
    opp: int
    i_am_elder: bool
    hand: int  # my cards now
    played: int  # every card played so far (tricks and the trick on the table)
    opp_played: int
    opp_known: int  # cards certainly in the opponent's hand now
    opp_maybe: int  # cards she held at some point that may be in her hand or her discards
    unknown: int  # cards whose place I do not know: her hand, her discards, the stock
    opp_hand_count: int
    opp_discard_count: int  # how many she threw (0 before her exchange)
    stock_unknown: int  # unseen cards still in the stock (before or after the exchange)
    voids: set[int] = field(default_factory=set)  # suits she cannot hold now
    claims: list[Claim] = field(default_factory=list)
    denied: set[str] = field(default_factory=set)  # categories she said "good" to my call
    ceilings: list[Ceiling] = field(default_factory=list)  # likely, not certain (she may sink)

    @property
    def opp_possible(self) -> int:
        """Cards that may be in her hand now."""
        m = self.opp_known | self.unknown | self.opp_maybe
        for s in self.voids:
            m &= ~SUIT_MASK[s]
        return m & ~self.played & ~self.hand


def know(view: View) -> Knowledge:
    seat: int = view["seat"]
    opp = 1 - seat
    elder = view["elder"]
    i_am_elder = seat == elder
    hand = mask(CARD_OF[c] for c in view["hand"])
    mine = hand | mask(CARD_OF[c] for c in view["discards"])
    exposed = mask(CARD_OF[c] for c in view["exposed_stock"])
    played = 0
    opp_played = 0
    voids: set[int] = set()
    tricks = [trick["cards"] for trick in view["tricks"]]
    if view["trick"]:
        tricks.append(view["trick"]["cards"])
    for cards in tricks:
        led = CARD_OF[cards[0][0]] >> 3
        for code, who in cards:
            c = CARD_OF[code]
            played |= 1 << c
            if who == opp:
                opp_played |= 1 << c
                if (c >> 3) != led and cards[0][1] != opp:
                    voids.add(led)
    took = view["took"]
    opp_took = took[opp] or 0  # null until she has exchanged
    opp_known = 0
    opp_maybe = 0
    stock_known = 0
    seen = [CARD_OF[c] for c in view["seen_stock"]]
    if seen:  # elder's rest of five: the top of the stock younger draws from
        younger_took = opp_took
        if not younger_took:
            stock_known |= mask(seen)
        else:
            opp_known |= mask(seen[:younger_took])
            stock_known |= mask(seen[younger_took:])
    for x in view["shown"]:
        if x["seat"] != opp:
            continue
        m = mask(CARD_OF[c] for c in x["cards"])
        if len(x["cards"]) == 12:  # carte blanche: her whole hand before her exchange
            opp_maybe |= m
        else:
            opp_known |= m
    for r in view["combos"]:
        if r["seat"] == opp and r["cards"]:
            opp_known |= mask(CARD_OF[c] for c in r["cards"])
    opp_known &= ~played
    opp_maybe &= ~played & ~opp_known
    known = mine | exposed | played | stock_known | opp_known | opp_maybe
    unknown = FULL & ~known
    stock_unknown = view["stock_count"] - bin(exposed).count("1") - bin(stock_known).count("1")
    claims, denied = _claims(view, opp, i_am_elder)
    return Knowledge(seat, opp, i_am_elder, hand, played, opp_played, opp_known, opp_maybe,
                     unknown, view["opponent_hand_count"], opp_took, max(stock_unknown, 0),
                     voids, claims, denied, _ceilings(view, i_am_elder))


_RANK_INDEX = {"7": 0, "8": 1, "9": 2, "10": 3, "J": 4, "Q": 5, "K": 6, "A": 7}


def _claims(view: View, opp: int, i_am_elder: bool) -> tuple[list[Claim], set[str]]:
    """The opponent's calls as claims, from the view's told records (`declarations`:
    `elder_call` / `younger_call`, as far as each was said), and the categories where she,
    younger, answered my call "good"."""
    hers = "younger_call" if i_am_elder else "elder_call"
    claims: list[Claim] = []
    denied: set[str] = set()
    for d in view["declarations"]:
        cat = d["category"]
        if i_am_elder and "good" in (d.get("answers") or []):
            denied.add(cat)
        told = d.get(hers)
        if not told:
            continue
        if cat == "set":
            if told.get("rank") is None or not told.get("count"):
                continue
            claims.append(Claim(cat, told["count"], rank=_RANK_INDEX[told["rank"]]))
        elif told.get("length"):
            top = told.get("top")
            claims.append(Claim(cat, told["length"], pips=told.get("pips"),
                                top=None if top is None else _RANK_INDEX[top]))
    return claims, denied


def _told_key(category: str, told: dict[str, Any]) -> tuple[int, ...]:
    if category == "set":
        return (told["count"], _RANK_INDEX[told["rank"]])
    second = told.get("pips") if category == "point" else told.get("top")
    if second is None:
        return (told["length"],)
    return (told["length"], second if category == "point" else _RANK_INDEX[second])


def _ceilings(view: View, i_am_elder: bool) -> list[Ceiling]:
    """Her calls and answers as an honest player makes them (every level does): she
    calls her best in a category, says "good" only holding less than my call, "equal"
    only holding as much, and calls nothing only holding nothing."""
    hers = "younger_call" if i_am_elder else "elder_call"
    out: list[Ceiling] = []
    for d in view["declarations"]:
        cat = d["category"]
        told = d.get(hers)
        if told and (cat != "set" or told.get("rank") is not None):
            out.append(Ceiling(cat, _told_key(cat, told), False))
        elif not i_am_elder and d.get("elder_nothing") and cat != "point":
            out.append(Ceiling(cat, (3,) if cat == "sequence" else (3, 3), True))
        if i_am_elder and d.get("elder_call") and d.get("answers"):
            mine = _told_key(cat, d["elder_call"])
            if d["answers"][-1] == "good":
                out.append(Ceiling(cat, mine, True))
            elif d["outcome"] == "equal":
                out.append(Ceiling(cat, mine, False))
    return out


def _suit_point(suit: int) -> tuple[int, int]:
    return (bin(suit).count("1"), sum(PIPS[r] for r in range(8) if suit >> r & 1)) if suit \
        else (0, -1)


def _suit_sequence(suit: int) -> tuple[int, int]:
    best = (0, -1)
    run = 0
    for r in range(-1, 8):
        if r < 7 and suit >> (r + 1) & 1:
            run += 1
        else:
            if run >= 3:
                best = max(best, (run, r))
            run = 0
    return best


_SUIT_BEST = {"point": [_suit_point(b) for b in range(256)],
              "sequence": [_suit_sequence(b) for b in range(256)]}


def best_key(category: str, cards: int) -> tuple[int, int]:
    """The best combination of a category in a hand (mask), as `Ceiling.key` compares."""
    if category == "set":
        best = (0, -1)
        for r in range(3, 8):
            n = (cards >> r & 1) + (cards >> (8 + r) & 1) + (cards >> (16 + r) & 1) \
                + (cards >> (24 + r) & 1)
            if n >= 3:
                best = max(best, (n, r))
        return best
    table = _SUIT_BEST[category]
    return max(table[cards & 0xFF], table[cards >> 8 & 0xFF], table[cards >> 16 & 0xFF],
               table[cards >> 24 & 0xFF])


def under(ceiling: Ceiling, cards: int) -> bool:
    """Whether a hand's best in the ceiling's category stays under it."""
    best = best_key(ceiling.category, cards)[:len(ceiling.key)]
    return best < ceiling.key if ceiling.strict else best <= ceiling.key


def holds(claim: Claim, cards: int) -> bool:
    """Whether a hand `cards` (mask) can make the claim."""
    if claim.category == "set":
        assert claim.rank is not None
        n = sum(1 for s in range(4) if cards >> (8 * s + claim.rank) & 1)
        return n >= claim.length
    for s in range(4):
        suit = (cards >> (8 * s)) & 0xFF
        if claim.category == "point":
            n = bin(suit).count("1")
            if n > claim.length or (n == claim.length and (
                    claim.pips is None
                    or sum(PIPS[r] for r in range(8) if suit >> r & 1) == claim.pips)):
                return True
        else:
            run = 0
            for r in range(7, -1, -1):
                run = run + 1 if suit >> r & 1 else 0
                if run >= claim.length and (claim.top is None or (
                        suit >> claim.top & 1 and all(
                            suit >> (claim.top - i) & 1 for i in range(claim.length)))):
                    return True
    return False


def suit_tricks(suit: int) -> float:
    """The tricks a suit (an 8-bit mask, ace highest) may take in play: masters, guarded
    honours and long cards; a rough count the good level's exchange and the strong
    level's declaring share."""
    n = bin(suit).count("1")
    t = 0.0
    if suit >> 7 & 1:
        t += 1
        if suit >> 6 & 1:
            t += 1
            if suit >> 5 & 1:
                t += 0.9
        elif n >= 2 and suit >> 5 & 1:
            t += 0.3
    elif suit >> 6 & 1:
        t += 0.55 if n >= 2 else 0.15
        if suit >> 5 & 1:
            t += 0.5
    elif suit >> 5 & 1 and n >= 3:
        t += 0.35
    if n >= 5:
        t += 0.6 * (n - 4)
    return min(t, n)


def rules_of(view: View) -> Rules:
    """The rules in force, as the view tells them (RULES.md §8); a view without them (a
    record made before the view carried them) is Rubicon Piquet's."""
    told = view.get("rules")
    if told is None:
        return RUBICON
    key = tuple(sorted(told.items()))
    known = _RULES.get(key)
    if known is None:
        known = _RULES[key] = Rules.from_json(told)
    return known


_RULES: dict[tuple[tuple[str, Any], ...], Rules] = {}


def view_rng(view: dict[str, Any], salt: str = "") -> random.Random:
    """A generator seeded from the view itself: the same view, the same numbers."""
    # (The rules in force, au cent's games and the phrases (engine.words) are left out: a
    # seat's numbers under Rubicon Piquet stay what they were before the view carried
    # them, and the phrases say again what the labels say. The decision still reads the
    # rules and the games from the view, so it stays a function of the view; the same
    # deal under other rules draws the same samples and weighs them by its own rules.)
    data = {k: _unsaid(v) for k, v in view.items() if k not in ("log", "rules", "games")}
    digest = hashlib.blake2b((salt + json.dumps(data, sort_keys=True)).encode(),
                             digest_size=8).digest()
    return random.Random(int.from_bytes(digest, "big"))


def _unsaid(x: Any) -> Any:
    """A view's part without its phrases (`say`, `says`)."""
    if isinstance(x, dict):
        return {k: _unsaid(v) for k, v in x.items() if k != "say" and k != "says"}
    if isinstance(x, list):
        return [_unsaid(v) for v in x]
    return x
