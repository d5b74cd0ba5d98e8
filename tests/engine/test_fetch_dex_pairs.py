"""``hmyframe.dex_pairs`` over real HTTP against the devnet: each pair's tokens and reserves
against the chain's own ledger, the tokens joined, the per-block cache (a re-read sends nothing),
pairs not created yet, both generations, and one-line errors."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

import hmyframe
from hmyframe.addresses import to_one
from hmyframe.amounts import Uint256Dtype
from hmyframe.devnet import Chain, Devnet
from hmyframe.engine import FetchOptions
from hmyframe.errors import AddressError, ConfigError

NET = {"blocks": 300, "seed": 4, "dex_density": 1.0}
AT = 250


@pytest.fixture(scope="module")
def net() -> Iterator[Devnet]:
    with Devnet(**NET) as devnet:
        yield devnet


@pytest.fixture(scope="module")
def truth() -> Chain:
    return Chain(**NET)


@pytest.mark.parametrize("version", [1, 2])
def test_pairs_read_at_a_block_are_the_ledgers(
    net: Devnet, truth: Chain, tmp_path: Path, version: int
) -> None:
    dex = truth.dex(1)
    ledger = truth.dex_ledger(1, AT)
    created = [p for p in dex.pairs if p.address in ledger.created]
    assert created
    asked = [to_one(p.address) for p in created] + [p.address for p in created]  # both forms: asked once
    options = FetchOptions(version=version)  # type: ignore[arg-type]
    df = hmyframe.dex_pairs(asked, block=AT, shard=1, rpc=net, cache=tmp_path, options=options)
    assert df.attrs["block"] == AT
    assert len(df) == len(created)
    assert isinstance(df["reserve0"].dtype, Uint256Dtype)
    symbols = {t.address: t.symbol.decode() for t in truth.tokens(1)} | {dex.wone: "WONE"}
    for pair in created:
        (row,) = df[df["pair_address_hex"] == pair.address].itertuples()
        r0, r1, last = ledger.reserves[pair.address]
        assert (row.token0_hex, row.token1_hex) == (pair.token0, pair.token1)
        assert (int(row.reserve0), int(row.reserve1), row.block_timestamp_last) == (r0, r1, last)
        assert (row.token0_symbol, row.token1_symbol) == (symbols[pair.token0], symbols[pair.token1])
        assert row.shard_id == 1
        assert pd.isna(row.reason)


def test_a_reread_sends_nothing_and_a_pair_not_created_yet_is_nulls(
    net: Devnet, truth: Chain, tmp_path: Path
) -> None:
    dex = truth.dex(0)
    first = min(truth.dex_ledger(0, NET["blocks"] - 1).created.values())
    pair = dex.pairs[0].address
    before = hmyframe.dex_pairs([pair], block=first - 1, rpc=net, cache=tmp_path, with_tokens=False)
    (row,) = before.itertuples()
    assert row.reason == "token0() missing; token1() missing; getReserves() missing"
    assert "token0_symbol" not in before.columns
    hmyframe.dex_pairs([pair], block=AT, rpc=net, cache=tmp_path)
    net.stats.reset()
    again = hmyframe.dex_pairs([pair], block=AT, rpc=net, cache=tmp_path)
    assert net.stats.http_requests == 0
    assert again["token1_symbol"].notna().all()


def test_bad_pairs_and_blocks_are_one_line_errors(net: Devnet, tmp_path: Path) -> None:
    with pytest.raises(AddressError, match="one1nope"):
        hmyframe.dex_pairs(["one1nope"], block=AT, rpc=net, cache=tmp_path)
    with pytest.raises(ConfigError, match="needs at least one address"):
        hmyframe.dex_pairs([], block=AT, rpc=net, cache=tmp_path)
    with pytest.raises(ConfigError, match=f"block 5000 is beyond the head {NET['blocks'] - 1} of shard 0"):
        hmyframe.dex_pairs(["0x" + "12" * 20], block=5000, rpc=net, cache=tmp_path)
    with pytest.raises(ConfigError, match="with_tokens must be True or False"):
        hmyframe.dex_pairs(["0x" + "12" * 20], rpc=net, with_tokens="yes")  # type: ignore[arg-type]
