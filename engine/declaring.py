"""Declaring and sinking (RULES.md §4): point, then sequence, then set; elder calls,
younger answers good, not good or equal stage by stage; the winner's lesser calls;
younger's calls after elder's first lead (Law 46); equal cancels (Law 63)."""

from __future__ import annotations

from collections.abc import Sequence

from engine.actions import Action, Answer, Call, Pass
from engine.cards import Card
from engine.combos import Category, Combo, natural_calls
from engine.reckoning import check_pique, reckon_repique
from engine.state import ComboRecord, Declaration, Outcome, Reckon, State, Step
from engine.table import Legal, decl, elder_seat, goto, log, say, score, set_decl, younger_seat
from engine.words import WN, Phrase, W, Words

_SAY_NOTHING = {"code": W("nothing", "Nothing")}
# Younger's answers, as said (the view's `answers` keeps the reply's word).
REPLIES: dict[str, Phrase] = {"good": {"code": W("good", "Good")},
                              "not_good": {"code": W("not_good", "Not good")},
                              "equal": {"code": W("equal", "Equal")}}
# The entries that are the same every time, made once.
_NOTHING: Legal = (Pass(), Words(_SAY_NOTHING))
_DONE: Legal = (Pass(), Words({"code": W("done", "Done")}))
_GOOD: Legal = (Answer("good"), Words(REPLIES["good"]))
_NOT_GOOD: Legal = (Answer("not_good"), Words(REPLIES["not_good"]))
_EQUAL: Legal = (Answer("equal"), Words(REPLIES["equal"]))
_EQUAL_IN = W("equal_in", "Equal: {what} {suit:in}")
_LEAVES_UP = WN("leaves_up", "Leaves {n:word}, to be turned up after the first lead",
                "Leaves {n:word}, to be turned up after the first lead")
_SCORES_FOR = W("scores_for", "Scores {points} for {what}")
# Equal at the last stage: nobody scores the category.
_EQUAL_NOBODY = (W("equal_nobody.point", "Equal: nobody scores for point"),
                 W("equal_nobody.sequence", "Equal: nobody scores for sequence"),
                 W("equal_nobody.set", "Equal: nobody scores for set"))
_AND = W("and_also", "And {what}")


def _entry(c: Combo) -> Legal:
    """A call's legal entry, made once per Combo (see Combo.entry)."""
    entry: Legal = (Call(c.category, c.cards), c.label)
    object.__setattr__(c, "entry", entry)
    return entry


def current_category(s: State) -> Category:
    for d in s.declarations:
        if d.outcome is Outcome.PENDING and d.category not in s.younger_queue:
            return d.category
    return Category.SET


def legal_elder_call(s: State, seat: int) -> list[Legal]:
    d = decl(s, current_category(s))
    out: list[Legal] = [c.entry or _entry(c) for c in natural_calls(d.category, s.hands[seat])]
    out.append(_NOTHING)
    return out


def legal_answer(s: State, seat: int) -> list[Legal]:
    d = decl(s, current_category(s))
    assert d.elder_call is not None
    out: list[Legal] = [_GOOD]
    better, equal = _can_beat_or_equal(d, s.hands[seat])
    if better:
        out.append(_NOT_GOOD)
    if equal and d.stage + 1 < d.category.stages:
        out.append(_EQUAL)
    elif equal:
        # At the last stage, one "Equal" per equal call she holds, naming it: which one
        # she ties with (and may be asked to show) is her choice. The engine choosing
        # (the first in suit order) told elder, once it was shown, that she held no
        # equal call in an earlier suit.
        out.extend(_equal_entry(y) for y in _equal_calls(d, s.hands[seat]))
    return out


def _equal_entry(y: Combo) -> Legal:
    return (Answer("equal", y.cards),
            Words({"code": _EQUAL_IN, "what": y.label.say, "suit": y.cards[0].suit.letter}))


def plain_equal(s: State, seat: int, a: Answer) -> Answer:
    """A bare "equal" at a call's last stage, as the table took it before the answer named
    its call (and as stored parties hold it): her first equal call in the hand's order.
    Never offered in `legal`; kept so that a partie recorded then replays the same."""
    if s.step is not Step.YOUNGER_ANSWER or a.reply != "equal" or a.cards:
        return a
    d = decl(s, current_category(s))
    if d.elder_call is None or d.stage + 1 < d.category.stages:
        return a
    ties = _equal_calls(d, s.hands[seat])
    return Answer("equal", ties[0].cards) if ties else a


def legal_lesser(s: State, seat: int) -> list[Legal]:
    out: list[Legal] = [c.entry or _entry(c) for c in _lesser_calls(s, seat)]
    out.append(_DONE)
    return out


def legal_younger_call(s: State, seat: int) -> list[Legal]:
    category = s.younger_queue[0]
    d = decl(s, category)
    out: list[Legal] = [c.entry or _entry(c)
                        for c in _younger_first_calls(d, s.hands[seat])]
    if d.outcome is not Outcome.YOUNGER:  # elder called nothing: she may sink too
        out.append(_NOTHING)
    return out


def start_declaring(s: State) -> None:
    if s.stock and s.expose:
        log(s, younger_seat(s), "exchange", {"code": _LEAVES_UP, "n": len(s.stock)})
    goto(s, Step.ELDER_CALL, elder_seat(s))


def on_elder_call(s: State, seat: int, a: Action) -> None:
    d = decl(s, current_category(s))
    if isinstance(a, Pass):
        set_decl(s, d._replace(elder_nothing=True))
        say(s, d.category, seat, "call", _SAY_NOTHING)
        # The category is younger's to call after the lead, or to say "Nothing" in, whether
        # or not she holds anything: settling it now, for some hands only, would tell elder
        # that she has nothing to call (DESIGN.md, noninterference).
        s.younger_queue = (*s.younger_queue, d.category)
        _next_elder_category(s)
        return
    assert isinstance(a, Call)
    combo = Combo(a.category, a.cards)
    set_decl(s, d._replace(elder_call=combo, stage=0))
    say(s, d.category, seat, "call", combo.stage_words(0))
    goto(s, Step.YOUNGER_ANSWER, younger_seat(s))


def on_answer(s: State, seat: int, a: Action) -> None:
    assert isinstance(a, Answer)
    d = decl(s, current_category(s))
    e = d.elder_call
    assert e is not None
    elder = elder_seat(s)
    set_decl(s, d._replace(answers=(*d.answers, a.reply)))
    say(s, d.category, seat, "answer", REPLIES[a.reply])
    if a.reply == "good":
        set_decl(s, decl(s, d.category)._replace(outcome=Outcome.ELDER))
        log(s, elder, "score",
            {"code": _SCORES_FOR, "points": e.score, "what": e.the(d.stage + 1)}, e.score)
        _win_first_call(s, elder, e, d.stage + 1, Step.ELDER_LESSER)
    elif a.reply == "not_good":
        set_decl(s, decl(s, d.category)._replace(outcome=Outcome.YOUNGER,
                             younger_beat_stage=d.stage))
        s.younger_queue = (*s.younger_queue, d.category)
        _next_elder_category(s)
    elif d.stage + 1 < d.category.stages:
        set_decl(s, decl(s, d.category)._replace(stage=d.stage + 1))
        say(s, d.category, elder, "call", e.stage_words(d.stage + 1))
        goto(s, Step.YOUNGER_ANSWER, seat)
    else:
        # Equal at the last stage: nobody scores the category (for sequences, equal
        # best sequences cancel every sequence, Law 63). Both calls may be seen: hers
        # is the one her answer named.
        tie = Combo(d.category, a.cards)
        set_decl(s, decl(s, d.category)._replace(outcome=Outcome.EQUAL))
        s.combos = (*s.combos, ComboRecord(elder, e, "tied", e.words("public", 2)),
                    ComboRecord(seat, tie, "tied", tie.words("public", 2)))
        log(s, None, "score", {"code": _EQUAL_NOBODY[d.category]})
        _next_elder_category(s)


def on_lesser(s: State, seat: int, a: Action) -> None:
    elder_side = s.step is Step.ELDER_LESSER
    if isinstance(a, Pass):
        if elder_side:
            _next_elder_category(s)
        else:
            _next_younger_category(s)
        return
    assert isinstance(a, Call)
    combo = Combo(a.category, a.cards)
    d = decl(s, combo.category)
    set_decl(s, d._replace(lesser=(*d.lesser, combo)))
    _record_scored(s, seat, combo, 1)
    s.called_cards = s.called_cards | set(combo.cards)
    say(s, combo.category, seat, "call", {"code": _AND, "what": combo.said(1)}, combo.score)
    # The step stays until "Done", even with nothing left to call (see _win_first_call).


def on_younger_call(s: State, seat: int, a: Action) -> None:
    category = s.younger_queue[0]
    if isinstance(a, Pass):
        say(s, category, seat, "call", _SAY_NOTHING)
        set_decl(s, decl(s, category)._replace(outcome=Outcome.NONE, younger_nothing=True))
        _next_younger_category(s)
        return
    assert isinstance(a, Call)
    combo = Combo(a.category, a.cards)
    d = decl(s, category)
    # She tells as much as beating elder's call took: the length, or the second stage too.
    stages = 2 if d.younger_beat_stage == 1 else 1
    set_decl(s, d._replace(outcome=Outcome.YOUNGER, younger_call=combo, younger_told=stages))
    say(s, category, seat, "call", combo.said(stages), combo.score)
    _win_first_call(s, seat, combo, stages, Step.YOUNGER_LESSER)


def _can_beat_or_equal(d: Declaration, hand: Sequence[Card]) -> tuple[bool, bool]:
    """Could younger call something better / equal at this stage? (RULES.md §4, Law 46)."""
    e = d.elder_call
    assert e is not None
    better = equal = False
    stage = d.stage
    ek = e.stage_keys[stage]
    may_equal = d.category is not Category.SET
    for y in natural_calls(d.category, hand):
        if stage == 1 and y.key[0] != e.key[0]:
            continue  # having said "equal" to the length, she is held to it
        yk = y.stage_keys[stage]
        if yk > ek:
            better = True
        elif yk == ek and may_equal:
            equal = True
    return better, equal


def _equal_calls(d: Declaration, hand: Sequence[Card]) -> list[Combo]:
    """Younger's calls equal to elder's at the last stage, in the hand's order."""
    e = d.elder_call
    assert e is not None
    return [y for y in natural_calls(d.category, hand) if y.key == e.key]


def _younger_first_calls(d: Declaration, hand: Sequence[Card]) -> list[Combo]:
    calls = natural_calls(d.category, hand)
    if d.outcome is not Outcome.YOUNGER:
        return list(calls)  # elder called nothing
    e = d.elder_call
    assert e is not None and d.younger_beat_stage is not None
    if d.younger_beat_stage == 0:
        ek = e.stage_keys[0]
        return [y for y in calls if y.stage_keys[0] > ek]
    return [y for y in calls if y.key[0] == e.key[0] and y.key[1] > e.key[1]]


def _lesser_calls(s: State, seat: int) -> list[Combo]:
    """Further calls in a won category: not above the first call, on cards not yet called."""
    first = s.first_call
    assert first is not None
    return [c for c in natural_calls(first.category, s.hands[seat])
            if c.key <= first.key and s.called_cards.isdisjoint(c.cards)]


def _record_scored(s: State, seat: int, combo: Combo, stages: int) -> None:
    score(s, seat, combo.score, Reckon.of(combo.category), combo.label, combo)
    s.combos = (*s.combos, ComboRecord(seat, combo, "scored", combo.words("public", stages),
                                       told=stages))


def _win_first_call(
    s: State, seat: int, combo: Combo, stages: int, lesser_step: Step
) -> None:
    """Score the call that won a category (told in `stages` stages); then offer lesser
    ones (sequences, sets)."""
    _record_scored(s, seat, combo, stages)
    s.first_call = combo
    s.called_cards = frozenset(combo.cards)
    # Sequences and sets always get a lesser step, ended by "Done": a step offered only to
    # a hand with more to call would tell the other seat there is more (noninterference).
    if combo.category is not Category.POINT:
        goto(s, lesser_step, seat)
    elif lesser_step is Step.ELDER_LESSER:
        _next_elder_category(s)
    else:
        _next_younger_category(s)


def _next_elder_category(s: State) -> None:
    s.first_call = None
    s.called_cards = frozenset()
    if any(d.outcome is Outcome.PENDING and d.category not in s.younger_queue
           for d in s.declarations):
        goto(s, Step.ELDER_CALL, elder_seat(s))
        return
    # Elder's declarations are over: his scores have landed; now the first lead.
    if not s.younger_queue:
        reckon_repique(s)
    goto(s, Step.LEAD, elder_seat(s))


def _next_younger_category(s: State) -> None:
    s.first_call = None
    s.called_cards = frozenset()
    s.younger_queue = s.younger_queue[1:]
    if s.younger_queue:
        goto(s, Step.YOUNGER_CALL, younger_seat(s))
        return
    reckon_repique(s)
    check_pique(s)
    goto(s, Step.FOLLOW, younger_seat(s))
