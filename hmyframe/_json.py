"""Exact JSON encoding and decoding shared by the whole package.

Harmony nodes send amounts as bare JSON integers far above 2**64 (``hmyv2_`` values such as
``100000000000000000000000``), and some recorded fixtures carry integers rewritten as
floats in exponent notation (``3.46e+19``). Both must survive exactly:

* integers of any size decode to Python ``int`` (msgspec keeps them exact);
* JSON floats decode to :class:`decimal.Decimal` built from the text as written, so
  ``3.46e+19`` becomes ``Decimal('3.46E+19')`` and ``int()`` of it is exact;
* nothing passes through a binary ``float``.

Decode errors are turned into :class:`hmyframe.errors.ResponseShapeError` naming what was
being decoded, so callers never see a ``msgspec`` exception.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any, TypeVar

import msgspec

from hmyframe.errors import ConfigError, ResponseShapeError

__all__ = ["decode", "decode_as", "decoder", "encode"]

T = TypeVar("T")

_ANY_DECODER: msgspec.json.Decoder[Any] = msgspec.json.Decoder(float_hook=Decimal)
_ENCODER = msgspec.json.Encoder(decimal_format="number")
_PATH = re.compile(r" - at `(?P<path>[^`]*)`$")


def _snippet(data: bytes | bytearray | memoryview | str | msgspec.Raw, limit: int = 80) -> str:
    if isinstance(data, str):
        text = data[: limit + 1]
    else:  # msgspec.Raw is a buffer but cannot be sliced
        text = bytes(memoryview(data)[: limit + 1]).decode("utf-8", "replace")
    return text if len(text) <= limit else text[:limit] + "..."


def decode(data: bytes | bytearray | memoryview | str, *, what: str = "JSON") -> Any:
    """Decode JSON text exactly: big integers stay ``int``, floats become ``Decimal``.

    Parameters
    ----------
    data
        The JSON text (bytes or str).
    what
        What is being decoded, named in the error message (``"hmyv2_getBlocks"``...).

    Returns
    -------
    Any
        ``dict``/``list``/``str``/``int``/``Decimal``/``bool``/``None`` values.

    Raises
    ------
    ResponseShapeError
        If ``data`` is not valid JSON.

    Examples
    --------
    >>> decode(b'{"value": 100000000000000000000000000, "amount": 3.46e+19}')
    {'value': 100000000000000000000000000, 'amount': Decimal('3.46E+19')}
    """
    try:
        return _ANY_DECODER.decode(data)
    except msgspec.DecodeError as exc:
        raise ResponseShapeError(what, "$", _snippet(data), f"valid JSON ({exc})") from None
    except RecursionError:
        raise ResponseShapeError(what, "$", _snippet(data), "JSON nested less deeply") from None


def decoder(type_: type[T]) -> msgspec.json.Decoder[T]:
    """Return a reusable msgspec decoder for ``type_`` with the package's exact-number rules.

    Parameters
    ----------
    type_
        A msgspec-supported type (``msgspec.Struct`` subclass, ``list[...]``...). Untyped
        (``Any``) positions inside it decode floats as ``Decimal``.

    Returns
    -------
    msgspec.json.Decoder
        Use it with :func:`decode_as` to get error wrapping, or directly in hot loops.
    """
    return msgspec.json.Decoder(type_, float_hook=Decimal)


def decode_as(
    data: bytes | bytearray | memoryview | str,
    type_or_decoder: type[T] | msgspec.json.Decoder[T],
    *,
    what: str = "JSON",
) -> T:
    """Decode JSON text into a typed value, validating while decoding.

    Parameters
    ----------
    data
        The JSON text.
    type_or_decoder
        A type accepted by :func:`decoder`, or a decoder it returned (faster when reused).
    what
        What is being decoded, named in the error message.

    Returns
    -------
    T
        The decoded, validated value.

    Raises
    ------
    ResponseShapeError
        If ``data`` is not valid JSON or does not match the type; the message names the
        JSON path of the offending field.
    """
    dec = type_or_decoder if isinstance(type_or_decoder, msgspec.json.Decoder) else decoder(type_or_decoder)
    try:
        return dec.decode(data)
    except msgspec.ValidationError as exc:
        text = str(exc)
        match = _PATH.search(text)
        field = match.group("path") if match else "$"
        expected = text[: match.start()] if match else text
        raise ResponseShapeError(what, field, _snippet(data), expected) from None
    except msgspec.DecodeError as exc:
        raise ResponseShapeError(what, "$", _snippet(data), f"valid JSON ({exc})") from None
    except RecursionError:
        raise ResponseShapeError(what, "$", _snippet(data), "JSON nested less deeply") from None


def encode(obj: Any) -> bytes:
    """Encode ``obj`` as compact JSON bytes; ints of any size and ``Decimal`` stay exact.

    Parameters
    ----------
    obj
        JSON-able data (``dict``, ``list``, ``tuple``, ``str``, ``int``, ``Decimal``,
        ``bool``, ``None``, msgspec structs).

    Returns
    -------
    bytes
        UTF-8 JSON; ``Decimal`` values are written as JSON numbers.

    Raises
    ------
    ConfigError
        If ``obj`` holds something JSON cannot represent; the message names its type.
    """
    try:
        return _ENCODER.encode(obj)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ConfigError(f"cannot encode {type(obj).__name__} value as JSON: {exc}") from None
