"""Small runtime checks for caller-supplied settings (typed ``object`` so mypy keeps them)."""

from __future__ import annotations

import math
from typing import Any

from hmyframe.errors import ConfigError, short_repr

__all__ = ["check_number", "is_int", "is_real"]


def is_int(value: object) -> bool:
    """Whether ``value`` is an ``int`` (``bool`` excluded)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_real(value: object) -> bool:
    """Whether ``value`` is a finite ``int`` or ``float`` (``bool`` excluded)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def check_number(value: Any, what: str, *, minimum: float, integer: bool = False) -> None:
    """Raise :class:`~hmyframe.errors.ConfigError` unless ``value`` is a finite number (an
    ``int`` with ``integer``) of at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ConfigError(f"{what} must be a finite number, got {short_repr(value)}")
    if integer and not isinstance(value, int):
        raise ConfigError(f"{what} must be an integer, got {short_repr(value)}")
    if value < minimum:
        raise ConfigError(f"{what} must be >= {minimum:g}, got {value!r}")
