"""Chain identity and topology: ``chainId``, ``net_version``, ``getShardingStructure``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hmyframe.devnet.methods._table import register
from hmyframe.devnet.params import (
    arity,
)
from hmyframe.devnet.render import Gen, encode, hexq, sharding_structure_obj

if TYPE_CHECKING:
    from hmyframe.devnet.shard import ShardState


__all__ = ["CHAIN_ID"]

#: Harmony chain id the devnet reports (``hmy_chainId``, ``net_version``): 2, as localnet.
CHAIN_ID = 2


def _chain_id(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    arity(params, 0, 0)
    return encode(hexq(CHAIN_ID) if gen == 1 else CHAIN_ID)


def _net_version(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    arity(params, 0, 0)
    return encode(str(CHAIN_ID))


def _get_sharding_structure(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    arity(params, 0, 0)
    return encode(sharding_structure_obj(node.http_urls, node.ws_urls, node.shard))


register("chainId", _chain_id)
register("getShardingStructure", _get_sharding_structure)
register("net_version", _net_version, both=False)
