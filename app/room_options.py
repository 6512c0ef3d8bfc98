"""What a room is made with and keeps for its life: one value, agreed before the cut.

`RoomOptions` is read from the lobby's form or the API's body, kept by the store as
JSON (`to_json` / `from_json`, the `options` of app/store.py's StoredRoom), and read
by the room, the seat views and the pages. A new choice made when a table is made is a
field here, its JSON key, and the place that reads it: nothing else carries it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import engine
from app.protocol import Level, Opponent, Pace, Seating
from engine.computer import LEVELS

OPPONENTS: tuple[Opponent, ...] = ("computer", "friend")
SEATINGS: tuple[Seating, ...] = ("link", "open")
PACES: tuple[Pace, ...] = ("now", "slow")


@dataclass(frozen=True, slots=True)
class RoomOptions:
    """opponent   "computer" or "friend" (a friend's seat may later go to the computer)
    level      the computer's level at a computer table; None with a friend
    practice   a friend's table where both seats may ask for hints
    rules      the rules the partie is played under (engine.Rules, RULES.md §8)
    seating    who may sit in the free seat: "link", people with the table's link, or
               "open", anyone: the table waits in the lobby's list (app/lobby.py), and
               its players are strangers to each other
    watching   anyone may watch: the table is listed in the lobby while it is played
               (an open table always is; a link table when its maker says so)
    names      each seat's display name (app/names.py); "" for a seat nobody has taken
    pace       "now", a partie in one sitting, or "slow", "Take your time": a move whenever
               you like, the table kept for `slow_room_days` without one (app/registry.py)"""

    opponent: Opponent = "computer"
    level: Level | None = "basic"
    practice: bool = False
    rules: engine.Rules = engine.RUBICON
    seating: Seating = "link"
    watching: bool = False
    names: tuple[str, str] = ("", "")
    pace: Pace = "now"

    def __post_init__(self) -> None:
        if self.opponent not in OPPONENTS:
            raise ValueError(f"the opponent is the computer or a friend, not {self.opponent!r}")
        if self.seating not in SEATINGS:
            raise ValueError(f"the free seat is for people with the link or for anyone, "
                             f"not {self.seating!r}")
        if self.pace not in PACES:
            raise ValueError(f"a table is played now or at your own pace, not {self.pace!r}")
        if len(self.names) != 2 or not all(isinstance(n, str) for n in self.names):
            raise ValueError(f"a table has two seats' names, not {self.names!r}")
        object.__setattr__(self, "names", tuple(self.names))
        if self.opponent == "computer":
            if self.level not in LEVELS:
                raise ValueError(f"Unknown computer level {self.level!r}: choose one of "
                                 f"{', '.join(LEVELS)}.")
            if self.practice:
                object.__setattr__(self, "practice", False)  # a computer table has hints
            object.__setattr__(self, "seating", "link")  # no free seat to be open
        elif self.level is not None:
            object.__setattr__(self, "level", None)

    def with_computer(self, level: Level) -> RoomOptions:
        """The same table, its free seat given to the computer at `level`."""
        return replace(self, opponent="computer", level=level, practice=False)

    def with_name(self, seat: int, name: str) -> RoomOptions:
        names = list(self.names)
        names[seat] = name
        return replace(self, names=(names[0], names[1]))

    @property
    def slow(self) -> bool:
        """A table played at its players' own pace ("Take your time")."""
        return self.pace == "slow"

    @property
    def public(self) -> bool:
        """Listed in the lobby while it is played: anyone may watch."""
        return self.opponent == "friend" and (self.seating == "open" or self.watching)

    def to_json(self) -> dict[str, Any]:
        """As the store keeps them: the opponent, the level at a computer table, practice
        when set, the rules when they are not Rubicon Piquet's own, and the pace when
        slow."""
        out: dict[str, Any] = {"opponent": self.opponent}
        if self.level is not None:
            out["level"] = self.level
        if self.practice:
            out["practice"] = True
        if self.rules != engine.RUBICON:
            out["rules"] = self.rules.to_json()
        if self.seating != "link":
            out["seating"] = self.seating
        if self.watching:
            out["watching"] = True
        if any(self.names):
            out["names"] = list(self.names)
        if self.pace != "now":
            out["pace"] = self.pace
        return out

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> RoomOptions:
        """From `to_json`'s form, and every earlier one the store may hold (a key left out
        takes its default). ValueError for a value that makes no sense."""
        opponent = obj.get("opponent", "computer")
        rules = obj.get("rules")
        names = obj.get("names") or ["", ""]
        return cls(opponent=opponent,
                   level=obj.get("level", "basic") if opponent == "computer" else None,
                   practice=bool(obj.get("practice", False)),
                   rules=engine.RUBICON if rules is None else engine.Rules.from_json(rules),
                   seating=obj.get("seating", "link"), watching=bool(obj.get("watching")),
                   names=(str(names[0]), str(names[1])) if len(names) == 2 else ("", ""),
                   pace=obj.get("pace", "now"))


def rules_from_form(fields: Mapping[str, str]) -> engine.Rules:
    """The rules chosen in the lobby's form (templates/_rules_choice.html): `game`
    ("rubicon" or "au_cent"), the `cards_towards_pique` and `carte_rouge` boxes, and
    `tie` ("two_more" or "one_more"; under au cent, which has no tie, it is not read).
    Nothing chosen: Rubicon Piquet. ValueError, in words, for a value not offered."""
    game = fields.get("game") or "rubicon"
    chosen: dict[str, Any] = {
        "game": game,
        "cards_towards_pique": fields.get("cards_towards_pique") in ("on", "true", "1"),
        "carte_rouge": fields.get("carte_rouge") in ("on", "true", "1"),
    }
    if game != "au_cent":
        chosen["tie"] = fields.get("tie") or "two_more"
    return engine.Rules.from_json(chosen)
