"""Fixtures for the RPC client tests: a zero-wait retry policy and clients on the session devnet."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from hmyframe.devnet import Devnet
from hmyframe.rpc import Client, RetryPolicy

#: Retries without sleeping (Retry-After is still honoured when a test sends one).
FAST = RetryPolicy(backoff_base=0, jitter=False)


@pytest.fixture
def fast_retry() -> RetryPolicy:
    """A retry policy that never sleeps between attempts."""
    return FAST


@pytest.fixture
async def client(devnet: Devnet) -> AsyncIterator[Client]:
    """A client on shard 0 of the session devnet, with both trace URLs, zero-wait retries."""
    async with Client(devnet.url, trace_url=dict(enumerate(devnet.trace_urls)), retry=FAST) as c:
        yield c


@pytest.fixture
def open_client() -> Callable[..., Client]:
    """Factory for extra clients (zero-wait retries unless given); use as ``async with open_client(url):``."""

    def make(url: str, **kwargs: Any) -> Client:
        kwargs.setdefault("retry", FAST)
        return Client(url, **kwargs)

    return make
