"""Validators (beacon shard only): addresses, pages of information (the node's 100-validator
pages and its 1 req/s limiter), one validator now or at a block (RPC notes §1.6, §2)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hmyframe.addresses import to_one as _one
from hmyframe.devnet.methods._table import register
from hmyframe.devnet.params import (
    _LATEST,
    _MISSING,
    RpcFault,
    address_param,
    arity,
    block_number_param,
    int_param,
)
from hmyframe.devnet.render import Gen, encode, structured, wrap_legacy_validators

if TYPE_CHECKING:
    from hmyframe.devnet.shard import ShardState


__all__ = ["VALIDATOR_PAGE_SIZE"]

#: Validators per page of ``getAllValidatorInformation*``.
VALIDATOR_PAGE_SIZE = 100


def _get_all_validator_addresses(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    arity(params, 0, 0)
    return encode([_one(a) for a in node.chain.validator_addresses()])


def _get_elected_validator_addresses(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    arity(params, 0, 0)
    head = node.head
    return encode([_one(v.address) for v in node.chain.validators(head) if v.currently_in_committee])


def _page_slice(node: ShardState, page: int, count: int) -> tuple[int, int]:
    """Start/stop indices of a validator page in this node's profile.

    Every node version numbers pages from 0; the early-2020 node also answered page ``-1`` with
    every validator and refused ``page < -1``, today's node refuses ``page < 0``.
    """
    if node.profile == "legacy":
        if page == -1:
            return 0, count
        if page < -1:
            raise RpcFault(-32000, f"page given {page} cannot be less than -1")
    elif page < 0:
        raise RpcFault(-32000, f"page given {page} cannot be less than 0")
    start = page * VALIDATOR_PAGE_SIZE
    return start, min(count, start + VALIDATOR_PAGE_SIZE)


def _validator_page(node: ShardState, page: int, number: int) -> bytes:
    addresses = node.chain.validator_addresses()
    start, stop = _page_slice(node, page, len(addresses))
    key = ("validators", node.shard, number, node.profile, start, stop, len(addresses))
    cached = node.cache.get(key)
    if cached is not None:
        return cached
    objs = []
    for address in addresses[start:stop]:
        snapshot = node.chain.validator(address, number)
        if snapshot is not None:
            objs.append(node.validator_json(snapshot))
    data = encode(wrap_legacy_validators(objs) if node.profile == "legacy" else objs)
    node.cache.put(key, data)
    return data


def _page_param(node: ShardState, value: Any) -> int:
    if value is _MISSING:
        return 0  # the legacy profile's missing page (the spec: "page 1 when defaulted"): the first page
    return int_param(value, 0, "int")


async def _limited(node: ShardState) -> None:
    if node.validator_limiter is not None:
        await node.validator_limiter.wait()


async def _get_all_validator_information(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    (raw_page,) = arity(params, 0 if node.profile == "legacy" else 1, 1)
    page = _page_param(node, raw_page)
    await _limited(node)
    return _validator_page(node, page, node.head)


async def _get_all_validator_information_by_block_number(
    node: ShardState, gen: Gen, params: list[Any]
) -> bytes:
    raw_page, raw_number = arity(params, 0 if node.profile == "legacy" else 2, 2)
    page = _page_param(node, raw_page)
    number = _LATEST if raw_number is _MISSING else block_number_param(raw_number, 1)
    number = node.resolve(number)
    await _limited(node)
    return _validator_page(node, page, number)


def _validator_information(node: ShardState, raw_address: Any, number: int) -> bytes:
    address = address_param(raw_address)
    snapshot = node.chain.validator(address, number)
    if snapshot is None:
        raise RpcFault(-32000, "address not present in state")
    # one validator goes through the node's NewStructuredResponse (keys sorted at every depth);
    # the pages of getAllValidatorInformation* send the structs as they are
    obj = node.validator_json(snapshot)
    return encode(structured(obj) if node.profile == "current" else obj)


def _get_validator_information(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    (raw_address,) = arity(params, 1, 1)
    return _validator_information(node, raw_address, node.head)


def _get_validator_information_by_block_number(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    raw_address, raw_number = arity(params, 2, 2)
    number = node.resolve(block_number_param(raw_number, 1))
    return _validator_information(node, raw_address, number)


register("getAllValidatorAddresses", _get_all_validator_addresses, beacon_only=True)
register("getElectedValidatorAddresses", _get_elected_validator_addresses, beacon_only=True)
register(
    "getAllValidatorInformation", _get_all_validator_information, beacon_only=True, validator_limited=True
)
register(
    "getAllValidatorInformationByBlockNumber",
    _get_all_validator_information_by_block_number,
    beacon_only=True,
    validator_limited=True,
)
register("getValidatorInformation", _get_validator_information, beacon_only=True)
register("getValidatorInformationByBlockNumber", _get_validator_information_by_block_number, beacon_only=True)
