"""Fault injection, request statistics and rate limiters of the devnet, over real HTTP."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from typing import Any

import aiohttp
import pytest

from hmyframe.devnet import Devnet, FaultInjector, FaultRule, RateLimit, parse_fault_spec
from hmyframe.devnet.faults import RATE_LIMIT_MESSAGE
from hmyframe.devnet.node import TokenBucket
from hmyframe.devnet.stats import DevnetStats
from hmyframe.errors import ConfigError

JSON = {"Content-Type": "application/json"}
SMALL = {"blocks": 40, "seed": 3, "validators": 24}


def body(method: str = "hmyv2_blockNumber", params: Any = None, id_: Any = 1) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params or []}).encode()


async def post(
    http: aiohttp.ClientSession, url: str, data: bytes, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    async with http.post(url, data=data, headers=headers or JSON) as resp:
        return resp.status, dict(resp.headers), await resp.read()


def run(coro_factory: Callable[[aiohttp.ClientSession], Any]) -> Any:
    async def main() -> Any:
        async with aiohttp.ClientSession() as http:
            return await coro_factory(http)

    return asyncio.run(main())


# -- fault rules -----------------------------------------------------------------------------


def test_status_429_with_retry_after_for_next_two(make_devnet: Callable[..., Devnet]) -> None:
    net = make_devnet(**SMALL)
    rule_id = net.faults.add("status", status=429, retry_after=2, times=2)

    async def scenario(http: aiohttp.ClientSession) -> None:
        first = await post(http, net.url, body())
        assert first[0] == 429
        assert first[1]["Retry-After"] == "2"
        assert net.faults.remaining(rule_id) == 1
        assert (await post(http, net.url, body()))[0] == 429
        status, _, data = await post(http, net.url, body())
        assert status == 200
        assert json.loads(data)["result"] == 39

    run(scenario)
    assert len(net.faults) == 0
    total = net.stats.total()
    assert total.by_status == {429: 2, 200: 1}
    assert total.faults == {"status": 2}


def test_method_filter_and_batches(make_devnet: Callable[..., Devnet]) -> None:
    net = make_devnet(**SMALL)
    net.faults.add("status", status=503, method="hmyv2_getBlocks")

    async def scenario(http: aiohttp.ClientSession) -> None:
        assert (await post(http, net.url, body()))[0] == 200
        assert (await post(http, net.url, body("hmyv2_getBlocks", [0, 1, {}])))[0] == 503
        batch = json.dumps([json.loads(body()), json.loads(body("hmyv2_getBlocks", [0, 1, {}], 2))]).encode()
        assert (await post(http, net.url, batch))[0] == 503  # a batch matches when any item does
        net.faults.clear()
        assert (await post(http, net.url, body("hmyv2_getBlocks", [0, 1, {}])))[0] == 200

    run(scenario)


def test_probability_is_seeded(make_devnet: Callable[..., Devnet]) -> None:
    def pattern(seed: int) -> list[int]:
        net = make_devnet(
            **{**SMALL, "seed": seed}, faults=[FaultRule("status", status=500, probability=0.5)]
        )

        async def scenario(http: aiohttp.ClientSession) -> list[int]:
            return [(await post(http, net.url, body()))[0] for _ in range(24)]

        statuses: list[int] = run(scenario)
        return statuses

    a, b, c = pattern(4), pattern(4), pattern(5)
    assert a == b
    assert set(a) == {200, 500}
    assert a != c


def test_reset_truncate_delay(make_devnet: Callable[..., Devnet]) -> None:
    net = make_devnet(**SMALL)

    async def scenario(http: aiohttp.ClientSession) -> None:
        normal = (await post(http, net.url, body("hmyv2_getBlockByNumber", [3, {}])))[2]
        net.faults.add("reset", times=1)
        with pytest.raises(aiohttp.ClientError):
            await post(http, net.url, body())
        assert (await post(http, net.url, body()))[0] == 200
        net.faults.add("truncate", times=1)
        status, _, cut = await post(http, net.url, body("hmyv2_getBlockByNumber", [3, {}]))
        assert status == 200
        assert normal.startswith(cut)
        assert 0 < len(cut) < len(normal)
        with pytest.raises(json.JSONDecodeError):
            json.loads(cut)
        net.faults.add("delay", delay=0.05, times=1)
        assert (await post(http, net.url, body("hmyv2_getBlockByNumber", [3, {}])))[2] == normal

    run(scenario)
    total = net.stats.total()
    assert total.faults == {"reset": 1, "truncate": 1, "delay": 1}
    assert sum(total.by_status.values()) == total.http_requests - 1  # the reset got no answer


def test_shuffle_batch_answers(make_devnet: Callable[..., Devnet]) -> None:
    net = make_devnet(**SMALL)
    net.faults.add("shuffle")
    batch = json.dumps([json.loads(body("hmyv2_getBlockByNumber", [n, {}], n)) for n in range(12)]).encode()

    async def scenario(http: aiohttp.ClientSession) -> list[Any]:
        return [json.loads((await post(http, net.url, batch))[2]) for _ in range(2)]

    first, second = run(scenario)
    ids = [a["id"] for a in first]
    assert sorted(ids) == list(range(12))
    assert ids != list(range(12))
    assert all(a["result"]["number"] == a["id"] for a in first)
    # each batch gets its own seeded permutation (deterministic for the devnet's seed)
    assert sorted(a["id"] for a in second) == list(range(12))
    assert [a["id"] for a in second] != ids


def test_rpc_error_per_call(make_devnet: Callable[..., Devnet]) -> None:
    net = make_devnet(**SMALL)
    net.faults.add("rpc_error", method="hmyv2_blockNumber", times=1)
    batch = json.dumps(
        [json.loads(body("hmy_blockNumber", id_=1)), json.loads(body(id_=2)), json.loads(body(id_=3))]
    ).encode()

    async def scenario(http: aiohttp.ClientSession) -> list[Any]:
        answers: list[Any] = json.loads((await post(http, net.url, batch))[2])
        return answers

    answers = run(scenario)
    assert answers[0]["result"] == "0x27"
    assert answers[1]["error"] == {"code": -32000, "message": RATE_LIMIT_MESSAGE}
    assert answers[2]["result"] == 39
    assert net.stats.total().rpc_errors == {-32000: 1}


def test_shard_and_trace_filters(make_devnet: Callable[..., Devnet]) -> None:
    net = make_devnet(**SMALL, faults="status=502,shard=1;status=504,trace=true")

    async def scenario(http: aiohttp.ClientSession) -> list[int]:
        return [
            (await post(http, url, body()))[0]
            for url in (net.urls[0], net.urls[1], net.trace_urls[0], net.trace_urls[1])
        ]

    assert run(scenario) == [200, 502, 504, 502]


def test_fault_specs() -> None:
    rules = parse_fault_spec(
        "status=429,retry_after=1.5,times=3; reset,p=0.25 ;delay=0.5,method=hmyv2_getBlocks;shuffle"
    )
    assert rules[0] == FaultRule("status", status=429, retry_after=1.5, times=3)
    assert rules[1] == FaultRule("reset", probability=0.25)
    assert rules[2] == FaultRule("delay", delay=0.5, method="hmyv2_getBlocks")
    assert rules[3].kind == "shuffle"
    custom = parse_fault_spec("rpc_error=-32603,message=boom,times=1,trace=false")[0]
    assert (custom.code, custom.message, custom.trace) == (-32603, "boom", False)
    for spec, named in [
        ("explode", "'explode'"),
        ("status=abc", "status='abc'"),
        ("status=200", "status=200"),
        ("reset,wat=1", "'wat'"),
        ("reset,times", "'times'"),
        ("reset=3", "takes no value"),
        ("delay,p=2", "probability=2.0"),
        ("", "empty"),
    ]:
        with pytest.raises(ConfigError) as info:
            parse_fault_spec(spec)
        assert named in str(info.value)
    with pytest.raises(ConfigError, match="times=0"):
        FaultRule("reset", times=0)


def test_injector_bookkeeping() -> None:
    faults = FaultInjector(seed=1)
    a = faults.add("reset", times=2)
    b = faults.add("status=500")
    assert len(faults) == 2
    assert faults.remaining(a) == 2
    assert faults.remaining(b) is None
    decided = faults.decide(shard=0, trace=False, methods=["x"])
    assert decided.reset
    # the reset already replaces the answer: the status rule is neither applied nor counted
    assert decided.status is None
    assert decided.fired == ["reset"]
    assert faults.remove(b)
    assert not faults.remove(b)
    faults.decide(shard=0, trace=False, methods=["x"])
    assert len(faults) == 0
    with pytest.raises(ConfigError, match=str(a)):
        faults.remaining(a)
    with pytest.raises(ConfigError, match="no keyword"):
        faults.add("status=500", times=1)


# -- statistics ------------------------------------------------------------------------------


def test_statistics_are_exact(make_devnet: Callable[..., Devnet]) -> None:
    net = make_devnet(**SMALL)
    single = body()
    batch = json.dumps(
        [
            json.loads(body(id_=1)),
            {"jsonrpc": "2.0", "method": "hmy_blockNumber", "params": []},
            json.loads(body("hmy_nope", id_=3)),
            json.loads(body("hmyv2_getBlockByNumber", [1, {}], 4)),
        ]
    ).encode()
    sent = [single, single, batch, single]

    async def scenario() -> int:
        received = 0
        async with aiohttp.ClientSession(auto_decompress=False) as http:
            for data in sent:
                received += len((await post(http, net.url, data))[2])
            received += len((await post(http, net.urls[1], single))[2])
            received += len((await post(http, net.trace_url, single))[2])
            received += len((await post(http, net.url, single, {"Content-Type": "text/plain"}))[2])
        return received

    received = asyncio.run(scenario())
    total = net.stats.total()
    assert total.http_requests == 7
    assert total.calls == 3 + 4 + 2
    assert total.calls_by_method == {
        "hmyv2_blockNumber": 6,
        "hmy_blockNumber": 1,
        "hmy_nope": 1,
        "hmyv2_getBlockByNumber": 1,
    }
    assert total.batches == 1
    assert total.batch_sizes == {4: 1}
    assert total.by_status == {200: 6, 415: 1}
    assert total.rpc_errors == {-32601: 1}
    # bodies of refused requests (415 here) are not read, so not counted
    assert total.bytes_in == sum(len(d) for d in sent) + 2 * len(single)
    assert total.bytes_out == received
    assert total.in_flight == 0
    s0 = net.stats.endpoint(0)
    assert s0.http_requests == 5
    assert s0.calls_of("hmyv2_blockNumber") == 4
    assert net.stats.endpoint(1).http_requests == 1
    assert net.stats.endpoint(0, trace=True).http_requests == 1
    assert set(net.stats.endpoints()) == {"s0", "s1", "s0-trace"}
    assert net.stats.endpoint(1, trace=True).http_requests == 0
    net.stats.reset()
    assert net.stats.total().http_requests == 0
    assert net.stats.endpoint(0).calls == 0


def test_max_in_flight(make_devnet: Callable[..., Devnet]) -> None:
    net = make_devnet(**SMALL, latency_ms=400)

    async def scenario(http: aiohttp.ClientSession) -> None:
        await asyncio.gather(*(post(http, net.urls[i % 2], body()) for i in range(6)))

    run(scenario)
    assert net.stats.max_in_flight == 6
    assert net.stats.endpoint(0).max_in_flight == 3
    assert net.stats.endpoint(1).max_in_flight == 3
    assert net.stats.total().in_flight == 0


def test_stats_recording_is_thread_safe() -> None:
    stats = DevnetStats()

    def worker() -> None:
        for _ in range(2000):
            with stats.in_flight("s0"):
                stats.record_request("s0", bytes_in=3, methods=["m", "n"], batch_size=2)
                stats.record_response("s0", status=200, bytes_out=5, rpc_errors=[-32000])

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    total = stats.total()
    assert total.http_requests == 8000
    assert total.calls == 16000
    assert total.calls_by_method == {"m": 8000, "n": 8000}
    assert total.bytes_in == 24000
    assert total.bytes_out == 40000
    assert total.batch_sizes == {2: 8000}
    assert total.rpc_errors == {-32000: 8000}
    assert total.in_flight == 0
    assert 1 <= total.max_in_flight <= 4


# -- rate limiters ---------------------------------------------------------------------------


def test_token_bucket_reservations() -> None:
    now = [100.0]
    bucket = TokenBucket(RateLimit(rate=2.0, burst=2, deadline=1.0), clock=lambda: now[0])
    assert bucket.reserve() == 0.0
    assert bucket.reserve() == 0.0
    assert bucket.reserve() == pytest.approx(0.5)
    assert bucket.reserve() == pytest.approx(1.0)
    assert bucket.reserve() is None  # would wait 1.5 s > 1 s: refused, nothing taken
    now[0] += 1.0  # two tokens back: the debt of two is paid
    assert bucket.reserve() == pytest.approx(0.5)
    with pytest.raises(ConfigError, match="burst=0"):
        RateLimit(1.0, 0)
    with pytest.raises(ConfigError, match="rate=-1"):
        RateLimit(-1, 1)


def test_validator_limiter_waits_then_refuses(make_devnet: Callable[..., Devnet]) -> None:
    net = make_devnet(**SMALL, validator_rate_limit=RateLimit(rate=1.0, burst=2, deadline=1.5))

    async def scenario(http: aiohttp.ClientSession) -> list[Any]:
        calls = [post(http, net.url, body("hmyv2_getAllValidatorInformation", [0], i)) for i in range(4)]
        return [json.loads(r[2]) for r in await asyncio.gather(*calls)]

    answers = run(scenario)
    served = [a for a in answers if "result" in a]
    refused = [a for a in answers if "error" in a]
    assert len(served) == 3  # two from the burst, one after waiting ~1 s
    assert [a["error"] for a in refused] == [{"code": -32000, "message": RATE_LIMIT_MESSAGE}]

    async def others(http: aiohttp.ClientSession) -> list[Any]:
        calls = [post(http, net.url, body("hmyv2_getAllValidatorAddresses", [], i)) for i in range(6)]
        return [json.loads(r[2]) for r in await asyncio.gather(*calls)]

    assert all("result" in a for a in run(others))  # only getAllValidatorInformation* are limited


def test_validator_limiter_switched_off(make_devnet: Callable[..., Devnet]) -> None:
    net = make_devnet(**SMALL, validator_rate_limit=False)

    async def scenario(http: aiohttp.ClientSession) -> list[Any]:
        calls = [
            post(http, net.url, body("hmyv2_getAllValidatorInformationByBlockNumber", [0, 5], i))
            for i in range(8)
        ]
        return [json.loads(r[2]) for r in await asyncio.gather(*calls)]

    assert all("result" in a for a in run(scenario))


def test_global_rpc_rate_limit(make_devnet: Callable[..., Devnet]) -> None:
    """The node's global limiter: a batch's limited calls wait their turn one after the other,
    and a token due after the 5 s (here 0.4 s) deadline is refused at once."""
    net = make_devnet(**SMALL, rpc_rate_limit=RateLimit(rate=2.0, burst=2, deadline=0.4))
    batch = json.dumps([json.loads(body("hmyv2_getBlockByNumber", [1, {}], i)) for i in range(4)]).encode()

    async def scenario(http: aiohttp.ClientSession) -> list[Any]:
        answers: list[Any] = json.loads((await post(http, net.url, batch))[2])
        return answers

    answers = run(scenario)
    assert ["result" in a for a in answers] == [True, True, False, False]
    assert answers[2]["error"]["message"] == RATE_LIMIT_MESSAGE


def test_the_global_limiter_limits_what_the_node_limits(make_devnet: Callable[..., Devnet]) -> None:
    """As ``rpc/harmony``: block reads, ``getShardingStructure`` and ``call`` wait on it, one bucket
    per namespace; ``blockNumber``, receipts and logs do not."""
    net = make_devnet(**SMALL, rpc_rate_limit=RateLimit(rate=1.0, burst=1, deadline=0.0))
    free = [
        ("hmyv2_blockNumber", []),
        ("hmyv2_getTransactionReceipt", ["0x" + "00" * 32]),
        ("hmy_getLogs", [{"fromBlock": "0x1", "toBlock": "0x2"}]),
        ("hmyv2_getBlockSigners", [3]),
    ]
    limited = [
        ("hmyv2_getBlockByNumber", [1, {}]),
        ("hmyv2_getBlockByNumber", [2, {}]),  # the same bucket: refused
        ("hmy_getBlockByNumber", ["0x1", False]),  # another namespace's bucket
        ("hmy_getShardingStructure", []),  # hmy blockchain: its token is taken
    ]
    calls = [body(m, p, i) for i, (m, p) in enumerate(free * 3 + limited)]
    batch = b"[" + b",".join(calls) + b"]"

    async def scenario(http: aiohttp.ClientSession) -> list[Any]:
        answers: list[Any] = json.loads((await post(http, net.url, batch))[2])
        return answers

    answers = run(scenario)
    refused = ["error" in a and a["error"]["message"] == RATE_LIMIT_MESSAGE for a in answers]
    assert refused == [False] * 12 + [False, True, False, True]


def test_each_block_of_get_blocks_counts_and_a_dropped_request_gives_its_tokens_back(
    make_devnet: Callable[..., Devnet],
) -> None:
    """``getBlocks`` of 6 blocks at 4 calls/s, burst 4: its last two blocks wait 0.25 s and 0.5 s.
    A client that gives up on a long one cancels it: its waiting blocks give their tokens back."""
    net = make_devnet(**SMALL, rpc_rate_limit=RateLimit(rate=4.0, burst=4, deadline=5.0))
    get = body("hmyv2_getBlocks", [1, 6, {"fullTx": False}])

    async def timed(http: aiohttp.ClientSession) -> float:
        began = asyncio.get_running_loop().time()
        status, _, data = await post(http, net.url, get)
        assert status == 200
        assert len(json.loads(data)["result"]) == 6
        return asyncio.get_running_loop().time() - began

    took = run(timed)
    assert 0.4 <= took < 1.5
    # a 20-block request waits ~4 s for its last block; dropped after 0.3 s, it must not keep
    # taking the node's tokens: a 1-block request right after waits for one token, not 19 more
    long = body("hmyv2_getBlocks", [1, 20, {"fullTx": False}])

    async def dropped(http: aiohttp.ClientSession) -> float:
        with pytest.raises(asyncio.TimeoutError):
            async with http.post(net.url, data=long, headers=JSON, timeout=aiohttp.ClientTimeout(total=0.3)):
                pass
        await asyncio.sleep(0.1)  # the node sees the connection closed
        began = asyncio.get_running_loop().time()
        status, _, data = await post(http, net.url, body("hmyv2_getBlockByNumber", [1, {}]))
        assert status == 200
        assert "result" in json.loads(data)
        return asyncio.get_running_loop().time() - began

    assert run(dropped) < 1.0


def test_a_request_longer_than_the_write_timeout_gets_no_answer(make_devnet: Callable[..., Devnet]) -> None:
    """The node's HTTP server (WriteTimeout, 30 s by default) closes the connection of a request
    that took longer, without an answer."""
    net = make_devnet(**SMALL, rpc_rate_limit=RateLimit(rate=10.0, burst=1, deadline=5.0), write_timeout=0.5)

    async def scenario(http: aiohttp.ClientSession) -> None:
        quick = await post(http, net.url, body("hmyv2_getBlocks", [1, 3, {"fullTx": False}]))
        assert quick[0] == 200
        assert len(json.loads(quick[2])["result"]) == 3
        with pytest.raises(aiohttp.ClientError):  # 10 blocks at 10/s: ~0.9 s
            await post(http, net.url, body("hmyv2_getBlocks", [1, 10, {"fullTx": False}]))

    run(scenario)
    assert dict(net.stats.total().by_status) == {200: 1}  # the long one got no answer


async def test_rules_that_would_not_change_the_answer_are_not_consumed(make_devnet: Any) -> None:
    """Two one-shot status rules: the first answers the first request, the second the next one."""
    net = make_devnet(blocks=20, seed=1, validator_rate_limit=False)
    net.faults.add("status", status=429, times=1)
    net.faults.add("status", status=502, times=1)
    body = {"jsonrpc": "2.0", "id": 1, "method": "hmyv2_blockNumber", "params": []}
    statuses = []
    async with aiohttp.ClientSession() as http:
        for _ in range(3):
            async with http.post(net.url, json=body) as resp:
                statuses.append(resp.status)
    assert statuses == [429, 502, 200]
    assert net.stats.total().faults.get("status") == 2
