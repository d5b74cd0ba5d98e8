"""``shards``: the sharding structure as one node reports it."""

from __future__ import annotations

import pyarrow as pa

from hmyframe.errors import ResponseShapeError

from ._base import ConvertContext, Dataset, column, shared
from ._blockrows import constant
from ._convert import Where, as_dict, bool_array, int_array, string_array
from ._decode import decode_json, payload_path

NAME = "shards"

SCHEMA = pa.schema(
    [
        shared("shard_id", "Shard described by the row."),
        column("http_url", pa.string(), "HTTP JSON-RPC endpoint of the shard."),
        column("ws_url", pa.string(), "WebSocket endpoint of the shard."),
        column("is_current", pa.bool_(), "True for the shard of the node that answered."),
        column("queried_shard_id", pa.int32(), "Shard of the node that answered (from the context)."),
    ]
)


def build(decoded: object, ctx: ConvertContext) -> dict[str, pa.Array]:
    """Columns of :data:`SCHEMA` from decoded ``getShardingStructure`` answers."""
    if not isinstance(decoded, list):
        raise ResponseShapeError(NAME, "payloads", decoded, "the decoded list of payloads")
    entries: list[dict[str, object]] = []
    paths: list[str] = []
    for i, payload in enumerate(decoded):
        if payload is None:
            continue
        elements = [payload] if isinstance(payload, dict) else payload
        if not isinstance(elements, list):
            raise ResponseShapeError(NAME, payload_path(i), payload, "an array of shard entries")
        for j, element in enumerate(elements):
            path = payload_path(i) if isinstance(payload, dict) else payload_path(i, f"[{j}]")
            entry = as_dict(element, Where.of(NAME, [path]), 0, "", nullable=False)
            assert entry is not None
            entries.append(entry)
            paths.append(path)
    where = Where.of(NAME, paths)
    return {
        "shard_id": int_array(
            [e.get("shardID") for e in entries], where, "shardID", required=True, type_=pa.int32()
        ),
        "http_url": string_array([e.get("http") for e in entries], where, "http"),
        "ws_url": string_array([e.get("ws") for e in entries], where, "ws"),
        "is_current": bool_array([e.get("current") for e in entries], where, "current"),
        "queried_shard_id": constant(ctx.shard_id, len(entries), pa.int32()),
    }


DATASET = Dataset(
    name=NAME,
    description="One row per shard: its id and HTTP / WebSocket endpoints, as reported by a node.",
    schema=SCHEMA,
    sort_by=("queried_shard_id", "shard_id"),
    source="shards",
    methods=("hmy(v2)_getShardingStructure",),
    builder=build,
    decoder=decode_json,
)
