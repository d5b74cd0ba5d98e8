"""``logs``: one row per event log emitted by a contract (``hmy_getLogs``)."""

from __future__ import annotations

import pyarrow as pa

from ._base import ConvertContext, Dataset, column, shared
from ._blockrows import constant
from ._convert import Where, address_arrays, bool_array, hash_array, hex_data_array, int_array
from ._receiptlogs import DecodedLogs, Log, decode_logs, require

NAME = "logs"
#: An EVM log has at most 4 topics (LOG0..LOG4).
MAX_TOPICS = 4

SCHEMA = pa.schema(
    [
        shared("block_number"),
        shared("block_hash"),
        shared("shard_id"),
        shared(
            "transaction_hash",
            "0x Harmony hash of the log's transaction (the hash transactions, receipts and traces carry), "
            "whichever hash the node named it by: nodes answer with the Ethereum-form hash once an eth_ "
            "call has touched the block's receipts, and hmyframe resolves it through the block's "
            "transactions.",
        ),
        column(
            "eth_hash",
            pa.string(),
            "0x Ethereum-form hash of the log's transaction (the hash eth_getLogs gives); null for a "
            "staking transaction's log.",
        ),
        shared(
            "transaction_index",
            "Position of the log's transaction in its block (a staking transaction's counts after the "
            "plain ones, as in its receipt).",
        ),
        column("log_index", pa.int64(), "Position of the log in its block (0..n-1 across its transactions)."),
        column("address", pa.string(), "Contract that emitted the log, one1 bech32."),
        column("address_hex", pa.string(), "Contract that emitted the log, lower-case 0x hex."),
        *(
            column(
                f"topic{i}",
                pa.string(),
                "Event signature hash (0x, 32 bytes); null for an anonymous event without topics."
                if i == 0
                else f"Indexed topic {i} (0x, 32 bytes); null when the log has fewer topics.",
            )
            for i in range(MAX_TOPICS)
        ),
        column("topic_count", pa.int64(), "Number of topics of the log (0..4)."),
        column("data", pa.string(), "Non-indexed data, 0x hex ('0x' when empty)."),
        column("removed", pa.bool_(), "True if the log was removed by a chain reorganisation."),
    ]
)


def topics_of(logs: list[Log], where: Where) -> list[list[str]]:
    """Each log's topics, checked to be a list of at most :data:`MAX_TOPICS` strings."""
    out: list[list[str]] = []
    for i, log in enumerate(logs):
        topics = log.topics
        if type(topics) is not list or len(topics) > MAX_TOPICS or not all(type(t) is str for t in topics):
            where.fail(i, "topics", topics, f"an array of at most {MAX_TOPICS} 0x topic hashes")
        out.append(topics)
    return out


def build(decoded: object, ctx: ConvertContext) -> dict[str, pa.Array]:
    """Columns of :data:`SCHEMA` from :func:`~hmyframe.datasets._receiptlogs.decode_logs` output.

    ``transaction_hash`` is the hash the node named (either form) and ``eth_hash`` null: the
    logs source resolves both through the blocks' transactions
    (:func:`hmyframe.datasets._transform.logs`).
    """
    data = require(decoded, DecodedLogs, NAME, "logs")
    logs = data.logs
    where = Where.of(NAME, data.paths)
    topics = topics_of(logs, where)
    address_one, address_hex = address_arrays([g.address for g in logs], where, "address", required=True)
    columns: dict[str, pa.Array] = {
        "block_number": int_array([g.blockNumber for g in logs], where, "blockNumber", required=True),
        "block_hash": hash_array([g.blockHash for g in logs], where, "blockHash", required=True),
        "shard_id": constant(ctx.shard_id, len(logs), pa.int32()),
        # as the node named it (either hash): the logs source resolves it through the blocks
        "transaction_hash": hash_array(
            [g.transactionHash for g in logs], where, "transactionHash", required=True
        ),
        "eth_hash": pa.nulls(len(logs), type=pa.string()),
        "transaction_index": int_array(
            [g.transactionIndex for g in logs], where, "transactionIndex", required=True
        ),
        "log_index": int_array([g.logIndex for g in logs], where, "logIndex", required=True),
        "address": address_one,
        "address_hex": address_hex,
        "topic_count": pa.array([len(t) for t in topics], type=pa.int64()),
        "data": hex_data_array([g.data for g in logs], where, "data", required=True),
        "removed": bool_array([False if g.removed is None else g.removed for g in logs], where, "removed"),
    }
    for k in range(MAX_TOPICS):
        values = [t[k] if len(t) > k else None for t in topics]
        columns[f"topic{k}"] = hash_array(values, where, f"topics[{k}]")
    return columns


DATASET = Dataset(
    name=NAME,
    description="One row per event log: emitting contract, topics, data, its transaction and position.",
    schema=SCHEMA,
    sort_by=("block_number", "log_index"),
    source="logs",
    methods=("hmy_getLogs",),
    builder=build,
    decoder=decode_logs,
    summary="Event logs of every transaction of blocks ``start..end``.",
    notes=(
        "Logs come from ``hmy_getLogs`` over spans of at most 1,024 blocks (the node's cap), split "
        "again on a too-many-results answer. A log names its transaction by the Harmony or the "
        "Ethereum-form hash depending on the node's receipts cache (an ``eth_`` call on the block "
        "rewrites the cached logs in place): both are resolved through the blocks' transactions "
        "(their tables when cached or fetched with the logs, else the hash lists of headers-only "
        "blocks), so ``transaction_hash`` is always the "
        "Harmony hash and joins transactions, receipts and traces. Before anything is cached every "
        "block's logs are checked: its hash, each log's transaction (position and either hash), no "
        "repeated or missing log index, the block's logsBloom, and each transaction's log count "
        "against its receipt when receipts are fetched with them."
    ),
)
