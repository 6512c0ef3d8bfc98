"""A table server whose parties start from given seeds, so a browser test can meet a
rare hand (carte blanche) through the real page. Run as
`PIQUET_TEST_SEEDS=12,34 python -m tests.browser.seeded_app`: room n gets seed n.

Stacked deals: `PIQUET_TEST_PACKS` (packs in dealing order, 32 card codes each, the packs
apart by ";": `engine.deck_for` builds them from the hands) deals them in turn, one per
deal dealt (the seeds still make the cut). `PIQUET_TEST_COMPUTER=page`: the computer seat
plays as a browser test's Seat does (deals.page_choice), so a deal dealt to each seat in
turn scores the same for each."""

from __future__ import annotations

import itertools
import os
from typing import Any

import uvicorn

from app.main import create_app
from app.settings import Settings
from tests.browser.deals import page_choice


def as_the_page_plays(view: dict[str, Any]) -> dict[str, Any]:
    """The computer's move as the page's Seat would make it (out of turn: asks to see)."""
    mine = [a for a in view["legal"] if a["type"] != "see"]
    if not mine:
        return {k: v for k, v in view["legal"][0].items() if k not in ("label", "say")}
    return page_choice(view, mine)


def main() -> None:
    seeds = itertools.cycle([int(x) for x in os.environ["PIQUET_TEST_SEEDS"].split(",")])
    stacked = os.environ.get("PIQUET_TEST_PACKS")
    packs = itertools.cycle([tuple(p.split()) for p in stacked.split(";")]) if stacked else None
    settings = Settings()
    # The deals too come from the seeds (not from secure packs drawn as they are dealt),
    # or from the stacked packs.
    app = create_app(
        settings, new_seed=lambda: next(seeds),
        new_pack=(lambda: next(packs)) if packs is not None else (lambda: None),
        policy=as_the_page_plays if os.environ.get("PIQUET_TEST_COMPUTER") == "page" else None)
    uvicorn.run(app, host=settings.host, port=settings.port, log_level="warning")


if __name__ == "__main__":
    main()
