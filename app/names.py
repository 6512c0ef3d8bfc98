"""Display names: what a person is called at a table and in the lobby (issue 37).

A name is 1 to 24 characters of letters, digits, spaces and `- _ . '`, trimmed (and
composed, NFC); a visitor who gives none is "Guest 4821". Refused, with a reason in
words: anything else, the computer's name and its levels' ("Computer", "Strong"), "You"
(what the table calls its own seat), and, at a table, a name that differs from the
other seat's only in case or in letters that look alike ("Alice", "ALICE", "Аlice" with
a Cyrillic А, "A1ice"). A name is text and never markup: no `<`, `&`, quote, control
character or direction mark gets past the rules, and the pages write names as text
anyway (Jinja escapes, the scripts set textContent).

The name a browser goes by is kept in its cookie `piquet_name` (percent-encoded), set
from the lobby (`POST /name`), and read again, and checked again, on every request that
makes or joins a table.
"""

from __future__ import annotations

import secrets
import unicodedata
from urllib.parse import quote, unquote

from app import i18n
from app.i18n import N_, Text, _
from engine.computer import LEVELS

MAX_NAME = 24
NAME_COOKIE = "piquet_name"
# Besides letters and digits: the space and these.
MARKS = "-_.'"

# Letters of other scripts that look like a Latin one, and digits that look like a
# letter, mapped to it (after case folding and with accents taken off): enough to catch
# a name made to pass for the other seat's. Not Unicode's whole confusables table: only
# a name equal to the other seat's is refused, and these are the ones a keyboard gives.
LOOK_ALIKE = str.maketrans({
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o",
    "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "l", "ї": "l",
    "ј": "j", "ԁ": "d", "һ": "h", "ӏ": "l", "ո": "n",
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "l", "κ": "k", "ν": "v", "ο": "o",
    "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "γ": "y", "ω": "w", "μ": "u",
    # Latin look-alikes and digits: I and l are one stroke in most faces.
    "i": "l", "ı": "l", "0": "o", "1": "l", "ɡ": "g",
})
# Pairs of letters that read as one.
LOOK_ALIKE_PAIRS = (("rn", "m"), ("vv", "w"))


class NameRefused(ValueError):
    """A name that may not be used, with the reason in words (its message)."""


def _shown(ch: str) -> str:
    """A refused character as a person can read it: itself if it shows, else its code
    (a direction mark or a control character would not show, or would turn the line)."""
    if ch.isprintable() and not ch.isspace() and unicodedata.category(ch)[0] != "C":
        return _("“{ch}”", ch=ch)
    return f"U+{ord(ch):04X}"


def _allowed(ch: str) -> bool:
    return ch == " " or ch in MARKS or ch.isalpha() or unicodedata.category(ch) == "Nd"


def look(name: str) -> str:
    """The name as it looks: accents off, case folded, look-alike letters as one, spaces
    as one. Two names that look the same have the same `look`."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", name)
                     if not unicodedata.combining(c))
    folded = " ".join(plain.casefold().split()).translate(LOOK_ALIKE)
    for pair, one in LOOK_ALIKE_PAIRS:
        folded = folded.replace(pair, one)
    return folded


# Names a person may not take: the computer's, its levels', and how the table calls you,
# in every language the site speaks (app/i18n.py: a page in French calls the computer
# "Ordinateur").
def _reserved() -> dict[str, Text]:
    found: dict[str, Text] = {}
    for language in i18n.languages().values():
        computer, you = language.page_words("Computer"), language.page_words("You")
        found.setdefault(look(computer), N_("“{name}” is the computer's name at the table",
                                            name=computer))
        found.setdefault(look(you), N_("“{name}” is what the table calls your own seat",
                                       name=you))
        for level in LEVELS:
            name = language.say({"code": f"level.{level}.name"})
            found.setdefault(look(name), N_(
                "“{name}” is the name of one of the computer's levels", name=name))
    return found


_RESERVED: dict[str, Text] = {}


def display_name(text: str) -> str:
    """The name `text` gives, trimmed; "" for none (a guest). NameRefused, with the
    reason, for a name the rules above refuse."""
    name = unicodedata.normalize("NFC", text).strip()
    if not name:
        return ""
    bad = next((ch for ch in name if not _allowed(ch)), None)
    if bad is not None:
        raise NameRefused(_("A name holds letters, digits, spaces and - _ . ' only: "
                            "{character} is not allowed.", character=_shown(bad)))
    if len(name) > MAX_NAME:
        raise NameRefused(_("A name is at most {most} characters; this one has {length}.",
                            most=MAX_NAME, length=len(name)))
    if not _RESERVED:
        _RESERVED.update(_reserved())
    reserved = _RESERVED.get(look(name))
    if reserved is not None:
        raise NameRefused(_("{reason}: choose another name.", reason=str(reserved)))
    return name


def refuse_look_alike(name: str, other: str) -> None:
    """NameRefused if `name` looks like the other seat's name `other`."""
    if other and look(name) == look(other):
        raise NameRefused(same_name(other))


def same_name(other: str) -> str:
    """Why a name like the other player's is refused."""
    return _("The other player is called “{name}”: choose a name that does not look like "
             "theirs.", name=other)


def guest_name(other: str = "") -> str:
    """A name for a visitor who gave none, "Guest 4821" (in the request's language),
    never one like `other`."""
    while True:
        name = _("Guest {number}", number=1000 + secrets.randbelow(9000))
        if look(name) != look(other):
            return name


def name_cookie_value(name: str) -> str:
    return quote(name, safe="")


def name_from_cookie(value: str | None) -> str:
    """The name a browser's cookie holds, checked again ("" if none, or if it would be
    refused: a cookie is the browser's to change)."""
    if not value:
        return ""
    try:
        return display_name(unquote(value))
    except NameRefused:
        return ""
