"""The partie and its reckoning (RULES.md §5–7): pique and repique in Law 67's order,
the cards and capot at the end of a deal, the score sheet, the partie's end and the
Rubicon settlement."""

from __future__ import annotations

from collections.abc import Sequence

from engine.state import Reckon, Result, State, Step
from engine.table import bonus, goto, log
from engine.variants import RUBICON, Rules
from engine.words import Phrase, W, Words

_REPIQUE = {"code": W("repique", "Repique! 60 more")}
_PIQUE = {"code": W("pique", "Pique! 30 more")}
_CARTE_ROUGE = {"code": W("carte_rouge",
                          "Carte rouge! 20 more: all twelve cards scored in combinations")}
_CAPOT = {"code": W("capot", "Capot! 40 for winning every trick")}
_CAPOT_MORE = {"code": W("capot_more", "Capot! 30 more for winning every trick")}
_WINS_CARDS = W("wins_cards", "Wins the cards, {won} tricks to {lost}: 10")
_SIX_EACH = {"code": W("six_each", "Six tricks each: nobody scores for the cards")}
DEAL_ENDS = W("deal_ends", "Deal {deal} ends {a} to {b}")
_LEVEL = (W("level.one_more", "Level at {total}: one more deal"),
          W("level.two_more", "Level at {total}: two more deals"))
_DRAW = W("result.draw", "{a} to {b}: a draw")
_DIFFERENCE = W("result.difference", "{won} − {lost} + 100 = {points}")
_RUBICONED = W("result.rubiconed", "{won} + {lost} + 100 = {points}, rubiconed")
_DRAWN = {"code": W("partie_drawn", "The partie is drawn")}
WINS_PARTIE = W("wins_partie", "Wins the partie: {result}")


def deal_ends(s: State, deal: tuple[int, int]) -> Phrase:
    return {"code": DEAL_ENDS, "deal": s.deal_number, "a": deal[0], "b": deal[1]}

PARTIE_DEALS = 6
TIE_DEALS = 8


def reckon_repique(s: State) -> None:
    """Law 67: steps I–IV category by category; 30 first with the other at nothing.
    Carte rouge, when played, is scored first: it reckons after the sets (RULES.md §8)."""
    s.reckoned = True
    if s.rules.carte_rouge:
        carte_rouge(s)
    totals = [0, 0]
    for reckon in (Reckon.CARTE_BLANCHE, Reckon.POINT, Reckon.SEQUENCE, Reckon.SET):
        for e in s.events:
            if e.reckon is reckon:
                totals[e.seat] += e.points
        for seat in (0, 1):
            if totals[seat] >= 30 and totals[1 - seat] == 0:
                s.repique_seat = seat
                bonus(s, seat, "repique", 60, Reckon.BONUS, _REPIQUE)
                return


def carte_rouge(s: State) -> None:
    """+20 to a seat every one of whose twelve cards is in a combination that scored for
    it (RULES.md §8): its hand after the exchange, elder's first lead included (younger
    calls after it)."""
    for seat in (0, 1):
        counted = {c for r in s.combos if r.seat == seat and r.status == "scored"
                   for c in r.combo.cards}
        twelve = {*s.hands[seat], *(c for c, p in s.trick if p == seat),
                  *(c for t in s.tricks for c, p in t.cards if p == seat)}
        if len(twelve) == 12 and counted.issuperset(twelve):
            bonus(s, seat, "carte_rouge", 20, Reckon.SET, _CARTE_ROUGE)


def check_pique(s: State) -> None:
    """30 within I–V while the other has scored nothing at all (only elder can)."""
    if not s.reckoned or s.pique_settled or s.repique_seat is not None:
        return
    totals = [0, 0]
    play = Reckon.PLAY
    for e in s.events:
        if e.reckon <= play:
            totals[e.seat] += e.points
    if totals[0] and totals[1]:
        s.pique_settled = True  # both have scored: no pique is possible any more this deal
        return
    for seat in (0, 1):
        if totals[seat] >= 30 and totals[1 - seat] == 0:
            s.pique_settled = True
            bonus(s, seat, "pique", 30, Reckon.BONUS, _PIQUE)


def score_cards(s: State) -> None:
    """Step VI: the cards (more than six tricks) 10, or capot 40. With the cards towards
    pique the 10 was scored at the seventh trick, and capot adds 30 to it."""
    won = s.tricks_won
    for seat in (0, 1):
        if won[seat] == 12:
            if s.rules.cards_towards_pique:
                bonus(s, seat, "capot", 30, Reckon.CARDS, _CAPOT_MORE)
            else:
                bonus(s, seat, "capot", 40, Reckon.CARDS, _CAPOT)
        elif won[seat] > 6 and not s.rules.cards_towards_pique:
            bonus(s, seat, "cards", 10, Reckon.CARDS,
                  {"code": _WINS_CARDS, "won": won[seat], "lost": won[1 - seat]})
    if won == (6, 6):
        log(s, None, "deal_end", _SIX_EACH)


def end_deal(s: State) -> None:
    """The end of a deal of Rubicon Piquet: the cards, the sheet, the partie's end after
    six deals (RULES.md §7)."""
    score_cards(s)
    deal = s.deal_scores()
    s.sheet = (*s.sheet, deal)
    s.sheet_parts = (*s.sheet_parts, s.deal_parts())
    log(s, None, "deal_end", deal_ends(s, deal))
    totals = (sum(r[0] for r in s.sheet), sum(r[1] for r in s.sheet))
    if s.deal_number == s.deals_in_partie:
        if totals[0] == totals[1] and s.deals_in_partie == PARTIE_DEALS:
            # Level after six: two more deals, both played (RULES.md §7); one more under
            # the one-more-deal rule (§8).
            s.deals_in_partie = s.rules.tie_deals
            one_more = s.deals_in_partie == PARTIE_DEALS + 1
            log(s, None, "deal_end", {"code": _LEVEL[0 if one_more else 1], "total": totals[0]})
        else:
            _end_partie(s, totals)
            return
    goto(s, Step.DEAL_OVER, None)


def rubicon(totals: tuple[int, int]) -> Result:
    """The Rubicon settlement of a partie's totals (seat 0, seat 1), RULES.md §7.

    The higher total wins. If the loser has 100 or more, the winner scores the
    difference + 100 (120 v 101 -> 119); if under 100 (rubiconed), both totals added
    + 100 (120 v 99 -> 319), whether or not the winner reached 100. Level: a draw,
    `winner` None and 0 points."""
    a, b = totals
    if a == b:
        return Result(None, totals, 0, False, Words({"code": _DRAW, "a": a, "b": b}))
    winner = 0 if a > b else 1
    w, lo = max(a, b), min(a, b)
    if lo >= 100:
        points = w - lo + 100
        return Result(winner, totals, points, False,
                      Words({"code": _DIFFERENCE, "won": w, "lost": lo, "points": points}))
    points = w + lo + 100
    return Result(winner, totals, points, True,
                  Words({"code": _RUBICONED, "won": w, "lost": lo, "points": points}))


def partie_result(deals: Sequence[tuple[int, int]], rules: Rules = RUBICON) -> Result:
    """A partie's settlement from its deals' scores (seat 0, seat 1), six deals or, when
    level after six, eight (seven under the one-more-deal rule) (RULES.md §7, §8): the
    Rubicon on the totals (see `rubicon`). ValueError for any other number of deals, and
    for Piquet au cent (its partie is games, not totals)."""
    if rules.game != "rubicon":
        raise ValueError("a partie of Piquet au cent is settled by games, not by totals")
    tie = rules.tie_deals
    more = "one more deal is" if tie == PARTIE_DEALS + 1 else "two more deals are"
    rows = [(int(a), int(b)) for a, b in deals]
    totals = (sum(r[0] for r in rows), sum(r[1] for r in rows))
    after_six = (sum(r[0] for r in rows[:PARTIE_DEALS]), sum(r[1] for r in rows[:PARTIE_DEALS]))
    if len(rows) == PARTIE_DEALS and after_six[0] == after_six[1]:
        raise ValueError(f"level at {after_six[0]} after six deals: {more} played")
    if len(rows) == tie and after_six[0] != after_six[1]:
        raise ValueError(f"{after_six[0]} to {after_six[1]} after six deals: the partie was over")
    if len(rows) not in (PARTIE_DEALS, tie):
        words = "seven" if tie == PARTIE_DEALS + 1 else "eight"
        raise ValueError(f"a partie is six deals ({words} when level after six), "
                         f"not {len(rows)}")
    return rubicon(totals)


def _end_partie(s: State, totals: tuple[int, int]) -> None:
    s.result = rubicon(totals)
    log(s, s.result.winner, "partie_end", _DRAWN if s.result.winner is None
        else {"code": WINS_PARTIE, "result": s.result.text.say})
    goto(s, Step.PARTIE_OVER, None)
