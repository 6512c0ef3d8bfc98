"""The site in its reader's language (issue 38; docs/translating.md).

Two gettext domains, catalogues in `app/locales/<lang>/LC_MESSAGES/`:

- `messages`: what the server and the templates say (pages, refusals, notices), marked
  `_()` (said now, in the request's language), `N_()` (said later, in the language of
  whoever it is said to: a socket's) and `{% trans %}` / `_()` in the templates;
- `js`: what the pages' scripts say (`t()`, `nt()`) and the engine's phrases (engine.words:
  a phrase's code is its context, its English the message). A page gets it as JSON from
  `/i18n/<lang>.json` (`catalogue`), and the server renders phrases with it too (a
  refusal, a table's notice: `Language.say`).

The language of a request: the `piquet_lang` cookie (the header's choice), else the best
of `Accept-Language`, else English (`choose`). A socket keeps the language of its
handshake (app/ws.py). English is the source: it needs no catalogue.
"""

from __future__ import annotations

import contextvars
import hashlib
import logging
from dataclasses import dataclass, field
from functools import cached_property
from io import BytesIO
from pathlib import Path
from typing import Any

import orjson
from babel import Locale, UnknownLocaleError
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po
from babel.numbers import get_decimal_symbol
from babel.plural import PluralRule
from babel.support import NullTranslations, Translations

import engine.computer.advice
import engine.review
from engine.errors import PiquetError
from engine.words import WORDS, Phrase, Speaker

log = logging.getLogger("piquet")

LOCALES = Path(__file__).resolve().parent / "locales"
SOURCE = "en"
COOKIE = "piquet_lang"
COOKIE_AGE = 365 * 24 * 3600
# The pseudo-locale (every message wrapped "[!! … !!]", made from the templates by
# `python -m app.catalogues pseudo`): served when asked for by cookie, never offered.
PSEUDO = "xx"
DOMAINS = ("messages", "js")
_PLURAL_TAGS = ("zero", "one", "two", "few", "many", "other")

assert engine.computer.advice  # (imported for its words)


def _translations(lang: str, domain: str) -> NullTranslations:
    """A language's catalogue of one domain: its .mo, or compiled from its .po when the
    .mo is missing or older (a checkout nobody ran `make` in); none for English."""
    if lang == SOURCE:
        return NullTranslations()
    base = LOCALES / lang / "LC_MESSAGES" / domain
    mo, po = base.with_suffix(".mo"), base.with_suffix(".po")
    if po.exists() and (not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime):
        buffer = BytesIO()
        with po.open("rb") as f:
            write_mo(buffer, read_po(f, locale=lang, domain=domain))
        buffer.seek(0)
        return Translations(buffer, domain=domain)
    if mo.exists():
        with mo.open("rb") as f:
            return Translations(f, domain=domain)
    return NullTranslations()


def _locale(lang: str) -> Locale:
    try:
        return Locale.parse(lang)
    except (ValueError, UnknownLocaleError):
        return Locale.parse(SOURCE)


@dataclass
class Language:
    """One language: its two catalogues, its name in itself, how it renders phrases."""

    code: str
    messages: NullTranslations = field(repr=False)
    js: NullTranslations = field(repr=False)

    @cached_property
    def locale(self) -> Locale:
        return _locale(self.code)

    @property
    def name(self) -> str:
        """The language's name in itself: "English", "Français"."""
        if self.code == PSEUDO:
            return "[!! Pseudo !!]"
        named = self.locale.get_display_name(self.code) or self.code
        return named[0].upper() + named[1:]

    def gettext(self, msgid: str) -> str:
        return self.messages.gettext(msgid)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self.messages.ngettext(singular, plural, n)

    def page_words(self, msgid: str) -> str:
        """A message of the pages' scripts (the `js` domain), as a page says it here."""
        return str(self.js.gettext(msgid))

    def template(self, code: str, n: int | None) -> str:
        """A phrase code's words here (engine.words.Speaker)."""
        english = WORDS.get(code)
        if english is None:
            return code
        if isinstance(english, tuple):
            return str(self.js.npgettext(code, english[0], english[1], 1 if n is None else n))
        return str(self.js.pgettext(code, english))

    @cached_property
    def speaker(self) -> Speaker:
        return Speaker(self.template, get_decimal_symbol(self.locale))

    def say(self, phrase: Phrase) -> str:
        """A phrase (engine.words) in this language."""
        return self.speaker.say(phrase)

    @cached_property
    def plural_tags(self) -> list[str]:
        """The plural categories in the order of the catalogue's forms (Babel's gettext
        expression orders them so): what a page's Intl.PluralRules picks among."""
        tags = PluralRule.parse(self.locale.plural_form).tags | {"other"}
        return [t for t in _PLURAL_TAGS if t in tags]

    @cached_property
    def catalogue(self) -> bytes:
        """The pages' catalogue as JSON: the `js` domain's messages (by English message;
        a counted one by plural category), every phrase code's words, the plural
        categories, the decimal sign."""
        codes: dict[str, Any] = {code: self._forms(words) for code, words in WORDS.items()}
        messages: dict[str, Any] = {}
        for message in self._js_messages():
            if not message.id or not message.string or not any(_strings(message.string)):
                continue
            forms = self._forms(message.string)
            if message.context:
                if message.context in codes:
                    codes[message.context] = forms
            else:
                key = message.id if isinstance(message.id, str) else message.id[0]
                messages[key] = forms
        return orjson.dumps({"lang": self.code, "plurals": self.plural_tags,
                             "decimal": self.speaker.decimal, "codes": codes,
                             "messages": messages})

    def _forms(self, words: str | tuple[str, ...] | list[str]) -> str | dict[str, str]:
        if isinstance(words, str):
            return words
        if len(words) == 2 and self.code == SOURCE:
            return {"one": words[0], "other": words[1]}
        return dict(zip(self.plural_tags, words, strict=False))

    def _js_messages(self) -> list[Any]:
        if self.code == SOURCE:
            return []
        base = LOCALES / self.code / "LC_MESSAGES" / "js"
        po, mo = base.with_suffix(".po"), base.with_suffix(".mo")
        if po.exists() and (not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime):
            with po.open("rb") as f:
                return list(read_po(f, locale=self.code))
        if mo.exists():
            with mo.open("rb") as f:
                return list(read_mo(f))
        return []

    @cached_property
    def version(self) -> str:
        """The catalogue's version: in its URL, so a page caches it for good."""
        return hashlib.blake2b(self.catalogue, digest_size=6).hexdigest()

    @property
    def catalogue_url(self) -> str:
        return f"/i18n/{self.code}.json?v={self.version}"


def _strings(string: str | tuple[str, ...] | list[str]) -> tuple[str, ...]:
    return (string,) if isinstance(string, str) else tuple(string)


_LANGUAGES: dict[str, Language] = {}


def languages() -> dict[str, Language]:
    """Every language the site speaks: English, and each with a catalogue in
    app/locales (the pseudo-locale among them, when it was made)."""
    if not _LANGUAGES:
        found = [SOURCE, *sorted(
            d.name for d in LOCALES.iterdir()
            if d.is_dir() and any((d / "LC_MESSAGES" / f"{domain}.{kind}").exists()
                                  for domain in DOMAINS for kind in ("po", "mo")))]
        for code in found:
            _LANGUAGES[code] = Language(code, _translations(code, "messages"),
                                        _translations(code, "js"))
    return _LANGUAGES


def language(code: str | None) -> Language:
    """The language `code`, or English."""
    return languages().get(code or SOURCE) or languages()[SOURCE]


def offered() -> list[Language]:
    """The languages a visitor may choose (not the pseudo-locale)."""
    return [x for x in languages().values() if x.code != PSEUDO]


def choose(cookie: str | None, accept: str | None) -> str:
    """The language of a request: the cookie's, if the site speaks it; else the first
    of Accept-Language's (by weight) it speaks, by its language alone ("fr-CA" is "fr");
    else English."""
    known = languages()
    if cookie and cookie in known:
        return cookie
    wanted: list[tuple[float, int, str]] = []
    for i, part in enumerate((accept or "").split(",")[:20]):
        tag, _sep, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        base = tag.strip().lower().replace("_", "-").split("-")[0]
        if base and q > 0:
            wanted.append((-q, i, base))
    for _, _, base in sorted(wanted):
        if base in known and base != PSEUDO:
            return base
    return SOURCE


# --- the language of what is being done now ---------------------------------------------

_current: contextvars.ContextVar[str] = contextvars.ContextVar("language", default=SOURCE)


def current() -> Language:
    return language(_current.get())


def use(code: str) -> contextvars.Token[str]:
    """From now on (in this task), words are said in `code` (`reset` with the token)."""
    return _current.set(code)


def reset(token: contextvars.Token[str]) -> None:
    _current.reset(token)


def _(msgid: str, **values: Any) -> str:
    """`msgid` in the current request's language, its `{placeholders}` filled."""
    text = current().gettext(msgid)
    return text.format(**values) if values else text


def ngettext(singular: str, plural: str, n: int, **values: Any) -> str:
    """A counted message in the current language; `{n}` and `values` filled."""
    return current().ngettext(singular, plural, n).format(n=n, **values)


class Text:
    """Words to say later, in the language of whoever they are said to (a socket's): a
    message of the `messages` domain and its values. `str()` says them in the current
    request's language, `english` in English (for a log)."""

    __slots__ = ("msgid", "values")

    def __init__(self, msgid: str, values: dict[str, Any]) -> None:
        self.msgid = msgid
        self.values = values

    def render(self, lang: str | None) -> str:
        text = language(lang).gettext(self.msgid)
        return text.format(**self.values) if self.values else text

    @property
    def english(self) -> str:
        return self.render(SOURCE)

    def __str__(self) -> str:
        """In the current request's language."""
        return self.render(_current.get())

    def __repr__(self) -> str:
        return f"N_({self.msgid!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Text) and (self.msgid, self.values) == (other.msgid,
                                                                         other.values)

    def __hash__(self) -> int:
        return hash(self.msgid)


def N_(msgid: str, **values: Any) -> Text:
    """`msgid` marked for translation, said later (`Text`)."""
    return Text(msgid, values)


# What a person is told: a message (Text), a phrase (engine.words), an engine's refusal,
# or words already said.
Said = Text | dict[str, Any] | PiquetError | str


def render(said: Said | None, lang: str | None) -> str | None:
    """`said` in the language `lang`. An engine's refusal is its own English message in
    English (it quotes the action and what was allowed, for a program too), its phrase in
    any other language."""
    if said is None or isinstance(said, str):
        return said
    if isinstance(said, Text):
        return said.render(lang)
    if isinstance(said, PiquetError):
        if language(lang).code == SOURCE or said.say is None:
            return str(said)
        return language(lang).say(said.say)
    return language(lang).say(said)


def gettext_callables() -> tuple[Any, Any]:
    """The templates' `gettext` and `ngettext` (Jinja's i18n extension, new style): in
    the request's language."""

    # (Jinja fills their %(placeholders)s itself.)
    def _gettext(msgid: str) -> str:
        return current().gettext(msgid)

    def _ngettext(singular: str, plural: str, n: int) -> str:
        return current().ngettext(singular, plural, n)

    return _gettext, _ngettext


def install(env: Any) -> None:
    """Jinja's i18n extension on `env`, in the request's language, and the templates'
    helpers: `lang()`, `languages()`, `catalogue_url()`, `say(phrase)`."""
    env.add_extension("jinja2.ext.i18n")
    env.policies["ext.i18n.trimmed"] = True  # (as app/locales/babel.cfg extracts them)
    env.install_gettext_callables(*gettext_callables(), newstyle=True)
    env.globals.update(lang=lambda: current().code, languages=offered,
                       catalogue_url=lambda: current().catalogue_url,
                       say=lambda phrase: current().say(phrase))

