"""Provenance: every file's footer says which hmyframe wrote it, when and from which endpoint
(redacted) its rows were fetched, and the node's version; no secret is ever written."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import hmyframe
from hmyframe._provenance import Provenance, footer, from_footer, redact_endpoint, summary
from hmyframe.cache import Cache
from hmyframe.cli import main
from hmyframe.devnet import Devnet
from hmyframe.devnet.eth import CLIENT_VERSION
from hmyframe.engine import FetchOptions, Session
from hmyframe.engine._ranges import fetch_range
from hmyframe.rpc import Client

CHAIN = "0123456789abcdef"

# planted secrets: userinfo, a key-like path segment, a query token, a key-like host label is
# checked by the unit test (a devnet is reached by IP), and a header
SECRETS = {
    "userinfo": "pw-Hunter2secret",
    "path": "Zq3pathKeyAbCdEfGh9876",
    "query": "QueryTok3nS3cretValue",
    "fragment": "FragS3cretValue",
    "header": "HeaderB3arerS3cret",
}


def _secret_url(url: str) -> str:
    host = url.removeprefix("http://").rstrip("/")
    return (
        f"http://alice:{SECRETS['userinfo']}@{host}/{SECRETS['path']}"
        f"?apikey={SECRETS['query']}#{SECRETS['fragment']}"
    )


def _written_bytes(folder: Path) -> bytes:
    files = [p for p in folder.rglob("*") if p.is_file()]
    assert files
    return b"".join(p.read_bytes() for p in files)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://u:pw@127.0.0.1:9500/", "http://***@127.0.0.1:9500/"),
        ("https://api.s0.t.hmny.io", "https://api.s0.t.hmny.io"),
        ("https://rpc.example.com/rpc?apikey=abc&x", "https://rpc.example.com/rpc?apikey=***&***"),
        ("https://rpc.example.com/v3/0123456789abcdef0123456789abcdef", "https://rpc.example.com/v3/***"),
        ("https://rpc.example.com/token/short", "https://rpc.example.com/token/***"),
        ("https://a1b2c3d4e5f6a7b8c9d0.rpc.example.com/", "https://***.rpc.example.com/"),
        ("https://harmony-mainnet.core.example.com:8443/", "https://harmony-mainnet.core.example.com:8443/"),
        ("http://[::1]:9500/x#frag", "http://[::1]:9500/x#***"),
    ],
)
def test_endpoints_are_recorded_with_every_secret_redacted(url: str, shown: str) -> None:
    assert redact_endpoint(url) == shown


def test_a_fetch_records_version_time_endpoint_and_node_and_writes_no_secret(
    make_devnet: Callable[..., Devnet], tmp_path: Path
) -> None:
    net = make_devnet(shards=1, blocks=150, seed=61, validator_rate_limit=False)
    url = _secret_url(net.url)
    cache = tmp_path / "cache"
    before = dt.datetime.now(dt.UTC)

    async def fetch() -> pd.DataFrame:
        async with Client(url, headers={"X-Api-Key": SECRETS["header"]}) as client:
            await hmyframe.aio.validators(rpc=client, cache=cache)
            return await hmyframe.aio.transactions(0, 99, rpc=client, cache=cache)

    tx = asyncio.run(fetch())
    export = tmp_path / "export"
    hmyframe.export(["blocks"], 0, 49, rpc=url, out=export)
    after = dt.datetime.now(dt.UTC)
    assert net.stats.total().calls_of("web3_clientVersion") >= 1
    files = sorted([*cache.rglob("*.parquet"), *export.rglob("*.parquet")])
    assert len(files) >= 7  # blocks, transactions, staking transactions; 4 snapshots; the export
    host = net.url.removeprefix("http://").rstrip("/")
    for path in files:
        record = from_footer(pq.read_metadata(path).metadata)
        assert record["version"] == hmyframe.__version__
        assert record["node_version"] == CLIENT_VERSION
        assert record["endpoint"] == f"http://***@{host}/***?apikey=***#***", path
        when = dt.datetime.fromisoformat(record["fetched_at"])
        assert before - dt.timedelta(milliseconds=1) <= when <= after, path
    for folder in (cache, export):
        written = _written_bytes(folder)
        for where, secret in SECRETS.items():
            assert secret.encode() not in written, where
    # read(...).attrs says it too: one source, every file of the read
    attrs = hmyframe.read("transactions", cache).attrs["provenance"]
    assert len(attrs) == 1
    assert attrs[0]["endpoint"] == f"http://***@{host}/***?apikey=***#***"
    assert attrs[0]["node_version"] == CLIENT_VERSION
    assert attrs[0]["hmyframe_version"] == hmyframe.__version__
    assert attrs[0]["files"] == 1
    assert len(tx) == len(hmyframe.read("transactions", cache))


def test_cache_ls_verbose_shows_each_files_provenance_without_secrets(
    make_devnet: Callable[..., Devnet], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    net = make_devnet(shards=1, blocks=150, seed=62, validator_rate_limit=False)
    cache = tmp_path / "cache"
    hmyframe.transactions(0, 59, rpc=_secret_url(net.url), cache=cache)  # its blocks are kept too
    capsys.readouterr()
    assert main(["cache", "ls", "--dir", str(cache), "--verbose"]) == 0
    out = capsys.readouterr().out
    assert "FETCHED (UTC)" in out
    host = net.url.removeprefix("http://").rstrip("/")
    for name in ("blocks", "transactions", "staking_transactions"):
        line = next(line for line in out.splitlines() if f"/{name}__0000000000_0000000059.parquet" in line)
        assert line.split()[1] == hmyframe.__version__
        assert dt.datetime.fromisoformat(line.split()[0]).tzinfo == dt.UTC
    assert out.count(f"from http://***@{host}/***?apikey=***#*** ({CLIENT_VERSION})") == 3
    for secret in SECRETS.values():
        assert secret not in out
    assert main(["cache", "ls", "--dir", str(cache)]) == 0
    assert "FETCHED" not in capsys.readouterr().out  # only with --verbose


def test_a_node_without_web3_client_version_still_fetches_and_records_the_rest(
    make_devnet: Callable[..., Devnet], tmp_path: Path
) -> None:
    net = make_devnet(
        shards=1,
        blocks=150,
        seed=63,
        faults="rpc_error=-32601,message=the method web3_clientVersion does not exist,method=web3_clientVersion",
    )
    hmyframe.blocks(0, 29, rpc=net.url, cache=tmp_path)
    assert net.stats.total().calls_of("web3_clientVersion") == 1
    for path in tmp_path.rglob("*.parquet"):
        record = from_footer(pq.read_metadata(path).metadata)
        assert "node_version" not in record
        assert record["endpoint"] == net.url.rstrip("/")
        assert record["version"] == hmyframe.__version__


def test_the_node_is_asked_its_version_once_per_endpoint_and_not_for_cache_hits(
    make_devnet: Callable[..., Devnet], tmp_path: Path
) -> None:
    net = make_devnet(shards=1, blocks=300, seed=64)
    for start in (0, 100, 200):
        hmyframe.blocks(start, start + 49, rpc=net.url, cache=tmp_path)
    assert net.stats.total().calls_of("web3_clientVersion") == 1
    net.stats.reset()
    hmyframe.blocks(0, 49, rpc=net.url, cache=tmp_path)
    assert net.stats.http_requests == 0


def test_a_direct_write_records_the_version_and_the_time_of_writing(tmp_path: Path) -> None:
    ds = hmyframe.dataset("blocks")
    before = dt.datetime.now(dt.UTC)
    path = Cache(tmp_path).write_range(CHAIN, ds, 0, 0, 0, ds.schema.empty_table())
    assert path is not None
    record = from_footer(pq.read_metadata(path).metadata)
    assert set(record) == {"version", "fetched_at"}
    assert before - dt.timedelta(milliseconds=1) <= dt.datetime.fromisoformat(record["fetched_at"])


def test_summary_groups_files_by_source_with_their_time_span() -> None:
    a = {"version": "0.1.0", "endpoint": "http://a", "fetched_at": "2026-01-02T00:00:00.000Z"}
    records = [
        a,
        {**a, "fetched_at": "2026-01-01T00:00:00.000Z"},
        {**a, "endpoint": "http://b"},
        {},  # a file written before provenance was kept
    ]
    assert summary(records) == [
        {
            "hmyframe_version": "0.1.0",
            "endpoint": "http://a",
            "node_version": None,
            "first_fetched": "2026-01-01T00:00:00.000Z",
            "last_fetched": "2026-01-02T00:00:00.000Z",
            "files": 2,
        },
        {
            "hmyframe_version": "0.1.0",
            "endpoint": "http://b",
            "node_version": None,
            "first_fetched": "2026-01-02T00:00:00.000Z",
            "last_fetched": "2026-01-02T00:00:00.000Z",
            "files": 1,
        },
    ]
    written = footer(None)
    assert from_footer(written)["version"] == hmyframe.__version__
    assert from_footer(pa.schema([]).metadata) == {}


def test_several_endpoints_are_all_named(make_devnet: Callable[..., Devnet], tmp_path: Path) -> None:
    one = make_devnet(shards=1, blocks=150, seed=65, validator_rate_limit=False)
    two = make_devnet(shards=1, blocks=150, seed=65, validator_rate_limit=False)  # the same chain
    hmyframe.blocks(0, 29, rpc=[_secret_url(one.url), two.url], cache=tmp_path)
    hosts = [net.url.removeprefix("http://").rstrip("/") for net in (one, two)]
    for path in tmp_path.rglob("*.parquet"):
        record = from_footer(pq.read_metadata(path).metadata)
        assert record["endpoint"] == f"http://***@{hosts[0]}/***?apikey=***#*** http://{hosts[1]}"
        assert record["node_version"] == CLIENT_VERSION
    for secret in SECRETS.values():
        assert secret.encode() not in _written_bytes(tmp_path)


def test_a_record_made_by_hand_is_redacted_when_written() -> None:
    record = Provenance(
        endpoints=(
            "https://u:Pw1@a1b2c3d4e5f6a7b8c9d0.example.com/rpc?apikey=Tok3n Part2",
            "http://b/token/Xy",
        ),
        node_version="v1",
        fetched_at=dt.datetime(2026, 1, 2, 3, 4, 5, 678_000, tzinfo=dt.UTC),
    )
    written = footer(record)
    assert from_footer(written) == {
        "version": hmyframe.__version__,
        "fetched_at": "2026-01-02T03:04:05.678Z",
        "endpoint": "https://***@***.example.com/rpc?apikey=*** http://b/token/***",
        "node_version": "v1",
    }
    for secret in (b"Pw1", b"a1b2c3d4", b"Tok3n", b"Part2", b"Xy"):
        assert all(secret not in value for value in written.values())


def test_a_followers_tail_keeps_its_rows_provenance_into_the_chunk_file(
    make_devnet: Callable[..., Devnet], tmp_path: Path
) -> None:
    net = make_devnet(shards=1, blocks=150, seed=66, validator_rate_limit=False)
    url = _secret_url(net.url)

    async def follow_like() -> list[str]:
        stamps = []
        async with Session(url, cache=tmp_path, options=FetchOptions(chunk_size=100)) as session:
            for n in range(5):  # a batch per block, as a follower writes them: one tail grows
                await fetch_range(session, ["blocks"], n, n, 0, collect=False, tails=True)
                (tail,) = tmp_path.rglob("blocks__*.parquet")  # noqa: ASYNC240
                assert tail.name == "blocks__0000000000_tail.parquet"
                stamps.append(from_footer(pq.read_metadata(tail).metadata)["fetched_at"])
            await fetch_range(session, ["blocks"], 5, 99, 0, collect=False, tails=True)  # completes it
        return stamps

    stamps = asyncio.run(follow_like())
    assert stamps == sorted(stamps)
    (merged,) = tmp_path.rglob("blocks__*.parquet")
    assert merged.name == "blocks__0000000000_0000000099.parquet"
    record = from_footer(pq.read_metadata(merged).metadata)
    host = net.url.removeprefix("http://").rstrip("/")
    assert record["endpoint"] == f"http://***@{host}/***?apikey=***#***"
    assert record["node_version"] == CLIENT_VERSION
    assert record["fetched_at"] >= stamps[-1]  # when its last rows were fetched
    for secret in SECRETS.values():
        assert secret.encode() not in _written_bytes(tmp_path)


def test_under_a_request_rate_cap_the_node_version_costs_no_request(
    make_devnet: Callable[..., Devnet], tmp_path: Path
) -> None:
    net = make_devnet(shards=1, blocks=150, seed=67, validator_rate_limit=False)
    hmyframe.blocks(0, 29, rpc=net.url, cache=tmp_path, options=FetchOptions(requests_per_second=200.0))
    assert net.stats.total().calls_of("web3_clientVersion") == 0
    for path in tmp_path.rglob("*.parquet"):
        record = from_footer(pq.read_metadata(path).metadata)
        assert set(record) == {"version", "fetched_at", "endpoint"}
        assert record["endpoint"] == net.url.rstrip("/")
