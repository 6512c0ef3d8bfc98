"""A table server whose parties start from given seeds, so a browser test can meet a
rare hand (carte blanche) through the real page. Run as
`PIQUET_TEST_SEEDS=12,34 python -m tests.browser.seeded_app`: room n gets seed n."""

from __future__ import annotations

import itertools
import os

import uvicorn

from app.main import create_app
from app.settings import Settings


def main() -> None:
    seeds = itertools.cycle([int(x) for x in os.environ["PIQUET_TEST_SEEDS"].split(",")])
    settings = Settings()
    # The deals too come from the seeds (not from secure packs drawn as they are dealt).
    app = create_app(settings, new_seed=lambda: next(seeds), new_pack=lambda: None)
    uvicorn.run(app, host=settings.host, port=settings.port, log_level="warning")


if __name__ == "__main__":
    main()
