"""Decoding tables: the ``logs`` dataset by events, ``transactions`` / ``traces`` inputs by functions.

One job: pick the rows each event (function) matches, decode them, and set aside those that
match but do not decode. Pure functions on Arrow tables (or the DataFrames of
:func:`hmyframe.logs` / :func:`hmyframe.read`); nothing here fetches.

Which rows an event takes: ``topic0`` equal to its hash (an anonymous event: every log with its
number of topics), and the emitter among ``address`` if given. Of those, a log is *undecoded*
(listed in ``attrs["undecoded"]`` with its position and reason, and left out of the frame) when
its topic count is not the event's, its data is not the length a static event's arguments take
(or, for dynamic arguments, too short for what its offsets and lengths say), or a value is out of
range for its type (a bool word not 0 or 1, an address word with non-zero high bytes, a
``uint8`` above 255, an ``int8`` not sign-extended, a ``string`` that is not UTF-8...). A
function takes the calls whose input starts with its selector (and whose callee is among
``address``); input after the arguments is allowed (as the EVM allows it).

Events whose data arguments are all one-word types (``Swap``, ``Sync``, ``Transfer``...) and
every one-word indexed argument are decoded column-wise (:mod:`hmyframe.abi._words`); other
data row by row (:mod:`hmyframe.abi._codec`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hmyframe.addresses import normalize_many
from hmyframe.errors import AddressError, ConfigError, short_repr

from ._codec import DecodeFailure, decode_params, decode_word
from ._columns import Column, Decoded, Leaf, Namer, columns_from_values, columns_from_words, leaf_values, plan
from ._types import Event, Function, Param
from ._words import fixed_hex, word_problems

__all__ = ["CALL_POSITION", "LOG_POSITION", "TRACE_POSITION", "as_table", "decode_calls", "decode_logs"]

_WORD = 32
#: Rows of one-word arguments decoded at once (see :func:`_decode_arguments`).
_SLICE = 1 << 18
#: The position columns a decoded log starts with (those the logs table has, in this order).
LOG_POSITION = (
    "block_number",
    "shard_id",
    "transaction_hash",
    "transaction_index",
    "log_index",
    "address",
    "address_hex",
)
#: ... a decoded transaction input (``value``, the ONE sent, is given as ``call_value``: an
#: argument named ``value`` is common, ``transfer(address to, uint256 value)``).
CALL_POSITION = (
    "block_number",
    "shard_id",
    "transaction_hash",
    "transaction_index",
    "from_address",
    "from_address_hex",
    "to_address",
    "to_address_hex",
    "call_value",
)
#: ... a decoded call of a trace (``transaction_position`` is given as ``transaction_index``).
TRACE_POSITION = (
    "block_number",
    "shard_id",
    "transaction_hash",
    "transaction_index",
    "trace_index",
    "trace_address",
    "call_type",
    "from_address",
    "from_address_hex",
    "to_address",
    "to_address_hex",
    "call_value",
    "error",
)
#: Position columns named otherwise than in their dataset: output name -> dataset column.
_SOURCES = {"call_value": "value", "transaction_index": "transaction_position"}
_NEEDED_LOGS = ("topic0", "topic1", "topic2", "topic3", "topic_count", "data", "address_hex")


def as_table(frame: object, needed: Sequence[str], what: str) -> pa.Table:
    """An Arrow table of ``frame`` (a pyarrow Table or a DataFrame of a fetcher) with ``needed``."""
    table: Any = frame
    if not isinstance(table, pa.Table):
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover  (pandas is a dependency)
            pd = None
        if pd is not None and isinstance(frame, pd.DataFrame):
            table = pa.Table.from_pandas(frame, preserve_index=False)
        elif hasattr(frame, "to_arrow"):  # polars
            table = frame.to_arrow()
        else:
            raise ConfigError(
                f"expected the {what} dataset as a DataFrame or pyarrow Table, got {short_repr(frame)}"
            )
    missing = [c for c in needed if c not in table.column_names]
    if missing:
        raise ConfigError(f"the {what} table lacks {', '.join(missing)}: expected the {what} dataset")
    return table


def addresses_filter(address: object) -> list[str] | None:
    """``address=`` as lower-case 0x texts (one1 or 0x given; one string or a sequence)."""
    if address is None:
        return None
    given = [address] if isinstance(address, str) else address
    if not isinstance(given, list | tuple | set | frozenset) or not all(isinstance(a, str) for a in given):
        raise AddressError(address, "expected an address or a list of addresses")
    _, hexes = normalize_many(list(given))
    return sorted({h for h in hexes if h is not None})


def _positions(table: pa.Table, columns: Sequence[str]) -> pa.Table:
    """The position columns of ``table`` (those it has), named as ``columns`` says."""
    fields: list[pa.Field] = []
    arrays: list[pa.ChunkedArray] = []
    for name in columns:
        source = name if name in table.column_names else _SOURCES.get(name)
        if source is None or source not in table.column_names:
            continue
        f = table.schema.field(source)
        fields.append(f.with_name(name))
        arrays.append(table.column(source))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields)) if fields else pa.table({})


def _filter(table: pa.Table, mask: pa.Array | pa.ChunkedArray) -> pa.Table:
    """The rows of ``table`` where ``mask`` is true (null: false). The mask is made one array
    first: ``Table.filter`` with a chunked mask is ~50x slower (pyarrow 15-26)."""
    if isinstance(mask, pa.ChunkedArray):
        mask = mask.combine_chunks() if mask.num_chunks != 1 else mask.chunk(0)
    mask = pc.fill_null(mask, False)
    if mask.true_count == len(mask):
        return table
    return table.filter(mask)


def _where(positions: pa.Table, rows: np.ndarray, keys: Sequence[str]) -> list[dict[str, Any]]:
    """The position fields named in ``keys`` of each row in ``rows`` (for ``undecoded``)."""
    present = [k for k in keys if k in positions.column_names]
    if not len(rows):
        return []
    picked = positions.select(present).take(pa.array(rows, type=pa.int64())).to_pylist()
    return [dict(p) for p in picked]


def _text_lengths(array: pa.ChunkedArray) -> np.ndarray:
    return np.asarray(pc.utf8_length(array).fill_null(0).to_numpy(zero_copy_only=False), dtype=np.int64)


class _Rows:
    """The candidate rows of one event or function and what is known to be wrong with them
    (or a slice of them: :meth:`part` shares the parent's records)."""

    def __init__(self, n: int) -> None:
        self.reason: list[str | None] = [None] * n
        self.bad = np.zeros(n, dtype=bool)
        self.offset = 0

    def part(self, start: int, stop: int) -> _Rows:
        """Rows ``start .. stop - 1``: their failures are recorded here too."""
        sub = _Rows(0)
        sub.reason, sub.bad, sub.offset = self.reason, self.bad[start:stop], self.offset + start
        return sub

    def fail(self, mask: np.ndarray, reason: Any) -> None:
        """Mark rows ``mask`` (keeping an earlier reason); ``reason`` a text or a row -> text."""
        new = np.flatnonzero(mask & ~self.bad)
        for i in new.tolist():
            self.reason[self.offset + i] = reason if isinstance(reason, str) else reason(i)
        self.bad[new] = True


def _word_leaves(
    rows: _Rows, leaves: Sequence[Leaf], words_of: dict[int, np.ndarray], params: Sequence[Param], first: int
) -> None:
    """Check the words of one-word leaves: out-of-range rows fail with decode_word's reason."""
    for leaf in leaves:
        if leaf.topic_hash or leaf.param not in words_of:
            continue
        words = words_of[leaf.param]
        bad = word_problems(words, leaf.type.kind, leaf.type.size)
        if bad.any():
            name = params[leaf.param].name or f"arg{first + leaf.param}"

            def reason(i: int, words: np.ndarray = words, leaf: Leaf = leaf, name: str = name) -> str:
                try:
                    decode_word(leaf.type, words[i].tobytes(), name)
                except DecodeFailure as exc:
                    return str(exc)
                return f"argument {name}: out of range"  # pragma: no cover  (the masks agree)

            rows.fail(bad, reason)


def _build(
    leaves: Sequence[Leaf],
    good: np.ndarray,
    words_of: dict[int, np.ndarray],
    hashes_of: dict[int, pa.ChunkedArray],
    values: list[list[Any]] | None,
) -> list[Column]:
    """The columns of the good rows (``values``: their per-row decoded data arguments)."""
    columns: list[Column] = []
    every = bool(good.all())
    keep = None if every else pa.array(np.flatnonzero(good), type=pa.int64())
    for leaf in leaves:
        if leaf.topic_hash:
            hashes = hashes_of[leaf.param] if keep is None else hashes_of[leaf.param].take(keep)
            columns.append(Column(leaf.name, "text", hashes.combine_chunks()))
        elif leaf.param in words_of:
            words = words_of[leaf.param]
            columns.extend(columns_from_words(leaf, words if every else words[good]))
        else:
            assert values is not None
            columns.extend(columns_from_values(leaf, leaf_values(leaf, values)))
    return columns


def _data_words(
    rows: _Rows, data: pa.ChunkedArray, skip: int, size: int, exact: bool, label: str
) -> np.ndarray:
    """``(n, size)`` bytes of each row's arguments (after ``skip`` bytes) of static data."""
    lengths = (_text_lengths(data) - 2) // 2 - skip
    if exact:
        rows.fail(lengths != size, lambda i: f"{label} is {int(lengths[i])} bytes; the arguments take {size}")
    else:
        rows.fail(
            lengths < size, lambda i: f"{label} too short: {int(lengths[i])} bytes; the arguments take {size}"
        )
    matrix, hexed = fixed_hex(data, size, skip, exact)
    rows.fail(~hexed, f"{label} is not 0x hex")
    return matrix


def _data_values(
    rows: _Rows, data: pa.ChunkedArray, skip: int, params: Sequence[Param], label: str, first: int
) -> list[list[Any] | None]:
    """Each row's data arguments decoded one by one (None where it fails: the reason is kept)."""
    out: list[list[Any] | None] = []
    for i, text in enumerate(data.to_pylist()):
        if rows.bad[i]:
            out.append(None)
            continue
        if text is None or len(text) < 2 + 2 * skip:
            rows.fail(_one(i, rows), f"{label} too short for a selector")
            out.append(None)
            continue
        try:
            out.append(decode_params(params, bytes.fromhex(text[2 + 2 * skip :]), first))
        except ValueError:
            rows.fail(_one(len(out), rows), f"{label} is not hex")
            out.append(None)
        except DecodeFailure as exc:
            rows.fail(_one(len(out), rows), str(exc))
            out.append(None)
    return out


def _one(i: int, rows: _Rows) -> np.ndarray:
    mask = np.zeros(len(rows.bad), dtype=bool)
    mask[i] = True
    return mask


def _decode_arguments(
    rows: _Rows,
    inputs: Sequence[Param],
    leaves: Sequence[Leaf],
    topics: dict[int, pa.ChunkedArray],
    data: pa.ChunkedArray,
    skip: int,
    exact: bool,
    label: str,
) -> list[Column]:
    """Decode ``inputs`` (indices in ``topics`` come from topics, the rest from ``data``).

    One-word arguments are decoded :data:`_SLICE` rows at a time: the byte matrices of a slice
    stay in the processor's cache and the allocator reuses their memory (on a million logs at
    once, the page faults of fresh buffers cost more than the decoding)."""
    n = len(rows.bad)
    if n <= _SLICE or not all(inputs[i].type.elementary for i in range(len(inputs)) if i not in topics):
        return _decode_slice(rows, inputs, leaves, topics, data, skip, exact, label)
    parts = [
        _decode_slice(
            rows.part(start, min(start + _SLICE, n)),
            inputs,
            leaves,
            {i: t.slice(start, _SLICE) for i, t in topics.items()},
            data.slice(start, _SLICE),
            skip,
            exact,
            label,
        )
        for start in range(0, n, _SLICE)
    ]
    return [_concat([p[k] for p in parts]) for k in range(len(parts[0]))]


def _concat(pieces: Sequence[Column]) -> Column:
    """One column of the same column of each slice."""
    first = pieces[0]
    if first.kind in ("text", "bool"):
        return Column(first.name, first.kind, pa.concat_arrays([p.values for p in pieces]))
    return Column(first.name, first.kind, np.concatenate([p.values for p in pieces]))


def _decode_slice(
    rows: _Rows,
    inputs: Sequence[Param],
    leaves: Sequence[Leaf],
    topics: dict[int, pa.ChunkedArray],
    data: pa.ChunkedArray,
    skip: int,
    exact: bool,
    label: str,
) -> list[Column]:
    """:func:`_decode_arguments` on rows few enough to decode at once."""
    words_of: dict[int, np.ndarray] = {}
    hashes_of: dict[int, pa.ChunkedArray] = {}
    for index, topic in topics.items():
        if inputs[index].type.elementary:
            matrix, ok = fixed_hex(topic, _WORD)
            rows.fail(~ok, f"topic of argument {inputs[index].name or f'arg{index}'} is not a 32-byte hash")
            words_of[index] = matrix
        else:
            hashes_of[index] = topic
    in_data = [i for i in range(len(inputs)) if i not in topics]
    data_params = [inputs[i] for i in in_data]
    values: list[list[Any]] | None = None
    if all(p.type.elementary for p in data_params):
        matrix = _data_words(rows, data, skip, _WORD * len(data_params), exact, label)
        for k, i in enumerate(in_data):
            words_of[i] = matrix[:, _WORD * k : _WORD * (k + 1)]
        _word_leaves(rows, leaves, words_of, inputs, 0)
    else:
        _word_leaves(rows, leaves, words_of, inputs, 0)
        decoded = _data_values(rows, data, skip, data_params, label, 0)
        full: list[list[Any]] = []
        for i, row in enumerate(decoded):
            if rows.bad[i] or row is None:
                continue
            merged: list[Any] = [None] * len(inputs)
            for k, index in enumerate(in_data):
                merged[index] = row[k]
            full.append(merged)
        values = full
    good = ~rows.bad
    return _build(leaves, good, words_of, hashes_of, values)


def decode_logs(
    logs: object, events: Sequence[Event], address: object = None, keys: Sequence[str] | None = None
) -> list[Decoded]:
    """Decode the ``logs`` dataset (a DataFrame or Arrow table) by each of ``events``.

    Parameters
    ----------
    logs
        The logs dataset (needs ``topic0`` .. ``topic3``, ``topic_count``, ``data``,
        ``address_hex``; the position columns it has are kept).
    events
        The events to decode; a log may be decoded by several (two events of one signature).
    address
        Only logs emitted by this contract (one1 or 0x; or a list of them).
    keys
        Each event's name in the result (``attrs["event"]``); default its full signature.

    Returns
    -------
    list of Decoded
        One per event, in order.
    """
    table = as_table(logs, _NEEDED_LOGS, "logs")
    wanted = addresses_filter(address)
    base = (
        pc.is_in(table.column("address_hex"), value_set=pa.array(wanted, type=pa.string()))
        if wanted is not None
        else None
    )
    out: list[Decoded] = []
    for e, event in enumerate(events):
        if event.anonymous:
            mask = pc.equal(table.column("topic_count"), event.topic_count)
        else:
            mask = pc.equal(table.column("topic0"), event.topic0)
        if base is not None:
            mask = pc.and_(mask, base)
        picked = _filter(table, mask)
        positions = _positions(picked, LOG_POSITION)
        rows = _Rows(picked.num_rows)
        counts = np.asarray(picked.column("topic_count").to_numpy(zero_copy_only=False))
        expected = event.topic_count
        shape = f"({'' if event.anonymous else 'topic0 and '}{len(event.indexed)} indexed arguments)"
        rows.fail(
            counts != expected,
            lambda i, counts=counts, expected=expected, shape=shape: (
                f"the log has {int(counts[i])} topics; the event has {expected} {shape}"
            ),
        )
        first = 0 if event.anonymous else 1
        topics: dict[int, pa.ChunkedArray] = {}
        k = first
        for i, p in enumerate(event.inputs):
            if p.indexed:
                topics[i] = picked.column(f"topic{k}")
                k += 1
        namer = Namer(positions.column_names)
        leaves = plan(
            event.inputs, namer, frozenset(i for i in topics if not event.inputs[i].type.elementary)
        )
        columns = _decode_arguments(
            rows, event.inputs, leaves, topics, picked.column("data"), 0, True, "data"
        )
        good = ~rows.bad
        undecoded = _where(positions, np.flatnonzero(rows.bad), LOG_POSITION)
        for entry, i in zip(undecoded, np.flatnonzero(rows.bad).tolist(), strict=True):
            entry.pop("address_hex", None)
            entry["reason"] = rows.reason[i]
        name = keys[e] if keys is not None else event.full_signature
        attrs = {"event": event.full_signature, "key": name, "undecoded": undecoded}
        out.append(Decoded(_filter(positions, pa.array(good)), columns, attrs))
    return out


def decode_calls(
    table_like: object,
    functions: Sequence[Function],
    address: object = None,
    keys: Sequence[str] | None = None,
    traces: bool = False,
) -> list[Decoded]:
    """Decode the ``input`` of transactions (or of the calls of ``traces``) by ``functions``.

    Parameters
    ----------
    table_like
        The transactions dataset (or the traces dataset with ``traces=True``).
    functions
        The functions to decode; a call goes to each function of its selector.
    address
        Only calls to this contract (one1 or 0x; or a list of them).
    keys
        Each function's name in the result (``attrs["function"]``); default its full signature.
    traces
        Whether ``table_like`` is the traces dataset: then only ``call`` traces are read (every
        depth: the transaction's own call and its internal calls), with their trace columns.

    Returns
    -------
    list of Decoded
        One per function, in order; each ``attrs["unknown_selectors"]`` lists the selectors of
        the other calls (to ``address``, if given) that no function of the ABI has, with counts.
    """
    needed = ("input", "to_address_hex", "type") if traces else ("input", "to_address_hex")
    table = as_table(table_like, needed, "traces" if traces else "transactions")
    layout = TRACE_POSITION if traces else CALL_POSITION
    mask = pc.equal(table.column("type"), "call") if traces else None
    wanted = addresses_filter(address)
    if wanted is not None:
        to = pc.is_in(table.column("to_address_hex"), value_set=pa.array(wanted, type=pa.string()))
        mask = to if mask is None else pc.and_(mask, to)
    if mask is not None:
        table = _filter(table, mask)
    selectors = pc.utf8_lower(pc.utf8_slice_codeunits(table.column("input"), 0, 10))
    lengths = _text_lengths(table.column("input"))
    known = {f.selector for f in functions}
    unknown = _unknown(selectors, lengths, known)
    out: list[Decoded] = []
    for e, function in enumerate(functions):
        picked = _filter(table, pc.equal(selectors, function.selector))
        positions = _positions(picked, layout)
        rows = _Rows(picked.num_rows)
        namer = Namer(positions.column_names)
        leaves = plan(function.inputs, namer)
        columns = _decode_arguments(
            rows, function.inputs, leaves, {}, picked.column("input"), 4, False, "input"
        )
        good = ~rows.bad
        undecoded = _where(
            positions,
            np.flatnonzero(rows.bad),
            ("block_number", "shard_id", "transaction_hash", "trace_address", "to_address"),
        )
        for entry, i in zip(undecoded, np.flatnonzero(rows.bad).tolist(), strict=True):
            entry["reason"] = rows.reason[i]
        name = keys[e] if keys is not None else function.full_signature
        attrs = {
            "function": function.full_signature,
            "selector": function.selector,
            "key": name,
            "undecoded": undecoded,
            "unknown_selectors": unknown,
        }
        out.append(Decoded(_filter(positions, pa.array(good)), columns, attrs))
    return out


def _unknown(selectors: pa.ChunkedArray, lengths: np.ndarray, known: set[str]) -> list[dict[str, Any]]:
    """Selectors of calls with at least 4 bytes of input that no function has, most called first."""
    calls = lengths >= 10
    if not calls.any():
        return []
    texts = np.asarray(selectors.to_numpy(zero_copy_only=False), dtype=object)[calls]
    counts: dict[str, int] = {}
    for s in texts.tolist():
        if s not in known:
            counts[s] = counts.get(s, 0) + 1
    return [{"selector": s, "calls": n} for s, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
