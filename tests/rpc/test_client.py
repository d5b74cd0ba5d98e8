"""Client behaviour observed from the devnet's side: batching, in-flight bound, body split, routing, errors."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from hmyframe.devnet import Chain, Devnet, DevnetStats
from hmyframe.errors import (
    ConfigError,
    ConnectionFailedError,
    HmyframeError,
    HTTPStatusError,
    InvalidParamsError,
    MethodNotFoundError,
    RpcError,
)
from hmyframe.rpc import MAX_BODY_BYTES, Client, ShardInfo

# ---------------------------------------------------------------------------------- exactness


async def test_big_integer_survives_to_the_last_digit(client: Client, devnet_truth: Chain) -> None:
    tx = max(devnet_truth.iter_transactions(0, 0, devnet_truth.head(0)), key=lambda t: t.value)
    assert tx.value > 2**64
    got = await client.v2.get_transaction_by_hash(tx.hash)
    assert type(got["value"]) is int
    assert got["value"] == tx.value
    raw = await client.v2.get_transaction_by_hash_raw(tx.hash)
    assert f'"value":{tx.value}'.encode() in raw
    block = await client.request("hmyv2_getBlockByNumber", [tx.block_number, {"fullTx": True}])
    assert [t["value"] for t in block["transactions"] if t["hash"] == tx.hash] == [tx.value]


# ---------------------------------------------------------------------------------- batching


async def test_concurrent_requests_are_coalesced(
    open_client: Callable[..., Client], devnet: Devnet, devnet_truth: Chain, devnet_stats: DevnetStats
) -> None:
    async with open_client(devnet.url, batch_size=100) as c:
        blocks = await asyncio.gather(*(c.v2.get_block_by_number(n, full_tx=False) for n in range(250)))
        assert c.stats.http_requests == 3
        assert c.stats.batches == 3
        assert c.stats.calls == 250
    assert [b["hash"] for b in blocks] == [devnet_truth.block(0, n).hash for n in range(250)]
    total = devnet_stats.total()
    assert total.http_requests == 3
    assert dict(total.batch_sizes) == {100: 2, 50: 1}


async def test_a_lone_request_is_a_plain_object(client: Client, devnet_stats: DevnetStats) -> None:
    assert await client.v2.block_number() == 399
    assert devnet_stats.http_requests == 1
    assert devnet_stats.total().batches == 0


async def test_requests_to_different_endpoints_are_batched_per_endpoint(
    client: Client, devnet_stats: DevnetStats
) -> None:
    await client.shards()
    devnet_stats.reset()
    await asyncio.gather(
        *(client.v2.get_block_by_number(n, full_tx=False, shard=n % 2) for n in range(20)),
    )
    assert dict(devnet_stats.endpoint(0).batch_sizes) == {10: 1}
    assert dict(devnet_stats.endpoint(1).batch_sizes) == {10: 1}


async def test_explicit_batch_keeps_order_and_splits_by_size(
    open_client: Callable[..., Client], devnet: Devnet, devnet_truth: Chain, devnet_stats: DevnetStats
) -> None:
    calls = [("hmyv2_getBlockByNumber", [n, {"fullTx": False}]) for n in range(7)]
    async with open_client(devnet.url, batch_size=3) as c:
        blocks = await c.batch(calls)
    assert [b["hash"] for b in blocks] == [devnet_truth.block(0, n).hash for n in range(7)]
    total = devnet_stats.total()
    assert total.http_requests == 3
    assert dict(total.batch_sizes) == {3: 2}  # the 7th call went alone, as a plain object


async def test_explicit_batch_raw_and_return_exceptions(client: Client, devnet_stats: DevnetStats) -> None:
    results = await client.batch(
        [("hmyv2_blockNumber", []), ("hmyv2_nope", []), ("hmy_blockNumber", [])],
        raw=True,
        return_exceptions=True,
    )
    assert results[0] == b"399"
    assert isinstance(results[1], MethodNotFoundError)
    assert "hmyv2_nope" in str(results[1])
    assert results[2] == b'"0x18f"'
    assert dict(devnet_stats.total().batch_sizes) == {3: 1}


async def test_explicit_batch_raises_the_first_error(client: Client) -> None:
    with pytest.raises(InvalidParamsError, match="hmyv2_getBlockByNumber"):
        await client.batch([("hmyv2_blockNumber", []), ("hmyv2_getBlockByNumber", [1])])


async def test_batch_answers_are_matched_by_id_when_shuffled(
    make_devnet: Callable[..., Devnet], open_client: Callable[..., Client]
) -> None:
    net = make_devnet(blocks=60, seed=11, validator_rate_limit=False, faults="shuffle")
    async with open_client(net.url) as c:
        numbers = list(range(40))
        blocks = await asyncio.gather(*(c.v1.get_block_by_number(n, full_tx=False) for n in numbers))
        explicit = await c.batch([("hmyv2_getBlockByNumber", [n, {}]) for n in numbers])
    assert [b["number"] for b in blocks] == [hex(n) for n in numbers]
    assert [b["number"] for b in explicit] == numbers
    assert net.stats.total().faults["shuffle"] == 2


async def test_per_method_batch_caps(client: Client, devnet_truth: Chain, devnet_stats: DevnetStats) -> None:
    traced = await asyncio.gather(*(client.trace_block_raw(n) for n in range(45)))
    assert len(traced) == 45
    trace_stats = devnet_stats.endpoint(0, trace=True)
    assert dict(trace_stats.batch_sizes) == {20: 2, 5: 1}  # trace_block: at most 20 per batch
    devnet_stats.reset()
    # other calls queued at the same time share a lane with each other, not with getBlocks
    await asyncio.gather(
        *(client.v2.get_blocks(n, n + 1) for n in range(0, 6, 2)),
        *(client.v2.get_block_by_number(n, full_tx=False) for n in range(4)),
        client.v1.block_number(),
    )
    total = devnet_stats.total()
    assert dict(total.batch_sizes) == {5: 1}
    assert total.http_requests == 4


async def test_batch_limits_can_be_changed(
    open_client: Callable[..., Client], devnet: Devnet, devnet_stats: DevnetStats
) -> None:
    async with open_client(
        devnet.url, trace_url=devnet.trace_url, batch_limits={"trace_block": 1, "hmyv2_getBlocks": 4}
    ) as c:
        await asyncio.gather(*(c.trace_block_raw(n) for n in range(3)))
        await asyncio.gather(*(c.v2.get_blocks_raw(n, n) for n in range(8)))
        batched = await c.batch([("hmyv2_getBlocks", [n, n, {}]) for n in range(6)])
    assert [b[0]["number"] for b in batched] == list(range(6))
    assert devnet_stats.endpoint(0, trace=True).batches == 0
    assert dict(devnet_stats.endpoint(0).batch_sizes) == {4: 3, 2: 1}


async def test_ids_are_unique_per_client(client: Client) -> None:
    seen: set[int] = set()
    for _ in range(3):
        made = [client._make_call("hmyv2_blockNumber", [], False) for _ in range(50)]
        seen.update(c.id for c in made)
    assert len(seen) == 150


# ---------------------------------------------------------------------------------- politeness


@pytest.mark.parametrize("limit", [1, 3])
async def test_in_flight_bound_seen_by_the_server(
    make_devnet: Callable[..., Devnet], open_client: Callable[..., Client], limit: int
) -> None:
    net = make_devnet(blocks=50, seed=2, latency_ms=30, validator_rate_limit=False)
    async with open_client(net.url, max_in_flight=limit, batch_size=1) as c:
        await asyncio.gather(*(c.v2.get_block_by_number(n % 50, full_tx=False) for n in range(24)))
        assert c.stats.max_in_flight == limit
    total = net.stats.total()
    assert total.http_requests == 24
    assert total.max_in_flight == limit  # reached, never exceeded


async def test_requests_per_second_spaces_http_requests(
    open_client: Callable[..., Client], devnet: Devnet, devnet_stats: DevnetStats
) -> None:
    loop = asyncio.get_running_loop()
    async with open_client(devnet.url, requests_per_second=20.0, batch_size=1) as c:
        start = loop.time()
        await asyncio.gather(*(c.v2.block_number() for _ in range(5)))
        elapsed = loop.time() - start
    # a token bucket of 20/s with burst 1: the 5th request cannot start before 4/20 s
    assert elapsed >= 4 / 20 - 0.01
    assert devnet_stats.http_requests == 5


async def test_bodies_are_split_under_5_mib(
    open_client: Callable[..., Client], devnet: Devnet, devnet_stats: DevnetStats
) -> None:
    filler = "f" * (600 * 1024)  # each call ~600 KiB encoded: 20 of them are ~12 MiB
    calls = [("hmyv2_getTransactionByHash", [filler]) for _ in range(20)]
    async with open_client(devnet.url) as c:
        results = await c.batch(calls, return_exceptions=True)
        auto = await asyncio.gather(*(c.request(m, p) for m, p in calls), return_exceptions=True)
    assert [str(r)[-300:] for r in [*results, *auto] if not isinstance(r, InvalidParamsError)] == []
    total = devnet_stats.total()
    assert 413 not in total.by_status
    assert total.by_status[200] == total.http_requests
    per_request = MAX_BODY_BYTES // len(calls[0][1][0])
    assert total.http_requests == 2 * -(-20 // per_request)
    assert total.bytes_in <= total.http_requests * MAX_BODY_BYTES


async def test_a_single_call_over_the_body_limit_is_refused(
    client: Client, devnet_stats: DevnetStats
) -> None:
    with pytest.raises(ConfigError, match=r"hmyv2_getTransactionByHash.*5242880-byte body limit"):
        await client.request("hmyv2_getTransactionByHash", ["x" * MAX_BODY_BYTES])
    assert devnet_stats.http_requests == 0


# ---------------------------------------------------------------------------------- routing


async def test_shards_and_home_shard(open_client: Callable[..., Client], devnet: Devnet) -> None:
    async with open_client(devnet.urls[1]) as c:
        shards = await c.shards()
        assert await c.home_shard() == 1
        assert shards == [
            ShardInfo(0, devnet.urls[0], devnet.ws_urls[0], False),
            ShardInfo(1, devnet.urls[1], devnet.ws_urls[1], True),
        ]
        assert await c.endpoint_url(0) == devnet.urls[0]
        assert await c.endpoint_url(1) == devnet.urls[1]
        assert await c.endpoint_url() == devnet.urls[1]


async def test_sharding_structure_is_fetched_once(client: Client, devnet_stats: DevnetStats) -> None:
    await asyncio.gather(*(client.v2.block_number(shard=1) for _ in range(5)), client.home_shard())
    assert devnet_stats.endpoint(0).calls_of("hmy_getShardingStructure") == 1
    # and shard 1's node is asked once for its own, to check that it belongs to this network
    assert devnet_stats.endpoint(1).calls_of("hmy_getShardingStructure") == 1
    assert devnet_stats.endpoint(1).calls_of("hmyv2_blockNumber") == 5


async def test_shard_urls_override_needs_no_sharding_structure(
    open_client: Callable[..., Client], devnet: Devnet, devnet_stats: DevnetStats
) -> None:
    async with open_client(devnet.url, shard_urls={1: devnet.urls[1]}) as c:
        assert await c.v1.block_number(shard=1) == "0x18f"
    assert devnet_stats.calls_of("hmy_getShardingStructure") == 0
    assert devnet_stats.endpoint(1).http_requests == 1


async def test_unknown_shard_is_a_config_error(client: Client) -> None:
    with pytest.raises(ConfigError, match=r"shard 5 is not served.*\[0, 1\]"):
        await client.v2.block_number(shard=5)
    with pytest.raises(ConfigError, match="got -1"):
        await client.v2.block_number(shard=-1)


async def test_trace_url_routing_errors(
    open_client: Callable[..., Client], devnet: Devnet, devnet_stats: DevnetStats
) -> None:
    async with open_client(devnet.url) as no_trace:
        with pytest.raises(ConfigError, match=r"traces of shard home need a trace endpoint.*--trace-rpc"):
            await no_trace.trace_block(3)
    async with open_client(devnet.url, trace_url=devnet.trace_url) as home_only:
        assert isinstance(await home_only.trace_block(3), list)
        with pytest.raises(ConfigError, match="no trace endpoint for shard 1"):
            await home_only.trace_block(3, shard=1)
    async with open_client(devnet.url, trace_url={1: devnet.trace_urls[1]}) as shard1_only:
        assert isinstance(await shard1_only.trace_block(3, shard=1), list)
        with pytest.raises(
            ConfigError, match=r"no trace endpoint for shard 0: trace URLs are given for shards \[1\]"
        ):
            await shard1_only.trace_block(3)
    assert devnet_stats.endpoint(0, trace=True).calls_of("trace_block") == 1
    assert devnet_stats.endpoint(1, trace=True).calls_of("trace_block") == 1


# ---------------------------------------------------------------------------------- errors


async def test_unknown_method_is_not_retried(client: Client, devnet_stats: DevnetStats) -> None:
    with pytest.raises(MethodNotFoundError) as info:
        await client.request("hmyv2_doesNotExist", [1, "two"])
    err = info.value
    assert err.code == -32601
    assert err.method == "hmyv2_doesNotExist"
    assert err.params == [1, "two"]
    assert "hmyv2_doesNotExist([1, 'two'])" in str(err)
    assert client.url in str(err)
    assert devnet_stats.http_requests == 1
    assert client.stats.total_retries == 0


async def test_http_error_status_names_method_params_and_endpoint(
    make_devnet: Callable[..., Devnet], open_client: Callable[..., Client]
) -> None:
    net = make_devnet(blocks=20, seed=4, validator_rate_limit=False, faults="status=500,times=1")
    async with open_client(net.url) as c:
        with pytest.raises(HTTPStatusError) as info:
            await c.v2.get_block_by_number(3)
    assert info.value.status == 500
    assert "hmyv2_getBlockByNumber([3, {" in str(info.value)
    assert net.url in str(info.value)
    assert net.stats.http_requests == 1  # 500 is not in retry_statuses


async def test_wrong_content_type_is_an_http_error(
    open_client: Callable[..., Client], devnet: Devnet, devnet_stats: DevnetStats
) -> None:
    async with open_client(devnet.url, headers={"Content-Type": "text/plain"}) as c:
        with pytest.raises(HTTPStatusError, match=r"415.*only application/json"):
            await c.v2.block_number()


async def test_closing_the_client_fails_pending_calls(
    make_devnet: Callable[..., Devnet], open_client: Callable[..., Client]
) -> None:
    net = make_devnet(blocks=20, seed=4, validator_rate_limit=False, latency_ms=300)
    c = open_client(net.url)
    await c.__aenter__()
    pending = asyncio.ensure_future(c.v2.block_number())
    await asyncio.sleep(0.1)  # the request is now waiting on the devnet's 300 ms latency
    assert net.stats.total().in_flight == 1
    await c.aclose()
    with pytest.raises(ConnectionFailedError, match="closed"):
        await pending


async def test_connection_refused_after_retries(open_client: Callable[..., Client]) -> None:
    async with open_client("http://127.0.0.1:1") as c:
        with pytest.raises(ConnectionFailedError, match=r"cannot connect.*gave up after 6 attempts") as info:
            await c.v2.block_number()
        assert c.stats.retries["connect"] == 5
    assert info.value.method == "hmyv2_blockNumber([])"


SECRET_URLS = [
    "http://alice:hunter2@{host}/",
    "http://{host}/v3/0123456789abcdef0123456789abcdef",
    "http://{host}/?apikey=SUPERSECRETKEY&x=1",
]
SECRETS = ("hunter2", "0123456789abcdef0123456789abcdef", "SUPERSECRETKEY")


def _assert_redacted(err: BaseException) -> None:
    text = f"{err} {err!r} {getattr(err, 'endpoint', '')}"
    assert "***" in text
    for secret in SECRETS:
        assert secret not in text


@pytest.mark.parametrize("template", SECRET_URLS)
async def test_credentials_never_appear_in_messages(
    make_devnet: Callable[..., Devnet], open_client: Callable[..., Client], template: str
) -> None:
    net = make_devnet(blocks=20, seed=4, validator_rate_limit=False)
    host = net.url.removeprefix("http://")
    url = template.format(host=host)
    async with open_client(url) as c:
        assert await c.v2.block_number() == 19  # the devnet serves any path
        with pytest.raises(MethodNotFoundError) as rpc:
            await c.request("hmy_nope")
        _assert_redacted(rpc.value)
        net.faults.add("status", status=503, times=10)
        with pytest.raises(HTTPStatusError) as http:
            await c.v2.block_number()
        _assert_redacted(http.value)
        net.faults.clear()
        with pytest.raises(ConfigError) as config:
            await c.trace_block(1)
        assert "trace" in str(config.value)
    async with open_client(template.format(host="127.0.0.1:1")) as dead:
        with pytest.raises(ConnectionFailedError) as conn:
            await dead.v2.block_number()
        _assert_redacted(conn.value)
    with pytest.raises(ConfigError) as bad:
        Client(url.replace("http://", "ftp://"))
    _assert_redacted(bad.value)


# ---------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"url": "not a url"}, "url must be an http"),
        ({"url": 5}, "url must be an http"),
        ({"max_in_flight": 0}, "max_in_flight must be >= 1"),
        ({"max_in_flight": 2.5}, "max_in_flight must be an integer"),
        ({"batch_size": 0}, "batch_size"),
        ({"timeout": 0}, "timeout"),
        ({"requests_per_second": -1}, "requests_per_second"),
        ({"validator_pacing": (0, 3)}, "rate must be"),
        ({"validator_pacing": 1.0}, 'validator_pacing must be "auto"'),
        ({"validator_pacing": "fast"}, r"None \(never pace\), got 'fast'"),
        ({"trace_url": {"zero": "http://127.0.0.1:1"}}, "trace_url keys must be shard ids"),
        ({"shard_urls": {1: "ws://x"}}, r"shard_urls\[1\]"),
        ({"retry": {"attempts": 3}}, "retry must be a RetryPolicy"),
        ({"batch_limits": ["trace_block"]}, "batch_limits must be a mapping"),
        ({"batch_limits": {"trace_block": 0}}, "'trace_block': 0"),
    ],
)
def test_bad_client_settings(kwargs: dict[str, Any], needle: str) -> None:
    kwargs.setdefault("url", "http://127.0.0.1:9500")
    with pytest.raises(ConfigError, match=needle):
        Client(**kwargs)


async def test_bad_call_arguments(client: Client, devnet_stats: DevnetStats) -> None:
    with pytest.raises(ConfigError, match=r"params of hmyv2_blockNumber must be a list or tuple, got '0x1'"):
        await client.request("hmyv2_blockNumber", "0x1")
    with pytest.raises(ConfigError, match="method must be a non-empty string"):
        await client.request("")
    with pytest.raises(ConfigError, match=r"cannot be sent as JSON"):
        await client.request("hmyv2_blockNumber", [object()])
    with pytest.raises(ConfigError, match="batch item 1 must be a"):
        await client.batch([("hmyv2_blockNumber", []), "hmyv2_blockNumber"])  # type: ignore[list-item]
    with pytest.raises(ConfigError, match="batch"):
        await client.batch("hmyv2_blockNumber")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="full_tx must be True or False, got 'yes'"):
        await client.v2.get_block_by_number(1, full_tx="yes")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"block number must be between 0 and 2\*\*63-1, got -3"):
        await client.v2.get_block_by_number(-3)
    with pytest.raises(ConfigError, match=r"got 1\.5"):
        await client.trace_block(1.5)  # type: ignore[arg-type]
    assert await client.batch([]) == []
    assert devnet_stats.http_requests == 0


async def test_client_must_be_opened(devnet: Devnet) -> None:
    c = Client(devnet.url)
    with pytest.raises(ConfigError, match="async with Client"):
        await c.v2.block_number()


@pytest.mark.parametrize(
    ("method", "params", "cls", "needle"),
    [
        ("hmyv2_getBlockByNumber", [1, True], RpcError, "BlockArgs"),
        ("hmyv2_getBlockByNumber", [10**30, {}], InvalidParamsError, "larger than int64"),
        ("hmy_getBlocks", ["0x0", "0x500", {}], RpcError, "smaller than size 1024"),
    ],
)
async def test_node_errors_map_to_rpc_errors(
    client: Client, method: str, params: list[Any], cls: type[RpcError], needle: str
) -> None:
    with pytest.raises(cls, match=needle) as info:
        await client.request(method, params)
    assert isinstance(info.value, HmyframeError)
    assert info.value.method == method


async def test_stats_reset(client: Client) -> None:
    await client.v2.block_number()
    assert client.stats.http_requests == 1
    assert client.stats.bytes_received > 0
    client.stats.reset()
    assert (client.stats.http_requests, client.stats.calls, client.stats.bytes_received) == (0, 0, 0)


async def test_repr_is_redacted(open_client: Callable[..., Client], devnet: Devnet) -> None:
    c = open_client(devnet.url.replace("http://", "http://bob:hunter2@"))
    assert "hunter2" not in repr(c)
    assert "closed" in repr(c)
    async with c:
        assert "open" in repr(c)
        assert "hunter2" not in repr(c.v2)


@pytest.mark.parametrize(
    ("kwargs", "compressed"),
    [
        ({}, False),  # loopback: no gzip by default
        ({"compression": True}, True),
        ({"compression": False}, False),
        ({"headers": {"Accept-Encoding": "gzip"}}, True),  # the caller's header wins
    ],
)
async def test_compression(
    open_client: Callable[..., Client],
    devnet: Devnet,
    devnet_stats: DevnetStats,
    kwargs: dict[str, Any],
    compressed: bool,
) -> None:
    async with open_client(devnet.url, **kwargs) as c:
        blocks = await c.v2.get_blocks(0, 20)
        received = c.stats.bytes_received  # after decompression
    assert len(blocks) == 21
    on_the_wire = devnet_stats.total().bytes_out
    assert (on_the_wire < received / 2) is compressed
    assert (on_the_wire == received) is not compressed


def test_bad_compression_setting() -> None:
    with pytest.raises(ConfigError, match="compression must be True, False or None"):
        Client("http://127.0.0.1:9500", compression="gzip")  # type: ignore[arg-type]
