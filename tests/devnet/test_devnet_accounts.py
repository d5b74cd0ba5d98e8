"""The devnet's accounts: balances folded from its own chain, the explorer index, delegations by
delegator and the CollectRewards receipt log, over real HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import aiohttp
import pytest

from hmyframe.addresses import to_one
from hmyframe.devnet import Chain, Devnet
from hmyframe.devnet._gen_accounts import COLLECT_REWARDS_TOPIC
from hmyframe.devnet.bloom import keccak256

#: Short epochs so undelegations mature (7 epochs) and rewards are collected within the chain.
STAKING_CHAIN = {"seed": 3, "blocks": 400, "epoch_length": 20, "validators": 40}


@pytest.fixture(scope="module")
def chain() -> Chain:
    return Chain(**STAKING_CHAIN)


@pytest.fixture(scope="module")
def net() -> Iterator[Devnet]:
    with Devnet(**STAKING_CHAIN, validator_rate_limit=False) as devnet:
        yield devnet


async def _call(url: str, method: str, params: list[Any]) -> dict[str, Any]:
    payload = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    async with aiohttp.ClientSession() as http, http.post(url, json=payload) as resp:
        assert resp.status == 200
        answer: dict[str, Any] = json.loads(await resp.read())
        return answer


def test_collect_rewards_topic_is_the_nodes() -> None:
    # staking/params.go: CollectRewardsTopic = crypto.Keccak256Hash([]byte("Harmony/CollectRewards"))
    assert "0x" + keccak256(b"Harmony/CollectRewards").hex() == COLLECT_REWARDS_TOPIC
    assert COLLECT_REWARDS_TOPIC == "0xef0a8d7b9b8cbde3c16f5ea86afc300881518ffc9f6e8c8f6984e0037eec16fb"


def test_balances_follow_the_blocks_movements(chain: Chain) -> None:
    """balance(n) - balance(n - 1) is exactly the sum of block n's movements, for every
    address that moved, on both shards; no balance is ever negative."""
    kinds: set[str] = set()
    for shard in range(2):
        for n in range(1, 400):
            per: dict[str, int] = {}
            for m in chain.balance_movements(shard, n):
                per[m.address] = per.get(m.address, 0) + m.amount
                kinds.add(m.kind)
            for address, delta in per.items():
                assert chain.balance(shard, address, n) - chain.balance(shard, address, n - 1) == delta
        for address in chain.accounts(shard, 399):
            assert chain.balance(shard, address, 399) >= 0, address
    assert kinds == {
        "fee", "value_in", "value_out", "cx_out", "cx_in", "delegate", "create_validator",
        "collect_rewards", "undelegation_payout",
    }  # fmt: skip


def test_an_unchanged_account_keeps_its_genesis_balance(chain: Chain) -> None:
    stranger = "0x" + "ab" * 20  # not made by the devnet: holds nothing
    assert chain.balance(0, stranger, 399) == 0
    validator = chain.validator_addresses()[-1]
    assert chain.balance(1, validator, 0) == chain.genesis_balance(1, validator) > 10**30


def test_collect_rewards_log_carries_the_payout(chain: Chain) -> None:
    found = 0
    for n in range(1, 400):
        block = chain.block(0, n)
        plain_logs = sum(len(tx.logs) for tx in block.transactions)
        for stx in block.staking_transactions:
            if stx.directive != "CollectRewards":
                assert stx.logs == ()
                continue
            (log,) = stx.logs
            paid = [
                m.amount
                for m in chain.balance_movements(0, n)
                if m.kind == "collect_rewards" and m.tx_hash == stx.hash
            ]
            assert paid
            assert paid[0] > 0
            assert log.address == stx.sender
            assert log.topics == (COLLECT_REWARDS_TOPIC,)
            assert int(log.data, 16) == paid[0]
            assert len(log.data) % 2 == 0
            assert log.data[2:4] != "00"
            assert log.log_index >= plain_logs
            found += 1
    assert found >= 5


async def test_balance_by_block_number_both_generations(net: Devnet, chain: Chain) -> None:
    n = next(n for n in range(120, 400) if chain.block(0, n).transactions)
    sender = chain.block(0, n).transactions[0].sender
    want = chain.balance(0, sender, n)
    v1 = await _call(net.urls[0], "hmy_getBalanceByBlockNumber", [to_one(sender), hex(n)])
    v2 = await _call(net.urls[0], "hmyv2_getBalanceByBlockNumber", [sender, n])
    assert v1["result"] == hex(want)
    assert v2["result"] == want
    # after block N: block n's own fee is in the answer for n but not for n - 1
    before = await _call(net.urls[0], "hmyv2_getBalanceByBlockNumber", [sender, n - 1])
    assert before["result"] == chain.balance(0, sender, n - 1) != want
    latest = await _call(net.urls[1], "hmyv2_getBalance", [sender])
    assert latest["result"] == chain.balance(1, sender, 399)
    legacy = await _call(net.urls[1], "hmy_getBalance", [sender, "latest"])
    assert legacy["result"] == hex(chain.balance(1, sender, 399))


async def test_balance_errors_are_the_nodes(net: Devnet) -> None:
    too_high = await _call(net.urls[0], "hmyv2_getBalanceByBlockNumber", ["0x" + "11" * 20, 400])
    assert too_high["error"] == {
        "code": -32000,
        "message": "requested block number greater than current block number",
    }
    bad = await _call(net.urls[0], "hmyv2_getBalanceByBlockNumber", ["one1nope", 3])
    assert bad["error"] == {"code": -32000, "message": "invalid address: one1nope"}


async def test_history_pages_orders_and_types(net: Devnet, chain: Chain) -> None:
    sender = max(chain.accounts(0, 399), key=lambda a: len(chain.history(0, a)))
    entries = chain.history(0, sender)
    assert len(entries) > 12
    url = net.urls[0]
    args = {"address": to_one(sender), "pageSize": 5, "fullTx": False, "txType": "ALL", "order": "ASC"}
    pages = []
    for index in range(len(entries) // 5 + 2):
        page = await _call(url, "hmyv2_getTransactionsHistory", [{**args, "pageIndex": index}])
        pages.extend(page["result"]["transactions"])
    assert pages == [e.tx_hash for e in entries]
    desc = await _call(url, "hmy_getTransactionsHistory", [{**args, "pageSize": 0, "order": "DESC"}])
    assert desc["result"]["transactions"] == [e.tx_hash for e in entries][::-1][:100]
    sent = await _call(url, "hmyv2_getTransactionsHistory", [{**args, "pageSize": 1000, "txType": "SENT"}])
    assert sent["result"]["transactions"] == [e.tx_hash for e in entries if not e.received]
    full = await _call(url, "hmyv2_getTransactionsHistory", [{**args, "fullTx": True}])
    txs = full["result"]["transactions"]
    assert [t["hash"] for t in txs] == [e.tx_hash for e in entries[:5]]
    assert all(sender in (t["from"], t["to"]) or to_one(sender) in (t["from"], t["to"]) for t in txs)
    count = await _call(url, "hmyv2_getTransactionsCount", [sender, "SENT"])
    assert count["result"] == sum(not e.received for e in entries)
    bad_type = await _call(url, "hmyv2_getTransactionsHistory", [{**args, "txType": "BOTH"}])
    assert bad_type["result"] == {"transactions": []}
    wrong = await _call(url, "hmyv2_getTransactionsHistory", [{**args, "pageIndex": -1}])
    assert wrong["error"]["code"] == -32602
    assert "TxHistoryArgs.pageIndex of type uint32" in wrong["error"]["message"]


async def test_staking_history_lists_the_validators_received(net: Devnet, chain: Chain) -> None:
    delegate = next(
        stx
        for n in range(1, 400)
        for stx in chain.block(0, n).staking_transactions
        if stx.directive == "Delegate" and stx.sender != stx.msg["validatorAddress"]
    )
    validator = str(delegate.msg["validatorAddress"])
    args = {"address": validator, "pageIndex": 0, "pageSize": 1000, "fullTx": True, "txType": "RECEIVED"}
    got = await _call(net.urls[0], "hmyv2_getStakingTransactionsHistory", [args])
    hashes = [t["hash"] for t in got["result"]["staking_transactions"]]
    assert delegate.hash in hashes
    assert hashes == [e.tx_hash for e in chain.history(0, validator, staking=True) if e.received]


async def test_a_node_without_the_explorer_says_so(make_devnet: Any) -> None:
    net = make_devnet(blocks=30, explorer=False)
    args = {"address": "0x" + "11" * 20, "pageIndex": 0, "pageSize": 10}
    plain = await _call(net.urls[0], "hmyv2_getTransactionsHistory", [args])
    assert plain["error"] == {"code": -32000, "message": "explorer service not started"}
    staking = await _call(net.urls[0], "hmyv2_getStakingTransactionsHistory", [args])
    assert staking == {"jsonrpc": "2.0", "id": 1, "result": None}
    count = await _call(net.urls[0], "hmy_getTransactionsCount", [args["address"], "ALL"])
    assert count["error"]["message"] == "explorer service not started"


async def test_delegations_by_delegator_shapes(net: Devnet, chain: Chain) -> None:
    undelegator = next(
        stx.sender
        for n in range(1, 400)
        for stx in chain.block(0, n).staking_transactions
        if stx.directive == "Undelegate"
    )
    block = next(
        n
        for n in range(1, 400)
        if any(d.undelegations for _, d in chain.delegations_by_delegator(undelegator, n))
    )
    got = await _call(
        net.urls[0], "hmy_getDelegationsByDelegatorByBlockNumber", [to_one(undelegator), hex(block)]
    )
    want = chain.delegations_by_delegator(undelegator, block)
    assert [list(o) for o in got["result"]] == [
        ["Undelegations", "amount", "delegator_address", "reward", "validator_address"]
    ] * len(want)
    for obj, (validator, d) in zip(got["result"], want, strict=True):
        assert obj["validator_address"] == to_one(validator)
        assert obj["delegator_address"] == to_one(undelegator)
        assert (obj["amount"], obj["reward"]) == (d.amount, d.reward)  # JSON numbers in v1 too
        assert obj["Undelegations"] == [{"Amount": u.amount, "Epoch": u.epoch} for u in d.undelegations]
    nobody = "0x" + "22" * 20
    many = await _call(
        net.urls[0], "hmyv2_getDelegationsByDelegatorByBlockNumber", [[undelegator, nobody], block]
    )
    assert many["result"][0] == got["result"]
    assert many["result"][1] is None
    alone = await _call(net.urls[0], "hmyv2_getDelegationsByDelegatorByBlockNumber", [nobody, block])
    assert alone["result"] is None
    latest = await _call(net.urls[0], "hmyv2_getDelegationsByDelegator", [undelegator])
    assert len(latest["result"]) == len(chain.delegations_by_delegator(undelegator, 399))
    not_beacon = await _call(net.urls[1], "hmyv2_getDelegationsByDelegator", [undelegator])
    assert not_beacon["error"]["message"] == "cannot call this rpc on non beaconchain node"
    bad = await _call(net.urls[0], "hmyv2_getDelegationsByDelegatorByBlockNumber", [["one1bad"], 3])
    assert bad["error"] == {"code": -32602, "message": "invalid argument 0: invalid address: one1bad"}


async def test_staking_receipt_of_collect_rewards_has_the_log(net: Devnet, chain: Chain) -> None:
    stx = next(
        s
        for n in range(1, 400)
        for s in chain.block(0, n).staking_transactions
        if s.directive == "CollectRewards"
    )
    got = await _call(net.urls[0], "hmyv2_getTransactionReceipt", [stx.hash])
    (log,) = got["result"]["logs"]
    assert log["topics"] == [COLLECT_REWARDS_TOPIC]
    assert log["address"] == stx.sender
    assert log["transactionHash"] == stx.hash
    paid = [
        m.amount
        for m in chain.balance_movements(0, stx.block_number)
        if m.tx_hash == stx.hash and m.amount > 0
    ]
    assert int(log["data"], 16) == paid[0]


@pytest.mark.parametrize("quick_unlock", [None, (3, 9)])
def test_undelegations_are_paid_when_the_nodes_lock_period_ends(quick_unlock: tuple[int, int] | None) -> None:
    """internal/chain/engine.go payoutUndelegations: at the last block of epoch E an undelegation
    made in epoch U is paid when E - U >= GetLockPeriodInEpoch(E): 7 (LockPeriodInEpoch), or 0
    (LockPeriodInEpochV2) in the quick-unlock epochs; written here from the node's rule, not the
    devnet's: every Undelegate of the chain is looked up in the payouts."""
    chain = Chain(**STAKING_CHAIN, quick_unlock=quick_unlock)
    length = STAKING_CHAIN["epoch_length"]

    def lock(epoch: int) -> int:
        return 0 if quick_unlock is not None and quick_unlock[0] <= epoch < quick_unlock[1] else 7

    want: dict[tuple[str, int], int] = {}  # (delegator, payout block) -> amount
    for n in range(1, 400):
        for stx in chain.block(0, n).staking_transactions:
            if stx.directive != "Undelegate":
                continue
            made = n // length
            paid_in = next((e for e in range(made, 400 // length) if e - made >= lock(e)), None)
            if paid_in is not None:
                key = (stx.sender, paid_in * length + length - 1)
                amount = stx.msg["amount"]
                assert isinstance(amount, int)
                want[key] = want.get(key, 0) + amount
    got: dict[tuple[str, int], int] = {}
    for n in range(length - 1, 400, length):
        for m in chain.balance_movements(0, n):
            if m.kind == "undelegation_payout":
                got[(m.address, n)] = got.get((m.address, n), 0) + m.amount
    assert got == want
    assert len(want) >= 3
    if quick_unlock is not None:  # paid in the undelegation's own epoch
        assert any(b // length < 9 and b // length >= 3 for _, b in got)


def test_collect_rewards_pays_the_rewards_the_state_before_showed(chain: Chain) -> None:
    """The node runs a block's staking transactions before its Finalize adds the block's rewards:
    a CollectRewards of block c pays exactly the rewards the state after block c - 1 shows (its
    delegations by delegator), and the state after c holds only block c's own reward."""
    checked = 0
    for n in range(1, 400):
        for stx in chain.block(0, n).staking_transactions:
            if stx.directive != "CollectRewards":
                continue
            before = chain.delegations_by_delegator(stx.sender, n - 1)
            paid = sum(
                m.amount for m in chain.balance_movements(0, n) if m.tx_hash == stx.hash and m.amount > 0
            )
            assert paid == sum(d.reward for _, d in before) > 0
            after = {v: d.reward for v, d in chain.delegations_by_delegator(stx.sender, n)}
            assert sum(after.values()) < paid
            checked += 1
    assert checked >= 5
