"""Showing (RULES.md §4, "Showing"): from elder's first lead, either seat may ask to see
what scored or tied for the other; its cards are laid face up for both. Carte blanche
and younger's turned-up leftovers are shown through here too."""

from __future__ import annotations

from engine.actions import Action, See
from engine.cards import Card, sort_hand
from engine.state import ComboRecord, Shown, State
from engine.table import Legal, log

LEFTOVERS = "The cards left in the stock"  # what younger's turned-up leftovers are shown as


def show(s: State, seat: int, what: str, cards: tuple[Card, ...]) -> None:
    laid = sort_hand(cards)
    s.shown = (*s.shown, Shown(seat, what, laid))
    log(s, seat, "show", f"Shows {what.lower()}: {' '.join([c.code for c in laid])}")


def legal_see(s: State, seat: int) -> list[Legal]:
    """From elder's first lead, ask to see what scored or tied for the other seat."""
    if not s.led:
        return []
    # Worked out once per combos tuple: after the lead it rarely changes.
    return list(s.derived("see", s.combos, _offers)[seat])


def _offers(combos: tuple[ComboRecord, ...]) -> tuple[tuple[Legal, ...], tuple[Legal, ...]]:
    """Each seat's `see` entries: what scored or tied for the other seat, not yet shown."""
    return tuple(tuple((_see(i), f"See the {r.public}")  # type: ignore[return-value]
                       for i, r in enumerate(combos) if r.seat != seat and not r.shown)
                 for seat in (0, 1))


_SEES = [See(i) for i in range(32)]


def _see(i: int) -> See:
    return _SEES[i] if i < len(_SEES) else See(i)


def on_see(s: State, seat: int, a: Action) -> None:
    assert isinstance(a, See)
    r = s.combos[a.combo]
    combos = list(s.combos)
    combos[a.combo] = ComboRecord(r.seat, r.combo, r.status, r.public, True, r.told)
    s.combos = tuple(combos)
    log(s, seat, "show", f"Asks to see the {r.public}")
    show(s, r.seat, r.combo.label, r.combo.cards)
