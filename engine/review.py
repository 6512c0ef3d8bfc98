"""The review of a deal (issue 26, "Learn at the table"): where the recording seat chose
otherwise than the strong level, and what that cost (docs/record.md, "The review").

    python -m engine.review RECORD.json [--json] [--threshold 0.5]

reads a record (engine.record) and prints the review of each of its deals, then a summary
over the partie; a progress bar over the deals goes to stderr.

What it reads: the record only, which holds what that seat saw, so the review names no
card the seat never saw, and two deals that differ only in such cards (her discards, the
stock nobody saw) get the same review. How each decision is reckoned:

- the play: once the deal is over every card she played has been seen, so at each of the
  seat's plays her remaining hand is known (the cards she plays from there on). The card
  played and the strong level's card are scored exactly by the solver on the true hands
  (with the pique while it is alive, as the strong level reads it), in points for the
  seat less points for her to the end of the deal; the cost is the difference. Exact.
  Under Piquet au cent the race (race.py) scores them, the points counted in their order
  to the 100 that ends the game, and a game won or lost counts 100 points (a double
  200), as the strong level weighs it (`strong.race_for`).
- the exchange: the strong level's own estimate from the seat's view then, over its
  sampled stocks and hands (`strong.exchange_values`), in the deal's points (`_outcome`),
  listed only where its partie measure (`strong.partie_value`) prefers its own discard
  too. About.
- the declarations (a call, an answer, a lesser call, "Nothing", "Done"): over hands she
  may hold, sampled from the view as the strong level samples them, the points the
  category would score each way with both seats calling their best honestly from there
  on (a winner adds his lesser calls); what a call does towards a pique or repique is
  left out. About.

A decision is listed only where the seat chose otherwise than the strong level would
(a discard is compared by its cards) and the cost is above `THRESHOLD` points.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from engine.computer import strong
from engine.computer.advice import canonical, discard_label, entry_say, keeps_words
from engine.computer.knowledge import CARD_OF, PIPS, SUIT_MASK, bits, know, mask, view_rng
from engine.computer.sampler import sample_hands
from engine.words import WN, Phrase, W, english

View = dict[str, Any]
Action = dict[str, Any]
Record = dict[str, Any]

THRESHOLD = 0.5  # points: a smaller cost is not worth telling
DECLARE_SAMPLES = 24  # hands she may hold, for a declaration's estimate
BIGGEST = 3  # the summary names this many of the partie's costliest decisions
_REVIEWED = ("discard", "call", "pass", "answer", "play")
_LESSER = ("elder_lesser", "younger_lesser")

# The review's words (engine.words): a partie's, a deal's, an item's.
_OVER_BIGGEST = WN("review.partie",
                   "Over {n} deal your choices left about {points:.0f} points; the biggest: "
                   "{biggest:semi}",
                   "Over {n} deals your choices left about {points:.0f} points; the biggest: "
                   "{biggest:semi}")
_OVER_SAME = WN("review.partie_same", "Over {n} deal you chose as the strong level would.",
                "Over {n} deals you chose as the strong level would.")
_BIGGEST = W("review.biggest", "deal {deal}, {what}")
_DEAL = W("review.deal", "This deal your choices left about {points:.0f} points: {items:semi}")
_DEAL_SAME = W("review.deal_same", "This deal you chose as the strong level would, or within "
               "{threshold:g} points of it.")
_LEADING = W("review.lead", "trick {trick}, leading {card:the} ({cost}; the strong level "
             "leads {theirs:the})")
_PLAYING = W("review.play", "trick {trick}, playing {card:the} ({cost}; the strong level "
             "plays {theirs:the})")
_EXCHANGE = W("review.exchange", "the exchange, throwing {cards:short} ({cost}; the strong "
              "level throws {theirs:short}: it {keeps})")
_EXCHANGE_PAT = W("review.exchange_pat", "the exchange, standing pat ({cost}; the strong "
                  "level throws {theirs:short}: it {keeps})")
_EXCHANGE_THEIRS_PAT = W("review.exchange_theirs_pat", "the exchange, throwing {cards:short} "
                         "({cost}; the strong level stands pat: it {keeps})")
_MINUS = W("review.minus", "−{cost:.0f}")
_ABOUT = W("review.about", "about −{cost:.0f}")
# A declaration: in a category (`the.X`), what the seat said, the strong level's.
_SAID = {"pass": W("review.saying", "{category}, saying “{mine:cap}” ({cost}; the strong level "
                   "says “{theirs:cap}”)"),
         "lesser": W("review.adding", "{category}, adding “{mine:cap}” ({cost}; the strong level "
                     "says “{theirs:cap}”)"),
         "answer": W("review.answering", "{category}, answering “{mine:cap}” ({cost}; the strong "
                     "level says “{theirs:cap}”)"),
         "call": W("review.calling", "{category}, calling “{mine:cap}” ({cost}; the strong level "
                   "says “{theirs:cap}”)")}
_THE = {"point": W("the.point", "the point"), "sequence": W("the.sequence", "the sequence"),
        "set": W("the.set", "the set")}


def review_record(record: Record, threshold: float = THRESHOLD,
                  each: Callable[[range], Iterable[int]] = iter) -> dict[str, Any]:
    """Every deal's review (`review_deal`) and a summary over the partie: the points left
    in each deal, and the partie's biggest costs. `each` goes over the deals' indices (the
    command line passes a progress bar: the engine itself does no I/O)."""
    deals = [review_deal(record, i, threshold) for i in each(range(len(record["deals"])))]
    items = [item for d in deals for item in d["items"]]
    biggest = sorted(items, key=lambda x: -x["cost"])[:BIGGEST]
    total = sum(d["points_left"] for d in deals)
    say: Phrase
    if biggest:
        say = {"code": _OVER_BIGGEST, "n": len(deals), "points": total,
               "biggest": [{"code": _BIGGEST, "deal": x["deal"], "what": x["say"]}
                           for x in biggest]}
    else:
        say = {"code": _OVER_SAME, "n": len(deals)}
    return {"seat": record["seat"], "deals": deals,
            "summary": {"points_left": round(total, 2),
                        "deals": [{"deal": d["deal"], "index": d["index"],
                                   "points_left": d["points_left"]} for d in deals],
                        "biggest": biggest, "text": english(say), "say": say}}


def review_deal(record: Record, deal_index: int, threshold: float = THRESHOLD) -> dict[str, Any]:
    """The review of deal `record["deals"][deal_index]` for the record's seat:

        {"deal": n, "index": deal_index, "role": "elder" | "younger", "complete": bool,
         "items": [{"deal", "index", "step", "kind", "trick", "you", "strong", "cost",
                    "exact", "text", "say"}, ...],   # in the order of the deal
         "points_left": total cost, "text": "This deal your choices left about ...",
         "say": {...}}

    Each `text` is English, its `say` the same as a phrase (engine.words); `you` and
    `strong` are {"action", "label", "say"}.

    `step` is the item's index in the deal's `steps` (the view before it is the step
    before's, or the deal's first view: the position to show again); `cost` is positive,
    the points the choice left; `exact` for the play, else an estimate. A deal not played
    to its end (`complete` false) has no play items."""
    seat = record["seat"]
    if seat is None:
        raise ValueError("a watcher's record has no decisions to review")
    deals = record["deals"]
    if not 0 <= deal_index < len(deals):
        raise ValueError(f"no deal {deal_index} in this record (it has {len(deals)})")
    deal = deals[deal_index]
    steps = deal["steps"]
    before = _view_before(record, deal_index)
    final = steps[-1]["view"] if steps else before
    complete = len(final["tricks"]) == 12
    items = []
    for j, step in enumerate(steps):
        action = step["action"]
        if step["actor"] == seat and before["to_move"] == seat and action["type"] in _REVIEWED:
            item = _review_step(before, action, final if complete else None)
            if item is not None and item["cost"] > threshold:
                items.append({"deal": deal["number"], "index": deal_index, "step": j, **item})
        before = step["view"]
    total = round(sum(x["cost"] for x in items), 2)
    say: Phrase = {"code": _DEAL, "points": total, "items": [x["say"] for x in items]} \
        if items else {"code": _DEAL_SAME, "threshold": threshold}
    return {"deal": deal["number"], "index": deal_index, "role": final.get("role"),
            "complete": complete, "items": items, "points_left": total, "text": english(say),
            "say": say}


def _view_before(record: Record, deal_index: int) -> View:
    for d in reversed(record["deals"][:deal_index]):
        if d["steps"]:
            return d["steps"][-1]["view"]  # type: ignore[no-any-return]
    return record["start"]  # type: ignore[no-any-return]


def _review_step(view: View, action: Action, final: View | None) -> dict[str, Any] | None:
    """The item for one decision, or None when it is the strong level's own."""
    # The decision as strong makes it, offered nothing else: strong asks first to see
    # what it may see, and the seat may have asked or not; the move is what is reviewed.
    bare = {**view, "legal": [e for e in view["legal"] if e["type"] != "see"]}
    kind = action["type"]
    if kind == "discard":
        return _exchange(bare, action)
    if kind == "play":
        if final is None:
            return None
        return _play(bare, action, final)
    return _declaration(bare, action)


def _same(a: Action, b: Action) -> bool:
    """The same decision: the same entry, cards compared as sets (a discard by its cards
    alone, whether or not it turns up the leftovers)."""
    if a["type"] == "discard" == b["type"]:
        return set(a["cards"]) == set(b["cards"])
    return canonical(a) == canonical(b)


def _item(kind: str, view: View, mine: Action, theirs: Action, cost: float, exact: bool,
          say: Phrase, trick: int | None = None) -> dict[str, Any]:
    return {"kind": kind, "trick": trick,
            "you": _said(entry_say(view["legal"], mine), mine),
            "strong": _said(entry_say(view["legal"], theirs), theirs),
            "cost": round(cost, 2), "exact": exact, "text": english(say, top=False), "say": say}


def _said(say: Phrase, action: Action) -> dict[str, Any]:
    return {"action": action, "label": english(say), "say": say}


# --------------------------------------------------------------------------- play


def _play(view: View, action: Action, final: View) -> dict[str, Any] | None:
    theirs = strong.choose(view)
    if _same(action, theirs):
        return None
    seat = view["seat"]
    done = len(view["tricks"])
    on_table = {c for c, _ in view["trick"]["cards"]} if view["trick"] else set()
    hers = mask(CARD_OF[c] for trick in final["tricks"][done:] for c, who in trick["cards"]
                if who != seat and c not in on_table)
    hand = mask(CARD_OF[c] for c in view["hand"])
    trick = view["trick"]
    led = CARD_OF[trick["cards"][0][0]] if trick else None
    race = strong.race_for(view)  # under au cent: the game ends at 100
    search = strong.solver_for(view) if race is None else race(hers)
    values = search.moves(hand, hers, 0 if led is None else 1, view["tricks_won"][seat], led, 0)

    def value(code: str) -> float:
        return values[strong._rep(CARD_OF[code], hand, hers)]

    cost = value(theirs["card"]) - value(action["card"])
    say = {"code": _LEADING if trick is None else _PLAYING, "trick": done + 1,
           "card": action["card"], "cost": _minus(cost), "theirs": theirs["card"]}
    return _item("play", view, action, theirs, cost, True, say, trick=done + 1)


def _minus(cost: float, about: bool = False) -> Phrase:
    """A cost as the points it left: "−6", "about −3"."""
    return {"code": _ABOUT if about else _MINUS, "cost": cost}


# --------------------------------------------------------------------------- exchange


def _exchange(view: View, action: Action) -> dict[str, Any] | None:
    theirs = strong.choose(view)
    if _same(action, theirs) or theirs["type"] != "discard":
        return None
    mine = mask(CARD_OF[c] for c in action["cards"])
    weighed = {w.discard: w for w in strong.exchange_values(view, view["legal"], extra=(mine,))}
    best = strong.best_discard(list(weighed.values()))  # (`theirs`: the same code picks it)
    if weighed[best].total <= weighed[mine].total:
        return None  # by its own measure the strong level would have done no better
    # The cost in the deal's points, as the play's (what strong weighs with, partie_value,
    # counts a point two or three times over while the partie is close, and the last
    # deal's by the partie's settlement): where it prefers its discard for the partie's
    # sake alone, the points may show no cost, and nothing is listed.
    cost = (weighed[best].points - weighed[mine].points) / strong.EXCHANGE_SAMPLES
    hand = mask(CARD_OF[c] for c in view["hand"])
    code = _EXCHANGE if action["cards"] and theirs["cards"] else \
        _EXCHANGE_PAT if theirs["cards"] else _EXCHANGE_THEIRS_PAT
    say = {"code": code, "cards": action["cards"], "cost": _minus(cost, True),
           "theirs": theirs["cards"], "keeps": keeps_words(hand & ~best)}
    item = _item("exchange", view, action, theirs, cost, False, say)
    item["you"] = _said(discard_label(action["cards"]), action)
    return item


# --------------------------------------------------------------------------- declaring

# A combination as the estimate compares it: (key, score, cards), the key as
# knowledge.best_key writes it ((length, pips), (length, top rank), (count, rank)).
Combo = tuple[tuple[int, int], int, int]


def _combos(category: str, hand: int) -> list[Combo]:
    """Every combination of a category in a hand worth calling: for the point its best
    suit; for sequences each run of three or more; for sets each rank, ten up, held three
    or four times. Best first."""
    out: list[Combo] = []
    if category == "point":
        best: Combo | None = None
        for s in range(4):
            suit = hand & SUIT_MASK[s]
            n = bin(suit).count("1")
            if n:
                pips = sum(PIPS[c] for c in bits(suit))
                if best is None or (n, pips) > best[0]:
                    best = ((n, pips), n, suit)
        return [best] if best else []
    if category == "sequence":
        for s in range(4):
            run = 0
            for r in range(7, -2, -1):
                if r >= 0 and hand >> (8 * s + r) & 1:
                    run += 1
                    continue
                if run >= 3:
                    top = r + run
                    cards = mask(8 * s + top - i for i in range(run))
                    out.append(((run, top), run if run < 5 else run + 10, cards))
                run = 0
    else:
        for r in range(3, 8):
            cards = mask(8 * s + r for s in range(4) if hand >> (8 * s + r) & 1)
            n = bin(cards).count("1")
            if n >= 3:
                out.append(((n, r), 14 if n == 4 else 3, cards))
    out.sort(key=lambda x: x[0], reverse=True)
    return out


def _won(combos: list[Combo], first: Combo) -> int:
    """What a seat that wins a category with `first` scores: it and its lesser calls (the
    other combinations not above it, on other cards)."""
    return first[1] + sum(x[1] for x in combos if x[0] <= first[0] and not x[2] & first[2])


def _call_combo(category: str, cards: list[str]) -> Combo:
    return _combos(category, mask(CARD_OF[c] for c in cards))[0]


def _declaration(view: View, action: Action) -> dict[str, Any] | None:
    theirs = strong.choose(view)
    if _same(action, theirs):
        return None
    step = view["step"]
    category = view["declaring"]["category"]
    hand = mask(CARD_OF[c] for c in view["hand"])
    if step in _LESSER or step == "younger_call":
        cost = _sure(view, theirs, hand, category) - _sure(view, action, hand, category)
    else:
        k = know(view)
        rng = view_rng(view, "review")
        hers = sample_hands(k, DECLARE_SAMPLES, rng)
        cost = sum(_margin(view, theirs, hand, h | k.opp_played, category)
                   - _margin(view, action, hand, h | k.opp_played, category)
                   for h in hers) / len(hers)
    kind = "lesser" if step in _LESSER else "answer" if action["type"] == "answer" else "call"
    say = {"code": _SAID["pass" if action["type"] == "pass" else kind],
           "category": {"code": _THE[category]}, "mine": entry_say(view["legal"], action),
           "cost": _minus(cost, True), "theirs": entry_say(view["legal"], theirs)}
    return _item(kind, view, action, theirs, cost, False, say)


def _sure(view: View, action: Action, hand: int, category: str) -> float:
    """Lesser calls, and younger's call after the lead: the category is hers already
    (or elder called nothing), so what a call scores is certain: it, and the lesser calls
    offered after it."""
    if action["type"] != "call":
        return 0.0
    mine = _combos(category, hand)
    first = _call_combo(category, action["cards"])
    if view["step"] in _LESSER:  # a lesser call now, and then every one left on offer
        offered = [_call_combo(category, e["cards"]) for e in view["legal"]
                   if e["type"] == "call"]
        rest = [x for x in offered if not x[2] & first[2]]
        return first[1] + sum(x[1] for x in _disjoint(rest))
    return _won(mine, first)


def _disjoint(combos: list[Combo]) -> list[Combo]:
    out: list[Combo] = []
    used = 0
    for x in sorted(combos, key=lambda x: x[0], reverse=True):
        if not x[2] & used:
            out.append(x)
            used |= x[2]
    return out


def _margin(view: View, action: Action, hand: int, hers: int, category: str) -> float:
    """My points less hers in `category` after `action`, against her hand `hers` (its
    cards at the declaring), both calling their best honestly from there on."""
    mine = _combos(category, hand)
    theirs = _combos(category, hers)
    best_mine = mine[0] if mine else None
    best_hers = theirs[0] if theirs else None
    if view["step"] == "elder_call":
        if action["type"] == "pass":
            return -_won(theirs, best_hers) if best_hers else 0.0
        call = _call_combo(category, action["cards"])
        if best_hers is None or call[0] > best_hers[0]:
            return _won(mine, call)
        if call[0] == best_hers[0]:
            return 0.0
        return -_won(theirs, best_hers)
    # younger's answer: "good" leaves the category to his call (his best, as strong reads
    # an honest player), "not good" wins it, "equal" goes on to the next stage
    if best_hers is None:  # (no sample makes his call: nothing to weigh)
        return 0.0
    reply = action["reply"]
    if reply == "good":
        return -_won(theirs, best_hers)
    assert best_mine is not None
    if reply == "not_good" or best_mine[0] > best_hers[0]:
        return _won(mine, best_mine)
    if best_mine[0] == best_hers[0]:
        return 0.0
    return -_won(theirs, best_hers)


# --------------------------------------------------------------------------- command line


def lines(review: dict[str, Any]) -> list[str]:
    """The review as text for a terminal."""
    out: list[str] = []
    for d in review["deals"]:
        role = f" (you were {d['role']})" if d.get("role") else ""
        out.append(f"Deal {d['deal']}{role}: {d['text']}")
        for x in d["items"]:
            where = f"trick {x['trick']}" if x["trick"] else x["kind"]
            out.append(f"  step {x['step']:>3} · {where}: you {x['you']['label']!s}, the strong "
                       f"level {x['strong']['label']!s}: {'' if x['exact'] else 'about '}"
                       f"−{x['cost']:.1f}")
        if not d["complete"]:
            out.append("  (the deal was not played to its end: its play is not reviewed)")
    out.append("")
    out.append(review["summary"]["text"])
    for d in review["summary"]["deals"]:
        out.append(f"  deal {d['deal']}: {d['points_left']:.1f} points left")
    return out


def _progress(unit: str, shown: bool) -> Callable[[range], Iterable[int]]:
    """A progress bar on stderr over a range, for the command line (or none)."""
    if not shown:
        return iter
    from tqdm import tqdm

    return functools.partial(tqdm, unit=unit, file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: the only part of this module that reads or writes anything."""
    from engine.record import RecordError, loads

    parser = argparse.ArgumentParser(prog="python -m engine.review", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("record", help="a record of a partie (engine.record's JSON)")
    parser.add_argument("--json", action="store_true", help="print the review as JSON")
    parser.add_argument("--threshold", type=float, default=THRESHOLD,
                        help=f"list only costs above this many points (default {THRESHOLD})")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True,
                        help="a progress bar over the deals on stderr")
    args = parser.parse_args(argv)
    try:
        with open(args.record, encoding="utf-8") as f:
            record = loads(f.read())
    except (OSError, RecordError) as exc:
        print(f"{args.record}: {exc}", file=sys.stderr)
        return 2
    if record["seat"] is None:
        print(f"{args.record}: a watcher's record has no decisions to review", file=sys.stderr)
        return 2
    review = review_record(record, args.threshold, each=_progress("deal", args.progress))
    if args.json:
        print(json.dumps(review, ensure_ascii=False, indent=1))
    else:
        print("\n".join(lines(review)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
