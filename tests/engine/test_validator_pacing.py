"""Validator snapshots under the default ``validator_pacing="auto"``, against nodes with and without the limiter."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

import hmyframe
from hmyframe import FetchOptions
from hmyframe.devnet import Devnet
from hmyframe.rpc import ClientStats

#: 800 validators created, about 700 alive at the head: 8 pages and the empty one that ends the paging.
CHAIN = {"blocks": 40, "seed": 11, "validators": 800}
LISTING = "hmyv2_getAllValidatorInformationByBlockNumber"


async def _snapshot(net: Devnet, options: FetchOptions | None) -> tuple[pd.DataFrame, ClientStats]:
    async with hmyframe.Session(net, cache=False, options=options) as session:
        frame = await hmyframe.aio.validators(rpc=session)
        return frame, session.client.stats


async def test_default_options_page_a_node_without_the_limiter_unpaced(
    make_devnet: Callable[..., Devnet],
) -> None:
    net = make_devnet(**CHAIN, validator_rate_limit=False)
    frame, stats = await _snapshot(net, None)
    assert stats.pacing_wait == 0
    assert stats.pacing_engaged == 0
    assert net.stats.total().calls_of(LISTING) == 9
    assert len(frame) == frame["validator_address_hex"].nunique() > 700
    unpaced, _ = await _snapshot(net, FetchOptions(validator_pacing=None))
    pd.testing.assert_frame_equal(frame, unpaced)


async def test_default_options_against_the_node_limiter_match_fixed_pacing(
    make_devnet: Callable[..., Devnet],
) -> None:
    # the node's own limiter (1 req/s, burst 3, 5 s deadline): sequential pages are never
    # refused, the node makes pages 4.. wait within its deadline (so the client never paces),
    # and the frame is the one fixed client-side pacing gets
    net = make_devnet(**CHAIN, validator_rate_limit=True)
    frame, stats = await _snapshot(net, None)
    assert stats.pacing_wait == 0
    assert stats.pacing_engaged == 0
    assert dict(net.stats.total().rpc_errors) == {}
    paced, paced_stats = await _snapshot(net, FetchOptions(validator_pacing=(1.0, 3)))
    assert paced_stats.pacing_engaged == 0  # fixed pacing is on from the start
    assert dict(net.stats.total().rpc_errors) == {}
    pd.testing.assert_frame_equal(frame, paced)
    assert net.stats.total().calls_of(LISTING) == 2 * 9
    unlimited = make_devnet(**CHAIN, validator_rate_limit=False)
    free, _ = await _snapshot(unlimited, None)
    pd.testing.assert_frame_equal(frame, free)  # the same chain: the limiter changes no row
