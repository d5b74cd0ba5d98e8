"""``token_transfers(..., with_tokens=True)`` over real HTTP: each transfer carries its token's
name, symbol and decimals as the chain's token specs say, and ``amount_scaled`` correctly rounded."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

import hmyframe
from hmyframe.devnet import Chain, Devnet
from hmyframe.errors import ConfigError

NET = {"shards": 2, "blocks": 200, "seed": 7, "token_density": 4}
END = 199


@pytest.fixture(scope="module")
def net() -> Iterator[Devnet]:
    with Devnet(**NET, validator_rate_limit=False) as devnet:
        yield devnet


def _text(value: bytes, kind: str) -> str | None:
    if kind in ("revert", "none"):
        return None
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _none(value: object) -> object:
    return None if value is pd.NA or value is None else value


def test_every_transfer_carries_its_tokens_metadata(net: Devnet, tmp_path: Path) -> None:
    truth = Chain(**NET)
    plain = hmyframe.token_transfers(0, END, shard="all", rpc=net, cache=tmp_path)
    joined = hmyframe.token_transfers(0, END, shard="all", rpc=net, cache=tmp_path, with_tokens=True)
    assert list(joined.columns) == [
        *plain.columns,
        "token_name",
        "token_symbol",
        "token_decimals",
        "amount_scaled",
    ]
    assert joined[plain.columns].equals(plain)  # the transfers themselves are unchanged
    assert set(joined["standard"]) == {"hrc20", "hrc721", "hrc1155"}
    seen_decimals = set()
    for row in joined.itertuples():
        token = truth.token(row.token_address_hex)
        assert token is not None
        decimals = token.decimals
        seen_decimals.add(decimals)
        assert _none(row.token_decimals) == decimals
        assert _none(row.token_symbol) == _text(token.symbol, token.symbol_kind)
        assert _none(row.token_name) == _text(token.name, token.name_kind)
        if decimals is None:
            assert _none(row.amount_scaled) is None
        else:
            assert row.amount_scaled == float(Fraction(int(row.amount), 10**decimals))
    assert {6, 18, None} <= seen_decimals  # the 6-decimals token, 18-decimals ones, tokens without decimals
    # exact scaling of the same rows
    six = joined[joined["token_decimals"] == 6]
    exact = hmyframe.to_units(six["amount"], 6)
    assert [Fraction(e) * 10**6 for e in exact] == [int(a) for a in six["amount"]]


def test_with_tokens_works_on_arrow_and_one_shard(net: Devnet, tmp_path: Path) -> None:
    table = hmyframe.token_transfers(
        100, END, shard=1, rpc=net, cache=tmp_path, with_tokens=True, output="arrow"
    )
    assert table.num_rows > 0
    assert table.schema.field("amount_scaled").type.equals(pa.float64())
    assert set(table["shard_id"].to_pylist()) == {1}
    assert table["token_decimals"].null_count < table.num_rows


def test_with_tokens_must_be_a_bool(net: Devnet) -> None:
    with pytest.raises(ConfigError, match="with_tokens must be True or False, got 'yes'"):
        hmyframe.token_transfers(0, 10, rpc=net, cache=False, with_tokens="yes")  # type: ignore[arg-type]
