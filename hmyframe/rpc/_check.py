"""Small runtime checks for caller-supplied settings (typed ``object`` so mypy keeps them)."""

from __future__ import annotations

import math

__all__ = ["is_int", "is_real"]


def is_int(value: object) -> bool:
    """Whether ``value`` is an ``int`` (``bool`` excluded)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_real(value: object) -> bool:
    """Whether ``value`` is a finite ``int`` or ``float`` (``bool`` excluded)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
