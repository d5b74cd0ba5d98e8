"""pyhmy as an oracle of the account datasets: its account and delegation functions, one call per
address (and page), give the same values as hmyframe's batched datasets on the devnet."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pyhmy_helpers import requires_pyhmy, run_pyhmy

import hmyframe
from hmyframe.addresses import to_one
from hmyframe.devnet import Chain, Devnet

pytestmark = requires_pyhmy()

CHAIN = {"seed": 3, "blocks": 300, "epoch_length": 20, "validators": 40}


@pytest.fixture(scope="module")
def staking_net() -> Iterator[Devnet]:
    with Devnet(**CHAIN, validator_rate_limit=False) as devnet:
        yield devnet


@pytest.fixture(scope="module")
def chain() -> Chain:
    return Chain(**CHAIN)


def test_pyhmy_balances_by_block_equal_balances(staking_net: Devnet, chain: Chain) -> None:
    addresses = chain.accounts(0, 299)[:150]
    blocks = [0, 99, 299]
    theirs = run_pyhmy(
        "from pyhmy import account\n"
        "OUTPUT = [[account.get_balance_by_block(a, b, endpoint=INPUT['url']) for b in INPUT['blocks']]"
        " for a in INPUT['addresses']]",
        addresses=[to_one(a) for a in addresses],
        blocks=blocks,
        url=staking_net.urls[0],
    )
    df = hmyframe.balances(addresses, blocks=blocks, rpc=staking_net, cache=False)
    ours = {
        (a, int(b)): int(v)
        for a, b, v in zip(df["address_hex"], df["block_number"], df["balance"], strict=True)
    }
    compared = 0
    for address, values in zip(addresses, theirs, strict=True):
        for block, value in zip(blocks, values, strict=True):
            assert ours[(address, block)] == value, (address, block)
            compared += 1
    assert compared == 450
    assert len({v for row in theirs for v in row}) > 100  # distinct, large values (beyond 2**64)
    assert max(v for row in theirs for v in row) > 2**64


def test_pyhmy_transaction_history_equals_account_transactions(staking_net: Devnet, chain: Chain) -> None:
    address = max(chain.accounts(0, 299)[:300], key=lambda a: len(chain.history(0, a)))
    theirs = run_pyhmy(
        "from pyhmy import account\n"
        "OUTPUT = account.get_transaction_history(INPUT['a'], page=0, page_size=1000, include_full_tx=True,"
        " endpoint=INPUT['url'])",
        a=to_one(address),
        url=staking_net.urls[0],
    )
    df = hmyframe.account_transactions([address], rpc=staking_net, staking=False)
    assert len(theirs) == len(df) > 10
    for tx, row in zip(theirs, df.to_dict("records"), strict=True):
        assert row["transaction_hash"] == tx["hash"]
        assert int(row["value"]) == tx["value"]
        assert row["block_number"] == tx["blockNumber"]
        assert int(row["gas_price"]) == tx["gasPrice"]


def test_pyhmy_staking_history_and_delegations(staking_net: Devnet, chain: Chain) -> None:
    undelegator = next(
        s.sender
        for n in range(1, 300)
        for s in chain.block(0, n).staking_transactions
        if s.directive == "Undelegate"
    )
    validator = chain.validator_addresses()[0]
    out = run_pyhmy(
        "from pyhmy import account, staking\n"
        "u, v, url = INPUT['u'], INPUT['v'], INPUT['url']\n"
        "OUTPUT = {\n"
        " 'history': account.get_staking_transaction_history(u, endpoint=url),\n"
        " 'now': staking.get_delegations_by_delegator(u, endpoint=url),\n"
        " 'at': [staking.get_delegations_by_delegator_by_block_number(d, b, endpoint=url)"
        "        for d in (u, v) for b in INPUT['blocks']],\n"
        "}",
        u=to_one(undelegator),
        v=to_one(validator),
        url=staking_net.urls[0],
        blocks=[150, 299],
    )
    assert out["history"] == [e.tx_hash for e in chain.history(0, undelegator, staking=True)]
    ours_history = hmyframe.account_transactions([undelegator], rpc=staking_net)
    assert list(ours_history.loc[ours_history["kind"] == "staking", "transaction_hash"]) == out["history"]
    compared = 0
    for k, (who, block) in enumerate((d, b) for d in (undelegator, validator) for b in (150, 299)):
        ours = hmyframe.delegator_delegations([who], block=block, rpc=staking_net)
        unds = hmyframe.delegator_undelegations([who], block=block, rpc=staking_net)
        theirs = out["at"][k] or []
        assert len(ours) == len(theirs)
        for row, d in zip(
            ours.sort_values("validator_address").to_dict("records"),
            sorted(theirs, key=lambda d: d["validator_address"]),
            strict=True,
        ):
            assert row["validator_address"] == d["validator_address"]
            assert (int(row["amount"]), int(row["reward"])) == (d["amount"], d["reward"])
            assert int(row["undelegating_amount"]) == sum(u["Amount"] for u in d["Undelegations"])
            mine = unds[unds["validator_address"] == d["validator_address"]]
            assert sorted(zip(map(int, mine["amount"]), mine["epoch"], strict=True)) == sorted(
                (u["Amount"], u["Epoch"]) for u in d["Undelegations"]
            )
            compared += 1
    assert compared >= 3
    latest = hmyframe.delegator_delegations([undelegator], rpc=staking_net)
    assert sorted(map(int, latest["amount"])) == sorted(d["amount"] for d in out["now"])
