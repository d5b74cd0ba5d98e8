"""The Parquet cache seen from the fetchers, with the devnet counting every request it gets.

* a repeated call sends nothing; a partly cached range fetches only its missing blocks;
* two URLs of one chain share the cache, two chains never mix (also one URL serving two chains
  one after the other);
* stale or corrupt files are refetched and replaced, never mixed in;
* nothing beyond the head is asked for or cached; mined blocks can be fetched afterwards;
* the exported folder is read whole by pandas, pyarrow.dataset and DuckDB.
"""

from __future__ import annotations

import itertools
import socket
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest
from fetch_helpers import blocks as truth_blocks
from fetch_helpers import exact_sum, hidden_files, parquet_files, trace_rows
from fetch_helpers import transactions as truth_transactions

import hmyframe
from hmyframe import FetchOptions
from hmyframe.aio import export
from hmyframe.cache import CacheWarning
from hmyframe.devnet import Chain, Devnet, DevnetStats
from hmyframe.engine._session import chain_id_from_hash
from hmyframe.errors import ConfigError

#: getBlockByNumber per block: the server's call count is the number of blocks fetched.
PER_BLOCK = FetchOptions(strategy="batch", chunk_size=50)
#: getBlocks of 25 blocks, chunks of 50: two calls per full chunk.
RANGED = FetchOptions(chunk_size=50, blocks_per_request=25, validator_pacing=None)
RANGE_NAMES = ("blocks", "transactions", "staking_transactions", "signers", "traces")


def chain_id(net: Devnet) -> str:
    return chain_id_from_hash(net.chain.genesis_hash(0))


def files_of(root: Path, net: Devnet, dataset: str, shard: int = 0) -> list[str]:
    folder = root / chain_id(net) / dataset / f"shard{shard}"
    return sorted(p.name for p in folder.glob("*.parquet"))


# --------------------------------------------------------------------------- zero-request hits


@pytest.mark.parametrize("name", RANGE_NAMES)
def test_repeated_range_call_sends_no_request(
    devnet: Devnet, devnet_stats: DevnetStats, tmp_path: Path, name: str
) -> None:
    first = getattr(hmyframe, name)(40, 139, 1, rpc=devnet, cache=tmp_path, options=RANGED)
    assert devnet_stats.http_requests > 0
    devnet_stats.reset()
    again = getattr(hmyframe, name)(40, 139, 1, rpc=devnet, cache=tmp_path, options=RANGED)
    assert devnet_stats.http_requests == 0
    pd.testing.assert_frame_equal(again, first, check_exact=True)
    # a sub-range of what is cached too
    inner = getattr(hmyframe, name)(60, 99, 1, rpc=devnet, cache=tmp_path, options=RANGED)
    assert devnet_stats.http_requests == 0
    assert set(inner["block_number"]) <= set(range(60, 100))
    expected = first[(first["block_number"] >= 60) & (first["block_number"] <= 99)].reset_index(drop=True)
    pd.testing.assert_frame_equal(inner, expected, check_exact=True)


def test_repeated_snapshot_call_sends_no_request(
    devnet: Devnet, devnet_stats: DevnetStats, tmp_path: Path
) -> None:
    first = {
        n: getattr(hmyframe, n)(block=250, rpc=devnet, cache=tmp_path, options=RANGED)
        for n in ("validators", "delegations")
    }
    calls = devnet_stats.calls_of("hmyv2_getAllValidatorInformationByBlockNumber")
    assert calls >= 3
    # the four snapshot tables are built from the same pages: the second one needed no page
    devnet_stats.reset()
    for name in ("validators", "voting_power", "delegations", "undelegations"):
        df = getattr(hmyframe, name)(block=250, rpc=devnet, cache=tmp_path, options=RANGED)
        assert df.attrs["snapshot_block"] == 250
        if name in first:
            pd.testing.assert_frame_equal(df, first[name], check_exact=True)
    assert devnet_stats.http_requests == 0


# --------------------------------------------------------------------------- partial ranges


def test_partly_cached_range_fetches_only_the_missing_blocks(
    devnet: Devnet, devnet_stats: DevnetStats, devnet_truth: Chain, tmp_path: Path
) -> None:
    hmyframe.transactions(0, 49, rpc=devnet, cache=tmp_path, options=PER_BLOCK)
    hmyframe.transactions(150, 199, rpc=devnet, cache=tmp_path, options=PER_BLOCK)
    # an unaligned piece: files are cut at multiples of chunk_size (25..49 is already there)
    hmyframe.transactions(230, 260, rpc=devnet, cache=tmp_path, options=PER_BLOCK)
    assert files_of(tmp_path, devnet, "transactions") == [
        "transactions__0000000000_0000000049.parquet",
        "transactions__0000000150_0000000199.parquet",
        "transactions__0000000230_0000000249.parquet",
        "transactions__0000000250_0000000260.parquet",
    ]
    devnet_stats.reset()
    done: list[int] = []

    def progress(blocks: int) -> None:
        done.append(blocks)

    df = hmyframe.transactions(0, 279, rpc=devnet, cache=tmp_path, options=PER_BLOCK, progress=progress)
    # server side: one getBlockByNumber per missing block (50..149, 200..229, 261..279), nothing else
    missing = 100 + 30 + 19
    assert devnet_stats.calls_of("hmyv2_getBlockByNumber") == missing
    assert devnet_stats.calls_of("hmyv2_getBlocks") == 0
    assert sum(done) == missing
    assert files_of(tmp_path, devnet, "transactions") == [
        "transactions__0000000000_0000000049.parquet",
        "transactions__0000000050_0000000099.parquet",
        "transactions__0000000100_0000000149.parquet",
        "transactions__0000000150_0000000199.parquet",
        "transactions__0000000200_0000000229.parquet",
        "transactions__0000000230_0000000249.parquet",
        "transactions__0000000250_0000000260.parquet",
        "transactions__0000000261_0000000279.parquet",
    ]
    truth = truth_transactions(devnet_truth, 0, 0, 279)
    assert df["transaction_hash"].tolist() == [t.hash for t in truth]
    assert exact_sum(df["value"]) == sum(t.value for t in truth)


def test_partly_cached_range_with_get_blocks_counts_requests_per_missing_chunk(
    devnet: Devnet, devnet_stats: DevnetStats, tmp_path: Path
) -> None:
    hmyframe.blocks(0, 99, rpc=devnet, cache=tmp_path, options=RANGED)
    devnet_stats.reset()
    df = hmyframe.blocks(0, 199, rpc=devnet, cache=tmp_path, options=RANGED)
    assert df["block_number"].tolist() == list(range(200))
    # 100..199 = 2 chunks of 50 = 4 getBlocks calls of 25 blocks; one head check, no more
    assert devnet_stats.calls_of("hmyv2_getBlocks") == 4
    assert devnet_stats.calls_of("hmyv2_blockNumber") == 1
    assert devnet_stats.total().calls == 5


def test_a_new_dataset_over_cached_blocks_reuses_them(
    devnet: Devnet, devnet_stats: DevnetStats, tmp_path: Path
) -> None:
    # transactions cached: the traces of the same blocks need only trace_block calls
    hmyframe.transactions(100, 149, rpc=devnet, cache=tmp_path, options=RANGED)
    devnet_stats.reset()
    traces = hmyframe.traces(100, 149, rpc=devnet, cache=tmp_path, options=RANGED)
    assert len(traces) > 0
    assert devnet_stats.calls_of("hmyv2_getBlocks") == 0
    assert devnet_stats.calls_of("trace_block") == 50


# --------------------------------------------------------------------------- chain identity


def test_devnet_object_and_its_urls_share_one_cache(make_devnet, tmp_path: Path) -> None:
    net = make_devnet(blocks=200, seed=21, validator_rate_limit=False)
    by_object = {s: hmyframe.transactions(0, 119, s, rpc=net, cache=tmp_path, options=RANGED) for s in (0, 1)}
    assert [p.name for p in tmp_path.iterdir()] == [chain_id(net)]
    for shard, url in enumerate(net.urls):
        net.stats.reset()
        # first use of this URL in the process: the chain id costs one genesis-block request
        df = hmyframe.transactions(0, 119, shard, rpc=url, cache=tmp_path, options=RANGED)
        pd.testing.assert_frame_equal(df, by_object[shard], check_exact=True)
        calls = net.stats.total().calls_by_method
        assert calls.get("hmyv2_getBlocks", 0) == 0
        # (shard 1's URL also gets a guess sent with its sharding structure; dropped, as that URL
        # does not serve shard 0: the genesis block is then asked of shard 0's URL)
        assert net.stats.endpoint(0).calls_by_method.get("hmyv2_getBlockByNumber", 0) == 1
        assert calls.get("hmyv2_getBlockByNumber", 0) == 1 + shard
        net.stats.reset()
        again = hmyframe.transactions(0, 119, shard, rpc=url, cache=tmp_path, options=RANGED)
        assert net.stats.http_requests == 0  # the URL's chain id is remembered
        pd.testing.assert_frame_equal(again, df, check_exact=True)
    assert [p.name for p in tmp_path.iterdir()] == [chain_id(net)]


def test_two_chains_never_mix(devnet: Devnet, make_devnet, devnet_truth: Chain, tmp_path: Path) -> None:
    other = make_devnet(blocks=200, seed=8, validator_rate_limit=False)
    assert chain_id(other) != chain_id(devnet)
    mine = hmyframe.transactions(0, 99, rpc=devnet, cache=tmp_path, options=RANGED)
    theirs = hmyframe.transactions(0, 99, rpc=other.url, cache=tmp_path, options=RANGED)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([chain_id(devnet), chain_id(other)])
    assert mine["transaction_hash"].tolist() == [t.hash for t in truth_transactions(devnet_truth, 0, 0, 99)]
    assert theirs["transaction_hash"].tolist() == [t.hash for t in truth_transactions(other.chain, 0, 0, 99)]
    assert not set(mine["transaction_hash"]) & set(theirs["transaction_hash"])


def _free_port_pair() -> int:
    """A port P with P..P+3 free right now (a 2-shard devnet needs 4)."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port + 3 > 65535:
            continue
        try:
            socks = []
            for p in range(port, port + 4):
                sock = socket.socket()
                socks.append(sock)
                sock.bind(("127.0.0.1", p))
        except OSError:
            continue
        finally:
            for sock in socks:
                sock.close()
        return port
    pytest.skip("no 4 consecutive free ports")


def test_one_url_serving_another_chain_later_is_not_mixed_in(tmp_path: Path) -> None:
    # a local node restarted with a new genesis on the same port (the per-URL chain-id memory
    # must not file the new chain's blocks under the old chain's id)
    port = _free_port_pair()
    with Devnet(blocks=200, seed=31, port=port, validator_rate_limit=False) as first:
        url = first.url
        old = hmyframe.blocks(0, 99, rpc=url, cache=tmp_path, options=RANGED)
        assert old["block_hash"].tolist() == [b.hash for b in truth_blocks(first.chain, 0, 0, 99)]
        old_id = chain_id(first)
    with Devnet(blocks=200, seed=32, port=port, validator_rate_limit=False) as second:
        assert second.url == url
        new = hmyframe.blocks(0, 149, rpc=url, cache=tmp_path, options=RANGED)
        assert new["block_hash"].tolist() == [b.hash for b in truth_blocks(second.chain, 0, 0, 149)]
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted([old_id, chain_id(second)])
        assert files_of(tmp_path, first, "blocks") == [
            "blocks__0000000000_0000000049.parquet",
            "blocks__0000000050_0000000099.parquet",
        ]


# --------------------------------------------------------------------------- stale and corrupt files


def test_corrupt_file_is_refetched_not_mixed_in(
    devnet: Devnet, devnet_stats: DevnetStats, devnet_truth: Chain, tmp_path: Path
) -> None:
    first = hmyframe.transactions(0, 149, rpc=devnet, cache=tmp_path, options=PER_BLOCK)
    victim = (
        tmp_path
        / chain_id(devnet)
        / "transactions"
        / "shard0"
        / "transactions__0000000050_0000000099.parquet"
    )
    victim.write_bytes(b"PAR1 this is not parquet")
    devnet_stats.reset()
    with pytest.warns(CacheWarning, match="corrupt"):
        df = hmyframe.transactions(0, 149, rpc=devnet, cache=tmp_path, options=PER_BLOCK)
    assert devnet_stats.calls_of("hmyv2_getBlockByNumber") == 50  # that chunk only
    pd.testing.assert_frame_equal(df, first, check_exact=True)
    assert pq.read_metadata(victim).num_rows == int(((df.block_number >= 50) & (df.block_number <= 99)).sum())
    # and it is a normal cache hit again
    devnet_stats.reset()
    hmyframe.transactions(0, 149, rpc=devnet, cache=tmp_path, options=PER_BLOCK)
    assert devnet_stats.http_requests == 0
    assert df["transaction_hash"].tolist() == [t.hash for t in truth_transactions(devnet_truth, 0, 0, 149)]


def _rewrite_fingerprint(path: Path, fingerprint: bytes) -> None:
    table = pq.read_table(path)
    meta = dict(table.schema.metadata)
    meta[b"hmyframe.fingerprint"] = fingerprint
    pq.write_table(table.replace_schema_metadata(meta), path)


def test_stale_files_are_refetched_and_replaced(
    devnet: Devnet, devnet_stats: DevnetStats, tmp_path: Path
) -> None:
    first = hmyframe.blocks(0, 99, rpc=devnet, cache=tmp_path, options=PER_BLOCK)
    vals = hmyframe.validators(250, rpc=devnet, cache=tmp_path, options=RANGED)
    folder = tmp_path / chain_id(devnet)
    stale = folder / "blocks" / "shard0" / "blocks__0000000000_0000000049.parquet"
    _rewrite_fingerprint(stale, b"0000000000000000")
    snap = folder / "validators" / "shard0" / "validators__at_0000000250.parquet"
    _rewrite_fingerprint(snap, b"0000000000000000")
    devnet_stats.reset()
    with pytest.warns(CacheWarning, match="stale"):
        df = hmyframe.blocks(0, 99, rpc=devnet, cache=tmp_path, options=PER_BLOCK)
    assert devnet_stats.calls_of("hmyv2_getBlockByNumber") == 50
    pd.testing.assert_frame_equal(df, first, check_exact=True)
    with pytest.warns(CacheWarning, match="stale"):
        again = hmyframe.validators(250, rpc=devnet, cache=tmp_path, options=RANGED)
    pd.testing.assert_frame_equal(again, vals, check_exact=True)
    fingerprint = hmyframe.dataset("blocks").fingerprint.encode()
    assert pq.read_schema(stale).metadata[b"hmyframe.fingerprint"] == fingerprint


# --------------------------------------------------------------------------- the head


def test_only_blocks_up_to_the_head_are_fetched_then_mined_ones(make_devnet, tmp_path: Path) -> None:
    net = make_devnet(blocks=120, seed=5, validator_rate_limit=False)
    assert hmyframe.head(rpc=net) == 119
    with pytest.raises(ConfigError, match=r"end block 130 is beyond the last fetchable block 119 of shard 0"):
        hmyframe.blocks(100, 130, rpc=net, cache=tmp_path, options=RANGED)
    assert not (tmp_path / chain_id(net) / "blocks").exists()  # nothing written
    with pytest.raises(ConfigError, match=r"block N's signers need block N\+1"):
        hmyframe.signers(100, 119, rpc=net, cache=tmp_path, options=RANGED)
    # end=None: up to the head (signers: the head - 1)
    assert hmyframe.blocks(100, rpc=net, cache=tmp_path, options=RANGED)["block_number"].max() == 119
    assert hmyframe.signers(100, rpc=net, cache=tmp_path, options=RANGED)["block_number"].max() == 118
    assert files_of(tmp_path, net, "blocks") == ["blocks__0000000100_0000000119.parquet"]

    net.mine(30)
    truth = Chain(blocks=150, seed=5)
    net.stats.reset()
    df = hmyframe.blocks(100, 149, rpc=net, cache=tmp_path, options=PER_BLOCK)
    assert df["block_hash"].tolist() == [b.hash for b in truth_blocks(truth, 0, 100, 149)]
    assert net.stats.calls_of("hmyv2_getBlockByNumber") == 30  # only the mined blocks
    sig = hmyframe.signers(100, 148, rpc=net, cache=tmp_path, options=RANGED)
    assert sig.groupby("block_number").size().to_dict() == {
        n: len(set(truth.signers(0, n) or ())) for n in range(100, 149)
    }
    assert hmyframe.head(rpc=net) == 149


# --------------------------------------------------------------------------- the exported folder


async def test_exported_folder_reads_whole_in_pandas_pyarrow_and_duckdb(
    devnet: Devnet, devnet_truth: Chain, tmp_path: Path
) -> None:
    out = tmp_path / "export"
    summary = await export(
        ["blocks", "transactions", "traces", "validators"],
        0,
        179,
        1,
        block=250,
        rpc=devnet,
        out=out,
        options=RANGED,
    )
    assert summary.chain_id == chain_id(devnet)
    assert summary.fetched_blocks == 180
    txs = truth_transactions(devnet_truth, 1, 0, 179)
    expected = {
        "blocks": 180,
        "transactions": len(txs),
        "traces": len(trace_rows(devnet_truth, 1, 0, 179)),
    }
    for name, rows in expected.items():
        folder = out / summary.chain_id / name / "shard1"
        assert summary.datasets[name].rows == rows
        assert len(summary.datasets[name].files) == 4  # chunks of 50
        assert len(pd.read_parquet(folder)) == rows
        assert pads.dataset(folder, format="parquet").count_rows() == rows
        count = duckdb.sql(f"select count(*) from read_parquet('{folder}/*.parquet')").fetchall()[0]
        assert count == (rows,)
    value_sum = duckdb.sql(
        f"select sum(value) from read_parquet('{out}/{summary.chain_id}/transactions/shard1/*.parquet')"
    ).fetchall()[0][0]
    assert int(value_sum) == sum(t.value for t in txs)
    validators = pd.read_parquet(out / summary.chain_id / "validators" / "shard0")
    assert len(validators) == len(devnet_truth.validators(250)) == summary.datasets["validators"].rows
    assert hidden_files(out) == []
    # 4 chunks of blocks, transactions, staking_transactions (fetched together) and traces;
    # the four snapshot tables built from the same pages
    assert len(parquet_files(out)) == 4 * 4 + 4


def _ranges(folder: Path) -> list[tuple[int, int]]:
    out = []
    for path in sorted(folder.glob("*.parquet")):
        start, end = path.stem.split("__")[1].split("_")
        out.append((int(start), int(end)))
    return out


async def test_cache_files_never_overlap_after_narrower_earlier_fetches(
    devnet: Devnet, devnet_truth: Chain, tmp_path: Path
) -> None:
    # transactions (and their sibling tables) cached for part of a chunk, then wider fetches
    # of other datasets of the same blocks: the siblings are completed, not rewritten whole
    await hmyframe.aio.transactions(0, 24, rpc=devnet, cache=tmp_path)
    await hmyframe.aio.signers(0, 49, rpc=devnet, cache=tmp_path)
    await hmyframe.aio.transactions(60, 64, rpc=devnet, cache=tmp_path)
    summary = await export(["blocks", "transactions", "traces"], 0, 99, rpc=devnet, out=tmp_path)
    folder = tmp_path / summary.chain_id
    txs = truth_transactions(devnet_truth, 0, 0, 99)
    expected = {"blocks": 100, "transactions": len(txs), "traces": len(trace_rows(devnet_truth, 0, 0, 99))}
    for name, rows in expected.items():
        ranges = _ranges(folder / name / "shard0")
        assert all(a[1] < b[0] for a, b in itertools.pairwise(ranges)), (name, ranges)
        assert ranges[0][0] == 0
        assert ranges[-1][1] == 99
        assert len(pd.read_parquet(folder / name / "shard0")) == rows, name
        assert summary.datasets[name].rows == rows
    # signers are fetched with headers only (no transaction table comes of them): the
    # export filled 25..59 with one file
    assert _ranges(folder / "transactions" / "shard0") == [(0, 24), (25, 59), (60, 64), (65, 99)]
    df = pd.read_parquet(folder / "transactions" / "shard0").sort_values(
        ["block_number", "transaction_index"]
    )
    assert df["transaction_hash"].tolist() == [t.hash for t in txs]


def test_block_rows_do_not_depend_on_what_was_fetched_before(devnet: Devnet, tmp_path: Path) -> None:
    # signers fetched first (blocks then come withSigners and get cached as a sibling table)
    hmyframe.signers(0, 49, rpc=devnet, cache=tmp_path)
    hmyframe.signers(0, 49, 1, rpc=devnet, cache=tmp_path, options=FetchOptions(version=1, strategy="batch"))
    for shard in (0, 1):
        cached = hmyframe.blocks(0, 99, shard, rpc=devnet, cache=tmp_path)
        fresh = hmyframe.blocks(0, 99, shard, rpc=devnet, cache=False)
        pd.testing.assert_frame_equal(cached, fresh, check_exact=True)


def test_planning_reads_each_file_footer_once_not_once_per_chunk(
    devnet: Devnet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hmyframe.cache as cache_module

    reads: list[str] = []
    original = cache_module.pq.read_metadata

    def counting(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        reads.append(str(path))
        return original(path, *args, **kwargs)

    monkeypatch.setattr(cache_module.pq, "read_metadata", counting)
    options = FetchOptions(chunk_size=10, blocks_per_request=10)
    df = hmyframe.blocks(0, 399, rpc=devnet, cache=tmp_path, options=options)
    assert len(df) == 400
    files = parquet_files(tmp_path)
    assert len(files) == 40  # blocks only: headers-only blocks make no transaction tables
    # linear in the number of files (each inspected about once), not chunks x files
    assert len(reads) <= 2 * len(files), len(reads)
