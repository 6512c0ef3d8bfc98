"""The cut and the deal (RULES.md §1): a new partie, the cut's winner choosing who
deals, twelve each in twos or threes, the stock, the deal alternating."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine.actions import Action, ChooseDealer
from engine.cards import DECK, Card, is_carte_blanche, sort_hand
from engine.combos import Category
from engine.reckoning import PARTIE_DEALS
from engine.state import Declaration, State, Step
from engine.table import Legal, goto, log
from engine.variants import RUBICON, Rules
from engine.words import W, Words

_CUTS = W("cuts", "Cuts {card:the}")
_CUT_AGAIN = {"code": W("cut_again", "Equal cuts: cut again")}
_CUT_WON = {"code": W("cut_won", "Wins the cut and chooses who deals")}
_DEAL_OF = W("deal_of", "Deal {deal} of {deals}")
_DEAL_GAME = W("deal_game", "Deal {deal}: game {game}, {a} to {b}")
_DEALS_FIRST = {"code": W("deals_first", "Will deal first")}
_LETS_DEAL = {"code": W("lets_deal", "Lets the other seat deal first")}
_CHOOSE = [(ChooseDealer(True), Words({"code": W("choose.deal", "I'll deal")})),
           (ChooseDealer(False), Words({"code": W("choose.other", "You deal")}))]

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


def check_pack(pack: Sequence[Card | str]) -> tuple[Card, ...]:
    """A pack in dealing order as Card values; ValueError unless it holds the 32 cards
    once each."""
    cards = tuple(c if isinstance(c, Card) else Card.parse(c) for c in pack)
    if len(cards) != 32 or sorted(cards) != sorted(DECK):
        raise ValueError("a pack must hold the 32 cards once each")
    return cards


def new_partie(
    seed: int,
    *,
    hands: Sequence[tuple[Cards, Cards, Cards]] = (),
    decks: Sequence[Sequence[Card | str]] = (),
    packet: int = 2,
    first_dealer: int | None = None,
    pack: Sequence[Card | str] | None = None,
    rules: Rules = RUBICON,
    flow: Any = None,
) -> State:
    """A new partie. The cut is made here (from `seed`); its winner then chooses who deals.

    Each deal's pack is the one given to the action that deals it (`apply(..., pack=)`:
    a server draws it from a secure source then, so nothing knows a deal before it is
    dealt). Without one, `hands` gives the first deals' cards, one (elder, younger,
    stock) triple per deal: 12, 12 and 8 cards (stock top card first), whoever turns out
    to be elder; `decks` does the same as whole packs in dealing order (`deck_for`
    turns one into the other); and any other deal is shuffled from `seed` (self-play,
    tests). `first_dealer` skips the cut, and deals the first deal at once (from `pack`
    if given).
    """
    if packet not in (2, 3):
        raise ValueError("cards are dealt in twos or threes")
    state = _blank(seed, _fixed_decks(hands, decks, packet), packet, first_dealer, rules,
                   flow)
    if first_dealer is not None:
        if first_dealer not in (0, 1):
            raise ValueError("first_dealer is seat 0 or 1")
        state.pack = None if pack is None else check_pack(pack)
        start_deal(state)
        return state
    _cut(state, seed)
    return state


def _fixed_decks(hands: Sequence[tuple[Cards, Cards, Cards]],
                 decks: Sequence[Sequence[Card | str]], packet: int
                 ) -> tuple[tuple[Card, ...], ...]:
    """The first deals' packs a test or a tool gives, checked (`new_partie`)."""
    if hands and decks:
        raise ValueError("give the first deals as hands or as decks, not both")
    if hands:
        decks = [deck_for(*h, packet=packet) for h in hands]
    fixed = tuple(tuple(c if isinstance(c, Card) else Card.parse(c) for c in d) for d in decks)
    for d in fixed:
        if sorted(d) != sorted(DECK):
            raise ValueError("a fixed deck must hold the 32 cards once each")
    return fixed


def _blank(seed: int, fixed: tuple[tuple[Card, ...], ...], packet: int,
           first_dealer: int | None, rules: Rules, flow: Any) -> State:
    """A partie before its cut: nothing dealt, nothing said."""
    empty: tuple[Card, ...] = ()
    return State(
        seed=seed, decks=fixed, packet=packet, step=Step.CHOOSE_DEALER, to_move=None,
        cut=None, cut_winner=None, first_dealer=first_dealer, deal_number=0,
        deals_in_partie=PARTIE_DEALS if rules.game == "rubicon" else None, dealer=None,
        sheet=(), log=(), result=None,
        hands=(empty, empty), stock=empty, discards=(empty, empty), took=(None, None),
        seen_stock=empty, carte_blanche=None, carte_blanche_take=None, younger_pending_draw=0,
        expose=False, exposed=empty, declarations=_fresh_declarations(), younger_queue=(),
        first_call=None, called_cards=frozenset(), reckoned=False, pique_settled=False,
        repique_seat=None, combos=(), shown=(), trick=(), trick_leader=0, tricks=(),
        tricks_won=(0, 0), led=False, events=(), bonuses=(), rules=rules, flow=flow,
    )


def _cut(state: State, seed: int) -> None:
    """The cut (RULES.md §1): each seat cuts a card; the higher rank chooses; a tie
    re-cuts."""
    rng = random.Random(f"{seed}:cut")
    while True:
        a, b = rng.sample(DECK, 2)
        log(state, 0, "cut", {"code": _CUTS, "card": a.code})
        log(state, 1, "cut", {"code": _CUTS, "card": b.code})
        if a.rank != b.rank:
            break
        log(state, None, "cut", _CUT_AGAIN)
    state.cut = (a, b)
    state.cut_winner = 0 if a.rank > b.rank else 1
    state.to_move = state.cut_winner
    log(state, state.cut_winner, "cut", _CUT_WON)


def _fresh_declarations() -> tuple[Declaration, Declaration, Declaration]:
    return (Declaration(Category.POINT), Declaration(Category.SEQUENCE), Declaration(Category.SET))


def _deck_for(state: State, number: int) -> tuple[Card, ...]:
    if number <= len(state.decks):
        return state.decks[number - 1]
    deck = list(DECK)
    random.Random(f"{state.seed}:deal:{number}").shuffle(deck)
    return tuple(deck)


def start_deal(s: State) -> None:
    s.deal_number += 1
    if s.deal_number == 1:
        assert s.first_dealer is not None
        s.dealer = s.first_dealer
    else:
        assert s.dealer is not None
        s.dealer = 1 - s.dealer
    elder, younger = 1 - s.dealer, s.dealer
    deck = s.pack if s.pack is not None else _deck_for(s, s.deal_number)
    s.pack = None  # dealt: no state keeps it
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
    if s.deals_in_partie is None:  # au cent: games, not a number of deals
        a, b = s.game_scores((0, 0))
        log(s, s.dealer, "deal", {"code": _DEAL_GAME, "deal": s.deal_number,
                                  "game": len(s.games) + 1, "a": a, "b": b})
    else:
        log(s, s.dealer, "deal", {"code": _DEAL_OF, "deal": s.deal_number,
                                  "deals": s.deals_in_partie})
    for seat in (elder, younger):
        if is_carte_blanche(s.hands[seat]):
            s.carte_blanche = seat
    # A carte blanche has no step of its own, so the opponent cannot tell one is being
    # weighed: elder's is among the choices of his exchange, younger's may be announced
    # until elder has exchanged (RULES.md §2).
    goto(s, Step.ELDER_EXCHANGE, elder)


def legal_choose_dealer(s: State, seat: int) -> list[Legal]:
    return list(_CHOOSE)


def on_choose_dealer(s: State, seat: int, a: Action) -> None:
    assert isinstance(a, ChooseDealer)
    s.first_dealer = seat if a.deal else 1 - seat
    log(s, seat, "cut", _DEALS_FIRST if a.deal else _LETS_DEAL)
    start_deal(s)


def on_next_deal(s: State, seat: int, a: Action) -> None:
    start_deal(s)


def deal_again(s: State, why: str) -> None:
    """The deal under way is void and dealt again from `s.pack` by the same dealer, or,
    after a deal, the next one is dealt: what a server does when its store turns out to
    have lost a move both seats had seen, so that no move is taken back and no card shown
    is shown again in a hand. The void deal's scores go; the partie's stand. `why`: the
    log line's code (engine.words; the caller gives it its words)."""
    if s.step is Step.DEAL_OVER:
        start_deal(s)
    else:
        s.deal_number -= 1
        if s.deal_number >= 1:
            assert s.dealer is not None
            s.dealer = 1 - s.dealer  # start_deal turns it back
        start_deal(s)
    log(s, None, "deal", {"code": why})


# Actions not bound to whose turn it is.
