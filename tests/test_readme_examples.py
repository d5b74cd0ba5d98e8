"""The SQL, provenance and contract-events examples of the docs, run as written (between their
``example:sql``, ``example:provenance`` and ``example:events`` markers, docs/sql.md, docs/cache.md
and the README): each ``python`` block executed in
one namespace, each ``hmyframe ...`` line of an ``sh`` block run through the command line, in a
fresh folder. (tests/doc_examples.py finds the blocks; tests/test_doc_examples.py runs the rest.)"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from doc_examples import example, run_commands, run_python

import hmyframe
from hmyframe.devnet.eth import CLIENT_VERSION


def _run(
    blocks: list[tuple[str, str]], namespace: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> list[str]:
    """Run the blocks; return what each command line printed, in order."""
    printed: list[str] = []
    for language, code in blocks:
        if language == "python":
            run_python(code, namespace, "docs example")
            continue
        printed += run_commands(code, capsys)
    return printed


def test_the_sql_and_provenance_examples_run_and_say_what_they_claim(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HMYFRAME_CACHE", str(tmp_path / "default-cache"))
    namespace: dict[str, Any] = {}
    listing, epochs, wrote = _run(example("sql"), namespace, capsys)

    # the query's answer, against pandas on hmyframe.read
    per_shard = namespace["per_shard"]
    tx = hmyframe.read("transactions", "sql-demo/")
    blocks = hmyframe.read("blocks", "sql-demo/")
    big = tx[tx["value"] > 10**18]
    assert per_shard["shard_id"].tolist() == [0, 1]
    for _, row in per_shard.iterrows():
        mine = big[big["shard_id"] == row["shard_id"]]
        assert row["transactions"] == len(mine) > 0
        assert row["value"] == sum(int(v) for v in mine["value"])
        times = blocks[
            (blocks["shard_id"] == row["shard_id"]) & blocks["block_number"].isin(mine["block_number"])
        ]
        assert row["last_block_time"] == times["timestamp"].max()
    assert str(per_shard["value"].dtype) == "atto"

    assert [line.split(":")[0] for line in listing.splitlines()] == [
        "blocks",
        "transactions",
        "staking_transactions",
    ]
    for epoch in blocks["epoch"].unique():
        assert re.search(rf"^\s*\d+\s+{epoch}\s+\d+\s+\d+\s*$", epochs, re.M), epoch
    assert len(pq.read_table(tmp_path / "shard1.parquet")) == (tx["shard_id"] == 1).sum()
    assert "wrote" in wrote

    (verbose,) = _run(example("provenance"), namespace, capsys)
    sources = namespace["tx"].attrs["provenance"]
    assert len(sources) == 2  # one endpoint per shard
    for source in sources:
        assert source["hmyframe_version"] == hmyframe.__version__
        assert source["node_version"] == CLIENT_VERSION
        assert source["endpoint"].startswith("http://127.0.0.1:")
        assert source["files"] == 1
        assert source["endpoint"] in verbose
    assert verbose.count(f"({CLIENT_VERSION})") == 6  # blocks, transactions, staking transactions x 2 shards


def test_the_contract_events_example_runs_and_says_what_it_claims(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HMYFRAME_CACHE", str(tmp_path / "default-cache"))
    namespace: dict[str, Any] = {}
    multi, single = _run(example("events"), namespace, capsys)

    # the HRC-20 Transfers, against a decode by hand of the cached logs
    logs = hmyframe.read("logs", "events-demo/")
    transfer_topic = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
    mine = logs[(logs["topic0"] == transfer_topic) & (logs["topic_count"] == 3)]
    transfers = namespace["transfers"]
    assert len(transfers) == len(mine) > 10
    assert transfers["value"].tolist() == [int(d, 16) for d in mine["data"]]
    assert transfers["from_hex"].tolist() == ["0x" + t[26:] for t in mine["topic1"]]
    assert transfers["value"].sum() == sum(int(d, 16) for d in mine["data"])
    assert "4 topics" in transfers.attrs["undecoded"][0]["reason"]
    assert set(namespace["nft"]) == {"Transfer", "Approval", "ApprovalForAll"}
    assert len(namespace["nft"]["Transfer"]) == len(transfers.attrs["undecoded"])
    sent = namespace["sent"]
    assert len(sent) > 0
    assert "0x40c10f19" in {u["selector"] for u in sent.attrs["unknown_selectors"]}  # mint(address,uint256)
    # the devnet's DEX swaps, decoded from the cached logs: against the data words read by hand
    swaps = namespace["swaps"]
    swap_topic = "0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822"  # UniswapV2 Swap
    pair_swaps = logs[(logs["topic0"] == swap_topic) & (logs["topic_count"] == 3)]
    assert len(swaps) == len(pair_swaps) > 0
    words = [[int(d[2 + 64 * k : 66 + 64 * k], 16) for k in range(4)] for d in pair_swaps["data"]]
    for k, column in enumerate(("amount0In", "amount1In", "amount0Out", "amount1Out")):
        assert swaps[column].tolist() == [w[k] for w in words]
    assert swaps["to_hex"].tolist() == ["0x" + t[26:] for t in pair_swaps["topic2"]]
    assert list(swaps.columns[-6:]) == ["amount0In", "amount1In", "amount0Out", "amount1Out", "to", "to_hex"]

    # the command line: one file per event in the folder, and one CSV of a signature
    for name in ("TransferSingle", "TransferBatch", "ApprovalForAll", "URI"):
        rows = len(pq.read_table(tmp_path / "events-demo" / "hrc1155" / f"{name}.parquet"))
        assert f"{name}: {rows:,} logs" in multi
    (count,) = re.findall(r"TransferSingle: ([\d,]+) logs", single)
    lines = (tmp_path / "single.csv").read_text().splitlines()
    assert len(lines) - 1 == int(count.replace(",", ""))
    assert lines[0].split(",")[-2:] == ['"id"', '"value"']
