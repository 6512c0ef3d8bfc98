"""Showing (RULES.md §4, "Showing"): from elder's first lead, either seat may ask to see
what scored or tied for the other; its cards are laid face up for both. Carte blanche
and younger's turned-up leftovers are shown through here too."""

from __future__ import annotations

from engine.actions import Action, See
from engine.cards import Card, sort_hand
from engine.combos import Category, Combo
from engine.state import ComboRecord, Shown, State
from engine.table import Legal, log
from engine.words import Phrase, W, Words

# What younger's turned-up leftovers are shown as.
LEFTOVERS = Words({"code": W("leftovers", "the cards left in the stock")})
_SHOWS = W("shows", "Shows {what}: {cards:name}")
_SEE = W("see", "See {what}")
_ASKS = W("asks_to_see", "Asks to see {what}")


def show(s: State, seat: int, what: Phrase, cards: tuple[Card, ...]) -> None:
    laid = sort_hand(cards)
    s.shown = (*s.shown, Shown(seat, Words(what), laid))
    # In words: the log is read, and read aloud (the page's live region).
    log(s, seat, "show", {"code": _SHOWS, "what": what, "cards": [c.code for c in laid]})


def legal_see(s: State, seat: int) -> list[Legal]:
    """From elder's first lead, ask to see what scored or tied for the other seat."""
    if not s.led:
        return []
    # Worked out once per combos tuple: after the lead it rarely changes.
    return list(s.derived("see", s.combos, _offers)[seat])


def _offers(combos: tuple[ComboRecord, ...]) -> tuple[tuple[Legal, ...], tuple[Legal, ...]]:
    """Each seat's `see` entries: what scored or tied for the other seat, not yet shown."""
    return tuple(tuple((_see(i), _see_words(r.combo, r.told))
                       for i, r in enumerate(combos) if r.seat != seat and not r.shown)
                 for seat in (0, 1))  # type: ignore[return-value]


def _see_words(combo: Combo, told: int) -> Words:
    """"See the quart": made once for every call alike (see Combo.words)."""
    k = (combo.category, combo.key, told >= 2)
    words = _SEE_WORDS.get(k)
    if words is None:
        words = _SEE_WORDS[k] = Words({"code": _SEE, "what": combo.the(told)})
    return words


_SEE_WORDS: dict[tuple[Category, tuple[int, int], bool], Words] = {}


_SEES = [See(i) for i in range(32)]


def _see(i: int) -> See:
    return _SEES[i] if i < len(_SEES) else See(i)


def on_see(s: State, seat: int, a: Action) -> None:
    assert isinstance(a, See)
    r = s.combos[a.combo]
    combos = list(s.combos)
    combos[a.combo] = ComboRecord(r.seat, r.combo, r.status, r.public, True, r.told)
    s.combos = tuple(combos)
    log(s, seat, "show", {"code": _ASKS, "what": r.combo.the(r.told)})
    show(s, r.seat, r.combo.label.say, r.combo.cards)
