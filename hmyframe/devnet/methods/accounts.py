"""Accounts: balances, the explorer's transaction history and counts, delegations by delegator
(``rpc/harmony/blockchain.go``, ``transaction.go``, ``staking.go``, ``v1|v2/legacy.go``;
``node/harmony/node_explorer.go``).

* ``getBalanceByBlockNumber(address, blockNumber)``: the balance **after** block N (the state
  of block N's root), v1 a hex quantity, v2 a JSON number; a block past the head answers
  ``requested block number greater than current block number``; an address ``ParseAddr``
  refuses, ``invalid address: X``.
* ``getBalance``: v1 ``(address, blockNrOrHash)``, v2 ``(address)`` at the latest block.
* ``getTransactionsHistory({address, pageIndex, pageSize, fullTx, txType, order})``: the
  explorer index of the node's shard: hashes (``fullTx`` false) or transactions, ascending by
  (block, index) or ``order: "DESC"``; ``txType`` ``""``/``"ALL"``/``"SENT"``/``"RECEIVED"``
  (anything else matches nothing); ``pageSize`` 0 means 100; a page past the end is ``[]``.
  Keys ``transactions`` and, for staking, ``staking_transactions``. A node without the
  explorer service answers ``explorer service not started``, except the staking history,
  which answers ``null`` (the node hides that error: "legacy behavior"). The early-2020
  profile's full entries carry one1 ``from``/``to`` and ``shardID``/``toShardID`` (the docs'
  late-2019 sample; its ``getTransactionByHash`` did not).
* ``getTransactionsCount(address, txType)`` / ``getStakingTransactionsCount``: the same
  index's counts (a JSON number in both generations).
* ``getDelegationsByDelegator(address)``, ``getDelegationsByDelegatorByBlockNumber(addressOrList,
  blockNumber)``: beacon shard only; objects with the node's spellings (``validator_address``,
  ``delegator_address``, ``amount``, ``reward``, ``Undelegations: [{"Amount", "Epoch"}]``, keys
  sorted as Go marshals the map); the by-block form answers ``null`` for a delegator without
  delegations and a list of lists for a list of addresses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hmyframe.addresses import to_hex as _to_hex
from hmyframe.addresses import to_one as _one
from hmyframe.devnet.methods._table import NULL as _NULL
from hmyframe.devnet.methods._table import register
from hmyframe.devnet.methods.blocks import block_number_or_hash
from hmyframe.devnet.params import (
    ERR_NOT_BEACON,
    ERR_TOO_HIGH,
    RpcFault,
    _go_type,
    _invalid,
    address_param,
    arity,
    block_number_param,
)
from hmyframe.devnet.render import Gen, encode, hexq, staking_transaction_obj, transaction_obj
from hmyframe.errors import AddressError

if TYPE_CHECKING:
    from hmyframe.devnet.model import Delegation, Transaction
    from hmyframe.devnet.shard import ShardState

__all__ = ["DEFAULT_PAGE_SIZE", "ERR_NO_EXPLORER"]

#: ``returnHashesWithPagination``'s page size when ``pageSize`` is 0.
DEFAULT_PAGE_SIZE = 100
#: ``getExplorerService``'s error on a node started without the explorer.
ERR_NO_EXPLORER = "explorer service not started"
_UINT32 = 2**32

# TxHistoryArgs: Go's encoding/json matches keys case-insensitively
_HISTORY_FIELDS = {
    "address": ("address", "string"),
    "pageindex": ("pageIndex", "uint32"),
    "pagesize": ("pageSize", "uint32"),
    "fulltx": ("fullTx", "bool"),
    "txtype": ("txType", "string"),
    "order": ("order", "string"),
}


def _balance_value(node: ShardState, gen: Gen, address: str, number: int) -> bytes:
    value = node.chain.balance(node.shard, address, number)
    return encode(hexq(value) if gen == 1 else value)


async def _get_balance_by_block_number(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    raw_address, raw_block = arity(params, 2, 2)
    if not isinstance(raw_address, str):
        raise _invalid(0, f"json: cannot unmarshal {_go_type(raw_address)} into Go value of type string")
    number = node.resolve(block_number_param(raw_block, 1))  # ERR_TOO_HIGH past the head
    address = address_param(raw_address)
    await node.read_cost()
    return _balance_value(node, gen, address, number)


async def _get_balance(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    if gen == 2:
        (raw_address,) = arity(params, 1, 1)
        number = node.head
    else:
        raw_address, raw_block = arity(params, 2, 2)
        number = block_number_or_hash(node, raw_block)
    if not isinstance(raw_address, str):
        raise _invalid(0, f"json: cannot unmarshal {_go_type(raw_address)} into Go value of type string")
    address = address_param(raw_address)
    await node.read_cost()
    return _balance_value(node, gen, address, number)


def _history_args(raw: Any) -> dict[str, Any]:
    """``TxHistoryArgs`` decoded as Go does (case-insensitive keys, unknown keys ignored)."""
    if not isinstance(raw, dict):
        raise _invalid(
            0, f"json: cannot unmarshal {_go_type(raw)} into Go value of type harmony.TxHistoryArgs"
        )
    out: dict[str, Any] = {
        "address": "",
        "pageIndex": 0,
        "pageSize": 0,
        "fullTx": False,
        "txType": "",
        "order": "",
    }
    for key, value in raw.items():
        spec = _HISTORY_FIELDS.get(str(key).lower())
        if spec is None or value is None:
            continue
        name, go_type = spec
        where = f"Go struct field TxHistoryArgs.{name} of type {go_type}"
        if go_type == "string" and not isinstance(value, str):
            raise _invalid(0, f"json: cannot unmarshal {_go_type(value)} into {where}")
        if go_type == "bool" and not isinstance(value, bool):
            raise _invalid(0, f"json: cannot unmarshal {_go_type(value)} into {where}")
        if go_type == "uint32":
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise _invalid(0, f"json: cannot unmarshal {_go_type(value)} into {where}")
            if (isinstance(value, float) and not value.is_integer()) or not 0 <= value < _UINT32:
                raise _invalid(0, f"json: cannot unmarshal number {value} into {where}")
            value = int(value)
        out[name] = value
    return out


def _history_address(text: str) -> str | None:
    """The index key of ``text``: a ``one1`` string is used as given (the node does not check
    it, so a malformed one has no history); any other string goes through ``ParseAddr``."""
    if text.startswith("one1"):
        try:
            return _to_hex(text)
        except AddressError:
            return None
    return address_param(text)


def _history(staking: bool) -> Any:
    key = "staking_transactions" if staking else "transactions"

    async def handler(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
        (raw,) = arity(params, 1, 1)
        args = _history_args(raw)
        if not node.explorer:
            if staking:
                return _NULL
            raise RpcFault(-32000, ERR_NO_EXPLORER)
        try:
            address = _history_address(args["address"])
        except RpcFault:
            if staking:
                return _NULL  # the node swallows this error too
            raise
        entries = [] if address is None else node.chain.history(node.shard, address, staking=staking)
        tx_type = args["txType"]
        if tx_type not in ("", "ALL"):
            want = tx_type == "RECEIVED"
            entries = [e for e in entries if e.received == want] if tx_type in ("SENT", "RECEIVED") else []
        if args["order"] == "DESC":
            entries = entries[::-1]
        size = args["pageSize"] or DEFAULT_PAGE_SIZE
        first = size * args["pageIndex"]
        page = entries[first : first + size]
        if not args["fullTx"]:
            return encode({key: [e.tx_hash for e in page]})
        await node.read_cost(len({e.block for e in page}))
        current = node.profile == "current"
        objs: list[Any] = []
        for e in page:
            if staking:
                stx = node.chain.find_staking_transaction(e.tx_hash)
                if stx is not None:
                    objs.append(
                        staking_transaction_obj(stx, gen=gen, profile=node.profile, sort_keys=current)
                    )
            else:
                tx = node.own_transaction(e.tx_hash)
                if tx is not None:
                    obj = transaction_obj(tx, gen=gen, profile=node.profile, sort_keys=current)
                    objs.append(obj if current else _legacy_history_tx(obj, tx))
        return encode({key: objs})

    return handler


def _legacy_history_tx(obj: dict[str, Any], tx: Transaction) -> dict[str, Any]:
    """The early node's history entry: its transaction object with one1 ``from``/``to`` and
    ``shardID``/``toShardID`` after ``value`` (the docs' late-2019 sample; its
    ``getTransactionByHash`` still answered 0x addresses without shards)."""
    out: dict[str, Any] = {}
    for key, value in obj.items():
        if key in ("from", "to") and isinstance(value, str) and value.startswith("0x"):
            value = _one(value)
        out[key] = value
        if key == "value":
            out["shardID"] = tx.shard_id
            out["toShardID"] = tx.to_shard_id
    return out


def _count(staking: bool) -> Any:
    async def handler(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
        raw_address, raw_type = arity(params, 2, 2)
        for i, value in enumerate((raw_address, raw_type)):
            if not isinstance(value, str):
                raise _invalid(i, f"json: cannot unmarshal {_go_type(value)} into Go value of type string")
        address = _history_address(raw_address)
        if not node.explorer:
            raise RpcFault(-32000, ERR_NO_EXPLORER)
        entries = [] if address is None else node.chain.history(node.shard, address, staking=staking)
        if raw_type not in ("", "ALL"):
            want = raw_type == "RECEIVED"
            entries = [e for e in entries if e.received == want] if raw_type in ("SENT", "RECEIVED") else []
        return encode(len(entries))

    return handler


def _delegation_obj(delegator: str, validator: str, d: Delegation) -> dict[str, Any]:
    # NewStructuredResponse re-marshals through a map: keys sorted ("Undelegations" first)
    return {
        "Undelegations": [{"Amount": u.amount, "Epoch": u.epoch} for u in d.undelegations],
        "amount": d.amount,
        "delegator_address": _one(delegator),
        "reward": d.reward,
        "validator_address": _one(validator),
    }


def _delegations(node: ShardState, delegator: str, number: int) -> list[dict[str, Any]]:
    found = node.chain.delegations_by_delegator(delegator, number)
    return [_delegation_obj(delegator, v, d) for v, d in found]


def _beacon(node: ShardState) -> None:
    if node.shard != 0:
        raise RpcFault(-32000, ERR_NOT_BEACON)


async def _get_delegations_by_delegator(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    (raw_address,) = arity(params, 1, 1)
    if not isinstance(raw_address, str):
        raise _invalid(0, f"json: cannot unmarshal {_go_type(raw_address)} into Go value of type string")
    _beacon(node)
    address = address_param(raw_address)
    await node.read_cost()
    return encode(_delegations(node, address, node.head))


def _address_or_list(raw: Any) -> str | list[str]:
    def parse(text: str, in_list: bool) -> str:
        try:
            return address_param(text)
        except RpcFault:
            raise _invalid(0, f"invalid address: {text}") from None

    if isinstance(raw, str):
        return parse(raw, False)
    if isinstance(raw, list):
        out: list[str] = []
        for item in raw:
            if not isinstance(item, str):
                raise _invalid(0, "not invalid address array")
            out.append(parse(item, True))
        return out
    raise _invalid(0, "must provide one address or address list")


async def _get_delegations_by_delegator_by_block(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    raw_addresses, raw_block = arity(params, 2, 2)
    addresses = _address_or_list(raw_addresses)
    number = block_number_param(raw_block, 1)
    _beacon(node)
    if number >= 0 and number > node.head:
        raise RpcFault(-32000, ERR_TOO_HIGH)
    number = node.resolve(number)
    await node.read_cost()
    if isinstance(addresses, str):
        found = _delegations(node, addresses, number)
        return encode(found or None)  # `var result []StructuredResponse`: null when empty
    return encode([_delegations(node, a, number) or None for a in addresses])


register("getBalanceByBlockNumber", _get_balance_by_block_number)
register("getBalance", _get_balance)
register("getTransactionsHistory", _history(False))
register("getStakingTransactionsHistory", _history(True))
register("getTransactionsCount", _count(False))
register("getStakingTransactionsCount", _count(True))
register("getDelegationsByDelegator", _get_delegations_by_delegator)
register("getDelegationsByDelegatorByBlockNumber", _get_delegations_by_delegator_by_block)
