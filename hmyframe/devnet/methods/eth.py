"""The devnet's Ethereum-namespace methods, as a Harmony node serves them on its public port.

Ethereum tools (web3 clients, ethereum-etl, cryo) talk to a Harmony node through these:

* ``eth_blockNumber``: the head as a hex quantity;
* ``eth_chainId``: the Ethereum-compatible chain id, ``1666700000 + shard`` here (localnet uses
  the testnet's ids; mainnet's are ``1666600000 + shard``), as a hex quantity;
* ``eth_getBlockByNumber(number, fullTx)``: the node's ``BlockNumber`` param (as for
  ``hmy_``), ``fullTx`` a bool; a block beyond the head gives ``null`` (unlike ``hmy_``);
  ``miner`` is the leader's 0x address, transactions are plain ones only (no staking
  transactions) with their **Ethereum-form** hash, 0x ``from``/``to`` (``to`` null for a
  contract creation), hex quantities and no shard fields;
* ``eth_getTransactionReceipt(hash)``: the node looks the hash up as a Harmony hash or an
  Ethereum-form hash; a staking transaction or an unknown hash gives ``null``; keys sorted
  (the node builds a map);
* ``eth_getBlockReceipts(blockHash)``: the node's takes a block **hash** (``common.Hash``), not
  a number: a number gives the -32602 hash-decoding error (so a client that asks by number
  falls back to per-transaction receipts). The array holds a receipt per plain transaction,
  then ``null`` for each staking transaction (the node's Ethereum branch builds nothing for
  them); an unknown hash crashes the node's handler (-32000 ``method handler crashed``,
  inferred from the source: it dereferences the missing block);
* ``web3_clientVersion``: a version string;
* ``eth_getLogs``, filters, ``eth_call``, ``eth_getCode``: registered by
  :mod:`~hmyframe.devnet.methods.logs` and :mod:`~hmyframe.devnet.methods.contracts`.

Receipts carry the transaction's logs (their ``transactionHash`` the Ethereum-form hash) and
bloom; blocks carry their ``logsBloom``.

These methods exist on the current node only; the ``legacy`` profile (the early-2020 node)
answers -32601 for them. Sources: harmony-one/harmony ``rpc/harmony/eth/types.go``
(``Block``, ``Transaction``, ``NewReceipt``), ``rpc/harmony/blockchain.go`` (``BlockNumber``,
``ChainId``, ``GetBlockByNumber``, ``GetBlockReceipts``), ``rpc/harmony/transaction.go``
(``GetTransactionReceipt``), ``core/rawdb/accessors_indexes.go`` (both hashes are indexed).

Importing this module registers the methods in the node's method table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hmyframe.devnet import params as _p
from hmyframe.devnet.methods._table import register_method
from hmyframe.devnet.model import ZERO_ADDRESS, ZERO_HASH, Block, Transaction
from hmyframe.devnet.receipts import eth_receipt_obj
from hmyframe.devnet.render import EMPTY_UNCLE_HASH, Gen, encode, hexq

if TYPE_CHECKING:
    from hmyframe.devnet.shard import ShardState

__all__ = [
    "CLIENT_VERSION",
    "ETH_CHAIN_ID_BASE",
    "eth_block_obj",
    "eth_receipt_obj",
    "eth_transaction_obj",
]

#: Ethereum-compatible chain id of shard 0 (localnet and testnet); shard ``s`` adds ``s``.
ETH_CHAIN_ID_BASE = 1_666_700_000
#: What ``web3_clientVersion`` answers (the node sends its build's version string).
CLIENT_VERSION = "Harmony (C) 2026. hmyframe-devnet, version v1-devnet (simulated node)"
#: ``effectiveGasPrice`` of a receipt without one (the node's ``DefaultEffectiveGasPrice``).
DEFAULT_EFFECTIVE_GAS_PRICE = 100 * 10**9
_ZERO_NONCE = "0x0000000000000000"


def eth_transaction_obj(tx: Transaction) -> dict[str, Any]:
    """A plain transaction in the Ethereum namespace (struct order of the node's ``Transaction``)."""
    return {
        "blockHash": tx.block_hash,
        "blockNumber": hexq(tx.block_number),
        "from": tx.sender.lower(),
        "timestamp": hexq(tx.timestamp),
        "gas": hexq(tx.gas),
        "gasPrice": hexq(tx.gas_price),
        "hash": tx.eth_hash,
        "input": tx.input,
        "nonce": hexq(tx.nonce),
        "to": None if tx.to is None else tx.to.lower(),
        "transactionIndex": hexq(tx.index),
        "value": hexq(tx.value),
        "v": hexq(tx.v),
        "r": hexq(tx.r),
        "s": hexq(tx.s),
    }


def eth_block_obj(block: Block, *, full_tx: bool) -> dict[str, Any]:
    """A block in the Ethereum namespace (``BlockWithFullTx`` / ``BlockWithTxHash``)."""
    obj: dict[str, Any] = {
        "number": hexq(block.number),
        "hash": block.hash,
        "parentHash": block.parent_hash,
        "nonce": _ZERO_NONCE,
        "mixHash": ZERO_HASH,
        "sha3Uncles": EMPTY_UNCLE_HASH,
        "logsBloom": block.logs_bloom,
        "stateRoot": block.state_root,
        "miner": (block.leader or ZERO_ADDRESS).lower(),
        "difficulty": "0x0",
        "extraData": block.extra_data,
        "size": hexq(block.size),
        "gasLimit": hexq(block.gas_limit),
        "gasUsed": hexq(block.gas_used),
        "vrf": block.vrf,
        "vrfProof": block.vrf_proof,
        "timestamp": hexq(block.timestamp),
        "transactionsRoot": block.transactions_root,
        "receiptsRoot": block.receipts_root,
        "uncles": [],
    }
    if full_tx:
        obj["transactions"] = [eth_transaction_obj(tx) for tx in block.transactions]
    else:
        obj["transactions"] = [tx.eth_hash for tx in block.transactions]
    return obj


def _block_receipts(block: Block) -> list[dict[str, Any] | None]:
    out: list[dict[str, Any] | None] = []
    cumulative = 0
    for tx in block.transactions:
        cumulative += tx.gas_used
        out.append(eth_receipt_obj(tx, cumulative))
    out.extend(None for _ in block.staking_transactions)
    return out


# --------------------------------------------------------------------------------------------
# handlers
# --------------------------------------------------------------------------------------------


def _block_number(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    _p.arity(params, 0, 0)
    return encode(hexq(node.head))


def _chain_id(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    _p.arity(params, 0, 0)
    return encode(hexq(ETH_CHAIN_ID_BASE + node.shard))


def _client_version(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    _p.arity(params, 0, 0)
    return encode(CLIENT_VERSION)


async def _get_block_by_number(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    raw_number, raw_full = _p.arity(params, 2, 2)
    number = _p.block_number_param(raw_number, 0)
    if not isinstance(raw_full, bool):
        raise _p.RpcFault(-32000, "invalid type for block arguments")
    if number == _p.PENDING:
        raise _p.RpcFault(-32000, _p.ERR_PENDING)
    head = node.head
    number = head if number == _p.LATEST else number
    if number > head:
        return b"null"  # unlike hmy_, for tools that poll for future blocks
    await node.read_cost()
    key = ("eth_block", node.shard, number, raw_full)
    return node.cache.get_or_render(
        key, lambda: encode(eth_block_obj(node.chain.block(node.shard, number), full_tx=raw_full))
    )


async def _get_transaction_receipt(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    (raw_hash,) = _p.arity(params, 1, 1)
    tx_hash = _p.hash_param(raw_hash, 0)
    tx = node.own_transaction(tx_hash) or node.own_transaction_by_eth_hash(tx_hash)
    if tx is None:
        return b"null"  # unknown, or a staking transaction (the Ethereum branch renders nothing)
    await node.read_cost()
    block = node.chain.block(node.shard, tx.block_number)
    cumulative = sum(t.gas_used for t in block.transactions[: tx.index + 1])
    return encode(eth_receipt_obj(tx, cumulative))


async def _get_block_receipts(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    (raw_hash,) = _p.arity(params, 1, 1)
    block_hash = _p.hash_param(raw_hash, 0)
    block = node.own_block_by_hash(block_hash)
    if block is None:
        raise _p.RpcFault(-32000, _p.ERR_CRASHED)
    await node.read_cost()
    key = ("eth_block_receipts", node.shard, block.number)
    return node.cache.get_or_render(key, lambda: encode(_block_receipts(block)))


def _register() -> None:
    for name, handler in (
        ("eth_blockNumber", _block_number),
        ("eth_chainId", _chain_id),
        ("eth_getBlockByNumber", _get_block_by_number),
        ("eth_getTransactionReceipt", _get_transaction_receipt),
        ("eth_getBlockReceipts", _get_block_receipts),
        ("web3_clientVersion", _client_version),
    ):
        register_method(name, handler, current_only=True)


_register()
