"""What every room of a registry is made with: its clock, where its seeds and packs come
from, its store, its computer seat's settings and pools (`RoomSetup`); and the two
secrets a room draws, a seat token and a pack (drawn as each deal is dealt, from the
operating system's secure source, so no deal exists before it is dealt)."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import engine
from app.computer_seat import Pace, Policy
from app.pools import CoachPool, ComputerPool
from app.store import Pack, RoomStore

Clock = Callable[[], float]
SeedSource = Callable[[], int]
# A new deal's pack, drawn when it is dealt; None: the engine's own, from the partie's
# seed (tests and tools that fix the deals by seed).
PackSource = Callable[[], Pack | None]
ChangeListener = Callable[[Any], None]  # called with the room (app/room.py)


def new_token() -> str:
    return secrets.token_urlsafe(24)  # 192 bits; DESIGN.md asks >= 128


def secure_pack() -> Pack:
    """A pack shuffled from the operating system's secure source, drawn as it is dealt."""
    deck = [c.code for c in engine.DECK]
    secrets.SystemRandom().shuffle(deck)
    return tuple(deck)


@dataclass(slots=True)
class RoomSetup:
    """What every room of a registry is made with (the registry's settings and pools)."""

    clock: Clock
    new_seed: SeedSource
    new_pack: PackSource = secure_pack
    max_connections_per_seat: int = 4
    # Called with a room when it is made and after every change (tests).
    listeners: list[ChangeListener] = field(default_factory=list)
    store: RoomStore | None = None
    # The computer seat: its policy (None: its level's), its waits, where good and
    # strong think (None: in the event loop), and strong's pace.
    policy: Policy | None = None
    computer_pace: Pace = field(default_factory=Pace)
    computer_pool: ComputerPool | None = None
    # Where hints, reviews and records are worked out (app/coach.py).
    coach_pool: CoachPool = field(default_factory=lambda: CoachPool(0))
    # At a table of strangers, how long a seat is away before the other player may give
    # it to the computer, and before they may end the partie as abandoned by it.
    away_seconds: float = 60.0
    abandon_seconds: float = 180.0
