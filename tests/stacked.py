"""Stacked deals for the variants' tests (RULES.md §8), shared by the server's and the
browser's: hands by role, and the packs that deal them."""

from __future__ import annotations

import engine

AU_CENT = engine.Rules(game="au_cent", carte_rouge=True)

# Elder throws the seven of spades (his first card: a seat that discards the fewest it
# may) and takes the king of diamonds: eight hearts, three aces, three kings, every card in
# a combination. Younger stands pat and answers "Good" to all: point 8, huitième 18, trios
# 6, carte rouge 20, repique 60. Under Piquet au cent: over 100 before a card is played, a
# double game.
GAME_IN_ONE = "7S AH KH QH JH 10H 9H 8H 7H AC AD KC"
_REST = [c.code for c in engine.DECK if c.code not in [*GAME_IN_ONE.split(), "KD"]]
GAME_IN_ONE_HANDS = (GAME_IN_ONE, " ".join(_REST[:12]), " ".join(["KD", *_REST[12:]]))


def pack_of(elder: str, younger: str, stock: str) -> tuple[str, ...]:
    """The pack that deals these hands (card codes apart by spaces), as codes."""
    return tuple(c.code for c in engine.deck_for(elder, younger, stock))


GAME_IN_ONE_PACK = pack_of(*GAME_IN_ONE_HANDS)
