"""Answers the devnet never gives but proxies and load balancers do, over real HTTP.

A tiny aiohttp server on 127.0.0.1 plays a scripted answer per request: batch answers that
leave items out, 2xx bodies that are JSON but not JSON-RPC, ``Retry-After`` as an HTTP date,
ids rewritten by a proxy, and a batch refused with a single ``id: null`` error object.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import pytest
from aiohttp import web

from hmyframe.errors import ResponseShapeError, RpcError
from hmyframe.rpc import Client, RetryPolicy

FAST = RetryPolicy(backoff_base=0, jitter=False)

#: A script step takes the decoded request body and returns (status, body, headers).
Step = Callable[[Any], tuple[int, Any, dict[str, str]]]


class OddServer:
    """Answers each request with the next scripted step (the last step repeats)."""

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self.requests: list[Any] = []
        self.url = ""

    async def handle(self, request: web.Request) -> web.Response:
        body = json.loads(await request.read())
        self.requests.append(body)
        step = self.steps[min(len(self.requests), len(self.steps)) - 1]
        status, payload, headers = step(body)
        text = payload if isinstance(payload, str) else json.dumps(payload)
        return web.Response(status=status, text=text, headers=headers, content_type="application/json")


def echo(body: Any) -> tuple[int, Any, dict[str, str]]:
    """A well-behaved answer: each call's params as its result."""
    items = body if isinstance(body, list) else [body]
    out = [{"jsonrpc": "2.0", "id": i["id"], "result": i["params"]} for i in items]
    return 200, out if isinstance(body, list) else out[0], {}


@pytest.fixture
async def odd() -> AsyncIterator[OddServer]:
    server = OddServer()
    app = web.Application()
    app.router.add_post("/", server.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    server.url = f"http://127.0.0.1:{port}/"
    try:
        yield server
    finally:
        await runner.cleanup()


async def test_items_missing_from_a_batch_answer_are_retried(odd: OddServer) -> None:
    def drop_last(body: Any) -> tuple[int, Any, dict[str, str]]:
        status, out, headers = echo(body)
        return status, out[:-1], headers

    odd.steps = [drop_last, echo]
    async with Client(odd.url, retry=FAST) as c:
        got = await c.batch([("echo", [n]) for n in range(4)])
        assert got == [[0], [1], [2], [3]]
        assert c.stats.retries == {"missing": 1}
    assert [len(r) if isinstance(r, list) else 1 for r in odd.requests] == [4, 1]
    assert odd.requests[1]["params"] == [3]


async def test_items_always_missing_end_in_a_shape_error(odd: OddServer) -> None:
    odd.steps = [lambda body: (200, [], {})]
    async with Client(odd.url, retry=RetryPolicy(attempts=2, backoff_base=0)) as c:
        with pytest.raises(ResponseShapeError, match=r"echo\(\[7\]\)"):
            await c.batch([("echo", [7]), ("echo", [8])])


async def test_json_that_is_not_an_envelope_is_not_retried(odd: OddServer) -> None:
    odd.steps = [lambda body: (200, {"message": "hello from the proxy"}, {})]
    async with Client(odd.url, retry=FAST) as c:
        with pytest.raises(ResponseShapeError, match=r"hello from the proxy.*`result` or an `error`"):
            await c.request("hmyv2_blockNumber")
        odd.steps = [lambda body: (200, [1, 2, 3], {})]
        with pytest.raises(ResponseShapeError, match="JSON-RPC envelope"):
            await c.request("hmyv2_blockNumber")
    assert len(odd.requests) == 2


async def test_retry_after_http_date_is_honoured(odd: OddServer) -> None:
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=2), usegmt=True)
    odd.steps = [lambda body: (503, "busy", {"Retry-After": when}), echo]
    async with Client(odd.url, retry=FAST) as c:
        assert await c.request("echo", [1]) == [1]
        # HTTP dates have 1 s resolution: the wait is between 1 and 2 s
        assert 1.0 <= c.stats.retry_wait <= 2.0
        assert c.stats.retries == {"http_503": 1}


async def test_a_proxy_rewriting_the_id_of_a_single_call_is_tolerated(odd: OddServer) -> None:
    odd.steps = [lambda body: (200, {"jsonrpc": "2.0", "id": "1", "result": "0x10"}, {})]
    async with Client(odd.url, retry=FAST) as c:
        await c.request("warm-up")  # ids start at 1: make the next one differ
        assert await c.request("hmy_blockNumber") == "0x10"
    assert odd.requests[1]["id"] != 1


async def test_a_batch_refused_with_one_null_id_error(odd: OddServer) -> None:
    refusal = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "invalid request"}}
    odd.steps = [lambda body: (200, refusal, {})]
    async with Client(odd.url, retry=FAST) as c:
        results = await c.batch([("a", []), ("b", [])], return_exceptions=True)
    assert [type(r) for r in results] == [RpcError, RpcError]
    assert [r.method for r in results] == ["a", "b"]
    assert len(odd.requests) == 1


async def test_exponent_floats_in_an_answer_stay_exact(odd: OddServer) -> None:
    odd.steps = [lambda body: (200, '{"jsonrpc":"2.0","id":1,"result":{"amount":3.46e+19}}', {})]
    async with Client(odd.url, retry=FAST) as c:
        result = await c.request("hmy_getAllValidatorInformation", [0])
    assert int(result["amount"]) == 34600000000000000000
