"""Showing (RULES.md §4, "Showing"): from elder's first lead, either seat may ask to see
what scored or tied for the other; its cards are laid face up for both. Carte blanche
and younger's turned-up leftovers are shown through here too."""

from __future__ import annotations

from dataclasses import replace

from engine.actions import Action, See
from engine.cards import Card, sort_hand
from engine.state import ComboRecord, Shown, State
from engine.table import Legal, log

LEFTOVERS = "The cards left in the stock"  # what younger's turned-up leftovers are shown as


def show(s: State, seat: int, what: str, cards: tuple[Card, ...]) -> None:
    s.shown = (*s.shown, Shown(seat, what, sort_hand(cards)))
    log(s, seat, "show", f"Shows {what.lower()}: {' '.join([c.code for c in sort_hand(cards)])}")


def legal_see(s: State, seat: int) -> list[Legal]:
    """From elder's first lead, ask to see what scored or tied for the other seat."""
    if not s.led:
        return []
    memo = s.see_memo
    if memo is None or memo[0] is not s.combos:
        memo = s.see_memo = (s.combos, _offers(s.combos, 0), _offers(s.combos, 1))
    return list(memo[1 + seat])


def _offers(combos: tuple[ComboRecord, ...], seat: int) -> tuple[Legal, ...]:
    return tuple((_see(i), f"See the {r.public}")
                 for i, r in enumerate(combos) if r.seat != seat and not r.shown)


_SEES = [See(i) for i in range(32)]


def _see(i: int) -> See:
    return _SEES[i] if i < len(_SEES) else See(i)


def on_see(s: State, seat: int, a: Action) -> None:
    assert isinstance(a, See)
    r = s.combos[a.combo]
    s.combos = tuple(replace(x, shown=True) if i == a.combo else x
                     for i, x in enumerate(s.combos))
    log(s, seat, "show", f"Asks to see the {r.public}")
    show(s, r.seat, r.combo.label, r.combo.cards)
