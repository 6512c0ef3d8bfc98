"""What one seat may see (docs/engine-api.md): the only way state leaves the engine.

Hidden by construction: the opponent's hand and discards, the stock, and the
rest of elder's five (elder only). Combination cards appear only once shown.
"""

from __future__ import annotations

from typing import Any

from engine.cards import Card, sort_hand
from engine.combos import Category
from engine.rules import LEFTOVERS, current_category, legal_json
from engine.state import (
    ALL_PARTS,
    ComboRecord,
    Declaration,
    Outcome,
    Phase,
    Shown,
    State,
    Step,
    Trick,
)
from engine.variants import Rules
from engine.words import Words

# What is told at each stage of a call, by category (RULES.md §4): the view's `stage`.
STAGES: dict[Category, tuple[str, ...]] = {
    Category.POINT: ("length", "pips"),
    Category.SEQUENCE: ("length", "top"),
    Category.SET: ("whole",),
}


def view(state: State, seat: int, *, log: bool = True) -> dict[str, Any]:
    """Everything `seat` may see now. `log=False` leaves out the log (a server that sends
    each line once asks `deal_log` for the new lines instead). Cards are written by code
    ("QH"); `CARD_NAMES` names them in words.

    A view is read-only: what both seats see is worked out once per state and shared by
    the two views (and the finished tricks by the views that follow)."""
    s = state
    public = s.view_memo.get("public")
    if public is None:
        public = s.view_memo["public"] = _public(s)
    elder = s.elder
    v: dict[str, Any] = {
        "seat": seat,
        "role": s.role(seat),
        "hand": [c.code for c in s.hands[seat]],
        "discards": [c.code for c in s.discards[seat]],
        "seen_stock": [c.code for c in s.seen_stock] if seat == elder else [],
        "opponent_hand_count": len(s.hands[1 - seat]),
        **public,
        "combos": list(s.derived("combos", s.combos, _combos)[seat]),
        "seen": _seen(s, seat),
    }
    if log:
        v["log"] = deal_log(s)
    v["legal"] = legal_json(s, seat)
    return v


def public_view(state: State, *, log: bool = True) -> dict[str, Any]:
    """What anyone at the table may see, a watcher (who holds no seat): the same keys as a
    seat's view, built from the shared public part only (card backs and counts, what was
    said, shown, turned up and played, the scores), never from a seat's view. `seat` and
    `role` are None, `hand`, `discards`, `seen_stock` and `legal` empty, `hand_counts`
    gives both seats' counts, and a combination is as the other seat heard it until it
    is shown."""
    s = state
    public = s.view_memo.get("public")
    if public is None:
        public = s.view_memo["public"] = _public(s)
    v: dict[str, Any] = {
        "seat": None,
        "role": None,
        "hand": [],
        "discards": [],
        "seen_stock": [],
        "opponent_hand_count": None,
        "hand_counts": [len(s.hands[0]), len(s.hands[1])],
        **public,
        "combos": [_combo(i, r, None) for i, r in enumerate(s.combos)],
        "seen": _seen_by_all(s),
    }
    if log:
        v["log"] = deal_log(s)
    v["legal"] = []
    return v


def _public(s: State) -> dict[str, Any]:
    """The part of the view both seats see alike."""
    in_deal = s.deal_number > 0 and s.step is not Step.CHOOSE_DEALER
    deal = s.deal_scores() if in_deal else (0, 0)
    sheet = [list(r) for r in s.sheet]
    # (Written once per value of the fields they come from, and shared: a view is read-only.)
    sheet_parts = list(s.derived("sheet_parts", s.sheet_parts, _sheet_rows))
    parts = s.derived("parts_json", s.deal_parts(), _parts_rows) if in_deal else [{}, {}]
    if in_deal and s.step not in (Step.DEAL_OVER, Step.PARTIE_OVER):
        sheet.append(list(deal))
        sheet_parts.append(parts)
    return {
        "phase": s.step.phase.word,
        "step": s.step.word,
        "to_move": s.to_move,
        "deal_number": s.deal_number,
        "deals_in_partie": s.deals_in_partie,
        "dealer": s.dealer,
        "elder": s.elder,
        "cut": None if s.cut is None
        else {"cards": [c.code for c in s.cut], "winner": s.cut_winner},
        "stock_count": len(s.stock),
        "exposed_stock": [c.code for c in s.exposed],
        "took": list(s.took),
        "trick": {"leader": s.trick_leader, "cards": [[c.code, p] for c, p in s.trick]}
        if s.trick else None,
        # (The finished tricks are written once per deal's tricks: they never change.)
        "tricks": list(s.derived("tricks", s.tricks, _tricks)),
        "tricks_won": list(s.tricks_won),
        **_dialogue(s, in_deal),
        "shown": [{"seat": x.seat, "what": x.what, "say": x.what.say,
                   "cards": [c.code for c in x.cards]} for x in s.shown],
        "scores": {"deal": list(deal), "sheet": sheet,
                   "partie": list(s.partie_scores(deal if in_deal else None)),
                   "parts": parts, "sheet_parts": sheet_parts},
        "bonuses": [{"seat": b[0], "kind": b[1], "points": b[2]} for b in s.bonuses],
        "result": None if s.result is None else {
            "winner": s.result.winner, "totals": list(s.result.totals),
            "points": s.result.points, "rubiconed": s.result.rubiconed, "text": s.result.text,
            "say": s.result.text.say, "abandoned": s.result.abandoned},
        "rules": s.derived("rules", s.rules, _rules),
        "games": None if s.rules.game != "au_cent" else _games(s, deal if in_deal else None),
    }


def _rules(rules: Rules) -> dict[str, Any]:
    return rules.to_json()


def _games(s: State, deal: tuple[int, int] | None) -> dict[str, Any]:
    """Piquet au cent: the game under way, its scores, the games finished."""
    won = [0, 0]
    for g in s.games:
        won[g.winner] += 2 if g.double else 1
    return {"number": len(s.games) + (0 if s.step is Step.PARTIE_OVER else 1),
            "scores": list(s.game_scores(deal)),
            "won": won,
            "finished": [{"winner": g.winner, "scores": list(g.scores), "double": g.double,
                          "deals": g.deals} for g in s.games],
            "winner": None if s.result is None else s.result.winner}


def _combos(combos: tuple[ComboRecord, ...]) -> tuple[list[dict[str, Any]], ...]:
    """`combos` as each seat sees it (worked out once per combos tuple, and shared)."""
    return tuple([_combo(i, r, seat) for i, r in enumerate(combos)] for seat in (0, 1))


def _combo(i: int, r: ComboRecord, seat: int | None) -> dict[str, Any]:
    # The full words and the cards only to the owner, or once shown; else what was said.
    known = r.shown or r.seat == seat
    label = r.combo.label if known else r.public
    return {"id": i, "seat": r.seat, "category": r.combo.category.word,
            "call": r.combo.told(2 if known else r.told), "label": label, "say": label.say,
            "points": r.combo.score if r.status == "scored" else 0,
            "status": r.status, "shown": r.shown,
            "cards": [c.code for c in r.combo.cards] if known else None}


def deal_log(state: State, start: int = 0) -> list[dict[str, Any]]:
    """The public log of the current deal (before the first deal: the cut), from line
    `start` of it on; `len(deal_log(state))` counts its lines."""
    return [{"seat": x.seat, "role": x.role, "kind": x.kind, "text": x.text, "points": x.points,
             "say": x.say} for x in state.log[start:]]


def _tricks(tricks: tuple[Trick, ...]) -> tuple[dict[str, Any], ...]:
    return tuple({"leader": t.leader, "cards": [[c.code, p] for c, p in t.cards],
                  "winner": t.winner} for t in tricks)


def _played(tricks: tuple[Trick, ...]) -> tuple[str, ...]:
    return tuple(c.code for t in tricks for c, _ in t.cards)


def _sheet_rows(rows: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]) \
        -> tuple[list[dict[str, int]], ...]:
    return tuple([_parts(a), _parts(b)] for a, b in rows)


def _parts_rows(parts: tuple[tuple[int, ...], tuple[int, ...]]) -> list[dict[str, int]]:
    return [_parts(p) for p in parts]


def _parts(row: tuple[int, ...]) -> dict[str, int]:
    """The parts that scored, by name (a part that scored nothing is left out)."""
    return {name: points for name, points in zip(ALL_PARTS, row, strict=True) if points}


_DECLARE = Phase.DECLARE


def _dialogue(s: State, in_deal: bool) -> dict[str, Any]:
    """`declaring` and `declarations`: the same while none of the fields they come from
    changes (all of the tricks), so worked out once for as long."""
    # The step and who is to move matter only while declaring: out of it (the tricks)
    # they change at every card and the dialogue does not.
    talking = s.step if s.step.phase is _DECLARE else None
    sources = (s.declarations, s.younger_queue, s.first_call, talking,
               s.to_move if talking else None, s.dealer, in_deal)
    hit = s.carried.get("dialogue")
    if hit is not None and all(a is b for a, b in zip(hit[0], sources, strict=True)):
        return hit[1]  # type: ignore[no-any-return]
    value = {"declaring": _declaring(s),
             "declarations": [_declaration(s, d) for d in s.declarations] if in_deal else []}
    s.carried["dialogue"] = (sources, value)
    return value


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
    """One category's dialogue, in words (`said`, English; `says`, by seat, phrases) and as
    data, as far as it was said."""
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
    dealer = s.dealer
    return {"category": d.category.word, "outcome": d.outcome.word,
            "said": [("Younger: " if seat == dealer else "Elder: ") + Words(said)
                     for seat, said in d.said],
            "says": [{"seat": seat, "say": said} for seat, said in d.said],
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
    played = list(s.derived("played", s.tricks, _played))
    if s.trick:
        played += [c.code for c, _ in s.trick]
    return {"discards": [c.code for c in s.discards[seat]],
            "rest_of_five": [c.code for c in s.seen_stock] if seat == s.elder else [],
            "exposed": [c.code for c in s.exposed],
            "shown": list(s.derived("shown_to", s.shown, _shown_to)[seat]),
            "played": played}


def _shown_to(shown: tuple[Shown, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """For each seat, the other seat's cards laid face up (its leftovers apart: those
    are `exposed`)."""
    by_seat: tuple[set[Card], set[Card]] = (set(), set())
    for x in shown:
        if x.what != LEFTOVERS:
            by_seat[x.seat].update(x.cards)
    return (tuple(_codes(by_seat[1])), tuple(_codes(by_seat[0])))


def _seen_by_all(s: State) -> dict[str, list[str]]:
    """`seen` for a watcher: what was laid face up (by either seat) and played."""
    played = list(s.derived("played", s.tricks, _played))
    if s.trick:
        played += [c.code for c, _ in s.trick]
    shown = _codes({c for x in s.shown if x.what != LEFTOVERS for c in x.cards})
    return {"discards": [], "rest_of_five": [], "exposed": [c.code for c in s.exposed],
            "shown": shown, "played": played}
