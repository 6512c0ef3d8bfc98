"""What one seat may see (docs/engine-api.md): the only way state leaves the engine.

Hidden by construction: the opponent's hand and discards, the stock, and the
rest of elder's five (elder only). Combination cards appear only once shown.
"""

from __future__ import annotations

from typing import Any

from engine.rules import legal_json
from engine.state import ComboRecord, State, Step


def view(state: State, seat: int, *, log: bool = True) -> dict[str, Any]:
    """Everything `seat` may see now. `log=False` leaves out the log (a server that sends
    each line once asks `deal_log` for the new lines instead). Cards are written by code
    ("QH"); `CARD_NAMES` names them in words."""
    s = state
    other = 1 - seat
    in_deal = s.deal_number > 0 and s.step is not Step.CHOOSE_DEALER
    deal = s.deal_scores() if in_deal else (0, 0)
    sheet = [list(r) for r in s.sheet]
    if in_deal and s.step not in (Step.DEAL_OVER, Step.PARTIE_OVER):
        sheet.append(list(deal))
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
        "declarations": [{"category": d.category.word, "outcome": d.outcome.word,
                          "said": list(d.said)} for d in s.declarations] if in_deal else [],
        "combos": [_combo(i, r, seat) for i, r in enumerate(s.combos)],
        "shown": [{"seat": x.seat, "what": x.what, "cards": [c.code for c in x.cards]}
                  for x in s.shown],
        "scores": {"deal": list(deal), "sheet": sheet,
                   "partie": list(s.partie_scores(deal if in_deal else None))},
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
            "label": r.combo.label if known else r.public[0].upper() + r.public[1:],
            "points": r.combo.score if r.status == "scored" else 0,
            "status": r.status, "shown": r.shown,
            "cards": [c.code for c in r.combo.cards] if known else None}


def deal_log(state: State, start: int = 0) -> list[dict[str, Any]]:
    """The public log of the current deal (before the first deal: the cut), from line
    `start` of it on; `len(deal_log(state))` counts its lines."""
    return [{"seat": x.seat, "role": x.role, "kind": x.kind, "text": x.text, "points": x.points}
            for x in state.log[start:]]
