"""Model objects -> the exact JSON a Harmony node sends.

Two *generations* of every method (``gen=1``: ``hmy_``, Ethereum hex quantities;
``gen=2``: ``hmyv2_``, bare JSON numbers) and two *profiles* of the node:

``"current"``
    Today's node (RPC notes §1, §5): blocks in Go struct order with ``viewID``/``epoch``/
    ``vrf``/``vrfProof``, ``miner`` as the leader's one1 address, ``transactions`` always
    present (hashes or objects), ``transactionsInEthHash`` only in the hash-only variant,
    ``stakingTransactions`` always present (``[]`` unless inclStaking), ``signers`` only when
    asked for and not empty; transactions with ``ethHash``, ``timestamp``, ``shardID``,
    ``toShardID`` and one1 addresses in both generations (a contract creation has
    ``to: ""`` and a lower-case 0x ``from``); ``getTransactionByHash`` answers with keys
    sorted (it goes through the node's ``StructuredResponse`` map); validator information in
    the ``ValidatorRPCEnhanced`` format; traces Parity-style.
``"legacy"``
    The early-2020 node of the user's spec and the docs samples: block keys sorted (the node
    built blocks as maps), no ``viewID``/``epoch``/``vrf``/``vrfProof``/
    ``transactionsInEthHash``, ``miner`` as 0x hex, ``transactions`` absent when fullTx is
    false, ``stakingTransactions`` absent when inclStaking is false, ``signers`` present
    (possibly ``[]``) when asked for; v1 transactions with 0x ``from``/``to`` and without
    ``timestamp``/``shardID``/``toShardID``, no ``ethHash`` in either generation, contract
    creation ``to: null``; validator information in the old format, each array element
    wrapped as ``{"id": "<n>", "jsonrpc": "2.0", "result": {...}}``; both trace methods
    report the Harmony transaction hash.

Everything that is an exact integer stays a bare JSON integer (never a float, never exponent
notation); ``numeric.Dec`` ratios are strings with 18 decimals.

The ``*_obj`` functions build plain Python structures (dicts in the node's key order);
:func:`encode` turns them into bytes. :class:`BlockCache` keeps rendered block bytes in a
byte-bounded LRU so that batches and ``getBlocks`` only join cached bytes.
"""

from __future__ import annotations

import base64
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Sequence
from decimal import Decimal
from typing import Any, Literal, TypeVar, cast

import msgspec

from hmyframe.addresses import to_one as hex_to_one
from hmyframe.devnet.model import (
    EMPTY_BLOOM,
    ZERO_ADDRESS,
    ZERO_HASH,
    Block,
    BlsKeyMetric,
    CxProof,
    Delegation,
    StakingTransaction,
    TraceFrame,
    Transaction,
    ValidatorSnapshot,
    flatten_trace,
)
from hmyframe.errors import ConfigError

__all__ = [
    "EMPTY_BLOOM",
    "EMPTY_UNCLE_HASH",
    "PROFILES",
    "BlockCache",
    "Gen",
    "Profile",
    "block_obj",
    "cx_proof_obj",
    "dec18",
    "encode",
    "header_obj",
    "hexq",
    "legacy_validator_obj",
    "sharding_structure_obj",
    "staking_transaction_obj",
    "structured",
    "trace_objs",
    "transaction_obj",
    "validator_obj",
    "wrap_legacy_validators",
]

_T = TypeVar("_T")

Profile = Literal["current", "legacy"]
Gen = Literal[1, 2]
PROFILES: tuple[Profile, ...] = ("current", "legacy")

#: Keccak of the RLP of an empty uncle list (``sha3Uncles`` of every Harmony header).
EMPTY_UNCLE_HASH = "0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347"
_ZERO_NONCE = "0x0000000000000000"

_ENCODER = msgspec.json.Encoder()


def encode(obj: Any) -> bytes:
    """Encode a structure built by the ``*_obj`` functions as compact JSON bytes.

    Dict key order is kept; integers of any size are written exactly as digits.
    """
    return _ENCODER.encode(obj)


def hexq(value: int) -> str:
    """Ethereum hex quantity: ``0x`` + lower-case hex without leading zeros (``0x0`` for 0)."""
    return hex(value)


def _same(value: int) -> int:
    return value


def _num(gen: Gen) -> Callable[[int], int | str]:
    """Quantity encoder of a generation: v1 hex strings, v2 bare numbers."""
    return hexq if gen == 1 else _same


def dec18(value: Decimal | int) -> str:
    """``numeric.Dec`` JSON: a decimal string with exactly 18 fractional digits."""
    text = f"{Decimal(value):.18f}"
    return "0.000000000000000000" if text == "-0.000000000000000000" else text


def _one(address: str) -> str:
    return hex_to_one(address)


def structured(obj: _T) -> _T:
    """What the node's ``NewStructuredResponse`` (``rpc/harmony/types.go``) makes of a value.

    The node marshals the value, decodes the JSON into a ``map[string]interface{}`` and sends
    that map: the keys of every object come out sorted, at every depth (the logs inside a
    receipt, the ``msg`` of a staking transaction, the header of a cross-shard proof), while a
    struct sent as it is keeps its fields' order. Values are unchanged.
    """
    return cast(_T, _sorted_keys(obj))


def _sorted_keys(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {key: _sorted_keys(obj[key]) for key in sorted(obj)}
    if isinstance(obj, list):
        return [_sorted_keys(value) for value in obj]
    return obj


def _check_profile(profile: str) -> None:
    if profile not in PROFILES:
        raise ConfigError(f"profile {profile!r} is not one of {', '.join(PROFILES)}")


# --------------------------------------------------------------------------------------------
# transactions
# --------------------------------------------------------------------------------------------


def transaction_obj(
    tx: Transaction, *, gen: Gen, profile: Profile = "current", sort_keys: bool = False
) -> dict[str, Any]:
    """A plain transaction as the node renders it (in a block, or by hash).

    Parameters
    ----------
    tx
        The transaction.
    gen
        1 for ``hmy_`` (hex quantities), 2 for ``hmyv2_``.
    profile
        ``"current"`` or ``"legacy"`` (see the module docstring).
    sort_keys
        Sort the keys (:func:`structured`), as ``getTransactionByHash`` of the current node does.

    Returns
    -------
    dict
        Keys in the node's order.
    """
    if profile == "current":
        to = tx.to
        sender = tx.sender.lower() if to is None else _one(tx.sender)
        receiver = "" if to is None else _one(to)
        obj: dict[str, Any]
        if gen == 1:
            obj = {
                "blockHash": tx.block_hash,
                "blockNumber": hex(tx.block_number),
                "from": sender,
                "timestamp": hex(tx.timestamp),
                "gas": hex(tx.gas),
                "gasPrice": hex(tx.gas_price),
                "hash": tx.hash,
                "ethHash": tx.eth_hash,
                "input": tx.input,
                "nonce": hex(tx.nonce),
                "to": receiver,
                "transactionIndex": hex(tx.index),
                "value": hex(tx.value),
                "shardID": tx.shard_id,
                "toShardID": tx.to_shard_id,
                "v": hex(tx.v),
                "r": hex(tx.r),
                "s": hex(tx.s),
            }
        else:
            obj = {
                "blockHash": tx.block_hash,
                "blockNumber": tx.block_number,
                "from": sender,
                "timestamp": tx.timestamp,
                "gas": tx.gas,
                "gasPrice": tx.gas_price,
                "hash": tx.hash,
                "ethHash": tx.eth_hash,
                "input": tx.input,
                "nonce": tx.nonce,
                "to": receiver,
                "transactionIndex": tx.index,
                "value": tx.value,
                "shardID": tx.shard_id,
                "toShardID": tx.to_shard_id,
                "v": hex(tx.v),
                "r": hex(tx.r),
                "s": hex(tx.s),
            }
        return structured(obj) if sort_keys else obj
    _check_profile(profile)
    if gen == 1:
        return {
            "blockHash": tx.block_hash,
            "blockNumber": hexq(tx.block_number),
            "from": tx.sender.lower(),
            "gas": hexq(tx.gas),
            "gasPrice": hexq(tx.gas_price),
            "hash": tx.hash,
            "input": tx.input,
            "nonce": hexq(tx.nonce),
            "to": None if tx.to is None else tx.to.lower(),
            "transactionIndex": hexq(tx.index),
            "value": hexq(tx.value),
            "v": hexq(tx.v),
            "r": hexq(tx.r),
            "s": hexq(tx.s),
        }
    return {
        "blockHash": tx.block_hash,
        "blockNumber": tx.block_number,
        "from": _one(tx.sender),
        "timestamp": tx.timestamp,
        "gas": tx.gas,
        "gasPrice": tx.gas_price,
        "hash": tx.hash,
        "input": tx.input,
        "nonce": tx.nonce,
        "to": None if tx.to is None else _one(tx.to),
        "transactionIndex": tx.index,
        "value": tx.value,
        "shardID": tx.shard_id,
        "toShardID": tx.to_shard_id,
        "v": hexq(tx.v),
        "r": hexq(tx.r),
        "s": hexq(tx.s),
    }


_MSG_KEYS: dict[str, tuple[str, ...]] = {
    "CreateValidator": (
        "validatorAddress",
        "commissionRate",
        "maxCommissionRate",
        "maxChangeRate",
        "minSelfDelegation",
        "maxTotalDelegation",
        "amount",
        "name",
        "website",
        "identity",
        "securityContact",
        "details",
        "slotPubKeys",
    ),
    "EditValidator": (
        "validatorAddress",
        "commissionRate",
        "minSelfDelegation",
        "maxTotalDelegation",
        "name",
        "website",
        "identity",
        "securityContact",
        "details",
        "slotPubKeyToAdd",
        "slotPubKeyToRemove",
    ),
    "Delegate": ("delegatorAddress", "validatorAddress", "amount"),
    "Undelegate": ("delegatorAddress", "validatorAddress", "amount"),
    "CollectRewards": ("delegatorAddress",),
}
_ADDRESS_KEYS = frozenset({"validatorAddress", "delegatorAddress"})


def _signature_bytes(value: object, seed: str) -> list[int]:
    """A BLS signature as Go encodes ``[96]byte``: a JSON array of 96 small integers."""
    if isinstance(value, bytes | bytearray):
        raw = bytes(value)
    elif isinstance(value, str):
        raw = bytes.fromhex(value.removeprefix("0x"))
    elif isinstance(value, list | tuple):
        raw = bytes(int(v) for v in value)
    else:
        # The model carries no signature: derive a stable 96-byte stand-in from the key.
        digest = hashlib.sha512(seed.encode()).digest()
        raw = digest + hashlib.sha256(digest).digest()[:32]
    if len(raw) != 96:
        raw = (raw * (96 // max(1, len(raw)) + 1))[:96]
    return list(raw)


def _msg_obj(stx: StakingTransaction, gen: Gen) -> dict[str, Any] | None:
    keys = _MSG_KEYS.get(stx.directive)
    if keys is None:
        raise ConfigError(f"staking transaction {stx.hash}: unknown directive {stx.directive!r}")
    msg = stx.msg
    num = _num(gen)
    out: dict[str, Any] = {}
    for key in keys:
        value = msg.get(key)
        if value is None:
            out[key] = None
        elif key in _ADDRESS_KEYS and isinstance(value, str):
            out[key] = _one(value)
        elif isinstance(value, bool):
            out[key] = value
        elif isinstance(value, int):
            out[key] = num(value)
        elif isinstance(value, Decimal):
            # a ratio given as Decimal: the node sends the raw 1e18-scaled integer
            out[key] = num(int(value.scaleb(18)))
        elif isinstance(value, list | tuple):
            out[key] = list(value)
        else:
            out[key] = value
    if gen == 2 and stx.directive == "CreateValidator":
        keys_list = out.get("slotPubKeys") or []
        given = msg.get("slotKeySigs")
        sigs = list(given) if isinstance(given, list | tuple) else [None] * len(keys_list)
        out["slotKeySigs"] = [
            _signature_bytes(sig, f"{stx.hash}:{key}") for sig, key in zip(sigs, keys_list, strict=False)
        ]
    elif gen == 2 and stx.directive == "EditValidator":
        to_add = out.get("slotPubKeyToAdd")
        out["slotKeyToAddSig"] = (
            None if to_add is None else _signature_bytes(msg.get("slotKeyToAddSig"), f"{stx.hash}:{to_add}")
        )
    return out


def staking_transaction_obj(
    stx: StakingTransaction, *, gen: Gen, profile: Profile = "current", sort_keys: bool = False
) -> dict[str, Any]:
    """A staking transaction (§1.4): common fields, ``type`` and the directive's ``msg``.

    Parameters
    ----------
    stx
        The staking transaction.
    gen
        1 (hex quantities, msg amounts and rates hexq) or 2 (bare numbers).
    profile
        Both profiles use the same shape (the spec does not show the early-2020 one).
    sort_keys
        Sort the keys at every depth, ``msg``'s too (:func:`structured`), as
        ``getStakingTransactionByHash`` of the current node does.
    """
    _check_profile(profile)
    num = _num(gen)
    obj: dict[str, Any] = {
        "blockHash": stx.block_hash,
        "blockNumber": num(stx.block_number),
        "from": _one(stx.sender),
        "timestamp": num(stx.timestamp),
        "gas": num(stx.gas),
        "gasPrice": num(stx.gas_price),
        "hash": stx.hash,
        "nonce": num(stx.nonce),
        "transactionIndex": num(stx.index),
        "v": hexq(stx.v),
        "r": hexq(stx.r),
        "s": hexq(stx.s),
        "type": stx.directive,
        "msg": _msg_obj(stx, gen),
    }
    return structured(obj) if sort_keys else obj


# --------------------------------------------------------------------------------------------
# blocks
# --------------------------------------------------------------------------------------------


def block_obj(
    block: Block,
    *,
    gen: Gen,
    profile: Profile = "current",
    full_tx: bool = False,
    incl_staking: bool = True,
    signers: Sequence[str] | None = None,
) -> dict[str, Any]:
    """A block as ``getBlockByNumber``/``getBlockByHash``/``getBlocks`` render it.

    Parameters
    ----------
    block
        The block.
    gen
        1 or 2.
    profile
        ``"current"`` or ``"legacy"``.
    full_tx
        Transaction objects instead of hashes.
    incl_staking
        Include staking transactions (current: ``[]`` otherwise; legacy: key absent).
    signers
        The signer addresses (0x hex) when ``withSigners`` was asked for, else ``None``.

    Returns
    -------
    dict
        Keys in the node's order (struct order for current, sorted for legacy).
    """
    num = _num(gen)
    txs = block.transactions
    stxs = block.staking_transactions
    if profile == "current":
        obj: dict[str, Any] = {
            "number": num(block.number),
            "viewID": num(block.view_id),
            "epoch": num(block.epoch),
            "hash": block.hash,
            "parentHash": block.parent_hash,
            "nonce": 0,
            "mixHash": ZERO_HASH,
            "logsBloom": block.logs_bloom,
            "stateRoot": block.state_root,
            "miner": _one(block.leader) if block.leader else "",
            "difficulty": 0,
            "extraData": block.extra_data,
            "size": num(block.size),
            "gasLimit": num(block.gas_limit),
            "gasUsed": num(block.gas_used),
            "vrf": block.vrf,
            "vrfProof": block.vrf_proof,
            "timestamp": num(block.timestamp),
            "transactionsRoot": block.transactions_root,
            "receiptsRoot": block.receipts_root,
            "uncles": [],
        }
        if full_tx:
            obj["transactions"] = [transaction_obj(tx, gen=gen) for tx in txs]
            obj["stakingTransactions"] = (
                [staking_transaction_obj(s, gen=gen) for s in stxs] if incl_staking else []
            )
        else:
            obj["transactions"] = [tx.hash for tx in txs]
            obj["transactionsInEthHash"] = [tx.eth_hash for tx in txs]
            obj["stakingTransactions"] = [s.hash for s in stxs] if incl_staking else []
        if signers:
            obj["signers"] = [_one(a) for a in signers]
        return obj
    _check_profile(profile)
    legacy: dict[str, Any] = {
        "difficulty": 0,
        "extraData": block.extra_data,
        "gasLimit": num(block.gas_limit),
        "gasUsed": num(block.gas_used),
        "hash": block.hash,
        "logsBloom": block.logs_bloom,
        "miner": (block.leader or ZERO_ADDRESS).lower(),
        "mixHash": ZERO_HASH,
        "nonce": 0,
        "number": num(block.number),
        "parentHash": block.parent_hash,
        "receiptsRoot": block.receipts_root,
    }
    if signers is not None:
        legacy["signers"] = [_one(a) for a in signers]
    legacy["size"] = num(block.size)
    if incl_staking:
        legacy["stakingTransactions"] = (
            [staking_transaction_obj(s, gen=gen, profile="legacy") for s in stxs]
            if full_tx
            else [s.hash for s in stxs]
        )
    legacy["stateRoot"] = block.state_root
    legacy["timestamp"] = num(block.timestamp)
    if full_tx:
        legacy["transactions"] = [transaction_obj(tx, gen=gen, profile="legacy") for tx in txs]
    legacy["transactionsRoot"] = block.transactions_root
    legacy["uncles"] = []
    return legacy


# --------------------------------------------------------------------------------------------
# validators
# --------------------------------------------------------------------------------------------


def _delegation_obj(d: Delegation) -> dict[str, Any]:
    return {
        "delegator-address": _one(d.delegator),
        "amount": d.amount,
        "reward": d.reward,
        "undelegations": [{"amount": u.amount, "epoch": u.epoch} for u in d.undelegations],
    }


def _metric_obj(m: BlsKeyMetric, earning_account: str) -> dict[str, Any]:
    return {
        "key": {
            "bls-public-key": m.key,
            "group-percent": dec18(m.group_percent),
            "effective-stake": dec18(m.effective_stake),
            "raw-stake": dec18(m.raw_stake),
            "earning-account": earning_account,
            "overall-percent": dec18(m.overall_percent),
            "shard-id": m.shard_id,
        },
        "earned-reward": m.earned_reward,
    }


def validator_obj(v: ValidatorSnapshot) -> dict[str, Any]:
    """Validator information in the current node's format (§1.6; v1 and v2 identical).

    ``current-epoch-performance`` is ``null`` when the validator is not in the committee;
    ``metrics``, ``epos-winning-stake``, ``booted-status``, ``epoch-apr`` and ``epoch-blocks``
    are ``null`` when the snapshot has no value for them.
    """
    one = _one(v.address)
    performance: dict[str, Any] | None = None
    if v.currently_in_committee:
        performance = {
            "current-epoch-signing-percent": {
                "current-epoch-signed": v.current_epoch_signed,
                "current-epoch-to-sign": v.current_epoch_to_sign,
                "current-epoch-signing-percentage": dec18(v.current_epoch_signing_percentage),
            },
            "epoch": v.snapshot_epoch,
            "block": v.snapshot_block,
        }
    return {
        "validator": {
            "bls-public-keys": list(v.bls_keys),
            "last-epoch-in-committee": v.last_epoch_in_committee,
            "min-self-delegation": v.min_self_delegation,
            "max-total-delegation": v.max_total_delegation,
            "rate": dec18(v.rate),
            "max-rate": dec18(v.max_rate),
            "max-change-rate": dec18(v.max_change_rate),
            "update-height": v.update_height,
            "name": v.name,
            "identity": v.identity,
            "website": v.website,
            "security-contact": v.security_contact,
            "details": v.details,
            "creation-height": v.creation_height,
            "address": one,
            "delegations": [_delegation_obj(d) for d in v.delegations],
        },
        "current-epoch-performance": performance,
        "metrics": None if v.metrics is None else {"by-bls-key": [_metric_obj(m, one) for m in v.metrics]},
        "total-delegation": v.total_delegation,
        "currently-in-committee": v.currently_in_committee,
        "epos-status": v.epos_status,
        "epos-winning-stake": None if v.epos_winning_stake is None else dec18(v.epos_winning_stake),
        "booted-status": v.booted_status,
        "active-status": v.active_status,
        "lifetime": {
            "reward-accumulated": v.reward_accumulated,
            "blocks": {"to-sign": v.lifetime_to_sign, "signed": v.lifetime_signed},
            "apr": dec18(v.apr),
            "epoch-apr": None
            if v.epoch_apr is None
            else [{"epoch": e, "apr": dec18(a)} for e, a in v.epoch_apr],
            "epoch-blocks": None
            if v.epoch_blocks is None
            else [{"epoch": e, "blocks": {"to-sign": t, "signed": s}} for e, t, s in v.epoch_blocks],
        },
    }


def legacy_validator_obj(v: ValidatorSnapshot, *, old_availability_key: bool) -> dict[str, Any]:
    """Validator information in the early-2020 format (spec), keys sorted.

    Parameters
    ----------
    v
        The snapshot.
    old_availability_key
        Spell the availability counter ``num-of-blocks-to-sign`` (``True``) or
        ``num-blocks-to-sign`` (``False``): early-2020 nodes used both.

    Notes
    -----
    ``availability`` holds the lifetime counters; ``current-epoch-voting-power`` lists the
    BLS-key metrics (``voting-power-raw`` = group percent, ``voting-power-adjusted`` = overall
    percent; ``[]`` when the validator has no metrics).
    """
    to_sign_key = "num-of-blocks-to-sign" if old_availability_key else "num-blocks-to-sign"
    voting_power = [
        {
            "effective-stake": dec18(m.effective_stake),
            "shard-id": m.shard_id,
            "voting-power-adjusted": dec18(m.overall_percent),
            "voting-power-raw": dec18(m.group_percent),
        }
        for m in (v.metrics or ())
    ]
    validator = {
        "active": v.active,
        "address": _one(v.address),
        "availability": dict(
            sorted({"num-blocks-signed": v.lifetime_signed, to_sign_key: v.lifetime_to_sign}.items())
        ),
        "banned": v.banned,
        "bls-public-keys": list(v.bls_keys),
        "creation-height": v.creation_height,
        "delegations": [
            {
                "amount": d.amount,
                "delegator-address": _one(d.delegator),
                "reward": d.reward,
                "undelegations": [{"amount": u.amount, "epoch": u.epoch} for u in d.undelegations],
            }
            for d in v.delegations
        ],
        "details": v.details,
        "identity": v.identity,
        "last-epoch-in-committee": v.last_epoch_in_committee,
        "max-change-rate": dec18(v.max_change_rate),
        "max-rate": dec18(v.max_rate),
        "max-total-delegation": v.max_total_delegation,
        "min-self-delegation": v.min_self_delegation,
        "name": v.name,
        "rate": dec18(v.rate),
        "security-contact": v.security_contact,
        "update-height": v.update_height,
        "website": v.website,
    }
    return {
        "current-epoch-signing-percent": {
            "current-epoch-signed": v.current_epoch_signed,
            "current-epoch-to-sign": v.current_epoch_to_sign,
            "percentage": dec18(v.current_epoch_signing_percentage),
        },
        "current-epoch-voting-power": voting_power,
        "validator": validator,
    }


def wrap_legacy_validators(objs: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Wrap each legacy validator object as ``{"id": "<n>", "jsonrpc": "2.0", "result": obj}``."""
    return [{"id": str(i), "jsonrpc": "2.0", "result": obj} for i, obj in enumerate(objs)]


# --------------------------------------------------------------------------------------------
# cross-shard receipts, sharding structure
# --------------------------------------------------------------------------------------------


#: The header keys of the early-2020 node (``block/v0..v2`` ``MarshalJSON``): go-ethereum's,
#: without ``sha3Uncles``/``nonce``/``difficulty`` and Harmony's ``viewID``/``epoch``/``shardID``.
_LEGACY_HEADER_KEYS = (
    "parentHash",
    "miner",
    "stateRoot",
    "transactionsRoot",
    "receiptsRoot",
    "logsBloom",
    "number",
    "gasLimit",
    "gasUsed",
    "timestamp",
    "extraData",
    "mixHash",
    "hash",
)


def header_obj(h: Block, profile: Profile = "current") -> dict[str, Any]:
    """A block header as the node's ``block.Header.MarshalJSON`` writes it.

    Used in cross-shard proofs and in ``newHeads`` notifications. ``number``, gas and
    ``timestamp`` are hex; ``viewID``, ``epoch`` and ``shardID`` JSON integers. The
    ``legacy`` profile keeps the early-2020 node's 13 keys.
    """
    obj = _header_fields(h)
    if profile == "legacy":
        return {key: obj[key] for key in _LEGACY_HEADER_KEYS}
    return obj


def _header_fields(h: Block) -> dict[str, Any]:
    return {
        "parentHash": h.parent_hash,
        "sha3Uncles": EMPTY_UNCLE_HASH,
        "nonce": _ZERO_NONCE,
        "miner": (h.leader or ZERO_ADDRESS).lower(),
        "stateRoot": h.state_root,
        "transactionsRoot": h.transactions_root,
        "receiptsRoot": h.receipts_root,
        "logsBloom": h.logs_bloom,
        "difficulty": "0x0",
        "number": hexq(h.number),
        "gasLimit": hexq(h.gas_limit),
        "gasUsed": hexq(h.gas_used),
        "timestamp": hexq(h.timestamp),
        "extraData": h.extra_data,
        "mixHash": ZERO_HASH,
        "hash": h.hash,
        "viewID": h.view_id,
        "epoch": h.epoch,
        "shardID": h.shard_id,
    }


def cx_proof_obj(proof: CxProof) -> dict[str, Any]:
    """A pending cross-shard receipts proof (§1.9; v1 and v2 identical).

    Receipts use ``txHash``/``amount``; ``commitSig``/``commitBitmap`` are base64; the header
    mixes hex ``number`` with integer ``viewID``/``epoch``/``shardID``.
    """
    h = proof.header
    return {
        "receipts": [
            {
                "txHash": r.tx_hash,
                "from": _one(r.sender),
                "to": _one(r.to) if r.to else "",
                "shardID": r.shard_id,
                "toShardID": r.to_shard_id,
                "amount": r.amount,
            }
            for r in proof.receipts
        ],
        "merkleProof": {
            "blockNum": h.number,
            "blockHash": h.hash,
            "shardID": h.shard_id,
            "receiptHash": proof.receipt_hash,
            "shardIDs": list(proof.shard_ids),
            "shardHashes": list(proof.shard_hashes),
        },
        "header": header_obj(h),
        "commitSig": base64.b64encode(proof.commit_sig).decode("ascii"),
        "commitBitmap": base64.b64encode(proof.commit_bitmap).decode("ascii"),
    }


def sharding_structure_obj(
    http_urls: Sequence[str], ws_urls: Sequence[str], current: int
) -> list[dict[str, Any]]:
    """``getShardingStructure``: one entry per shard, keys sorted as the node's map gives them."""
    return [
        {"current": i == current, "http": http, "shardID": i, "ws": ws}
        for i, (http, ws) in enumerate(zip(http_urls, ws_urls, strict=True))
    ]


# --------------------------------------------------------------------------------------------
# traces
# --------------------------------------------------------------------------------------------


def _frame_obj(frame: TraceFrame) -> tuple[dict[str, Any], dict[str, Any] | None]:
    if frame.type == "call":
        action: dict[str, Any] = {"callType": frame.call_type or "call"}
        if frame.call_type not in ("staticcall", "delegatecall"):
            action["value"] = hexq(frame.value)
        action["to"] = frame.to
        action["gas"] = hexq(frame.gas)
        action["from"] = frame.from_
        action["input"] = frame.input
        return action, {"output": frame.output, "gasUsed": hexq(frame.gas_used)}
    if frame.type == "create":
        action = {
            "from": frame.from_,
            "gas": hexq(frame.gas),
            "init": frame.input,
            "value": hexq(frame.value),
        }
        return action, {"address": frame.to, "code": frame.output, "gasUsed": hexq(frame.gas_used)}
    if frame.type == "suicide":
        return {"refundAddress": frame.to, "balance": hexq(frame.value), "address": frame.from_}, None
    raise ConfigError(f"trace frame type {frame.type!r} is not call, create or suicide")


def trace_objs(tx: Transaction, *, transaction_hash: str) -> list[dict[str, Any]]:
    """The Parity-style traces of one transaction, depth-first (§1.10).

    Parameters
    ----------
    tx
        The transaction (no trace -> ``[]``).
    transaction_hash
        What to report as ``transactionHash`` (the current node: ``ethHash`` in
        ``trace_block``, the zero hash in ``trace_transaction``; legacy: the Harmony hash).
    """
    if tx.trace is None:
        return []
    out: list[dict[str, Any]] = []
    for address, frame in flatten_trace(tx.trace):
        action, result = _frame_obj(frame)
        entry: dict[str, Any] = {
            "blockNumber": tx.block_number,
            "blockHash": tx.block_hash,
            "transactionHash": transaction_hash,
            "transactionPosition": tx.index,
            "subtraces": len(frame.children),
            "traceAddress": list(address),
            "type": frame.type,
            "action": action,
        }
        if frame.error is not None:
            entry["error"] = frame.error
            entry["revert"] = frame.revert if frame.revert is not None else "0x"
        else:
            entry["result"] = result
        out.append(entry)
    return out


# --------------------------------------------------------------------------------------------
# byte cache
# --------------------------------------------------------------------------------------------


class BlockCache:
    """A thread-safe LRU of rendered JSON bytes, bounded by the total size of the values.

    Parameters
    ----------
    max_bytes
        Upper bound on the summed length of the cached values; the least recently used
        entries are dropped to stay under it. 0 disables caching.
    """

    def __init__(self, max_bytes: int = 128 * 1024 * 1024) -> None:
        size: object = max_bytes
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise ConfigError(f"cache size {size!r} must be a number of bytes >= 0")
        self.max_bytes = max_bytes
        self._data: OrderedDict[Hashable, bytes] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable) -> bytes | None:
        """The cached bytes for ``key`` (marking it recently used), or ``None``."""
        with self._lock:
            value = self._data.get(key)
            if value is None:
                self.misses += 1
                return None
            self._data.move_to_end(key)
            self.hits += 1
            return value

    def put(self, key: Hashable, value: bytes) -> None:
        """Store ``value`` under ``key`` (values larger than the whole cache are not kept)."""
        size = len(value)
        if size > self.max_bytes:
            return
        with self._lock:
            old = self._data.pop(key, None)
            if old is not None:
                self._size -= len(old)
            self._data[key] = value
            self._size += size
            while self._size > self.max_bytes:
                _, dropped = self._data.popitem(last=False)
                self._size -= len(dropped)

    def get_or_render(self, key: Hashable, render: Callable[[], bytes]) -> bytes:
        """Cached bytes for ``key``, rendering and storing them on a miss."""
        value = self.get(key)
        if value is None:
            value = render()
            self.put(key, value)
        return value

    def clear(self) -> None:
        """Drop everything."""
        with self._lock:
            self._data.clear()
            self._size = 0

    @property
    def size(self) -> int:
        """Summed length of the cached values, in bytes."""
        return self._size

    def __len__(self) -> int:
        return len(self._data)
