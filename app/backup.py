"""`python -m app.backup FILE`: a copy of the tables' SQLite file, made while the server
runs (SQLite's online backup: one consistent moment, the server's writes going on).

It reads `PIQUET_DATA_DIR/piquet.db`, as the server does, writes FILE (its directory
made if need be; a file already there is replaced) and prints how many rooms it holds.
To restore: stop the server, put the copy in place of `piquet.db` (with no
`piquet.db-wal` beside it), start the server. The copy is the store's own format: a
server started on a directory holding it serves its tables.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

from app.settings import Settings
from app.sqlite_store import FILE_NAME


def backup(source: Path, target: Path) -> int:
    """Copy `source` to `target`; the rooms the copy holds."""
    target.parent.mkdir(parents=True, exist_ok=True)
    reader = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    writer = sqlite3.connect(target)
    try:
        reader.backup(writer)
        return int(writer.execute("SELECT count(*) FROM rooms").fetchone()[0])
    finally:
        writer.close()
        reader.close()


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0].startswith("-"):
        print("usage: python -m app.backup FILE   (a copy of PIQUET_DATA_DIR's piquet.db)",
              file=sys.stderr)
        return 2
    source = Settings().data_dir / FILE_NAME
    target = Path(argv[0])
    if not source.exists():
        print(f"piquet: no tables to back up: {source} does not exist", file=sys.stderr)
        return 1
    if target.resolve() == source.resolve():
        print(f"piquet: {target} is the tables' file itself", file=sys.stderr)
        return 2
    try:
        rooms = backup(source, target)
    except sqlite3.Error as exc:
        print(f"piquet: backup of {source} to {target} failed: {exc}", file=sys.stderr)
        return 1
    print(f"{source}: {rooms} rooms copied to {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
