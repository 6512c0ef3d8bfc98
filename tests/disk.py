"""A disk that fills up, for real: a small file system (tmpfs of 4 MiB) mounted for a
test, and a file that takes every byte left on it. The tests run as root here, as in
CI; where no file system can be mounted the test is skipped, not faked."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


def small_disk(tmp_path: Path) -> Iterator[Path]:
    """The fixture's body: the mounted folder, unmounted after the test."""
    mount = tmp_path / "small"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a small file system here: {made.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(folder: Path) -> Path:
    """A file that takes every byte left on `folder`'s file system."""
    ballast = folder / "ballast"
    fd = ballast.open("wb", buffering=0)
    for size in (1 << 16, 1 << 12, 1 << 9, 1):
        try:
            while fd.write(b"\0" * size) == size:
                pass
        except OSError:
            pass
    fd.close()
    return ballast
