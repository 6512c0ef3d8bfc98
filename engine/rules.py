"""The rules of Rubicon Piquet (RULES.md §1–7): the cut, the deal, carte blanche, the
exchange, declaring, showing, the tricks, pique/repique and the partie.

`apply(state, seat, action)` is the one checked entry point: it works on a shallow
copy and returns it, or raises a PiquetError leaving `state` untouched.
`legal(state, seat)` lists what that seat may do now, with each action's words.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.actions import (
    REPLY_WORDS,
    Action,
    Answer,
    Call,
    CarteBlanche,
    ChooseDealer,
    Discard,
    NextDeal,
    Pass,
    Play,
    See,
    parse_action,
)
from engine.cards import DECK, Card, is_carte_blanche, sort_hand
from engine.combos import NUMBER_WORDS, Category, Combo, natural_calls
from engine.errors import IllegalActionError, MalformedActionError, OutOfTurnError
from engine.state import (
    ComboRecord,
    Declaration,
    LogLine,
    Outcome,
    Reckon,
    Result,
    ScoreEvent,
    Shown,
    State,
    Step,
    Trick,
)

PARTIE_DEALS = 6
LEFTOVERS = "The cards left in the stock"  # what younger's turned-up leftovers are shown as
TIE_DEALS = 8


@dataclass(frozen=True, slots=True)
class DiscardRule:
    """The one parametric legal action: pick between `min` and `max` cards to discard."""

    min: int
    max: int
    expose_choice: bool


Legal = tuple[Action | DiscardRule, str]


# --------------------------------------------------------------------------- partie start


Cards = str | Sequence[Card | str]  # Card values, codes, or codes in one string: "AS KS QS"


def _cards(cards: Cards) -> tuple[Card, ...]:
    items = cards.split() if isinstance(cards, str) else cards
    return tuple(c if isinstance(c, Card) else Card.parse(c) for c in items)


def deck_for(elder: Cards, younger: Cards, stock: Cards, *, packet: int = 2) -> tuple[Card, ...]:
    """The pack's order that deals `elder` and `younger` these twelve cards each (dealt in
    packets of `packet`, elder first) and leaves `stock` (eight, top card first).
    ValueError unless the three hold the 32 cards once each."""
    e, y, st = _cards(elder), _cards(younger), _cards(stock)
    if (len(e), len(y), len(st)) != (12, 12, 8):
        raise ValueError(f"a deal is 12, 12 and 8 cards, not {len(e)}, {len(y)}, {len(st)}")
    if sorted((*e, *y, *st)) != sorted(DECK):
        raise ValueError("a deal must hold the 32 cards once each")
    deck: list[Card] = []
    for i in range(0, 12, packet):
        deck += e[i:i + packet]
        deck += y[i:i + packet]
    return (*deck, *st)


def new_partie(
    seed: int,
    *,
    hands: Sequence[tuple[Cards, Cards, Cards]] = (),
    decks: Sequence[Sequence[Card | str]] = (),
    packet: int = 2,
    first_dealer: int | None = None,
) -> State:
    """A new partie. The cut is made here; its winner then chooses who deals.

    `hands` gives the first deals' cards, one (elder, younger, stock) triple per deal:
    12, 12 and 8 cards (stock top card first), whoever turns out to be elder. `decks`
    does the same as whole packs in dealing order (`deck_for` turns one into the other).
    Later deals are shuffled from `seed`. `first_dealer` skips the cut.
    """
    if packet not in (2, 3):
        raise ValueError("cards are dealt in twos or threes")
    if hands and decks:
        raise ValueError("give the first deals as hands or as decks, not both")
    if hands:
        decks = [deck_for(*h, packet=packet) for h in hands]
    fixed = tuple(tuple(c if isinstance(c, Card) else Card.parse(c) for c in d) for d in decks)
    for d in fixed:
        if sorted(d) != sorted(DECK):
            raise ValueError("a fixed deck must hold the 32 cards once each")
    empty: tuple[Card, ...] = ()
    state = State(
        seed=seed, decks=fixed, packet=packet, step=Step.CHOOSE_DEALER, to_move=None,
        cut=None, cut_winner=None, first_dealer=first_dealer, deal_number=0,
        deals_in_partie=PARTIE_DEALS, dealer=None, sheet=(), log=(), result=None,
        hands=(empty, empty), stock=empty, discards=(empty, empty), took=(None, None),
        seen_stock=empty, carte_blanche=None, carte_blanche_take=None, younger_pending_draw=0,
        expose=False, exposed=empty, declarations=_fresh_declarations(), younger_queue=(),
        first_call=None, called_cards=frozenset(), reckoned=False, pique_settled=False,
        repique_seat=None, combos=(), shown=(), trick=(), trick_leader=0, tricks=(),
        tricks_won=(0, 0), led=False, events=(), bonuses=(),
    )
    if first_dealer is not None:
        if first_dealer not in (0, 1):
            raise ValueError("first_dealer is seat 0 or 1")
        _start_deal(state)
        return state
    # The cut (RULES.md §1): each seat cuts a card; the higher rank chooses; a tie re-cuts.
    rng = random.Random(f"{seed}:cut")
    attempt = 0
    while True:
        attempt += 1
        a, b = rng.sample(DECK, 2)
        _log(state, 0, "cut", f"Cuts the {a.name}")
        _log(state, 1, "cut", f"Cuts the {b.name}")
        if a.rank != b.rank:
            break
        _log(state, None, "cut", "Equal cuts: cut again")
    state.cut = (a, b)
    state.cut_winner = 0 if a.rank > b.rank else 1
    state.to_move = state.cut_winner
    _log(state, state.cut_winner, "cut", "Wins the cut and chooses who deals")
    return state


def _fresh_declarations() -> tuple[Declaration, Declaration, Declaration]:
    return (Declaration(Category.POINT), Declaration(Category.SEQUENCE), Declaration(Category.SET))


def _deck_for(state: State, number: int) -> tuple[Card, ...]:
    if number <= len(state.decks):
        return state.decks[number - 1]
    deck = list(DECK)
    random.Random(f"{state.seed}:deal:{number}").shuffle(deck)
    return tuple(deck)


def _start_deal(s: State) -> None:
    s.deal_number += 1
    if s.deal_number == 1:
        assert s.first_dealer is not None
        s.dealer = s.first_dealer
    else:
        assert s.dealer is not None
        s.dealer = 1 - s.dealer
    elder, younger = 1 - s.dealer, s.dealer
    deck = _deck_for(s, s.deal_number)
    # Dealt in packets, elder first, until each has twelve; the other eight are the stock.
    hands: list[list[Card]] = [[], []]
    pos, turn = 0, elder
    while pos < 24:
        hands[turn].extend(deck[pos:pos + s.packet])
        pos += s.packet
        turn = 1 - turn
    empty: tuple[Card, ...] = ()
    s.hands = (sort_hand(hands[0]), sort_hand(hands[1]))
    s.stock = deck[24:]
    s.discards = (empty, empty)
    s.took = (None, None)
    s.seen_stock = empty
    s.carte_blanche = None
    s.carte_blanche_take = None
    s.younger_pending_draw = 0
    s.expose = False
    s.exposed = empty
    s.declarations = _fresh_declarations()
    s.younger_queue = ()
    s.first_call = None
    s.called_cards = frozenset()
    s.reckoned = False
    s.pique_settled = False
    s.repique_seat = None
    s.combos = ()
    s.shown = ()
    s.trick = ()
    s.trick_leader = elder
    s.tricks = ()
    s.tricks_won = (0, 0)
    s.led = False
    s.events = ()
    s.bonuses = ()
    s.log = ()  # the log is the deal's: earlier deals' lines are on no view, so not kept
    _log(s, s.dealer, "deal", f"Deal {s.deal_number} of {s.deals_in_partie}")
    for seat in (elder, younger):
        if is_carte_blanche(s.hands[seat]):
            s.carte_blanche = seat
    # A carte blanche has no step of its own, so the opponent cannot tell one is being
    # weighed: elder's is among the choices of his exchange, younger's may be announced
    # until elder has exchanged (RULES.md §2).
    _goto(s, Step.ELDER_EXCHANGE, elder)


# --------------------------------------------------------------------------- helpers


def _goto(s: State, step: Step, seat: int | None) -> None:
    s.step = step
    s.to_move = seat


def _log(s: State, seat: int | None, kind: str, text: str, points: int = 0) -> None:
    s.log = (*s.log, LogLine(seat, None if seat is None else s.role(seat), kind, text, points))


def _score(s: State, seat: int, points: int, reckon: Reckon, what: str) -> None:
    if points:
        s.events = (*s.events, ScoreEvent(seat, points, reckon, what))


def _bonus(s: State, seat: int, kind: str, points: int, reckon: Reckon, text: str) -> None:
    _score(s, seat, points, reckon, kind)
    s.bonuses = (*s.bonuses, (seat, kind, points))
    _log(s, seat, "bonus", text, points)


def _set_hand(s: State, seat: int, cards: tuple[Card, ...]) -> None:
    hands = list(s.hands)
    hands[seat] = cards
    s.hands = (hands[0], hands[1])


def _set_pair(pair: tuple[Any, Any], seat: int, value: Any) -> tuple[Any, Any]:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


def _decl(s: State, category: Category) -> Declaration:
    return s.declarations[category]


def _set_decl(s: State, d: Declaration) -> None:
    ds = list(s.declarations)
    ds[d.category] = d
    s.declarations = (ds[0], ds[1], ds[2])


def _say(s: State, category: Category, seat: int, kind: str, text: str, points: int = 0) -> None:
    d = _decl(s, category)
    role = s.role(seat) or ""
    _set_decl(s, replace(d, said=(*d.said, f"{role.capitalize()}: {text}")))
    _log(s, seat, kind, text, points)


def _elder(s: State) -> int:
    assert s.dealer is not None
    return 1 - s.dealer


def _younger(s: State) -> int:
    assert s.dealer is not None
    return s.dealer


# --------------------------------------------------------------------------- legal actions


def legal(s: State, seat: int) -> list[Legal]:
    """What `seat` may do now, each with the words a player would say."""
    known: list[Legal] | None = s.legal_memo.get(seat)
    if known is None:
        known = s.legal_memo[seat] = _legal(s, seat)
    return list(known)


def _legal(s: State, seat: int) -> list[Legal]:
    out: list[Legal] = []
    if s.to_move == seat:
        out.extend(_TURN_LEGAL[s.step](s, seat))
    elif _may_announce_carte_blanche(s, seat):
        out.extend(_legal_carte_blanche(s, seat))
    out.extend(_see_legal(s, seat))
    if s.step is Step.DEAL_OVER:
        out.append((NextDeal(), "Deal next hand"))
    return out


def _legal_choose_dealer(s: State, seat: int) -> list[Legal]:
    return [(ChooseDealer(True), "I'll deal"), (ChooseDealer(False), "You deal")]


def _may_announce_carte_blanche(s: State, seat: int) -> bool:
    """Held, not yet announced, and elder has not exchanged yet."""
    return (s.step is Step.ELDER_EXCHANGE and s.carte_blanche == seat
            and s.took[seat] is None and not any(b[1] == "carte_blanche" for b in s.bonuses))


def _legal_carte_blanche(s: State, seat: int) -> list[Legal]:
    if seat == _elder(s):
        return [(CarteBlanche(True, n), f"Carte blanche, taking {NUMBER_WORDS[n]}")
                for n in range(5, 0, -1)]
    return [(CarteBlanche(True), "Carte blanche")]


def _legal_elder_exchange(s: State, seat: int) -> list[Legal]:
    n = s.carte_blanche_take
    if n is not None:
        return [(DiscardRule(n, n, False), f"Discard {NUMBER_WORDS[n]}")]
    out: list[Legal] = []
    if _may_announce_carte_blanche(s, seat):
        out.extend(_legal_carte_blanche(s, seat))
    out.append((DiscardRule(1, min(5, len(s.stock)), False), "Discard 1 to 5 cards"))
    return out


def _legal_younger_exchange(s: State, seat: int) -> list[Legal]:
    # Younger may take at most what elder left (RULES.md §3); when she discards
    # first (elder's carte blanche), that is 8 less what elder said he would take.
    left = len(s.stock) - (s.carte_blanche_take or 0) if s.step is Step.YOUNGER_DISCARD \
        else len(s.stock)
    return [(DiscardRule(1, left, True), f"Discard 1 to {left} cards")]


def _legal_elder_call(s: State, seat: int) -> list[Legal]:
    d = _decl(s, current_category(s))
    out: list[Legal] = [(Call(c.category, c.cards), c.label)
                        for c in natural_calls(d.category, s.hands[seat])]
    out.append((Pass(), "Nothing"))
    return out


def _legal_answer(s: State, seat: int) -> list[Legal]:
    d = _decl(s, current_category(s))
    assert d.elder_call is not None
    out: list[Legal] = [(Answer("good"), "Good")]
    better, equal = _can_beat_or_equal(d, s.hands[seat])
    if better:
        out.append((Answer("not_good"), "Not good"))
    if equal:
        out.append((Answer("equal"), "Equal"))
    return out


def _legal_lesser(s: State, seat: int) -> list[Legal]:
    out: list[Legal] = [(Call(c.category, c.cards), c.label) for c in _lesser_calls(s, seat)]
    out.append((Pass(), "Done"))
    return out


def _legal_younger_call(s: State, seat: int) -> list[Legal]:
    category = s.younger_queue[0]
    d = _decl(s, category)
    out: list[Legal] = [(Call(c.category, c.cards), c.label)
                        for c in _younger_first_calls(d, s.hands[seat])]
    if d.outcome is not Outcome.YOUNGER:  # elder called nothing: she may sink too
        out.append((Pass(), "Nothing"))
    return out


def _legal_lead(s: State, seat: int) -> list[Legal]:
    return [(Play(c), c.name) for c in s.hands[seat]]


def _legal_follow(s: State, seat: int) -> list[Legal]:
    led = s.trick[0][0].suit
    hand = s.hands[seat]
    follow = [c for c in hand if c.suit == led] or list(hand)
    return [(Play(c), c.name) for c in follow]


def _legal_nothing(s: State, seat: int) -> list[Legal]:
    return []


def _see_legal(s: State, seat: int) -> list[Legal]:
    """From elder's first lead, ask to see what scored or tied for the other seat."""
    if not s.led:
        return []
    return [(See(i), f"See the {r.public}")
            for i, r in enumerate(s.combos) if r.seat != seat and not r.shown]


_TURN_LEGAL: dict[Step, Callable[[State, int], list[Legal]]] = {
    Step.CHOOSE_DEALER: _legal_choose_dealer,
    Step.ELDER_EXCHANGE: _legal_elder_exchange,
    Step.YOUNGER_DISCARD: _legal_younger_exchange,
    Step.YOUNGER_EXCHANGE: _legal_younger_exchange,
    Step.ELDER_CALL: _legal_elder_call,
    Step.YOUNGER_ANSWER: _legal_answer,
    Step.ELDER_LESSER: _legal_lesser,
    Step.YOUNGER_CALL: _legal_younger_call,
    Step.YOUNGER_LESSER: _legal_lesser,
    Step.LEAD: _legal_lead,
    Step.FOLLOW: _legal_follow,
    Step.DEAL_OVER: _legal_nothing,
    Step.PARTIE_OVER: _legal_nothing,
}


# --------------------------------------------------------------------------- declaring logic


def current_category(s: State) -> Category:
    for d in s.declarations:
        if d.outcome is Outcome.PENDING and d.category not in s.younger_queue:
            return d.category
    return Category.SET


def _can_beat_or_equal(d: Declaration, hand: Sequence[Card]) -> tuple[bool, bool]:
    """Could younger call something better / equal at this stage? (RULES.md §4, Law 46)."""
    e = d.elder_call
    assert e is not None
    better = equal = False
    for y in natural_calls(d.category, hand):
        if d.stage == 1 and y.key[0] != e.key[0]:
            continue  # having said "equal" to the length, she is held to it
        yk, ek = y.stage_key(d.stage), e.stage_key(d.stage)
        if yk > ek:
            better = True
        elif yk == ek and d.category is not Category.SET:
            equal = True
    return better, equal


def _equal_call(d: Declaration, hand: Sequence[Card]) -> Combo:
    """Younger's call that tied elder's at the last stage (the first natural one)."""
    e = d.elder_call
    assert e is not None
    for y in natural_calls(d.category, hand):
        if y.key == e.key:
            return y
    raise AssertionError("equal was legal, so an equal call exists")


def _younger_first_calls(d: Declaration, hand: Sequence[Card]) -> list[Combo]:
    calls = natural_calls(d.category, hand)
    if d.outcome is not Outcome.YOUNGER:
        return list(calls)  # elder called nothing
    e = d.elder_call
    assert e is not None and d.younger_beat_stage is not None
    if d.younger_beat_stage == 0:
        return [y for y in calls if y.stage_key(0) > e.stage_key(0)]
    return [y for y in calls if y.key[0] == e.key[0] and y.key[1] > e.key[1]]


def _lesser_calls(s: State, seat: int) -> list[Combo]:
    """Further calls in a won category: not above the first call, on cards not yet called."""
    first = s.first_call
    assert first is not None
    return [c for c in natural_calls(first.category, s.hands[seat])
            if c.key <= first.key and s.called_cards.isdisjoint(c.cards)]


def _record_scored(s: State, seat: int, combo: Combo, stages: int) -> None:
    _score(s, seat, combo.score, Reckon.of(combo.category), combo.label)
    s.combos = (*s.combos, ComboRecord(seat, combo, "scored", combo.public(stages),
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
        _goto(s, lesser_step, seat)
    elif lesser_step is Step.ELDER_LESSER:
        _next_elder_category(s)
    else:
        _next_younger_category(s)


def _next_elder_category(s: State) -> None:
    s.first_call = None
    s.called_cards = frozenset()
    if any(d.outcome is Outcome.PENDING and d.category not in s.younger_queue
           for d in s.declarations):
        _goto(s, Step.ELDER_CALL, _elder(s))
        return
    # Elder's declarations are over: his scores have landed; now the first lead.
    if not s.younger_queue:
        _reckon_repique(s)
    _goto(s, Step.LEAD, _elder(s))


def _next_younger_category(s: State) -> None:
    s.first_call = None
    s.called_cards = frozenset()
    s.younger_queue = s.younger_queue[1:]
    if s.younger_queue:
        _goto(s, Step.YOUNGER_CALL, _younger(s))
        return
    _reckon_repique(s)
    _check_pique(s)
    _goto(s, Step.FOLLOW, _younger(s))


# --------------------------------------------------------------------------- pique and repique


def _reckon_repique(s: State) -> None:
    """Law 67: steps I–IV category by category; 30 first with the other at nothing."""
    s.reckoned = True
    totals = [0, 0]
    for reckon in (Reckon.CARTE_BLANCHE, Reckon.POINT, Reckon.SEQUENCE, Reckon.SET):
        for e in s.events:
            if e.reckon is reckon:
                totals[e.seat] += e.points
        for seat in (0, 1):
            if totals[seat] >= 30 and totals[1 - seat] == 0:
                s.repique_seat = seat
                _bonus(s, seat, "repique", 60, Reckon.BONUS, "Repique! 60 more")
                return


def _check_pique(s: State) -> None:
    """30 within I–V while the other has scored nothing at all (only elder can)."""
    if not s.reckoned or s.pique_settled or s.repique_seat is not None:
        return
    totals = [0, 0]
    for e in s.events:
        if e.reckon <= Reckon.PLAY:
            totals[e.seat] += e.points
    if totals[0] and totals[1]:
        s.pique_settled = True  # both have scored: no pique is possible any more this deal
        return
    for seat in (0, 1):
        if totals[seat] >= 30 and totals[1 - seat] == 0:
            s.pique_settled = True
            _bonus(s, seat, "pique", 30, Reckon.BONUS, "Pique! 30 more")


# --------------------------------------------------------------------------- handlers


def _on_choose_dealer(s: State, seat: int, a: Action) -> None:
    assert isinstance(a, ChooseDealer)
    s.first_dealer = seat if a.deal else 1 - seat
    _log(s, seat, "cut", "Will deal first" if a.deal else "Lets the other seat deal first")
    _start_deal(s)


def _on_carte_blanche(s: State, seat: int, a: Action) -> None:
    assert isinstance(a, CarteBlanche) and a.announce
    elder = _elder(s)
    text = "Carte blanche"
    if seat == elder:
        assert a.take is not None
        s.carte_blanche_take = a.take
        text += f", taking {NUMBER_WORDS[a.take]}"
    # Scores at once and reckons first (RULES.md §2).
    _bonus(s, seat, "carte_blanche", 10, Reckon.CARTE_BLANCHE, text)
    if seat == elder:
        _goto(s, Step.YOUNGER_DISCARD, _younger(s))  # younger discards first


def _check_discard(s: State, seat: int, a: Discard, rule: DiscardRule) -> None:
    n = len(a.cards)
    if not rule.min <= n <= rule.max:
        want = f"{rule.min}" if rule.min == rule.max else f"{rule.min} to {rule.max}"
        raise IllegalActionError(
            f"{_describe(a)} refused: discard {want} cards here ({s.step.word}), not {n}")
    missing = [str(c) for c in a.cards if c not in s.hands[seat]]
    if missing:
        raise IllegalActionError(
            f"{_describe(a)} refused: {', '.join(missing)} not in your hand ({s.step.word})")


def _on_elder_exchange(s: State, seat: int, a: Action) -> None:
    assert isinstance(a, Discard)
    n = len(a.cards)
    younger = _younger(s)
    _discard(s, seat, a.cards)
    _set_hand(s, seat, sort_hand((*s.hands[seat], *s.stock[:n])))
    s.seen_stock = s.stock[n:5]  # the rest of his five: his eyes only
    s.stock = s.stock[n:]
    s.took = _set_pair(s.took, seat, n)
    _log(s, seat, "exchange", f"Takes {NUMBER_WORDS[n]}")
    if s.younger_pending_draw:
        k = s.younger_pending_draw
        _set_hand(s, younger, sort_hand((*s.hands[younger], *s.stock[:k])))
        s.stock = s.stock[k:]
        s.took = _set_pair(s.took, younger, k)
        s.younger_pending_draw = 0
        _log(s, younger, "exchange", f"Takes {NUMBER_WORDS[k]}")
        _start_declaring(s)
        return
    if s.carte_blanche == younger and any(b[1] == "carte_blanche" for b in s.bonuses):
        # Younger's carte blanche is proved once elder has exchanged (Law 20).
        _show(s, younger, "Carte blanche", s.hands[younger])
    _goto(s, Step.YOUNGER_EXCHANGE, younger)


def _on_younger_exchange(s: State, seat: int, a: Action) -> None:
    assert isinstance(a, Discard)
    k = len(a.cards)
    _discard(s, seat, a.cards)
    s.expose = a.expose and k < len(s.stock) - (s.carte_blanche_take or 0)
    if s.step is Step.YOUNGER_DISCARD:
        # Elder's carte blanche: she has thrown face down; now his hand is shown, then he
        # exchanges, then she draws.
        s.younger_pending_draw = k
        _log(s, seat, "exchange", f"Discards {NUMBER_WORDS[k]}")
        elder = _elder(s)
        _show(s, elder, "Carte blanche", s.hands[elder])
        _goto(s, Step.ELDER_EXCHANGE, elder)
        return
    _set_hand(s, seat, sort_hand((*s.hands[seat], *s.stock[:k])))
    s.stock = s.stock[k:]
    s.took = _set_pair(s.took, seat, k)
    _log(s, seat, "exchange", f"Takes {NUMBER_WORDS[k]}")
    _start_declaring(s)


def _discard(s: State, seat: int, cards: tuple[Card, ...]) -> None:
    gone = set(cards)
    _set_hand(s, seat, tuple(c for c in s.hands[seat] if c not in gone))
    s.discards = _set_pair(s.discards, seat, sort_hand((*s.discards[seat], *cards)))


def _show(s: State, seat: int, what: str, cards: tuple[Card, ...]) -> None:
    s.shown = (*s.shown, Shown(seat, what, sort_hand(cards)))
    _log(s, seat, "show", f"Shows {what.lower()}: {' '.join(map(str, sort_hand(cards)))}")


def _start_declaring(s: State) -> None:
    if s.stock and s.expose:
        _log(s, _younger(s), "exchange",
             f"Leaves {NUMBER_WORDS[len(s.stock)]}, to be turned up after the first lead")
    _goto(s, Step.ELDER_CALL, _elder(s))


def _on_elder_call(s: State, seat: int, a: Action) -> None:
    d = _decl(s, current_category(s))
    if isinstance(a, Pass):
        _set_decl(s, replace(d, elder_nothing=True))
        _say(s, d.category, seat, "call", "Nothing")
        # The category is younger's to call after the lead, or to say "Nothing" in, whether
        # or not she holds anything: settling it now, for some hands only, would tell elder
        # that she has nothing to call (DESIGN.md, noninterference).
        s.younger_queue = (*s.younger_queue, d.category)
        _next_elder_category(s)
        return
    assert isinstance(a, Call)
    combo = Combo(a.category, a.cards)
    _set_decl(s, replace(d, elder_call=combo, stage=0))
    _say(s, d.category, seat, "call", combo.stage_words(0))
    _goto(s, Step.YOUNGER_ANSWER, _younger(s))


def _on_answer(s: State, seat: int, a: Action) -> None:
    assert isinstance(a, Answer)
    d = _decl(s, current_category(s))
    e = d.elder_call
    assert e is not None
    elder = _elder(s)
    _set_decl(s, replace(d, answers=(*d.answers, a.reply)))
    _say(s, d.category, seat, "answer", REPLY_WORDS[a.reply])
    if a.reply == "good":
        _set_decl(s, replace(_decl(s, d.category), outcome=Outcome.ELDER))
        _log(s, elder, "score", f"Scores {e.score} for the {e.public(d.stage + 1)}", e.score)
        _win_first_call(s, elder, e, d.stage + 1, Step.ELDER_LESSER)
    elif a.reply == "not_good":
        _set_decl(s, replace(_decl(s, d.category), outcome=Outcome.YOUNGER,
                             younger_beat_stage=d.stage))
        s.younger_queue = (*s.younger_queue, d.category)
        _next_elder_category(s)
    elif d.stage + 1 < d.category.stages:
        _set_decl(s, replace(_decl(s, d.category), stage=d.stage + 1))
        _say(s, d.category, elder, "call", e.stage_words(d.stage + 1))
        _goto(s, Step.YOUNGER_ANSWER, seat)
    else:
        # Equal at the last stage: nobody scores the category (for sequences, equal
        # best sequences cancel every sequence, Law 63). Both calls may be seen.
        tie = _equal_call(d, s.hands[seat])
        _set_decl(s, replace(_decl(s, d.category), outcome=Outcome.EQUAL))
        s.combos = (*s.combos, ComboRecord(elder, e, "tied", e.public(2)),
                    ComboRecord(seat, tie, "tied", tie.public(2)))
        _log(s, None, "score", f"Equal: nobody scores for {d.category.word}")
        _next_elder_category(s)


def _on_lesser(s: State, seat: int, a: Action) -> None:
    elder_side = s.step is Step.ELDER_LESSER
    if isinstance(a, Pass):
        if elder_side:
            _next_elder_category(s)
        else:
            _next_younger_category(s)
        return
    assert isinstance(a, Call)
    combo = Combo(a.category, a.cards)
    d = _decl(s, combo.category)
    _set_decl(s, replace(d, lesser=(*d.lesser, combo)))
    _record_scored(s, seat, combo, 1)
    s.called_cards = s.called_cards | set(combo.cards)
    said = combo.said(1)
    _say(s, combo.category, seat, "call", f"And {said[0].lower()}{said[1:]}", combo.score)
    # The step stays until "Done", even with nothing left to call (see _win_first_call).


def _on_younger_call(s: State, seat: int, a: Action) -> None:
    category = s.younger_queue[0]
    if isinstance(a, Pass):
        _say(s, category, seat, "call", "Nothing")
        _set_decl(s, replace(_decl(s, category), outcome=Outcome.NONE, younger_nothing=True))
        _next_younger_category(s)
        return
    assert isinstance(a, Call)
    combo = Combo(a.category, a.cards)
    d = _decl(s, category)
    # She tells as much as beating elder's call took: the length, or the second stage too.
    stages = 2 if d.younger_beat_stage == 1 else 1
    _set_decl(s, replace(d, outcome=Outcome.YOUNGER, younger_call=combo, younger_told=stages))
    _say(s, category, seat, "call", combo.said(stages), combo.score)
    _win_first_call(s, seat, combo, stages, Step.YOUNGER_LESSER)


def _on_play(s: State, seat: int, a: Action) -> None:
    assert isinstance(a, Play)
    _set_hand(s, seat, tuple(c for c in s.hands[seat] if c is not a.card))
    if s.step is Step.LEAD:
        s.trick = ((a.card, seat),)
        s.trick_leader = seat
        _score(s, seat, 1, Reckon.PLAY, "lead")
        _log(s, seat, "lead", f"Leads the {a.card.name}", 1)
        if not s.led:
            s.led = True
            if s.expose and s.stock:
                s.exposed = s.stock
                _show(s, _younger(s), LEFTOVERS, s.stock)
            if s.younger_queue:
                # Younger's calls come now: after the lead, before she plays to it.
                _goto(s, Step.YOUNGER_CALL, _younger(s))
                return
        _check_pique(s)
        _goto(s, Step.FOLLOW, 1 - seat)
        return
    leader_card = s.trick[0][0]
    cards = (*s.trick, (a.card, seat))
    winner = seat if a.card.suit == leader_card.suit and a.card.rank > leader_card.rank \
        else s.trick_leader
    s.tricks = (*s.tricks, Trick(s.trick_leader, cards, winner))
    s.trick = ()
    s.tricks_won = _set_pair(s.tricks_won, winner, s.tricks_won[winner] + 1)
    _log(s, seat, "trick", f"Plays the {a.card.name}")
    last = len(s.tricks) == 12
    points = (1 if winner != s.trick_leader else 0) + (1 if last else 0)
    _score(s, winner, points, Reckon.PLAY, "trick")
    _log(s, winner, "trick", "Wins the last trick" if last else "Wins the trick", points)
    _check_pique(s)
    if last:
        _end_deal(s)
    else:
        _goto(s, Step.LEAD, winner)


def _end_deal(s: State) -> None:
    won = s.tricks_won
    for seat in (0, 1):
        if won[seat] == 12:
            _bonus(s, seat, "capot", 40, Reckon.CARDS, "Capot! 40 for winning every trick")
        elif won[seat] > 6:
            _bonus(s, seat, "cards", 10, Reckon.CARDS,
                   f"Wins the cards, {won[seat]} tricks to {won[1 - seat]}: 10")
    if won == (6, 6):
        _log(s, None, "deal_end", "Six tricks each: nobody scores for the cards")
    deal = s.deal_scores()
    s.sheet = (*s.sheet, deal)
    s.sheet_parts = (*s.sheet_parts, s.deal_parts())
    _log(s, None, "deal_end", f"Deal {s.deal_number} ends {deal[0]} to {deal[1]}")
    totals = (sum(r[0] for r in s.sheet), sum(r[1] for r in s.sheet))
    if s.deal_number == s.deals_in_partie:
        if totals[0] == totals[1] and s.deals_in_partie == PARTIE_DEALS:
            # Level after six: two more deals, both played (RULES.md §7).
            s.deals_in_partie = TIE_DEALS
            _log(s, None, "deal_end", f"Level at {totals[0]}: two more deals")
        else:
            _end_partie(s, totals)
            return
    _goto(s, Step.DEAL_OVER, None)


def rubicon(totals: tuple[int, int]) -> Result:
    """The Rubicon settlement of a partie's totals (seat 0, seat 1), RULES.md §7.

    The higher total wins. If the loser has 100 or more, the winner scores the
    difference + 100 (120 v 101 -> 119); if under 100 (rubiconed), both totals added
    + 100 (120 v 99 -> 319), whether or not the winner reached 100. Level: a draw,
    `winner` None and 0 points."""
    a, b = totals
    if a == b:
        return Result(None, totals, 0, False, f"{a} to {b}: a draw")
    winner = 0 if a > b else 1
    w, lo = max(a, b), min(a, b)
    if lo >= 100:
        points = w - lo + 100
        return Result(winner, totals, points, False, f"{w} − {lo} + 100 = {points}")
    points = w + lo + 100
    return Result(winner, totals, points, True, f"{w} + {lo} + 100 = {points}, rubiconed")


def partie_result(deals: Sequence[tuple[int, int]]) -> Result:
    """A partie's settlement from its deals' scores (seat 0, seat 1), six deals or, when
    level after six, eight (RULES.md §7): the Rubicon on the totals (see `rubicon`).
    ValueError for any other number of deals."""
    rows = [(int(a), int(b)) for a, b in deals]
    totals = (sum(r[0] for r in rows), sum(r[1] for r in rows))
    after_six = (sum(r[0] for r in rows[:PARTIE_DEALS]), sum(r[1] for r in rows[:PARTIE_DEALS]))
    if len(rows) == PARTIE_DEALS and after_six[0] == after_six[1]:
        raise ValueError(f"level at {after_six[0]} after six deals: two more deals are played")
    if len(rows) == TIE_DEALS and after_six[0] != after_six[1]:
        raise ValueError(f"{after_six[0]} to {after_six[1]} after six deals: the partie was over")
    if len(rows) not in (PARTIE_DEALS, TIE_DEALS):
        raise ValueError(f"a partie is six deals (eight when level after six), not {len(rows)}")
    return rubicon(totals)


def _end_partie(s: State, totals: tuple[int, int]) -> None:
    s.result = rubicon(totals)
    _log(s, s.result.winner, "partie_end",
         "The partie is drawn" if s.result.winner is None
         else f"Wins the partie: {s.result.text}")
    _goto(s, Step.PARTIE_OVER, None)


def _on_see(s: State, seat: int, a: Action) -> None:
    assert isinstance(a, See)
    r = s.combos[a.combo]
    s.combos = tuple(replace(x, shown=True) if i == a.combo else x
                     for i, x in enumerate(s.combos))
    _log(s, seat, "show", f"Asks to see the {r.public}")
    _show(s, r.seat, r.combo.label, r.combo.cards)


def _on_next_deal(s: State, seat: int, a: Action) -> None:
    _start_deal(s)


# Actions not bound to whose turn it is.
_ANYTIME: dict[type, Callable[[State, int, Action], None]] = {
    See: _on_see, NextDeal: _on_next_deal, CarteBlanche: _on_carte_blanche,
}

_HANDLERS: dict[Step, Callable[[State, int, Action], None]] = {
    Step.CHOOSE_DEALER: _on_choose_dealer,
    Step.ELDER_EXCHANGE: _on_elder_exchange,
    Step.YOUNGER_DISCARD: _on_younger_exchange,
    Step.YOUNGER_EXCHANGE: _on_younger_exchange,
    Step.ELDER_CALL: _on_elder_call,
    Step.YOUNGER_ANSWER: _on_answer,
    Step.ELDER_LESSER: _on_lesser,
    Step.YOUNGER_CALL: _on_younger_call,
    Step.YOUNGER_LESSER: _on_lesser,
    Step.LEAD: _on_play,
    Step.FOLLOW: _on_play,
}


# --------------------------------------------------------------------------- apply


def apply(state: State, seat: int, action: Action | dict[str, Any]) -> State:
    """Apply `seat`'s action and return the new state; raise a PiquetError if refused."""
    if seat not in (0, 1) or isinstance(seat, bool):
        raise MalformedActionError(f"there is no seat {seat!r}; seats are 0 and 1")
    a = parse_action(action)
    if isinstance(a, Call):
        a = Call(a.category, sort_hand(a.cards))
    options = legal(state, seat)
    if isinstance(a, (See, NextDeal, CarteBlanche)):  # (a tuple: faster than a union)
        if not any(o == a for o, _ in options):
            raise IllegalActionError(_refusal(state, seat, a))
        s = state.copy()
        _ANYTIME[type(a)](s, seat, a)
        return s
    if state.to_move != seat:
        who = "nobody" if state.to_move is None else f"seat {state.to_move}"
        raise OutOfTurnError(
            f"{_describe(a)} refused: it is not your turn ({who} to move, {state.step.word})")
    if isinstance(a, Discard):
        rules = [o for o, _ in options if isinstance(o, DiscardRule)]
        if not rules:
            raise IllegalActionError(_refusal(state, seat, a))
        _check_discard(state, seat, a, rules[0])
    elif not any(o == a for o, _ in options):
        raise IllegalActionError(_refusal(state, seat, a))
    s = state.copy()
    _HANDLERS[state.step](s, seat, a)
    return s


def _describe(a: Action) -> str:
    return repr(a.to_json())


def _refusal(s: State, seat: int, a: Action) -> str:
    words = [label for _, label in legal(s, seat)]
    allowed = "; ".join(words[:12]) + (" …" if len(words) > 12 else "") if words else "nothing"
    return f"{_describe(a)} is not allowed now ({s.step.word}); allowed: {allowed}"


def replay(
    seed: int,
    actions: Iterable[tuple[int, Action | dict[str, Any]]],
    **options: Any,
) -> State:
    """Rebuild a partie from its seed (and `new_partie` options) and its (seat, action) list."""
    s = new_partie(seed, **options)
    for seat, action in actions:
        s = apply(s, seat, action)
    return s


def legal_json(s: State, seat: int) -> list[dict[str, Any]]:
    """`legal` as the view gives it: each action's JSON plus its label."""
    out: list[dict[str, Any]] = []
    for action, label in legal(s, seat):
        if type(action) is Play:  # most of a deal: written here, without to_json's dict
            out.append({"type": "play", "card": action.card.code, "label": label})
        elif isinstance(action, DiscardRule):
            out.append({"type": "discard", "min": action.min, "max": action.max,
                        "expose_choice": action.expose_choice, "label": label})
        else:
            out.append({**action.to_json(), "label": label})
    return out
