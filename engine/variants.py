"""The rules a partie is played under (RULES.md §8, "Variants"): one frozen value, agreed
before the cut and kept in the state. `Rules()` is Rubicon Piquet as §1–7 state it.

    game                 "rubicon" (six deals, the Rubicon) or "au_cent" (games of 100,
                         the partie to the first to three games)
    cards_towards_pique  the 10 for the cards is scored at the seventh trick, as a play
                         point, so it counts towards (or blocks) a pique
    carte_rouge          +20 to a seat whose twelve cards all lie in combinations that
                         scored for it, reckoned after the sets
    tie                  Rubicon only: level after six deals, "two_more" deals (each seat
                         deals once) or "one_more"; still level, a draw

How each one changes the flow is in engine.rules (`flow_for`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, cast

Game = Literal["rubicon", "au_cent"]
Tie = Literal["two_more", "one_more"]

GAMES: tuple[Game, ...] = ("rubicon", "au_cent")
TIES: tuple[Tie, ...] = ("two_more", "one_more")

# Piquet au cent (RULES.md §8): a game is 100 up; under 50 the loser loses a double
# game; the partie to the first to three games, a double counting two.
GAME_TO = 100
DOUBLE_UNDER = 50
PARTIE_GAMES = 3

_KEYS = ("game", "cards_towards_pique", "carte_rouge", "tie")


@dataclass(frozen=True, slots=True)
class Rules:
    game: Game = "rubicon"
    cards_towards_pique: bool = False
    carte_rouge: bool = False
    tie: Tie = "two_more"

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise ValueError(f"the game is rubicon or au_cent, not {self.game!r}")
        for name in ("cards_towards_pique", "carte_rouge"):
            if type(getattr(self, name)) is not bool:
                raise ValueError(f"{name} is true or false, not {getattr(self, name)!r}")
        if self.tie not in TIES:
            raise ValueError(f"the tie rule is two_more or one_more, not {self.tie!r}")
        if self.game == "au_cent" and self.tie != "two_more":
            raise ValueError("a tie rule is for Rubicon Piquet only: a game of Piquet au "
                             "cent ends at 100, never level")

    @property
    def tie_deals(self) -> int:
        """Rubicon: the deals a partie level after six is played to (7 or 8)."""
        return 7 if self.tie == "one_more" else 8

    def to_json(self) -> dict[str, Any]:
        """The rules as JSON; under au cent without the tie rule (it has none)."""
        out: dict[str, Any] = {"game": self.game,
                               "cards_towards_pique": self.cards_towards_pique,
                               "carte_rouge": self.carte_rouge}
        if self.game == "rubicon":
            out["tie"] = self.tie
        return out

    @classmethod
    def from_json(cls, obj: Any) -> Rules:
        """The rules from `to_json`'s form (a key left out takes its default).
        ValueError, in words, for anything else: not an object, an unknown key or value,
        or a combination that makes no sense (a tie rule under au cent)."""
        if not isinstance(obj, dict):
            raise ValueError(f"the rules are an object, not {obj!r}")
        unknown = sorted(str(k) for k in obj if k not in _KEYS)
        if unknown:
            raise ValueError(f"no such rule: {', '.join(unknown)} (the rules are "
                             f"{', '.join(_KEYS)})")
        if obj.get("game") == "au_cent" and "tie" in obj:
            raise ValueError("a tie rule is for Rubicon Piquet only: a game of Piquet au "
                             "cent ends at 100, never level")
        return cls(**cast(dict[str, Any], obj))

    @classmethod
    def from_names(cls, text: str) -> Rules:
        """The rules from a list of names separated by commas, as a command line takes
        them: "au_cent", "cards_towards_pique", "carte_rouge", "one_more" (or
        "rubicon", or nothing: Rubicon Piquet). ValueError, in words, for another name or
        a combination that makes no sense."""
        chosen: dict[str, Any] = {}
        for name in (n.strip() for n in text.split(",")):
            if name in ("", "rubicon"):
                continue
            if name not in NAMES:
                raise ValueError(f"no such rule: {name!r} (the rules are "
                                 f"{', '.join(NAMES)}, separated by commas)")
            key, value = NAMES[name]
            chosen[key] = value
        return cls(**chosen)

    def names(self) -> str:
        """`from_names`' form of these rules ("rubicon" for Rubicon Piquet's own)."""
        out = [name for name, (key, value) in NAMES.items() if getattr(self, key) == value]
        return ",".join(out) or "rubicon"

    def describe(self) -> str:
        """The rules in a few words, e.g. "Piquet au cent, carte rouge"."""
        words = ["Rubicon Piquet" if self.game == "rubicon" else "Piquet au cent"]
        if self.cards_towards_pique:
            words.append("cards towards pique")
        if self.carte_rouge:
            words.append("carte rouge")
        if self.game == "rubicon" and self.tie == "one_more":
            words.append("one more deal when level")
        return ", ".join(words)


RUBICON = Rules()

# The command line's names of the variants (`Rules.from_names`): each sets one field.
NAMES: dict[str, tuple[str, Any]] = {
    "au_cent": ("game", "au_cent"), "cards_towards_pique": ("cards_towards_pique", True),
    "carte_rouge": ("carte_rouge", True), "one_more": ("tie", "one_more")}

EVERY_RULES: tuple[Rules, ...] = tuple(
    Rules(game=g, cards_towards_pique=c, carte_rouge=r, tie=t)
    for g in GAMES for c in (False, True) for r in (False, True)
    for t in (TIES if g == "rubicon" else ("two_more",)))
"""Every combination of the variants (12), Rubicon Piquet's own first."""
