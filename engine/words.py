"""What the engine says, as data: a *phrase* is a code and the values its words need,

    {"code": "leads", "card": "QH"}          "Leads the Queen of Hearts"
    {"code": "scores_for", "points": 4, "what": {"code": "the_seq", "n": 4}}
                                             "Scores 4 for the quart"

and the English of every code (`W`, `WN` below), which the catalogues translate
(app/locales, docs/translating.md): a code is the message's context, its English the
message. A page renders a phrase in its reader's language; `english(phrase)` renders it
in English, for the engine's own `text` and `label` fields and its command lines.

A template's placeholders are `{name}` or `{name:form}`, a value of the phrase written
as it is (a number, a name) or in a form:

    a phrase        the phrase's own words (nested: no capital letter; `cap`: with one)
    word            a number in words ("three": code `word.3`)
    seq             a sequence's name by its length ("quart": `seq.4`)
    name, the       a card by code: "Queen of Hearts", "the Queen of Hearts" (`card`
                    with `rank.Q` or `the_rank.Q`, and `suit.H`)
    short           a card by code as on its face: "Q♥" (no words)
    to, ranks, of   a rank ("K"): "to the king" (`to.K`), "kings" (`ranks.K`), "of kings"
                    (`of.K`)
    suits, in       a suit letter: "hearts" (`suits.H`), "in hearts" (`in.H`)
    and, semi       a list of phrases: "a, b and c" (`and`), "a; b"
    .0f, +.1f, g    a number as Python's format() writes it, with the language's
                    decimal sign

A list of cards is each card in the form, apart by ", " (by " " in `short`). A code
made with `WN` has two forms, chosen by the phrase's count `n` (the catalogue's plural
forms in other languages). A phrase said on its own (not inside another) starts with a
capital letter, unless its template starts with a plain value (a name, a number).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Phrase = dict[str, Any]

# Every code and its English: a str, or (singular, plural) for a code counted by "n".
WORDS: dict[str, str | tuple[str, str]] = {}


def W(code: str, english: str) -> str:
    """A code and its English (extracted for translation: its context and message)."""
    WORDS[code] = english
    return code


def WN(code: str, singular: str, plural: str) -> str:
    """A code counted by its phrase's `n`, and its English in the singular and plural."""
    WORDS[code] = (singular, plural)
    return code


def phrase(code: str, **values: Any) -> Phrase:
    return {"code": code, **values}


class Words(str):
    """English words that know their phrase: a label or a log line's text is a str (its
    English) whose `say` is the phrase it renders."""

    say: Phrase

    def __new__(cls, say: Phrase) -> Words:
        # The English of a phrase is worked out once: a deal says the same few dozen
        # phrases over and over (a call, a count), and the engine makes one at most steps.
        key = repr(say)  # (a phrase's values are numbers, strings, lists, phrases)
        text = _SAID.get(key)
        if text is None:
            if len(_SAID) >= _SAID_KEPT:
                _SAID.clear()
            text = _SAID[key] = english(say)
        words = super().__new__(cls, text)
        words.say = say
        return words

    def __reduce__(self) -> tuple[Any, ...]:
        return (Words, (self.say,))


_SAID: dict[str, str] = {}  # English, by a phrase's repr
_SAID_KEPT = 4096


# --- forms -------------------------------------------------------------------------------

GLYPHS = {"S": "♠", "H": "♥", "C": "♣", "D": "♦"}

# TRANSLATORS: a card's name is `card` with its rank (`rank.X`) and suit (`suit.X`):
# "Queen of Hearts"; with `the_rank.X` in its place, "the Queen of Hearts".
W("card", "{rank} of {suit}")
W("rank.A", "Ace")
W("rank.K", "King")
W("rank.Q", "Queen")
W("rank.J", "Jack")
W("rank.10", "Ten")
W("rank.9", "Nine")
W("rank.8", "Eight")
W("rank.7", "Seven")
W("the_rank.A", "the Ace")
W("the_rank.K", "the King")
W("the_rank.Q", "the Queen")
W("the_rank.J", "the Jack")
W("the_rank.10", "the Ten")
W("the_rank.9", "the Nine")
W("the_rank.8", "the Eight")
W("the_rank.7", "the Seven")
W("suit.S", "Spades")
W("suit.H", "Hearts")
W("suit.C", "Clubs")
W("suit.D", "Diamonds")
# TRANSLATORS: a sequence's top card, after its name: "quart to the king".
W("to.A", "to the ace")
W("to.K", "to the king")
W("to.Q", "to the queen")
W("to.J", "to the jack")
W("to.10", "to the ten")
W("to.9", "to the nine")
W("to.8", "to the eight")
W("to.7", "to the seven")
# TRANSLATORS: a set's rank: "three kings"; `of.X` where a language says "of" (a
# quatorze).
W("ranks.A", "aces")
W("ranks.K", "kings")
W("ranks.Q", "queens")
W("ranks.J", "jacks")
W("ranks.10", "tens")
W("of.A", "of aces")
W("of.K", "of kings")
W("of.Q", "of queens")
W("of.J", "of jacks")
W("of.10", "of tens")
# TRANSLATORS: a suit in a sentence: "five spades for the point", "in spades".
W("suits.S", "spades")
W("suits.H", "hearts")
W("suits.C", "clubs")
W("suits.D", "diamonds")
W("in.S", "in spades")
W("in.H", "in hearts")
W("in.C", "in clubs")
W("in.D", "in diamonds")
# TRANSLATORS: a count in words: "Takes three", "point of five".
W("word.0", "nothing")
W("word.1", "one")
W("word.2", "two")
W("word.3", "three")
W("word.4", "four")
W("word.5", "five")
W("word.6", "six")
W("word.7", "seven")
W("word.8", "eight")
# TRANSLATORS: a sequence by its length.
W("seq.3", "tierce")
W("seq.4", "quart")
W("seq.5", "quint")
W("seq.6", "sixième")
W("seq.7", "septième")
W("seq.8", "huitième")
# TRANSLATORS: the last two items of a list: "a, b and c".
W("and", "{first} and {last}")

_RANK_FORMS = ("to", "ranks", "of")
_SUIT_FORMS = ("suits", "in")
_NUMBER = re.compile(r"[+]?\.\d+f|g|d")
_FIELD = re.compile(r"\{(\w+)(?::([^}]+))?\}")

Template = Callable[[str, "int | None"], str]


class Speaker:
    """Renders phrases with `template(code, n)`: the words of a code (for a counted code,
    its form for `n`) in one language, and its decimal sign."""

    def __init__(self, template: Template, decimal: str = ".") -> None:
        self.template = template
        self.decimal = decimal

    def say(self, p: Phrase, top: bool = True) -> str:
        code = p.get("code", "")
        n = p.get("n")
        text = self.template(code, n if isinstance(n, int) else None)
        out = _FIELD.sub(lambda m: self.value(p.get(m[1]), m[2]), text)
        if top and out[:1].islower() and _capital(text, p):
            out = out[0].upper() + out[1:]
        return out

    def value(self, v: Any, form: str | None) -> str:
        if isinstance(v, dict):
            return self.say(v, top=form == "cap")
        if isinstance(v, list):
            if form in ("and", "semi"):
                items = [self.value(x, None) for x in v]
                if form == "semi" or len(items) < 2:
                    return "; ".join(items)
                return self.say({"code": "and", "first": ", ".join(items[:-1]),
                                 "last": items[-1]}, top=False)
            return (" " if form == "short" else ", ").join(self.value(x, form) for x in v)
        if form is None or v is None:
            return "" if v is None else str(v)
        return self.form(v, form)

    def form(self, v: Any, form: str) -> str:
        if _NUMBER.fullmatch(form):
            return format(v, form).replace(".", self.decimal)
        if form in ("word", "seq"):
            return self.template(f"{form}.{v}", None)
        if form in ("name", "the"):
            code = str(v)
            return self.template("card", None).format(
                rank=self.template(f"{'rank' if form == 'name' else 'the_rank'}.{code[:-1]}",
                                   None),
                suit=self.template(f"suit.{code[-1]}", None))
        if form == "short":
            return f"{str(v)[:-1]}{GLYPHS.get(str(v)[-1], '')}"
        if form in _RANK_FORMS or form in _SUIT_FORMS:
            return self.template(f"{form}.{v}", None)
        return str(v)


def _capital(template: str, p: Phrase) -> bool:
    """A phrase on its own starts with a capital, but where its first word is a plain
    value (a name as its owner wrote it)."""
    if not template.startswith("{"):
        return True
    first = _FIELD.match(template)
    if first is None:
        return True
    value = p.get(first[1])
    return first[2] is not None or isinstance(value, dict | list)


def _english(code: str, n: int | None) -> str:
    words = WORDS.get(code)
    if words is None:
        return code  # an unknown code says itself
    if isinstance(words, tuple):
        return words[0] if n == 1 else words[1]
    return words


ENGLISH = Speaker(_english)


def english(p: Phrase, top: bool = True) -> str:
    """The phrase in English."""
    return ENGLISH.say(p, top)


def card_phrase(code: str) -> Phrase:
    """A card named on its own ("Queen of Hearts")."""
    return {"code": "card_name", "card": code}


W("card_name", "{card:name}")
