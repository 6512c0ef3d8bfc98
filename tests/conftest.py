"""Every test session: the catalogues compiled and the pseudo-locale made, as `make
locales` does (a checkout where nobody ran it still tests every language)."""

from __future__ import annotations

import pytest

from app import catalogues


@pytest.fixture(scope="session", autouse=True)
def _catalogues() -> None:
    catalogues.compile_all()
    catalogues.pseudo()
