"""A caller's ``shard`` (one id, a list of ids, ``"all"``): checked, then resolved to shard ids.

Light on purpose (no pyarrow, no datasets): the export and the reports use it before any
table is made.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, TypeAlias

from hmyframe.engine._session import block_arg
from hmyframe.errors import ConfigError, short_repr

if TYPE_CHECKING:
    from hmyframe.engine._session import Session

__all__ = ["ShardSpec", "shard_ids", "shard_label", "shard_spec"]

#: ``shard``: one shard id, several (fetched concurrently, concatenated in order), or ``"all"``.
ShardSpec: TypeAlias = int | Sequence[int] | Literal["all"]


def shard_spec(shard: object) -> list[int] | Literal["all"]:
    """A caller's ``shard`` checked before any request: ``"all"`` or a list of distinct ids."""
    if isinstance(shard, str):
        if shard == "all":
            return "all"
        raise ConfigError(f"shard must be a shard id, a list of ids or 'all', got {short_repr(shard)}")
    if isinstance(shard, Sequence | set | frozenset) or type(shard).__name__ == "ndarray":
        ids = list(dict.fromkeys(block_arg(s, "shard") for s in shard))  # type: ignore[attr-defined]
        if not ids:
            raise ConfigError("shard is an empty list: give at least one shard id, or 'all'")
        return ids
    return [block_arg(shard, "shard")]


async def shard_ids(session: Session, spec: list[int] | Literal["all"]) -> list[int]:
    """The shard ids of a checked spec (``"all"`` asks the node's sharding structure)."""
    return await session.shard_ids() if spec == "all" else spec


def shard_label(name: str, ids: list[int]) -> str:
    """``"export shard 0"`` / ``"export shards 0,1"`` (progress bars)."""
    return f"{name} shard {ids[0]}" if len(ids) == 1 else f"{name} shards {','.join(map(str, ids))}"
