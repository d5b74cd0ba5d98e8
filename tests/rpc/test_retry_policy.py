"""RetryPolicy data, backoff arithmetic, Retry-After parsing and error classification."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from hmyframe.errors import ConfigError, InvalidParamsError, MethodNotFoundError, NotFoundError, RpcError
from hmyframe.rpc.retry import RetryPolicy, is_rate_limit_message, parse_retry_after, rpc_error_class


def test_backoff_doubles_and_caps_without_jitter() -> None:
    policy = RetryPolicy(backoff_base=0.5, backoff_max=3.0, jitter=False)
    assert [policy.backoff(n) for n in range(1, 6)] == [0.5, 1.0, 2.0, 3.0, 3.0]


def test_jitter_stays_between_half_and_full() -> None:
    policy = RetryPolicy(backoff_base=1.0, backoff_max=100.0, jitter=True)
    waits = [policy.backoff(3) for _ in range(200)]
    assert all(2.0 <= w <= 4.0 for w in waits)
    assert len(set(waits)) > 100


def test_zero_wait_policy_never_sleeps_but_honours_retry_after() -> None:
    policy = RetryPolicy(backoff_base=0, jitter=False)
    assert policy.delay(5) == 0.0
    assert policy.delay(1, retry_after=2.5) == 2.5
    assert RetryPolicy(backoff_base=0, honour_retry_after=False).delay(1, retry_after=2.5) == 0.0


def test_retry_after_is_capped() -> None:
    assert RetryPolicy(retry_after_max=10).delay(1, retry_after=3600) == 10


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"attempts": 0}, "attempts"),
        ({"attempts": True}, "attempts"),
        ({"backoff_base": -1}, "backoff_base"),
        ({"backoff_max": float("inf")}, "backoff_max"),
        ({"retry_statuses": frozenset({42})}, "42"),
        ({"rate_limit_messages": "rate"}, "rate_limit_messages"),
    ],
)
def test_bad_policy_values_are_config_errors(kwargs: dict[str, object], needle: str) -> None:
    with pytest.raises(ConfigError, match=needle):
        RetryPolicy(**kwargs)  # type: ignore[arg-type]


def test_reasons_follow_the_flags() -> None:
    policy = RetryPolicy(retry_timeouts=False, retry_connection_errors=True)
    assert policy.retries_reason("reset")
    assert not policy.retries_reason("timeout")
    assert not policy.retries_reason("ssl")
    assert policy.retries_status(503)
    assert not policy.retries_status(500)


def test_parse_retry_after_seconds_and_http_date() -> None:
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after(" 0.5 ") == 0.5
    assert parse_retry_after("-3") == 0.0
    now = datetime(2015, 10, 21, 7, 28, 0, tzinfo=UTC)
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:05 GMT", now=now) == 5.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:27:00 GMT", now=now) == 0.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None


def test_rate_limit_messages_of_the_node() -> None:
    assert is_rate_limit_message("rate: Wait(n=1) would exceed context deadline")
    assert is_rate_limit_message("context deadline exceeded")
    assert not is_rate_limit_message("requested block number greater than current block number")


@pytest.mark.parametrize(
    ("code", "message", "cls"),
    [
        (-32601, "the method hmy_foo does not exist/is not available", MethodNotFoundError),
        (-32602, "missing value for required argument 1", InvalidParamsError),
        (-32000, "requested block number greater than current block number", NotFoundError),
        (-32000, "transaction 0xabc not found", NotFoundError),
        (-32000, "GetBlocks query must be smaller than size 1024", RpcError),
        (3, "execution reverted", RpcError),
    ],
)
def test_rpc_error_classes(code: int, message: str, cls: type[RpcError]) -> None:
    assert rpc_error_class(code, message) is cls
