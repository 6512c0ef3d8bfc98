"""The good computer level (placeholder: plays as basic until written)."""

from __future__ import annotations

from engine.computer.basic import choose

__all__ = ["choose"]
