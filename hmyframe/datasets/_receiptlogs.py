"""Decoding receipt and log answers (typed msgspec structs), for ``receipts``, ``logs`` and ``token_transfers``.

* ``receipts`` source -> :class:`DecodedReceipts` via :func:`decode_receipts`: payloads of
  ``getTransactionReceipt`` (one receipt object, or ``null``) and ``getBlockReceipts`` (an array
  of them), in either generation (v1 hex quantities, v2 numbers).
* ``logs`` source -> :class:`DecodedLogs` via :func:`decode_logs`: ``hmy_getLogs`` answers
  (arrays of log objects; logs have one format in every generation).

As in :mod:`._decode`, quantity fields are typed ``Any`` (hex strings, numbers, integral
decimals) and validated by the column builders, which name the dataset, the field path and
the offending value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import msgspec

from ._decode import _decode, payload_path, require

__all__ = [
    "DecodedLogs",
    "DecodedReceipts",
    "Log",
    "Receipt",
    "decode_logs",
    "decode_receipts",
    "require",
]


class Log(msgspec.Struct, gc=False):
    """A log object (``getLogs``, a receipt's ``logs``); fields in the node's key order."""

    address: Any = None
    topics: Any = None
    data: Any = None
    blockNumber: Any = None
    transactionHash: Any = None
    transactionIndex: Any = None
    blockHash: Any = None
    logIndex: Any = None
    removed: Any = None


class Receipt(msgspec.Struct, gc=False):
    """A receipt object, plain (``from``/``to``) or staking (``sender``/``type``); keys sorted as the node sends them."""

    blockHash: Any = None
    blockNumber: Any = None
    contractAddress: Any = None
    cumulativeGasUsed: Any = None
    effectiveGasPrice: Any = None
    from_: Any = msgspec.field(default=None, name="from")
    gasUsed: Any = None
    logs: list[Log] | None = None
    root: Any = None
    sender: Any = None
    shardID: Any = None
    status: Any = None
    to: Any = None
    transactionHash: Any = None
    transactionIndex: Any = None
    type: Any = None


_RECEIPTS = msgspec.json.Decoder(Receipt | list[Receipt | None] | None, float_hook=Decimal)
_LOGS = msgspec.json.Decoder(list[Log] | None, float_hook=Decimal)


@dataclass
class DecodedReceipts:
    """Decoded receipt payloads.

    Attributes
    ----------
    receipts, paths
        Every receipt and the JSON path of each (``payload[2]``, ``payload[0][5]``); a ``null``
        answer gives nothing (the check against the blocks reports the missing receipt).
    tx_info
        Harmony hash -> ``(eth_hash, gas_price)`` of the blocks' transactions, when known: the
        gas price is the transaction's (the receipt's ``effectiveGasPrice`` is a 100 gwei default
        in receipts stored before 2025-01), the Ethereum hash is not in a receipt.
    staking_hashes
        Harmony hashes of the blocks' staking transactions, when known (else a receipt is
        staking when it has the staking receipt's ``sender``/``type`` and no ``from``).
    """

    receipts: list[Receipt] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    tx_info: Mapping[str, tuple[str | None, int | None]] = field(default_factory=dict)
    staking_hashes: frozenset[str] | None = None


@dataclass
class DecodedLogs:
    """Decoded ``getLogs`` payloads: every log and the JSON path of each."""

    logs: list[Log] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)


def decode_receipts(payloads: Sequence[bytes], what: str = "receipts") -> DecodedReceipts:
    """Decode ``getTransactionReceipt`` / ``getBlockReceipts`` payloads (v1 or v2).

    Parameters
    ----------
    payloads
        Raw JSON ``result`` bytes: a receipt object, ``null``, or an array of receipts (``null``
        entries, which the node's ``eth_`` version gives staking transactions, are skipped).
    what
        Name used in error messages.

    Raises
    ------
    ResponseShapeError
        For bytes that are not JSON or a structure that is not a receipt or an array of them.
    """
    out = DecodedReceipts()
    for i, data in enumerate(payloads):
        decoded = _decode(_RECEIPTS, what, i, data)
        if decoded is None:
            continue
        if isinstance(decoded, Receipt):
            out.receipts.append(decoded)
            out.paths.append(payload_path(i))
            continue
        for j, receipt in enumerate(decoded):
            if receipt is not None:
                out.receipts.append(receipt)
                out.paths.append(payload_path(i, f"[{j}]"))
    return out


def decode_logs(payloads: Sequence[bytes], what: str = "logs") -> DecodedLogs:
    """Decode ``hmy_getLogs`` / ``eth_getLogs`` payloads (arrays of logs; ``null`` gives nothing).

    Raises
    ------
    ResponseShapeError
        For bytes that are not JSON or not an array of log objects.
    """
    out = DecodedLogs()
    for i, data in enumerate(payloads):
        decoded = _decode(_LOGS, what, i, data)
        for j, log in enumerate(decoded or ()):
            out.logs.append(log)
            out.paths.append(payload_path(i, f"[{j}]"))
    return out
