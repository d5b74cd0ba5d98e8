"""Decoded arguments as typed columns, and the frame a decode returns.

One job: lay out the arguments of one event or function as columns (names, types, where each
value comes from) and build them from either decoder, then give the result as pandas or Arrow.

The layout, per argument in declaration order:

* ``uintN`` -> one ``uint256`` column (exact ints, whatever ``N``); ``intN`` -> ``int256``;
* ``address`` -> ``NAME`` (``one1``) and ``NAME_hex`` (lower-case ``0x``);
* ``bool`` -> boolean; ``bytesN``, ``bytes``, ``function`` -> lower-case ``0x`` hex text;
  ``string`` -> text;
* a tuple (not inside an array) -> its members flattened, ``NAME.MEMBER`` (recursively);
* an array (``T[]``, ``T[k]``, nested) -> one column of Python lists (tuples inside as dicts
  by member name), addresses as ``one1``, and ``NAME_hex`` beside with ``0x`` addresses when
  the type holds any; in Arrow output (and files) such a column is JSON text (exact integers);
* an indexed argument of a dynamic or composite type -> its topic, the keccak-256 hash of its
  encoding (the value itself is not in the log), ``0x`` text.

An argument without a name is ``argI`` (``I`` its position); a name already taken (by a position
column such as ``block_number``, or another argument) gets ``arg_`` in front.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from hmyframe.addresses import to_one

from ._types import AbiType, Param
from ._words import address_strings, fixed_strings, hex_codes, ints_of_words

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Column", "Decoded", "Leaf", "Namer", "columns_from_values", "columns_from_words", "plan"]


class Namer:
    """Unique column names: a taken name gets ``arg_`` in front until it is free."""

    def __init__(self, taken: Iterable[str]) -> None:
        self.taken = set(taken)

    def __call__(self, wanted: str) -> str:
        name = wanted
        while name in self.taken:
            name = "arg_" + name
        self.taken.add(name)
        return name


@dataclass(frozen=True)
class Leaf:
    """One output of an argument: the argument's index, the path of members inside a top-level
    tuple, the leaf's type, and its column names (``hex_name`` for the ``_hex`` twin)."""

    param: int
    path: tuple[int, ...]
    type: AbiType
    name: str
    hex_name: str | None
    topic_hash: bool = False


def plan(params: Sequence[Param], namer: Namer, topic_hashes: frozenset[int] = frozenset()) -> list[Leaf]:
    """The leaves (columns) of ``params``; ``topic_hashes`` are the indices given as hashes."""
    leaves: list[Leaf] = []

    def add(index: int, path: tuple[int, ...], t: AbiType, wanted: str, hashed: bool) -> None:
        if t.kind == "tuple" and not hashed:
            for k, member in enumerate(t.components):
                add(index, (*path, k), member.type, f"{wanted}.{member.name or f'arg{k}'}", False)
            return
        name = namer(wanted)
        hex_name = namer(f"{name}_hex") if t.has_address and not hashed else None
        leaves.append(Leaf(index, path, t, name, hex_name, hashed))

    for i, p in enumerate(params):
        add(i, (), p.type, p.name or f"arg{i}", i in topic_hashes)
    return leaves


@dataclass
class Column:
    """One decoded column.

    ``kind``: ``"uint"`` / ``"int"`` (an object array of exact ints), ``"text"`` / ``"bool"``
    (an Arrow array), ``"nested"`` (an object array of Python lists / dicts).
    """

    name: str
    kind: str
    values: Any


def _text(values: Sequence[str]) -> pa.Array:
    return pa.array(values, type=pa.string())


def _hex_of(values: Sequence[bytes]) -> pa.Array:
    return _text(["0x" + v.hex() for v in values])


def _objects(values: Sequence[Any]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


def columns_from_words(leaf: Leaf, words: np.ndarray) -> list[Column]:
    """The columns of an elementary leaf from its ``(n, 32)`` words (already checked)."""
    kind, t = leaf.type.kind, leaf.type
    if kind in ("uint", "int"):
        return [Column(leaf.name, kind, ints_of_words(words, kind == "int"))]
    if kind == "address":
        ones, hexes = address_strings(words[:, 12:])
        assert leaf.hex_name is not None
        return [Column(leaf.name, "text", ones), Column(leaf.hex_name, "text", hexes)]
    if kind == "bool":
        return [Column(leaf.name, "bool", pa.array(words[:, 31] == 1, type=pa.bool_()))]
    return [Column(leaf.name, "text", fixed_strings(hex_codes(np.ascontiguousarray(words[:, : t.size]))))]


def columns_from_values(leaf: Leaf, values: Sequence[Any]) -> list[Column]:
    """The columns of a leaf from decoded Python values (see :mod:`hmyframe.abi._codec`)."""
    t = leaf.type
    kind = t.kind
    if kind in ("uint", "int"):
        return [Column(leaf.name, kind, _objects(values))]
    if kind == "address":
        raw = bytes.fromhex("".join(v[2:] for v in values))
        ones, hexes = address_strings(np.frombuffer(raw, dtype=np.uint8).reshape(len(values), 20))
        assert leaf.hex_name is not None
        return [Column(leaf.name, "text", ones), Column(leaf.hex_name, "text", hexes)]
    if kind == "bool":
        return [Column(leaf.name, "bool", pa.array(list(values), type=pa.bool_()))]
    if kind in ("fixed_bytes", "bytes", "function"):
        return [Column(leaf.name, "text", _hex_of(values))]
    if kind == "string":
        return [Column(leaf.name, "text", _text(values))]
    seen: dict[str, str] = {}

    def one(address: str) -> str:
        found = seen.get(address)
        if found is None:
            found = seen[address] = str(to_one(address))
        return found

    out = [Column(leaf.name, "nested", _objects([present(v, t, one) for v in values]))]
    if leaf.hex_name is not None:
        out.append(Column(leaf.hex_name, "nested", _objects([present(v, t, None) for v in values])))
    return out


def present(value: Any, t: AbiType, one: Callable[[str], str] | None) -> Any:
    """A decoded value as a nested column shows it: addresses ``one1`` (``0x`` when ``one`` is
    ``None``), bytes as ``0x`` hex, arrays as lists, tuples as dicts by member name."""
    kind = t.kind
    if kind == "address":
        return value if one is None else one(value)
    if kind in ("fixed_bytes", "bytes", "function"):
        return "0x" + value.hex()
    if kind == "array":
        assert t.item is not None
        item = t.item
        return [present(v, item, one) for v in value]
    if kind == "tuple":
        return {
            (p.name or f"arg{i}"): present(v, p.type, one)
            for i, (p, v) in enumerate(zip(t.components, value, strict=True))
        }
    return value


def leaf_values(leaf: Leaf, rows: Sequence[Sequence[Any]]) -> list[Any]:
    """Each row's value of ``leaf`` (rows: the decoded arguments of each row, in order)."""
    out = [row[leaf.param] for row in rows]
    for k in leaf.path:
        out = [v[k] for v in out]
    return out


@dataclass
class Decoded:
    """What decoding one event (or function) over a table gave.

    Attributes
    ----------
    positions
        The position columns of the decoded rows (block, transaction, log index...).
    columns
        The argument columns, in order, aligned with ``positions``.
    attrs
        ``undecoded`` (rows that matched but failed, with their position and reason) and what
        was decoded (``event`` / ``function`` signature...): ``df.attrs`` of the frame.
    """

    positions: pa.Table
    columns: list[Column]
    attrs: dict[str, Any] = field(default_factory=dict)

    def to_arrow(self) -> pa.Table:
        """An Arrow table: exact ints as digit strings (``hmyframe.dtype`` field metadata names
        ``uint256`` / ``int256``), nested values as JSON text."""
        from hmyframe._pandas_meta import DTYPE_KEY

        table = self.positions
        for c in self.columns:
            if c.kind in ("uint", "int"):
                array = pa.array([str(v) for v in c.values.tolist()], type=pa.string())
                f = pa.field(c.name, pa.string(), metadata={DTYPE_KEY: f"{c.kind}256".encode()})
            elif c.kind == "nested":
                array = pa.array(
                    [json.dumps(v, separators=(",", ":")) for v in c.values.tolist()], type=pa.string()
                )
                f = pa.field(c.name, pa.string())
            else:
                array = c.values
                f = pa.field(c.name, array.type)
            table = table.append_column(f, array)
        return table

    def to_pandas(self) -> pd.DataFrame:
        """A DataFrame: position columns as the fetchers give them, ``uint256`` / ``int256``
        exact columns, Arrow-typed text and booleans, nested values as Python objects."""
        import pandas as pd

        from hmyframe.amounts import Int256Array, Uint256Array
        from hmyframe.datasets import to_pandas

        frame = to_pandas(self.positions)
        data: dict[str, Any] = {name: frame[name].array for name in frame.columns}
        for c in self.columns:
            if c.kind in ("uint", "int"):
                array_class = Uint256Array if c.kind == "uint" else Int256Array
                data[c.name] = array_class(c.values, np.zeros(len(c.values), dtype=bool))
            elif c.kind == "nested":
                data[c.name] = c.values
            else:
                data[c.name] = pd.arrays.ArrowExtensionArray(c.values)
        df = pd.DataFrame(data, index=pd.RangeIndex(self.positions.num_rows))
        df.attrs.update(self.attrs)
        return df
