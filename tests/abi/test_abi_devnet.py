"""``hmyframe.events`` / ``hmyframe.calls`` over real HTTP against a token-busy devnet (both shards,
every token standard): the decoded HRC-20 / HRC-721 / HRC-1155 events carry exactly the values of
the ``token_transfers`` dataset (decoded independently, by its own module); the decoded
``transfer`` calls carry the values their logs show; a second run is read from the cache and sends
no request; the ``hmyframe events`` command writes what the function returns."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pytest

import hmyframe
from hmyframe import aio
from hmyframe.amounts import Uint256Dtype
from hmyframe.cli import main
from hmyframe.devnet import Devnet
from hmyframe.errors import AbiError

END = 119
SPAN: dict[str, Any] = {"start": 0, "end": END, "shard": "all"}


@pytest.fixture(scope="module")
def net() -> Iterator[Devnet]:
    with Devnet(shards=2, blocks=END + 1, seed=7, token_density=4, validator_rate_limit=False) as devnet:
        yield devnet


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("abi-cache")


@pytest.fixture(scope="module")
def transfers(net: Devnet, cache: Path) -> pd.DataFrame:
    return hmyframe.token_transfers(**SPAN, rpc=net, cache=cache)


def _rows(frame: pd.DataFrame, columns: list[str]) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in frame[columns].itertuples(index=False)]


POSITION = ["shard_id", "block_number", "transaction_hash", "log_index"]


def test_hrc20_and_hrc721_transfers_equal_the_token_transfers_dataset(
    net: Devnet, cache: Path, transfers: pd.DataFrame
) -> None:
    fungible = hmyframe.events("hrc20", **SPAN, event="Transfer", rpc=net, cache=cache)
    nft = hmyframe.events("hrc721", **SPAN, event="Transfer", rpc=net, cache=cache)
    hrc20 = transfers[transfers["standard"] == "hrc20"]
    hrc721 = transfers[transfers["standard"] == "hrc721"]
    assert len(fungible) == len(hrc20) > 20
    assert len(nft) == len(hrc721) > 20
    assert _rows(fungible, [*POSITION, "address_hex", "from_hex", "to_hex", "value"]) == _rows(
        hrc20, [*POSITION, "token_address_hex", "from_address_hex", "to_address_hex", "amount"]
    )
    assert _rows(nft, [*POSITION, "address", "from", "to", "tokenId"]) == _rows(
        hrc721, [*POSITION, "token_address", "from_address", "to_address", "token_id"]
    )
    assert fungible["value"].dtype == Uint256Dtype()
    assert max(fungible["value"]) > 10**38  # the devnet's HUGE token: beyond decimal128, exact
    # one signature, two layouts: each standard's logs are the other's undecoded ones
    assert [(u["block_number"], u["log_index"]) for u in fungible.attrs["undecoded"]] == _rows(
        hrc721, ["block_number", "log_index"]
    )
    assert {u["reason"] for u in fungible.attrs["undecoded"]} == {
        "the log has 4 topics; the event has 3 (topic0 and 2 indexed arguments)"
    }
    assert len(nft.attrs["undecoded"]) == len(hrc20)


def test_hrc1155_single_and_batch_transfers_equal_the_token_transfers_dataset(
    net: Devnet, cache: Path, transfers: pd.DataFrame
) -> None:
    frames = hmyframe.events("hrc1155", **SPAN, rpc=net, cache=cache)
    assert set(frames) == {"TransferSingle", "TransferBatch", "ApprovalForAll", "URI"}
    single, batch = frames["TransferSingle"], frames["TransferBatch"]
    assert len(single) > 5
    assert len(batch) > 2
    expected = transfers[transfers["standard"] == "hrc1155"]
    got = [
        (*r[:4], 0, r[4], r[5], r[6], r[7], r[8], v)
        for r, v in zip(
            _rows(single, [*POSITION, "address_hex", "operator_hex", "from_hex", "to_hex", "id"]),
            single["value"],
            strict=True,
        )
    ]
    for row in batch.itertuples(index=False):
        for k, (token_id, value) in enumerate(zip(row.ids, row.values, strict=True)):
            got.append(
                (
                    row.shard_id,
                    row.block_number,
                    row.transaction_hash,
                    row.log_index,
                    k,
                    row.address_hex,
                    row.operator_hex,
                    row.from_hex,
                    row.to_hex,
                    token_id,
                    value,
                )
            )
    want = _rows(
        expected,
        [
            *POSITION,
            "batch_index",
            "token_address_hex",
            "operator_address_hex",
            "from_address_hex",
            "to_address_hex",
            "token_id",
            "amount",
        ],
    )
    assert sorted(got) == sorted(want)
    assert all(type(v) is int for ids in batch["ids"] for v in ids)


def test_transfer_calls_carry_what_their_logs_show(net: Devnet, cache: Path, transfers: pd.DataFrame) -> None:
    tokens = sorted(set(transfers.loc[transfers["standard"] == "hrc20", "token_address_hex"]))
    calls = hmyframe.calls("hrc20", **SPAN, address=tokens, rpc=net, cache=cache)
    sent = calls["transfer"]
    assert len(sent) > 10
    assert set(sent["to_address_hex"]) <= set(tokens)
    assert sent.columns[: len(POSITION) - 1].tolist() == ["block_number", "shard_id", "transaction_hash"]
    # the logs' transaction hash may be either form: map both to the transaction
    txs = hmyframe.transactions(**SPAN, rpc=net, cache=cache)
    harmony = dict(zip(txs["transaction_hash"], txs["transaction_hash"], strict=True))
    harmony.update(
        zip(txs["eth_hash"].dropna(), txs.loc[txs["eth_hash"].notna(), "transaction_hash"], strict=True)
    )
    logged = {
        harmony[r.transaction_hash]: (r.from_address_hex, r.to_address_hex, r.amount, r.token_address_hex)
        for r in transfers[transfers["standard"] == "hrc20"].itertuples(index=False)
    }
    matched = 0
    for r in sent.itertuples(index=False):
        if r.transaction_hash in logged:  # a failed transfer has no log
            assert logged[r.transaction_hash] == (r.from_address_hex, r.to_hex, r.value, r.to_address_hex)
            matched += 1
    assert matched > 10
    # mint(address,uint256) is in no standard interface: listed as unknown, counted
    minted = txs[txs["to_address_hex"].isin(tokens) & txs["input"].str.startswith("0x40c10f19")]
    unknown = {u["selector"]: u["calls"] for u in sent.attrs["unknown_selectors"]}
    assert unknown["0x40c10f19"] == len(minted) > 0
    assert sent.attrs["function"] == "transfer(address to, uint256 value)"


def test_calls_from_traces_include_the_transactions_own_calls(net: Devnet, cache: Path) -> None:
    plain = hmyframe.calls("hrc1155", **SPAN, function="safeBatchTransferFrom", rpc=net, cache=cache)
    traced = hmyframe.calls(
        "hrc1155", **SPAN, function="safeBatchTransferFrom", traces=True, rpc=net, cache=cache
    )
    top = traced[traced["trace_address"] == ""].reset_index(drop=True)
    assert len(top) == len(plain) > 0
    columns = ["transaction_hash", "from_hex", "to_hex", "ids", "amounts", "data"]
    assert _rows(top, columns) == _rows(plain, columns)
    assert set(traced["call_type"]) <= {"call", "delegatecall", "staticcall", "callcode"}
    assert "error" in traced.columns


def test_a_second_run_reads_the_cache_and_sends_no_request(net: Devnet, cache: Path) -> None:
    first = hmyframe.events("uniswap_v2_pair", **SPAN, rpc=net, cache=cache)
    calls = hmyframe.calls("wone", **SPAN, traces=True, rpc=net, cache=cache)
    net.stats.reset()
    again = hmyframe.events("uniswap_v2_pair", **SPAN, rpc=net, cache=cache)
    again_calls = hmyframe.calls("wone", **SPAN, traces=True, rpc=net, cache=cache)
    assert net.stats.http_requests == 0
    for key in first:
        pd.testing.assert_frame_equal(again[key], first[key], check_exact=True)
        assert again[key].attrs == first[key].attrs
    for key in calls:
        pd.testing.assert_frame_equal(again_calls[key], calls[key], check_exact=True)


async def test_the_async_twin_and_the_arrow_and_polars_outputs(net: Devnet, cache: Path) -> None:
    frame = await aio.events("hrc20", **SPAN, event="Transfer", rpc=net, cache=cache)
    table = await aio.events("hrc20", **SPAN, event="Transfer", rpc=net, cache=cache, output="arrow")
    assert isinstance(table, pa.Table)
    assert table.schema.field("value").type == pa.string()
    assert table.schema.field("value").metadata == {b"hmyframe.dtype": b"uint256"}
    back = hmyframe.to_pandas(table)
    pd.testing.assert_frame_equal(back, frame, check_exact=True)
    assert json.loads(table.schema.metadata[b"hmyframe.attrs"])["undecoded"] == frame.attrs["undecoded"]
    pl = pytest.importorskip("polars")
    polars = await aio.events("hrc20", **SPAN, event="Transfer", rpc=net, cache=cache, output="polars")
    assert isinstance(polars, pl.DataFrame)
    assert polars["value"].to_list() == [str(v) for v in frame["value"]]


def test_bad_arguments_fail_before_any_request(net: Devnet, cache: Path) -> None:
    net.stats.reset()
    with pytest.raises(AbiError, match="no event 'Swap' in the ABI"):
        hmyframe.events("hrc20", **SPAN, event="Swap", rpc=net, cache=cache)
    with pytest.raises(hmyframe.HmyframeError, match="invalid address"):
        hmyframe.events("hrc20", **SPAN, address="one1bad", rpc=net, cache=cache)
    with pytest.raises(hmyframe.HmyframeError, match="traces must be True or False"):
        hmyframe.calls("hrc20", **SPAN, traces="yes", rpc=net, cache=cache)  # type: ignore[arg-type]
    assert net.stats.http_requests == 0


def test_the_events_command_writes_parquet_and_csv(
    net: Devnet, cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    common = ["--start", "0", "--end", str(END), "--shard", "all", "--rpc", net.url, "--cache", str(cache)]
    assert main(["events", "hrc1155", *common, "--out", str(tmp_path / "multi"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    frames = hmyframe.events("hrc1155", **SPAN, rpc=net, cache=cache)
    for key, frame in frames.items():
        assert f"{key}: {len(frame):,} logs -> {tmp_path / 'multi' / key}.parquet" in out
        written = pd.read_parquet(tmp_path / "multi" / f"{key}.parquet")
        assert written.columns.tolist() == frame.columns.tolist()
        if key == "TransferSingle":
            assert written["value"].dtype == Uint256Dtype()
            pd.testing.assert_frame_equal(written, frame, check_exact=True, check_dtype=False)
    batch = pd.read_parquet(tmp_path / "multi" / "TransferBatch.parquet")
    assert [json.loads(t) for t in batch["ids"]] == frames["TransferBatch"]["ids"].tolist()

    swap = "Transfer(address indexed from, address indexed to, uint256 value)"
    csv = tmp_path / "transfers.csv"
    assert main(["events", swap, *common, "--out", str(csv), "--no-progress"]) == 0
    written = pacsv.read_csv(csv, convert_options=pacsv.ConvertOptions(column_types={"value": pa.string()}))
    expected = hmyframe.events(swap, **SPAN, rpc=net, cache=cache)
    assert written.column("value").to_pylist() == [str(v) for v in expected["value"]]
    assert "matching logs not decoded" in capsys.readouterr().err  # the HRC-721 Transfers

    code = main(["events", "hrc1155", *common, "--out", str(tmp_path / "one.parquet")])
    err = capsys.readouterr().err
    assert code == 1
    assert err.count("\n") == 1
    assert "is one file but 4 events are decoded" in err
    code = main(["events", "Broken(uint7 x)", *common, "--out", str(tmp_path / "x.parquet")])
    assert code == 1
    assert "argument 0 'uint7 x': type 'uint7'" in capsys.readouterr().err
