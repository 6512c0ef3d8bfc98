"""The tricks (RULES.md §5): elder leads the first; follow suit if able; a point for
each card led and for winning the other's lead, one more for the last trick. Younger's
calls come between elder's first lead and her card to it (RULES.md §4, timing)."""

from __future__ import annotations

from engine.actions import Action, Play
from engine.reckoning import check_pique, end_deal
from engine.showing import LEFTOVERS, show
from engine.state import Reckon, State, Step, Trick
from engine.table import Legal, goto, log, score, set_hand, set_pair, younger_seat


def legal_lead(s: State, seat: int) -> list[Legal]:
    return [(Play(c), c.name) for c in s.hands[seat]]


def legal_follow(s: State, seat: int) -> list[Legal]:
    led = s.trick[0][0].suit
    hand = s.hands[seat]
    follow = [c for c in hand if c.suit == led] or list(hand)
    return [(Play(c), c.name) for c in follow]


def on_play(s: State, seat: int, a: Action) -> None:
    assert isinstance(a, Play)
    set_hand(s, seat, tuple(c for c in s.hands[seat] if c is not a.card))
    if s.step is Step.LEAD:
        s.trick = ((a.card, seat),)
        s.trick_leader = seat
        score(s, seat, 1, Reckon.PLAY, "lead")
        log(s, seat, "lead", f"Leads the {a.card.name}", 1)
        if not s.led:
            s.led = True
            if s.expose and s.stock:
                s.exposed = s.stock
                show(s, younger_seat(s), LEFTOVERS, s.stock)
            if s.younger_queue:
                # Younger's calls come now: after the lead, before she plays to it.
                goto(s, Step.YOUNGER_CALL, younger_seat(s))
                return
        check_pique(s)
        goto(s, Step.FOLLOW, 1 - seat)
        return
    leader_card = s.trick[0][0]
    cards = (*s.trick, (a.card, seat))
    winner = seat if a.card.suit == leader_card.suit and a.card.rank > leader_card.rank \
        else s.trick_leader
    s.tricks = (*s.tricks, Trick(s.trick_leader, cards, winner))
    s.trick = ()
    s.tricks_won = set_pair(s.tricks_won, winner, s.tricks_won[winner] + 1)
    log(s, seat, "trick", f"Plays the {a.card.name}")
    last = len(s.tricks) == 12
    points = (1 if winner != s.trick_leader else 0) + (1 if last else 0)
    score(s, winner, points, Reckon.PLAY, "trick")
    log(s, winner, "trick", "Wins the last trick" if last else "Wins the trick", points)
    check_pique(s)
    if last:
        end_deal(s)
    else:
        goto(s, Step.LEAD, winner)
