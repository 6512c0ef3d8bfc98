"""The hint (issue 26, "Learn at the table"): what the strong level would do now, and why.

`hint(view)` reads one seat's view and nothing else, and returns the strong level's own
decision for it (`engine.computer.strong.choose(view)`, the same action) with its reasons
as JSON-ready data the page can draw:

    {"kind": "exchange" | "carte_blanche" | "call" | "answer" | "lesser" | "see" | "play"
             | "choose_dealer" | "next_deal",
     "action": {...},   # the legal entry without its label, as the page sends it
     "label": "...",    # the entry's words ("Discard 7♣ 8♣ 9♦ 10♦ 7♥" for a discard)
     "why": "...",      # one line
     "options": [{"action", "label", "points", "why"}, ...]}

`options` are the choices the level weighed, best first (the first is the hint's own),
each with `points` relative to the best (0 for the best, never above): in the exchange,
its best discards and their mean over the sampled stocks and hands; in the play, its best
cards and their mean over the sampled hands to the end of the deal. Both are in the
strong level's own measure: points, and from them the partie (`strong.partie_value`: in
the deals before the last a margin counts also by the chance it gives of winning the
partie, in the last deal by the score the partie ends with). Where the level follows a
rule and weighs nothing (the declarations, showing, choosing the dealer) `options`
holds the one choice.

Everything comes from the view (the strong level's samples are seeded from it): the same
view gives the same hint, and a hint tells nothing the view does not.
"""

from __future__ import annotations

from typing import Any

from engine.cards import Card
from engine.combos import NUMBER_WORDS, SEQUENCE_NAMES, Category, Combo, best_call
from engine.computer import good, strong
from engine.computer.knowledge import CARD_OF, CODE_OF, SUIT_MASK, Knowledge, bits, know, mask
from engine.computer.solver import expand

Action = dict[str, Any]
View = dict[str, Any]

GLYPHS = {"S": "♠", "H": "♥", "C": "♣", "D": "♦"}
SUIT_WORDS = {"S": "spades", "H": "hearts", "C": "clubs", "D": "diamonds"}
RANK_WORDS = {"A": "ace", "K": "king", "Q": "queen", "J": "jack", "10": "ten", "9": "nine",
              "8": "eight", "7": "seven"}
RANK_PLURALS = {"A": "aces", "K": "kings", "Q": "queens", "J": "jacks", "10": "tens"}
OPTIONS = 3  # the best this many choices, where the level weighed alternatives
EXCHANGE_STEPS = ("elder_exchange", "younger_discard", "younger_exchange")


def short(code: str) -> str:
    """A card's short name: "K♠", "10♦"."""
    return code[:-1] + GLYPHS[code[-1]]


def shorts(codes: list[str]) -> str:
    return " ".join(short(c) for c in codes)


def hint(view: View) -> dict[str, Any]:
    """What the strong level would do now in this seat's view, and why (module docstring).
    Raises ValueError when the view offers this seat nothing to do."""
    legal: list[Action] = view["legal"]
    if not legal:
        raise ValueError(f"nothing for seat {view['seat']} to do at {view['step']!r}")
    searched = view["to_move"] == view["seat"] and not any(e["type"] == "see" for e in legal)
    # (strong.choose's own dispatch: its exchange and its play are searched, and their
    # values are the options; everything else is a rule of the good or basic level.)
    if searched and view["step"] in EXCHANGE_STEPS and strong.SIMULATED_EXCHANGE:
        return _exchange(view, legal)
    if searched and view["step"] in ("lead", "follow"):
        return _play(view, legal)
    try:
        action = strong.choose(view)
    except ValueError:
        if not any(e["type"] == "next_deal" for e in legal):
            raise
        action = {"type": "next_deal"}
    return _rule(view, legal, action)


def _option(action: Action, label: str, points: float, why: str) -> dict[str, Any]:
    return {"action": action, "label": label, "points": round(min(points, 0.0), 2),
            "why": why}


def _hint(kind: str, options: list[dict[str, Any]]) -> dict[str, Any]:
    first = options[0]
    return {"kind": kind, "action": first["action"], "label": first["label"],
            "why": first["why"], "options": options}


# --------------------------------------------------------------------------- exchange


def discard_action(cards: int) -> Action:
    """A discard (a mask) as strong sends it."""
    return {"type": "discard", "cards": [CODE_OF[c] for c in bits(cards)], "expose": False}


def discard_label(codes: list[str]) -> str:
    return "Discard " + shorts(codes) if codes else "Stand pat"


def throw_words(codes: list[str], verb: str = "Throw") -> str:
    """A discard in words: "Throw 7♣ 8♣", or standing pat (younger, Piquet au cent);
    `verb` "throwing" or "throws" for the other forms."""
    if codes:
        return f"{verb} {shorts(codes)}"
    return {"Throw": "Stand pat", "throwing": "standing pat", "throws": "stands pat"}[verb]


def _exchange(view: View, legal: list[Action]) -> dict[str, Any]:
    weighed = strong.exchange_values(view, legal)
    best = strong.best_discard(weighed)
    samples = strong.EXCHANGE_SAMPLES
    total = {w.discard: w.total for w in weighed}
    margin = {w.discard: w.points for w in weighed}
    others = sorted((w for w in weighed if w.discard != best), key=lambda w: -w.total)
    chosen = [best] + [w.discard for w in others[:OPTIONS - 1]]
    hand = mask(CARD_OF[c] for c in view["hand"])
    options = []
    for i, d in enumerate(chosen):
        action = discard_action(d)
        points = (total[d] - total[best]) / samples
        keeps = keeps_words(hand & ~d)
        if i == 0:
            why = f"{throw_words(action['cards'])}: {keeps}"
            if len(chosen) > 1:
                why += _gap((total[best] - total[chosen[1]]) / samples,
                            discard_difference(chosen[1], best))
        else:
            why = keeps[0].upper() + keeps[1:] + "; " + (
                "as good as the best" if points > -0.05
                else f"about {points:+.1f} against the best")
        option = _option(action, discard_label(action["cards"]), points, why)
        option["mean"] = round(margin[d] / samples, 2)
        options.append(option)
    return _hint("exchange", options)


def _gap(gap: float, other: str) -> str:
    """How far the best stands above the next, in words."""
    return f", as good as {other}" if gap < 0.05 else f"; about {gap:+.1f} over {other}"


def discard_difference(other: int, best: int) -> str:
    """How discard `other` differs from `best`, in words: "throwing J♠ 10♠ (keeping
    7♥ 8♥)", or "taking four (keeping 7♥)"."""
    thrown = [CODE_OF[c] for c in bits(other & ~best)]
    kept = [CODE_OF[c] for c in bits(best & ~other)]
    n, m = bin(other).count("1"), bin(best).count("1")
    if n != m:
        words = f"taking {NUMBER_WORDS[n]}" if n else "standing pat"
        parts = []
        if thrown:
            parts.append(f"throwing {shorts(thrown)}")
        if kept:
            parts.append(f"keeping {shorts(kept)}")
        return words + (f" ({', '.join(parts)})" if parts else "")
    return f"throwing {shorts(thrown)} (keeping {shorts(kept)})"


def keeps_words(kept: int) -> str:
    """What a kept hand (a mask) holds worth keeping, in words: its sequences, its sets,
    its longest suit; else its high cards."""
    codes = [CODE_OF[c] for c in bits(kept)]
    cards = [Card.parse(c) for c in codes]
    said: list[str] = []
    for suit in "SHCD":
        run: list[str] = []
        for rank in ("A", "K", "Q", "J", "10", "9", "8", "7", ""):
            if rank and f"{rank}{suit}" in codes:
                run.append(rank)
                continue
            if len(run) >= 3:
                said.append(f"the {SEQUENCE_NAMES[len(run)]} to the {RANK_WORDS[run[0]]} "
                            f"in {SUIT_WORDS[suit]}")
            run = []
    for rank, plural in RANK_PLURALS.items():
        n = sum(1 for s in "SHCD" if f"{rank}{s}" in codes)
        if n >= 3:
            said.append(f"{NUMBER_WORDS[n]} {plural}")
    point = best_call(Category.POINT, cards)
    if point is not None and point.length >= 4:
        suit = point.cards[0].code[-1]
        said.append(f"{NUMBER_WORDS[point.length]} {SUIT_WORDS[suit]} for the point")
    if not said:
        high = [short(c) for c in codes if c[:-1] in ("A", "K")]
        return "keeps " + (" ".join(high) if high else "its best cards")
    return "keeps " + _and(said)


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


# --------------------------------------------------------------------------- play


def _play(view: View, legal: list[Action]) -> dict[str, Any]:
    cards = [CARD_OF[e["card"]] for e in legal if e["type"] == "play"]
    if len(cards) == 1:
        code = CODE_OF[cards[0]]
        return _hint("play", [_option({"type": "play", "card": code}, _label(legal, code),
                                      0.0, f"Play {short(code)}: the only card you may play")])
    searched = strong.play_totals(view, cards)
    if searched is None:  # (a hand too long to search: the good level's rule)
        return _rule(view, legal, good.choose(view))
    totals, margins, solved = searched
    best = strong.best_card(totals)
    others = sorted((c for c in cards if c != best), key=lambda c: -totals[c])
    chosen = [best, *others[:OPTIONS - 1]]
    k = know(view)
    options = []
    for i, c in enumerate(chosen):
        code = CODE_OF[c]
        points = (totals[c] - totals[best]) / solved
        what = f"{'Lead' if view['trick'] is None else 'Play'} {short(code)}: " \
            f"{_card_role(view, k, c)}"
        mean = margins[c] / solved
        if i == 0:
            why = f"{what}; the best over {solved} hands she may hold ({_margin(mean)})"
            if len(chosen) > 1:
                why += _gap((totals[best] - totals[chosen[1]]) / solved,
                            short(CODE_OF[chosen[1]]))
        else:
            why = f"{what}; " + ("as good as the best" if points > -0.05
                                 else f"about {points:+.1f} against the best") \
                + f" ({_margin(mean)})"
        option = _option({"type": "play", "card": code}, _label(legal, code), points, why)
        option["mean"] = round(mean, 2)
        options.append(option)
    return _hint("play", options)


def _margin(mean: float) -> str:
    return f"on average {mean:+.1f} to you to the end of the deal"


def _card_role(view: View, k: Knowledge, c: int) -> str:
    """What a card does here, in a few words."""
    trick = view["trick"]
    if trick is None:
        if good.sure_winners(k) >> c & 1:
            return "a sure winner"
        if not k.opp_possible & SUIT_MASK[c >> 3]:
            return "a suit she cannot follow"
        touching = expand(c, k.hand, k.opp_possible)
        if bin(touching).count("1") > 1 and (c & 7) >= 4:
            return "forces out her higher cards with touching honours"
        return "gives her the lead cheaply" if (c & 7) < 4 else "tests the suit"
    led = CARD_OF[trick["cards"][0][0]]
    if c >> 3 == led >> 3:
        return "wins the trick" if c > led else "lets the trick go"
    return "throws from another suit"


def _label(legal: list[Action], code: str) -> str:
    for e in legal:
        if e["type"] == "play" and e["card"] == code:
            return str(e["label"])
    return code


# --------------------------------------------------------------------------- rules


def entry_label(legal: list[Action], action: Action) -> str:
    """The words of the legal entry `action` is (a discard: its cards)."""
    if action["type"] == "discard":
        return discard_label(action["cards"])
    wanted = canonical(action)
    for e in legal:
        if canonical(e) == wanted:
            return str(e["label"])
    return str(action["type"])


def canonical(action: Action) -> Action:
    """An action (or a legal entry) as compared: no label, its cards as a set."""
    return {k: sorted(v) if k == "cards" else v for k, v in action.items() if k != "label"}


def kind_of(view: View, action: Action) -> str:
    """The hint's kind for an action at this view's step."""
    kind = action["type"]
    if kind == "discard":
        return "exchange"
    if kind in ("call", "pass"):
        return "lesser" if view["step"] in ("elder_lesser", "younger_lesser") else "call"
    return str(kind)


def _rule(view: View, legal: list[Action], action: Action) -> dict[str, Any]:
    label = entry_label(legal, action)
    why = rule_why(view, action, label)
    return _hint(kind_of(view, action), [_option(action, label, 0.0, why)])


def rule_why(view: View, action: Action, label: str) -> str:
    """Why the level does this where it follows a rule rather than a search."""
    kind = action["type"]
    category = (view.get("declaring") or {}).get("category")
    if kind == "choose_dealer":
        return ("Deal first: you are then elder, the stronger hand, in the sixth and last "
                "deal, when every point's place counts most" if action["deal"] else label)
    if kind == "carte_blanche":
        return "Announce carte blanche: 10 points at once, the first to count towards thirty"
    if kind == "see":
        return f"{label}: its cards tell you where her cards lie"
    if kind == "next_deal":
        return "Deal the next hand"
    if kind == "discard":
        return f"{throw_words(action['cards'])}: {keeps_words(_hand(view) & ~_cards(action))}"
    if kind == "call":
        combo = Combo(Category.from_word(action["category"]),
                      tuple(sorted((Card.parse(c) for c in action["cards"]),
                                   key=lambda c: c.index)))
        if view["step"] in ("elder_lesser", "younger_lesser"):
            return f"{label}: another {combo.score} in the {category} you have won"
        return f"{label}: your best {category}, {combo.score} if it is good"
    if kind == "pass":
        if view["step"] in ("elder_lesser", "younger_lesser"):
            if any(e["type"] == "call" for e in view["legal"]):
                return ("Done: your lesser tierce would show her where your honour lies and "
                        "that it is unguarded, for 3 points that count for nothing else now")
            return "Done: nothing more to add"
        return f"Nothing: you hold no {category} to call"
    if kind == "answer":
        return _answer_why(view, action["reply"], category)
    return label


def _answer_why(view: View, reply: str, category: str | None) -> str:
    assert category is not None
    mine = best_call(Category.from_word(category), [Card.parse(c) for c in view["hand"]])
    held = mine.label.lower() if mine is not None else f"no {category}"
    if reply == "not_good":
        return f"Not good: your {held} beats it"
    if reply == "equal":
        return f"Equal: your {held} is as good so far"
    return f"Good: your best, {held}, does not beat it"


def _hand(view: View) -> int:
    return mask(CARD_OF[c] for c in view["hand"])


def _cards(action: Action) -> int:
    return mask(CARD_OF[c] for c in action["cards"])
