"""The catalogues' build (docs/translating.md): `make locales` compiles each language's
.po with `pybabel compile`, then runs

    python -m app.catalogues pseudo     the pseudo-locale, from the templates (.pot)
    python -m app.catalogues compile    every .po compiled (what pybabel compile does)

The pseudo-locale `xx` says every message wrapped, "[!! Deal next hand !!]", its
placeholders kept: a page in it shows at once any words that escaped translation
(tests/browser/test_browser_i18n.py). It is made from the templates, never written by
hand, and never committed.
"""

from __future__ import annotations

import sys
from pathlib import Path

from babel import Locale
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from app.i18n import DOMAINS, LOCALES, PSEUDO


def wrapped(text: str) -> str:
    return f"[!! {text} !!]"


def pseudo(locales: Path = LOCALES) -> list[Path]:
    """The pseudo-locale's catalogues (.mo), made from each domain's template (.pot)."""
    made = []
    for domain in DOMAINS:
        template = locales / f"{domain}.pot"
        if not template.exists():
            continue
        with template.open("rb") as f:
            source = read_po(f)
        catalog = Catalog(locale=Locale.parse("en"), domain=domain)
        for message in source:
            if not message.id:
                continue
            if isinstance(message.id, str):
                string: str | tuple[str, ...] = wrapped(message.id)
            else:
                string = tuple(wrapped(x) for x in message.id)
            catalog.add(message.id, string, context=message.context)
        out = locales / PSEUDO / "LC_MESSAGES" / f"{domain}.mo"
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("wb") as f:
            write_mo(f, catalog)
        made.append(out)
    return made


def compile_all(locales: Path = LOCALES) -> list[Path]:
    """Every language's .po compiled to its .mo, where the .mo is missing or older."""
    made = []
    for po in sorted(locales.glob("*/LC_MESSAGES/*.po")):
        mo = po.with_suffix(".mo")
        if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        with po.open("rb") as f:
            catalog = read_po(f, locale=po.parents[1].name, domain=po.stem)
        with mo.open("wb") as f:
            write_mo(f, catalog)
        made.append(mo)
    return made


def main(argv: list[str]) -> int:
    what = argv[0] if argv else ""
    if what == "pseudo":
        made = pseudo()
    elif what == "compile":
        made = compile_all()
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for path in made:
        print(path.relative_to(LOCALES.parent.parent))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
