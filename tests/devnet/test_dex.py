"""The devnet's UniswapV2-style exchange over real HTTP, against a real mainnet swap and itself.

* Shape: a 3-hop ``swapExactTokensForTokens`` of the devnet gives the receipt logs of the
  mainnet block in ``tests/real/mainnet-2023`` (a 3-hop swap through three UniswapV2-style
  pairs): per hop a Transfer out of the pair, then ``Sync`` and ``Swap`` from the pair, the
  same topic counts and data lengths per event, amounts chained from hop to hop.
* Traces: the router's transactions call the pairs and tokens (``trace_transaction``: call
  types, from / to, selectors, values), WONE's withdrawals send ONE back as inner calls.
* State: reserves replayed from the ``Sync`` logs equal ``getReserves()`` by ``call`` at any
  block, swaps never lower k and move the reserves by exactly their amounts; the factory, the
  pairs, WONE and the tokens answer by ``call`` what the logs say; the token ledger,
  ``balanceOf`` and ``token_transfers`` agree.

Everything is decoded with plain Python here (ABI words), independently of hmyframe's decoders.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Iterator
from typing import Any

import aiohttp
import pytest
from Crypto.Hash import keccak
from real_corpus import by_id

import hmyframe
from hmyframe.devnet import Chain, Devnet
from hmyframe.devnet.model import ZERO_ADDRESS, Transaction, flatten_trace
from hmyframe.errors import ConfigError

JSON = {"Content-Type": "application/json"}
NET = {"blocks": 700, "seed": 13, "dex_density": 2}
HEAD = NET["blocks"] - 1
MAINNET_RECEIPTS = "mainnet-2023/hmy_getBlockReceipts__getblock-docs.json"


def keccak_hex(text: str) -> str:
    return keccak.new(digest_bits=256, data=text.encode()).hexdigest()


def topic(signature: str) -> str:
    return "0x" + keccak_hex(signature)


def sel(signature: str) -> str:
    return keccak_hex(signature)[:8]


TRANSFER = topic("Transfer(address,address,uint256)")
SYNC = topic("Sync(uint112,uint112)")
SWAP = topic("Swap(address,uint256,uint256,uint256,uint256,address)")
MINT = topic("Mint(address,uint256,uint256)")
BURN = topic("Burn(address,uint256,uint256,address)")
PAIR_CREATED = topic("PairCreated(address,address,address,uint256)")
DEPOSIT = topic("Deposit(address,uint256)")
WITHDRAWAL = topic("Withdrawal(address,uint256)")
LETTER = {TRANSFER: "T", SYNC: "Y", SWAP: "W", MINT: "M", BURN: "B", PAIR_CREATED: "P", DEPOSIT: "D"}
LETTER[WITHDRAWAL] = "X"

#: The standard UniswapV2Router02 / WETH9 functions the devnet's traders call, by ABI.
ROUTER_ABI = {
    sel(f"{name}({','.join(types)})"): (name, types)
    for name, types in (
        ("swapExactTokensForTokens", ["uint256", "uint256", "address[]", "address", "uint256"]),
        ("swapExactETHForTokens", ["uint256", "address[]", "address", "uint256"]),
        ("swapExactTokensForETH", ["uint256", "uint256", "address[]", "address", "uint256"]),
        (
            "addLiquidity",
            ["address", "address", "uint256", "uint256", "uint256", "uint256", "address", "uint256"],
        ),
        ("removeLiquidity", ["address", "address", "uint256", "uint256", "uint256", "address", "uint256"]),
        ("deposit", []),
        ("withdraw", ["uint256"]),
        ("mint", ["address", "uint256"]),
    )
}


def words(data: str) -> list[int]:
    raw = bytes.fromhex(data[2:] if data.startswith("0x") else data)
    assert len(raw) % 32 == 0, data
    return [int.from_bytes(raw[i : i + 32], "big") for i in range(0, len(raw), 32)]


def as_address(word: int) -> str:
    assert word < 2**160
    return f"0x{word:040x}"


def decode(types: list[str], data: str) -> list[Any]:
    """ABI-decode ``data`` (no selector) as ``types`` (uint256, address, address[]), checking
    that the encoding is canonical: offsets where the ABI puts them and nothing left over."""
    w = words(data)
    out: list[Any] = []
    tail = 32 * len(types)
    for i, kind in enumerate(types):
        if kind == "uint256":
            out.append(w[i])
        elif kind == "address":
            out.append(as_address(w[i]))
        else:
            assert w[i] == tail, (kind, w[i], tail)
            n = w[tail // 32]
            out.append([as_address(x) for x in w[tail // 32 + 1 : tail // 32 + 1 + n]])
            tail += 32 * (n + 1)
    assert len(w) * 32 == tail, "trailing or missing words"
    return out


def address_of(topic_word: str) -> str:
    assert topic_word[:26] == "0x" + "0" * 24
    return "0x" + topic_word[-40:]


@pytest.fixture(scope="module")
def net() -> Iterator[Devnet]:
    with Devnet(**NET, validator_rate_limit=False) as devnet:
        yield devnet


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def result(http: aiohttp.ClientSession, url: str, method: str, params: list[Any]) -> Any:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    async with http.post(url, data=body, headers=JSON) as resp:
        assert resp.status == 200
        answer = json.loads(await resp.read())
    assert "error" not in answer, (method, params, answer)
    return answer["result"]


async def call(http: aiohttp.ClientSession, url: str, to: str, data: str, block: int) -> str:
    answer: str = await result(http, url, "hmy_call", [{"to": to, "data": data}, hex(block)])
    return answer


def dex_transactions(chain: Chain, shard: int) -> list[Transaction]:
    traders = {chain.dex_trader(i) for i in range(48)}
    blocks = chain.iter_blocks(shard, 1, chain.head(shard))
    return [tx for b in blocks for tx in b.transactions if tx.sender in traders]


def pattern(logs: list[dict[str, Any]]) -> str:
    return "".join(LETTER.get(log["topics"][0], "?") for log in logs)


def layout(logs: list[dict[str, Any]]) -> dict[str, set[tuple[int, int]]]:
    """Per event letter: the (topics, data bytes) shapes seen."""
    out: dict[str, set[tuple[int, int]]] = defaultdict(set)
    for log in logs:
        out[LETTER[log["topics"][0]]].add((len(log["topics"]), (len(log["data"]) - 2) // 2))
    return out


def swaps_of(logs: list[dict[str, Any]]) -> list[tuple[str, list[int], str]]:
    """(pair, [amount0In, amount1In, amount0Out, amount1Out], to) of each Swap log."""
    return [
        (log["address"], words(log["data"]), address_of(log["topics"][2]))
        for log in logs
        if log["topics"][0] == SWAP
    ]


# --------------------------------------------------------------------------- the mainnet shape


def three_hop(chain: Chain) -> Transaction:
    return next(
        tx
        for tx in dex_transactions(chain, 0)
        if tx.success and tx.input[2:10] == sel("swapExactTokensForTokens(uint256,uint256,address[],address,uint256)")
        and len(decode(ROUTER_ABI[tx.input[2:10]][1], tx.input[10:])[2]) == 4
    )  # fmt: skip


async def test_three_hop_swap_has_the_shape_of_the_mainnet_block(
    net: Devnet, http: aiohttp.ClientSession
) -> None:
    mainnet = by_id(MAINNET_RECEIPTS).result[0]
    tx = three_hop(net.chain)
    receipt = await result(http, net.urls[0], "hmy_getTransactionReceipt", [tx.hash])
    ours, theirs = receipt["logs"], mainnet["logs"]
    # per hop: Transfer(s) then Sync then Swap; the mainnet bot's first hop moves three tokens first
    assert pattern(theirs) == "TTTYWTYWTYW"
    assert pattern(ours) == "TTYWTYWTYW"
    hop = re.compile(r"^T+(T+YW){3}$")
    assert hop.match(pattern(theirs))
    assert hop.match(pattern(ours))
    assert layout(ours) == layout(theirs) == {"T": {(3, 32)}, "Y": {(1, 64)}, "W": {(3, 128)}}
    assert set(ours[0]) == set(theirs[0])  # the same keys on every log
    assert set(mainnet) <= set(receipt)
    for logs in (ours, theirs):
        swaps = swaps_of(logs)
        pairs = [p for p, _, _ in swaps]
        assert len(set(pairs)) == 3
        for k, log in enumerate(logs):  # Sync and Swap of a hop come from the same pair
            if log["topics"][0] == SYNC:
                assert logs[k + 1]["topics"][0] == SWAP
                assert logs[k + 1]["address"] == log["address"]
        for i, (_, amounts, to) in enumerate(swaps):
            a0_in, a1_in, a0_out, a1_out = amounts
            assert (a0_in > 0) != (a1_in > 0)  # one token in, the other out
            assert (a0_out > 0) != (a1_out > 0)
            assert (a0_in > 0) == (a1_out > 0)
            if i + 1 < len(swaps):  # each hop pays the next pair, which swaps exactly that
                assert to == pairs[i + 1]
                next_in = swaps[i + 1][1]
                assert max(a0_out, a1_out) == max(next_in[0], next_in[1])
    # the devnet's: the trader pays pair 1, each pair's Transfer out goes where its Swap says
    amount_in, minimum, path, to, deadline = decode(ROUTER_ABI[tx.input[2:10]][1], tx.input[10:])
    assert to == tx.sender
    assert deadline > tx.timestamp
    first = ours[0]
    assert first["address"] == path[0]
    assert address_of(first["topics"][1]) == tx.sender
    assert address_of(first["topics"][2]) == swaps_of(ours)[0][0]
    assert words(first["data"]) == [amount_in]
    for i, (pair, amounts, hop_to) in enumerate(swaps_of(ours)):
        out = ours[3 * i + 1]
        assert out["address"] == path[i + 1]
        assert address_of(out["topics"][1]) == pair
        assert address_of(out["topics"][2]) == hop_to
        assert words(out["data"])[0] == max(amounts[2:])
    assert max(swaps_of(ours)[-1][1][2:]) >= minimum


async def test_three_hop_swap_trace_calls_the_pairs(net: Devnet, http: aiohttp.ClientSession) -> None:
    tx = three_hop(net.chain)
    dex = net.chain.dex(0)
    _, _, path, _, _ = decode(ROUTER_ABI[tx.input[2:10]][1], tx.input[10:])
    traces = await result(http, net.trace_urls[0], "trace_transaction", [tx.hash])
    shape = [
        (
            t["traceAddress"],
            t["action"]["callType"],
            t["action"]["from"],
            t["action"]["to"],
            t["action"]["input"][2:10],
            t["subtraces"],
        )
        for t in traces
    ]
    pairs = [log.address for log in tx.logs if log.topics[0] == SYNC]
    router = dex.router
    get_reserves, balance_of = sel("getReserves()"), sel("balanceOf(address)")
    expected = [([], "call", tx.sender, router, tx.input[2:10], 7)]
    expected += [([i], "staticcall", router, pairs[i], get_reserves, 0) for i in range(3)]
    expected += [([3], "call", router, path[0], sel("transferFrom(address,address,uint256)"), 0)]
    for i in range(3):
        expected += [([4 + i], "call", router, pairs[i], sel("swap(uint256,uint256,address,bytes)"), 3)]
        expected += [([4 + i, 0], "call", pairs[i], path[i + 1], sel("transfer(address,uint256)"), 0)]
        tokens = sorted([path[i], path[i + 1]])
        expected += [([4 + i, 1 + k], "staticcall", pairs[i], tokens[k], balance_of, 0) for k in range(2)]
    assert shape == expected
    assert all(t["action"].get("value", "0x0") == "0x0" for t in traces)
    assert all("error" not in t for t in traces)
    # the pair's swap call: (amount0Out, amount1Out, to, offset of data, empty data)
    swap = next(t for t in traces if t["traceAddress"] == [4])
    _, _, to, offset, length = words(swap["action"]["input"][10:])
    assert (offset, length) == (128, 0)
    assert as_address(to) == pairs[1]
    assert int(traces[0]["result"]["gasUsed"], 16) + 21_000 <= tx.gas_used
    assert all(int(t["result"]["gasUsed"], 16) <= int(t["action"]["gas"], 16) for t in traces)
    assert words(traces[0]["result"]["output"])[:2] == [32, 4]  # uint256[] amounts


async def test_one_in_and_out_through_wone(net: Devnet, http: aiohttp.ClientSession) -> None:
    chain = net.chain
    dex = chain.dex(0)
    txs = dex_transactions(chain, 0)
    eth_in = next(
        t for t in txs if t.success and t.input[2:10] == sel("swapExactETHForTokens(uint256,address[],address,uint256)")
    )  # fmt: skip
    receipt = await result(http, net.urls[0], "hmy_getTransactionReceipt", [eth_in.hash])
    logs = receipt["logs"]
    assert re.match(r"^DT(TYW)+$", pattern(logs))
    _, path, to, _ = decode(ROUTER_ABI[eth_in.input[2:10]][1], eth_in.input[10:])
    assert path[0] == dex.wone
    assert to == eth_in.sender
    deposit = logs[0]
    assert deposit["address"] == dex.wone
    assert address_of(deposit["topics"][1]) == dex.router
    assert words(deposit["data"]) == [eth_in.value]
    assert eth_in.value > 0
    trace = await result(http, net.trace_urls[0], "trace_transaction", [eth_in.hash])
    assert int(trace[0]["action"]["value"], 16) == eth_in.value
    wrap = next(t for t in trace if t["action"]["input"] == "0x" + sel("deposit()"))
    assert (wrap["action"]["from"], wrap["action"]["to"], wrap["action"]["callType"]) == (
        dex.router,
        dex.wone,
        "call",
    )
    assert int(wrap["action"]["value"], 16) == eth_in.value
    # tokens for ONE: the last hop pays the router in WONE, which WONE turns back into ONE
    eth_out = next(
        t for t in txs if t.success and t.input[2:10] == sel("swapExactTokensForETH(uint256,uint256,address[],address,uint256)")
    )  # fmt: skip
    receipt = await result(http, net.urls[0], "hmy_getTransactionReceipt", [eth_out.hash])
    assert re.match(r"^T(TYW)+X$", pattern(receipt["logs"]))
    out = words(receipt["logs"][-1]["data"])[0]
    trace = await result(http, net.trace_urls[0], "trace_transaction", [eth_out.hash])
    values = [
        (t["action"]["from"], t["action"]["to"], int(t["action"]["value"], 16), t["action"]["input"])
        for t in trace
        if int(t["action"].get("value", "0x0"), 16)
    ]
    assert values == [(dex.wone, dex.router, out, "0x"), (dex.router, eth_out.sender, out, "0x")]
    unwrap = next(t for t in trace if t["action"]["input"][2:10] == sel("withdraw(uint256)"))
    assert words(unwrap["action"]["input"][10:]) == [out]
    assert unwrap["subtraces"] == 1
    assert int(eth_out.value) == 0
    # WONE by hand: a deposit is the transaction's value, a withdrawal an inner call with value
    deposit_tx = next(t for t in txs if t.to == dex.wone and t.input == "0x" + sel("deposit()"))
    assert deposit_tx.value > 0
    assert [(log.topics[0], log.data) for log in deposit_tx.logs] == [(DEPOSIT, f"0x{deposit_tx.value:064x}")]
    withdraw_tx = next(t for t in txs if t.to == dex.wone and t.input[2:10] == sel("withdraw(uint256)"))
    (wad,) = decode(["uint256"], withdraw_tx.input[10:])
    trace = await result(http, net.trace_urls[0], "trace_transaction", [withdraw_tx.hash])
    assert [(t["traceAddress"], t["action"]["to"], int(t["action"]["value"], 16)) for t in trace] == [
        ([], dex.wone, 0),
        ([0], withdraw_tx.sender, wad),
    ]
    assert int(trace[1]["action"]["gas"], 16) == 2_300  # address.transfer: the stipend
    assert [log.topics[0] for log in withdraw_tx.logs] == [WITHDRAWAL]


async def test_liquidity_added_and_removed(net: Devnet, http: aiohttp.ClientSession) -> None:
    chain = net.chain
    dex = chain.dex(0)
    txs = dex_transactions(chain, 0)
    add = sel("addLiquidity(address,address,uint256,uint256,uint256,uint256,address,uint256)")
    created = [t for t in txs if t.success and t.input[2:10] == add and t.logs[0].topics[0] == PAIR_CREATED]
    assert len(created) == len(dex.pairs)  # each pair created by its first addLiquidity
    for number, tx in enumerate(created, start=1):
        receipt = await result(http, net.urls[0], "hmy_getTransactionReceipt", [tx.hash])
        logs = receipt["logs"]
        assert pattern(logs) == "PTTTTYM"
        token_a, token_b, *_ = decode(ROUTER_ABI[add][1], tx.input[10:])
        token0, token1 = sorted([token_a, token_b])
        pair_address, index = words(logs[0]["data"])
        pair = as_address(pair_address)
        assert logs[0]["address"] == dex.factory
        assert [address_of(t) for t in logs[0]["topics"][1:]] == [token0, token1]
        assert index == number
        lp_lock, lp_mint = logs[3], logs[4]
        assert lp_lock["address"] == lp_mint["address"] == pair
        assert [address_of(t) for t in lp_lock["topics"][1:]] == [ZERO_ADDRESS, ZERO_ADDRESS]
        assert words(lp_lock["data"]) == [1_000]  # MINIMUM_LIQUIDITY, locked forever
        amount0, amount1 = words(logs[6]["data"])
        assert words(logs[5]["data"]) == [amount0, amount1]  # the first Sync: what was sent
        assert words(lp_mint["data"])[0] == math.isqrt(amount0 * amount1) - 1_000  # the first liquidity
        trace = await result(http, net.trace_urls[0], "trace_transaction", [tx.hash])
        kinds = [(t["traceAddress"], t["type"], t["action"].get("callType")) for t in trace]
        assert kinds[:5] == [
            ([], "call", "call"),
            ([0], "call", "staticcall"),  # getPair: none yet
            ([1], "call", "call"),  # createPair
            ([1, 0], "create", None),  # the pair
            ([1, 1], "call", "call"),  # initialize(token0, token1)
        ]
        assert trace[3]["result"]["address"] == pair
        assert trace[3]["action"]["from"] == dex.factory
        assert (
            trace[4]["action"]["input"]
            == "0x" + sel("initialize(address,address)") + "0" * 24 + token0[2:] + "0" * 24 + token1[2:]
        )
    remove = sel("removeLiquidity(address,address,uint256,uint256,uint256,address,uint256)")
    removal = next(t for t in txs if t.success and t.input[2:10] == remove)
    receipt = await result(http, net.urls[0], "hmy_getTransactionReceipt", [removal.hash])
    logs = receipt["logs"]
    assert pattern(logs) == "TTTTYB"
    _, _, liquidity, _, _, to, _ = decode(ROUTER_ABI[remove][1], removal.input[10:])
    pair = logs[0]["address"]
    assert [address_of(t) for t in logs[0]["topics"][1:]] == [removal.sender, pair]
    assert [address_of(t) for t in logs[1]["topics"][1:]] == [pair, ZERO_ADDRESS]
    assert words(logs[0]["data"]) == words(logs[1]["data"]) == [liquidity]
    burn = logs[5]
    assert len(burn["topics"]) == 3
    assert [address_of(t) for t in burn["topics"][1:]] == [dex.router, to]
    assert words(burn["data"]) == [words(logs[2]["data"])[0], words(logs[3]["data"])[0]]


# --------------------------------------------------------------------------- state by call


async def all_logs(http: aiohttp.ClientSession, url: str, crit: dict[str, Any], head: int) -> list[Any]:
    logs: list[Any] = []
    for start in range(0, head + 1, 1024):
        span = {**crit, "fromBlock": hex(start), "toBlock": hex(min(start + 1023, head))}
        logs.extend(await result(http, url, "hmy_getLogs", [span]))
    return logs


@pytest.mark.parametrize("shard", [0, 1])
async def test_reserves_replayed_from_sync_equal_get_reserves(
    net: Devnet, http: aiohttp.ClientSession, shard: int
) -> None:
    url = net.urls[shard]
    dex = net.chain.dex(shard)
    pairs = [p.address for p in dex.pairs]
    logs = await all_logs(http, url, {"address": pairs}, HEAD)
    reserves: dict[str, tuple[int, int]] = {}
    history: dict[int, dict[str, tuple[int, int]]] = {}
    swaps = 0
    for k, log in enumerate(logs):
        pair = log["address"]
        if log["topics"][0] != SYNC:
            continue
        new = tuple(words(log["data"]))
        assert len(new) == 2  # two uint112 words
        assert max(new) < 2**112
        before = reserves.get(pair, (0, 0))
        event = logs[k + 1]
        assert event["address"] == pair
        assert event["transactionHash"] == log["transactionHash"]
        if event["topics"][0] == SWAP:
            in0, in1, out0, out1 = words(event["data"])
            assert new == (before[0] + in0 - out0, before[1] + in1 - out1)
            assert new[0] * new[1] >= before[0] * before[1]  # k never decreases across a swap
            # the fee: what went in, less 0.3 %, keeps k (the pair's own check)
            assert (new[0] * 1000 - in0 * 3) * (new[1] * 1000 - in1 * 3) >= before[0] * before[1] * 10**6
            swaps += 1
        elif event["topics"][0] == MINT:
            amount0, amount1 = words(event["data"])
            assert new == (before[0] + amount0, before[1] + amount1)
        else:
            assert event["topics"][0] == BURN
            amount0, amount1 = words(event["data"])
            assert new == (before[0] - amount0, before[1] - amount1)
        reserves[pair] = new  # type: ignore[assignment]
        history.setdefault(int(log["blockNumber"], 16), {})[pair] = new  # type: ignore[assignment]
    assert swaps > 100
    assert set(reserves) == set(pairs)
    # getReserves() at the end block and at a block half-way, against the replay up to it
    for at in (HEAD, HEAD // 2):
        replay: dict[str, tuple[int, int]] = {}
        for number in sorted(n for n in history if n <= at):
            replay.update(history[number])
        for pair in pairs:
            answer = await call(http, url, pair, "0x" + sel("getReserves()"), at)
            r0, r1, stamp = words(answer)
            assert (r0, r1) == replay.get(pair, (0, 0)), (pair, at)
            if pair in replay:
                assert 0 < stamp < 2**32
    # the HUGE pairs hold more than 2**64 (up to the uint112 bound), the dUSD ones 6-decimal amounts
    huge = net.chain.tokens(shard)[1].address
    big = [max(reserves[p.address]) for p in dex.pairs if huge in (p.token0, p.token1)]
    assert len(big) == 2
    assert min(big) > 10**32


async def test_factory_pairs_and_wone_answer_by_call(net: Devnet, http: aiohttp.ClientSession) -> None:
    url = net.urls[0]
    chain = net.chain
    dex = chain.dex(0)
    created = await all_logs(http, url, {"address": dex.factory, "topics": [PAIR_CREATED]}, HEAD)
    length = await call(http, url, dex.factory, "0x" + sel("allPairsLength()"), HEAD)
    assert words(length) == [len(created)] == [len(dex.pairs)]
    for index, log in enumerate(created):
        pair = as_address(words(log["data"])[0])
        token0, token1 = (address_of(t) for t in log["topics"][1:])
        assert token0 < token1
        assert words(await call(http, url, dex.factory, "0x" + sel("allPairs(uint256)") + f"{index:064x}", HEAD)) == [
            int(pair, 16)
        ]  # fmt: skip
        for a, b in ((token0, token1), (token1, token0)):
            data = "0x" + sel("getPair(address,address)") + "0" * 24 + a[2:] + "0" * 24 + b[2:]
            assert as_address(words(await call(http, url, dex.factory, data, HEAD))[0]) == pair
            before = await call(http, url, dex.factory, data, int(log["blockNumber"], 16) - 1)
            assert as_address(words(before)[0]) == ZERO_ADDRESS
        assert as_address(words(await call(http, url, pair, "0x" + sel("token0()"), HEAD))[0]) == token0
        assert as_address(words(await call(http, url, pair, "0x" + sel("token1()"), HEAD))[0]) == token1
        code_before = await result(http, url, "hmy_getCode", [pair, hex(int(log["blockNumber"], 16) - 1)])
        assert code_before == "0x"
        assert len(await result(http, url, "hmy_getCode", [pair, hex(HEAD)])) > 100
        # LP supply: every LP Transfer from / to the zero address, against totalSupply()
        lp = await all_logs(http, url, {"address": pair, "topics": [TRANSFER]}, HEAD)
        minted = sum(words(x["data"])[0] for x in lp if address_of(x["topics"][1]) == ZERO_ADDRESS)
        # (the first mint's 1,000 locked are a Transfer from and to the zero address: minted only)
        burnt = sum(
            words(x["data"])[0]
            for x in lp
            if address_of(x["topics"][2]) == ZERO_ADDRESS != address_of(x["topics"][1])
        )
        supply = words(await call(http, url, pair, "0x" + sel("totalSupply()"), HEAD))[0]
        assert supply == minted - burnt > 1_000
        # the pair's token balances are its reserves
        r0, r1, _ = words(await call(http, url, pair, "0x" + sel("getReserves()"), HEAD))
        for token, reserve in ((token0, r0), (token1, r1)):
            data = "0x" + sel("balanceOf(address)") + "0" * 24 + pair[2:]
            assert words(await call(http, url, token, data, HEAD)) == [reserve]
    decimals = {}
    for pair in dex.pairs:
        for token in (pair.token0, pair.token1):
            decimals[token] = words(await call(http, url, token, "0x" + sel("decimals()"), HEAD))[0]
    assert sorted(set(decimals.values())) == [6, 8, 18]
    # WONE: deposits less withdrawals is its supply (and the ONE it holds)
    logs = await all_logs(http, url, {"address": dex.wone, "topics": [[DEPOSIT, WITHDRAWAL]]}, HEAD)
    wrapped = sum(words(x["data"])[0] * (1 if x["topics"][0] == DEPOSIT else -1) for x in logs)
    assert words(await call(http, url, dex.wone, "0x" + sel("totalSupply()"), HEAD)) == [wrapped]
    name = bytes.fromhex((await call(http, url, dex.wone, "0x" + sel("name()"), HEAD))[2 + 128 :])
    assert name.rstrip(b"\0") == b"Wrapped ONE"
    # the router quotes what the pair would pay (getAmountsOut by call)
    pair = dex.pairs[0]
    r0, r1, _ = words(await call(http, url, pair.address, "0x" + sel("getReserves()"), HEAD))
    data = (
        "0x" + sel("getAmountsOut(uint256,address[])") + f"{10**18:064x}" + f"{64:064x}" + f"{2:064x}"
        + "0" * 24 + pair.token0[2:] + "0" * 24 + pair.token1[2:]
    )  # fmt: skip
    quote = words(await call(http, url, dex.router, data, HEAD))
    assert quote == [32, 2, 10**18, 10**18 * 997 * r1 // (r0 * 1000 + 10**18 * 997)]


async def test_token_ledger_balance_of_and_token_transfers_agree(
    net: Devnet, http: aiohttp.ClientSession
) -> None:
    chain = net.chain
    url = net.urls[0]
    dex = chain.dex(0)
    transfers = hmyframe.token_transfers(0, HEAD, rpc=net, cache=False)
    by_token = {token: rows for token, rows in transfers.groupby("token_address_hex")}
    hrc20 = {t.address for t in chain.tokens(0) if t.standard == "hrc20"}
    checked = 0
    for token in sorted({t for p in dex.pairs for t in (p.token0, p.token1)} & hrc20):
        rows = by_token[token]
        balances: Counter[str] = Counter()
        for sender, receiver, amount in zip(
            rows.from_address_hex, rows.to_address_hex, rows.amount, strict=True
        ):
            balances[sender] -= int(amount)
            balances[receiver] += int(amount)
        supply = -balances.pop(ZERO_ADDRESS)
        ledger_supply, ledger = chain.token_balances(0, token, HEAD)
        assert supply == ledger_supply
        assert {a: b for a, b in balances.items() if b} == ledger
        assert words(await call(http, url, token, "0x" + sel("totalSupply()"), HEAD)) == [supply]
        pairs = [p.address for p in dex.pairs if token in (p.token0, p.token1)]
        traders = [a for a in ledger if a in {chain.dex_trader(i) for i in range(48)}]
        assert pairs
        assert traders
        for account in pairs + traders[:5]:
            data = "0x" + sel("balanceOf(address)") + "0" * 24 + account[2:]
            assert words(await call(http, url, token, data, HEAD)) == [ledger[account]]
            checked += 1
    assert checked > 10


async def test_overflowing_swaps_revert_whole(net: Devnet, http: aiohttp.ClientSession) -> None:
    failed = [t for t in dex_transactions(net.chain, 0) if not t.success]
    reasons = Counter()
    for tx in failed:
        assert tx.trace is not None
        assert tx.trace.revert is not None
        data = bytes.fromhex(tx.trace.revert[2:])
        reasons[data[68 : 68 + int.from_bytes(data[36:68], "big")].decode() if len(data) > 4 else ""] += 1
    assert {"UniswapV2: OVERFLOW", "TransferHelper: TRANSFER_FROM_FAILED"} <= set(reasons)
    assert "UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT" in reasons
    overflow = next(t for t in failed if t.trace and b"OVERFLOW" in bytes.fromhex(t.trace.revert[2:]))  # type: ignore[index]
    amount_in = decode(ROUTER_ABI[overflow.input[2:10]][1], overflow.input[10:])[0]
    assert amount_in > 10**38  # more than a uint112 reserve can take
    receipt = await result(http, net.urls[0], "hmyv2_getTransactionReceipt", [overflow.hash])
    assert receipt["status"] == 0
    assert receipt["logs"] == []
    traces = await result(http, net.trace_urls[0], "trace_transaction", [overflow.hash])
    swap = next(t for t in traces if t["action"]["input"][2:10] == sel("swap(uint256,uint256,address,bytes)"))
    assert swap["error"] == traces[0]["error"] == "Reverted"
    assert swap["revert"] == traces[0]["revert"] == overflow.trace.revert
    # the HUGE moved into the pair (a call that succeeded) before the pair refused it
    moved = next(
        k
        for k, t in enumerate(traces)
        if t["action"]["input"][2:10] == sel("transferFrom(address,address,uint256)")
    )
    assert "error" not in traces[moved]
    assert words(traces[moved]["action"]["input"][10:])[2] == amount_in
    assert moved < traces.index(swap)


async def test_inputs_decode_with_the_uniswap_abis_and_nonces_count(
    net: Devnet, http: aiohttp.ClientSession
) -> None:
    chain = net.chain
    dex = chain.dex(0)
    tokens = {t.address for t in chain.tokens(0)} | {dex.wone}
    seen: Counter[str] = Counter()
    sent: Counter[str] = Counter()
    for tx in dex_transactions(chain, 0):
        name, types = ROUTER_ABI[tx.input[2:10]]
        args = decode(types, tx.input[10:])
        seen[name] += 1
        assert tx.nonce == sent[tx.sender]
        sent[tx.sender] += 1
        if name.startswith("swap"):
            path = args[-3]
            assert 2 <= len(path) <= 4
            assert set(path) <= tokens
            assert len(set(path)) == len(path)
            assert args[-2] == tx.sender
            assert args[-1] > tx.timestamp
            assert (tx.value > 0) == (name == "swapExactETHForTokens")
            assert tx.to == dex.router
        elif name in ("deposit", "withdraw"):
            assert tx.to == dex.wone
        elif name == "mint":
            assert tx.to in tokens
            assert args[0] == tx.sender == chain.dex_trader(0)
        else:
            assert tx.to == dex.router
            assert args[-2] == tx.sender
    assert set(seen) == {abi[0] for abi in ROUTER_ABI.values()}
    assert seen["swapExactTokensForTokens"] > 50
    for sender, count in sent.most_common(3):
        answer = await result(http, net.urls[0], "hmyv2_getTransactionCount", [sender, HEAD])
        assert answer == count


# --------------------------------------------------------------------------- determinism


def test_dex_density_leaves_plain_and_token_transactions_alone() -> None:
    without = Chain(seed=5, blocks=300, token_density=2, dex_density=0)
    with_dex = Chain(seed=5, blocks=300, token_density=2, dex_density=3)
    extra = 0
    for n in range(300):
        a, b = without.block(1, n), with_dex.block(1, n)
        assert b.transactions[: len(a.transactions)] == a.transactions
        assert (a.state_root, a.vrf, a.hash) == (b.state_root, b.vrf, b.hash)
        extra += len(b.transactions) - len(a.transactions)
        assert with_dex.transaction_counts(1, n, n) == [len(b.transactions)]
        if not a.transactions:
            assert not b.transactions
    assert extra > 300
    assert without.token_ledger(1, 299) == with_dex.token_ledger(1, 299)


def test_random_access_equals_sequential_generation() -> None:
    forward = Chain(seed=8, blocks=600, dex_density=2)
    backward = Chain(seed=8, blocks=600, dex_density=2)
    numbers = [*range(1, 600, 37)]
    ahead = {n: forward.block(0, n).transactions for n in numbers}
    for n in reversed(numbers):
        assert backward.block(0, n).transactions == ahead[n]
    assert forward.dex_ledger(0, 599) == backward.dex_ledger(0, 599)
    assert Chain(seed=8, blocks=300, dex_density=2).dex_ledger(0, 299) == forward.dex_ledger(0, 299)


def test_dex_density_is_checked() -> None:
    with pytest.raises(
        ConfigError, match=r"dex_density=-1 must be a number of transactions per block from 0 to 50"
    ):
        Chain(dex_density=-1)
    with pytest.raises(ConfigError, match="dex_density"):
        Devnet(dex_density="lots")  # type: ignore[arg-type]
    quiet = Chain(seed=2, blocks=50, dex_density=0)
    assert quiet.dex_ledger(0, 49).pairs == []
    assert quiet.code(0, quiet.dex(0).pairs[0].address, 49) == "0x"
    assert quiet.code(0, quiet.dex(0).router, 49) != "0x"  # deployed at genesis all the same


def test_traces_balance_their_gas() -> None:
    chain = Chain(seed=13, blocks=200, dex_density=4)
    txs = dex_transactions(chain, 0)
    assert len(txs) > 200
    for tx in txs:
        assert tx.trace is not None
        raw = bytes.fromhex(tx.input[2:])
        intrinsic = 21_000 + 4 * raw.count(0) + 16 * (len(raw) - raw.count(0))
        assert tx.gas_used == intrinsic + tx.trace.gas_used <= tx.gas
        assert tx.trace.gas == tx.gas - intrinsic
        for _, frame in flatten_trace(tx.trace):
            assert sum(c.gas_used for c in frame.children) < frame.gas_used <= frame.gas or not frame.gas_used
            assert all(c.gas <= frame.gas for c in frame.children)
