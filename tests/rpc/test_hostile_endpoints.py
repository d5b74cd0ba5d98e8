"""Endpoints that misbehave on purpose: endless or huge bodies, malformed answers, silence,
``Retry-After: 3600``, secrets in URLs. Each is a small server on 127.0.0.1 (``tests/hostile.py``).

Memory bounds are measured on a child process running the command line (its own peak RSS),
never guessed from the code.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hostile import (
    RawServer,
    announces_a_gibibyte,
    endless_chunked,
    json_answer,
    never_answers,
    peak_rss_of_cli,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hmyframe import datasets as ds
from hmyframe.errors import (
    ConnectionFailedError,
    HmyframeError,
    HTTPStatusError,
    ResponseShapeError,
    ResponseTooLargeError,
    redact_url,
)
from hmyframe.rpc import Client, RetryPolicy
from hmyframe.rpc.transport import DEFAULT_MAX_ANSWER_BYTES

FAST = RetryPolicy(backoff_base=0, jitter=False)


@pytest.fixture
def raw_server() -> Iterator[Any]:
    servers: list[RawServer] = []

    def make(handler: Any) -> RawServer:
        servers.append(RawServer(handler))
        return servers[-1]

    yield make
    for server in servers:
        server.close()


# --------------------------------------------------------------------------- 1. unbounded memory


@pytest.mark.slow
def test_an_endless_body_ends_at_the_cap_and_memory_stays_bounded(raw_server: Any, tmp_path: Path) -> None:
    server = raw_server(endless_chunked)
    code, _, stderr, peak = peak_rss_of_cli(
        ["head", "--rpc", server.url, "--shard", "0"], tmp_path, kill_above_mib=1536
    )
    assert code == 1, f"killed at {peak} MiB" if code is None else stderr
    cap_mib = DEFAULT_MAX_ANSWER_BYTES >> 20
    # one request (not retried), the message names the cap and the request
    assert server.requests == 1
    line = stderr.strip()
    assert "\n" not in line
    assert f"{DEFAULT_MAX_ANSWER_BYTES:,}-byte answer cap" in line
    assert f"(calling hmy_getShardingStructure([]) at {server.url})" in line
    # measured against a child that only starts the command line (imports and all), same run:
    # what the endless answer cost stays under twice the cap (it was 1.1x: the pieces read so far)
    _, _, _, baseline = peak_rss_of_cli(["schema", "blocks"], tmp_path, kill_above_mib=1536)
    assert peak - baseline < 2 * cap_mib, (peak, baseline)


async def test_an_answer_announced_over_the_cap_is_refused_unread_and_not_retried(raw_server: Any) -> None:
    server = raw_server(announces_a_gibibyte)
    async with Client(server.url, retry=FAST) as client:
        started = time.monotonic()
        with pytest.raises(ResponseTooLargeError, match=r"announces 1,073,741,824 bytes.*answer cap") as info:
            await client.v2.block_number()
        assert time.monotonic() - started < 10
        assert client.stats.bytes_received == 0
    assert server.requests == 1
    assert "(calling hmyv2_blockNumber([])" in str(info.value)


async def test_a_batch_answer_over_the_cap_is_retried_in_halves(raw_server: Any) -> None:
    def answer(conn: Any, body: bytes) -> None:
        request = json.loads(body)
        items = request if isinstance(request, list) else [request]
        out = [{"jsonrpc": "2.0", "id": i["id"], "result": "x" * 3000} for i in items]
        json_answer(json.dumps(out if isinstance(request, list) else out[0]).encode())(conn, body)

    server = raw_server(answer)
    async with Client(server.url, retry=FAST, max_answer_bytes=8000) as client:
        results = await client.batch([("hmyv2_echo", [i]) for i in range(4)])
        assert results == ["x" * 3000] * 4
        assert client.stats.batch_splits >= 1
    requests = server.requests
    async with Client(server.url, retry=FAST, max_answer_bytes=2000) as client:
        with pytest.raises(ResponseTooLargeError, match="2,000-byte answer cap"):
            await client.request("hmyv2_echo", [1])
    assert server.requests == requests + 1  # a single call over the cap is not retried


# --------------------------------------------------------------------------- 6. malformed answers

SECRET_QUERY = "?k=QSECRETVALUE"


@pytest.mark.parametrize(
    ("body", "what"),
    [
        (b'{"jsonrpc":"2.0","id":1,"result":' + b"[" * 200_000 + b"]" * 200_000 + b"}", "nested"),
        (b"[" * 200_000 + b"]" * 200_000, "a JSON-RPC envelope"),
        (b'{"jsonrpc":"2.0","id":1,"result":' + b"9" * 10_000 + b"}", "Integer value out of range"),
        (
            b'{"jsonrpc":"2.0","id":1,"result":{"a":' + b"-" + b"7" * 5_000 + b"}}",
            "Integer value out of range",
        ),
    ],
    ids=["deep-result", "deep-envelope", "huge-number", "huge-nested-number"],
)
async def test_malformed_answers_are_one_line_response_errors(
    raw_server: Any, body: bytes, what: str
) -> None:
    server = raw_server(json_answer(body))
    async with Client(server.url + "/" + SECRET_QUERY, retry=FAST) as client:
        with pytest.raises(ResponseShapeError) as info:
            await client.v2.block_number()
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("hmyv2_blockNumber")
    assert what in message
    assert "QSECRETVALUE" not in message
    assert f"answer from {server.url}/?k=***" in message
    assert server.requests == 1  # a malformed answer is not a connection failure to retry


def _json_values() -> st.SearchStrategy[Any]:
    leaves = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(10**80), max_value=10**80),
        st.text(max_size=20),
        st.sampled_from(["0x", "0xzz", "one1bad", "0x" + "f" * 64, "-1", "1e999999999"]),
    )
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)
        ),
        max_leaves=12,
    )


def _hostile_results() -> st.SearchStrategy[bytes]:
    """JSON-ish ``result`` texts: nesting far too deep, numbers far too long, odd JSON values."""
    depth = st.integers(min_value=1, max_value=150_000)
    return st.one_of(
        depth.map(lambda n: b"[" * n + b"]" * n),
        depth.map(lambda n: b'{"a":' * n + b"1" + b"}" * n),
        st.integers(min_value=4_200, max_value=12_000).map(lambda n: b"9" * n),
        st.sampled_from([b"1e999999999", b"-1E-999999999", b"1.5e308", b"NaN", b'"\\ud800"', b"[1,]"]),
        _json_values().map(lambda v: json.dumps(v).encode()),
    )


def _hostile_envelopes() -> st.SearchStrategy[bytes]:
    result = _hostile_results()
    return st.one_of(
        result.map(lambda r: b'{"jsonrpc":"2.0","id":1,"result":' + r + b"}"),
        result.map(lambda r: b'[{"jsonrpc":"2.0","id":1,"result":' + r + b"}]"),
        result.map(lambda r: b'{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":' + r + b"}}"),
        result.map(lambda r: b'{"jsonrpc":"2.0","id":' + r + b',"result":1}'),
        st.binary(max_size=64),
    )


def _method_calls(client: Client) -> list[Any]:
    h = "0x" + "ab" * 32
    addr = "one1" + "q" * 38
    calls: list[Any] = []
    for m in (client.v1, client.v2):
        calls += [
            m.block_number(),
            m.get_sharding_structure(),
            m.get_block_by_number(5, full_tx=True),
            m.get_block_by_number_raw(5, full_tx=True),
            m.get_block_by_hash(h),
            m.get_block_by_hash_raw(h),
            m.get_blocks(1, 3, full_tx=True),
            m.get_blocks_raw(1, 3, full_tx=True),
            m.block_range(1, 3),
            m.block_range_raw(1, 3),
            m.get_transaction_by_hash(h),
            m.get_transaction_by_hash_raw(h),
            m.get_staking_transaction_by_hash(h),
            m.get_staking_transaction_by_hash_raw(h),
            m.get_transaction_count(addr, 5),
            m.get_pending_cx_receipts(),
            m.get_pending_cx_receipts_raw(),
            m.get_all_validator_information(0),
            m.get_all_validator_information_raw(0),
            m.get_all_validator_information_by_block_number(0, 5),
            m.get_all_validator_information_by_block_number_raw(0, 5),
            m.get_all_validator_addresses(),
        ]
    calls += [client.trace_block(5), client.trace_block_raw(5), client.trace_transaction(h)]
    return calls


def _contexts() -> dict[str, ds.ConvertContext]:
    ctx = ds.ConvertContext(shard_id=0, snapshot_block=5, snapshot_epoch=1, block_numbers=[5])
    return {name: ctx for name in ds.DATASETS} | {
        "tx_counts": ds.ConvertContext(shard_id=0, addresses_blocks=[("one1" + "q" * 38, 5)])
    }


@pytest.fixture(scope="module")
def fuzz_server() -> Iterator[RawServer]:
    server = RawServer(json_answer(b"null"))
    yield server
    server.close()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=_hostile_envelopes())
def test_fuzzed_answers_of_every_method_and_dataset_raise_only_hmyframe_errors(
    fuzz_server: RawServer, body: bytes
) -> None:
    fuzz_server.handler = json_answer(body)
    url = fuzz_server.url

    async def main() -> list[BaseException]:
        async with Client(
            url, trace_url=url, shard_urls={0: url}, retry=RetryPolicy(attempts=1), validator_pacing=None
        ) as client:
            calls = _method_calls(client)
            return [
                r
                for r in await asyncio.gather(*calls, return_exceptions=True)
                if isinstance(r, BaseException)
            ]

    for exc in asyncio.run(main()):
        assert isinstance(exc, HmyframeError), repr(exc)
        assert "internal error" not in str(exc), exc
        assert "\n" not in str(exc)
    # the datasets decode whatever `result` such an answer carries
    start = body.find(b'"result":')
    payload = body[start + 9 : -1] if start >= 0 else body
    for name, ctx in _contexts().items():
        try:
            ds.get(name).convert([payload], ctx)
        except HmyframeError as exc:
            message = str(exc)
        else:
            message = ""
        assert "\n" not in message


# --------------------------------------------------------------------------- 9. long silent waits


async def test_a_silent_server_is_reported_within_the_call_budget(raw_server: Any) -> None:
    server = raw_server(never_answers)
    policy = RetryPolicy(attempts=6, backoff_base=0, jitter=False, max_elapsed=1.5)
    async with Client(server.url, retry=policy, timeout=0.5) as client:
        started = time.monotonic()
        with pytest.raises(ConnectionFailedError, match=r"time budget of 1.5 s is spent") as info:
            await client.v2.block_number()
        took = time.monotonic() - started
    assert 1.0 <= took < 4.0, took
    assert "no complete answer within" in str(info.value)
    assert 2 <= server.requests <= 4


def test_cli_timeout_and_retries_bound_a_silent_server(raw_server: Any, tmp_path: Path) -> None:
    server = raw_server(never_answers)
    started = time.monotonic()
    code, _, stderr, _ = peak_rss_of_cli(
        ["head", "--rpc", server.url, "--shard", "0", "--timeout", "0.5", "--retries", "1"],
        tmp_path,
        kill_above_mib=2048,
        timeout=60,
    )
    assert code == 1, stderr
    assert time.monotonic() - started < 30
    assert server.requests == 2
    assert "no complete answer within 0.5 s" in stderr
    assert "gave up after 2 attempts" in stderr


def test_retry_after_of_an_hour_ends_the_command_at_once_saying_so(raw_server: Any, tmp_path: Path) -> None:
    server = raw_server(json_answer(b"busy", status=503, headers={"Retry-After": "3600"}))
    started = time.monotonic()
    code, _, stderr, _ = peak_rss_of_cli(
        ["head", "--rpc", server.url, "--shard", "0"], tmp_path, kill_above_mib=2048, timeout=60
    )
    assert code == 1, stderr
    assert time.monotonic() - started < 30
    assert server.requests == 1
    assert "asked to wait 3600 s (Retry-After)" in stderr
    assert "try again later" in stderr


@pytest.mark.slow
async def test_a_long_wait_is_announced(raw_server: Any, caplog: pytest.LogCaptureFixture) -> None:
    answers = iter([json_answer(b"busy", status=503, headers={"Retry-After": "5.2"})])

    def handler(conn: Any, body: bytes) -> None:
        step = next(answers, None)
        if step is not None:
            step(conn, body)
        else:
            json_answer(b'{"jsonrpc":"2.0","id":1,"result":42}')(conn, body)

    server = raw_server(handler)
    with caplog.at_level(logging.WARNING, logger="hmyframe.rpc"):
        async with Client(server.url, retry=RetryPolicy(backoff_base=0)) as client:
            assert await client.v2.block_number() == 42
    [record] = caplog.records
    assert "retrying in 5.2 s (attempt 2 of 6)" in record.getMessage()
    assert "hmyv2_blockNumber" in record.getMessage()


# --------------------------------------------------------------------------- 10. secrets

SECRETS = ("pw-hunter2", "QSECRETVALUE", "KeyWithoutDigitsAbcdefGhij", "FRAGSECRET", "K2K2")


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://u:pw-hunter2@h:9500/x?k=QSECRETVALUE", "http://***@h:9500/x?k=***"),
        ("https://h/KeyWithoutDigitsAbcdefGhij/rpc", "https://h/***/rpc"),
        ("https://h/rpc#FRAGSECRET", "https://h/rpc#***"),
        ("https://h/apikey/K2K2?plain", "https://h/apikey/***?***"),
        ("http://[::1/KeyWithoutDigitsAbcdefGhij?k=QSECRETVALUE", "http://[::1/***?k=***"),
        ("https://api.s0.t.hmny.io/harmony-mainnet", "https://api.s0.t.hmny.io/harmony-mainnet"),
    ],
)
def test_redaction_hides_every_query_value_fragment_userinfo_and_key_like_segment(
    url: str, shown: str
) -> None:
    assert redact_url(url) == shown


def test_secrets_in_the_url_are_never_printed_or_stored(raw_server: Any, tmp_path: Path) -> None:
    server = raw_server(json_answer(b"not here", status=404))
    host = server.url.removeprefix("http://")
    url = f"http://user:pw-hunter2@{host}/KeyWithoutDigitsAbcdefGhij/apikey/K2K2?k=QSECRETVALUE#FRAGSECRET"
    out = tmp_path / "out"
    code, stdout, stderr, _ = peak_rss_of_cli(
        ["export", "blocks", "--start", "0", "--end", "9", "--rpc", url, "--out", str(out)],
        tmp_path,
        kill_above_mib=2048,
        timeout=60,
    )
    assert code == 1
    assert "HTTP 404" in stderr
    assert f"http://***@{host}/***/apikey/***?k=***#***" in stderr
    written = b"".join(p.read_bytes() for p in out.rglob("*") if p.is_file())
    for secret in SECRETS:
        assert secret not in stdout + stderr
        assert secret.encode() not in written


def test_a_malformed_url_is_named_redacted_with_the_reason() -> None:
    with pytest.raises(HmyframeError) as info:
        Client("http://[::1/KeyWithoutDigitsAbcdefGhij?k=QSECRETVALUE")
    message = str(info.value)
    assert "<unparseable url>" not in message
    assert "http://[::1/***?k=***" in message
    assert "QSECRETVALUE" not in message


async def test_http_errors_name_the_redacted_endpoint(raw_server: Any) -> None:
    server = raw_server(json_answer(b"gone", status=410))
    async with Client(server.url + "/rpc#FRAGSECRET", retry=FAST) as client:
        with pytest.raises(HTTPStatusError) as info:
            await client.v2.block_number()
    assert f"{server.url}/rpc#***" in str(info.value)
    assert "FRAGSECRET" not in str(info.value)
