"""Frames of a token-busy devnet for the fee and token metrics, plots and report tests.

One devnet (2 shards, 200 blocks, seed 7, ``token_density=4``: every token standard on both
shards, failed transfers, the token whose balances exceed 10**38) is fetched once per process
over real HTTP and closed; tests get copies of its ``blocks``, ``receipts`` and
``token_transfers`` (both shards).
"""

from __future__ import annotations

import functools

import pandas as pd

import hmyframe
from hmyframe.devnet import Devnet

#: The devnet the frames come from.
DEVNET = {"shards": 2, "blocks": 200, "seed": 7, "token_density": 4}
END = DEVNET["blocks"] - 1


@functools.cache
def _fetched() -> dict[str, pd.DataFrame]:
    with Devnet(**DEVNET, validator_rate_limit=False) as net:
        return {
            name: getattr(hmyframe, name)(0, END, shard="all", rpc=net.url, cache=False)
            for name in ("blocks", "transactions", "staking_transactions", "receipts", "token_transfers")
        }


def frames() -> dict[str, pd.DataFrame]:
    """``blocks``, ``transactions``, ``staking_transactions``, ``receipts`` and ``token_transfers``
    of both shards, blocks 0..199 (fresh copies)."""
    return {name: frame.copy() for name, frame in _fetched().items()}
