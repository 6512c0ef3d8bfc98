"""The hint (issue 26, "Learn at the table"): what the strong level would do now, and why.

`hint(view)` reads one seat's view and nothing else, and returns the strong level's own
decision for it (`engine.computer.strong.choose(view)`, the same action) with its reasons
as JSON-ready data the page can draw:

    {"kind": "exchange" | "carte_blanche" | "call" | "answer" | "lesser" | "see" | "play"
             | "choose_dealer" | "next_deal",
     "action": {...},   # the legal entry without its label, as the page sends it
     "label": "...",    # the entry's words ("Discard 7♣ 8♣ 9♦ 10♦ 7♥" for a discard)
     "why": "...",      # one line
     "label_say": {...}, "why_say": {...},   # the same as phrases (engine.words)
     "options": [{"action", "label", "points", "why", "label_say", "why_say"}, ...]}

`label` and `why` are English; `label_say` and `why_say` are what a page renders in its
reader's language.

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
from engine.combos import Category, Combo, best_call
from engine.computer import good, strong
from engine.computer.knowledge import CARD_OF, CODE_OF, SUIT_MASK, Knowledge, bits, know, mask
from engine.computer.solver import expand
from engine.words import GLYPHS, WN, Phrase, W, card_phrase, english

Action = dict[str, Any]
View = dict[str, Any]

OPTIONS = 3  # the best this many choices, where the level weighed alternatives
EXCHANGE_STEPS = ("elder_exchange", "younger_discard", "younger_exchange")

# The hint's words (engine.words). A discard, and what the hand keeps.
_DISCARD = W("discard_cards", "Discard {cards:short}")
_THROW = W("hint.throw", "Throw {cards:short}: {keeps}")
_THROW_SAME = W("hint.throw_same", "Throw {cards:short}: {keeps}, as good as {other}")
_THROW_OVER = W("hint.throw_over", "Throw {cards:short}: {keeps}; about {gap:+.1f} over {other}")
_PAT = W("hint.stand_pat", "Stand pat: {keeps}")
_PAT_SAME = W("hint.stand_pat_same", "Stand pat: {keeps}, as good as {other}")
_PAT_OVER = W("hint.stand_pat_over", "Stand pat: {keeps}; about {gap:+.1f} over {other}")
_THROWS_SAID = {"": _THROW, "same": _THROW_SAME, "over": _THROW_OVER}
_PAT_SAID = {"": _PAT, "same": _PAT_SAME, "over": _PAT_OVER}
_STAND_PAT = W("stand_pat", "Stand pat")
_KEEPS_SAME = W("hint.keeps_same", "{keeps}; as good as the best")
_KEEPS_WORSE = W("hint.keeps_worse", "{keeps}; about {points:+.1f} against the best")
_KEEPS = W("keeps", "keeps {what:and}")
_KEEPS_HIGH = W("keeps_high", "keeps {cards:short}")
_KEEPS_BEST = W("keeps_best", "keeps its best cards")
_KEEPS_SEQ = W("keeps.seq", "the {n:seq} {top:to} {suit:in}")
_KEEPS_SET = W("keeps.set", "{n:word} {rank:ranks}")
_KEEPS_POINT = W("keeps.point", "{n:word} {suit:suits} for the point")
# How another discard differs from the best.
_TAKING = WN("diff.taking", "taking {n:word}", "taking {n:word}")
_TAKING_THROWING = WN("diff.taking_throwing", "taking {n:word} (throwing {thrown:short})",
                      "taking {n:word} (throwing {thrown:short})")
_TAKING_KEEPING = WN("diff.taking_keeping", "taking {n:word} (keeping {kept:short})",
                     "taking {n:word} (keeping {kept:short})")
_TAKING_BOTH = WN("diff.taking_both",
                  "taking {n:word} (throwing {thrown:short}, keeping {kept:short})",
                  "taking {n:word} (throwing {thrown:short}, keeping {kept:short})")
_THROWING = W("diff.throwing", "throwing {thrown:short} (keeping {kept:short})")
_PAT_KEEPING = W("diff.standing_pat", "standing pat (keeping {kept:short})")
# The play.
_ONLY_CARD = W("hint.only_card", "Play {card:short}: the only card you may play")
_LEAD = W("hint.lead", "Lead {card:short}: {role}")
_PLAY = W("hint.play", "Play {card:short}: {role}")
_BEST = WN("hint.best", "{what}; the best over {n} hands she may hold ({margin})",
           "{what}; the best over {n} hands she may hold ({margin})")
_BEST_SAME = WN("hint.best_same",
                "{what}; the best over {n} hands she may hold ({margin}), as good as "
                "{other:short}",
                "{what}; the best over {n} hands she may hold ({margin}), as good as "
                "{other:short}")
_BEST_OVER = WN("hint.best_over",
                "{what}; the best over {n} hands she may hold ({margin}); about {gap:+.1f} "
                "over {other:short}",
                "{what}; the best over {n} hands she may hold ({margin}); about {gap:+.1f} "
                "over {other:short}")
_PLAY_SAME = W("hint.play_same", "{what}; as good as the best ({margin})")
_PLAY_WORSE = W("hint.play_worse", "{what}; about {points:+.1f} against the best ({margin})")
_MARGIN = W("hint.margin", "on average {mean:+.1f} to you to the end of the deal")
# What a card does here.
_SURE = W("role.sure", "a sure winner")
_VOID = W("role.void", "a suit she cannot follow")
_TOUCHING = W("role.touching", "forces out her higher cards with touching honours")
_CHEAP = W("role.cheap", "gives her the lead cheaply")
_TESTS = W("role.tests", "tests the suit")
_WINS = W("role.wins", "wins the trick")
_LETS_GO = W("role.lets_go", "lets the trick go")
_THROWS = W("role.throws", "throws from another suit")
# Where the level follows a rule.
_DEAL_FIRST = W("why.deal_first", "Deal first: you are then elder, the stronger hand, in the "
                "sixth and last deal, when every point's place counts most")
_ANNOUNCE = W("why.carte_blanche",
              "Announce carte blanche: 10 points at once, the first to count towards thirty")
_SEE = W("why.see", "{label}: its cards tell you where her cards lie")
_NEXT_DEAL = W("why.next_deal", "Deal the next hand")
_DONE_TIERCE = W("why.done_tierce", "Done: your lesser tierce would show her where your honour "
                 "lies and that it is unguarded, for 3 points that count for nothing else now")
_DONE = W("why.done", "Done: nothing more to add")
# By category (their words agree with it in some languages).
_LESSER = {"point": W("why.lesser.point", "{label}: another {points} in the point you have won"),
           "sequence": W("why.lesser.sequence",
                         "{label}: another {points} in the sequence you have won"),
           "set": W("why.lesser.set", "{label}: another {points} in the set you have won")}
_BEST_CALL = {"point": W("why.call.point", "{label}: your best point, {points} if it is good"),
              "sequence": W("why.call.sequence",
                            "{label}: your best sequence, {points} if it is good"),
              "set": W("why.call.set", "{label}: your best set, {points} if it is good")}
_NOTHING = {"point": W("why.nothing.point", "Nothing: you hold no point to call"),
            "sequence": W("why.nothing.sequence", "Nothing: you hold no sequence to call"),
            "set": W("why.nothing.set", "Nothing: you hold no set to call")}
_NO = {"point": W("no.point", "no point"), "sequence": W("no.sequence", "no sequence"),
       "set": W("no.set", "no set")}
_ANSWERS = {"not_good": W("why.not_good", "Not good: your {held} beats it"),
            "equal": W("why.equal", "Equal: your {held} is as good so far"),
            "good": W("why.good", "Good: your best, {held}, does not beat it")}


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


def _option(action: Action, label: Phrase, points: float, why: Phrase) -> dict[str, Any]:
    return {"action": action, "label": english(label), "points": round(min(points, 0.0), 2),
            "why": english(why), "label_say": label, "why_say": why}


def _hint(kind: str, options: list[dict[str, Any]]) -> dict[str, Any]:
    first = options[0]
    return {"kind": kind, "action": first["action"], "label": first["label"],
            "why": first["why"], "label_say": first["label_say"],
            "why_say": first["why_say"], "options": options}


# --------------------------------------------------------------------------- exchange


def discard_action(cards: int) -> Action:
    """A discard (a mask) as strong sends it."""
    return {"type": "discard", "cards": [CODE_OF[c] for c in bits(cards)], "expose": False}


def discard_label(codes: list[str]) -> Phrase:
    """A discard's label: its cards, or standing pat (younger, Piquet au cent)."""
    return {"code": _DISCARD, "cards": list(codes)} if codes else {"code": _STAND_PAT}


def throw_say(codes: list[str], keeps: Phrase, how: str = "", **values: Any) -> Phrase:
    """Throwing `codes` (or standing pat) and what it keeps; `how` "same" or "over" for
    the forms that compare it with another discard (`other`, and `gap` for "over")."""
    code = (_THROWS_SAID if codes else _PAT_SAID)[how]
    return {"code": code, "cards": list(codes), "keeps": keeps, **values}


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
        why: Phrase
        if i == 0:
            why = throw_say(action["cards"], keeps)
            if len(chosen) > 1:
                gap = (total[best] - total[chosen[1]]) / samples
                why = throw_say(action["cards"], keeps, "same" if gap < 0.05 else "over",
                                gap=gap, other=discard_difference(chosen[1], best))
        elif points > -0.05:
            why = {"code": _KEEPS_SAME, "keeps": keeps}
        else:
            why = {"code": _KEEPS_WORSE, "keeps": keeps, "points": points}
        option = _option(action, discard_label(action["cards"]), points, why)
        option["mean"] = round(margin[d] / samples, 2)
        options.append(option)
    return _hint("exchange", options)


def discard_difference(other: int, best: int) -> Phrase:
    """How discard `other` differs from `best`, in words: "throwing J♠ 10♠ (keeping
    7♥ 8♥)", or "taking four (keeping 7♥)"."""
    thrown = [CODE_OF[c] for c in bits(other & ~best)]
    kept = [CODE_OF[c] for c in bits(best & ~other)]
    n, m = bin(other).count("1"), bin(best).count("1")
    if n != m:
        if not n:
            return {"code": _PAT_KEEPING, "kept": kept}
        code = (_TAKING_BOTH if kept else _TAKING_THROWING) if thrown \
            else _TAKING_KEEPING if kept else _TAKING
        return {"code": code, "n": n, "thrown": thrown, "kept": kept}
    return {"code": _THROWING, "thrown": thrown, "kept": kept}


def keeps_words(kept: int) -> Phrase:
    """What a kept hand (a mask) holds worth keeping, in words: its sequences, its sets,
    its longest suit; else its high cards."""
    codes = [CODE_OF[c] for c in bits(kept)]
    cards = [Card.parse(c) for c in codes]
    said: list[Phrase] = []
    for suit in "SHCD":
        run: list[str] = []
        for rank in ("A", "K", "Q", "J", "10", "9", "8", "7", ""):
            if rank and f"{rank}{suit}" in codes:
                run.append(rank)
                continue
            if len(run) >= 3:
                said.append({"code": _KEEPS_SEQ, "n": len(run), "top": run[0], "suit": suit})
            run = []
    for rank in ("A", "K", "Q", "J", "10"):
        n = sum(1 for s in "SHCD" if f"{rank}{s}" in codes)
        if n >= 3:
            said.append({"code": _KEEPS_SET, "n": n, "rank": rank})
    point = best_call(Category.POINT, cards)
    if point is not None and point.length >= 4:
        said.append({"code": _KEEPS_POINT, "n": point.length,
                     "suit": point.cards[0].code[-1]})
    if not said:
        high = [c for c in codes if c[:-1] in ("A", "K")]
        return {"code": _KEEPS_HIGH, "cards": high} if high else {"code": _KEEPS_BEST}
    return {"code": _KEEPS, "what": said}


# --------------------------------------------------------------------------- play


def _play(view: View, legal: list[Action]) -> dict[str, Any]:
    cards = [CARD_OF[e["card"]] for e in legal if e["type"] == "play"]
    if len(cards) == 1:
        code = CODE_OF[cards[0]]
        return _hint("play", [_option({"type": "play", "card": code}, card_phrase(code),
                                      0.0, {"code": _ONLY_CARD, "card": code})])
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
        what = {"code": _LEAD if view["trick"] is None else _PLAY, "card": code,
                "role": {"code": _card_role(view, k, c)}}
        mean = margins[c] / solved
        margin = {"code": _MARGIN, "mean": mean}
        why: Phrase
        if i == 0:
            why = {"code": _BEST, "what": what, "n": solved, "margin": margin}
            if len(chosen) > 1:
                gap = (totals[best] - totals[chosen[1]]) / solved
                why = {**why, "code": _BEST_SAME if gap < 0.05 else _BEST_OVER, "gap": gap,
                       "other": CODE_OF[chosen[1]]}
        elif points > -0.05:
            why = {"code": _PLAY_SAME, "what": what, "margin": margin}
        else:
            why = {"code": _PLAY_WORSE, "what": what, "points": points, "margin": margin}
        option = _option({"type": "play", "card": code}, card_phrase(code), points, why)
        option["mean"] = round(mean, 2)
        options.append(option)
    return _hint("play", options)


def _card_role(view: View, k: Knowledge, c: int) -> str:
    """What a card does here, in a few words (a code)."""
    trick = view["trick"]
    if trick is None:
        if good.sure_winners(k) >> c & 1:
            return _SURE
        if not k.opp_possible & SUIT_MASK[c >> 3]:
            return _VOID
        touching = expand(c, k.hand, k.opp_possible)
        if bin(touching).count("1") > 1 and (c & 7) >= 4:
            return _TOUCHING
        return _CHEAP if (c & 7) < 4 else _TESTS
    led = CARD_OF[trick["cards"][0][0]]
    if c >> 3 == led >> 3:
        return _WINS if c > led else _LETS_GO
    return _THROWS


# --------------------------------------------------------------------------- rules


def entry_say(legal: list[Action], action: Action) -> Phrase:
    """The words of the legal entry `action` is (a discard: its cards; a card: its name),
    as a phrase."""
    if action["type"] == "discard":
        return discard_label(action["cards"])
    if action["type"] == "play":
        return card_phrase(action["card"])
    wanted = canonical(action)
    for e in legal:
        if canonical(e) == wanted:
            say: Phrase = e.get("say") or {"code": str(e["label"])}
            return say
    return {"code": str(action["type"])}


def entry_label(legal: list[Action], action: Action) -> str:
    """`entry_say` in English."""
    return english(entry_say(legal, action))


def canonical(action: Action) -> Action:
    """An action (or a legal entry) as compared: no label, its cards as a set."""
    return {k: sorted(v) if k == "cards" else v for k, v in action.items()
            if k not in ("label", "say")}


def kind_of(view: View, action: Action) -> str:
    """The hint's kind for an action at this view's step."""
    kind = action["type"]
    if kind == "discard":
        return "exchange"
    if kind in ("call", "pass"):
        return "lesser" if view["step"] in ("elder_lesser", "younger_lesser") else "call"
    return str(kind)


def _rule(view: View, legal: list[Action], action: Action) -> dict[str, Any]:
    label = entry_say(legal, action)
    why = rule_why(view, action, label)
    return _hint(kind_of(view, action), [_option(action, label, 0.0, why)])


def rule_why(view: View, action: Action, label: Phrase) -> Phrase:
    """Why the level does this where it follows a rule rather than a search."""
    kind = action["type"]
    category = (view.get("declaring") or {}).get("category")
    lesser = view["step"] in ("elder_lesser", "younger_lesser")
    if kind == "choose_dealer":
        return {"code": _DEAL_FIRST} if action["deal"] else label
    if kind == "carte_blanche":
        return {"code": _ANNOUNCE}
    if kind == "see":
        return {"code": _SEE, "label": label}
    if kind == "next_deal":
        return {"code": _NEXT_DEAL}
    if kind == "discard":
        return throw_say(action["cards"], keeps_words(_hand(view) & ~_cards(action)))
    if kind == "call":
        combo = Combo(Category.from_word(action["category"]),
                      tuple(sorted((Card.parse(c) for c in action["cards"]),
                                   key=lambda c: c.index)))
        codes = _LESSER if lesser else _BEST_CALL
        return {"code": codes[str(category)], "label": label, "points": combo.score}
    if kind == "pass":
        if lesser:
            if any(e["type"] == "call" for e in view["legal"]):
                return {"code": _DONE_TIERCE}
            return {"code": _DONE}
        return {"code": _NOTHING[str(category)]}
    if kind == "answer":
        return _answer_why(view, action["reply"], category)
    return label


def _answer_why(view: View, reply: str, category: str | None) -> Phrase:
    assert category is not None
    mine = best_call(Category.from_word(category), [Card.parse(c) for c in view["hand"]])
    held = mine.label.say if mine is not None else {"code": _NO[category]}
    return {"code": _ANSWERS[reply], "held": held}


def _hand(view: View) -> int:
    return mask(CARD_OF[c] for c in view["hand"])


def _cards(action: Action) -> int:
    return mask(CARD_OF[c] for c in action["cards"])
