"""The order of keys the Harmony node fixes, read from its source (``/tmp/hsrc``, commit
dc52025a, 2025-06), for the methods the corpus of real answers covers.

Two ways the node writes an object:

* **a Go struct**, marshalled by ``encoding/json``: the keys come in the struct's field order
  (an embedded struct's fields at its place, a shadowed field at its shallowest place);
* **through ``NewStructuredResponse``** (``rpc/harmony/types.go``): the value is marshalled,
  decoded into a ``map[string]interface{}`` and sent as that map, so every object at every depth
  has its keys sorted.

:data:`NODE_ORDER` maps a method (its name without the namespace, and the namespaces it covers)
to the order of each object path of its answer (``[]`` for array elements): :data:`SORTED`
(this object and every object inside it), or the struct's keys in order (an object may lack
some: ``omitempty``, a v1-only or v2-only field). :func:`order_differences` checks an answer
against it, or against :data:`LEGACY_NODE_ORDER` (the early-2020 node, for the legacy
profile). The corpus answers' own order cannot serve: the provider of the 2023 answers
re-sorted every object, and the harmony-test literals were edited by hand (test_shape_parity).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from shapes import Difference, key_orders, subsequence

__all__ = ["LEGACY_NODE_ORDER", "NODE_ORDER", "SORTED", "SORTED_HERE", "order_differences"]

#: Every object at this path and below has its keys sorted (``NewStructuredResponse``).
SORTED = "sorted"

Order = str | tuple[str, ...] | tuple[tuple[str, ...], ...]

# rpc/harmony/v1|v2/types.go BlockWithTxHash / BlockWithFullTx (one order: the hash-only block's
# transactionsInEthHash sits where the full one has none)
_BLOCK = (
    "number",
    "viewID",
    "epoch",
    "hash",
    "parentHash",
    "nonce",
    "mixHash",
    "logsBloom",
    "stateRoot",
    "miner",
    "difficulty",
    "extraData",
    "size",
    "gasLimit",
    "gasUsed",
    "vrf",
    "vrfProof",
    "timestamp",
    "transactionsRoot",
    "receiptsRoot",
    "uncles",
    "transactions",
    "transactionsInEthHash",
    "stakingTransactions",
    "signers",
)
# v1|v2 Transaction
_TX = (
    "blockHash",
    "blockNumber",
    "from",
    "timestamp",
    "gas",
    "gasPrice",
    "hash",
    "ethHash",
    "input",
    "nonce",
    "to",
    "transactionIndex",
    "value",
    "shardID",
    "toShardID",
    "v",
    "r",
    "s",
)
# v1|v2 StakingTransaction and its msg structs (v2 adds the signatures)
_STAKING_TX = (
    "blockHash",
    "blockNumber",
    "from",
    "timestamp",
    "gas",
    "gasPrice",
    "hash",
    "nonce",
    "transactionIndex",
    "v",
    "r",
    "s",
    "type",
    "msg",
)
_MSGS = (
    (
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
        "slotKeySigs",
    ),
    (
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
        "slotKeyToAddSig",
    ),
    ("delegatorAddress", "validatorAddress", "amount"),
)
# rpc/harmony/eth/types.go Block (embedded) + BlockWithTxHash / BlockWithFullTx, Transaction
_ETH_BLOCK = (
    "number",
    "hash",
    "parentHash",
    "nonce",
    "mixHash",
    "sha3Uncles",
    "logsBloom",
    "stateRoot",
    "miner",
    "difficulty",
    "extraData",
    "size",
    "gasLimit",
    "gasUsed",
    "vrf",
    "vrfProof",
    "timestamp",
    "transactionsRoot",
    "receiptsRoot",
    "uncles",
    "transactions",
    "signers",
)
_ETH_TX = (
    "blockHash",
    "blockNumber",
    "from",
    "timestamp",
    "gas",
    "gasPrice",
    "hash",
    "input",
    "nonce",
    "to",
    "transactionIndex",
    "value",
    "v",
    "r",
    "s",
)
# core/types/gen_log_json.go
_LOG = (
    "address",
    "topics",
    "data",
    "blockNumber",
    "transactionHash",
    "transactionIndex",
    "blockHash",
    "logIndex",
    "removed",
)
# staking/types/validator.go ValidatorRPCEnhanced, ValidatorWrapper.MarshalJSON (Validator's
# fields with Commission and Description embedded, then address and delegations),
# staking/types/delegation.go Delegation.MarshalJSON, consensus/votepower/roster.go
# VoteOnSubcomittee.MarshalJSON, staking/availability Computed
_VALIDATOR_PAGE: dict[str, Order] = {
    "[]": (
        "validator",
        "current-epoch-performance",
        "metrics",
        "total-delegation",
        "currently-in-committee",
        "epos-status",
        "epos-winning-stake",
        "booted-status",
        "active-status",
        "lifetime",
    ),
    "[].validator": (
        "bls-public-keys",
        "last-epoch-in-committee",
        "min-self-delegation",
        "max-total-delegation",
        "rate",
        "max-rate",
        "max-change-rate",
        "update-height",
        "name",
        "identity",
        "website",
        "security-contact",
        "details",
        "creation-height",
        "address",
        "delegations",
    ),
    "[].validator.delegations[]": ("delegator-address", "amount", "reward", "undelegations"),
    "[].validator.delegations[].undelegations[]": ("amount", "epoch"),
    "[].current-epoch-performance": ("current-epoch-signing-percent", "epoch", "block"),
    "[].current-epoch-performance.current-epoch-signing-percent": (
        "current-epoch-signed",
        "current-epoch-to-sign",
        "current-epoch-signing-percentage",
    ),
    "[].metrics": ("by-bls-key",),
    "[].metrics.by-bls-key[]": ("key", "earned-reward"),
    "[].metrics.by-bls-key[].key": (
        "bls-public-key",
        "group-percent",
        "effective-stake",
        "raw-stake",
        "earning-account",
        "overall-percent",
        "shard-id",
    ),
    "[].lifetime": ("reward-accumulated", "blocks", "apr", "epoch-apr", "epoch-blocks"),
    "[].lifetime.blocks": ("to-sign", "signed"),
    "[].lifetime.epoch-apr[]": ("epoch", "apr"),
    "[].lifetime.epoch-blocks[]": ("epoch", "blocks"),
    "[].lifetime.epoch-blocks[].blocks": ("to-sign", "signed"),
}
_HMY = ("hmy", "hmyv2")

#: (method name without namespace, namespaces) -> {path under ``result``: order}.
NODE_ORDER: dict[tuple[str, tuple[str, ...]], dict[str, Order]] = {
    # blocks: rpc/harmony/blockchain.go returns the v1/v2 block structs as they are
    **{
        (name, _HMY): {
            "": _BLOCK,
            ".transactions[]": _TX,
            ".stakingTransactions[]": _STAKING_TX,
            ".stakingTransactions[].msg": _MSGS,
        }
        for name in ("getBlockByNumber", "getBlockByHash")
    },
    ("getBlocks", _HMY): {
        "[]": _BLOCK,
        "[].transactions[]": _TX,
        "[].stakingTransactions[]": _STAKING_TX,
        "[].stakingTransactions[].msg": _MSGS,
    },
    ("getBlockByNumber", ("eth",)): {"": _ETH_BLOCK, ".transactions[]": _ETH_TX},
    # rpc/harmony/filters: []*types.Log as they are
    ("getLogs", ("hmy", "eth")): {"[]": _LOG},
    # rpc/harmony/staking.go: the pages are []*ValidatorRPCEnhanced, one validator goes through
    # NewStructuredResponse
    ("getAllValidatorInformation", _HMY): _VALIDATOR_PAGE,
    ("getAllValidatorInformationByBlockNumber", _HMY): _VALIDATOR_PAGE,
    ("getValidatorInformation", _HMY): {"": SORTED},
    ("getValidatorInformationByBlockNumber", _HMY): {"": SORTED},
    # rpc/harmony/transaction.go, blockchain.go, pool.go: NewStructuredResponse
    **{
        (name, _HMY): {"": SORTED}
        for name in (
            "getTransactionByHash",
            "getTransactionByBlockHashAndIndex",
            "getTransactionByBlockNumberAndIndex",
            "getStakingTransactionByHash",
            "getStakingTransactionByBlockHashAndIndex",
            "getStakingTransactionByBlockNumberAndIndex",
            "getTransactionReceipt",
            "getBlockReceipts",
            "getCXReceiptByHash",
            "getPendingCXReceipts",
            "getShardingStructure",
        )
    },
    ("getTransactionReceipt", ("eth",)): {"": SORTED},
    ("getBlockReceipts", ("eth",)): {"": SORTED},
}


# -- the early-2020 node (internal/hmyapi/apiv1|apiv2 at harmony a4479d62d, 2020-01-11) -----------

#: This object's keys are sorted (a Go map); the objects inside it follow their own rules.
SORTED_HERE = "sorted here"

# apiv1|apiv2 RPCTransaction, RPCStakingTransaction, RPCCXReceipt (the legacy profile's v1
# transaction lacks timestamp/shardID/toShardID, as the user's spec has it: a subsequence)
_LEGACY_TX = (
    "blockHash",
    "blockNumber",
    "from",
    "timestamp",
    "gas",
    "gasPrice",
    "hash",
    "input",
    "nonce",
    "to",
    "transactionIndex",
    "value",
    "shardID",
    "toShardID",
    "v",
    "r",
    "s",
)
_LEGACY_STAKING_TX = _STAKING_TX  # the same field order then
_LEGACY_CX = ("blockHash", "blockNumber", "hash", "from", "to", "shardID", "toShardID", "value")

#: As :data:`NODE_ORDER`, for the legacy profile: RPCMarshalBlock built a map (sorted keys) of
#: struct transactions; the staking ``msg`` was a map; GetTransactionReceipt a map holding the
#: logs as ``types.Log`` structs.
LEGACY_NODE_ORDER: dict[tuple[str, tuple[str, ...]], dict[str, Order]] = {
    **{
        (name, _HMY): {
            "": SORTED_HERE,
            ".transactions[]": _LEGACY_TX,
            ".stakingTransactions[]": _LEGACY_STAKING_TX,
            ".stakingTransactions[].msg": SORTED,
        }
        for name in ("getBlockByNumber", "getBlockByHash")
    },
    ("getBlocks", _HMY): {
        "[]": SORTED_HERE,
        "[].transactions[]": _LEGACY_TX,
        "[].stakingTransactions[]": _LEGACY_STAKING_TX,
        "[].stakingTransactions[].msg": SORTED,
    },
    **{
        (name, _HMY): {"": _LEGACY_TX}
        for name in (
            "getTransactionByHash",
            "getTransactionByBlockHashAndIndex",
            "getTransactionByBlockNumberAndIndex",
        )
    },
    ("getTransactionReceipt", _HMY): {"": SORTED_HERE, ".logs[]": _LOG},
    ("getCXReceiptByHash", _HMY): {"": _LEGACY_CX},
    ("getLogs", ("hmy",)): {"[]": _LOG},
}


def _rules(method: str, profile: str = "current") -> dict[str, Order] | None:
    namespace, _, name = method.partition("_")
    table = LEGACY_NODE_ORDER if profile == "legacy" else NODE_ORDER
    for (rule_name, namespaces), rules in table.items():
        if rule_name == name and namespace in namespaces:
            return rules
    return None


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith((root + ".", root + "["))


def order_differences(method: str, result: Any, profile: str = "current") -> Iterator[Difference]:
    """Every object of ``result`` whose keys are not in the node's order for ``method`` (none
    when the table has no rule for the method or the path): today's node
    (:data:`NODE_ORDER`) or the early-2020 one (``profile="legacy"``: :data:`LEGACY_NODE_ORDER`)."""
    rules = _rules(method, profile)
    if rules is None:
        return
    sorted_roots = ["result" + p for p, order in rules.items() if order == SORTED]
    for path, keys in key_orders(result):
        relative = path.removeprefix("result")
        rule = rules.get(relative)
        if any(_under(path, root) for root in sorted_roots) or rule == SORTED_HERE:
            if list(keys) != sorted(keys):
                yield Difference(path, "key order (node source)", "sorted keys", ",".join(keys))
        elif isinstance(rule, tuple) and rule and isinstance(rule[0], tuple):
            orders = [o for o in rule if isinstance(o, tuple)]
            if not any(set(keys) <= set(o) and subsequence(keys, o) for o in orders):
                shown = " | ".join(",".join(o) for o in orders)
                yield Difference(path, "key order (node source)", f"one of {shown}", ",".join(keys))
        elif isinstance(rule, tuple) and not subsequence(keys, [k for k in rule if isinstance(k, str)]):
            yield Difference(path, "key order (node source)", ",".join(str(k) for k in rule), ",".join(keys))
