"""The general ABI decoder: any types, one encoded value at a time, strictly per the ABI spec.

One job: bytes -> Python values for every type (static and dynamic: ``string``, ``bytes``,
``T[]``, ``T[k]``, tuples, nested), used where the vectorised word decoder
(:mod:`hmyframe.abi._words`) does not apply: data with a dynamic or composite argument, a
function's input. Values: ``uintN``/``intN`` exact ``int``; ``address`` lower-case ``0x`` text;
``bool``; ``bytesN``/``bytes``/``function`` ``bytes``; ``string`` ``str``; arrays ``list``;
tuples ``tuple``.

Strict, like the reference codec (eth-abi): a value out of range for its type (a ``uint8`` word
above 255, an ``int8`` word not sign-extended, an address word with non-zero high bytes, a
bool word not 0 or 1, a ``bytesN`` with non-zero padding), a pointer into the head or past the
end, data too short for what it announces, non-zero padding after ``bytes``/``string``, a
``string`` that is not UTF-8: each raises :class:`DecodeFailure` with a one-line reason naming
the argument. Trailing bytes after the encoding are allowed (as eth-abi allows them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hmyframe.errors import AbiDecodeError

from ._types import AbiType, Param

__all__ = ["DecodeFailure", "decode", "decode_params", "decode_word"]

_WORD = 32


class DecodeFailure(Exception):  # an internal signal, turned into a reason or an AbiDecodeError
    """Why an encoding does not decode as its types say (one line)."""


def _name(path: str) -> str:
    return f"argument {path}: " if path else ""


def decode_word(t: AbiType, word: bytes, path: str) -> Any:
    """One elementary value (``uint``, ``int``, ``address``, ``bool``, ``bytesN``, ``function``)
    from its 32-byte word, checking the padding its type leaves."""
    kind = t.kind
    if kind == "uint":
        value = int.from_bytes(word)
        if value >> t.size:
            raise DecodeFailure(f"{_name(path)}{value:#x} is out of range for uint{t.size}")
        return value
    if kind == "int":
        value = int.from_bytes(word, signed=True)
        half = 1 << (t.size - 1)
        if not -half <= value < half:
            raise DecodeFailure(f"{_name(path)}0x{word.hex()} is not a sign-extended int{t.size}")
        return value
    if kind == "address":
        if any(word[:12]):
            raise DecodeFailure(
                f"{_name(path)}0x{word.hex()} is not an address (its first 12 bytes are not zero)"
            )
        return "0x" + word[12:].hex()
    if kind == "bool":
        if any(word[:31]) or word[31] > 1:
            raise DecodeFailure(f"{_name(path)}0x{word.hex()} is not a bool (0 or 1)")
        return word[31] == 1
    # bytesN, function: left-aligned, zero-padded on the right
    if any(word[t.size :]):
        raise DecodeFailure(f"{_name(path)}0x{word.hex()} is not a {t.canonical} (non-zero padding)")
    return word[: t.size]


def _word_at(data: bytes, at: int, path: str) -> bytes:
    if at + _WORD > len(data):
        raise DecodeFailure(
            f"{_name(path)}data too short: a word at byte {at} needs {at + _WORD} bytes, has {len(data)}"
        )
    return data[at : at + _WORD]


def _uint_at(data: bytes, at: int, path: str, what: str) -> int:
    """The word at ``at`` read as an offset, length or count."""
    if at + _WORD > len(data):
        raise DecodeFailure(
            f"{_name(path)}data too short: the {what} at byte {at} needs {at + _WORD} bytes, has {len(data)}"
        )
    return int.from_bytes(data[at : at + _WORD])


def _decode_at(t: AbiType, data: bytes, at: int, path: str) -> Any:
    """The value of type ``t`` encoded starting at byte ``at`` (its own start, not its head)."""
    kind = t.kind
    if t.elementary:
        return decode_word(t, _word_at(data, at, path), path)
    if kind in ("bytes", "string"):
        length = _uint_at(data, at, path, "length")
        start = at + _WORD
        padded = -(-length // _WORD) * _WORD
        if start + padded > len(data):
            raise DecodeFailure(
                f"{_name(path)}data too short: {kind} of {length} bytes at byte {start} needs "
                f"{start + padded} bytes, has {len(data)}"
            )
        raw = data[start : start + length]
        if any(data[start + length : start + padded]):
            raise DecodeFailure(f"{_name(path)}non-zero padding after the {kind}'s {length} bytes")
        if kind == "bytes":
            return raw
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DecodeFailure(
                f"{_name(path)}string is not UTF-8 ({exc.reason} at byte {exc.start})"
            ) from None
    if kind == "array":
        assert t.item is not None
        if t.length is None:
            count = _uint_at(data, at, path, "array length")
            start = at + _WORD
            # each element takes at least one word of the head: a count beyond the data is wrong
            if count > (len(data) - start) // _WORD:
                raise DecodeFailure(
                    f"{_name(path)}data too short: an array of {count} elements at byte {start} "
                    f"needs {start + count * _WORD} bytes, has {len(data)}"
                )
        else:
            count, start = t.length, at
        return list(_decode_sequence([t.item] * count, data, start, [f"{path}[{i}]" for i in range(count)]))
    assert kind == "tuple"
    names = [f"{path}.{p.name or i}" if path else (p.name or str(i)) for i, p in enumerate(t.components)]
    return tuple(_decode_sequence([p.type for p in t.components], data, at, names))


def _decode_sequence(types: Sequence[AbiType], data: bytes, base: int, paths: Sequence[str]) -> list[Any]:
    """A tuple's members (or an array's elements) encoded from ``base``: heads, then tails."""
    head_end = base + sum(t.head_size for t in types)
    out: list[Any] = []
    at = base
    for t, path in zip(types, paths, strict=True):
        if t.dynamic:
            offset = _uint_at(data, at, path, "offset")
            target = base + offset
            if target < head_end or target >= len(data):
                raise DecodeFailure(
                    f"{_name(path)}offset {offset} points to byte {target}, outside the tail "
                    f"(bytes {head_end} .. {len(data) - 1})"
                )
            out.append(_decode_at(t, data, target, path))
        else:
            out.append(_decode_at(t, data, at, path))
        at += t.head_size
    return out


def decode_params(params: Sequence[Param], data: bytes, first: int = 0) -> list[Any]:
    """The values of ``params`` ABI-encoded (as one tuple) in ``data``.

    ``first`` numbers unnamed arguments in reasons (their position among all the inputs).

    Raises
    ------
    DecodeFailure
        With a one-line reason naming the argument.
    """
    paths = [p.name or f"arg{first + i}" for i, p in enumerate(params)]
    return _decode_sequence([p.type for p in params], data, 0, paths)


def decode(types: Sequence[str | AbiType], data: bytes | str) -> tuple[Any, ...]:
    """Decode ABI-encoded ``data`` as the tuple ``types``: the reference decoder, one value at a time.

    Parameters
    ----------
    types
        ABI types (``["address", "uint256[]", "(string,bytes32)"]``) or :class:`AbiType` objects.
    data
        The encoding: bytes, or ``0x`` hex text.

    Returns
    -------
    tuple
        One value per type: ``uintN``/``intN`` exact ``int``; ``address`` lower-case ``0x`` text;
        ``bool``; ``bytesN``/``bytes`` ``bytes``; ``string`` ``str``; arrays ``list``; tuples
        ``tuple``.

    Raises
    ------
    AbiError
        If a type is malformed.
    AbiDecodeError
        If ``data`` does not decode as ``types`` (the message says where and why).

    Examples
    --------
    >>> decode(["uint256", "address"], "0x" + "00" * 31 + "05" + "00" * 12 + "11" * 20)
    (5, '0x1111111111111111111111111111111111111111')
    """
    from ._parse import type_of

    parsed = [t if isinstance(t, AbiType) else type_of(t) for t in types]
    if isinstance(data, str):
        text = data[2:] if data[:2] in ("0x", "0X") else data
        try:
            raw = bytes.fromhex(text)
        except ValueError:
            raise AbiDecodeError(f"data is not hex: {data[:40]!r}...") from None
    elif isinstance(data, bytes | bytearray | memoryview):
        raw = bytes(data)
    else:
        raise AbiDecodeError(f"data must be bytes or 0x hex text, got {type(data).__name__}")
    try:
        return tuple(_decode_sequence(parsed, raw, 0, [f"{i} ({t.canonical})" for i, t in enumerate(parsed)]))
    except DecodeFailure as exc:
        raise AbiDecodeError(str(exc)) from None
