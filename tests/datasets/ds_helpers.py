"""Helpers for the dataset tests: the recorded samples, routed to the datasets that consume them."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SAMPLES = Path(__file__).resolve().parent.parent / "samples"

#: method-name pattern -> datasets that consume the method's answers
ROUTES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        r"_(getBlockByNumber|getBlockByHash|getBlocks)$",
        ("blocks", "transactions", "staking_transactions", "signers"),
    ),
    (
        r"_(getTransactionByHash|getTransactionByBlockHashAndIndex|getTransactionByBlockNumberAndIndex|pendingTransactions)$",
        ("transactions",),
    ),
    (
        r"_(getStakingTransactionByHash|getStakingTransactionByBlockHashAndIndex|"
        r"getStakingTransactionByBlockNumberAndIndex|pendingStakingTransactions|getStakingTransactionsHistory)$",
        ("staking_transactions",),
    ),
    (r"_getBlockSigners$", ("signers",)),
    (
        r"_(getAllValidatorInformation|getAllValidatorInformationByBlockNumber|getValidatorInformation|"
        r"getValidatorInformationByBlockNumber)$",
        ("validators", "voting_power", "delegations", "undelegations"),
    ),
    (
        r"_(getDelegationsByValidator|getDelegationsByDelegator|getDelegationsByDelegatorByBlockNumber|"
        r"getDelegationsByDelegatorAndValidator)$",
        ("delegations", "undelegations", "delegator_delegations"),
    ),
    (r"_(getBalanceByBlockNumber|getBalance)$", ("balances",)),
    (r"_(getPendingCXReceipts|getCXReceiptByHash)$", ("cx_receipts",)),
    (r"_getShardingStructure$", ("shards",)),
    (r"_getTransactionCount$", ("tx_counts",)),
    (r"_call$", ("tokens",)),
    (r"^trace_(block|transaction)$", ("traces",)),
    (r"_getTransactionReceipt$", ("receipts", "rewards_collected")),
)


@dataclass(frozen=True)
class Sample:
    """One recorded sample file."""

    file: str
    method: str
    data: dict[str, Any]

    @property
    def result(self) -> Any:
        """The JSON-RPC ``result`` member (unwrapping full envelopes)."""
        response = self.data["response"]
        if self.data["response_part"] == "full JSON-RPC envelope":
            return response["result"]
        return response

    @property
    def payload(self) -> bytes:
        """The result as raw JSON bytes (Python's json keeps big integers exact)."""
        return json.dumps(self.result).encode()

    @property
    def is_v2(self) -> bool:
        return self.method.startswith("hmyv2_")


def load(file: str) -> Sample:
    data = json.loads((SAMPLES / file).read_text())
    return Sample(
        file,
        data["request"]["method"]
        if data.get("request") and data["request"].get("method")
        else file.split("__")[0],
        data,
    )


def index() -> list[dict[str, Any]]:
    return json.loads((SAMPLES / "_index.json").read_text())


def consumed() -> list[tuple[Sample, tuple[str, ...]]]:
    """Every sample whose method feeds a dataset (error-object samples excluded), with its datasets."""
    out = []
    for entry in index():
        if entry["response_part"] == "error object" or not entry["parsed"]:
            continue
        for pattern, names in ROUTES:
            if re.search(pattern, entry["method"]):
                sample = Sample(
                    entry["file"], entry["method"], json.loads((SAMPLES / entry["file"]).read_text())
                )
                out.append((sample, names))
                break
    return out


def as_bytes(value: Any) -> bytes:
    return json.dumps(value).encode()


# --------------------------------------------------------------------------------------
# hand-made validator-information elements, both formats
# --------------------------------------------------------------------------------------

A1 = "one1a0x3d6xpmr6f8wsyaxd9v36pytvp48zckswvv9"
A2 = "one155jp2y76nazx8uw5sa94fr0m4s5aj8e5xm6fu3"
A3 = "one1pdv9lrdwl0rg5vglh4xtyrv3wjk3wsqket7zxy"
BLS = "4f41a37a3a8d0695dd6edcc58142c6b7d98e74da5c90e79b587b3b960b6a4f5e048e6d8b8a000d77a478d44cd640270c"


def current_validator(address=A1, **top):
    entry = {
        "validator": {
            "bls-public-keys": [BLS, BLS.replace("4f", "5f", 1)],
            "last-epoch-in-committee": 200, "min-self-delegation": 10**22, "max-total-delegation": 10**25,
            "rate": "0.100000000000000000", "max-rate": "0.900000000000000000", "max-change-rate": "0.050000000000000000",
            "update-height": 40, "name": "n", "identity": "i", "website": "w", "security-contact": "s",
            "details": "d", "creation-height": 4, "address": address,
            "delegations": [
                {"delegator-address": address, "amount": 10**22, "reward": 7, "undelegations": []},
                {"delegator-address": A2, "amount": 12_999_999_999_999_999_999_999_999_999, "reward": 10**20,
                 "undelegations": [{"amount": 5 * 10**18, "epoch": 201}, {"amount": 10**18, "epoch": 202}]},
            ],
        },
        "current-epoch-performance": {
            "current-epoch-signing-percent": {
                "current-epoch-signed": 90, "current-epoch-to-sign": 100,
                "current-epoch-signing-percentage": "0.900000000000000000",
            },
            "epoch": 203, "block": 9_000_000,
        },
        "metrics": {"by-bls-key": [{
            "key": {"bls-public-key": BLS, "group-percent": "0.250000000000000000",
                    "effective-stake": "1300000000000000000000000.500000000000000000",
                    "raw-stake": "1300000000000000000000000.000000000000000000", "earning-account": address,
                    "overall-percent": "0.080000000000000000", "shard-id": 1},
            "earned-reward": 123456789012345678901,
        }]},
        "total-delegation": 13_000_000_000_000_000_000_000_000_000 - 10**22 + 10**22,
        "currently-in-committee": True, "epos-status": "currently elected",
        "epos-winning-stake": "1300000000000000000000000.000000000000000000",
        "booted-status": None, "active-status": "active",
        "lifetime": {"reward-accumulated": 10**24, "blocks": {"to-sign": 1000, "signed": 990},
                     "apr": "0.123400000000000000", "epoch-apr": None, "epoch-blocks": None},
    }  # fmt: skip
    entry.update(top)
    return entry


def legacy_validator(key_spelling="num-blocks-to-sign", wrapped=True):
    inner = {
        "current-epoch-signing-percent": {"current-epoch-signed": 3, "current-epoch-to-sign": 4, "percentage": "0.750000000000000000"},
        "current-epoch-voting-power": [{"effective-stake": "100.000000000000000000", "shard-id": 0,
                                        "voting-power-adjusted": "0.500000000000000000", "voting-power-raw": "0.250000000000000000"}],
        "validator": {
            "active": True, "banned": False, "address": A1, "availability": {"num-blocks-signed": 77, key_spelling: 80},
            "bls-public-keys": [BLS], "creation-height": 1, "delegations": [
                {"amount": 9.0005e22, "delegator-address": A2, "reward": 0,
                 "Undelegations": [{"Amount": 1e18, "Epoch": 3}]}],
            "details": "", "identity": "", "last-epoch-in-committee": 2, "max-change-rate": "0.01",
            "max-rate": "0.2", "max-total-delegation": 8e19, "min-self-delegation": 3.2e18, "name": "x",
            "rate": "0.1", "security-contact": "", "update-height": 1, "website": "",
        },
    }  # fmt: skip
    return {"id": "0", "jsonrpc": "2.0", "result": inner} if wrapped else inner


# --------------------------------------------------------------------------------------
# hand-made token metadata answers (the samples hold one bare "0x" hmy_call answer)
# --------------------------------------------------------------------------------------

TOKEN = "0x" + "ab" * 20


def abi_string(text: bytes) -> str:
    """An ABI-encoded ``string`` return value, 0x hex."""
    padded = text.ljust(-(-len(text) // 32) * 32 or 32, b"\0")
    return "0x" + (32).to_bytes(32, "big").hex() + len(text).to_bytes(32, "big").hex() + padded.hex()


def token_answers(address: str = TOKEN, block: int = 7) -> tuple[list[bytes], list[tuple[str, int, str]]]:
    """One token's five answers (getCode, name, symbol as bytes32, decimals, a 2**200 supply) and calls."""
    answers = [
        "0x6080",
        abi_string(b"Sample Token"),
        "0x" + b"SMPL".ljust(32, b"\0").hex(),
        "0x" + (18).to_bytes(32, "big").hex(),
        "0x" + (2**200 + 1).to_bytes(32, "big").hex(),
    ]
    functions = ("getCode", "name", "symbol", "decimals", "totalSupply")
    return [as_bytes(a) for a in answers], [(address, block, f) for f in functions]


def token_logs() -> list[dict[str, Any]]:
    """A hand-made ``hmy_getLogs`` answer (the only recorded sample is not JSON): an HRC-20
    Transfer of 2**256 - 1, an HRC-721 Transfer, a two-id HRC-1155 TransferBatch and a log of
    another event."""
    transfer = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
    batch = "0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb"
    a, b = "0x" + "0" * 24 + "ab" * 20, "0x" + "0" * 24 + "cd" * 20
    words = [64, 160, 2, 7, 2**256 - 1, 2, 1, 10**40]
    logs = [
        ([transfer, a, b], "0x" + "f" * 64),
        ([transfer, a, b, "0x" + "0" * 62 + "2a"], "0x"),
        ([batch, a, a, b], "0x" + "".join(f"{w:064x}" for w in words)),
        (["0x" + "12" * 32], "0x"),
    ]
    return [
        {
            "address": "0x0b585f8daefbc68a311fbd4cb20d9174ad174016",
            "topics": topics,
            "data": data,
            "blockNumber": "0x5",
            "transactionHash": "0x" + "34" * 32,
            "transactionIndex": "0x0",
            "blockHash": "0x" + "56" * 32,
            "logIndex": hex(i),
            "removed": False,
        }
        for i, (topics, data) in enumerate(logs)
    ]
