"""The tricks (RULES.md §5): elder leads the first; follow suit if able; a point for
each card led and for winning the other's lead, one more for the last trick. Younger's
calls come between elder's first lead and her card to it (RULES.md §4, timing)."""

from __future__ import annotations

from collections.abc import Callable

from engine.actions import PLAYS, Action, Play
from engine.cards import DECK
from engine.reckoning import check_pique, end_deal
from engine.showing import LEFTOVERS, show
from engine.state import Reckon, State, Step, Trick
from engine.table import Handler, Legal, bonus, goto, log, score, set_pair, younger_seat
from engine.words import W, Words, card_phrase

_LEADS_CODE = W("leads", "Leads {card:the}")
_PLAYS_CODE = W("plays", "Plays {card:the}")
# By card index (a list: a Card's hash is a Python call). Made once: the entries, the words.
PLAY_ENTRY: list[Legal] = [(PLAYS[c], Words(card_phrase(c.code))) for c in DECK]
_LEADS = [Words({"code": _LEADS_CODE, "card": c.code}) for c in DECK]
_PLAYS_TO = [Words({"code": _PLAYS_CODE, "card": c.code}) for c in DECK]
_WINS_TRICK = Words({"code": W("wins_trick", "Wins the trick")})
_WINS_LAST = Words({"code": W("wins_last", "Wins the last trick")})
_SEVENTH = {"code": W("wins_cards_seventh", "Wins the cards with the seventh trick: 10")}


def legal_lead(s: State, seat: int) -> list[Legal]:
    return [PLAY_ENTRY[c.index] for c in s.hands[seat]]


def legal_follow(s: State, seat: int) -> list[Legal]:
    led = s.trick[0][0].suit
    hand = s.hands[seat]
    follow = [c for c in hand if c.suit is led] or hand
    return [PLAY_ENTRY[c.index] for c in follow]


# The hot path of a deal (24 of its ~37 actions): an Enum member read through its class
# costs a Python call on 3.11, so the few on this path are read once here.
_PLAY, _LEAD, _FOLLOW = Reckon.PLAY, Step.LEAD, Step.FOLLOW


def play_handler(end: Callable[[State], None], *, seventh_trick: bool = False) -> Handler:
    """The handler of a card led or played: `end` ends the deal after the twelfth trick
    (the Rubicon's end_deal, or au cent's); `seventh_trick`: the 10 for the cards is
    scored the moment a seat wins its seventh trick, as a play point (RULES.md §8,
    cards towards pique)."""

    def on_play(s: State, seat: int, a: Action) -> None:
        assert isinstance(a, Play)
        card = a.card
        hands = s.hands
        hand = list(hands[seat])
        hand.remove(card)
        s.hands = (tuple(hand), hands[1]) if seat == 0 else (hands[0], tuple(hand))
        if not s.trick:  # a lead
            s.trick = ((card, seat),)
            s.trick_leader = seat
            score(s, seat, 1, _PLAY, "lead")
            log(s, seat, "lead", _LEADS[card.index], 1)
            if not s.led:
                s.led = True
                if s.expose and s.stock:
                    s.exposed = s.stock
                    show(s, younger_seat(s), LEFTOVERS.say, s.stock)
                if s.younger_queue:
                    # Younger's calls come now: after the lead, before she plays to it.
                    goto(s, Step.YOUNGER_CALL, younger_seat(s))
                    return
            if not s.pique_settled:
                check_pique(s)
            s.step, s.to_move = _FOLLOW, 1 - seat
            return
        leader = s.trick_leader
        leader_card = s.trick[0][0]
        winner = seat if card.suit is leader_card.suit and card.rank > leader_card.rank \
            else leader
        s.tricks = (*s.tricks, Trick(leader, (*s.trick, (card, seat)), winner))
        s.trick = ()
        s.tricks_won = set_pair(s.tricks_won, winner, s.tricks_won[winner] + 1)
        log(s, seat, "trick", _PLAYS_TO[card.index])
        last = len(s.tricks) == 12
        points = (1 if winner != leader else 0) + (1 if last else 0)
        score(s, winner, points, _PLAY, "trick")
        log(s, winner, "trick", _WINS_LAST if last else _WINS_TRICK, points)
        if seventh_trick and s.tricks_won[winner] == 7:
            bonus(s, winner, "cards", 10, _PLAY, _SEVENTH)
        if not s.pique_settled:
            check_pique(s)
        if last:
            end(s)
        else:
            s.step, s.to_move = _LEAD, winner

    return on_play


on_play = play_handler(end_deal)
