"""Carte blanche and the exchange (RULES.md §2–3): announcing and proving a carte
blanche (Law 20), elder's discard and draw, younger's, the leftovers she may turn up."""

from __future__ import annotations

from engine.actions import Action, CarteBlanche, Discard
from engine.cards import Card, sort_hand
from engine.combos import NUMBER_WORDS
from engine.declaring import start_declaring
from engine.errors import IllegalActionError
from engine.showing import show
from engine.state import Reckon, State, Step
from engine.table import (
    DiscardRule,
    Legal,
    bonus,
    describe,
    elder_seat,
    goto,
    log,
    set_hand,
    set_pair,
    younger_seat,
)


def may_announce_carte_blanche(s: State, seat: int) -> bool:
    """Held, not yet announced, and elder has not exchanged yet."""
    return (s.step is Step.ELDER_EXCHANGE and s.carte_blanche == seat
            and s.took[seat] is None and not any(b[1] == "carte_blanche" for b in s.bonuses))


def legal_carte_blanche(s: State, seat: int) -> list[Legal]:
    if seat == elder_seat(s):
        return [(CarteBlanche(True, n), f"Carte blanche, taking {NUMBER_WORDS[n]}")
                for n in range(5, 0, -1)]
    return [(CarteBlanche(True), "Carte blanche")]


def legal_elder_exchange(s: State, seat: int) -> list[Legal]:
    n = s.carte_blanche_take
    if n is not None:
        return [(DiscardRule(n, n, False), f"Discard {NUMBER_WORDS[n]}")]
    out: list[Legal] = []
    if may_announce_carte_blanche(s, seat):
        out.extend(legal_carte_blanche(s, seat))
    out.append((DiscardRule(1, min(5, len(s.stock)), False), "Discard 1 to 5 cards"))
    return out


def legal_younger_exchange(s: State, seat: int) -> list[Legal]:
    # Younger may take at most what elder left (RULES.md §3); when she discards
    # first (elder's carte blanche), that is 8 less what elder said he would take.
    left = len(s.stock) - (s.carte_blanche_take or 0) if s.step is Step.YOUNGER_DISCARD \
        else len(s.stock)
    return [(DiscardRule(1, left, True), f"Discard 1 to {left} cards")]


def legal_younger_exchange_or_pat(s: State, seat: int) -> list[Legal]:
    """Piquet au cent: younger may also stand pat, discarding nothing (RULES.md §8)."""
    (rule, _), = legal_younger_exchange(s, seat)
    assert isinstance(rule, DiscardRule)
    return [(DiscardRule(0, rule.max, True),
             f"Discard up to {NUMBER_WORDS[rule.max]}, or stand pat")]


def on_carte_blanche(s: State, seat: int, a: Action) -> None:
    assert isinstance(a, CarteBlanche) and a.announce
    elder = elder_seat(s)
    text = "Carte blanche"
    if seat == elder:
        assert a.take is not None
        s.carte_blanche_take = a.take
        text += f", taking {NUMBER_WORDS[a.take]}"
    # Scores at once and reckons first (RULES.md §2).
    bonus(s, seat, "carte_blanche", 10, Reckon.CARTE_BLANCHE, text)
    if seat == elder:
        goto(s, Step.YOUNGER_DISCARD, younger_seat(s))  # younger discards first


def check_discard(s: State, seat: int, a: Discard, rule: DiscardRule) -> None:
    n = len(a.cards)
    if not rule.min <= n <= rule.max:
        want = f"{rule.min}" if rule.min == rule.max else f"{rule.min} to {rule.max}"
        raise IllegalActionError(
            f"{describe(a)} refused: discard {want} cards here ({s.step.word}), not {n}")
    missing = [str(c) for c in a.cards if c not in s.hands[seat]]
    if missing:
        raise IllegalActionError(
            f"{describe(a)} refused: {', '.join(missing)} not in your hand ({s.step.word})")


def on_elder_exchange(s: State, seat: int, a: Action) -> None:
    assert isinstance(a, Discard)
    n = len(a.cards)
    younger = younger_seat(s)
    _discard(s, seat, a.cards)
    set_hand(s, seat, sort_hand((*s.hands[seat], *s.stock[:n])))
    s.seen_stock = s.stock[n:5]  # the rest of his five: his eyes only
    s.stock = s.stock[n:]
    s.took = set_pair(s.took, seat, n)
    log(s, seat, "exchange", f"Takes {NUMBER_WORDS[n]}")
    if s.carte_blanche_take is not None:  # younger has discarded first: she draws now
        k = s.younger_pending_draw
        set_hand(s, younger, sort_hand((*s.hands[younger], *s.stock[:k])))
        s.stock = s.stock[k:]
        s.took = set_pair(s.took, younger, k)
        s.younger_pending_draw = 0
        log(s, younger, "exchange", f"Takes {NUMBER_WORDS[k]}" if k else "Stands pat")
        start_declaring(s)
        return
    if s.carte_blanche == younger and any(b[1] == "carte_blanche" for b in s.bonuses):
        # Younger's carte blanche is proved once elder has exchanged (Law 20).
        show(s, younger, "Carte blanche", s.hands[younger])
    goto(s, Step.YOUNGER_EXCHANGE, younger)


def on_younger_exchange(s: State, seat: int, a: Action) -> None:
    assert isinstance(a, Discard)
    k = len(a.cards)
    _discard(s, seat, a.cards)
    s.expose = a.expose and k < len(s.stock) - (s.carte_blanche_take or 0)
    if s.step is Step.YOUNGER_DISCARD:
        # Elder's carte blanche: she has thrown face down; now his hand is shown, then he
        # exchanges, then she draws.
        s.younger_pending_draw = k
        log(s, seat, "exchange", f"Discards {NUMBER_WORDS[k]}" if k else "Will stand pat")
        elder = elder_seat(s)
        show(s, elder, "Carte blanche", s.hands[elder])
        goto(s, Step.ELDER_EXCHANGE, elder)
        return
    set_hand(s, seat, sort_hand((*s.hands[seat], *s.stock[:k])))
    s.stock = s.stock[k:]
    s.took = set_pair(s.took, seat, k)
    log(s, seat, "exchange", f"Takes {NUMBER_WORDS[k]}" if k else "Stands pat")
    start_declaring(s)


def _discard(s: State, seat: int, cards: tuple[Card, ...]) -> None:
    gone = set(cards)
    set_hand(s, seat, tuple(c for c in s.hands[seat] if c not in gone))
    s.discards = set_pair(s.discards, seat, sort_hand((*s.discards[seat], *cards)))
