"""Raw JSON values one at a time: the scalar parsers, and the naming of bad values.

Plain Python (no pyarrow or numpy): the column builders of :mod:`._convert` fall back on these
row by row, and the engine reads a header's epoch or timestamp with them without loading
pyarrow. A parser raises :class:`Bad` (what was expected); its caller names the value's row
and field with a :class:`Where`, in a :class:`~hmyframe.errors.ResponseShapeError`.
Exactness: integers are parsed with ``int`` (hex or decimal text) or taken from the exact
``Decimal`` of a JSON number's text; nothing goes through a float.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from typing import Any, NoReturn

from hmyframe.errors import ResponseShapeError

__all__ = [
    "AMOUNT_LIMIT",
    "Bad",
    "Where",
    "as_dict",
    "as_list",
    "parse_amount",
    "parse_dec_amount",
    "parse_int",
    "parse_ratio",
]

#: decimal128(38, 0) holds integers below 10**38 (total supply is ~1.3e28 atto, 29 digits).
AMOUNT_LIMIT = 10**38
# Bounded lengths keep every parsed integer below 2**256 / 10**78 (and clear of Python's
# 4300-digit int/str conversion limit); real quantities are far smaller.
_HEXQ = re.compile(r"0[xX][0-9a-fA-F]{1,64}")
_DIGITS = re.compile(r"[0-9]{1,78}")
_DEC = re.compile(r"-?[0-9]{1,78}(?:\.[0-9]{1,78})?")
_MAX_EXPONENT = 77  # Decimal.adjusted() bound for numbers given with a fraction or exponent


class Bad(Exception):
    """Internal: a value that does not parse; carries what was expected. Never escapes."""

    def __init__(self, expected: str) -> None:
        super().__init__(expected)
        self.expected = expected


class Where:
    """Names the rows of a column for error messages.

    Parameters
    ----------
    what
        The dataset name (first word of every message).
    path
        ``row index -> path of the row's object`` (e.g. ``"payload[0].transactions[3]"``);
        only called when an error is raised.
    """

    __slots__ = ("_path", "what")

    def __init__(self, what: str, path: Callable[[int], str]) -> None:
        self.what = what
        self._path = path

    @classmethod
    def of(cls, what: str, paths: Sequence[str]) -> Where:
        """A :class:`Where` over an explicit list of row paths."""
        return cls(what, paths.__getitem__)

    def field(self, row: int, name: str) -> str:
        """Path of field ``name`` in row ``row``."""
        prefix = self._path(row)
        if not name:
            return prefix
        return f"{prefix}.{name}" if prefix else name

    def error(self, row: int, name: str, value: object, expected: str) -> ResponseShapeError:
        """The :class:`ResponseShapeError` for ``value`` at field ``name`` of row ``row``."""
        return ResponseShapeError(self.what, self.field(row, name), value, expected)

    def fail(self, row: int, name: str, value: object, expected: str) -> NoReturn:
        """Raise :meth:`error`."""
        raise self.error(row, name, value, expected)


# ---------------------------------------------------------------------------------------
# scalar parsers (raise Bad)
# ---------------------------------------------------------------------------------------

_INT_EXPECTED = "an integer (JSON number, 0x hex string or decimal string)"


def parse_int(v: object) -> int:
    """Parse an integer quantity given as a JSON int, a hex or decimal string, or an integral Decimal."""
    t = type(v)
    if t is int:
        return v  # type: ignore[return-value]
    if t is str:
        assert isinstance(v, str)
        if _HEXQ.fullmatch(v):
            return int(v, 16)
        if _DIGITS.fullmatch(v):
            return int(v)
        raise Bad(_INT_EXPECTED)
    if t is Decimal:
        assert isinstance(v, Decimal)
        # a JSON number with a fraction or an exponent, e.g. the CLI's "3.46e+19": exact
        # from the text, accepted only when it is a whole number
        if not v.is_finite() or v.adjusted() > _MAX_EXPONENT:
            raise Bad("a whole number below 10**78")
        if v == v.to_integral_value():
            return int(v)
        raise Bad("a whole number (got a fraction)")
    raise Bad(_INT_EXPECTED)


def parse_amount(v: object) -> int:
    """An exact atto amount: :func:`parse_int`, non-negative, below 10**38."""
    n = parse_int(v)
    if n < 0:
        raise Bad("a non-negative amount")
    if n >= AMOUNT_LIMIT:
        raise Bad("an amount of at most 38 decimal digits (decimal128(38, 0))")
    return n


def _dec_text(v: object) -> Decimal:
    t = type(v)
    if t is str:
        assert isinstance(v, str)
        if not _DEC.fullmatch(v):
            raise Bad("a decimal string such as '0.100000000000000000'")
        return Decimal(v)
    if t is int:
        assert isinstance(v, int)
        if abs(v) >= 10**78:
            raise Bad("a decimal below 10**78")
        return Decimal(v)
    if t is Decimal:
        assert isinstance(v, Decimal)
        if not v.is_finite() or v.adjusted() > _MAX_EXPONENT or v.adjusted() < -_MAX_EXPONENT:
            raise Bad("a finite decimal below 10**78")
        return v
    raise Bad("a decimal string such as '0.100000000000000000'")


def parse_ratio(v: object) -> tuple[float, str]:
    """A ``numeric.Dec`` ratio (18-decimal string) -> (float, exact text with at least 18 decimals).

    Shorter fractions are padded with zeros (exact); longer ones are kept as sent.
    """
    d = _dec_text(v)
    if type(v) is str:
        assert isinstance(v, str)
        whole, _, frac = v.partition(".")
        text = f"{whole}.{frac.ljust(18, '0')}"
    else:
        text = f"{d:.18f}" if d.as_tuple().exponent >= -18 else format(d, "f")  # type: ignore[operator]
    return float(text), text


def parse_dec_amount(v: object) -> int:
    """A ``numeric.Dec`` stake in atto (18-decimal string) -> whole atto, rounded half-even."""
    d = _dec_text(v)
    try:
        n = int(d.to_integral_value(rounding=ROUND_HALF_EVEN))
    except (InvalidOperation, OverflowError, ValueError):
        raise Bad("a decimal amount") from None
    if n < 0:
        raise Bad("a non-negative amount")
    if n >= AMOUNT_LIMIT:
        raise Bad("an amount of at most 38 decimal digits (decimal128(38, 0))")
    return n


# ---------------------------------------------------------------------------------------
# structural helpers for dict-walking decoders
# ---------------------------------------------------------------------------------------


def as_dict(v: object, where: Where, row: int, name: str, *, nullable: bool = True) -> dict[str, Any] | None:
    """``v`` if it is a JSON object (or ``None`` when allowed), else fail."""
    if isinstance(v, dict):
        return v
    if v is None and nullable:
        return None
    raise where.error(row, name, v, "a JSON object" + (" or null" if nullable else ""))


def as_list(v: object, where: Where, row: int, name: str, *, nullable: bool = True) -> list[Any]:
    """``v`` if it is a JSON array; ``None`` gives ``[]`` when allowed; else fail."""
    if isinstance(v, list):
        return v
    if v is None and nullable:
        return []
    raise where.error(row, name, v, "a JSON array" + (" or null" if nullable else ""))
