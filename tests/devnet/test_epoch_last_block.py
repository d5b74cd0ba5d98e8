"""The devnet's ``hmy_epochLastBlock`` / ``hmyv2_epochLastBlock``, as the node answers them."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest

from hmyframe.devnet import Devnet


async def call(url: str, method: str, params: list[Any]) -> dict[str, Any]:
    payload = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    async with aiohttp.ClientSession() as http, http.post(url, json=payload) as resp:
        assert resp.status == 200
        answer: dict[str, Any] = json.loads(await resp.read())
        return answer


@pytest.mark.parametrize("method", ["hmy_epochLastBlock", "hmyv2_epochLastBlock"])
@pytest.mark.parametrize("epoch", [0, 1, 7, 10**6])
async def test_last_block_of_an_epoch_is_a_json_number(devnet: Devnet, method: str, epoch: int) -> None:
    # 200-block epochs: epoch e ends at 200(e + 1) - 1, reached or not (the node's schedule)
    answer = await call(devnet.url, method, [epoch])
    assert answer["result"] == 200 * (epoch + 1) - 1
    assert type(answer["result"]) is int


async def test_the_legacy_profile_serves_it_too(make_devnet: Any) -> None:
    net = make_devnet(blocks=50, profile="legacy", epoch_length=10)
    assert (await call(net.url, "hmy_epochLastBlock", [3]))["result"] == 39


async def test_only_the_beacon_shard_answers(devnet: Devnet) -> None:
    answer = await call(devnet.urls[1], "hmyv2_epochLastBlock", [1])
    assert answer["error"] == {"code": -32000, "message": "cannot call this rpc on non beaconchain node"}


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ([], "missing value for required argument 0"),
        ([1, 2], "too many arguments, want at most 1"),
        (["0x1"], "invalid argument 0: json: cannot unmarshal string into Go value of type uint64"),
        ([-1], "invalid argument 0: json: cannot unmarshal number -1 into Go value of type uint64"),
        ([2**64], f"invalid argument 0: json: cannot unmarshal number {2**64} into Go value of type uint64"),
    ],
)
async def test_bad_params_get_the_nodes_errors(devnet: Devnet, params: list[Any], message: str) -> None:
    answer = await call(devnet.url, "hmy_epochLastBlock", params)
    assert answer["error"] == {"code": -32602, "message": message}
