"""Logs and filters: ``getLogs``, ``newFilter``, ``newBlockFilter``, ``getFilterChanges``,
``getFilterLogs``, ``uninstallFilter``, in the ``hmy`` and ``eth`` namespaces only (the node
registers its filter API for those two: there is no ``hmyv2_getLogs``).

As the node (``rpc/harmony/filters``):

* the criteria object: ``blockHash`` *or* ``fromBlock``/``toBlock`` (go-ethereum
  ``rpc.BlockNumber``: hex strings and tags; both default to ``latest``), ``address`` (a 0x
  string or a list of them: ``one1`` addresses are refused, the node decodes hex only),
  ``topics`` (per position: ``null`` any, a topic, or a list of alternatives);
* ``toBlock - fromBlock > 1024`` (raw numbers, ``latest`` = -1) ->
  -32000 ``GetLogs query must be smaller than size 1024``; no cap on the number of results;
* a range past the head stops at the head; an unknown ``blockHash`` -> -32000 ``unknown block``;
* each block's bloom is checked before its receipts are read;
* in the ``eth`` namespace a log's ``transactionHash`` is the Ethereum-form hash; in ``hmy`` it
  is what the node's receipts cache holds (``Devnet(log_hashes=...)``; see
  :mod:`hmyframe.devnet.receipts`): by default the Ethereum-form hash, as mainnet answers show.
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from hmyframe.devnet.bloom import bloom_contains
from hmyframe.devnet.methods._table import Handler, register, register_method
from hmyframe.devnet.model import EMPTY_BLOOM, Block
from hmyframe.devnet.params import (
    LATEST,
    PENDING,
    RpcFault,
    _go_type,
    arity,
    eth_block_number_param,
    hash_param,
    invalid,
)
from hmyframe.devnet.receipts import log_obj, staking_log_obj
from hmyframe.devnet.render import Gen, encode

if TYPE_CHECKING:
    from hmyframe.devnet.shard import ShardState

__all__ = ["GET_LOGS_LIMIT", "LogCriteria", "parse_criteria"]

#: ``toBlock - fromBlock`` may be at most this (``rpcGetLogsLimit``): 1025 blocks a query.
GET_LOGS_LIMIT = 1024
_MAX_FILTERS = 1024  # per shard; the oldest is dropped past this (the node times filters out)


@dataclass(frozen=True, slots=True)
class LogCriteria:
    """Decoded ``FilterCriteria``: a block hash or a raw range, addresses, topic alternatives."""

    block_hash: str | None
    from_block: int
    to_block: int
    addresses: tuple[str, ...]
    topics: tuple[tuple[str, ...], ...]  # () at a position: any topic


def _hex_value(text: str, length: int, what: str) -> str:
    """``hexutil.Decode`` then a length check (``decodeAddress`` / ``decodeTopic``)."""
    if text == "":
        raise ValueError("empty hex string")
    if not text.startswith(("0x", "0X")):
        raise ValueError("hex string without 0x prefix")
    digits = text[2:]
    if len(digits) % 2:
        raise ValueError("hex string of odd length")
    if any(c not in "0123456789abcdefABCDEF" for c in digits):
        raise ValueError("invalid hex string")
    if len(digits) != 2 * length:
        raise ValueError(
            f"hex has invalid length {len(digits) // 2} after decoding; expected {length} for {what}"
        )
    return "0x" + digits.lower()


def parse_criteria(value: Any) -> LogCriteria:
    """``FilterCriteria.UnmarshalJSON`` of param 0; raises the node's -32602."""
    if not isinstance(value, dict):
        raise invalid(
            0, f"json: cannot unmarshal {_go_type(value)} into Go value of type filters.FilterCriteria"
        )
    value = {str(k).lower(): v for k, v in value.items()}  # Go matches JSON keys case-insensitively
    raw_hash = value.get("blockhash")
    raw_from = value.get("fromblock")
    raw_to = value.get("toblock")
    block_hash = None
    if raw_hash is not None:
        if raw_from is not None or raw_to is not None:
            raise invalid(0, "cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other")
        block_hash = hash_param(raw_hash, 0)
    from_block = LATEST if raw_from is None else eth_block_number_param(raw_from, 0)
    to_block = LATEST if raw_to is None else eth_block_number_param(raw_to, 0)
    raw_addresses = value.get("address")
    addresses: list[str] = []
    if isinstance(raw_addresses, list):
        for i, item in enumerate(raw_addresses):
            if not isinstance(item, str):
                raise invalid(0, f"non-string address at index {i}")
            try:
                addresses.append(_hex_value(item, 20, "address"))
            except ValueError as exc:
                raise invalid(0, f"invalid address at index {i}: {exc}") from None
    elif isinstance(raw_addresses, str):
        try:
            addresses.append(_hex_value(raw_addresses, 20, "address"))
        except ValueError as exc:
            raise invalid(0, f"invalid address: {exc}") from None
    elif raw_addresses is not None:
        raise invalid(0, "invalid addresses in query")
    raw_topics = value.get("topics")
    topics: list[tuple[str, ...]] = []
    if raw_topics is not None and not isinstance(raw_topics, list):
        raise invalid(
            0,
            f"json: cannot unmarshal {_go_type(raw_topics)} into Go struct field input.topics of type []interface {{}}",
        )
    for item in raw_topics or ():
        try:
            if item is None:
                topics.append(())
            elif isinstance(item, str):
                topics.append((_hex_value(item, 32, "topic"),))
            elif isinstance(item, list):
                if any(t is None for t in item):
                    topics.append(())
                elif all(isinstance(t, str) for t in item):
                    topics.append(tuple(_hex_value(t, 32, "topic") for t in item))
                else:
                    raise invalid(0, "invalid topic(s)")
            else:
                raise invalid(0, "invalid topic(s)")
        except ValueError as exc:
            raise invalid(0, str(exc)) from None
    return LogCriteria(block_hash, from_block, to_block, tuple(addresses), tuple(topics))


def _bloom_may_match(bloom: str, crit: LogCriteria) -> bool:
    """The node's ``bloomFilter``: every address alternative set and topic position may match."""
    if bloom == EMPTY_BLOOM:
        return False
    if crit.addresses and not any(bloom_contains(bloom, a) for a in crit.addresses):
        return False
    return all(not alts or any(bloom_contains(bloom, t) for t in alts) for alts in crit.topics)


def _block_logs(
    node: ShardState, block: Block, crit: LogCriteria, namespace: Literal["hmy", "eth"]
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for tx in block.transactions:
        for log in tx.logs:
            if crit.addresses and log.address not in crit.addresses:
                continue
            if len(crit.topics) > len(log.topics):
                continue
            if all(not alts or log.topics[i] in alts for i, alts in enumerate(crit.topics)):
                out.append(
                    log_obj(log, tx, namespace=namespace, log_hashes=node.log_hashes, profile=node.profile)
                )
    # staking receipts' logs (a CollectRewards' payout) follow, as the node's block receipts do
    for k, stx in enumerate(block.staking_transactions):
        for log in stx.logs:
            if crit.addresses and log.address not in crit.addresses:
                continue
            if len(crit.topics) > len(log.topics):
                continue
            if all(not alts or log.topics[i] in alts for i, alts in enumerate(crit.topics)):
                out.append(staking_log_obj(log, stx, len(block.transactions) + k))
    return out


async def logs_of(
    node: ShardState, crit: LogCriteria, namespace: Literal["hmy", "eth"], *, start: int | None = None
) -> list[dict[str, Any]]:
    """The logs matching ``crit`` (``start`` overrides the range's first block: filter changes)."""
    if crit.block_hash is not None:
        block = node.own_block_by_hash(crit.block_hash)
        if block is None:
            raise RpcFault(-32000, "unknown block")
        await node.read_cost()
        return _block_logs(node, block, crit, namespace)
    begin, end = crit.from_block, crit.to_block
    if end >= begin and end - begin > GET_LOGS_LIMIT:
        raise RpcFault(-32000, f"GetLogs query must be smaller than size {GET_LOGS_LIMIT}")
    head = node.head
    first = head if begin in (LATEST, PENDING) else begin
    last = head if end in (LATEST, PENDING) else min(end, head)
    if start is not None:
        first = max(first, start)
    out: list[dict[str, Any]] = []
    for number in range(first, last + 1):
        block = node.chain.block(node.shard, number)
        if _bloom_may_match(block.logs_bloom, crit):
            await node.read_cost()
            out.extend(_block_logs(node, block, crit, namespace))
    return out


def _get_logs_in(namespace: Literal["hmy", "eth"]) -> Handler:
    async def handler(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
        (raw,) = arity(params, 1, 1)
        return encode(await logs_of(node, parse_criteria(raw), namespace))

    return handler


# ------------------------------------------------------------------ installed filters


@dataclass(slots=True)
class _Filter:
    kind: Literal["logs", "blocks"]
    crit: LogCriteria | None
    next_block: int  # first block not yet reported by getFilterChanges


_IDS = itertools.count(1)


def _new_id(node: ShardState) -> str:
    """``rpc.NewID``: 16 bytes of hex with leading zeros trimmed (keyed, deterministic here)."""
    digest = hashlib.blake2b(f"{id(node)}|{next(_IDS)}".encode(), digest_size=16).hexdigest().lstrip("0")
    return "0x" + (digest or "0")


def _filters(node: ShardState) -> dict[str, _Filter]:
    return node.filters  # the node keeps them untyped (methods own their shapes)


def _install(node: ShardState, flt: _Filter) -> bytes:
    table = _filters(node)
    if len(table) >= _MAX_FILTERS:
        table.pop(next(iter(table)))
    fid = _new_id(node)
    table[fid] = flt
    return encode(fid)


def _filter_id(value: Any) -> str:
    if not isinstance(value, str):
        raise invalid(0, f"json: cannot unmarshal {_go_type(value)} into Go value of type rpc.ID")
    return value


def _new_filter(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    (raw,) = arity(params, 1, 1)
    crit = parse_criteria(raw)
    return _install(node, _Filter("logs", crit, node.head + 1))


def _new_block_filter(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    arity(params, 0, 0)
    return _install(node, _Filter("blocks", None, node.head + 1))


def _uninstall_filter(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    (raw,) = arity(params, 1, 1)
    return encode(_filters(node).pop(_filter_id(raw), None) is not None)


def _changes_in(namespace: Literal["hmy", "eth"]) -> Handler:
    async def handler(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
        (raw,) = arity(params, 1, 1)
        flt = _filters(node).get(_filter_id(raw))
        if flt is None:
            raise RpcFault(-32000, "filter not found")
        head = node.head
        first, flt.next_block = flt.next_block, head + 1
        if flt.kind == "blocks":
            return encode([node.chain.block(node.shard, n).hash for n in range(first, head + 1)])
        if flt.crit is None or flt.crit.block_hash is not None or first > head:
            return encode([])
        return encode(await logs_of(node, flt.crit, namespace, start=first))

    return handler


def _filter_logs_in(namespace: Literal["hmy", "eth"]) -> Handler:
    async def handler(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
        (raw,) = arity(params, 1, 1)
        flt = _filters(node).get(_filter_id(raw))
        if flt is None or flt.crit is None:
            raise RpcFault(-32000, "filter not found")
        return encode(await logs_of(node, flt.crit, namespace))

    return handler


for _space in ("hmy", "eth"):
    for _name, _handler in (
        ("getLogs", _get_logs_in(_space)),
        ("newFilter", _new_filter),
        ("newBlockFilter", _new_block_filter),
        ("uninstallFilter", _uninstall_filter),
        ("getFilterChanges", _changes_in(_space)),
        ("getFilterLogs", _filter_logs_in(_space)),
    ):
        if _space == "hmy":
            register(_name, _handler, v1_only=True)
        else:
            register_method(f"eth_{_name}", _handler, current_only=True)
