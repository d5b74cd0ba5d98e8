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
        ("delegations", "undelegations"),
    ),
    (r"_(getPendingCXReceipts|getCXReceiptByHash)$", ("cx_receipts",)),
    (r"_getShardingStructure$", ("shards",)),
    (r"_getTransactionCount$", ("tx_counts",)),
    (r"^trace_(block|transaction)$", ("traces",)),
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
