"""``token_transfers``: HRC-20, HRC-721 and HRC-1155 transfers decoded from event logs.

Which logs are transfers, by their signature (``topic0``) and shape:

* ``Transfer(address,address,uint256)`` with 3 topics and 32 bytes of data: HRC-20 (``amount``
  is the data); with 4 topics and no data: HRC-721 (``token_id`` is topic 3, ``amount`` 1). The
  topic count is what tells the two standards apart (they share the signature). A Transfer log
  with 3 topics but other than 32 bytes of data, or 4 topics and data, is malformed: an error
  naming the block and log, and nothing of the chunk is cached. A Transfer with another topic
  count (1, 2: an event whose parties are not indexed) follows neither standard and is not a
  transfer row (it stays in ``logs``).
* ``TransferSingle(address,address,address,uint256,uint256)``: HRC-1155, 4 topics (operator,
  from, to) and 64 bytes of data (id, value); ``TransferBatch(...,uint256[],uint256[])``: 4
  topics and ABI-encoded id and value arrays of equal length, one row per id
  (``batch_index``). Any other shape of these is malformed (an error).

Amounts and token ids are whole uint256 values, 0 to 2**256 - 1, kept exact.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NoReturn

import pyarrow as pa

from hmyframe._lazy import lazy_module
from hmyframe.addresses import normalize_many
from hmyframe.errors import ResponseShapeError

from . import logs as _logs
from ._base import ConvertContext, Dataset, column, shared, uint256_column
from ._receiptlogs import decode_logs
from .tokens import token_metadata

if TYPE_CHECKING:
    import pyarrow.compute as pc
else:
    pc = lazy_module("pyarrow.compute")  # (a ~0.1 s import: only once a table is built)

NAME = "token_transfers"

#: The Arrow storage of the exact uint256 columns (``amount``, ``token_id``): base-10 digit
#: strings (see :func:`._base.uint256_column`; the ``uint256`` dtype in DataFrames).
UINT256 = pa.string()

#: keccak256 of the event signatures.
TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
TRANSFER_SINGLE = "0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62"
TRANSFER_BATCH = "0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb"
_SIGNATURES = [TRANSFER, TRANSFER_SINGLE, TRANSFER_BATCH]
_WORD = 64  # hex digits of a 32-byte ABI word

#: Where a transfer's log stands: the ``logs`` columns of the same names.
_POSITION = (
    "block_number",
    "block_hash",
    "shard_id",
    "transaction_hash",
    "eth_hash",
    "transaction_index",
    "log_index",
)

SCHEMA = pa.schema(
    [
        *(_logs.SCHEMA.field(name) for name in _POSITION),
        column(
            "batch_index",
            pa.int64(),
            "Position of the id in an HRC-1155 TransferBatch (one row per id); 0 for other transfers.",
        ),
        column("standard", pa.string(), "hrc20, hrc721 or hrc1155."),
        column("token_address", pa.string(), "Token contract (the log's emitter), one1 bech32."),
        column("token_address_hex", pa.string(), "Token contract, lower-case 0x hex."),
        column("operator_address", pa.string(), "HRC-1155 operator, one1 bech32; null for other standards."),
        column("operator_address_hex", pa.string(), "HRC-1155 operator, lower-case 0x hex; null for others."),
        shared("from_address", "Sender of the tokens, one1 bech32 (the zero address for a mint)."),
        shared("from_address_hex", "Sender of the tokens, lower-case 0x hex."),
        shared("to_address", "Receiver of the tokens, one1 bech32 (the zero address for a burn)."),
        shared("to_address_hex", "Receiver of the tokens, lower-case 0x hex."),
        uint256_column(
            "amount",
            "Tokens moved in the token's smallest unit, exact uint256 (1 for HRC-721).",
        ),
        uint256_column("token_id", "NFT id (HRC-721, HRC-1155), exact uint256; null for HRC-20."),
    ]
)


class _Row:
    """The log fields a transfer row repeats."""

    __slots__ = ("address", "data", "log_index", "number", "row", "topics")

    def __init__(
        self, row: int, number: int, log_index: int, address: str, topics: list[str], data: str
    ) -> None:
        self.row, self.number, self.log_index = row, number, log_index
        self.address, self.topics, self.data = address, topics, data

    def fail(self, value: object, expected: str) -> NoReturn:
        raise ResponseShapeError(
            NAME,
            f"block {self.number} log {self.log_index} (token {self.address})",
            value,
            expected + "; nothing of this chunk was cached",
        )


def _topic_address(row: _Row, k: int) -> str:
    topic = row.topics[k]
    if topic[2:26] != "0" * 24:
        row.fail(topic, f"an address in topic {k} (32 bytes whose first 12 are zero)")
    return "0x" + topic[26:]


def _words(row: _Row) -> list[int]:
    body = row.data[2:]
    if len(body) % _WORD:
        row.fail(row.data, "data of whole 32-byte words")
    return [int(body[i : i + _WORD], 16) for i in range(0, len(body), _WORD)]


def _batch(row: _Row) -> list[tuple[int, int]]:
    """``(id, value)`` pairs of a TransferBatch: ``(uint256[] ids, uint256[] values)`` ABI-encoded."""
    words = _words(row)
    expected = "ABI-encoded uint256[] ids and values of equal length"
    if len(words) < 4:
        row.fail(row.data, expected)

    def array(offset: int) -> list[int]:
        if offset % 32 or offset // 32 >= len(words):
            row.fail(row.data, expected)
        start = offset // 32
        length = words[start]
        if start + 1 + length > len(words):
            row.fail(row.data, expected)
        return words[start + 1 : start + 1 + length]

    ids, values = array(words[0]), array(words[1])
    if len(ids) != len(values):
        row.fail(f"{len(ids)} ids, {len(values)} values", expected)
    return list(zip(ids, values, strict=True))


def decode_transfer(
    topics: list[str], data: str, *, number: int = 0, log_index: int = 0, address: str = ""
) -> list[tuple[str, str | None, str, str, int, int | None]]:
    """The transfers one log holds: ``(standard, operator, from, to, amount, token_id)`` rows.

    Parameters
    ----------
    topics
        The log's topics, lower-case 0x hashes (``topics[0]`` the event signature).
    data
        The log's data, 0x hex.
    number, log_index, address
        Block, log position and emitter, named in errors.

    Returns
    -------
    list
        ``[]`` for a log that is not a transfer (another event, or a Transfer with 1 or 2 topics);
        one row per id of a TransferBatch; else one row. Addresses are lower-case 0x hex.

    Raises
    ------
    ResponseShapeError
        A transfer log of a recognised standard with a malformed shape (see the module docs).
    """
    row = _Row(0, number, log_index, address, topics, data)
    if not topics or len(data) % 2 or not data.startswith("0x"):
        if topics and topics[0] in _SIGNATURES:
            row.fail(data, "0x hex data of whole bytes")
        return []
    signature = topics[0]
    if signature == TRANSFER:
        if len(topics) == 3:
            if len(data) != 2 + _WORD:
                row.fail(
                    f"3 topics and {(len(data) - 2) // 2}-byte data",
                    "an HRC-20 Transfer's 32-byte amount (3 topics) or an HRC-721 Transfer's 4 topics and no data",
                )
            return [("hrc20", None, _topic_address(row, 1), _topic_address(row, 2), int(data, 16), None)]
        if len(topics) == 4:
            if data != "0x":
                row.fail(f"4 topics and {(len(data) - 2) // 2}-byte data", "an HRC-721 Transfer without data")
            token_id = int(topics[3], 16)
            return [("hrc721", None, _topic_address(row, 1), _topic_address(row, 2), 1, token_id)]
        return []
    if signature in (TRANSFER_SINGLE, TRANSFER_BATCH):
        if len(topics) != 4:
            row.fail(
                f"{len(topics)} topics", "an HRC-1155 transfer's 4 topics (signature, operator, from, to)"
            )
        operator, sender, receiver = (_topic_address(row, k) for k in (1, 2, 3))
        if signature == TRANSFER_SINGLE:
            words = _words(row)
            if len(words) != 2:
                row.fail(row.data, "an HRC-1155 TransferSingle's 64-byte data (id, value)")
            return [("hrc1155", operator, sender, receiver, words[1], words[0])]
        return [("hrc1155", operator, sender, receiver, value, id_) for id_, value in _batch(row)]
    return []


def build(decoded: object, ctx: ConvertContext) -> dict[str, pa.Array]:
    """Columns of :data:`SCHEMA` from :func:`~hmyframe.datasets._receiptlogs.decode_logs` output,
    or from a ``logs`` table of the same answers (the logs source builds that first).

    The logs are first built (and checked) as the ``logs`` dataset; only those whose signature
    is a transfer's are decoded, row by row.
    """
    table = decoded if isinstance(decoded, pa.Table) else pa.Table.from_pydict(_logs.build(decoded, ctx))
    table = table.filter(pc.is_in(table["topic0"], pa.array(_SIGNATURES, type=pa.string())))
    keep = tuple(name for name in _POSITION if name != "shard_id")
    out: dict[str, list[object]] = {name: [] for name in (*keep, "batch_index", "standard")}
    parties: dict[str, list[str | None]] = {"token": [], "operator": [], "from": [], "to": []}
    amounts: list[str] = []
    ids: list[str | None] = []
    columns = {name: table[name].to_pylist() for name in table.column_names}
    for i in range(table.num_rows):
        topics = [columns[f"topic{k}"][i] for k in range(columns["topic_count"][i])]
        rows = decode_transfer(
            topics,
            columns["data"][i],
            number=columns["block_number"][i],
            log_index=columns["log_index"][i],
            address=columns["address"][i],
        )
        for j, (standard, operator, sender, receiver, amount, token_id) in enumerate(rows):
            for name in keep:
                out[name].append(columns[name][i])
            out["batch_index"].append(j)
            out["standard"].append(standard)
            parties["token"].append(columns["address_hex"][i])
            parties["operator"].append(operator)
            parties["from"].append(sender)
            parties["to"].append(receiver)
            amounts.append(str(amount))
            ids.append(None if token_id is None else str(token_id))
    n = len(amounts)
    result: dict[str, pa.Array] = {
        name: pa.array(out[name], type=SCHEMA.field(name).type) for name in (*keep, "batch_index", "standard")
    }
    result["shard_id"] = pa.array([ctx.shard_id] * n, type=pa.int32())
    for party, prefix in (
        ("token", "token_address"),
        ("operator", "operator_address"),
        ("from", "from_address"),
        ("to", "to_address"),
    ):
        ones, hexes = normalize_many(parties[party])
        result[prefix] = pa.array(ones, type=pa.string())
        result[f"{prefix}_hex"] = pa.array(hexes, type=pa.string())
    result["amount"] = pa.array(amounts, type=UINT256)
    result["token_id"] = pa.array(ids, type=UINT256)
    return result


#: The columns ``with_tokens=True`` adds (from the ``tokens`` dataset), after the schema's.
TOKEN_COLUMNS = pa.schema(
    [
        column("token_name", pa.string(), "The token's name() (tokens dataset); null when unknown."),
        column("token_symbol", pa.string(), "The token's symbol() (tokens dataset); null when unknown."),
        column(
            "token_decimals", pa.int32(), "The token's decimals() (tokens dataset); null when it has none."
        ),
        column(
            "amount_scaled",
            pa.float64(),
            "amount / 10**token_decimals as float64, correctly rounded (convenience; exact: "
            "hmyframe.to_units(df.amount, df.token_decimals)); null where the decimals are unknown.",
        ),
    ]
)


def with_tokens(transfers: pa.Table, tokens: pa.Table) -> pa.Table:
    """``transfers`` (this dataset) with :data:`TOKEN_COLUMNS` from ``tokens`` (the tokens dataset).

    A transfer is matched to the token row of the same ``shard_id`` and address (the row of the
    highest ``block_number`` when a token was read at several blocks); a transfer whose token is
    not in ``tokens`` gets nulls. ``amount_scaled`` is ``int(amount) / 10**decimals``: Python's
    true division of integers, correctly rounded whatever their size (the value
    ``hmyframe.to_units(amount, decimals, exact=False)`` gives).
    """
    meta = token_metadata(tokens)
    found = [
        meta.get((shard, address))
        for shard, address in zip(
            transfers["shard_id"].to_pylist(), transfers["token_address_hex"].to_pylist(), strict=True
        )
    ]
    decimals = [None if f is None else f[3] for f in found]
    scaled = [
        None if d is None else int(a) / 10**d
        for a, d in zip(transfers["amount"].to_pylist(), decimals, strict=True)
    ]
    values = {
        "token_name": [None if f is None else f[1] for f in found],
        "token_symbol": [None if f is None else f[2] for f in found],
        "token_decimals": decimals,
        "amount_scaled": scaled,
    }
    for field in TOKEN_COLUMNS:
        transfers = transfers.append_column(field, pa.array(values[field.name], type=field.type))
    return transfers


DATASET = Dataset(
    name=NAME,
    description="One row per token transfer (HRC-20, HRC-721, HRC-1155; batches one row per id) decoded from logs, amounts exact.",
    schema=SCHEMA,
    sort_by=("block_number", "log_index", "batch_index"),
    source="logs",
    methods=("hmy_getLogs",),
    builder=build,
    decoder=decode_logs,
    summary="Token transfers (HRC-20, HRC-721, HRC-1155) decoded from the logs of blocks ``start..end``.",
    notes=(
        "Decoded from the same ``hmy_getLogs`` answers as ``logs`` (fetching either caches both). "
        "``amount`` and ``token_id`` are exact uint256 values as base-10 digit strings; a transfer "
        "log of a known standard with a malformed shape is an error naming its block and log."
    ),
)
