"""Piquet au cent (RULES.md §8): games of 100 up, the partie to the first to three.

A game's points count in the order they are made: §6's reckoning I–IV category by
category (younger's calls after the lead in their place, before elder's lead point),
then the play card by card. The moment a seat reaches 100 in that order it wins the game
and the deal ends there: nothing after that point is scored. Younger's calls come after
elder's first lead but reckon before it, so a seat's 100 is settled only once nothing
still to be said can come before it; a score made in the meantime that falls after the
winning point is then struck, with a log line saying so.

`to_100(handler)` wraps each step's handler of the rules' flow (engine.rules.flow_for);
`end_deal` ends a deal played to its twelfth trick without a game won.
"""

from __future__ import annotations

from engine.actions import Action
from engine.reckoning import WINS_PARTIE, deal_ends, score_cards
from engine.state import Game, Reckon, Result, ScoreEvent, State, Step
from engine.table import Handler, bonus, goto, log
from engine.variants import DOUBLE_UNDER, GAME_TO, PARTIE_GAMES
from engine.words import Phrase, W, Words

_NOT_SCORED = W("not_scored", "{what} not scored: the game was won before it")
_STRUCK_COMBO = W("struck_combo", "{points} for {what}")
_GAME_WON = W("game_won", "Reaches {to}: wins game {game}, {a} to {b}")
_GAME_WON_DOUBLE = W("game_won_double", "Reaches {to}: wins game {game}, {a} to {b}, "
                     "a double (under {under}): it counts two")
GAMES_TO = W("result.games", "{won} games to {lost}")
# What scored, in words (a call: its label, with its article).
_WHAT = {"lead": W("struck.lead", "the point for the lead"),
         "trick": W("struck.trick", "the points for the trick"),
         "carte_rouge": W("bonus.carte_rouge", "carte rouge"),
         "pique": W("bonus.pique", "pique"), "repique": W("bonus.repique", "repique"),
         "cards": W("bonus.cards", "the cards"), "capot": W("bonus.capot", "capot"),
         "carte_blanche": "bonus.carte_blanche"}

_DECLARED = (Reckon.CARTE_BLANCHE, Reckon.POINT, Reckon.SEQUENCE, Reckon.SET)
_ELDER_DECLARING = (Step.ELDER_CALL, Step.YOUNGER_ANSWER)
_OVER = (Step.CHOOSE_DEALER, Step.DEAL_OVER, Step.PARTIE_OVER)
_EXCHANGE = (Step.ELDER_EXCHANGE, Step.YOUNGER_DISCARD, Step.YOUNGER_EXCHANGE)


def _open_and_unknown(s: State) -> tuple[Reckon | None, set[Reckon]]:
    """The category still being declared (its scores so far are in their place, more may
    follow them), and the categories whose scores are not said yet (younger's after the
    lead): nothing can be placed at or after the first of those yet."""
    if s.reckoned:
        return None, set()
    queue = s.younger_queue
    if s.step in _EXCHANGE:
        return Reckon.POINT, set()
    if s.step in _ELDER_DECLARING:
        from engine.declaring import current_category  # (declaring imports reckoning)
        return Reckon.of(current_category(s)), {Reckon.of(c) for c in queue}
    if s.step is Step.ELDER_LESSER:
        assert s.first_call is not None
        return Reckon.of(s.first_call.category), {Reckon.of(c) for c in queue}
    if s.step is Step.YOUNGER_LESSER:
        return Reckon.of(queue[0]), {Reckon.of(c) for c in queue[1:]}
    return None, {Reckon.of(c) for c in queue}  # the lead, or younger's calls after it


def _repique_after(totals: list[int]) -> int | None:
    """The seat that makes a repique at the end of a category, given I–IV so far."""
    for x in (0, 1):
        if totals[x] >= 30 and totals[1 - x] == 0:
            return x
    return None


def decision(s: State) -> tuple[int, list[int], int | None] | None:
    """Whether a seat has reached 100 at a point of the order that nothing still to be
    said can come before: (the seat, the indices of `s.events` that count, in order, and
    the seat of a repique made on the way and not yet scored), or None."""
    events = s.events
    open_cat, unknown = _open_and_unknown(s)
    base = list(s.game_scores((0, 0)))
    order: list[int | None] = []  # None: the repique not scored yet
    declared = [0, 0]
    repique_seat: int | None = None
    settled_all = True
    placed_repique = next((i for i, e in enumerate(events) if e.what == "repique"), None)
    for r in _DECLARED:
        if r in unknown:
            settled_all = False
            break
        for i, e in enumerate(events):
            if e.reckon is r and e.what != "repique":
                order.append(i)
                declared[e.seat] += e.points
        if r is open_cat:
            settled_all = False
            break
        # The category is over: a repique now, if one (RULES.md §6).
        if repique_seat is None and r is not Reckon.CARTE_BLANCHE:
            x = _repique_after(declared)
            if x is not None:
                repique_seat = x
                order.append(placed_repique)
    if settled_all:
        order += [i for i, e in enumerate(events) if e.reckon not in _DECLARED
                  and e.what != "repique"]
    totals = base
    for k, at in enumerate(order):
        if at is not None:
            seat, points = events[at].seat, events[at].points
        else:
            assert repique_seat is not None
            seat, points = repique_seat, 60
        totals[seat] += points
        if totals[seat] >= GAME_TO:
            kept = [j for j in order[:k + 1] if j is not None]
            new_repique = repique_seat if None in order[:k + 1] else None
            return seat, kept, new_repique
    return None


def to_100(handler: Handler) -> Handler:
    """`handler`, then: if a seat has now reached 100, the game is won there."""

    def played_to_100(s: State, seat: int, a: Action) -> None:
        events, log_len, bonuses = s.events, len(s.log), len(s.bonuses)
        was_reckoned = s.reckoned
        handler(s, seat, a)
        if s.step in _OVER:
            return
        if was_reckoned:
            # In the play every earlier point is settled: only a new score can reach 100.
            if s.events is events:
                return
            base = s.game_scores()
            if base[0] < GAME_TO and base[1] < GAME_TO:
                return
        # (While declaring, a 100 said earlier may become settled with no new score: when
        # younger's last call is told, or a category closes.)
        found = decision(s)
        if found is not None:
            win_game(s, *found, made_from=(len(events), log_len, bonuses))

    return played_to_100


def end_deal(s: State) -> None:
    """The twelfth trick is played: the cards (step VI) unless a seat has reached 100
    already, then the game's end if one reached it, else the sheet and the next deal.
    (When a seat has reached 100, to_100 ends the game after this.)"""
    if decision(s) is not None:
        return
    score_cards(s)
    if decision(s) is not None:
        return
    deal = s.deal_scores()
    s.sheet = (*s.sheet, deal)
    s.sheet_parts = (*s.sheet_parts, s.deal_parts())
    log(s, None, "deal_end", deal_ends(s, deal))
    goto(s, Step.DEAL_OVER, None)


def _strike(s: State, kept: list[int], made_from: tuple[int, int, int]) -> None:
    """Strike every score after the winning point. A bonus made by the action that won
    the game (a pique, a repique, the cards) was never reached: it goes with its line. A
    score said earlier stays in the log, and a line takes it off."""
    first_new, log_from, bonus_from = made_from
    keep = set(kept)
    struck = [(i, e) for i, e in enumerate(s.events) if i not in keep]
    if not struck:
        return
    s.events = tuple(e for i, e in enumerate(s.events) if i in keep)
    for i, e in struck:
        if i >= first_new and e.what in _BONUSES:
            _unsay_bonus(s, e, log_from, bonus_from)
        else:
            log(s, e.seat, "score", {"code": _NOT_SCORED, "what": _words(e)}, -e.points)


_BONUSES = ("pique", "repique", "cards", "capot", "carte_rouge")


def _unsay_bonus(s: State, e: ScoreEvent, log_from: int, bonus_from: int) -> None:
    lines = list(s.log)
    for j in range(len(lines) - 1, log_from - 1, -1):
        x = lines[j]
        if x.kind == "bonus" and x.seat == e.seat and x.points == e.points:
            del lines[j]
            break
    s.log = tuple(lines)
    bonuses = list(s.bonuses)
    for j in range(len(bonuses) - 1, bonus_from - 1, -1):
        if bonuses[j] == (e.seat, e.what, e.points):
            del bonuses[j]
            break
    s.bonuses = tuple(bonuses)


def _words(e: ScoreEvent) -> Phrase:
    code = _WHAT.get(e.what)
    if code is not None or e.combo is None:
        return {"code": code or e.what}
    label = e.combo.label.say  # (the call whole, with its article)
    return {"code": _STRUCK_COMBO, "points": e.points,
            "what": {**label, "code": "the_" + label["code"]}}


def win_game(s: State, winner: int, kept: list[int], repique: int | None,
             made_from: tuple[int, int, int]) -> None:
    """`winner` reached 100: the scores after that point are struck (a repique on the way
    is scored first), the deal and the game end, and the partie if it is won."""
    if repique is not None:
        s.repique_seat = repique
        bonus(s, repique, "repique", 60, Reckon.BONUS, {"code": "repique"})
        kept = [*kept, len(s.events) - 1]
    _strike(s, kept, made_from)
    s.reckoned = s.pique_settled = True
    deal = s.deal_scores()
    scores = s.game_scores(deal)
    s.sheet = (*s.sheet, deal)
    s.sheet_parts = (*s.sheet_parts, s.deal_parts())
    log(s, None, "deal_end", deal_ends(s, deal))
    double = scores[1 - winner] < DOUBLE_UNDER
    number = len(s.games) + 1
    s.games = (*s.games, Game(winner, scores, double, len(s.sheet) - s.game_start))
    s.game_start = len(s.sheet)
    a, b = scores[winner], scores[1 - winner]
    game: Phrase = {"code": _GAME_WON_DOUBLE if double else _GAME_WON, "to": GAME_TO,
                    "game": number, "a": a, "b": b}
    if double:
        game["under"] = DOUBLE_UNDER
    log(s, winner, "game_end", game)
    won = games_won(s)
    if won[winner] >= PARTIE_GAMES:
        x, y = won[winner], won[1 - winner]
        result = {"code": GAMES_TO, "won": x, "lost": y}
        s.result = Result(winner, won, x, False, Words(result))
        log(s, winner, "partie_end", {"code": WINS_PARTIE, "result": result})
        goto(s, Step.PARTIE_OVER, None)
    else:
        goto(s, Step.DEAL_OVER, None)


def games_won(s: State) -> tuple[int, int]:
    """Each seat's games, a double counting two."""
    won = [0, 0]
    for g in s.games:
        won[g.winner] += 2 if g.double else 1
    return (won[0], won[1])

