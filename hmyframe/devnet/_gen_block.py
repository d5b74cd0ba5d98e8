"""Turn one block's skeleton into model objects: transactions, traces, staking transactions.

All details of block ``(shard, number)`` come from one ``random.Random`` seeded with a
keyed digest of ``(shard, number)``, so a block is the same whenever and in whatever order
it is generated. Only ``random()`` and ``getrandbits()`` are used (their streams are stable
across Python versions for integer seeds).
"""

from __future__ import annotations

import math
import random
from typing import Final, Literal

from hmyframe.devnet._gen_activity import Activity, activity
from hmyframe.devnet._gen_codec import (
    ADDR_CONTRACT,
    ADDR_CREATED,
    ADDR_EOA,
    ADDR_INNER,
    HASH_BLOCK,
    HASH_MISC,
    HASH_STAKING,
    Codec,
    big_below,
    hex_bytes,
)
from hmyframe.devnet._gen_skeleton import (
    EOA_POPULATION,
    KIND_CALL,
    KIND_CREATE,
    KIND_XSHARD,
    Segment,
)
from hmyframe.devnet._gen_staking import StakingEvent
from hmyframe.devnet._gen_tokens import TokenOp
from hmyframe.devnet.bloom import bloom_hex, bloom_of
from hmyframe.devnet.model import (
    EMPTY_BLOOM,
    ZERO_HASH,
    Block,
    Log,
    StakingTransaction,
    TraceFrame,
    Transaction,
)

__all__ = ["BLOCK_GAS_LIMIT", "CONTRACT_POPULATION", "EMPTY_ROOT", "BlockFactory", "intrinsic_gas"]

BLOCK_GAS_LIMIT: Final = 80_000_000
CONTRACT_POPULATION: Final = 2_000
# Root of an empty Merkle-Patricia trie (what the node reports for a block without transactions).
EMPTY_ROOT: Final = "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421"
# The devnet reports chain id 2 (``hmy_chainId``, as localnet/testnet; see node.CHAIN_ID), so
# Harmony-signed transactions carry v = 2 * 2 + 35 + parity (0x27/0x28, as in the localnet
# samples) and Ethereum-signed ones the testnet EVM chain id 1666700000 + shard.
HARMONY_CHAIN_ID: Final = 2
ETH_CHAIN_ID_BASE: Final = 1_666_700_000
_SECP256K1_N: Final = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
_TAG_BLOCK: Final = 0x424C
_TOKEN_ROOTS: Final = 0x544B  # the ``sub`` of the keyed roots of token-only blocks
_TAG_POOLS: Final = 0x504C
_POOL_SIZE: Final = 4096  # internal calls' inputs/outputs come from a seeded pool of this size
# bit lengths of random ABI words: addresses (160), amounts, small flags, full words
_ARG_BITS: Final = (160, 160, 160, 64, 80, 96, 2, 256)
_BOOL_WORDS: Final = (f"0x{0:064x}", f"0x{1:064x}")
_LN_MILLION: Final = math.log(1_000_000)
_TRANSFER_GAS: Final = (25_000, 30_000, 50_000, 100_000)
_HALF_N: Final = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141 // 2
_POW10: Final[tuple[int, ...]] = tuple(int(10**k) for k in range(40))

_SELECTORS: Final = (
    "a9059cbb",  # transfer(address,uint256)
    "095ea7b3",  # approve(address,uint256)
    "23b872dd",  # transferFrom(address,address,uint256)
    "38ed1739",  # swapExactTokensForTokens
    "7ff36ab5",  # swapExactETHForTokens
    "18cbafe5",  # swapExactTokensForETH
    "e8e33700",  # addLiquidity
    "d0e30db0",  # deposit()
    "2e1a7d4d",  # withdraw(uint256)
    "ae169a50",  # claimReward(uint256)
    "a0712d68",  # mint(uint256)
    "40c10f19",  # mint(address,uint256)
)
_REVERT_MESSAGES: Final = (
    "Ownable: caller is not the owner",
    "UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT",
    "ERC20: transfer amount exceeds balance",
    "TransferHelper: TRANSFER_FROM_FAILED",
    "Pausable: paused",
    "SafeMath: subtraction overflow",
)


def _error_string(message: str) -> str:
    """ABI encoding of ``Error(string)``, as a contract's ``revert("...")`` returns it."""
    data = message.encode()
    padded = data.hex() + "00" * ((32 - len(data) % 32) % 32)
    return "0x08c379a0" + f"{32:064x}" + f"{len(data):064x}" + padded


_REVERT_DATA: Final = (*(_error_string(m) for m in _REVERT_MESSAGES), "0x")


def intrinsic_gas(data: str, creation: bool) -> int:
    """Intrinsic gas of a transaction with call data ``data`` (0x-hex): 21000 (+32000 for a
    creation) + 4 per zero byte + 16 per non-zero byte."""
    raw = bytes.fromhex(data[2:])
    zeros = raw.count(0)
    return 21_000 + (32_000 if creation else 0) + 4 * zeros + 16 * (len(raw) - zeros)


class _Ctx:
    """Per-transaction trace context."""

    __slots__ = ("index", "inner_creates", "number", "shard")

    def __init__(self, shard: int, number: int, index: int) -> None:
        self.shard = shard
        self.number = number
        self.index = index
        self.inner_creates = 0


class BlockFactory:
    """Builds :class:`~hmyframe.devnet.model.Block` objects from skeleton segments.

    Parameters
    ----------
    codec
        The chain's codec.
    n_shards, genesis_time, block_time, epoch_length
        Chain structure.
    profile
        The chain's activity profile (its trace depth table; default: the ``devnet`` one).
    """

    def __init__(
        self,
        codec: Codec,
        n_shards: int,
        genesis_time: int,
        block_time: int,
        epoch_length: int,
        profile: Activity | None = None,
    ) -> None:
        self._codec = codec
        p = activity("devnet") if profile is None else profile
        # per depth: probability of a frame without children, else 1 .. max_children of them
        self._p_leaf, self._max_children = p.p_leaf, p.max_children
        self._n_shards = n_shards
        self._genesis_time = genesis_time
        self._block_time = block_time
        self._epoch_length = epoch_length
        self._rng = random.Random(0)
        self._eoa: dict[int, str] = {}
        self._contracts: dict[tuple[int, int], str] = {}
        # popularity rank -> address, filled lazily (list indexing beats a dict in the hot path)
        self._contract_by_rank: list[list[str | None]] = [
            [None] * CONTRACT_POPULATION for _ in range(n_shards)
        ]
        self._receiver_by_rank: list[list[str | None]] = [[None] * EOA_POPULATION for _ in range(n_shards)]
        self._log_eoa = math.log(EOA_POPULATION)
        self._log_contracts = math.log(CONTRACT_POPULATION)
        self._rng.seed(codec.seed_int(_TAG_POOLS))
        self._input_pool = [self._calldata() for _ in range(_POOL_SIZE)]
        self._output_pool = [self._output() for _ in range(_POOL_SIZE)]
        self._input_gas = [intrinsic_gas(data, False) for data in self._input_pool]

    # ------------------------------------------------------------------ accounts
    def eoa(self, index: int) -> str:
        """Address of EOA ``index`` (the same account on every shard)."""
        addr = self._eoa.get(index)
        if addr is None:
            addr = self._eoa[index] = self._codec.address(ADDR_EOA, 0, index)
        return addr

    def contract(self, shard: int, index: int) -> str:
        """Address of genesis contract ``index`` on ``shard``."""
        key = (shard, index)
        addr = self._contracts.get(key)
        if addr is None:
            addr = self._contracts[key] = self._codec.address(ADDR_CONTRACT, shard, index)
        return addr

    def _pick_contract(self, shard: int) -> str:
        """A genesis contract of ``shard``, Zipf-like by popularity rank."""
        rank = int(math.exp(self._rng.random() * self._log_contracts)) - 1
        by_rank = self._contract_by_rank[shard]
        addr = by_rank[rank]
        if addr is None:
            addr = by_rank[rank] = self.contract(shard, (rank * 7_919 + 3) % CONTRACT_POPULATION)
        return addr

    # ------------------------------------------------------------------ values
    def _value(self) -> int:
        """Atto amount from dust to > 1e24; about half above 2**64; half of them round."""
        r = self._rng
        u = r.random()
        if u < 0.05:  # dust, log-uniform from 1 atto to ~1e6
            return int(math.exp(r.random() * _LN_MILLION))
        if u < 0.25:
            lo, hi = 6, 18
        elif u < 0.60:
            lo, hi = 18, 20
        elif u < 0.90:
            lo, hi = 20, 22
        elif u < 0.98:
            lo, hi = 22, 24
        else:
            lo, hi = 24, 26
        k = lo + int(r.random() * (hi - lo))
        if r.random() < 0.5:
            return (1 + int(r.random() * 999)) * _POW10[max(k - 2, 0)]
        return _POW10[k] + big_below(r, 9 * _POW10[k])

    def _gas_price(self) -> int:
        u = self._rng.random()
        if u < 0.70:
            return 100_000_000_000
        if u < 0.90:
            return (101 + int(self._rng.random() * 200)) * 1_000_000_000
        if u < 0.95:
            return 30_000_000_000
        return 500_000_000_000

    def _signature(self, shard: int, eth_form: bool) -> tuple[int, int, int]:
        r = self._rng
        parity = r.getrandbits(1)
        if eth_form and r.random() < 0.3:  # signed as an Ethereum transaction (EVM chain id per shard)
            v = 2 * (ETH_CHAIN_ID_BASE + shard) + 35 + parity
        else:
            v = 2 * HARMONY_CHAIN_ID + 35 + parity
        sig_r = r.getrandbits(256) % _SECP256K1_N or 1
        sig_s = r.getrandbits(255) % (_SECP256K1_N // 2) or 1
        return v, sig_r, sig_s

    def _calldata(self) -> str:
        """A 4-byte selector and 0-5 ABI words (addresses, amounts, flags, raw words)."""
        rnd = self._rng.random
        grb = self._rng.getrandbits
        words = "".join([f"{grb(_ARG_BITS[int(rnd() * 8)]):064x}" for _ in range(int(rnd() * 6))])
        return f"0x{_SELECTORS[int(rnd() * len(_SELECTORS))]}{words}"

    def _output(self) -> str:
        rnd = self._rng.random
        u = rnd()
        if u < 0.3:
            return "0x"
        if u < 0.8:
            return _BOOL_WORDS[int(rnd() * 2)]
        grb = self._rng.getrandbits
        return "0x" + "".join([f"{grb(_ARG_BITS[int(rnd() * 8)]):064x}" for _ in range(1 + int(rnd() * 3))])

    # ------------------------------------------------------------------ traces
    def _frame(
        self,
        ctx: _Ctx,
        depth: int,
        ftype: Literal["call", "create"],
        call_type: Literal["call", "callcode", "delegatecall", "staticcall"] | None,
        from_: str,
        to: str,
        value: int,
        gas: int,
        input_: str,
        reverted: bool,
        own: int,
        output: str,
    ) -> TraceFrame:
        """A frame with random children; ``gas_used = own + sum(children) <= gas``."""
        rnd = self._rng.random
        used = own if own < gas else gas
        children: tuple[TraceFrame, ...] = ()
        if depth < len(self._p_leaf):
            exec_addr = from_ if call_type == "delegatecall" or call_type == "callcode" else to
            static = call_type == "staticcall"
            # deeper frames have fewer children: about 3.5 frames per contract call on average
            if rnd() >= self._p_leaf[depth]:
                kids: list[TraceFrame] = []
                for _ in range(1 + int(rnd() * self._max_children[depth])):
                    remaining = gas - used
                    if remaining < 2_300:
                        break
                    child = self._child(
                        ctx, depth + 1, exec_addr, int(remaining * 63 // 64 * (0.2 + 0.6 * rnd())), static
                    )
                    kids.append(child)
                    used += child.gas_used
                children = tuple(kids)
            if not static and ftype == "call" and depth >= 1 and rnd() < 0.02:
                suicide = TraceFrame(
                    "suicide", None, exec_addr, from_, self._value(), 0, 0, "0x", "0x", None, None, ()
                )
                children = (*children, suicide)
        if reverted:
            data = _REVERT_DATA[int(rnd() * len(_REVERT_DATA))]
            return TraceFrame(
                ftype, call_type, from_, to, value, gas, used, input_, "0x", "Reverted", data, children
            )
        return TraceFrame(ftype, call_type, from_, to, value, gas, used, input_, output, None, None, children)

    def _child(self, ctx: _Ctx, depth: int, caller: str, gas: int, static: bool) -> TraceFrame:
        r = self._rng
        rnd = r.random
        u = rnd()
        own = int(math.exp(6.0 + 4.0 * rnd()))  # ~400 .. 22000
        if u < 0.92 or static:
            to = self._pick_contract(ctx.shard)
            data = self._input_pool[int(rnd() * _POOL_SIZE)]
            output = self._output_pool[int(rnd() * _POOL_SIZE)]
            call_type: Literal["call", "callcode", "delegatecall", "staticcall"]
            value = 0
            if static or u < 0.30:  # a static context only makes static calls
                call_type, p_revert = "staticcall", 0.03
            elif u < 0.75:
                call_type, p_revert = "call", 0.07
                if rnd() < 0.1:
                    value = self._value()
            elif u < 0.90:
                call_type, p_revert = "delegatecall", 0.04
            else:
                call_type, p_revert = "callcode", 0.0
            return self._frame(
                ctx, depth, "call", call_type, caller, to, value, gas, data, rnd() < p_revert, own, output
            )
        ctx.inner_creates += 1
        created = self._codec.address(
            ADDR_INNER, ctx.shard, ctx.number, (ctx.index << 8 | ctx.inner_creates) & 0xFFFF
        )
        code_len = 100 + int(r.random() * 400)
        init = "0x6080604052" + hex_bytes(r, code_len)
        deployed = "0x6080604052" + init[-2 * (code_len // 2) :]
        return self._frame(
            ctx, depth, "create", None, caller, created, 0, gas, init, r.random() < 0.03,
            own + 200 * (code_len // 2 + 5), deployed,
        )  # fmt: skip

    # ------------------------------------------------------------------ transactions
    def _transaction(
        self,
        shard: int,
        number: int,
        block_hash: str,
        timestamp: int,
        index: int,
        sender: str,
        nonce: int,
        kind: int,
    ) -> Transaction:
        r = self._rng
        rnd = r.random
        to_shard = shard
        to: str | None
        contract_address: str | None = None
        success = True
        u = rnd()  # gas price, inlined (hot path)
        if u < 0.70:
            gas_price = 100_000_000_000
        elif u < 0.90:
            gas_price = (101 + int(rnd() * 200)) * 1_000_000_000
        elif u < 0.95:
            gas_price = 30_000_000_000
        else:
            gas_price = 500_000_000_000
        if kind <= KIND_XSHARD:  # plain transfer, same shard or cross-shard
            rank = int(math.exp(rnd() * self._log_eoa)) - 1  # receiver: Zipf-like popularity
            by_rank = self._receiver_by_rank[shard]
            to = by_rank[rank]
            if to is None:
                to = by_rank[rank] = self.eoa((rank * 15_485_863 + 4_567 + 101 * shard) % EOA_POPULATION)
            value = self._value()
            data = "0x"
            if kind == KIND_XSHARD:
                to_shard = (shard + 1 + int(rnd() * (self._n_shards - 1))) % self._n_shards
            gas = 21_000 if rnd() < 0.8 else _TRANSFER_GAS[int(rnd() * 4)]
            gas_used = 21_000
            trace = TraceFrame("call", "call", sender, to, value, gas - 21_000, 0, "0x", "0x", None, None, ())
        elif kind == KIND_CREATE:
            to = None
            contract_address = self._codec.address(ADDR_CREATED, shard, number, index)
            value = 0 if r.random() < 0.9 else self._value()
            code_len = 200 + int(r.random() * 1_800)
            data = "0x6080604052" + hex_bytes(r, code_len)
            deployed = "0x6080604052" + data[-2 * (code_len * 3 // 4) :]
            base = intrinsic_gas(data, True)
            own = 200 * (code_len * 3 // 4 + 5) + int(math.exp(9.0 + 2.0 * r.random()))
            gas = (base + own) * (11 + int(r.random() * 6)) // 10 // 1_000 * 1_000 + 1_000
            ctx = _Ctx(shard, number, index)
            trace = self._frame(
                ctx,
                1,
                "create",
                None,
                sender,
                contract_address,
                value,
                gas - base,
                data,
                False,
                own,
                deployed,
            )
            gas_used = base + trace.gas_used
        else:  # contract call, possibly reverted
            to = self._pick_contract(shard)
            value = 0 if r.random() < 0.7 else self._value()
            # call data: a pooled selector + arguments, then a fresh 64-bit word (a deadline
            # or nonce argument) so every transaction's input is unique; intrinsic gas is
            # the pooled part's (cached) plus that word's 24 zero bytes and 8 random ones
            k = int(rnd() * _POOL_SIZE)
            tail = r.getrandbits(64)
            tail_zeros = tail.to_bytes(8, "big").count(0)
            data = f"{self._input_pool[k]}{tail:064x}"
            gas = (100_000, 200_000, 250_000, 300_000, 500_000, 1_000_000, 2_000_000)[int(r.random() * 7)]
            base = self._input_gas[k] + 4 * (24 + tail_zeros) + 16 * (8 - tail_zeros)
            own = int(math.exp(8.5 + 2.5 * r.random()))  # ~5000 .. 60000
            success = kind == KIND_CALL
            ctx = _Ctx(shard, number, index)
            trace = self._frame(
                ctx, 0, "call", "call", sender, to, value, gas - base, data, not success, own, self._output()
            )
            gas_used = base + trace.gas_used
        parity = r.getrandbits(1)  # signature, inlined
        if rnd() < 0.3:  # signed as an Ethereum transaction (EVM chain id per shard)
            v = 2 * (ETH_CHAIN_ID_BASE + shard) + 35 + parity
        else:
            v = 2 * HARMONY_CHAIN_ID + 35 + parity
        sig_r = r.getrandbits(256) % _SECP256K1_N or 1
        sig_s = r.getrandbits(255) % _HALF_N or 1
        tx_hash, eth_hash = self._codec.tx_hashes(shard, number, index)
        # positional: the frozen dataclass's __init__ is measurably cheaper that way
        return Transaction(
            tx_hash,
            eth_hash,
            shard,
            to_shard,
            number,
            block_hash,
            index,
            timestamp,
            sender,
            to,
            value,
            gas,
            gas_price,
            nonce,
            data,
            v,
            sig_r,
            sig_s,
            gas_used,
            success,
            contract_address,
            trace,
        )

    def _staking(self, number: int, block_hash: str, timestamp: int, ev: StakingEvent) -> StakingTransaction:
        r = self._rng
        if ev.directive == "CreateValidator":
            gas = 5_300_000 + int(r.random() * 30_000)
            msg = dict(ev.msg)
            msg["slotPubKeys"] = list(ev.msg["slotPubKeys"])  # type: ignore[call-overload]
            msg["slotKeySigs"] = list(ev.msg["slotKeySigs"])  # type: ignore[call-overload]
        else:
            gas = (25_000, 30_000, 50_000, 100_000)[int(r.random() * 4)]
            msg = dict(ev.msg)
        v, sig_r, sig_s = self._signature(0, eth_form=False)  # staking txs are Harmony-signed only
        tx_hash = self._codec.hash(HASH_STAKING, 0, number, ev.index)
        # gas used: the directive's intrinsic cost and a little more, keyed by the hash (no draw,
        # so the block's other draws stay as they were); always <= gas
        spread = int(tx_hash[-6:], 16)
        create = ev.directive == "CreateValidator"
        gas_used = 5_280_000 + spread % 20_000 if create else 21_000 + spread % 4_000
        return StakingTransaction(
            hash=tx_hash,
            block_number=number,
            block_hash=block_hash,
            index=ev.index,
            timestamp=timestamp,
            sender=ev.sender,
            nonce=ev.nonce,
            gas=gas,
            gas_price=self._gas_price(),
            v=v,
            r=sig_r,
            s=sig_s,
            directive=ev.directive,  # type: ignore[arg-type]
            msg=msg,
            gas_used=gas_used,
        )

    def _token_transaction(
        self,
        shard: int,
        number: int,
        block_hash: str,
        timestamp: int,
        index: int,
        op: TokenOp,
        first_log: int,
    ) -> Transaction:
        """A token operation placed at ``index`` of the block, its logs numbered from ``first_log``."""
        tx_hash, eth_hash = self._codec.tx_hashes(shard, number, index)
        # signature values keyed by the hashes (no draw from the block's generator)
        sig_r = int(tx_hash[2:], 16) % _SECP256K1_N or 1
        sig_s = int(eth_hash[2:], 16) % _HALF_N or 1
        v = 2 * HARMONY_CHAIN_ID + 35 + (sig_r & 1)
        base = intrinsic_gas(op.input, False)
        trace = TraceFrame(
            "call",
            "call",
            op.sender,
            op.contract,
            op.value,
            op.gas - base,
            op.gas_used - base,
            op.input,
            op.output,
            None if op.success else "Reverted",
            op.revert,
            op.children,
        )
        logs = tuple(Log(a, t, d, first_log + k) for k, (a, t, d) in enumerate(op.logs))
        return Transaction(
            tx_hash, eth_hash, shard, shard, number, block_hash, index, timestamp, op.sender, op.contract,
            op.value, op.gas, op.gas_price, op.nonce, op.input, v, sig_r, sig_s, op.gas_used, op.success, None,
            trace, logs,
        )  # fmt: skip

    # ------------------------------------------------------------------ blocks
    def block_hash(self, shard: int, number: int) -> str:
        """Hash of block ``number`` of ``shard``."""
        return self._codec.hash(HASH_BLOCK, shard, number)

    def build(
        self,
        shard: int,
        number: int,
        seg: Segment,
        leader: str,
        events: list[StakingEvent],
        token_ops: list[TokenOp] = (),  # type: ignore[assignment]
    ) -> Block:
        """Generate block ``number`` of ``shard``.

        Parameters
        ----------
        shard, number
            Which block.
        seg
            The skeleton segment holding it.
        leader
            Address of the block's leader.
        events
            The block's staking transactions (shard 0 only).
        token_ops
            The block's token operations, then its DEX ones: appended after the plain
            transactions (the plain transactions and the block's other fields keep their draws).
        """
        r = self._rng
        r.seed(self._codec.seed_int(_TAG_BLOCK, shard, number))
        i = number - seg.start
        lo = int(seg.offsets[i])
        hi = int(seg.offsets[i + 1])
        view_id = int(seg.view_ids[i])
        block_hash = self.block_hash(shard, number)
        timestamp = self._genesis_time + self._block_time * view_id
        senders = seg.senders[lo:hi].tolist()
        nonces = seg.nonces[lo:hi].tolist()
        kinds = seg.kinds[lo:hi].tolist()
        if self._n_shards == 1:
            kinds = [k if k != KIND_XSHARD else 0 for k in kinds]
        eoa = self.eoa
        make = self._transaction
        txs = tuple(
            [
                make(shard, number, block_hash, timestamp, j, eoa(senders[j]), nonces[j], kinds[j])
                for j in range(len(senders))
            ]
        )
        stx = tuple(self._staking(number, block_hash, timestamp, ev) for ev in events)
        n_plain = len(txs)
        if token_ops:
            tokens: list[Transaction] = []
            first_log = 0
            for k, op in enumerate(token_ops):
                tx = self._token_transaction(shard, number, block_hash, timestamp, n_plain + k, op, first_log)
                first_log += len(tx.logs)
                tokens.append(tx)
            all_txs = (*txs, *tokens)
            bloom = bloom_of(log for tx in tokens for log in tx.logs)
            logs_bloom = bloom_hex(bloom) if bloom else EMPTY_BLOOM
        else:
            all_txs = txs
            logs_bloom = EMPTY_BLOOM
        size = 509 + sum(112 + len(t.input) // 2 for t in all_txs) + 230 * len(stx)
        # _TOKEN_ROOTS (sub) keys the roots of blocks holding token transactions only
        state_root = "0x" + hex_bytes(r, 32)  # drawn first, as before
        # roots: drawn as before for the plain transactions; a block whose only transactions
        # are token ones gets keyed roots (no draw), so the draws after them stay put
        if txs:
            transactions_root = "0x" + hex_bytes(r, 32)
        elif all_txs:
            transactions_root = self._codec.hash(HASH_MISC, shard, number, 1, _TOKEN_ROOTS)
        else:
            transactions_root = EMPTY_ROOT
        if txs or stx:
            receipts_root = "0x" + hex_bytes(r, 32)
        elif all_txs:
            receipts_root = self._codec.hash(HASH_MISC, shard, number, 2, _TOKEN_ROOTS)
        else:
            receipts_root = EMPTY_ROOT
        return Block(
            shard_id=shard,
            number=number,
            hash=block_hash,
            parent_hash=self.block_hash(shard, number - 1) if number else ZERO_HASH,
            timestamp=timestamp,
            epoch=number // self._epoch_length,
            view_id=view_id,
            leader=leader,
            size=size,
            gas_limit=BLOCK_GAS_LIMIT,
            gas_used=sum(t.gas_used for t in all_txs) + sum(t.gas_used for t in stx),
            state_root=state_root,
            transactions_root=transactions_root,
            receipts_root=receipts_root,
            extra_data="0x",
            vrf="0x" + hex_bytes(r, 32),
            vrf_proof="0x" + hex_bytes(r, 96),
            transactions=all_txs,
            staking_transactions=stx,
            logs_bloom=logs_bloom,
        )
