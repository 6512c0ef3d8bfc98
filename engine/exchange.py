"""Carte blanche and the exchange (RULES.md §2–3): announcing and proving a carte
blanche (Law 20), elder's discard and draw, younger's, the leftovers she may turn up."""

from __future__ import annotations

from engine.actions import Action, CarteBlanche, Discard
from engine.cards import Card, sort_hand
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
from engine.words import WN, Phrase, W, Words

CARTE_BLANCHE = {"code": W("bonus.carte_blanche", "carte blanche")}
_TAKING = WN("carte_blanche_taking", "Carte blanche, taking {n:word}",
             "Carte blanche, taking {n:word}")
_DISCARD_N = WN("discard_n", "Discard {n:word}", "Discard {n:word}")
_DISCARD_TO = WN("discard_to", "Discard 1 to {n} cards", "Discard 1 to {n} cards")
_DISCARD_OR_PAT = WN("discard_or_pat", "Discard up to {n:word}, or stand pat",
                     "Discard up to {n:word}, or stand pat")
_TAKES = WN("takes", "Takes {n:word}", "Takes {n:word}")
_STANDS_PAT = {"code": W("stands_pat", "Stands pat")}
_DISCARDS = WN("discards", "Discards {n:word}", "Discards {n:word}")
_WILL_STAND_PAT = {"code": W("will_stand_pat", "Will stand pat")}
_DISCARD_EXACTLY = W("refused.discard_exactly", "You discard {want} cards here, not {got}.")
_DISCARD_BETWEEN = W("refused.discard_between",
                     "You discard {least} to {most} cards here, not {got}.")
_NOT_HELD = W("refused.not_held", "Not in your hand: {cards:name}.")


def _takes(n: int) -> Phrase:
    return {"code": _TAKES, "n": n} if n else _STANDS_PAT


def may_announce_carte_blanche(s: State, seat: int) -> bool:
    """Held, not yet announced, and elder has not exchanged yet."""
    return (s.step is Step.ELDER_EXCHANGE and s.carte_blanche == seat
            and s.took[seat] is None and not any(b[1] == "carte_blanche" for b in s.bonuses))


def legal_carte_blanche(s: State, seat: int) -> list[Legal]:
    if seat == elder_seat(s):
        return [(CarteBlanche(True, n), Words({"code": _TAKING, "n": n}))
                for n in range(5, 0, -1)]
    return [(CarteBlanche(True), Words(CARTE_BLANCHE))]


def legal_elder_exchange(s: State, seat: int) -> list[Legal]:
    n = s.carte_blanche_take
    if n is not None:
        return [(DiscardRule(n, n, False), Words({"code": _DISCARD_N, "n": n}))]
    out: list[Legal] = []
    if may_announce_carte_blanche(s, seat):
        out.extend(legal_carte_blanche(s, seat))
    most = min(5, len(s.stock))
    out.append((DiscardRule(1, most, False), Words({"code": _DISCARD_TO, "n": most})))
    return out


def legal_younger_exchange(s: State, seat: int) -> list[Legal]:
    # Younger may take at most what elder left (RULES.md §3); when she discards
    # first (elder's carte blanche), that is 8 less what elder said he would take.
    left = len(s.stock) - (s.carte_blanche_take or 0) if s.step is Step.YOUNGER_DISCARD \
        else len(s.stock)
    return [(DiscardRule(1, left, True), Words({"code": _DISCARD_TO, "n": left}))]


def legal_younger_exchange_or_pat(s: State, seat: int) -> list[Legal]:
    """Piquet au cent: younger may also stand pat, discarding nothing (RULES.md §8)."""
    (rule, _), = legal_younger_exchange(s, seat)
    assert isinstance(rule, DiscardRule)
    return [(DiscardRule(0, rule.max, True),
             Words({"code": _DISCARD_OR_PAT, "n": rule.max}))]


def on_carte_blanche(s: State, seat: int, a: Action) -> None:
    assert isinstance(a, CarteBlanche) and a.announce
    elder = elder_seat(s)
    said: Phrase = CARTE_BLANCHE
    if seat == elder:
        assert a.take is not None
        s.carte_blanche_take = a.take
        said = {"code": _TAKING, "n": a.take}
    # Scores at once and reckons first (RULES.md §2).
    bonus(s, seat, "carte_blanche", 10, Reckon.CARTE_BLANCHE, said)
    if seat == elder:
        goto(s, Step.YOUNGER_DISCARD, younger_seat(s))  # younger discards first


def check_discard(s: State, seat: int, a: Discard, rule: DiscardRule) -> None:
    n = len(a.cards)
    if not rule.min <= n <= rule.max:
        want = f"{rule.min}" if rule.min == rule.max else f"{rule.min} to {rule.max}"
        raise IllegalActionError(
            f"{describe(a)} refused: discard {want} cards here ({s.step.word}), not {n}",
            {"code": _DISCARD_EXACTLY, "want": rule.min, "got": n} if rule.min == rule.max
            else {"code": _DISCARD_BETWEEN, "least": rule.min, "most": rule.max, "got": n})
    missing = [str(c) for c in a.cards if c not in s.hands[seat]]
    if missing:
        raise IllegalActionError(
            f"{describe(a)} refused: {', '.join(missing)} not in your hand ({s.step.word})",
            {"code": _NOT_HELD, "cards": missing})


def on_elder_exchange(s: State, seat: int, a: Action) -> None:
    assert isinstance(a, Discard)
    n = len(a.cards)
    younger = younger_seat(s)
    _discard(s, seat, a.cards)
    set_hand(s, seat, sort_hand((*s.hands[seat], *s.stock[:n])))
    s.seen_stock = s.stock[n:5]  # the rest of his five: his eyes only
    s.stock = s.stock[n:]
    s.took = set_pair(s.took, seat, n)
    log(s, seat, "exchange", _takes(n))
    if s.carte_blanche_take is not None:  # younger has discarded first: she draws now
        k = s.younger_pending_draw
        set_hand(s, younger, sort_hand((*s.hands[younger], *s.stock[:k])))
        s.stock = s.stock[k:]
        s.took = set_pair(s.took, younger, k)
        s.younger_pending_draw = 0
        log(s, younger, "exchange", _takes(k))
        start_declaring(s)
        return
    if s.carte_blanche == younger and any(b[1] == "carte_blanche" for b in s.bonuses):
        # Younger's carte blanche is proved once elder has exchanged (Law 20).
        show(s, younger, CARTE_BLANCHE, s.hands[younger])
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
        log(s, seat, "exchange", {"code": _DISCARDS, "n": k} if k else _WILL_STAND_PAT)
        elder = elder_seat(s)
        show(s, elder, CARTE_BLANCHE, s.hands[elder])
        goto(s, Step.ELDER_EXCHANGE, elder)
        return
    set_hand(s, seat, sort_hand((*s.hands[seat], *s.stock[:k])))
    s.stock = s.stock[k:]
    s.took = set_pair(s.took, seat, k)
    log(s, seat, "exchange", _takes(k))
    start_declaring(s)


def _discard(s: State, seat: int, cards: tuple[Card, ...]) -> None:
    gone = set(cards)
    set_hand(s, seat, tuple(c for c in s.hands[seat] if c not in gone))
    s.discards = set_pair(s.discards, seat, sort_hand((*s.discards[seat], *cards)))
