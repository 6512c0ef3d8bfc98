"""What one seat may see (docs/engine-api.md): the only way state leaves the engine.

Hidden by construction: the opponent's hand and discards, the stock, and the
rest of elder's five (elder only). Combination cards appear only once shown.
"""

from __future__ import annotations

from typing import Any

from engine.cards import Card, sort_hand
from engine.combos import Category
from engine.rules import LEFTOVERS, current_category, legal_json
from engine.state import PARTS, ComboRecord, Declaration, Outcome, State, Step

# What is told at each stage of a call, by category (RULES.md §4): the view's `stage`.
STAGES: dict[Category, tuple[str, ...]] = {
    Category.POINT: ("length", "pips"),
    Category.SEQUENCE: ("length", "top"),
    Category.SET: ("whole",),
}
_ZERO_PARTS = (0,) * len(PARTS)


def view(state: State, seat: int, *, log: bool = True) -> dict[str, Any]:
    """Everything `seat` may see now. `log=False` leaves out the log (a server that sends
    each line once asks `deal_log` for the new lines instead). Cards are written by code
    ("QH"); `CARD_NAMES` names them in words."""
    s = state
    other = 1 - seat
    in_deal = s.deal_number > 0 and s.step is not Step.CHOOSE_DEALER
    deal = s.deal_scores() if in_deal else (0, 0)
    sheet = [list(r) for r in s.sheet]
    sheet_parts = [[_parts(a), _parts(b)] for a, b in s.sheet_parts]
    parts = s.deal_parts() if in_deal else (_ZERO_PARTS, _ZERO_PARTS)
    if in_deal and s.step not in (Step.DEAL_OVER, Step.PARTIE_OVER):
        sheet.append(list(deal))
        sheet_parts.append([_parts(parts[0]), _parts(parts[1])])
    elder = s.elder
    v: dict[str, Any] = {
        "seat": seat,
        "phase": s.step.phase.word,
        "step": s.step.word,
        "to_move": s.to_move,
        "deal_number": s.deal_number,
        "deals_in_partie": s.deals_in_partie,
        "dealer": s.dealer,
        "elder": elder,
        "role": s.role(seat),
        "cut": None if s.cut is None
        else {"cards": [c.code for c in s.cut], "winner": s.cut_winner},
        "hand": [c.code for c in s.hands[seat]],
        "discards": [c.code for c in s.discards[seat]],
        "seen_stock": [c.code for c in s.seen_stock] if seat == elder else [],
        "opponent_hand_count": len(s.hands[other]),
        "stock_count": len(s.stock),
        "exposed_stock": [c.code for c in s.exposed],
        "took": list(s.took),
        "trick": {"leader": s.trick_leader, "cards": [[c.code, p] for c, p in s.trick]}
        if s.trick else None,
        "tricks": [{"leader": t.leader, "cards": [[c.code, p] for c, p in t.cards],
                    "winner": t.winner} for t in s.tricks],
        "tricks_won": list(s.tricks_won),
        "declaring": _declaring(s),
        "declarations": [_declaration(s, d) for d in s.declarations] if in_deal else [],
        "combos": [_combo(i, r, seat) for i, r in enumerate(s.combos)],
        "shown": [{"seat": x.seat, "what": x.what, "cards": [c.code for c in x.cards]}
                  for x in s.shown],
        "scores": {"deal": list(deal), "sheet": sheet,
                   "partie": list(s.partie_scores(deal if in_deal else None)),
                   "parts": [_parts(parts[0]), _parts(parts[1])], "sheet_parts": sheet_parts},
        "seen": _seen(s, seat),
        "bonuses": [{"seat": b[0], "kind": b[1], "points": b[2]} for b in s.bonuses],
        "result": None if s.result is None else {
            "winner": s.result.winner, "totals": list(s.result.totals),
            "points": s.result.points, "rubiconed": s.result.rubiconed, "text": s.result.text},
    }
    if log:
        v["log"] = deal_log(s)
    v["legal"] = legal_json(s, seat)
    return v


def _combo(i: int, r: ComboRecord, seat: int) -> dict[str, Any]:
    # The full words and the cards only to the owner, or once shown; else what was said.
    known = r.shown or r.seat == seat
    return {"id": i, "seat": r.seat, "category": r.combo.category.word,
            "call": r.combo.told(2 if known else r.told),
            "label": r.combo.label if known else r.public[0].upper() + r.public[1:],
            "points": r.combo.score if r.status == "scored" else 0,
            "status": r.status, "shown": r.shown,
            "cards": [c.code for c in r.combo.cards] if known else None}


def deal_log(state: State, start: int = 0) -> list[dict[str, Any]]:
    """The public log of the current deal (before the first deal: the cut), from line
    `start` of it on; `len(deal_log(state))` counts its lines."""
    return [{"seat": x.seat, "role": x.role, "kind": x.kind, "text": x.text, "points": x.points}
            for x in state.log[start:]]


def _parts(row: tuple[int, ...]) -> dict[str, int]:
    return dict(zip(PARTS, row, strict=True))


def _declaring(s: State) -> dict[str, Any] | None:
    """The category being declared now and what is being told or answered in it."""
    step = s.step
    if step is Step.ELDER_CALL or step is Step.YOUNGER_ANSWER:
        category = current_category(s)
        d = s.declarations[category]
        stage = STAGES[category][d.stage if step is Step.YOUNGER_ANSWER else 0]
    elif step is Step.ELDER_LESSER or step is Step.YOUNGER_LESSER:
        assert s.first_call is not None
        category, stage = s.first_call.category, "lesser"
    elif step is Step.YOUNGER_CALL:
        category = s.younger_queue[0]
        d = s.declarations[category]
        stage = STAGES[category][-1 if d.younger_beat_stage == 1 else 0]
    else:
        return None
    return {"category": category.word, "stage": stage}


def _declaration(s: State, d: Declaration) -> dict[str, Any]:
    """One category's dialogue, in words (`said`) and as data, as far as it was said."""
    e = d.elder_call
    y = d.younger_call
    to_speak: int | None = None
    owed: str | None = None
    if s.first_call is not None and s.first_call.category is d.category and (
            s.step is Step.ELDER_LESSER or s.step is Step.YOUNGER_LESSER):
        to_speak, owed = s.to_move, "lesser"
    elif d.category in s.younger_queue:
        to_speak, owed = s.younger, "call"
    elif d.outcome is Outcome.PENDING:
        if e is not None:
            to_speak, owed = s.younger, "answer"
        else:
            to_speak, owed = s.elder, "call"
    return {"category": d.category.word, "outcome": d.outcome.word, "said": list(d.said),
            "elder_call": None if e is None else e.told(d.stage + 1),
            "elder_nothing": d.elder_nothing, "answers": list(d.answers),
            "younger_call": None if y is None else y.told(d.younger_told),
            "younger_nothing": d.younger_nothing,
            "lesser": [c.told(1) for c in d.lesser],
            "to_speak": to_speak, "owed": owed}


def _codes(cards: Any) -> list[str]:
    return [c.code for c in sort_hand(cards)]


def _seen(s: State, seat: int) -> dict[str, list[str]]:
    """Every card this seat has seen this deal beyond its hand, grouped by how: its own
    discards, the rest of its five (elder), younger's leftovers turned up, the other
    seat's cards laid face up (carte blanche, combinations shown), every card played."""
    other = 1 - seat
    shown: set[Card] = set()
    for x in s.shown:
        if x.seat == other and x.what != LEFTOVERS:  # (those are `exposed`)
            shown.update(x.cards)
    played: list[Card] = [c for t in s.tricks for c, _ in t.cards]
    played.extend(c for c, _ in s.trick)
    return {"discards": [c.code for c in s.discards[seat]],
            "rest_of_five": [c.code for c in s.seen_stock] if seat == s.elder else [],
            "exposed": [c.code for c in s.exposed],
            "shown": _codes(shown),
            "played": _codes(played)}



