"""Accounts over real HTTP against the devnet: balances (semantics, cache, batching, bad input),
and the conservation proof: for every devnet address and several (b1, b2), the change of its
balance equals what the other datasets say moved in between."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pandas as pd
import pytest
from hostile import Proxy, rpc_result

import hmyframe
from hmyframe.devnet import Chain, Devnet
from hmyframe.devnet._gen_staking import LOCK_EPOCHS
from hmyframe.errors import AddressError, ConfigError, HistoryUnavailableError, NonStandardTokenWarning

CHAIN = {"seed": 3, "blocks": 400, "epoch_length": 20, "validators": 40}
HEAD = 399
PAIRS = [(0, HEAD), (100, 250), (37, 38), (259, 260)]


@pytest.fixture(scope="module")
def net() -> Iterator[Devnet]:
    with Devnet(**CHAIN, validator_rate_limit=False) as devnet:
        yield devnet


@pytest.fixture(scope="module")
def truth() -> Chain:
    return Chain(**CHAIN)


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("accounts-cache")


def _ints(series: pd.Series) -> list[int]:
    return [int(v) for v in series]


def test_balance_is_the_state_after_the_block(net: Devnet, truth: Chain, tmp_path: Path) -> None:
    """A transaction of block N is in balance(N), not in balance(N - 1); v1 and v2 agree."""
    n = next(n for n in range(50, HEAD) if truth.block(0, n).transactions)
    tx = truth.block(0, n).transactions[0]
    for version in (1, 2):
        df = hmyframe.balances(
            [tx.sender], blocks=[n - 1, n], rpc=net, cache=tmp_path / str(version),
            options=hmyframe.FetchOptions(version=version),
        )  # fmt: skip
        before, after = _ints(df["balance"])
        fee = tx.gas_used * tx.gas_price
        moved = sum(m.amount for m in truth.balance_movements(0, n) if m.address == tx.sender)
        assert after - before == moved
        assert moved <= -fee  # the block's fee (and maybe more) is already in balance(n)
        assert (before, after) == (truth.balance(0, tx.sender, n - 1), truth.balance(0, tx.sender, n))


def test_cached_balances_are_read_again_without_a_request(net: Devnet, truth: Chain, tmp_path: Path) -> None:
    addresses = truth.accounts(1, 120)[:300]
    first = hmyframe.balances(addresses, blocks=range(0, 121, 40), shard=1, rpc=net, cache=tmp_path)
    assert len(first) == 300 * 4
    assert _ints(first["balance"]) == [
        truth.balance(1, a, b) for a, b in zip(first["address_hex"], first["block_number"], strict=True)
    ]
    net.stats.reset()
    again = hmyframe.balances(addresses[::-1], blocks=[0, 40, 80, 120], shard=1, rpc=net, cache=tmp_path)
    assert net.stats.http_requests == 0  # not even the head: a cached block was at most the head
    pd.testing.assert_frame_equal(first, again)
    # one more address at a cached block: only it is asked for, the file grows by union
    extra = truth.accounts(1, 120)[300]
    grown = hmyframe.balances([addresses[0], extra], blocks=40, shard=1, rpc=net, cache=tmp_path)
    assert net.stats.calls_of("hmyv2_getBalanceByBlockNumber") == 1
    assert _ints(grown["balance"]) == [truth.balance(1, a, 40) for a in grown["address_hex"]]


def test_balances_are_batched(net: Devnet, truth: Chain) -> None:
    addresses = truth.accounts(0, 200)[:1000]
    net.stats.reset()
    df = hmyframe.balances(addresses, blocks=200, rpc=net, cache=False)
    assert len(df) == 1000
    assert net.stats.calls_of("hmyv2_getBalanceByBlockNumber") == 1000
    assert net.stats.http_requests <= 20  # batches of 100, not one request per address


def test_bad_input_is_one_line_and_caches_nothing(net: Devnet, tmp_path: Path) -> None:
    good = "0x" + "12" * 20
    with pytest.raises(AddressError) as bad:
        hmyframe.balances([good, "one1notanaddress"], blocks=3, rpc=net, cache=tmp_path)
    assert "one1notanaddress" in str(bad.value)
    assert "\n" not in str(bad.value)
    with pytest.raises(ConfigError, match=r"^block 400 is beyond the head 399 of shard 0$"):
        hmyframe.balances([good], blocks=[3, 400], rpc=net, cache=tmp_path)
    assert not list(tmp_path.rglob("*.parquet"))


def test_seen_addresses_and_epochs(net: Devnet, truth: Chain, tmp_path: Path) -> None:
    df = hmyframe.balances("seen", blocks=[10, 20], rpc=net, cache=tmp_path)
    seen = {
        a for n in range(10, 21) for tx in truth.block(0, n).transactions for a in (tx.sender, tx.to) if a
    }
    assert set(df["address_hex"]) == seen
    epochs = hmyframe.balances([truth.validator_addresses()[0]], blocks="epochs", rpc=net, cache=tmp_path)
    assert list(epochs["block_number"]) == [e * 20 + 19 for e in range(HEAD // 20)]


def test_history_and_a_node_without_it(net: Devnet, truth: Chain, make_devnet: object) -> None:
    address = max(truth.accounts(0, HEAD)[:400], key=lambda a: len(truth.history(0, a)))
    df = hmyframe.account_transactions([address], rpc=net)
    entries = truth.history(0, address)
    assert list(df["transaction_hash"]) == [e.tx_hash for e in entries]
    assert set(df["kind"]) == {"plain"}
    want = ["received" if e.received else "sent" for e in entries]
    assert [d if d != "self" else "received" for d in df["direction"]] == want
    bare = make_devnet(blocks=20, explorer=False)  # type: ignore[operator]
    with pytest.raises(HistoryUnavailableError) as error:
        hmyframe.account_transactions([address], rpc=bare)
    assert "explorer service not started" in str(error.value)
    assert "\n" not in str(error.value)
    empty = hmyframe.account_transactions(["0x" + "34" * 20], rpc=net)
    assert empty.empty


def test_history_has_the_staking_transactions(net: Devnet, truth: Chain) -> None:
    """Plain and staking rows in one frame: a validator's received Delegate/Undelegate and its
    own staking transactions (kind "staking", the directive and amount of each), a plain
    account's transfers; several addresses at once; both ends with a limit; v1 = v2."""
    stxs = {s.hash: s for n in range(HEAD + 1) for s in truth.block(0, n).staking_transactions}
    validator = max(truth.validator_addresses(), key=lambda v: len(truth.history(0, v, staking=True)))
    plain = max(truth.accounts(0, HEAD)[:200], key=lambda a: len(truth.history(0, a)))
    df = hmyframe.account_transactions([plain, validator], rpc=net)
    mine = df[df["address_hex"] == validator]
    staked = mine[mine["kind"] == "staking"]
    entries = truth.history(0, validator, staking=True)
    assert len(entries) >= 3
    assert list(staked["transaction_hash"]) == [e.tx_hash for e in entries]
    for row in staked.itertuples():
        stx = stxs[row.transaction_hash]
        assert row.directive == stx.directive
        assert row.direction == ("sent" if stx.sender == validator else "received")
        amount = stx.msg.get("amount")
        assert (None if pd.isna(row.amount) else int(row.amount)) == amount
        assert pd.isna(row.to_address)
        assert pd.isna(row.value)
    assert list(mine.loc[mine["kind"] == "plain", "transaction_hash"]) == [
        e.tx_hash for e in truth.history(0, validator)
    ]
    assert list(df.loc[df["address_hex"] == plain, "transaction_hash"]) == [
        e.tx_hash for e in truth.history(0, plain)
    ]
    newest = hmyframe.account_transactions([validator], rpc=net, order="desc", limit=2, staking=True)
    assert list(newest.loc[newest["kind"] == "staking", "transaction_hash"]) == [
        e.tx_hash for e in entries[-2:]
    ]
    oldest = hmyframe.account_transactions([validator], rpc=net, limit=1)
    assert list(oldest.loc[oldest["kind"] == "staking", "transaction_hash"]) == [entries[0].tx_hash]
    v1 = hmyframe.account_transactions([plain, validator], rpc=net, options=hmyframe.FetchOptions(version=1))
    pd.testing.assert_frame_equal(v1, df)
    on_shard_1 = hmyframe.account_transactions([validator], 1, rpc=net)
    assert set(on_shard_1["kind"]) <= {"plain"}
    with pytest.raises(ConfigError, match=r'^order must be "asc" or "desc", got \'up\'$'):
        hmyframe.account_transactions([validator], rpc=net, order="up")


def _expected_deltas(net: Devnet, cache: Path, b1: int, b2: int) -> dict[tuple[int, str], int]:
    """Per (shard, address): what the datasets say moved in blocks b1+1 .. b2."""
    delta: dict[tuple[int, str], int] = defaultdict(int)
    if b2 <= b1:
        return delta
    for shard in (0, 1):
        moved = hmyframe.native_transfers(b1 + 1, b2, shard, rpc=net, cache=cache)
        for kind, src, dst, value in zip(
            moved["kind"], moved["from_address_hex"], moved["to_address_hex"], moved["value"], strict=True
        ):
            if kind != "cross_shard_in":  # the payer is on this shard
                delta[(shard, src)] -= int(value)
            if kind != "cross_shard_out":  # the receiver is on this shard
                delta[(shard, dst)] += int(value)
        receipts = hmyframe.receipts(b1 + 1, b2, shard, rpc=net, cache=cache)
        for src, fee in zip(receipts["from_address_hex"], receipts["fee"], strict=True):
            delta[(shard, src)] -= int(fee)
    staking = hmyframe.staking_transactions(b1 + 1, b2, rpc=net, cache=cache)
    for directive, src, amount in zip(
        staking["directive"], staking["from_address_hex"], staking["amount"], strict=True
    ):
        if directive in ("Delegate", "CreateValidator"):
            delta[(0, src)] -= int(amount)
    rewards = hmyframe.rewards_collected(b1 + 1, b2, rpc=net, cache=cache)
    assert rewards["reason"].isna().all()
    for who, amount in zip(rewards["delegator_address_hex"], rewards["amount"], strict=True):
        delta[(0, who)] += int(amount)
    # undelegations paid at the last block L of epoch E (the node's payoutUndelegations): those
    # made in an epoch U with E - U >= LOCK_EPOCHS, read from the pending list before block L
    everyone = hmyframe.staking_transactions(0, b2, rpc=net, cache=cache)
    undelegators = sorted(set(everyone.loc[everyone["directive"] == "Undelegate", "from_address_hex"]))
    for last in range(19, b2 + 1, 20):
        if last <= b1 or not undelegators:
            continue
        pending = hmyframe.delegator_undelegations(undelegators, block=last - 1, rpc=net)
        for who, amount, epoch in zip(
            pending["delegator_address_hex"], pending["amount"], pending["epoch"], strict=True
        ):
            if last // 20 - epoch >= LOCK_EPOCHS:
                delta[(0, who)] += int(amount)
    return delta


def test_conservation_every_address(net: Devnet, truth: Chain, cache: Path) -> None:
    """balance(b2) - balance(b1) == what the datasets say moved, for every devnet address that
    ever moved, on both shards, for each (b1, b2) in PAIRS; a difference names the address and
    the first block where the running sum breaks (bisected)."""
    checked = 0
    for shard in (0, 1):
        addresses = truth.accounts(shard, HEAD)
        blocks = sorted({b for pair in PAIRS for b in pair})
        df = hmyframe.balances(addresses, blocks=blocks, shard=shard, rpc=net, cache=cache)
        at = {
            (a, int(b)): int(v)
            for a, b, v in zip(df["address_hex"], df["block_number"], df["balance"], strict=True)
        }
        for b1, b2 in PAIRS:
            expected = _expected_deltas(net, cache, b1, b2)
            for address in addresses:
                got = at[(address, b2)] - at[(address, b1)]
                want = expected.get((shard, address), 0)
                if got != want:
                    first = _first_break(net, cache, shard, address, b1, b2)
                    pytest.fail(
                        f"shard {shard} {address}: balance({b2}) - balance({b1}) = {got}, the datasets say {want}; "
                        f"first block where they part: {first}"
                    )
                checked += 1
    assert checked > 8 * 3000  # every address of both shards, each pair


def _first_break(net: Devnet, cache: Path, shard: int, address: str, b1: int, b2: int) -> int:
    lo, hi = b1, b2  # invariant: agrees at lo, disagrees at hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        bal = hmyframe.balances([address], blocks=[b1, mid], shard=shard, rpc=net, cache=cache)
        got = int(bal["balance"].iloc[1]) - int(bal["balance"].iloc[0])
        if got == _expected_deltas(net, cache, b1, mid).get((shard, address), 0):
            lo = mid
        else:
            hi = mid
    return hi


def test_token_balances_and_holders_agree(net: Devnet, truth: Chain, tmp_path: Path) -> None:
    token = next(t for t in truth.tokens(0) if t.standard == "hrc20")
    ledger = truth.token_ledger(0, 300)
    holders = [truth.token_holder(i) for i in range(12)]
    df = hmyframe.token_balances(token.address, holders_of=holders, block=300, rpc=net, cache=tmp_path)
    idx = truth.tokens(0).index(token)
    want = (
        {truth.token_holder(i): v for i, v in ledger.balances[idx].items()} if idx in ledger.balances else {}
    )
    assert [int(v) for v in df["token_balance"]] == [want.get(h, 0) for h in df["holder_address_hex"]]
    replayed = hmyframe.holders(token.address, 0, 300, rpc=net, cache=tmp_path)
    assert replayed.attrs["standard"] is True
    assert replayed.attrs["checked"] > 0


def test_holders_of_a_token_whose_balance_of_disagrees_are_marked_non_standard(
    net: Devnet, truth: Chain, tmp_path: Path
) -> None:
    """A node whose ``balanceOf`` answers differ from the transfers (as a rebasing token's do:
    here every holder reads 1 atto more) gets the token marked non-standard, with a warning and
    each differing holder listed with both figures; the replayed balances are kept as replayed."""
    token = next(t for t in truth.tokens(0) if t.standard == "hrc20")
    calls = 0

    async def rebasing(body: object) -> tuple[int, bytes] | None:
        nonlocal calls
        if not isinstance(body, dict) or not str(body.get("method", "")).endswith("_call"):
            return None
        args = body["params"][0]
        if str(args.get("to", "")).lower() != token.address or not str(args.get("data", "")).startswith(
            "0x70a08231"
        ):
            return None
        calls += 1
        async with aiohttp.ClientSession() as http, http.post(net.url, json=body) as answer:
            held = int((await answer.json())["result"], 16)
        return 200, rpc_result(body, "0x" + (held + 1).to_bytes(32, "big").hex())

    proxy = Proxy(net.url, rebasing, split_batches=True)
    try:
        with pytest.warns(NonStandardTokenWarning, match="differ from balanceOf at block 300"):
            df = hmyframe.holders(token.address, 0, 300, rpc=proxy.url, cache=tmp_path)
    finally:
        proxy.close()
    assert calls == df.attrs["checked"] > 0
    assert df.attrs["standard"] is False
    mismatches = df.attrs["mismatches"]
    assert len(mismatches) == df.attrs["checked"]
    for replayed, read in mismatches.values():
        assert read == replayed + 1
    clean = hmyframe.holders(token.address, 0, 300, rpc=net, cache=tmp_path / "clean")
    assert clean.attrs["standard"] is True
    assert _ints(df["balance"]) == _ints(clean["balance"])


def test_native_transfers_explain_cross_shard_inflows(net: Devnet, truth: Chain, cache: Path) -> None:
    """Each shard's cross_shard_in rows are exactly the receipts its blocks credited (the
    devnet's cx_in movements), at the crediting block, with the source shard and hash."""
    for shard in (0, 1):
        df = hmyframe.native_transfers(50, 250, shard, rpc=net, cache=cache)
        got = df[df["kind"] == "cross_shard_in"]
        want = [
            (n, m.tx_hash, m.address, m.amount)
            for n in range(50, 251)
            for m in truth.balance_movements(shard, n)
            if m.kind == "cx_in"
        ]
        assert len(want) > 5
        assert sorted(
            zip(
                got["block_number"],
                got["transaction_hash"],
                got["to_address_hex"],
                _ints(got["value"]),
                strict=True,
            )
        ) == sorted(want)
        assert set(got["from_shard_id"]) == {1 - shard}
        assert set(got["to_shard_id"]) == set(got["shard_id"]) == {shard}
        out = df[df["kind"] == "cross_shard_out"]
        assert set(out["from_shard_id"]) == {shard}
        assert set(out["to_shard_id"]) == {1 - shard}
    v1 = hmyframe.native_transfers(50, 250, 1, rpc=net, cache=cache, options=hmyframe.FetchOptions(version=1))
    pd.testing.assert_frame_equal(v1, df)


def test_delegations_at_a_block_are_cached(net: Devnet, truth: Chain, tmp_path: Path) -> None:
    """The delegations at a block never change: a second read sends nothing, also for a delegator
    without delegations; a new delegator at a cached block is the only one asked."""
    delegators = _delegators(truth, 250)
    assert len(delegators) > 6
    nobody = "0x" + "56" * 20
    first = hmyframe.delegator_delegations([*delegators[:5], nobody], block=250, rpc=net, cache=tmp_path)
    want = sorted(
        (d, v, dl.amount, dl.reward)
        for d in delegators[:5]
        for v, dl in truth.delegations_by_delegator(d, 250)
    )
    got = sorted(
        zip(first["delegator_address_hex"], first["validator_address_hex"], _ints(first["amount"]),
            _ints(first["reward"]), strict=True)
    )  # fmt: skip
    assert got == want
    assert nobody not in set(first["delegator_address_hex"])
    net.stats.reset()
    again = hmyframe.delegator_delegations([nobody, *delegators[:5]], block=250, rpc=net, cache=tmp_path)
    assert net.stats.http_requests == 0
    pd.testing.assert_frame_equal(first, again)
    hmyframe.delegator_delegations([delegators[0], delegators[5]], block=250, rpc=net, cache=tmp_path)
    assert net.stats.calls_of("hmyv2_getDelegationsByDelegatorByBlockNumber") == 1
    with pytest.raises(ConfigError, match=r"^block 400 is beyond the head 399 of shard 0$"):
        hmyframe.delegator_delegations([nobody], block=400, rpc=net, cache=tmp_path)


def _delegators(truth: Chain, block: int) -> list[str]:
    """Validators (self delegations) and every Delegate sender up to ``block``."""
    senders = {
        s.sender
        for n in range(1, block + 1)
        for s in truth.block(0, n).staking_transactions
        if s.directive == "Delegate"
    }
    return sorted(senders | set(truth.validator_addresses()[:3]))


def test_delegator_rewards_by_validator_and_epoch(net: Devnet, truth: Chain, tmp_path: Path) -> None:
    """A delegator's rewards per validator and epoch against the chain: the unclaimed reward and
    stake at each epoch's end, the CollectRewards payouts of each epoch (balance movements), and
    accrued = unclaimed - unclaimed before + collected, exact."""
    collectors: dict[str, int] = defaultdict(int)
    for n in range(1, HEAD + 1):
        for s in truth.block(0, n).staking_transactions:
            if s.directive == "CollectRewards":
                collectors[s.sender] += 1
    who = max(collectors, key=lambda a: collectors[a])
    df = hmyframe.delegator_rewards(who, epochs=range(1, 19), rpc=net, cache=tmp_path)
    assert df.attrs["epochs"] == list(range(1, 19))
    assert sorted(set(df["epoch"])) == list(range(1, 19))
    paid_in: dict[int, int] = defaultdict(int)
    for n in range(20, 19 * 20):
        for m in truth.balance_movements(0, n):
            if m.kind == "collect_rewards" and m.address == who:
                paid_in[n // 20] += m.amount
    assert sum(1 for v in paid_in.values() if v) >= 1
    for epoch, group in df.groupby("epoch"):
        last = int(epoch) * 20 + 19
        assert set(group["last_block"]) == {last}
        held = {v: d for v, d in truth.delegations_by_delegator(who, last)}
        earlier = {v: d.reward for v, d in truth.delegations_by_delegator(who, last - 20)}
        for row in group.itertuples():
            d = held.get(row.validator_address_hex)
            assert int(row.unclaimed) == (d.reward if d else 0)
            assert int(row.stake) == (d.amount if d else 0)
            assert int(row.accrued) == int(row.unclaimed) - earlier.get(row.validator_address_hex, 0) + int(
                row.collected
            )
        assert sum(int(v) for v in group["collected"]) == paid_in.get(int(epoch), 0)
    assert (df["accrued"].astype(object).map(int) >= 0).all()
    # re-read: every delegation is cached, only the CollectRewards receipts are asked again
    net.stats.reset()
    again = hmyframe.delegator_rewards(who, epochs=range(1, 19), rpc=net, cache=tmp_path)
    pd.testing.assert_frame_equal(df, again)
    assert net.stats.calls_of("hmyv2_getDelegationsByDelegatorByBlockNumber") == 0
