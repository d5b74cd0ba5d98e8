"""Receipts and logs as the node renders them (``rpc/harmony/v1|v2|eth/types.go`` ``NewReceipt``,
``core/types/gen_log_json.go``); facts in ``/work/notes/research-16.md`` (issue 16).

* A block's receipts are its plain transactions' then its staking transactions';
  ``cumulativeGasUsed`` runs across both and ends at the block's ``gasUsed``; a staking
  receipt's ``transactionIndex`` is its staking index plus the number of plain transactions.
* Current node (keys sorted at every depth, the logs' too: the node re-marshals through a map,
  ``NewStructuredResponse``): plain receipts carry
  ``from``/``to`` (one1; a creation's ``from`` is EIP-55-less 0x hex here, ``to`` ``""``),
  ``shardID``, ``contractAddress`` (the zero address unless a creation), ``root`` ``"0x"``,
  ``status``, ``effectiveGasPrice`` (the gas price); staking receipts ``sender`` (one1) and
  ``type`` (the directive number) instead of ``from``/``to``/``shardID``. v1 numbers are hex
  quantities, v2 JSON numbers.
* Legacy profile (the early-2020 node, per the docs samples): no ``effectiveGasPrice``,
  ``contractAddress`` null unless a creation, ``status`` and no ``root``: that node sent one of
  the two, ``root`` (the post-state) for a block before the chain's S3 epoch and ``status``
  after it (internal/hmyapi/apiv1 GetTransactionReceipt at harmony a4479d62d,
  core/state_processor.go); the devnet's chain is past S3 from epoch 0 like testnet's, as
  the early-2020 CLI receipts show (``status``, no ``root``); no ``getBlockReceipts`` (a later
  addition).
* Logs have one shape in every namespace and generation: lower-case 0x ``address``, hex
  ``blockNumber``/``transactionIndex``/``logIndex`` (hex in ``hmyv2_`` receipts too: the
  node's ``types.Log`` marshals them so), ``removed`` false.
* Their ``transactionHash`` depends on the node's receipts cache, not on the namespace asked:
  logs are stored with the Harmony hash (``core/state/statedb.go`` ``AddLog``), and every
  ``eth_`` call touching a block rewrites the logs of its cached receipts to the Ethereum-form
  hash in place (``rpc/harmony/eth/types.go`` ``NewReceipt``, ``hmy/blockchain.go`` ``GetLogs``
  with ``isEth``; the cache is ``BlockChain.GetReceiptsByHash``'s). Staking receipts come after
  the plain ones and keep their hash. The mainnet answers of ``tests/real/mainnet-2023`` show
  ``hmy_`` receipts (and so ``hmy_getLogs``, which reads the same receipts) with the
  Ethereum-form hash and ``hmyv2_`` receipts with the Harmony hash, the receipt's own
  ``transactionHash`` the Harmony hash in both. :data:`LogHashes` picks the state served:
  ``"mainnet"`` (the default) as those answers, ``"harmony"`` a cache no ``eth_`` call touched,
  ``"eth"`` one every ``eth_`` call did. ``eth_`` answers always carry the Ethereum-form hash;
  the early-2020 node (legacy profile), before Ethereum-form transactions, the Harmony hash.
"""

from __future__ import annotations

from typing import Any, Literal

from hmyframe.addresses import to_one as _one
from hmyframe.devnet.bloom import bloom_hex, bloom_of
from hmyframe.devnet.model import EMPTY_BLOOM, ZERO_ADDRESS, Block, Log, StakingTransaction, Transaction
from hmyframe.devnet.render import Gen, Profile, hexq, structured

__all__ = [
    "DIRECTIVE_NUMBERS",
    "LOG_HASHES",
    "LogHashes",
    "block_receipt_objs",
    "cumulative_gas",
    "eth_receipt_obj",
    "log_obj",
    "receipt_bloom",
    "receipt_obj",
    "staking_log_obj",
]

#: ``staking.Directive`` numbers (a staking receipt's ``type``).
DIRECTIVE_NUMBERS = {
    "CreateValidator": 0,
    "EditValidator": 1,
    "Delegate": 2,
    "Undelegate": 3,
    "CollectRewards": 4,
}


#: The state of the node's receipts cache the devnet serves (see the module docstring).
LogHashes = Literal["mainnet", "harmony", "eth"]
LOG_HASHES: tuple[LogHashes, ...] = ("mainnet", "harmony", "eth")
#: Where a log is rendered: an ``hmy_`` answer (receipts, getLogs), an ``hmyv2_`` receipt, ``eth_``.
Namespace = Literal["hmy", "hmyv2", "eth"]


def log_tx_hash(
    tx: Transaction, namespace: Namespace, log_hashes: LogHashes = "mainnet", profile: Profile = "current"
) -> str:
    """The ``transactionHash`` a plain transaction's log carries (see the module docstring)."""
    if namespace == "eth":
        return tx.eth_hash
    if profile == "legacy" or log_hashes == "harmony":
        return tx.hash
    if log_hashes == "eth" or namespace == "hmy":
        return tx.eth_hash
    return tx.hash


def log_obj(
    log: Log,
    tx: Transaction,
    *,
    namespace: Namespace = "hmy",
    log_hashes: LogHashes = "mainnet",
    profile: Profile = "current",
) -> dict[str, Any]:
    """One log (``types.Log`` JSON, field order of the node)."""
    return {
        "address": log.address,
        "topics": list(log.topics),
        "data": log.data,
        "blockNumber": hexq(tx.block_number),
        "transactionHash": log_tx_hash(tx, namespace, log_hashes, profile),
        "transactionIndex": hexq(tx.index),
        "blockHash": tx.block_hash,
        "logIndex": hexq(log.log_index),
        "removed": False,
    }


def staking_log_obj(log: Log, stx: StakingTransaction, position: int) -> dict[str, Any]:
    """A staking receipt's log (a CollectRewards' payout): as :func:`log_obj`, its
    ``transactionIndex`` the receipt's (staking index after the plain transactions)."""
    return {
        "address": log.address,
        "topics": list(log.topics),
        "data": log.data,
        "blockNumber": hexq(stx.block_number),
        "transactionHash": stx.hash,
        "transactionIndex": hexq(position),
        "blockHash": stx.block_hash,
        "logIndex": hexq(log.log_index),
        "removed": False,
    }


def receipt_bloom(logs: tuple[Log, ...]) -> str:
    """A receipt's ``logsBloom``."""
    return bloom_hex(bloom_of(logs)) if logs else EMPTY_BLOOM


def receipt_obj(
    tx: Transaction | StakingTransaction,
    block: Block,
    *,
    cumulative_gas_used: int,
    gen: Gen,
    profile: Profile,
    log_hashes: LogHashes = "mainnet",
) -> dict[str, Any]:
    """A plain or staking transaction's receipt in ``hmy_`` (gen 1) / ``hmyv2_`` (gen 2)."""
    num: Any = hexq if gen == 1 else (lambda v: v)
    legacy = profile == "legacy"
    obj: dict[str, Any] = {
        "blockHash": block.hash,
        "blockNumber": num(block.number),
        "contractAddress": None if legacy else ZERO_ADDRESS,
        "cumulativeGasUsed": num(cumulative_gas_used),
        "gasUsed": num(tx.gas_used),
    }
    if isinstance(tx, StakingTransaction):
        index = tx.index + len(block.transactions)
        logs: list[dict[str, Any]] = [staking_log_obj(log, tx, index) for log in tx.logs]
        bloom = receipt_bloom(tx.logs)
        status = True
        obj["sender"] = _one(tx.sender)
        obj["type"] = num(DIRECTIVE_NUMBERS[tx.directive])
    else:
        index = tx.index
        namespace: Namespace = "hmy" if gen == 1 else "hmyv2"
        logs = [
            log_obj(log, tx, namespace=namespace, log_hashes=log_hashes, profile=profile) for log in tx.logs
        ]
        bloom = receipt_bloom(tx.logs)
        status = tx.success
        if tx.contract_address is not None:
            obj["contractAddress"] = tx.contract_address
        if tx.to is None:
            obj["from"] = tx.sender.lower()
            obj["to"] = ""
        else:
            obj["from"] = _one(tx.sender)
            obj["to"] = _one(tx.to)
        obj["shardID"] = tx.shard_id
    obj["logs"] = logs
    obj["logsBloom"] = bloom
    if not legacy:
        obj["effectiveGasPrice"] = num(tx.gas_price)
        obj["root"] = "0x"
    obj["status"] = num(int(status))
    obj["transactionHash"] = tx.hash
    obj["transactionIndex"] = num(index)
    # today's node sends the receipt through NewStructuredResponse (keys sorted at every depth,
    # the logs' too); the early-2020 node sent a Go map holding the logs as structs
    return structured(obj) if not legacy else dict(sorted(obj.items()))


def block_receipt_objs(
    block: Block, *, gen: Gen, profile: Profile, log_hashes: LogHashes = "mainnet"
) -> list[dict[str, Any]]:
    """Every receipt of ``block`` (plain, then staking), as ``getBlockReceipts`` lists them."""
    out: list[dict[str, Any]] = []
    cumulative = 0
    txs: tuple[Transaction | StakingTransaction, ...] = (*block.transactions, *block.staking_transactions)
    for tx in txs:
        cumulative += tx.gas_used
        out.append(
            receipt_obj(
                tx, block, cumulative_gas_used=cumulative, gen=gen, profile=profile, log_hashes=log_hashes
            )
        )
    return out


def eth_receipt_obj(tx: Transaction, cumulative_gas_used: int) -> dict[str, Any]:
    """A plain transaction's receipt in the Ethereum namespace (the node's map, sent through
    ``NewStructuredResponse``: keys sorted at every depth, the logs' too)."""
    obj = {
        "blockHash": tx.block_hash,
        "blockNumber": hexq(tx.block_number),
        "contractAddress": None if tx.contract_address is None else tx.contract_address.lower(),
        "cumulativeGasUsed": hexq(cumulative_gas_used),
        "effectiveGasPrice": hexq(tx.gas_price),
        "from": tx.sender.lower(),
        "gasUsed": hexq(tx.gas_used),
        "logs": [log_obj(log, tx, namespace="eth") for log in tx.logs],
        "logsBloom": receipt_bloom(tx.logs),
        "status": "0x1" if tx.success else "0x0",
        "to": None if tx.to is None else tx.to.lower(),
        "transactionHash": tx.eth_hash,
        "transactionIndex": hexq(tx.index),
    }
    return structured(obj)


def cumulative_gas(block: Block, position: int) -> int:
    """``cumulativeGasUsed`` of receipt ``position`` of ``block`` (plain then staking)."""
    txs: tuple[Transaction | StakingTransaction, ...] = (*block.transactions, *block.staking_transactions)
    return sum(t.gas_used for t in txs[: position + 1])
