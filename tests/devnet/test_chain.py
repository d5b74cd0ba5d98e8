"""The devnet chain generator: determinism, structure, lookups, staking and validator facts."""

from __future__ import annotations

import hashlib
import itertools
import os
import random
import subprocess
import sys
import threading
from collections import Counter, defaultdict
from decimal import ROUND_HALF_EVEN, Decimal, localcontext

import pytest

from hmyframe.devnet.chain import CX_PENDING_BLOCKS, Chain
from hmyframe.devnet.model import ZERO_HASH, Block, TraceFrame, Transaction, ValidatorSnapshot, flatten_trace
from hmyframe.errors import AddressError, ConfigError

BANNED = "banned forever from network because was caught double-signing"
EPOS = {
    "currently elected",
    "eligible to be elected next epoch",
    "not eligible to be elected next epoch",
    BANNED,
}
BOOTED = {
    None,
    "booted",
    "not booted",
    "lost epos auction",
    "manually turned inactive or insufficient uptime",
    BANNED,
}
ACTIVE = {"active", "inactive", BANNED}
MSG_KEYS = {
    "CreateValidator": [
        "validatorAddress", "commissionRate", "maxCommissionRate", "maxChangeRate", "minSelfDelegation",
        "maxTotalDelegation", "amount", "name", "website", "identity", "securityContact", "details",
        "slotPubKeys", "slotKeySigs",
    ],
    "EditValidator": [
        "validatorAddress", "commissionRate", "minSelfDelegation", "maxTotalDelegation", "name", "website",
        "identity", "securityContact", "details", "slotPubKeyToAdd", "slotPubKeyToRemove", "slotKeyToAddSig",
    ],
    "Delegate": ["delegatorAddress", "validatorAddress", "amount"],
    "Undelegate": ["delegatorAddress", "validatorAddress", "amount"],
    "CollectRewards": ["delegatorAddress"],
}  # fmt: skip
D18 = Decimal(1).scaleb(-18)


# --------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def small() -> Chain:
    """Short epochs so a few hundred blocks cover many epochs, a ban and late validators."""
    return Chain(seed=11, blocks=400, epoch_length=40, validators=60)


@pytest.fixture(scope="module")
def default() -> Chain:
    """The default chain (2 shards, 2000 blocks, epochs of 200, 300 validators)."""
    return Chain()


@pytest.fixture(scope="module")
def default_txs(default: Chain) -> list[Transaction]:
    """Every plain transaction of blocks 0..799 of both shards of the default chain."""
    return [tx for shard in (0, 1) for tx in default.iter_transactions(shard, 0, 799)]


def _all_frames(txs: list[Transaction]) -> list[tuple[tuple[int, ...], TraceFrame]]:
    out: list[tuple[tuple[int, ...], TraceFrame]] = []
    for tx in txs:
        assert tx.trace is not None
        out.extend(flatten_trace(tx.trace))
    return out


# --------------------------------------------------------------------------- determinism
def test_same_seed_gives_identical_objects() -> None:
    a = Chain(seed=5, blocks=300, epoch_length=50, validators=40)
    b = Chain(seed=5, blocks=300, epoch_length=50, validators=40)
    for shard in (0, 1):
        for number in (0, 1, 17, 150, 299):
            assert a.block(shard, number) == b.block(shard, number)
    assert a.validators(299) == b.validators(299)
    assert a.pending_cx_receipts(0) == b.pending_cx_receipts(0)


def _digest() -> str:
    c = Chain(seed=21, blocks=60, epoch_length=20, validators=30)
    parts = [repr(c.block(s, n)) for s in (0, 1) for n in range(60)]
    parts += [repr(c.validators(59)), repr(c.pending_cx_receipts(0))]
    return hashlib.sha256("".join(parts).encode()).hexdigest()


def test_identical_across_processes_and_hash_seeds() -> None:
    script = f"import sys; sys.path.insert(0, {os.path.dirname(__file__)!r}); import test_chain; print(test_chain._digest())"
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == _digest()


def test_access_order_does_not_matter() -> None:
    a = Chain(seed=5, blocks=300, epoch_length=50, validators=40)
    b = Chain(seed=5, blocks=300, epoch_length=50, validators=40)
    backwards = [b.block(1, n) for n in range(299, -1, -1)]
    snapshots_b = b.validators(120)
    assert [a.block(1, n) for n in range(300)] == backwards[::-1]
    assert a.validators(120) == snapshots_b


def test_different_seeds_differ() -> None:
    a = Chain(seed=1, blocks=100, validators=40)
    b = Chain(seed=2, blocks=100, validators=40)
    assert a.genesis_hash(0) != b.genesis_hash(0)
    assert a.transaction_counts(0, 0, 99) != b.transaction_counts(0, 0, 99)
    assert a.validator_addresses() != b.validator_addresses()
    # a hash of one chain is unknown to the other
    tx = next(a.iter_transactions(0, 0, 99))
    assert b.find_transaction(tx.hash) is None
    assert b.block_by_hash(a.block(0, 5).hash) is None


def test_mine_yields_the_blocks_of_a_longer_chain() -> None:
    short = Chain(seed=3, blocks=250, epoch_length=50, validators=40)
    assert short.signers(0, 249) is None
    first_part = [short.block(0, n) for n in (0, 100, 249)]
    short.mine(50)
    long = Chain(seed=3, blocks=300, epoch_length=50, validators=40)
    assert short.head(0) == short.head(1) == long.head(0) == 299
    assert first_part == [long.block(0, n) for n in (0, 100, 249)]
    for shard in (0, 1):
        assert [short.block(shard, n) for n in range(300)] == [long.block(shard, n) for n in range(300)]
    assert short.signers(0, 249) == long.signers(0, 249)
    assert short.validator_addresses() == long.validator_addresses()
    assert short.validators(299) == long.validators(299)
    assert short.pending_cx_receipts(1) == long.pending_cx_receipts(1)


def test_lazy_long_chain_shares_its_prefix() -> None:
    long = Chain(blocks=100_000)
    assert long.head(0) == 99_999
    assert long.block(1, 10) == Chain(blocks=20).block(1, 10)


# --------------------------------------------------------------------------- blocks
def test_parent_hashes_chain_up(small: Chain) -> None:
    seen: set[str] = set()
    for shard in (0, 1):
        blocks = list(small.iter_blocks(shard, 0, small.head(shard)))
        assert blocks[0].parent_hash == ZERO_HASH
        assert blocks[0].hash == small.genesis_hash(shard)
        for prev, block in itertools.pairwise(blocks):
            assert block.parent_hash == prev.hash
            assert block.number == prev.number + 1
            assert block.shard_id == shard
        seen.update(b.hash for b in blocks)
    assert len(seen) == 2 * (small.head(0) + 1)


def test_timestamps_views_epochs_and_leaders(default: Chain) -> None:
    blocks = list(default.iter_blocks(1, 0, 999))
    assert blocks[0].view_id == 0
    assert blocks[0].timestamp == default.genesis_time
    for prev, block in itertools.pairwise(blocks):
        assert block.view_id > prev.view_id
        assert block.timestamp == default.genesis_time + 2 * block.view_id
        assert block.epoch == block.number // 200 == default.epoch_of(block.number)
    assert any(b.view_id > b.number for b in blocks), "no view change in 1000 blocks"
    assert default.epoch_first_block(3) == 600
    for block in blocks[::97]:
        committee = default.committee(1, block.epoch)
        assert block.leader == committee[block.view_id % len(committee)][1]


def test_transactions_per_block_distribution(default: Chain) -> None:
    counts = default.transaction_counts(0, 0, 1999) + default.transaction_counts(1, 0, 1999)
    assert counts[0] == 0  # genesis
    mean = sum(counts) / len(counts)
    assert 9 <= mean <= 16
    assert counts.count(0) / len(counts) >= 0.15
    assert max(counts) >= 80
    assert sorted(counts)[len(counts) // 2] <= 6  # median far below the mean: a long tail
    assert [len(b.transactions) for b in default.iter_blocks(1, 100, 140)] == default.transaction_counts(
        1, 100, 140
    )


def test_block_gas_and_roots(default: Chain) -> None:
    for block in default.iter_blocks(0, 0, 300):
        # the header's gasUsed sums every receipt, plain and staking (as the node's)
        staking = sum(stx.gas_used for stx in block.staking_transactions)
        assert block.gas_used == sum(tx.gas_used for tx in block.transactions) + staking
        assert all(0 < stx.gas_used <= stx.gas for stx in block.staking_transactions)
        assert block.gas_used <= block.gas_limit
        for index, tx in enumerate(block.transactions):
            assert (tx.block_number, tx.block_hash, tx.index, tx.timestamp) == (
                block.number,
                block.hash,
                index,
                block.timestamp,
            )
            assert tx.shard_id == 0
        if not block.transactions:
            assert (
                block.transactions_root
                == "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421"
            )


# --------------------------------------------------------------------------- lookups
def test_hash_lookups_round_trip(small: Chain) -> None:
    txs = list(small.iter_transactions(1, 0, small.head(1)))
    assert len({tx.hash for tx in txs}) == len(txs)
    for tx in txs[::7]:
        assert small.find_transaction(tx.hash) == tx
        assert small.find_transaction(tx.hash.upper().replace("0X", "0x")) == tx
        assert small.find_transaction_by_eth_hash(tx.eth_hash) == tx
        assert tx.eth_hash != tx.hash
        assert small.find_transaction(tx.eth_hash) is None
        assert small.find_transaction_by_eth_hash(tx.hash) is None
    for number in (0, 33, small.head(0)):
        block = small.block(0, number)
        assert small.block_by_hash(block.hash) == block
        assert small.block_by_hash(block.hash.upper().replace("0X", "0x")) == block
        assert small.find_transaction(block.hash) is None
    stxs = [s for b in small.iter_blocks(0, 0, small.head(0)) for s in b.staking_transactions]
    for stx in stxs:
        assert small.find_staking_transaction(stx.hash) == stx
        assert small.find_transaction(stx.hash) is None


def test_unknown_hashes_return_none(small: Chain) -> None:
    rng = random.Random(99)
    for _ in range(200):
        h = f"0x{rng.getrandbits(256):064x}"
        assert small.find_transaction(h) is None
        assert small.find_transaction_by_eth_hash(h) is None
        assert small.find_staking_transaction(h) is None
        assert small.block_by_hash(h) is None


def test_hashes_beyond_head_are_not_found_until_mined() -> None:
    short = Chain(seed=4, blocks=100, validators=40)
    long = Chain(seed=4, blocks=130, validators=40)
    block = long.block(1, 120)
    tx = next(long.iter_transactions(1, 101, 129))
    assert short.block_by_hash(block.hash) is None
    assert short.find_transaction(tx.hash) is None
    short.mine(30)
    assert short.block_by_hash(block.hash) == block
    assert short.find_transaction(tx.hash) == tx


def test_malformed_hashes_raise_config_error(small: Chain) -> None:
    with pytest.raises(ConfigError, match="0x12"):
        small.find_transaction("0x12")
    with pytest.raises(ConfigError, match="block hash 'zzzz"):
        small.block_by_hash("zz" * 33)
    with pytest.raises(ConfigError, match="64-hex-digit"):
        small.find_staking_transaction(12)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- nonces
def test_nonces_increase_without_gaps_and_match_transaction_count(small: Chain) -> None:
    head = small.head(0)
    for shard in (0, 1):
        per_sender: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for block in small.iter_blocks(shard, 0, head):
            for tx in block.transactions:
                per_sender[tx.sender].append((tx.nonce, block.number))
            for stx in block.staking_transactions:
                per_sender[stx.sender].append((stx.nonce, block.number))
        assert any(len(v) >= 20 for v in per_sender.values()), "no hot sender"
        for sender, sends in per_sender.items():
            assert [n for n, _ in sends] == list(range(len(sends))), sender
            for nonce, number in sends[:3] + sends[-2:]:
                assert small.transaction_count(shard, sender, number) >= nonce + 1
                assert small.transaction_count(shard, sender, number - 1) <= nonce
            assert small.transaction_count(shard, sender.upper().replace("0X", "0x"), head) == len(sends)
        if shard == 1:
            assert all(not b.staking_transactions for b in small.iter_blocks(1, 0, head))


def test_nonces_across_skeleton_segments(default: Chain, default_txs: list[Transaction]) -> None:
    """Blocks 0..799 span two 512-block skeleton segments: nonces must carry over."""
    per_sender: dict[tuple[int, str], list[Transaction]] = defaultdict(list)
    for tx in default_txs:
        per_sender[(tx.shard_id, tx.sender)].append(tx)
    crossing = 0
    for (shard, sender), txs in per_sender.items():
        assert [tx.nonce for tx in txs] == list(range(len(txs)))
        if txs[0].block_number < 512 <= txs[-1].block_number:
            crossing += 1
            assert default.transaction_count(shard, sender, 799) == len(txs)
            before = sum(tx.block_number <= 511 for tx in txs)
            assert default.transaction_count(shard, sender, 511) == before
            assert default.transaction_count(shard, sender, 512) == before + sum(
                tx.block_number == 512 for tx in txs
            )
    assert crossing > 50


def test_transaction_count_of_unknown_and_bad_addresses(small: Chain) -> None:
    assert small.transaction_count(0, "0x" + "ab" * 20, small.head(0)) == 0
    with pytest.raises(AddressError, match="0x1234"):
        small.transaction_count(0, "0x1234", 5)
    with pytest.raises(ConfigError, match="block=401"):
        small.transaction_count(0, "0x" + "ab" * 20, 401)


# --------------------------------------------------------------------------- transactions and traces
def test_values_gas_and_kinds(default_txs: list[Transaction]) -> None:
    values = [tx.value for tx in default_txs]
    assert all(type(v) is int and v >= 0 for v in values)  # exact Python ints, never numpy or float
    transfers = [tx for tx in default_txs if tx.input == "0x" and tx.to is not None]
    assert min(tx.value for tx in transfers) <= 1_000
    assert sum(v > 2**64 for v in values) / len(values) >= 0.25
    assert max(values) > 10**24
    prices = sorted(tx.gas_price for tx in default_txs)
    assert prices[len(prices) // 2] == 100_000_000_000
    assert len(set(prices)) > 5
    assert all(tx.gas_used == 21_000 for tx in transfers)
    assert all(tx.gas_used <= tx.gas for tx in default_txs)
    creations = [tx for tx in default_txs if tx.to is None]
    assert creations
    assert all(tx.contract_address is not None and tx.is_contract_creation for tx in creations)
    assert all(tx.trace is not None and tx.trace.type == "create" for tx in creations)
    assert all(tx.trace is not None and tx.trace.to == tx.contract_address for tx in creations)
    cross = [tx for tx in default_txs if tx.is_cross_shard]
    assert cross
    assert all(tx.to_shard_id in (0, 1) and tx.to_shard_id != tx.shard_id for tx in cross)
    reverted = [tx for tx in default_txs if not tx.success]
    assert reverted
    assert all(tx.trace is not None and tx.trace.error == "Reverted" for tx in reverted)
    # a sender repeats as on mainnet: a few hot accounts, a long tail
    senders = Counter(tx.sender for tx in default_txs)
    assert senders.most_common(1)[0][1] > 0.02 * len(default_txs)
    assert sum(1 for c in senders.values() if c == 1) > 100


def test_every_transaction_has_a_consistent_trace(default_txs: list[Transaction]) -> None:
    for tx in default_txs:
        root = tx.trace
        assert root is not None
        assert root.from_ == tx.sender
        assert root.value == tx.value
        data = bytes.fromhex(tx.input[2:])
        zeros = data.count(0)
        intrinsic = 21_000 + (32_000 if tx.to is None else 0) + 4 * zeros + 16 * (len(data) - zeros)
        # Parity traces report the gas left after the intrinsic gas, and the gas used by execution
        assert root.gas == tx.gas - intrinsic
        assert tx.gas_used == intrinsic + root.gas_used
        assert root.gas_used <= root.gas
        if tx.input == "0x" and tx.to is not None:
            assert root.children == ()
            assert (root.type, root.call_type, root.to, root.input) == ("call", "call", tx.to, "0x")


def test_trace_trees_are_well_formed(default_txs: list[Transaction]) -> None:
    frames = _all_frames(default_txs)
    call_types: Counter[str | None] = Counter()
    max_depth = 0
    for address, f in frames:
        max_depth = max(max_depth, len(address))
        call_types[f.call_type] += 1
        assert f.type in ("call", "create", "suicide")
        assert 0 <= f.gas_used <= f.gas or f.type == "suicide"
        assert f.gas_used >= sum(c.gas_used for c in f.children)
        if f.call_type in ("staticcall", "delegatecall"):
            assert f.value == 0
        if f.type == "call":
            assert f.call_type in ("call", "callcode", "delegatecall", "staticcall")
        else:
            assert f.call_type is None
        if f.type == "suicide":
            assert (f.children, f.gas, f.gas_used) == ((), 0, 0)
            assert address != ()
        if f.error is not None:
            assert f.error == "Reverted"
            assert f.revert is not None
            assert f.revert.startswith("0x")
            assert f.output == "0x"
        else:
            assert f.revert is None
        for child in f.children:
            if child.type != "suicide":
                expected_from = f.from_ if f.call_type in ("delegatecall", "callcode") else f.to
                assert child.from_ == expected_from
    assert max_depth == 4
    assert {"call", "staticcall", "delegatecall", "callcode"} <= set(call_types)
    assert any(f.type == "create" and a != () for a, f in frames), "no inner create"
    assert any(f.type == "suicide" for _, f in frames)
    assert any(f.error == "Reverted" and a != () for a, f in frames), "no reverted sub-call"
    assert any(f.error == "Reverted" and f.children and a == () for a, f in frames)


# --------------------------------------------------------------------------- staking transactions
def test_every_directive_appears_early_with_node_msg_keys(default: Chain) -> None:
    stxs = [s for b in default.iter_blocks(0, 0, 150) for s in b.staking_transactions]
    assert {s.directive for s in stxs} == set(MSG_KEYS)
    assert all(not b.staking_transactions for b in default.iter_blocks(1, 0, 150))
    for stx in stxs:
        assert list(stx.msg) == MSG_KEYS[stx.directive]
        for key in ("validatorAddress", "delegatorAddress"):
            if key in stx.msg:
                value = stx.msg[key]
                assert isinstance(value, str)
                assert value == value.lower()
                assert len(value) == 42
    edit = next(s for s in stxs if s.directive == "EditValidator")
    assert edit.msg["slotPubKeyToAdd"] is None
    assert edit.msg["slotPubKeyToRemove"] is None
    assert isinstance(edit.msg["commissionRate"], int)


@pytest.mark.parametrize(
    ("seed", "validators", "epoch_length"), [(1, 8, 200), (2, 20, 10), (3, 60, 3), (4, 300, 50)]
)
def test_small_chains_have_all_five_directives(seed: int, validators: int, epoch_length: int) -> None:
    chain = Chain(seed=seed, blocks=151, validators=validators, epoch_length=epoch_length)
    directives = {s.directive for b in chain.iter_blocks(0, 0, 150) for s in b.staking_transactions}
    assert directives == set(MSG_KEYS)


def test_create_validator_at_creation_height(default: Chain) -> None:
    snapshots = default.validators(default.head(0))
    late = [v for v in snapshots if v.creation_height > 0]
    assert late
    for v in late:
        block = default.block(0, v.creation_height)
        creates = [s for s in block.staking_transactions if s.directive == "CreateValidator"]
        assert [s.msg["validatorAddress"] for s in creates] == [v.address]
        msg = creates[0].msg
        assert msg["slotPubKeys"] == list(v.bls_keys)
        assert msg["maxCommissionRate"] == int(v.max_rate.scaleb(18))
        assert msg["maxChangeRate"] == int(v.max_change_rate.scaleb(18))
        assert creates[0].sender == v.address
        sigs = msg["slotKeySigs"]
        assert isinstance(sigs, list)
        assert all(isinstance(sig, bytes) and len(sig) == 96 for sig in sigs)


def test_staking_effects_on_snapshots(small: Chain) -> None:
    stxs = [s for b in small.iter_blocks(0, 1, small.head(0)) for s in b.staking_transactions]
    checked = Counter[str]()
    for stx in stxs:
        b = stx.block_number
        same_block = [s for s in stxs if s.block_number == b]
        if len(same_block) != 1:
            continue
        if stx.directive in ("Delegate", "Undelegate"):
            validator = str(stx.msg["validatorAddress"])
            delegator = str(stx.msg["delegatorAddress"])
            before = small.validator(validator, b - 1)
            after = small.validator(validator, b)
            assert after is not None
            amount_before = 0
            if before is not None:
                amount_before = sum(d.amount for d in before.delegations if d.delegator == delegator)
            amount_after = sum(d.amount for d in after.delegations if d.delegator == delegator)
            sign = 1 if stx.directive == "Delegate" else -1
            assert amount_after - amount_before == sign * int(stx.msg["amount"])  # type: ignore[call-overload]
            if stx.directive == "Undelegate":
                undelegated = [
                    u for d in after.delegations if d.delegator == delegator for u in d.undelegations
                ]
                assert any(u.epoch == small.epoch_of(b) for u in undelegated)
            checked[stx.directive] += 1
        elif stx.directive == "CollectRewards":
            delegator = str(stx.msg["delegatorAddress"])
            rewards = [
                d.reward for v in small.validators(b) for d in v.delegations if d.delegator == delegator
            ]
            assert rewards
            # paid out; only block b's own reward accrued since (the node's Finalize adds a
            # block's rewards after its transactions)
            before = [
                d.reward for v in small.validators(b - 1) for d in v.delegations if d.delegator == delegator
            ]
            assert sum(rewards) < sum(before)
            checked[stx.directive] += 1
        elif stx.directive == "EditValidator":
            after = small.validator(str(stx.msg["validatorAddress"]), b)
            assert after is not None
            assert after.update_height == b
            assert after.active_status == "active"
            rate = stx.msg["commissionRate"]
            if rate:
                assert after.rate == Decimal(int(rate)).scaleb(-18)  # type: ignore[call-overload]
            checked[stx.directive] += 1
    assert set(checked) == {"Delegate", "Undelegate", "CollectRewards", "EditValidator"}


# --------------------------------------------------------------------------- validators
def test_validator_population_and_fields(default: Chain) -> None:
    addresses = default.validator_addresses()
    assert len(addresses) >= 250
    snapshots = default.validators(default.head(0))
    assert [v.address for v in snapshots] == addresses
    heights = [v.creation_height for v in snapshots]
    assert heights == sorted(heights)
    assert heights[0] == 0
    assert heights[-1] > 0
    for v in snapshots:
        assert v.snapshot_block == default.head(0)
        assert v.snapshot_epoch == default.epoch_of(default.head(0))
        assert 1 <= len(v.bls_keys) <= 4
        assert all(len(k) == 96 and not k.startswith("0x") and int(k, 16) >= 0 for k in v.bls_keys)
        assert v.name
        decimals = [v.rate, v.max_rate, v.max_change_rate, v.current_epoch_signing_percentage, v.apr]
        decimals += [apr for _, apr in v.epoch_apr or ()]
        if v.epos_winning_stake is not None:
            decimals.append(v.epos_winning_stake)
        for m in v.metrics or ():
            decimals += [m.group_percent, m.overall_percent, m.effective_stake, m.raw_stake]
        # exactly 18 fractional digits, however large (no rounding to 28 significant digits)
        assert all(d.as_tuple().exponent == -18 for d in decimals), v.address
        assert Decimal(0) <= v.rate <= v.max_rate <= Decimal(1)
        assert v.max_change_rate <= v.max_rate
        assert v.delegations[0].delegator == v.address
        assert v.total_delegation == sum(d.amount for d in v.delegations)
        assert v.total_delegation <= v.max_total_delegation
        assert v.epos_status in EPOS
        assert v.booted_status in BOOTED
        assert v.active_status in ACTIVE
        assert (v.metrics is not None) == v.currently_in_committee
        assert (v.epos_winning_stake is not None) == v.currently_in_committee
        assert v.lifetime_signed <= v.lifetime_to_sign
        assert v.current_epoch_signed <= v.lifetime_signed
        if v.epoch_apr is not None:
            assert v.epoch_blocks is not None
            assert [e for e, _ in v.epoch_apr] == [e for e, _, _ in v.epoch_blocks]
            assert all(e < v.snapshot_epoch for e, _ in v.epoch_apr)
            assert v.apr == v.epoch_apr[-1][1]
        else:
            assert v.apr == 0
    statuses = Counter(v.epos_status for v in snapshots)
    assert statuses["currently elected"] > 0
    assert (
        statuses["eligible to be elected next epoch"] + statuses["not eligible to be elected next epoch"] > 0
    )
    assert {v.booted_status for v in snapshots} >= {None, "lost epos auction", BANNED}
    assert any(u for v in snapshots for d in v.delegations for u in d.undelegations)
    assert any(d.reward > 0 for v in snapshots for d in v.delegations)
    assert any(len(v.delegations) > 5 for v in snapshots)


def test_bls_keys_sit_on_the_shard_the_node_computes(default: Chain) -> None:
    for v in default.validators(1000):
        for m in v.metrics or ():
            assert m.key in v.bls_keys
            assert m.shard_id == int(m.key, 16) % default.n_shards


def test_historical_pages_are_short(default: Chain) -> None:
    all_addresses = default.validator_addresses()
    early = default.validators(50)
    assert 0 < len(early) < len(all_addresses)
    present = {v.address for v in early}
    later = [a for a in all_addresses if a not in present]
    assert later
    for address in later:
        assert default.validator(address, 50) is None
        snapshot = default.validator(address, default.head(0))
        assert snapshot is not None
        assert snapshot.creation_height > 50
    assert default.validator(all_addresses[0].upper().replace("0X", "0x"), 50) == early[0]
    assert default.validator("0x" + "12" * 20, 50) is None


def test_voting_power_sums_to_exactly_one_per_shard(default: Chain) -> None:
    for block in (0, 777, 1999):
        group: dict[int, Decimal] = defaultdict(Decimal)
        overall: dict[int, Decimal] = defaultdict(Decimal)
        for v in default.validators(block):
            for m in v.metrics or ():
                assert m.group_percent.as_tuple().exponent == -18
                assert m.effective_stake > 0
                group[m.shard_id] += m.group_percent
                overall[m.shard_id] += m.overall_percent
        assert set(group) == {0, 1}
        assert all(total == Decimal(1) for total in group.values())
        assert all(total == Decimal(1) for total in overall.values())


def test_effective_stake_is_clipped_around_the_median(default: Chain) -> None:
    metrics = [m for v in default.validators(600) for m in v.metrics or ()]
    raw = sorted(m.raw_stake for m in metrics)
    median = raw[len(raw) // 2]
    assert any(m.effective_stake != m.raw_stake for m in metrics)
    for m in metrics:
        assert median * Decimal("0.84") <= m.effective_stake <= median * Decimal("1.16")
    for v in default.validators(600):
        if v.metrics:
            with localcontext() as ctx:
                ctx.prec = 80  # stakes in atto with 18 decimals exceed the default 28 digits
                assert v.epos_winning_stake == sum((m.effective_stake for m in v.metrics), Decimal(0))
            # raw stake per key: the stake at the election split over all the validator's keys
            assert len({m.raw_stake for m in v.metrics}) == 1
            assert v.metrics[0].raw_stake * len(v.bls_keys) <= v.total_delegation * 2


def _check_signing(chain: Chain, snapshot: ValidatorSnapshot) -> None:
    block = snapshot.snapshot_block
    epoch = chain.epoch_of(block)
    first = chain.epoch_first_block(epoch)
    signed = to_sign = 0
    for shard in range(chain.n_shards):
        if snapshot.address not in {a for _, a in chain.committee(shard, epoch)}:
            continue
        for number in range(first, block + 1):
            signers = chain.signers(shard, number)
            assert signers is not None
            signed += snapshot.address in signers
            to_sign += 1
    assert (snapshot.current_epoch_signed, snapshot.current_epoch_to_sign) == (signed, to_sign)
    expected = (Decimal(signed) / Decimal(to_sign)).quantize(D18, ROUND_HALF_EVEN) if to_sign else Decimal(0)
    assert snapshot.current_epoch_signing_percentage == expected


def test_signing_counters_match_signers(small: Chain) -> None:
    block = 137  # mid-epoch 3 of the small chain
    snapshots = small.validators(block)
    assert any(v.currently_in_committee for v in snapshots)
    for v in snapshots:
        _check_signing(small, v)
        assert v.currently_in_committee == (v.current_epoch_to_sign > 0)
    # the leader always signs
    for number in range(120, 137):
        leader = small.block(0, number).leader
        signers = small.signers(0, number)
        assert signers is not None
        assert leader in signers


def test_some_elected_validators_sign_below_66_percent(default: Chain) -> None:
    low = [
        v
        for block in (1100, 1500, 1900)
        for v in default.validators(block)
        if v.currently_in_committee and v.current_epoch_signing_percentage < Decimal("0.66")
    ]
    assert low
    for v in low[:2]:
        _check_signing(default, v)


def test_banned_validators_are_never_elected_afterwards(default: Chain) -> None:
    banned_at: dict[str, int] = {}
    for block in range(0, 2000, 100):
        for v in default.validators(block):
            if not v.banned:
                continue
            banned_at.setdefault(v.address, block)
            assert v.epos_status == BANNED
            assert v.active_status == BANNED
            if default.epoch_of(block) > default.epoch_of(banned_at[v.address]):
                assert not v.currently_in_committee
                assert v.booted_status == BANNED  # it was elected before: it has stats
                for shard in (0, 1):
                    assert v.address not in {a for _, a in default.committee(shard, v.snapshot_epoch)}
    assert len(banned_at) == 3
    for address, first_seen in banned_at.items():
        before = default.validator(address, first_seen - 100)
        assert before is not None
        assert not before.banned
        assert default.validator(address, default.head(0)) is not None


def test_inactive_validators_are_not_elected(default: Chain) -> None:
    for epoch in (2, 5, 9):
        first = default.epoch_first_block(epoch)
        elected = {a for shard in (0, 1) for _, a in default.committee(shard, epoch)}
        before = {v.address: v for v in default.validators(first - 1)}
        now = {v.address: v for v in default.validators(first)}
        for address in elected:
            assert now[address].currently_in_committee
        inactive = [a for a, v in now.items() if v.active_status == "inactive" and a in before]
        assert inactive
        assert not elected & set(inactive)


# --------------------------------------------------------------------------- cross-shard
def test_pending_cx_receipts_match_recent_cross_shard_transactions(default: Chain) -> None:
    head = default.head(0)
    for dest in (0, 1):
        source = 1 - dest
        expected = [
            tx
            for number in range(head - CX_PENDING_BLOCKS + 1, head + 1)
            for tx in default.block(source, number).transactions
            if tx.to_shard_id == dest
        ]
        proofs = default.pending_cx_receipts(dest)
        got = [r for p in proofs for r in p.receipts]
        assert [r.tx_hash for r in got] == [tx.hash for tx in expected]
        assert [r.amount for r in got] == [tx.value for tx in expected]
        assert all((r.shard_id, r.to_shard_id) == (source, dest) for r in got)
        for proof in proofs:
            assert isinstance(proof.header, Block)
            assert proof.header.shard_id == source
            assert proof.header == default.block(source, proof.header.number)
            assert proof.shard_ids == (dest,)
            assert len(proof.shard_hashes) == 1
            assert len(proof.commit_sig) == 96
            assert proof.commit_bitmap
    busy = Chain(blocks=2005)
    assert any(busy.pending_cx_receipts(d) for d in (0, 1))


# --------------------------------------------------------------------------- errors
def test_out_of_range_arguments_raise_config_error(small: Chain) -> None:
    with pytest.raises(ConfigError, match=r"shard=2 .*between 0 and 1"):
        small.block(2, 0)
    with pytest.raises(ConfigError, match=r"number=400 .*between 0 and 399"):
        small.block(0, 400)
    with pytest.raises(ConfigError, match=r"number=-1"):
        small.signers(0, -1)
    with pytest.raises(ConfigError, match=r"block=500"):
        small.validators(500)
    with pytest.raises(ConfigError, match=r"block=400"):
        small.validator(small.validator_addresses()[0], 400)
    with pytest.raises(ConfigError, match=r"n=-3"):
        small.mine(-3)
    with pytest.raises(ConfigError, match="shard must be an integer"):
        small.head("0")  # type: ignore[arg-type]
    with pytest.raises(AddressError, match="one1abc"):
        small.validator("one1abc", 5)
    assert small.signers(0, small.head(0)) is None


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"shards": 0}, r"shards=0"),
        ({"blocks": 0}, r"blocks=0"),
        ({"epoch_length": 0}, r"epoch_length=0"),
        ({"validators": 3}, r"validators=3"),
        ({"seed": "x"}, r"seed must be an integer, got 'x'"),
        ({"genesis_time": -5}, r"genesis_time=-5"),
    ],
)
def test_bad_chain_parameters(kwargs: dict[str, object], pattern: str) -> None:
    with pytest.raises(ConfigError, match=pattern):
        Chain(**kwargs)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- other shapes
@pytest.mark.parametrize("shards", [1, 3])
def test_other_shard_counts(shards: int) -> None:
    chain = Chain(seed=8, shards=shards, blocks=120, epoch_length=30, validators=40)
    txs = [tx for s in range(shards) for tx in chain.iter_transactions(s, 0, 119)]
    assert txs
    if shards == 1:
        assert not any(tx.is_cross_shard for tx in txs)
        assert chain.pending_cx_receipts(0) == []
    else:
        assert {tx.to_shard_id for tx in txs if tx.is_cross_shard} == set(range(shards))
    for s in range(shards):
        committee = chain.committee(s, 3)
        assert committee
        assert all(int(key, 16) % shards == s for key, _ in committee)
    group: dict[int, Decimal] = defaultdict(Decimal)
    for v in chain.validators(119):
        for m in v.metrics or ():
            group[m.shard_id] += m.group_percent
    assert group == dict.fromkeys(range(shards), Decimal(1))


def test_one_block_epochs() -> None:
    chain = Chain(seed=9, blocks=40, epoch_length=1, validators=20)
    snapshots = chain.validators(30)
    assert all(v.snapshot_epoch == 30 for v in snapshots)
    assert all(v.current_epoch_to_sign in (0, 1, 2) for v in snapshots)
    for v in snapshots:
        _check_signing(chain, v)


@pytest.mark.parametrize(("seed", "validators", "shards"), [(0, 6, 3), (2, 4, 2), (5, 6, 3)])
def test_tiny_populations_keep_a_committee_on_every_shard(seed: int, validators: int, shards: int) -> None:
    """Bans never take the last validator of a shard; inactive ones stand in if needed."""
    chain = Chain(seed=seed, blocks=120, validators=validators, epoch_length=2, shards=shards)
    for shard in range(shards):
        for block in chain.iter_blocks(shard, 0, 119):
            assert block.leader in {a for _, a in chain.committee(shard, block.epoch)}


def test_threads_sharing_a_chain_get_the_blocks_of_a_private_chain() -> None:
    shared = Chain(seed=12, blocks=300, epoch_length=50, validators=40)
    results: dict[int, list[Block]] = {}

    def work(shard: int) -> None:
        results[shard] = [shared.block(shard, n) for n in range(300)]

    threads = [threading.Thread(target=work, args=(s,)) for s in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    private = Chain(seed=12, blocks=300, epoch_length=50, validators=40)
    for shard in (0, 1):
        assert results[shard] == [private.block(shard, n) for n in range(300)]
