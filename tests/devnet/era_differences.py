"""Differences between real node answers and the devnet that are not devnet errors, with their
evidence: the one table test_shape_parity accepts (and checks is still true).

The devnet's ``current`` profile models today's node (source commit dc52025a, 2025-06), its
``legacy`` profile the early-2020 node (test_shape_parity.PROFILE_SINCE says which answers go to
which). A real answer from another node version than its profile's may lack what was added
since, or show what was changed since: an **era** difference (the node's source history dates
the change; the corpus shows each side). Three more kinds are recorded here because they are
not devnet errors either:

* **recording**: the corpus answer is not the node's verbatim answer. The harmony-test
  reference replies (``tests/samples/*harmony-test*``) are Python literals first recorded from a
  localnet in mid-2020 and since edited by hand; where an edit left a shape no node ever sent,
  the row cites the edit (harmony-one/harmony-test commit);
* **state**: the real answer shows a node state the devnet does not produce, and producing it
  needs a decision outside the devnet (the row says which and why);
* **spec**: the legacy profile follows the user's spec (``/work/shared/spec/harmony-jsonrpc.md``,
  which must keep working) where a real answer of its period disagrees with the spec; the row
  cites the spec and the node commits that moved the real node away from it.

The harmony-test literals carry the year of their *last edit* as their era (git blame of the
reference, tests/real/samples.json); an edit that changed a few values leaves the rest of the
literal as first recorded (mid-2020), so what the node added in between is missing from it: a
recording difference, with both commits cited. harmony-test's own check
(``assert_valid_json_structure``, localnet/rpc_tests/utils.py) requires only the reference's keys
and skips a ``null`` reference, so such literals kept passing against newer nodes.

Each :class:`Recorded` row names the methods (full names), the corpus era, the JSON paths and
the kind of difference as :func:`shapes.differences` reports them (``what``), and a piece of
what each side sends (``real``, ``devnet``: substrings of the reported descriptions). A
difference is accepted when a row matches it; every (method, path) of every row must still
occur, or the table is out of date.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["RECORDED", "Recorded"]


@dataclass(frozen=True)
class Recorded:
    """One recorded difference (see the module docstring)."""

    kind: str  # "era", "recording" or "state"
    methods: tuple[str, ...]
    era: str
    paths: tuple[str, ...]
    what: str
    real: str
    devnet: str
    evidence: str

    def matches(self, method: str, era: str, path: str, what: str, real: str, devnet: str) -> bool:
        """Whether a reported difference is this row's."""
        return (
            method in self.methods
            and era == self.era
            and path in self.paths
            and what == self.what
            and self.real in real
            and self.devnet in devnet
        )


def _both(*names: str) -> tuple[str, ...]:
    return tuple(f"{ns}_{name}" for name in names for ns in ("hmy", "hmyv2"))


_BLOCKS = _both("getBlockByNumber", "getBlockByHash")
_TX_BY = _both(
    "getTransactionByHash", "getTransactionByBlockHashAndIndex", "getTransactionByBlockNumberAndIndex"
)
_VALIDATOR = _both("getValidatorInformation", "getValidatorInformationByBlockNumber")
_VALIDATOR_PAGES = _both("getAllValidatorInformation", "getAllValidatorInformationByBlockNumber")
#: harmony-test's literals: blocks recorded 2020-07-12 (fc2f3edb), transactions and receipts
#: 2020-07-15 (e042fa9e), validators 2020-07-17 (c3333739), cross-shard proofs 2020-07-14 (2c9b665a)
_HT = "the harmony-test literal (samples/*harmony-test*, recorded from a localnet in July 2020)"

RECORDED: tuple[Recorded, ...] = (
    # -- 2023 mainnet answers: what was added to receipts in 2024 ---------------------------------
    Recorded(
        "era",
        ("hmy_getTransactionReceipt", "eth_getTransactionReceipt"),
        "2023",
        ("result.effectiveGasPrice",),
        "extra key",
        "(absent)",
        "hex quantity",
        "effectiveGasPrice joined the receipts after 2023: harmony 0711d444a (2024-09-26, v1/v2 "
        "TxReceipt and StakingTxReceipt, in 'Effective gas price' #4759, released in v2025.0.0) and "
        "a40e6eba3 (2024-10-14, eth NewReceipt); every mainnet-2023 receipt lacks it",
    ),
    Recorded(
        "era",
        ("hmyv2_getTransactionReceipt",),
        "2023",
        ("result.effectiveGasPrice",),
        "extra key",
        "(absent)",
        "number",
        "as above (harmony 0711d444a, rpc/harmony/v2/types.go); mainnet-2023 hmyv2 receipts lack it",
    ),
    Recorded(
        "era",
        ("hmy_getBlockReceipts", "eth_getBlockReceipts"),
        "2023",
        ("result[].effectiveGasPrice",),
        "extra key",
        "(absent)",
        "hex quantity",
        "as above (harmony 0711d444a, a40e6eba3); the mainnet-2023 block receipts lack it",
    ),
    Recorded(
        "era",
        ("hmyv2_getBlockReceipts",),
        "2023",
        ("result[].effectiveGasPrice",),
        "extra key",
        "(absent)",
        "number",
        "as above (harmony 0711d444a); the mainnet-2023 hmyv2 block receipts lack it",
    ),
    # -- 2020 localnet answers: what the node added or changed since July 2020 --------------------
    Recorded(
        "era",
        _BLOCKS,
        "2020",
        ("result.vrf", "result.vrfProof"),
        "extra key",
        "(absent)",
        "hex data",
        "harmony 8c8675b25 (2021-07-09, #3820 'Add vrf and proof in header and block rpc'); "
        f"{_HT} has none, the mainnet-2023 blocks have both",
    ),
    Recorded(
        "era",
        _both("getBlocks"),
        "2020",
        ("result[].vrf", "result[].vrfProof"),
        "extra key",
        "(absent)",
        "hex data",
        f"harmony 8c8675b25 (2021-07-09, #3820); {_HT} has none",
    ),
    Recorded(
        "era",
        _both("getBlockByHash"),
        "2020",
        ("result.transactions[].ethHash",),
        "extra key",
        "(absent)",
        "32-byte hex",
        "as for the transactions by hash (harmony bd21c803b, a5b0744dc); the transactions of "
        "mainnet-2023 hmyv2_getBlockByHash have it",
    ),
    Recorded(
        "era",
        _both("getBlocks"),
        "2020",
        ("result[].transactions[].ethHash",),
        "extra key",
        "(absent)",
        "32-byte hex",
        "as for the transactions by hash (harmony bd21c803b, a5b0744dc)",
    ),
    Recorded(
        "era",
        ("hmyv2_getBlockByNumber",),
        "2020",
        ("result.transactionsInEthHash",),
        "extra key",
        "(absent)",
        "array of 32-byte hex",
        "the hash-only block's Ethereum-form hashes: harmony bd21c803b/1a8494c06 (2021-04-08, v2, "
        "named transactionsInEthHash) and a5b0744dc (2021-04-15, v1); mainnet-2023 "
        "hmy_getBlockByHash (hash-only) has it",
    ),
    Recorded(
        "era",
        ("hmyv2_getBlockByHash",),
        "2020",
        ("result.stakingTransactions",),
        "extra key",
        "(absent)",
        "[]",
        "asked without inclStaking: the July-2020 node built blocks as maps and added "
        "stakingTransactions only with InclStaking (internal/hmyapi/apiv2/types.go RPCMarshalBlock "
        "at harmony b9b462d92); the block structs since 579250a07 (2020-07-29, #3259) always have it, "
        "[] without InclStaking (rpc/harmony/v2/types.go blockWithFullTxFromBlock); the mainnet-2023 "
        "hmyv2 blocks asked without inclStaking show []",
    ),
    Recorded(
        "era",
        _VALIDATOR_PAGES,
        "2020",
        ("result[].current-epoch-performance.epoch", "result[].current-epoch-performance.block"),
        "extra key",
        "(absent)",
        "number",
        "harmony 096f19be1 (2022-03-12) and 68e761b59 (2022-03-28) added epoch and block to "
        f"CurrentEpochPerformance (staking/types/validator.go); {_HT} predates them",
    ),
    Recorded(
        "era",
        _VALIDATOR_PAGES,
        "2020",
        ("result[].lifetime.epoch-blocks",),
        "extra key",
        "(absent)",
        "null",
        "harmony 40f407c9b (2020-07-24, #3249 'Compute and return latest 30 epoch signing "
        "information') added AccumulatedOverLifetime.EpochBlocks; the harmony-test validator "
        "literal was recorded a week before (2020-07-17, c3333739)",
    ),
    Recorded(
        "era",
        _VALIDATOR,
        "2020",
        ("result.lifetime.epoch-blocks",),
        "extra key",
        "(absent)",
        "null",
        "as above (harmony 40f407c9b, 2020-07-24; literal of 2020-07-17); null for a validator "
        "without stats (hmy/staking.go returns before filling it)",
    ),
    # -- hand-edited recordings -------------------------------------------------------------------
    Recorded(
        "recording",
        _both("getPendingCXReceipts"),
        "2022",
        tuple(
            f"result[].header.{key}"
            for key in (
                "parentHash",
                "sha3Uncles",
                "nonce",
                "miner",
                "stateRoot",
                "transactionsRoot",
                "receiptsRoot",
                "logsBloom",
                "difficulty",
                "gasLimit",
                "gasUsed",
                "timestamp",
                "extraData",
                "mixHash",
            )
        ),
        "extra key",
        "(absent)",
        "",
        "no node sent this 5-key header: the July-2020 node wrote {shard-id, block-header-hash, "
        "block-number, view-id, epoch} (block/header.go MarshalJSON at harmony b9b462d92), and "
        "harmony-test 2c9b665a (2020-07-14) recorded that; since harmony d3198745a (2021-04-12) the "
        "header has go-ethereum's keys (19 since 509813b3d/f79d90abf, 2021-04-13, today's); "
        "harmony-test 3f305d90 (2022-06-07, 'update reference response') renamed the four kebab "
        "keys in place instead of recording the new header",
    ),
    Recorded(
        "recording",
        _TX_BY,
        "2022",
        ("result.ethHash",),
        "extra key",
        "(absent)",
        "32-byte hex",
        "the literal was recorded 2020-07-15 (harmony-test e042fa9ec8); its 2022 edit (75a0b147db, "
        "2022-04-06, 'update ref response') changed gasPrice and hash only, without the ethHash the "
        "node had added since (harmony bd21c803b, 2021-04-08, v2; a5b0744dc, 2021-04-15, v1), which "
        "mainnet-2023 hmyv2_getTransactionByHash and ...ByBlock*AndIndex have",
    ),
    Recorded(
        "recording",
        _both("getTransactionsHistory"),
        "2022",
        ("result.transactions[].ethHash",),
        "extra key",
        "(absent)",
        "32-byte hex",
        "the history literal was recorded 2020-07-14 (harmony-test a0e5ef3b9d); its 2022 edit "
        "(75a0b147db) changed gasPrice and hash only, not adding ethHash (harmony bd21c803b, "
        "a5b0744dc, 2021-04)",
    ),
    Recorded(
        "recording",
        _both("getTransactionReceipt"),
        "2025",
        ("result.root",),
        "extra key",
        "(absent)",
        "hex data",
        "the receipt literals were recorded in July 2020 (harmony-test e042fa9ec8, 2020-07-15; "
        "28dd2ca7a3, 2020-07-28), when the node sent root only for a pre-S3 post-state (a map, "
        "internal/hmyapi at harmony 14e017def) and then omitted it empty (root,omitempty until "
        "1deda36b7, 2020-10-17, #3393 'Always display transaction status'); their 2025 edit "
        "(5c929643ee, 2025-01-20) appended effectiveGasPrice only. The mainnet-2023 hmy_/hmyv2_ "
        "receipts have root '0x'",
    ),
    Recorded(
        "recording",
        _both("getTransactionReceipt"),
        "2025",
        ("result.contractAddress",),
        "form",
        "null",
        "20-byte hex",
        "as for root: the July-2020 receipt was a map with contractAddress nil unless a creation "
        "(harmony 14e017def); the TxReceipt struct of 579250a07 (2020-07-29, #3259) holds a "
        "common.Address, the zero address for a call, as the mainnet-2023 hmy_/hmyv2_ receipts "
        "show; the 2025 edit (harmony-test 5c929643ee) appended effectiveGasPrice only",
    ),
    Recorded(
        "recording",
        _both("getStakingTransactionsHistory"),
        "2020",
        ("result.staking_transactions[].msg",),
        "type",
        "null",
        "object",
        "harmony-test c333373 (2020-07-17) writes 'msg': None in the history reference on purpose "
        "(its check skips a null reference) and checks the CreateValidator msg against a separate "
        "reference_create_validator_msg; no node sends a staking transaction without its msg "
        "(rpc/harmony/v1|v2 NewStakingTransaction fill it for every directive)",
    ),
    Recorded(
        "recording",
        ("hmy_getValidatorInformation",),
        "2020",
        (
            "result.validator.delegations[].amount",
            "result.validator.max-total-delegation",
            "result.validator.min-self-delegation",
        ),
        "form",
        "float",
        "number",
        "the docs answer was printed by the go-sdk hmy CLI, which decodes replies into float64 "
        "(3.46e+19; tests/real/samples.json: exact_numbers false); the node writes these big.Int "
        "amounts as JSON integers, as the harmony-test validator literals show",
    ),
    # -- answers of 2019 nodes against the early-2020 node (legacy profile) ---------------------------
    Recorded(
        "era",
        ("hmy_getBlockByNumber", "hmy_getBlockByHash"),
        "2019",
        ("result.stakingTransactions",),
        "extra key",
        "(absent)",
        "array of object",
        "staking transactions joined the blocks in harmony 0f3a3deff (2019-11-28, RPCMarshalBlock "
        "fields['stakingTransactions']); the 2019-09 docs blocks predate them, the early-2020 v2 "
        "docs blocks (samples/hmyv2_getBlocks__docs-home...) have them",
    ),
    Recorded(
        "era",
        ("hmy_getBlocks",),
        "2019",
        ("result[].stakingTransactions",),
        "extra key",
        "(absent)",
        "[]",
        "as above (harmony 0f3a3deff, 2019-11-28); the 2019-10 docs getBlocks predates it",
    ),
    Recorded(
        "era",
        ("hmy_getBlockByHash",),
        "2019",
        ("result.transactions",),
        "extra key",
        "(absent)",
        "array of object",
        "the 2019-09 node's GetBlockByHash ignored fullTx (RPCMarshalBlock(block, false, false), "
        "internal/hmyapi/blockchain.go at harmony 00c2356b5) until e8f933af1 (2019-09-29); the docs "
        "answer for the same block by number (samples/hmy_getBlockByNumber__docs-home...) has "
        "transactions",
    ),
    Recorded(
        "era",
        ("hmy_getTransactionReceipt",),
        "2019",
        ("result.from", "result.to"),
        "form",
        "20-byte hex",
        "one1 address",
        "a receipt's from/to became one1 in harmony e8f933af1 (2019-09-29, 'Fix apis for contract "
        "tx', MustAddressToBech32); the 2019-09 docs receipts predate it, the early-2020 CLI receipt "
        "of send-tx has one1",
    ),
    Recorded(
        "era",
        ("hmy_getTransactionReceipt",),
        "2020",
        ("result.from", "result.to"),
        "form",
        "20-byte hex",
        "one1 address",
        "this answer's page was first in docs-home 2020-04-17, but its node predates harmony "
        "e8f933af1 (2019-09-29): after it a call's receipt had one1 from/to (and the other receipt "
        "of the same docs, send-tx, has); its status and shardID fit a node of 2019-05..09 "
        "(fe217ad2b) on the testnet, whose S3 epoch is 0",
    ),
    # -- 2019 receipts: a chain state (a block before the chain's S3 epoch) -------------------------
    Recorded(
        "state",
        ("hmy_getTransactionReceipt",),
        "2019",
        ("result.root",),
        "missing key",
        "32-byte hex",
        "(absent)",
        "the early-2020 node sent root (the post-state) instead of status for a block before the "
        "chain's S3 epoch and status after it (internal/hmyapi/apiv1 GetTransactionReceipt at "
        "harmony a4479d62d: root if PostState else status; core/state_processor.go since 3c8e8467d, "
        "2019-09-09: IntermediateRoot before S3, Finalise after). The 2019 betanet answers are "
        "pre-S3; the devnet's chain is past S3 from epoch 0, like testnet and localnet (S3Epoch 0) "
        "and as the early-2020 CLI receipts show (status, no root)",
    ),
    Recorded(
        "state",
        ("hmy_getTransactionReceipt",),
        "2019",
        ("result.status",),
        "extra key",
        "(absent)",
        "hex quantity",
        "as above: status and root were exclusive then; the devnet's chain is past S3",
    ),
    # -- the user's spec, which the legacy profile keeps ----------------------------------------------
    Recorded(
        "spec",
        ("hmy_getTransactionByHash",),
        "2020",
        ("result.timestamp", "result.shardID", "result.toShardID"),
        "missing key",
        "",
        "(absent)",
        "the spec's v1 transaction has no timestamp/shardID/toShardID ('v2 only', Transaction "
        "object) and the legacy profile keeps that, as the 2019-09 docs answers show it; the node "
        "had shardID/toShardID since harmony e31bb99d1 (2019-09-13) and timestamp since 01c76abac "
        "(2019-12-12) in v1 too, as this early-2020 CLI answer (a transaction of 2020-01-13) shows",
    ),
    Recorded(
        "spec",
        ("hmy_getTransactionByHash",),
        "2020",
        ("result.from", "result.to"),
        "form",
        "one1 address",
        "20-byte hex",
        "the spec: 'In v1 responses ... addresses as 0x-prefixed hexadecimal', kept by the legacy "
        "profile as the 2019-09 docs answers show; the node sent one1 since harmony 6a85023cd "
        "(2019-09-24, 'Convert to one1 addresses'), as this early-2020 CLI answer shows",
    ),
    # -- a node state the devnet does not produce --------------------------------------------------
    Recorded(
        "state",
        _VALIDATOR,
        "2020",
        ("result.current-epoch-performance",),
        "type",
        "object",
        "null",
        "the node's test is inCommittee := LastEpochInCommittee >= epoch (hmy/staking.go, unchanged "
        "since 2020): a validator never elected (0) counts as in the committee all through epoch 0, "
        "with its current-epoch performance but no stats (metrics null, 'not booted'), which is "
        "what harmony-test's epoch-0 localnet answered (last-epoch-in-committee 0, "
        "currently-in-committee true, metrics null). The devnet, whose staking also starts at epoch "
        "0, reports such a validator as out of the committee (its analogue here). Following the "
        "node in render.validator_obj (6 lines, tried) turns tests/engine/test_history.py[current] "
        "and test_fetch_truth.py[30] red: hmyframe reads currently-in-committee as 'elected' and "
        "would count every epoch-0 validator as elected, so hmyframe must decide first. Mainnet "
        "and testnet never show it (their staking began after epoch 0)",
    ),
)
