"""``hmyframe.tokens`` over real HTTP against the devnet: every token variant against the chain's
own truth (its token specs, its ``call`` answers and ledger), the v1 / v2 / eth namespaces, the
legacy profile, the per-block cache (re-reads send nothing), batching, and one-line errors."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import hmyframe
from hmyframe.addresses import to_one
from hmyframe.amounts import Uint256Dtype
from hmyframe.devnet import Chain, Devnet, DevnetStats
from hmyframe.engine import FetchOptions, Session
from hmyframe.engine._tokens import fetch_tokens
from hmyframe.errors import AddressError, ConfigError, MethodNotFoundError

AT = 150
TOTAL_SUPPLY = "0x18160ddd"
#: A devnet busy with tokens (the session devnet's default density mints little by block 150).
TOKEN_NET = {"blocks": 200, "seed": 11, "token_density": 3}


@pytest.fixture(scope="module")
def net() -> Iterator[Devnet]:
    with Devnet(**TOKEN_NET, validator_rate_limit=False) as devnet:
        yield devnet


@pytest.fixture(scope="module")
def truth() -> Chain:
    """A chain identical to ``net``'s (same parameters, same objects), for the expected values."""
    return Chain(**TOKEN_NET)


@pytest.fixture
def stats(net: Devnet) -> DevnetStats:
    net.stats.reset()
    return net.stats


def expected_row(chain: Chain, shard: int, address: str, block: int) -> dict[str, Any]:
    """What the tokens row must say, from the chain's token spec and its own call answers."""
    token = chain.token(address)
    if token is None:
        assert chain.code(shard, address, block) == "0x"
        return dict.fromkeys(("name", "symbol", "decimals", "total_supply"), None) | {
            "is_contract": False,
            "reason": "no contract code",
        }
    reasons: list[str] = []

    def text(function: str, value: bytes, kind: str) -> str | None:
        if kind == "revert":
            reasons.append(f"{function}() reverted: {value.decode()}")
            return None
        if kind == "none":
            reasons.append(f"{function}() missing")
            return None
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            reasons.append(f"{function} not UTF-8")
            return None

    name = text("name", token.name, token.name_kind)
    symbol = text("symbol", token.symbol, token.symbol_kind)
    if token.decimals is None:
        reasons.append("decimals() missing")
    result, revert = chain.call(shard, address, TOTAL_SUPPLY, block)
    assert revert is None
    supply = None if result == "0x" else int(result, 16)
    if supply is None:
        reasons.append("totalSupply() missing")
    return {
        "name": name,
        "symbol": symbol,
        "decimals": token.decimals,
        "total_supply": supply,
        "is_contract": True,
        "reason": "; ".join(reasons) or None,
    }


def rows(df: Any) -> dict[str, dict[str, Any]]:
    """Fetched rows by 0x address, as plain Python (total_supply an exact int, nulls None)."""
    keep = ("name", "symbol", "decimals", "total_supply", "is_contract", "reason")
    return {r["address_hex"]: {k: r[k] for k in keep} for r in clean(df)}


def clean(df: Any) -> list[dict[str, Any]]:
    """Arrow-free comparison form of a tokens frame (pd.NA -> None)."""
    return [
        {k: (None if v is None or v != v else v) for k, v in r.items()}
        for r in df.astype(object).to_dict("records")
    ]


@pytest.mark.parametrize("shard", [0, 1])
def test_every_token_variant_equals_the_chain(net: Devnet, truth: Chain, shard: int) -> None:
    tokens = truth.tokens(shard)
    assert len(tokens) == 8
    account = truth.token_holder(5)
    # one1 and 0x forms mixed; the account has no code at all
    asked = [to_one(t.address) if i % 2 else t.address for i, t in enumerate(tokens)] + [account]
    df = hmyframe.tokens(asked, AT, shard, rpc=net, cache=False)
    assert df.attrs["block"] == AT
    assert isinstance(df["total_supply"].dtype, Uint256Dtype)
    assert df["block_number"].tolist() == [AT] * 9
    assert df["shard_id"].tolist() == [shard] * 9
    assert df["address"].tolist() == sorted(df["address"].tolist())
    got = rows(df)
    for address in [t.address for t in tokens] + [account]:
        assert got[address] == expected_row(truth, shard, address, AT), address
    by_symbol = {r["symbol"]: r for r in got.values() if r["symbol"]}
    # the variants, spelled out: bytes32 decoded, reverting / non-UTF-8 name null with its reason
    assert by_symbol["B32"]["name"] == "Bytes Thirty Two"
    assert got[tokens[3].address]["reason"] == "name() reverted: name is disabled"
    assert by_symbol["CAFE"]["reason"] == "name not UTF-8"
    assert by_symbol["NODEC"]["reason"] == "decimals() missing"
    assert got[tokens[7].address]["reason"] == (
        "name() missing; symbol() missing; decimals() missing; totalSupply() missing"
    )
    # the HRC-20 supplies are the ledger's (the token activity's and the exchange's mints),
    # exact far beyond 2**128 (HUGE)
    for token in tokens[:6]:
        assert got[token.address]["total_supply"] == truth.token_balances(shard, token.address, AT)[0]
    huge = by_symbol["HUGE"]["total_supply"]
    assert huge > 2**128
    assert df.loc[df["symbol"] == "HUGE", "total_supply"].sum() == huge


def test_v1_v2_and_eth_namespaces_agree(net: Devnet, truth: Chain, stats: DevnetStats) -> None:
    addresses = [t.address for t in truth.tokens(0)]
    v2 = hmyframe.tokens(addresses, AT, rpc=net, cache=False)
    assert stats.calls_of("hmyv2_call") == 32
    assert stats.calls_of("hmyv2_getCode") == 8
    v1 = hmyframe.tokens(addresses, AT, rpc=net, cache=False, options=FetchOptions(version=1))
    assert stats.calls_of("hmy_call") == 32
    assert stats.calls_of("hmy_getCode") == 8

    async def eth() -> Any:
        async with Session(net, cache=False) as session:
            return await fetch_tokens(session, addresses, AT, namespace="eth")

    at, table = asyncio.run(eth())
    assert at == AT
    assert stats.calls_of("eth_call") == 32
    assert clean(v1) == clean(v2) == clean(hmyframe.datasets.to_pandas(table))


def test_calls_are_batched(net: Devnet, truth: Chain, stats: DevnetStats) -> None:
    addresses = [t.address for t in truth.tokens(1)]
    hmyframe.tokens(addresses, AT, 1, rpc=net, cache=False)
    assert stats.calls == 40 + 1  # five calls per token, and the head check
    assert stats.http_requests <= 3


def test_cache_rereads_send_no_request(net: Devnet, truth: Chain, stats: DevnetStats, tmp_path: Path) -> None:
    tokens = [t.address for t in truth.tokens(0)]
    first = hmyframe.tokens(tokens[:3], AT, rpc=net, cache=tmp_path)
    assert stats.calls_of("hmyv2_call") == 12
    stats.reset()
    again = hmyframe.tokens([to_one(a) for a in tokens[:3]], AT, rpc=net, cache=tmp_path)
    assert stats.http_requests == 0
    assert clean(again) == clean(first)
    # a superset asks for the new tokens only, and the file then holds all eight
    everything = hmyframe.tokens(tokens, AT, rpc=net, cache=tmp_path)
    assert stats.calls_of("hmyv2_call") == 5 * 4
    assert stats.calls_of("hmyv2_getCode") == 5
    assert len(everything) == 8
    stats.reset()
    subset = hmyframe.tokens(tokens[5:] + tokens[:1], AT, rpc=net, cache=tmp_path, output="arrow")
    assert stats.http_requests == 0
    assert subset.num_rows == 4
    files = sorted(p.name for p in tmp_path.rglob("*.parquet"))
    assert files == [f"tokens__at_{AT:010d}.parquet"]
    # block=None: only the head is asked, then the head's file serves the rows
    head = truth.head(0)
    hmyframe.tokens(tokens[:2], rpc=net, cache=tmp_path)
    stats.reset()
    at_head = hmyframe.tokens(tokens[:2], rpc=net, cache=tmp_path)
    assert at_head.attrs["block"] == head
    assert stats.calls == 1
    assert stats.calls_of("hmyv2_blockNumber") == 1
    # another block is another file and other supplies
    earlier = hmyframe.tokens(tokens[:1], 20, rpc=net, cache=tmp_path)
    assert earlier["total_supply"].iloc[0] == int(truth.call(0, tokens[0], TOTAL_SUPPLY, 20)[0], 16)


@pytest.mark.parametrize("version", [1, 2])
def test_legacy_profile_node(make_devnet: Any, version: int) -> None:
    net = make_devnet(blocks=80, seed=11, token_density=3, profile="legacy", validator_rate_limit=False)
    chain = net.chain
    tokens = [t.address for t in chain.tokens(0)]
    df = hmyframe.tokens(tokens, 60, rpc=net, cache=False, options=FetchOptions(version=version))
    got = rows(df)
    for address in tokens:
        assert got[address] == expected_row(chain, 0, address, 60)

    async def eth() -> Any:
        async with Session(net, cache=False) as session:
            return await fetch_tokens(session, tokens, 60, namespace="eth")

    with pytest.raises(MethodNotFoundError, match="eth_"):
        asyncio.run(eth())


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda net: hmyframe.tokens(["0x1234"], 5, rpc=net), AddressError, "0x1234"),
        (lambda net: hmyframe.tokens(["one1notanaddress"], 5, rpc=net), AddressError, "one1notanaddress"),
        (lambda net: hmyframe.tokens([], 5, rpc=net), ConfigError, "at least one token address"),
        (lambda net: hmyframe.tokens([7], 5, rpc=net), AddressError, "7"),
        (
            lambda net: hmyframe.tokens(["0x" + "ab" * 20], -1, rpc=net),
            ConfigError,
            "block must be a non-negative integer, got -1",
        ),
        (
            lambda net: hmyframe.tokens(["0x" + "ab" * 20], "latest", rpc=net),
            ConfigError,
            "block must be a non-negative integer, got 'latest'",
        ),
        (
            lambda net: hmyframe.tokens(["0x" + "ab" * 20], 5, shard=-2, rpc=net),
            ConfigError,
            "shard must be a non-negative integer, got -2",
        ),
    ],
)
def test_bad_input_is_one_line_before_any_request(
    net: Devnet, stats: DevnetStats, call: Any, error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as caught:
        call(net)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)
    assert stats.http_requests == 0


def test_a_block_beyond_the_head_is_named(net: Devnet, truth: Chain, tmp_path: Path) -> None:
    head = truth.head(0)
    with pytest.raises(ConfigError, match=f"block {head + 50} is beyond the head {head} of shard 0"):
        hmyframe.tokens([truth.tokens(0)[0].address], head + 50, rpc=net, cache=tmp_path)
    assert not list(tmp_path.rglob("*.parquet"))


def test_progress_read_back_and_fetch_by_name(net: Devnet, truth: Chain, tmp_path: Path) -> None:
    tokens = [t.address for t in truth.tokens(0)]
    steps: list[int] = []
    df = hmyframe.tokens(tokens, 40, rpc=net, cache=tmp_path, progress=steps.append)
    assert sum(steps) == len(tokens)
    # the cache file reads back as the fetch (exact supplies in the uint256 dtype)
    back = hmyframe.read("tokens", tmp_path)
    assert clean(back) == clean(df)
    assert isinstance(back["total_supply"].dtype, Uint256Dtype)
    with (
        pytest.deprecated_call(),  # (the deprecated door by name still says where to go)
        pytest.raises(ConfigError, match=r"point lookup.*use hmyframe\.tokens\(\)"),
    ):
        hmyframe.fetch("tokens", 0, 9, rpc=net)
