"""Activity profiles: ``quiet``, ``devnet`` (today's chain, unchanged) and ``busy``."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import urllib.request
from statistics import mean, median
from typing import Any

import pytest

from hmyframe.devnet import ACTIVITIES, Chain, Devnet
from hmyframe.devnet._gen_block import BLOCK_GAS_LIMIT
from hmyframe.errors import ConfigError

#: SHA-256 of the answers below from a ``Devnet(shards=2, blocks=600, seed=0)`` as main served
#: them before activity profiles existed (main at e6ce0a4, token transactions included): the default profile must keep them
#: (without the DEX transactions that came later: ``dex_density=0``).
#: Since the devnet lists signers as the node does, one address per signing key, the signer
#: lists changed and nothing else (the same answers asked without signers hash alike before
#: and after: cade1462...). Since staking receipts carry the node's CollectRewards log, the
#: blocks' logsBloom changed too (both changes together: 4435a93a...). Since the devnet settles
#: a staking transaction's rewards through the block before it, as the node does (its Finalize
#: adds block b's rewards after b's transactions), the validator page's rewards changed and
#: nothing else (the blocks and traces hash as before; all three changes together: e2b6d94e...).
DEVNET_ANSWERS_SHA256 = "e2b6d94e5c69c1ad20478f0401ad138e8b054de2b54bebc1d70210c93fa54889"


def _post(url: str, body: Any) -> bytes:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request) as resp:
        data: bytes = resp.read()
    return data


def _answers_digest(net: Devnet) -> str:
    """Full blocks 0..599 of both shards, traces of blocks 1..199 and a validator page, hashed."""
    h = hashlib.sha256()
    for shard, url in enumerate(net.urls):
        for a in range(0, 600, 100):
            params = [a, a + 99, {"fullTx": True, "withSigners": True, "inclStaking": True}]
            h.update(_post(url, {"jsonrpc": "2.0", "id": 1, "method": "hmyv2_getBlocks", "params": params}))
        batch = [
            {"jsonrpc": "2.0", "id": n, "method": "trace_block", "params": [hex(n)]} for n in range(1, 200)
        ]
        h.update(_post(net.trace_urls[shard], batch))
    page = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "hmyv2_getAllValidatorInformationByBlockNumber",
        "params": [0, 599],
    }
    h.update(_post(net.urls[0], page))
    return h.hexdigest()


def test_default_activity_serves_todays_bytes() -> None:
    with Devnet(shards=2, blocks=600, seed=0, gzip=False, validator_rate_limit=False, dex_density=0) as net:
        assert net.activity == "devnet"
        assert _answers_digest(net) == DEVNET_ANSWERS_SHA256


def _counts(chain: Chain, shard: int, n: int) -> list[int]:
    return [len(chain.block(shard, b).transactions) for b in range(1, n)]


@pytest.fixture(scope="module")
def chains() -> dict[str, Chain]:
    return {name: Chain(seed=3, shards=2, blocks=1100, validators=40, activity=name) for name in ACTIVITIES}  # type: ignore[arg-type]


def test_transaction_counts_per_profile(chains: dict[str, Chain]) -> None:
    quiet, devnet, busy = (_counts(chains[a], 0, 1025) for a in ("quiet", "devnet", "busy"))
    # quiet: most blocks 0-3 transactions, like mainnet today
    assert sum(c <= 3 for c in quiet) / len(quiet) > 0.8
    assert mean(quiet) < 2.5
    assert max(quiet) <= 60
    # devnet: today's shape (mean about 12, median about 4)
    assert 8 < mean(devnet) < 16
    assert 2 <= median(devnet) <= 6
    # busy: 100+ per block, like the 2021-22 peak
    assert min(busy) >= 100
    assert 110 < mean(busy) < 200
    assert mean(quiet) < mean(devnet) < mean(busy)


def test_busy_blocks_are_mostly_contract_calls_with_deeper_traces(chains: dict[str, Chain]) -> None:
    def shape(chain: Chain) -> tuple[float, int, float]:
        calls = depth_max = frames = txs = 0
        for b in range(1, 40):
            for tx in chain.block(0, b).transactions:
                txs += 1
                assert tx.trace is not None
                stack = [(tx.trace, 0)]
                while stack:
                    frame, depth = stack.pop()
                    frames += 1
                    depth_max = max(depth_max, depth)
                    stack += [(child, depth + 1) for child in frame.children]
                calls += bool(tx.input != "0x" and tx.to is not None)
        return calls / txs, depth_max, frames / txs

    busy_calls, busy_depth, busy_frames = shape(chains["busy"])
    dev_calls, dev_depth, dev_frames = shape(chains["devnet"])
    assert busy_calls > 0.55
    assert busy_calls > dev_calls + 0.15
    assert busy_depth > dev_depth
    assert busy_depth >= 5
    assert busy_frames > dev_frames


@pytest.mark.parametrize("activity", ACTIVITIES)
def test_profiles_are_deterministic_and_extend_by_mining(activity: str) -> None:
    a = Chain(seed=5, shards=2, blocks=300, validators=40, activity=activity)  # type: ignore[arg-type]
    b = Chain(seed=5, shards=2, blocks=200, validators=40, activity=activity)  # type: ignore[arg-type]
    b.mine(100)
    for shard in (0, 1):
        for n in (1, 150, 299):
            assert a.block(shard, n) == b.block(shard, n)
    other = Chain(seed=6, shards=2, blocks=300, validators=40, activity=activity)  # type: ignore[arg-type]
    assert [a.block(0, n).hash for n in range(1, 50)] != [other.block(0, n).hash for n in range(1, 50)]


@pytest.mark.parametrize("activity", ACTIVITIES)
def test_profiles_keep_blocks_and_traces_consistent(activity: str) -> None:
    chain = Chain(seed=11, shards=2, blocks=700, validators=40, activity=activity)  # type: ignore[arg-type]
    nonces: dict[str, int] = {}
    for n in range(1, 700, 7):
        block = chain.block(0, n)
        assert block.parent_hash == chain.block(0, n - 1).hash
        gas = 0
        for i, tx in enumerate(block.transactions):
            assert tx.block_number == n
            assert tx.index == i
            assert tx.block_hash == block.hash
            assert tx.nonce >= nonces.get(tx.sender, 0)  # nonces only grow
            nonces[tx.sender] = tx.nonce + 1
            assert tx.trace is not None
            stack = [tx.trace]
            while stack:  # a frame's gas covers its children's and stays within its gas
                frame = stack.pop()
                assert sum(c.gas_used for c in frame.children) <= frame.gas_used <= frame.gas
                stack += list(frame.children)
            gas += tx.gas_used
        assert gas <= block.gas_used <= BLOCK_GAS_LIMIT


def test_one_shard_busy_chain_has_no_cross_shard_transactions() -> None:
    chain = Chain(seed=1, shards=1, blocks=60, validators=40, activity="busy")
    kinds = [tx.to_shard_id for b in range(1, 60) for tx in chain.block(0, b).transactions]
    assert len(kinds) > 5000
    assert set(kinds) == {0}


def test_bad_activity_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"activity must be one of quiet, devnet, busy, got 'peak'"):
        Chain(activity="peak")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="activity"):
        Devnet(activity="loud")  # type: ignore[arg-type]


def test_cli_devnet_takes_activity() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "hmyframe", "devnet", "--shards", "1", "--blocks", "30", "--activity", "busy"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        header = proc.stdout.readline()
        assert "activity busy" in header
        url = proc.stdout.readline().split()[2]
        answer = json.loads(
            _post(
                url,
                {"jsonrpc": "2.0", "id": 1, "method": "hmyv2_getBlocks", "params": [1, 3, {"fullTx": True}]},
            )
        )
        assert [len(b["transactions"]) >= 100 for b in answer["result"]] == [True] * 3
    finally:
        proc.terminate()
        proc.communicate(timeout=10)
