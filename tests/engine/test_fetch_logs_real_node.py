"""Logs from a node as real nodes answer, through the engine, against the devnet.

* Whatever hash the node's receipts cache puts in logs (``Devnet(log_hashes=...)``: the
  Ethereum-form hash in ``hmy_`` answers as on mainnet, the Harmony hash, or the Ethereum form
  everywhere), ``logs`` and ``token_transfers`` are the same table: ``transaction_hash`` the
  Harmony hash, ``eth_hash`` beside it, joining transactions and receipts completely.
* A node that repeats, drops or misattributes a log (the devnet's ``logs`` fault rules) is
  refused per block, in one line naming the shard, block and log, and no logs file of the chunk
  is written; the blocks' bloom sees a dropped log the indexes do not, the receipts fetched in
  the same run one the bloom does not.
* ``--api 1`` against a node that serves only ``hmy_`` (and ``eth_``/``net_``/``web3_``, an RPC
  method filter denying ``hmyv2_*``) exports every dataset asking no ``hmyv2_`` method, and
  writes the same tables as ``--api 2`` against the full node.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
import pandas as pd
import pytest
from hostile import Proxy

import hmyframe
from hmyframe._bloom import bloom_bits
from hmyframe.cli import main as cli_main
from hmyframe.datasets import sources
from hmyframe.devnet import Devnet, FaultRule
from hmyframe.engine import FetchOptions
from hmyframe.errors import InconsistentAnswerError

END = 119
OPTIONS = FetchOptions(chunk_size=40)


def _net(make_devnet: Callable[..., Devnet], **kw: object) -> Devnet:
    return make_devnet(blocks=END + 2, seed=3, token_density=3, validator_rate_limit=False, **kw)


def _logs_files(root: Path) -> list[Path]:
    return sorted(p for n in ("logs", "token_transfers") for p in root.glob(f"*/{n}/shard0/*.parquet"))


@pytest.mark.parametrize("state", ["mainnet", "harmony", "eth"])
@pytest.mark.parametrize("version", [1, 2])
def test_logs_name_the_harmony_hash_in_every_cache_state(
    make_devnet: Callable[..., Devnet], state: str, version: int
) -> None:
    net = _net(make_devnet, log_hashes=state)
    options = OPTIONS.with_(version=version)
    tables = {
        name: getattr(hmyframe, name)(0, END, rpc=net, cache=False, options=options)
        for name in ("transactions", "staking_transactions", "receipts", "logs", "token_transfers")
    }
    logs, tx = tables["logs"], tables["transactions"]
    # a block's logs: its plain transactions', then its staking receipts' (a CollectRewards' payout)
    truth = [
        (t.hash, eth)
        for b in net.chain.iter_blocks(0, 0, END)
        for t, eth in [
            *((p, p.eth_hash) for p in b.transactions),
            *((s, None) for s in b.staking_transactions),
        ]
        for _ in t.logs
    ]
    assert len(logs) == len(truth) > 20
    assert logs["transaction_hash"].tolist() == [h for h, _ in truth]
    assert [None if e is pd.NA else e for e in logs["eth_hash"].tolist()] == [e for _, e in truth]
    on = ["transaction_hash", "eth_hash"]
    plain = logs[logs["eth_hash"].notna()]
    staking = logs[logs["eth_hash"].isna()]
    assert len(staking) > 0
    assert len(plain.merge(tx, on=on)) == len(plain)
    assert len(staking.merge(tables["staking_transactions"], on="transaction_hash")) == len(staking)
    assert len(tables["token_transfers"].merge(tx, on=on)) == len(tables["token_transfers"]) > 0
    counts = logs.groupby("transaction_hash").size()
    receipts = tables["receipts"].set_index("transaction_hash")
    assert (receipts.loc[counts.index, "log_count"] == counts).all()


# --------------------------------------------------------------------------- which blocks logs ask


def _blocks_asked(requests: list[Any]) -> list[bool]:
    """Whether each getBlocks call of ``requests`` asked full transactions."""
    calls = [c for r in requests for c in (r if isinstance(r, list) else [r])]
    return [c["params"][2]["fullTx"] for c in calls if c["method"].endswith("_getBlocks")]


@pytest.mark.parametrize("version", [1, 2])
def test_logs_alone_ask_headers_only_blocks_and_resolve_every_hash(
    make_devnet: Callable[..., Devnet], tmp_path: Path, version: int
) -> None:
    # the headers' transactions / transactionsInEthHash / stakingTransactions lists resolve each
    # log's hash: no full block is asked, no transactions table made or cached
    net = _net(make_devnet)
    options = OPTIONS.with_(version=version)
    proxy = Proxy(net.url, lambda body: None)
    try:
        logs = hmyframe.logs(0, END, rpc=proxy.url, cache=tmp_path, options=options)
    finally:
        proxy.close()
    asked = _blocks_asked(proxy.requests)
    assert asked
    assert not any(asked)
    written = sorted(p.parent.parent.name for p in tmp_path.glob("*/*/shard0/*.parquet"))
    assert written == [n for n in ("blocks", "logs", "token_transfers") for _ in range(3)]
    truth = hmyframe.logs(0, END, rpc=net, cache=False, options=options.with_(blocks_per_request=7))
    pd.testing.assert_frame_equal(logs, truth)
    eth = {t.hash: t.eth_hash for b in net.chain.iter_blocks(0, 0, END) for t in b.transactions}
    plain = logs[logs["eth_hash"].notna()]
    assert len(plain) > 20
    assert plain["eth_hash"].tolist() == [eth[h] for h in plain["transaction_hash"]]
    assert logs["eth_hash"].isna().sum() > 0  # staking transactions' logs
    # with the blocks' transactions cached, logs ask no block at all
    hmyframe.transactions(0, END, rpc=net, cache=tmp_path / "t", options=options)
    net.stats.reset()
    again = hmyframe.logs(0, END, rpc=net, cache=tmp_path / "t", options=options)
    assert net.stats.calls_of(f"{'hmyv2' if version == 2 else 'hmy'}_getBlocks") == 0
    pd.testing.assert_frame_equal(again, logs)


def test_logs_fetched_with_transactions_use_their_tables(
    make_devnet: Callable[..., Devnet], tmp_path: Path
) -> None:
    net = _net(make_devnet)
    proxy = Proxy(net.url, lambda body: None)
    try:
        hmyframe.export(["transactions", "logs"], 0, END, rpc=proxy.url, out=tmp_path, options=OPTIONS)
    finally:
        proxy.close()
    calls = [c for r in proxy.requests for c in (r if isinstance(r, list) else [r])]
    ranges = [c["params"][:2] for c in calls if c["method"] == "hmyv2_getBlocks"]
    assert set(_blocks_asked(proxy.requests)) == {True}  # full blocks only, each block once
    assert sorted(n for a, b in ranges for n in range(a, b + 1)) == list(range(END + 1))
    truth = hmyframe.logs(0, END, rpc=net, cache=False, options=OPTIONS)
    pd.testing.assert_frame_equal(hmyframe.read("logs", tmp_path), truth)


def test_a_node_whose_headers_lack_eth_hashes_gets_full_blocks(make_devnet: Callable[..., Devnet]) -> None:
    # a node between 2020-07 and 2021-04 lists a block's transactions without their
    # Ethereum-form hashes: the logs are then resolved through full blocks
    net = _net(make_devnet)

    async def strip(body: Any) -> tuple[int, bytes] | None:
        if not (body["method"].endswith("_getBlocks") and not body["params"][2]["fullTx"]):
            return None
        async with aiohttp.ClientSession() as session, session.post(net.url, json=body) as resp:
            answer = await resp.json()
        for block in answer["result"]:
            del block["transactionsInEthHash"]
        return 200, json.dumps(answer).encode()

    proxy = Proxy(net.url, strip, split_batches=True)
    try:
        logs = hmyframe.logs(0, END, rpc=proxy.url, cache=False, options=OPTIONS)
    finally:
        proxy.close()
    assert _blocks_asked(proxy.requests)[0] is False
    assert set(_blocks_asked(proxy.requests)[-3:]) == {True}
    pd.testing.assert_frame_equal(logs, hmyframe.logs(0, END, rpc=net, cache=False, options=OPTIONS))


FAULTS = {
    "repeat": r"log index 1 appears twice",
    "drop": r"log index 1 is missing",
    "foreign": r"log 1 names transaction 0x(f0){32} at position \d+, where the block has transaction 0x",
}


def _second_log_of_a_block(net: Devnet, first: int, last: int) -> tuple[int, int]:
    """A block of ``first..last`` with 3 logs or more, and the position of its second log in
    the getLogs answer of ``first..last``."""
    before = 0
    for block in net.chain.iter_blocks(0, first, last):
        count = sum(len(t.logs) for t in block.transactions)
        if count >= 3:
            return block.number, before + 1
        before += count
    raise AssertionError("no block with 3 logs")


@pytest.mark.parametrize("edit", list(FAULTS))
def test_a_broken_getlogs_answer_is_refused_and_nothing_of_its_chunk_cached(
    make_devnet: Callable[..., Devnet], tmp_path: Path, edit: str
) -> None:
    net = _net(make_devnet)
    hmyframe.logs(0, 79, rpc=net, cache=tmp_path, options=OPTIONS)  # two chunks cached
    number, at = _second_log_of_a_block(net, 80, END)
    net.faults.add(FaultRule("logs", edit=edit, at=at, times=1))  # type: ignore[arg-type]
    with pytest.raises(
        InconsistentAnswerError, match=rf"^logs of shard 0 block {number}: " + FAULTS[edit]
    ) as info:
        hmyframe.token_transfers(0, END, rpc=net, cache=tmp_path, options=OPTIONS)
    assert "\n" not in str(info.value)
    assert net.stats.total().faults["logs"] == 1
    assert [p.name for p in _logs_files(tmp_path)] == [
        f"{n}__{a:010d}_{b:010d}.parquet" for n in ("logs", "token_transfers") for a, b in ((0, 39), (40, 79))
    ]  # every chunk but the broken one
    again = hmyframe.logs(0, END, rpc=net, cache=tmp_path, options=OPTIONS)  # only that chunk is asked
    assert again.equals(hmyframe.logs(0, END, rpc=net, cache=False, options=OPTIONS))


def _block_losing_its_last_log_unseen_by_indexes(net: Devnet) -> int:
    """A block whose last log sets a bloom bit no other log of it sets."""
    for block in net.chain.iter_blocks(0, 0, END):
        logs = [log for t in block.transactions for log in t.logs]
        if len(logs) < 2:
            continue
        others = 0
        for log in logs[:-1]:
            for value in (log.address, *log.topics):
                others |= bloom_bits(value)
        last = bloom_bits(logs[-1].address)
        for topic in logs[-1].topics:
            last |= bloom_bits(topic)
        if last & ~others:
            return block.number
    raise AssertionError("no such block")


def test_the_blocks_bloom_sees_a_last_log_left_out(make_devnet: Callable[..., Devnet]) -> None:
    net = _net(make_devnet)
    number = _block_losing_its_last_log_unseen_by_indexes(net)
    net.faults.add(FaultRule("logs", edit="drop", at=-1, times=1))
    with pytest.raises(
        InconsistentAnswerError,
        match=rf"^logs of shard 0 block {number}: the block's logsBloom has bits none of its \d+ logs sets",
    ):
        hmyframe.logs(number, number, rpc=net, cache=False)


def test_the_receipts_fetched_with_the_logs_see_a_log_left_out(
    make_devnet: Callable[..., Devnet], tmp_path: Path
) -> None:
    net = _net(make_devnet)
    net.faults.add(FaultRule("logs", edit="drop", at=-1, times=1))
    with pytest.raises(
        InconsistentAnswerError, match=r"has \d+ logs, its receipt lists \d+; nothing of its chunk"
    ):
        hmyframe.export(["receipts", "logs"], 0, 39, rpc=net, out=tmp_path, options=OPTIONS)
    assert _logs_files(tmp_path) == []
    assert list(tmp_path.glob("*/receipts/shard0/*.parquet"))


def test_receipts_failing_leave_the_logs_checked_without_them(
    make_devnet: Callable[..., Devnet], tmp_path: Path
) -> None:
    net = _net(make_devnet)
    net.faults.add(FaultRule("rpc_error", method="hmyv2_getBlockReceipts", code=-32000, message="boom"))
    options = OPTIONS.with_(retry=OPTIONS.retry.__class__(attempts=1, backoff_base=0))
    with pytest.raises(Exception, match="boom"):
        hmyframe.export(["receipts", "logs"], 0, 39, rpc=net, out=tmp_path, options=options)
    assert [p.name for p in _logs_files(tmp_path)] == [
        "logs__0000000000_0000000039.parquet",
        "token_transfers__0000000000_0000000039.parquet",
    ]


@pytest.mark.parametrize(
    ("version", "profile"), [(1, "current"), (2, "current"), (1, "legacy"), (2, "legacy")]
)
def test_contract_address_is_null_unless_a_contract_was_created(
    make_devnet: Callable[..., Devnet], version: int, profile: str
) -> None:
    # the current node sends the zero address for "none" (the mainnet answers too), the
    # early-2020 one null: both are null in the table
    net = _net(make_devnet, profile=profile)
    receipts = hmyframe.receipts(0, END, rpc=net, cache=False, options=OPTIONS.with_(version=version))
    created = {
        t.hash: t.contract_address.lower()
        for b in net.chain.iter_blocks(0, 0, END)
        for t in b.transactions
        if t.contract_address is not None
    }
    assert created
    got = dict(zip(receipts["transaction_hash"], receipts["contract_address_hex"], strict=True))
    assert {h: a for h, a in got.items() if pd.notna(a)} == created
    assert "0x" + "0" * 40 not in set(receipts["contract_address_hex"].dropna())


def test_receipts_by_transaction_where_get_block_receipts_crashes(make_devnet: Callable[..., Devnet]) -> None:
    # a node's getBlockReceipts panics on a block an eth_getLogs touched ("method handler
    # crashed"): its receipts, keyed by the hash eth_getLogs rewrote, miss every plain one
    net = _net(make_devnet)
    truth = hmyframe.receipts(0, 39, rpc=net, cache=False, options=OPTIONS)
    net.stats.reset()
    net.faults.add(
        FaultRule("rpc_error", method="hmyv2_getBlockReceipts", code=-32000, message="method handler crashed")
    )
    got = hmyframe.receipts(0, 39, rpc=net, cache=False, options=OPTIONS)
    pd.testing.assert_frame_equal(got, truth)
    assert net.stats.calls_of("hmyv2_getTransactionReceipt") == len(truth)


# --------------------------------------------------------------------------- --api 1, hmy_ only

EXPORTED = (*sources.RANGE_DATASETS, *sources.SNAPSHOT_DATASETS)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli_main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _read_all(root: Path) -> dict[str, pd.DataFrame]:
    return {name: hmyframe.read(name, root) for name in EXPORTED}


def test_api_1_exports_everything_from_a_node_serving_only_hmy(
    make_devnet: Callable[..., Devnet], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    only_hmy = _net(make_devnet, rpc_deny=["hmyv2_*"])
    full = _net(make_devnet)
    argv = ["export", ",".join(EXPORTED), "--start", "0", "--end", str(END), "--block", str(END)]
    argv += ["--chunk-size", "40", "--no-progress"]
    code, _, err = run(
        [
            *argv,
            "--api",
            "1",
            "--rpc",
            only_hmy.url,
            "--trace-rpc",
            only_hmy.trace_url,
            "--out",
            str(tmp_path / "1"),
        ],
        capsys,
    )
    assert code == 0, err
    asked = only_hmy.stats.total().calls_by_method
    assert [m for m in asked if m.startswith("hmyv2_")] == []
    assert {m for m in asked if m.startswith("hmy_")} >= {
        "hmy_getBlocks",
        "hmy_getLogs",
        "hmy_getBlockReceipts",
    }
    code, _, err = run(
        [*argv, "--api", "2", "--rpc", full.url, "--trace-rpc", full.trace_url, "--out", str(tmp_path / "2")],
        capsys,
    )
    assert code == 0, err
    one, two = _read_all(tmp_path / "1"), _read_all(tmp_path / "2")
    for name in EXPORTED:
        assert len(two[name]) > 0, name
        pd.testing.assert_frame_equal(one[name], two[name], obj=name)
