"""A UniswapV2-style exchange on every shard of the devnet: WONE, a factory, pairs and a router.

The contracts are deployed at genesis on every shard (addresses keyed by shard): **WONE**
(WETH9: ``deposit`` / ``withdraw`` / ``transfer`` / ``transferFrom`` with its ``Deposit`` /
``Withdrawal`` / ``Transfer`` events), a **factory** (``createPair``, ``getPair``,
``allPairs``, ``allPairsLength``, ``feeTo``: zero, so no protocol fee) and a **router**
(``swapExactTokensForTokens``, ``swapExactETHForTokens``, ``swapExactTokensForETH``,
``addLiquidity``, ``removeLiquidity``). The pairs of :data:`PAIR_LINEUP` are created by the
first ``addLiquidity`` of each (the router calls ``factory.createPair``, which creates the
pair and emits ``PairCreated``): WONE/dUSD (a 6-decimals token), dUSD/HUGE and WONE/HUGE (the
token whose balances pass 10**38 units), CAFE/dUSD (8 decimals) and B32/WONE.

The contracts are a model of the observable behaviour of the UniswapV2 contracts (pair,
factory, router and its library) and of WETH9, written for the devnet in its own terms: what a
client sees of them is what it would see of the deployed contracts. The same checks come in the
same order with the same revert reasons; the arithmetic is the same integer arithmetic (the
0.3 % fee: an input counts as ``amountIn * 997 / 1000``, the invariant is checked on balances
scaled by 1000 less three times the input, the first liquidity is ``isqrt(amount0 * amount1)``
less 1000 locked at the zero address, reserves are uint112, the block time a uint32 and the
price accumulators wrap at 2**256); the events have the same layouts and come in the same order;
the external calls are the same calls in the same order, recorded as the transaction's call
tree (the trace: ``call`` / ``staticcall`` / ``create`` frames with their call data, values and
return data) beside its logs (``Transfer`` from the token contracts, ``Sync`` then ``Swap`` /
``Mint`` / ``Burn`` from the pairs). A transaction that reverts keeps its call tree up to the
revert, loses its logs and its state changes. Nothing here is taken from those contracts'
sources: only the facts above (formulas, revert strings, event and call layouts) are shared.

A UniswapV2 pair cannot hold more than ``2**112 - 1`` (about 5.2 * 10**33) of a token:
``_update`` reverts with ``UniswapV2: OVERFLOW`` beyond it. So the HUGE pairs' reserves stay
below that (they reach about 10**33); amounts above 10**38 appear in the HUGE token's own
mints to the market maker and in the swaps of that balance, which the pair refuses
(``UniswapV2: OVERFLOW``, the whole transaction reverted).

Accounts: :data:`DEX_TRADERS` traders of their own (trader 0 is the market maker: it mints
the tokens it seeds the pairs with and wraps ONE); they never hold the token-activity holders'
tokens, so the token activity of :mod:`hmyframe.devnet._gen_tokens` is the same whatever the
DEX density, and the DEX moves tokens only between its own traders, the pairs, the router and
WONE. A token's full ledger is the token activity's plus this one (``Chain.token_balances``).

DEX transactions are appended to a block after its token transactions, drawn from their own
``random.Random`` keyed by ``(shard, number)`` with the tag ``DX``, only in blocks with plain
transactions, Poisson(``density``) of them; the state is a fold with checkpoints
(:class:`~hmyframe.devnet._gen_fold.BlockFold`), as for the tokens.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Final, Literal

from hmyframe.devnet._gen_codec import Codec, big_below
from hmyframe.devnet._gen_fold import BlockFold
from hmyframe.devnet._gen_tokens import (
    SEL_BALANCE_OF,
    SEL_DECIMALS,
    SEL_MINT,
    SEL_NAME,
    SEL_SYMBOL,
    SEL_TOTAL_SUPPLY,
    SEL_TRANSFER,
    SEL_TRANSFER_FROM,
    TOKEN_SPECS,
    TRANSFER_TOPIC,
    TokenOp,
    error_string,
)
from hmyframe.devnet.bloom import keccak256, selector, topic_of
from hmyframe.devnet.model import ZERO_ADDRESS, TokenContract, TraceFrame

__all__ = [
    "ADDR_DEX",
    "ADDR_TRADER",
    "BURN_TOPIC",
    "DEFAULT_DEX_DENSITY",
    "DEPOSIT_TOPIC",
    "DEX_TRADERS",
    "MINT_TOPIC",
    "PAIR_CREATED_TOPIC",
    "PAIR_LINEUP",
    "SWAP_TOPIC",
    "SYNC_TOPIC",
    "WITHDRAWAL_TOPIC",
    "DexContracts",
    "DexEngine",
    "DexLedger",
    "DexPair",
]

ADDR_DEX: Final = 9  # DEX contracts (a: 0 WONE, 1 factory, 2 router, 16 + k pair k of PAIR_LINEUP)
ADDR_TRADER: Final = 10  # accounts sending DEX transactions (a = trader index; 0 the market maker)
DEX_TRADERS: Final = 48
#: Expected DEX transactions per non-empty block (the ``dex_density`` default).
DEFAULT_DEX_DENSITY: Final = 0.1
_TAG_DEX: Final = 0x4458
_PAIR_BASE: Final = 16
#: The HRC-20 whose balances pass 10**38 units (TOKEN_SPECS' "HUGE").
_HUGE: Final = next(i for i, s in enumerate(TOKEN_SPECS) if s.standard == "hrc20" and s.mint_unit >= 10**38)

#: Token line-up of the pairs (``"WONE"`` or an index of ``TOKEN_SPECS``), in creation order,
#: with the amounts (in each token's units) the market maker seeds each with.
PAIR_LINEUP: Final[tuple[tuple[int | str, int | str, int, int], ...]] = (
    ("WONE", 0, 1_000_000 * 10**18, 20_000 * 10**6),  # WONE / dUSD (6 decimals): 0.02 dUSD a ONE
    (0, 1, 20_000 * 10**6, 4 * 10**32),  # dUSD / HUGE
    ("WONE", 1, 1_000_000 * 10**18, 4 * 10**32),  # WONE / HUGE
    (4, 0, 1_000_000 * 10**8, 10_000 * 10**6),  # CAFE (8 decimals) / dUSD
    (2, "WONE", 50_000 * 10**18, 200_000 * 10**18),  # B32 / WONE
)

SYNC_TOPIC: Final = topic_of("Sync(uint112,uint112)")
SWAP_TOPIC: Final = topic_of("Swap(address,uint256,uint256,uint256,uint256,address)")
MINT_TOPIC: Final = topic_of("Mint(address,uint256,uint256)")
BURN_TOPIC: Final = topic_of("Burn(address,uint256,uint256,address)")
PAIR_CREATED_TOPIC: Final = topic_of("PairCreated(address,address,address,uint256)")
DEPOSIT_TOPIC: Final = topic_of("Deposit(address,uint256)")
WITHDRAWAL_TOPIC: Final = topic_of("Withdrawal(address,uint256)")

SEL_SWAP_TOKENS: Final = selector("swapExactTokensForTokens(uint256,uint256,address[],address,uint256)")
SEL_SWAP_ETH_IN: Final = selector("swapExactETHForTokens(uint256,address[],address,uint256)")
SEL_SWAP_ETH_OUT: Final = selector("swapExactTokensForETH(uint256,uint256,address[],address,uint256)")
SEL_ADD_LIQUIDITY: Final = selector(
    "addLiquidity(address,address,uint256,uint256,uint256,uint256,address,uint256)"
)
SEL_REMOVE_LIQUIDITY: Final = selector(
    "removeLiquidity(address,address,uint256,uint256,uint256,address,uint256)"
)
SEL_DEPOSIT: Final = selector("deposit()")
SEL_WITHDRAW: Final = selector("withdraw(uint256)")
SEL_PAIR_SWAP: Final = selector("swap(uint256,uint256,address,bytes)")
SEL_PAIR_MINT: Final = selector("mint(address)")
SEL_PAIR_BURN: Final = selector("burn(address)")
SEL_GET_RESERVES: Final = selector("getReserves()")
SEL_GET_PAIR: Final = selector("getPair(address,address)")
SEL_CREATE_PAIR: Final = selector("createPair(address,address)")
SEL_ALL_PAIRS: Final = selector("allPairs(uint256)")
SEL_ALL_PAIRS_LENGTH: Final = selector("allPairsLength()")
SEL_FEE_TO: Final = selector("feeTo()")
SEL_FEE_TO_SETTER: Final = selector("feeToSetter()")
SEL_INITIALIZE: Final = selector("initialize(address,address)")
SEL_TOKEN0: Final = selector("token0()")
SEL_TOKEN1: Final = selector("token1()")
SEL_FACTORY: Final = selector("factory()")
SEL_WETH: Final = selector("WETH()")
SEL_K_LAST: Final = selector("kLast()")
SEL_PRICE0: Final = selector("price0CumulativeLast()")
SEL_PRICE1: Final = selector("price1CumulativeLast()")
SEL_GET_AMOUNTS_OUT: Final = selector("getAmountsOut(uint256,address[])")
SEL_GET_AMOUNT_OUT: Final = selector("getAmountOut(uint256,uint256,uint256)")
SEL_MINIMUM_LIQUIDITY: Final = selector("MINIMUM_LIQUIDITY()")

MAX_UINT112: Final = 2**112 - 1
MINIMUM_LIQUIDITY: Final = 1_000
_UINT256: Final = 2**256
_TRUE: Final = "0x" + f"{1:064x}"
_DEADLINE: Final = 1_200  # seconds after the block the traders' deadlines are
_GAS_PRICES: Final = (100_000_000_000, 100_000_000_000, 101_000_000_000, 150_000_000_000, 30_000_000_000)

# own gas of each contract function (storage writes, hashing...; logs are added where emitted)
_G_ROUTER: Final = 9_500
_G_TRANSFER: Final = 13_800
_G_TRANSFER_FROM: Final = 16_900
_G_BALANCE_OF: Final = 1_250
_G_GET_RESERVES: Final = 1_150
_G_GET_PAIR: Final = 1_400
_G_FEE_TO: Final = 1_050
_G_SWAP: Final = 27_600
_G_MINT: Final = 41_000
_G_FIRST_MINT: Final = 61_000
_G_BURN: Final = 29_300
_G_DEPOSIT: Final = 22_900
_G_WITHDRAW: Final = 10_100
_G_RECEIVE: Final = 55
_G_CREATE_PAIR: Final = 45_200
_G_INITIALIZE: Final = 44_700
_G_TOKEN_MINT: Final = 47_000
_STIPEND: Final = 2_300


def _word(value: int) -> str:
    return f"{value % _UINT256:064x}"


def _aw(address: str) -> str:
    return "0" * 24 + address[2:]


def _topic(address: str) -> str:
    return "0x" + _aw(address)


def _addresses(items: list[str]) -> str:
    """The tail of a dynamic ``address[]``: its length, then each address."""
    return _word(len(items)) + "".join(_aw(a) for a in items)


def _amount_out(amount_in: int, reserve_in: int, reserve_out: int) -> int:
    """What a swap of ``amount_in`` against ``reserve_in`` / ``reserve_out`` pays out after the
    0.3 % fee (the router library's ``getAmountOut``, with its reverts)."""
    if amount_in <= 0:
        raise _Revert(error_string("UniswapV2Library: INSUFFICIENT_INPUT_AMOUNT"))
    if reserve_in <= 0 or reserve_out <= 0:
        raise _Revert(error_string("UniswapV2Library: INSUFFICIENT_LIQUIDITY"))
    with_fee = amount_in * 997
    return with_fee * reserve_out // (reserve_in * 1000 + with_fee)


def _quote(amount_a: int, reserve_a: int, reserve_b: int) -> int:
    """``amount_a`` of one token in the other at the reserves' ratio (the library's ``quote``)."""
    if amount_a <= 0:
        raise _Revert(error_string("UniswapV2Library: INSUFFICIENT_AMOUNT"))
    if reserve_a <= 0 or reserve_b <= 0:
        raise _Revert(error_string("UniswapV2Library: INSUFFICIENT_LIQUIDITY"))
    return amount_a * reserve_b // reserve_a


@dataclass(frozen=True, slots=True)
class _At:
    """Where a DEX transaction runs: the block's generator, shard, number and time, the ledger
    (advanced in place) and the shard's contracts."""

    r: random.Random
    shard: int
    number: int
    timestamp: int
    state: DexLedger
    dex: DexContracts


class _Revert(Exception):
    """A revert with its revert data (``"0x"`` for a bare ``require``/``revert``)."""

    def __init__(self, data: str) -> None:
        super().__init__(data)
        self.data = data


@dataclass(frozen=True, slots=True)
class DexPair:
    """One pair of a shard's exchange.

    Attributes
    ----------
    address
        The pair (also its LP token).
    token0, token1
        Its tokens, ``token0 < token1`` as the factory sorts them.
    seed0, seed1
        The amounts of ``token0`` / ``token1`` its first liquidity brings.
    """

    address: str
    token0: str
    token1: str
    seed0: int
    seed1: int


@dataclass(frozen=True, slots=True)
class DexContracts:
    """The exchange of one shard: WONE, the factory, the router and the pairs of the line-up."""

    wone: str
    factory: str
    router: str
    pairs: tuple[DexPair, ...]


@dataclass(slots=True)
class DexLedger:
    """The exchange's state on one shard after some block.

    Attributes
    ----------
    balances
        Token address -> account address -> balance, for what the DEX moves: the HRC-20s of
        the line-up held by traders, pairs and the router, WONE and the pairs' LP tokens.
    minted
        HRC-20 address -> what the market maker's mints added to its total supply.
    supply
        Total supply of WONE (the ONE it holds) and of each pair's LP token.
    pairs
        ``allPairs``: pairs in creation order; ``created`` their creation blocks.
    reserves
        Pair -> ``(reserve0, reserve1, blockTimestampLast)``.
    cumulative
        Pair -> ``(price0CumulativeLast, price1CumulativeLast)``.
    nonces
        Trader index -> transactions sent.
    """

    balances: dict[str, dict[str, int]] = field(default_factory=dict)
    minted: dict[str, int] = field(default_factory=dict)
    supply: dict[str, int] = field(default_factory=dict)
    pairs: list[str] = field(default_factory=list)
    created: dict[str, int] = field(default_factory=dict)
    reserves: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    cumulative: dict[str, tuple[int, int]] = field(default_factory=dict)
    nonces: dict[int, int] = field(default_factory=dict)

    def copy(self) -> DexLedger:
        """An independent copy."""
        return DexLedger(
            balances={t: dict(b) for t, b in self.balances.items()},
            minted=dict(self.minted),
            supply=dict(self.supply),
            pairs=list(self.pairs),
            created=dict(self.created),
            reserves=dict(self.reserves),
            cumulative=dict(self.cumulative),
            nonces=dict(self.nonces),
        )

    def assign(self, other: DexLedger) -> None:
        """Take ``other``'s state (a scratch copy whose transaction succeeded)."""
        self.balances, self.minted, self.supply = other.balances, other.minted, other.supply
        self.pairs, self.created, self.reserves = other.pairs, other.created, other.reserves
        self.cumulative, self.nonces = other.cumulative, other.nonces

    def balance(self, token: str, account: str) -> int:
        """Balance of ``account`` in ``token`` (0 when it never held any)."""
        return self.balances.get(token, {}).get(account, 0)


@dataclass(slots=True)
class _Frame:
    """A call frame being recorded (turned into a TraceFrame once the transaction is done)."""

    type: Literal["call", "create"]
    call_type: Literal["call", "staticcall"] | None
    from_: str
    to: str
    value: int
    input: str
    own: int
    output: str = "0x"
    revert: str | None = None
    stipend: bool = False  # a value transfer given only the 2300 stipend (``address.transfer``)
    children: list[_Frame] = field(default_factory=list)

    def used(self) -> int:
        return self.own + sum(c.used() for c in self.children)

    def freeze(self, gas: int) -> TraceFrame:
        children: list[TraceFrame] = []
        spent = self.own // 2
        for child in self.children:
            child_gas = _STIPEND if child.stipend else (gas - spent) * 63 // 64
            children.append(child.freeze(child_gas))
            spent += child.used()
        used = self.used()
        if used > gas:  # the gas limits are chosen from the gas used: a bug if this happens
            raise AssertionError(f"DEX frame to {self.to} uses {used} gas of {gas}")
        error = None if self.revert is None else "Reverted"
        output = "0x" if self.revert is not None else self.output
        return TraceFrame(
            self.type, self.call_type, self.from_, self.to, self.value, gas, used, self.input, output,
            error, self.revert, tuple(children),
        )  # fmt: skip


class _Exec:
    """One transaction being executed on a scratch copy of the ledger."""

    def __init__(self, state: DexLedger, root: _Frame, number: int, timestamp: int) -> None:
        self.state = state
        self.number = number
        self.timestamp = timestamp
        self.logs: list[tuple[str, tuple[str, ...], str]] = []
        self.root = root
        self.stack: list[_Frame] = [root]

    @contextmanager
    def call(
        self,
        call_type: Literal["call", "staticcall"] | None,
        from_: str,
        to: str,
        value: int,
        input_: str,
        own: int,
        *,
        kind: Literal["call", "create"] = "call",
        stipend: bool = False,
    ) -> Iterator[_Frame]:
        frame = _Frame(kind, call_type, from_, to, value, input_, own, stipend=stipend)
        self.stack[-1].children.append(frame)
        self.stack.append(frame)
        try:
            yield frame
        except _Revert as exc:
            frame.revert = exc.data
            raise
        finally:
            self.stack.pop()

    def log(self, address: str, topics: tuple[str, ...], data: str) -> None:
        self.logs.append((address, topics, "0x" + data))
        self.stack[-1].own += 375 + 375 * len(topics) + 8 * (len(data) // 2)


class DexEngine(BlockFold[DexLedger, TokenOp]):
    """The exchange contracts, per-block DEX transactions and the exchange's ledger of one chain.

    Parameters
    ----------
    codec
        The chain's codec (addresses).
    n_shards
        Number of shards.
    density
        Expected DEX transactions per block with plain transactions (0: none).
    plain_count
        ``(shard, number) -> number of plain transactions`` of a block.
    timestamp
        ``(shard, number) -> the block's unix time``.
    tokens
        Each shard's token contracts (``TokenEngine.contracts``): the pairs' HRC-20s.
    """

    def __init__(
        self,
        codec: Codec,
        n_shards: int,
        density: float,
        plain_count: Callable[[int, int], int],
        timestamp: Callable[[int, int], int],
        tokens: list[list[TokenContract]],
    ) -> None:
        super().__init__(codec, n_shards, density, plain_count, _TAG_DEX, DexLedger)
        self._timestamp = timestamp
        self.contracts: list[DexContracts] = []
        self._traders = [codec.address(ADDR_TRADER, 0, i) for i in range(DEX_TRADERS)]
        self._trader_index = {a: i for i, a in enumerate(self._traders)}
        self._kind: dict[str, tuple[str, int]] = {}  # address -> (role, shard)
        self._pair: dict[str, DexPair] = {}
        self._huge = [tokens[shard][_HUGE].address for shard in range(n_shards)]
        for shard in range(n_shards):
            wone = codec.address(ADDR_DEX, shard, 0)
            factory = codec.address(ADDR_DEX, shard, 1)
            router = codec.address(ADDR_DEX, shard, 2)
            pairs: list[DexPair] = []
            for k, (a, b, seed_a, seed_b) in enumerate(PAIR_LINEUP):
                ta = wone if a == "WONE" else tokens[shard][int(a)].address
                tb = wone if b == "WONE" else tokens[shard][int(b)].address
                address = codec.address(ADDR_DEX, shard, _PAIR_BASE + k)
                if ta < tb:
                    pair = DexPair(address, ta, tb, seed_a, seed_b)
                else:
                    pair = DexPair(address, tb, ta, seed_b, seed_a)
                pairs.append(pair)
                self._pair[address] = pair
                self._kind[address] = ("pair", shard)
            self.contracts.append(DexContracts(wone, factory, router, tuple(pairs)))
            self._kind[wone] = ("wone", shard)
            self._kind[factory] = ("factory", shard)
            self._kind[router] = ("router", shard)

    # ------------------------------------------------------------------ contracts
    def role(self, address: str) -> tuple[str, int] | None:
        """``(role, shard)`` of a DEX contract (``"wone"``, ``"factory"``, ``"router"``,
        ``"pair"``), else ``None``."""
        return self._kind.get(address)

    def pair(self, address: str) -> DexPair | None:
        """The pair at ``address``, else ``None``."""
        return self._pair.get(address)

    def token_contract(self, address: str) -> TokenContract | None:
        """WONE or a pair's LP token as a token contract (HRC-20s: name, symbol, 18 decimals),
        else ``None``."""
        found = self._kind.get(address)
        if found is None or found[0] not in ("wone", "pair"):
            return None
        wone = found[0] == "wone"
        return TokenContract(
            address=address,
            shard_id=found[1],
            standard="hrc20",
            name=b"Wrapped ONE" if wone else b"Uniswap V2",
            name_kind="string",
            symbol=b"WONE" if wone else b"UNI-V2",
            symbol_kind="string",
            decimals=18,
            code=self._runtime(address),
        )

    def trader(self, index: int) -> str:
        """Address of DEX trader ``index`` (0 is the market maker)."""
        return self._traders[index]

    def code(self, shard: int, address: str, number: int) -> str | None:
        """Runtime code of a DEX contract on ``shard`` after block ``number`` (``"0x"`` before a
        pair exists or on another shard); ``None`` for an address that is no DEX contract."""
        found = self._kind.get(address)
        if found is None:
            return None
        role, on_shard = found
        if on_shard != shard:
            return "0x"
        if role == "pair" and (self.density <= 0 or address not in self.state_after(shard, number).created):
            return "0x"
        return self._runtime(address)

    @staticmethod
    def _runtime(address: str) -> str:
        body = b"".join(keccak256(bytes.fromhex(address[2:]) + bytes([k])) for k in range(8))
        return "0x608060405234801561001057600080fd5b50600436106101" + body.hex()

    # ------------------------------------------------------------------ ledger (the fold)
    def nonce(self, shard: int, address: str, number: int) -> int:
        """Transactions DEX trader ``address`` sent on ``shard`` in blocks ``<= number``."""
        index = self._trader_index.get(address)
        if index is None or self.density <= 0:
            return 0
        return self.state_after(shard, number).nonces.get(index, 0)

    # ------------------------------------------------------------------ one block
    def _block(
        self, r: random.Random, shard: int, number: int, state: DexLedger, count: int
    ) -> list[TokenOp]:
        if not count:
            return []
        at = _At(r, shard, number, self._timestamp(shard, number), state, self.contracts[shard])
        return [self._one(at) for _ in range(count)]

    def _one(self, at: _At) -> TokenOp:
        """One DEX transaction: the market maker's set-up while a pair is missing, then trading."""
        r, state, dex = at.r, at.state, at.dex
        maker = self._traders[0]
        for pair in dex.pairs:
            if pair.address in state.created:
                continue
            for token, seed in ((pair.token0, pair.seed0), (pair.token1, pair.seed1)):
                if state.balance(token, maker) < seed:
                    return self._fund(at, 0, token, seed)
            return self._add_liquidity(at, 0, pair, pair.seed0, pair.seed1)
        u = r.random()
        trader = self._random_trader(r)
        account = self._traders[trader]
        held = [t for t in self._tradeable(dex) if state.balance(t, account) > 0]
        if u < 0.30 and held:  # tokens for tokens, 1 to 3 hops
            start = held[int(r.random() * len(held))]
            path = self._path(r, dex, start, None)
            amount = 1 + big_below(r, state.balance(start, account))
            return self._swap(at, trader, "tokens", path, amount, False)
        if u < 0.55:  # ONE for tokens through WONE
            path = self._path(r, dex, dex.wone, None)
            amount = 10**18 * int(math.exp(r.random() * math.log(20_000))) + big_below(r, 10**18)
            return self._swap(at, trader, "eth_in", path, amount, False)
        if u < 0.68 and any(t != dex.wone for t in held):  # tokens for ONE through WONE
            sellable = [t for t in held if t != dex.wone]
            start = sellable[int(r.random() * len(sellable))]
            path = self._path(r, dex, start, dex.wone)
            amount = 1 + big_below(r, state.balance(start, account))
            return self._swap(at, trader, "eth_out", path, amount, False)
        if u < 0.76:  # add liquidity to a pair whose two tokens the trader holds (else the maker does)
            pairs = [p for p in dex.pairs if p.token0 in held and p.token1 in held]
            if not pairs:
                trader, account = 0, maker
                pairs = [
                    p for p in dex.pairs if state.balance(p.token0, maker) and state.balance(p.token1, maker)
                ]
                if not pairs:
                    return self._fund(at, 0, dex.wone, 10**24)
            pair = pairs[int(r.random() * len(pairs))]
            want0 = 1 + big_below(r, state.balance(pair.token0, account))
            want1 = 1 + big_below(r, state.balance(pair.token1, account))
            # the maker adds a quarter of the seed at most (the HUGE reserves stay below 2**112)
            if trader == 0:
                want0, want1 = min(want0, pair.seed0 // 4), min(want1, pair.seed1 // 4)
            return self._add_liquidity(at, trader, pair, want0, want1)
        lp = [p for p in dex.pairs if state.balance(p.address, account) > 0]
        if u < 0.82 and lp:  # remove liquidity
            pair = lp[int(r.random() * len(lp))]
            amount = 1 + big_below(r, state.balance(pair.address, account))
            return self._remove_liquidity(at, trader, pair, amount)
        if u < 0.87:  # wrap ONE
            amount = 10**18 * int(math.exp(r.random() * math.log(5_000))) + big_below(r, 10**18)
            return self._deposit(at, trader, amount)
        if u < 0.91 and state.balance(dex.wone, account) > 0:  # unwrap
            amount = 1 + big_below(r, state.balance(dex.wone, account))
            return self._withdraw(at, trader, amount)
        if u < 0.95 and held:  # a swap that fails: minimum out above the quote, or more than held
            start = held[int(r.random() * len(held))]
            path = self._path(r, dex, start, None)
            balance = state.balance(start, account)
            if r.random() < 0.5:
                amount = 1 + big_below(r, balance)
                return self._swap(at, trader, "tokens", path, amount, True)
            amount = balance + 1 + big_below(r, balance)
            return self._swap(at, trader, "tokens", path, amount, False)
        huge = self._huge[at.shard]
        if 0.95 <= u < 0.96 and state.balance(huge, maker) > 10**38:
            # the maker tries to sell 10**38 HUGE or more, beyond what a pair can hold (2**112 - 1):
            # UniswapV2: OVERFLOW
            other = next(
                p.token1 if p.token0 == huge else p.token0 for p in dex.pairs if huge in (p.token0, p.token1)
            )
            path = [huge, other]
            amount = 10**38 + big_below(r, state.balance(huge, maker) - 10**38)
            return self._swap(at, 0, "tokens", path, amount, False)
        # the maker tops up one of the pairs' tokens
        tokens = self._tradeable(dex)
        token = tokens[int(r.random() * len(tokens))]
        seed = max(
            p.seed0 if p.token0 == token else p.seed1 for p in dex.pairs if token in (p.token0, p.token1)
        )
        return self._fund(at, 0, token, seed)

    def _random_trader(self, r: random.Random) -> int:
        """A trader 1 .. DEX_TRADERS-1, Zipf-like (a few trade most)."""
        return min(DEX_TRADERS - 1, int(math.exp(r.random() * math.log(DEX_TRADERS))))

    @staticmethod
    def _tradeable(dex: DexContracts) -> list[str]:
        """The tokens of the pairs, in first-seen order."""
        return list(dict.fromkeys(t for pair in dex.pairs for t in (pair.token0, pair.token1)))

    def _path(self, r: random.Random, dex: DexContracts, start: str, end: str | None) -> list[str]:
        """A path of 1 to 3 hops from ``start`` over the pairs: a random walk, or (``end``
        given) one of the simple paths to ``end``."""
        neighbours: dict[str, list[str]] = {}
        for pair in dex.pairs:
            neighbours.setdefault(pair.token0, []).append(pair.token1)
            neighbours.setdefault(pair.token1, []).append(pair.token0)
        if end is not None:
            paths = self._simple_paths(neighbours, start, end, 3)
            return paths[int(r.random() * len(paths))]
        hops = 1 + int(r.random() * 3)
        path = [start]
        for _ in range(hops):
            options = [t for t in neighbours[path[-1]] if t not in path]
            if not options:
                break
            path.append(options[int(r.random() * len(options))])
        return path

    @staticmethod
    def _simple_paths(neighbours: dict[str, list[str]], start: str, end: str, most: int) -> list[list[str]]:
        """Every path of 1 to ``most`` hops from ``start`` to ``end`` visiting no token twice,
        shortest first."""
        out: list[list[str]] = []
        stack: list[list[str]] = [[start]]
        while stack:
            path = stack.pop(0)
            if path[-1] == end and len(path) > 1:
                out.append(path)
                continue
            if len(path) > most:
                continue
            for t in neighbours[path[-1]]:
                if t not in path:
                    stack.append([*path, t])
        return out

    # ------------------------------------------------------------------ transactions
    def _tx(
        self,
        at: _At,
        trader: int,
        to: str,
        value: int,
        data: str,
        body: Callable[[_Exec], str],
        own: int = _G_ROUTER,
    ) -> TokenOp:
        """Run ``body`` as the transaction ``trader -> to`` on a scratch copy of ``state``; keep
        the copy's changes when it succeeds."""
        r, state = at.r, at.state
        sender = self._traders[trader]
        root = _Frame("call", "call", sender, to, value, "0x" + data, own)
        scratch = state.copy()
        ex = _Exec(scratch, root, at.number, at.timestamp)
        try:
            root.output = body(ex)
            success, revert = True, None
        except _Revert as exc:
            root.revert = exc.data
            success, revert = False, exc.data
        if success:
            state.assign(scratch)
        raw = bytes.fromhex(data)
        zeros = raw.count(0)
        intrinsic = 21_000 + 4 * zeros + 16 * (len(raw) - zeros)
        used = root.used()
        gas_used = intrinsic + used
        gas = (gas_used * (13 + int(r.random() * 8)) // 10 // 10_000 + 1) * 10_000
        nonce = state.nonces.get(trader, 0)
        state.nonces[trader] = nonce + 1
        frame = root.freeze(gas - intrinsic)
        return TokenOp(
            sender=sender,
            nonce=nonce,
            contract=to,
            input="0x" + data,
            gas=gas,
            gas_used=gas_used,
            gas_price=_GAS_PRICES[int(r.random() * len(_GAS_PRICES))],
            success=success,
            output=frame.output,
            revert=revert,
            logs=tuple(ex.logs) if success else (),
            value=value,
            children=frame.children,
        )

    def _fund(self, at: _At, trader: int, token: str, seed: int) -> TokenOp:
        """The trader (the market maker) mints ``token`` to itself, or wraps ONE for WONE."""
        r = at.r
        if token == at.dex.wone:
            return self._deposit(at, trader, 2 * seed + big_below(r, seed))
        account = self._traders[trader]
        if (
            token == self._huge[at.shard]
        ):  # the HUGE token: a mint above 10**38 units, as its other holders get
            amount = 10**38 + big_below(r, 10**38)
        else:
            amount = 3 * seed + big_below(r, seed)

        def body(ex: _Exec) -> str:
            self._credit(ex, token, account, amount)
            ex.state.minted[token] = ex.state.minted.get(token, 0) + amount
            ex.log(token, (TRANSFER_TOPIC, _topic(ZERO_ADDRESS), _topic(account)), _word(amount))
            return "0x"

        data = SEL_MINT + _aw(account) + _word(amount)
        return self._tx(at, trader, token, 0, data, body, _G_TOKEN_MINT)

    def _deposit(self, at: _At, trader: int, amount: int) -> TokenOp:
        """WONE.deposit() with ``amount`` atto."""
        wone = at.dex.wone
        account = self._traders[trader]

        def body(ex: _Exec) -> str:
            self._wone_deposit_effects(ex, wone, account, amount)
            return "0x"

        return self._tx(at, trader, wone, amount, SEL_DEPOSIT, body, _G_DEPOSIT)

    def _withdraw(self, at: _At, trader: int, amount: int) -> TokenOp:
        """WONE.withdraw(amount): the ONE sent back is an inner call with value."""
        wone = at.dex.wone
        account = self._traders[trader]

        def body(ex: _Exec) -> str:
            self._wone_withdraw_effects(ex, wone, account, amount)
            return "0x"

        data = SEL_WITHDRAW + _word(amount)
        return self._tx(at, trader, wone, 0, data, body, _G_WITHDRAW)

    def _swap(
        self,
        at: _At,
        trader: int,
        kind: Literal["tokens", "eth_in", "eth_out"],
        path: list[str],
        amount_in: int,
        too_greedy: bool,
    ) -> TokenOp:
        """A router swap of exactly ``amount_in``; the minimum out is the quote less 0 .. 1 %
        slippage, or (``too_greedy``) more than the quote: the router refuses it."""
        r, dex = at.r, at.dex
        account = self._traders[trader]
        deadline = at.timestamp + _DEADLINE
        quote = self._quote_path(at.state, dex, amount_in, path)
        if quote is None:
            minimum = 0
        elif too_greedy:
            minimum = quote + 1 + big_below(r, quote // 100 + 1)
        else:
            minimum = quote - quote * int(r.random() * 100) // 10_000
        tail = _addresses(path)
        if kind == "eth_in":
            data = SEL_SWAP_ETH_IN + _word(minimum) + _word(128) + _aw(account) + _word(deadline) + tail
            value = amount_in
        else:
            sel = SEL_SWAP_TOKENS if kind == "tokens" else SEL_SWAP_ETH_OUT
            data = (
                sel + _word(amount_in) + _word(minimum) + _word(160) + _aw(account) + _word(deadline) + tail
            )
            value = 0

        def body(ex: _Exec) -> str:
            router = dex.router
            ex.root.own += 700 * len(path)
            if (kind == "eth_in" and path[0] != dex.wone) or (kind == "eth_out" and path[-1] != dex.wone):
                raise _Revert(error_string("UniswapV2Router: INVALID_PATH"))
            amounts = self._amounts_out(ex, dex, router, amount_in, path)
            if amounts[-1] < minimum:
                raise _Revert(error_string("UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT"))
            first = self._pair_for(dex, path[0], path[1])
            if kind == "eth_in":
                with ex.call("call", router, dex.wone, amounts[0], "0x" + SEL_DEPOSIT, _G_DEPOSIT):
                    self._wone_deposit_effects(ex, dex.wone, router, amounts[0])
                if not self._token_transfer(ex, dex, router, dex.wone, first, amounts[0]):
                    raise _Revert("0x")  # WONE's transfer said false: a failed assertion, no reason
            else:
                self._safe_transfer_from(ex, dex, router, path[0], account, first, amounts[0])
            self._swap_hops(ex, dex, router, amounts, path, router if kind == "eth_out" else account)
            if kind == "eth_out":
                out = amounts[-1]
                with ex.call("call", router, dex.wone, 0, "0x" + SEL_WITHDRAW + _word(out), _G_WITHDRAW):
                    self._wone_withdraw_effects(ex, dex.wone, router, out, receiver_code=True)
                with ex.call("call", router, account, out, "0x", 0):  # the ONE paid out: a call with value
                    pass
            return "0x" + _word(32) + _word(len(amounts)) + "".join(_word(a) for a in amounts)

        to = dex.router
        return self._tx(at, trader, to, value, data, body)

    def _add_liquidity(self, at: _At, trader: int, pair: DexPair, want0: int, want1: int) -> TokenOp:
        """Router addLiquidity of up to ``want0`` / ``want1`` (creating the pair if need be)."""
        dex = at.dex
        account = self._traders[trader]
        # tokenA / tokenB in either order, as callers pass them
        a, b, want_a, want_b = pair.token0, pair.token1, want0, want1
        if at.r.random() < 0.5:
            a, b, want_a, want_b = b, a, want1, want0
        deadline = at.timestamp + _DEADLINE
        data = (
            SEL_ADD_LIQUIDITY + _aw(a) + _aw(b) + _word(want_a) + _word(want_b) + _word(0) + _word(0)
            + _aw(account) + _word(deadline)
        )  # fmt: skip

        def body(ex: _Exec) -> str:
            router = dex.router
            got = self._get_pair(ex, dex, router, a, b)
            if got == ZERO_ADDRESS:
                self._create_pair(ex, dex, router, a, b)
            reserve_a, reserve_b = self._get_reserves(ex, dex, router, a, b)
            if reserve_a == 0 and reserve_b == 0:
                amount_a, amount_b = want_a, want_b
            else:
                optimal_b = _quote(want_a, reserve_a, reserve_b)
                if optimal_b <= want_b:
                    amount_a, amount_b = want_a, optimal_b
                else:
                    optimal_a = _quote(want_b, reserve_b, reserve_a)
                    if optimal_a > want_a:
                        raise _Revert("0x")  # no amount of A fits the offer either: a failed assertion
                    amount_a, amount_b = optimal_a, want_b
            target = self._pair_for(dex, a, b)
            self._safe_transfer_from(ex, dex, router, a, account, target, amount_a)
            self._safe_transfer_from(ex, dex, router, b, account, target, amount_b)
            liquidity = self._pair_mint(ex, dex, router, target, account)
            return "0x" + _word(amount_a) + _word(amount_b) + _word(liquidity)

        return self._tx(at, trader, dex.router, 0, data, body)

    def _remove_liquidity(self, at: _At, trader: int, pair: DexPair, liquidity: int) -> TokenOp:
        """Router removeLiquidity of ``liquidity`` LP tokens."""
        dex = at.dex
        account = self._traders[trader]
        a, b = (pair.token0, pair.token1) if at.r.random() < 0.5 else (pair.token1, pair.token0)
        deadline = at.timestamp + _DEADLINE
        data = (
            SEL_REMOVE_LIQUIDITY + _aw(a) + _aw(b) + _word(liquidity) + _word(0) + _word(0) + _aw(account)
            + _word(deadline)
        )  # fmt: skip

        def body(ex: _Exec) -> str:
            router = dex.router
            target = self._pair_for(dex, a, b)
            # the trader's LP tokens go to the pair, which burns them
            input_ = "0x" + SEL_TRANSFER_FROM + _aw(account) + _aw(target) + _word(liquidity)
            with ex.call("call", router, target, 0, input_, _G_TRANSFER_FROM) as frame:
                self._debit(ex, target, account, liquidity, self._insufficient(dex, target))
                self._credit(ex, target, target, liquidity)
                ex.log(target, (TRANSFER_TOPIC, _topic(account), _topic(target)), _word(liquidity))
                frame.output = _TRUE
            amount0, amount1 = self._pair_burn(ex, dex, router, target, account)
            amount_a, amount_b = (amount0, amount1) if a == pair.token0 else (amount1, amount0)
            return "0x" + _word(amount_a) + _word(amount_b)

        return self._tx(at, trader, dex.router, 0, data, body)

    # ------------------------------------------------------------------ contract code
    def _pair_for(self, dex: DexContracts, a: str, b: str) -> str:
        """The pair of two tokens (its address is known before it is created, as ``pairFor`` gives it)."""
        for pair in dex.pairs:
            if {pair.token0, pair.token1} == {a, b}:
                return pair.address
        raise AssertionError(f"no pair of {a} and {b} in the line-up")

    @staticmethod
    def _credit(ex: _Exec, token: str, account: str, amount: int) -> None:
        book = ex.state.balances.setdefault(token, {})
        book[account] = book.get(account, 0) + amount

    @staticmethod
    def _debit(ex: _Exec, token: str, account: str, amount: int, revert: str) -> None:
        book = ex.state.balances.setdefault(token, {})
        balance = book.get(account, 0)
        if balance < amount:
            raise _Revert(revert)
        book[account] = balance - amount

    def _balance_of(self, ex: _Exec, caller: str, token: str, account: str) -> int:
        with ex.call(
            "staticcall", caller, token, 0, "0x" + SEL_BALANCE_OF + _aw(account), _G_BALANCE_OF
        ) as f:
            balance = ex.state.balance(token, account)
            f.output = "0x" + _word(balance)
        return balance

    def _insufficient(self, dex: DexContracts, token: str) -> str:
        """Revert data of a transfer beyond the balance: WETH9's bare ``require``, an HRC-20's
        OpenZeppelin message, a pair's SafeMath underflow."""
        if token == dex.wone:
            return "0x"
        if token in self._pair:
            return error_string("ds-math-sub-underflow")
        return error_string("ERC20: transfer amount exceeds balance")

    def _token_transfer(
        self, ex: _Exec, dex: DexContracts, caller: str, token: str, to: str, amount: int
    ) -> bool:
        """``token.transfer(to, amount)`` called by ``caller``; returns its bool."""
        with ex.call(
            "call", caller, token, 0, "0x" + SEL_TRANSFER + _aw(to) + _word(amount), _G_TRANSFER
        ) as f:
            self._debit(ex, token, caller, amount, self._insufficient(dex, token))
            self._credit(ex, token, to, amount)
            ex.log(token, (TRANSFER_TOPIC, _topic(caller), _topic(to)), _word(amount))
            f.output = _TRUE
        return True

    def _safe_transfer_from(
        self, ex: _Exec, dex: DexContracts, caller: str, token: str, src: str, dst: str, amount: int
    ) -> None:
        """TransferHelper.safeTransferFrom: a low-level call; a failing token makes the router revert
        with its own reason."""
        input_ = "0x" + SEL_TRANSFER_FROM + _aw(src) + _aw(dst) + _word(amount)
        try:
            with ex.call("call", caller, token, 0, input_, _G_TRANSFER_FROM) as f:
                self._debit(ex, token, src, amount, self._insufficient(dex, token))
                self._credit(ex, token, dst, amount)
                ex.log(token, (TRANSFER_TOPIC, _topic(src), _topic(dst)), _word(amount))
                f.output = _TRUE
        except _Revert:
            raise _Revert(error_string("TransferHelper: TRANSFER_FROM_FAILED")) from None

    def _wone_deposit_effects(self, ex: _Exec, wone: str, account: str, amount: int) -> None:
        self._credit(ex, wone, account, amount)
        ex.state.supply[wone] = ex.state.supply.get(wone, 0) + amount
        ex.log(wone, (DEPOSIT_TOPIC, _topic(account)), _word(amount))

    def _wone_withdraw_effects(
        self, ex: _Exec, wone: str, account: str, amount: int, *, receiver_code: bool = False
    ) -> None:
        self._debit(ex, wone, account, amount, "0x")  # beyond the balance: a revert without a reason
        ex.state.supply[wone] -= amount
        # the ONE goes back with only the 2300-gas stipend; the router's receive hook checks the sender
        with ex.call("call", wone, account, amount, "0x", _G_RECEIVE if receiver_code else 0, stipend=True):
            pass
        ex.log(wone, (WITHDRAWAL_TOPIC, _topic(account)), _word(amount))

    def _get_pair(self, ex: _Exec, dex: DexContracts, caller: str, a: str, b: str) -> str:
        with ex.call(
            "staticcall", caller, dex.factory, 0, "0x" + SEL_GET_PAIR + _aw(a) + _aw(b), _G_GET_PAIR
        ) as f:
            target = self._pair_for(dex, a, b)
            found = target if target in ex.state.created else ZERO_ADDRESS
            f.output = "0x" + _aw(found)
        return found

    def _create_pair(self, ex: _Exec, dex: DexContracts, caller: str, a: str, b: str) -> str:
        """The factory's ``createPair``: the pair created (CREATE2), initialised, ``PairCreated``."""
        if a == b:
            raise _Revert(error_string("UniswapV2: IDENTICAL_ADDRESSES"))
        token0, token1 = (a, b) if a < b else (b, a)
        target = self._pair_for(dex, a, b)
        with ex.call(
            "call", caller, dex.factory, 0, "0x" + SEL_CREATE_PAIR + _aw(a) + _aw(b), _G_CREATE_PAIR
        ) as f:
            if target in ex.state.created:
                raise _Revert(error_string("UniswapV2: PAIR_EXISTS"))
            runtime = self._runtime(target)
            init = "0x60806040526001600c5534801561001557600080fd5b50" + runtime[2:]
            create_gas = 32_000 + 200 * ((len(runtime) - 2) // 2) + 24_000
            with ex.call(None, dex.factory, target, 0, init, create_gas, kind="create") as created:
                created.output = runtime
            init_input = "0x" + SEL_INITIALIZE + _aw(token0) + _aw(token1)
            with ex.call("call", dex.factory, target, 0, init_input, _G_INITIALIZE):
                pass
            ex.state.created[target] = ex.number
            ex.state.pairs.append(target)
            ex.state.reserves[target] = (0, 0, 0)
            ex.state.cumulative[target] = (0, 0)
            ex.state.supply[target] = 0
            ex.log(
                dex.factory,
                (PAIR_CREATED_TOPIC, _topic(token0), _topic(token1)),
                _aw(target) + _word(len(ex.state.pairs)),
            )
            f.output = "0x" + _aw(target)
        return target

    def _get_reserves(self, ex: _Exec, dex: DexContracts, caller: str, a: str, b: str) -> tuple[int, int]:
        """The pair's reserves asked by ``getReserves`` (a static call), in the order ``a, b``."""
        target = self._pair_for(dex, a, b)
        with ex.call("staticcall", caller, target, 0, "0x" + SEL_GET_RESERVES, _G_GET_RESERVES) as f:
            if target not in ex.state.created:
                raise _Revert("0x")  # a call to an address without code fails
            r0, r1, last = ex.state.reserves[target]
            f.output = "0x" + _word(r0) + _word(r1) + _word(last)
        return (r0, r1) if a < b else (r1, r0)

    def _amounts_out(
        self, ex: _Exec, dex: DexContracts, caller: str, amount_in: int, path: list[str]
    ) -> list[int]:
        """Each hop's amount along ``path`` for ``amount_in`` (the library's ``getAmountsOut``: the
        pairs' reserves asked hop by hop)."""
        if len(path) < 2:
            raise _Revert(error_string("UniswapV2Library: INVALID_PATH"))
        amounts = [amount_in]
        for a, b in itertools.pairwise(path):
            reserve_in, reserve_out = self._get_reserves(ex, dex, caller, a, b)
            amounts.append(_amount_out(amounts[-1], reserve_in, reserve_out))
        return amounts

    def _quote_path(self, state: DexLedger, dex: DexContracts, amount_in: int, path: list[str]) -> int | None:
        """What getAmountsOut would give now (``None`` where it would revert): the trader's quote."""
        amount = amount_in
        for a, b in itertools.pairwise(path):
            target = self._pair_for(dex, a, b)
            if target not in state.created:
                return None
            r0, r1, _ = state.reserves[target]
            reserve_in, reserve_out = (r0, r1) if a < b else (r1, r0)
            try:
                amount = _amount_out(amount, reserve_in, reserve_out)
            except _Revert:
                return None
        return amount

    def _swap_hops(
        self, ex: _Exec, dex: DexContracts, router: str, amounts: list[int], path: list[str], to: str
    ) -> None:
        """The router's hops: each pair's ``swap`` pays the next pair (the last one ``to``)."""
        for i in range(len(path) - 1):
            inp, out = path[i], path[i + 1]
            token0 = inp if inp < out else out
            amount_out = amounts[i + 1]
            out0, out1 = (0, amount_out) if inp == token0 else (amount_out, 0)
            hop_to = self._pair_for(dex, out, path[i + 2]) if i < len(path) - 2 else to
            self._pair_swap(ex, dex, router, self._pair_for(dex, inp, out), out0, out1, hop_to)

    def _update(self, ex: _Exec, target: str, balance0: int, balance1: int, r0: int, r1: int) -> None:
        """A pair's reserves set to its balances: the uint112 bound, the price accumulators, ``Sync``."""
        if balance0 > MAX_UINT112 or balance1 > MAX_UINT112:
            raise _Revert(error_string("UniswapV2: OVERFLOW"))
        now = ex.timestamp % 2**32
        last = ex.state.reserves[target][2]
        elapsed = (now - last) % 2**32
        if elapsed > 0 and r0 != 0 and r1 != 0:
            p0, p1 = ex.state.cumulative[target]
            p0 = (p0 + ((r1 << 112) // r0) * elapsed) % _UINT256
            p1 = (p1 + ((r0 << 112) // r1) * elapsed) % _UINT256
            ex.state.cumulative[target] = (p0, p1)
        ex.state.reserves[target] = (balance0, balance1, now)
        ex.log(target, (SYNC_TOPIC,), _word(balance0) + _word(balance1))

    def _mint_fee(self, ex: _Exec, dex: DexContracts, target: str) -> bool:
        """The protocol fee check: the pair asks the factory for ``feeTo`` (zero: no fee, kLast stays 0)."""
        with ex.call("staticcall", target, dex.factory, 0, "0x" + SEL_FEE_TO, _G_FEE_TO) as f:
            f.output = "0x" + _aw(ZERO_ADDRESS)
        return False

    def _pair_swap(
        self, ex: _Exec, dex: DexContracts, caller: str, target: str, out0: int, out1: int, to: str
    ) -> None:
        """A pair's ``swap``: outputs paid first, inputs read from the balances, the fee-adjusted
        invariant checked, ``Sync`` then ``Swap`` (empty data: no flash-swap callback)."""
        pair = self._pair[target]
        input_ = "0x" + SEL_PAIR_SWAP + _word(out0) + _word(out1) + _aw(to) + _word(128) + _word(0)
        with ex.call("call", caller, target, 0, input_, _G_SWAP):
            if out0 == 0 and out1 == 0:
                raise _Revert(error_string("UniswapV2: INSUFFICIENT_OUTPUT_AMOUNT"))
            r0, r1, _ = ex.state.reserves[target]
            if not (out0 < r0 and out1 < r1):
                raise _Revert(error_string("UniswapV2: INSUFFICIENT_LIQUIDITY"))
            if to in (pair.token0, pair.token1):
                raise _Revert(error_string("UniswapV2: INVALID_TO"))
            if out0 > 0:
                self._token_transfer(ex, dex, target, pair.token0, to, out0)
            if out1 > 0:
                self._token_transfer(ex, dex, target, pair.token1, to, out1)
            balance0 = self._balance_of(ex, target, pair.token0, target)
            balance1 = self._balance_of(ex, target, pair.token1, target)
            in0 = balance0 - (r0 - out0) if balance0 > r0 - out0 else 0
            in1 = balance1 - (r1 - out1) if balance1 > r1 - out1 else 0
            if in0 == 0 and in1 == 0:
                raise _Revert(error_string("UniswapV2: INSUFFICIENT_INPUT_AMOUNT"))
            adjusted0 = balance0 * 1000 - in0 * 3
            adjusted1 = balance1 * 1000 - in1 * 3
            if adjusted0 * adjusted1 < r0 * r1 * 1000**2:
                raise _Revert(error_string("UniswapV2: K"))
            self._update(ex, target, balance0, balance1, r0, r1)
            ex.log(
                target,
                (SWAP_TOPIC, _topic(caller), _topic(to)),
                _word(in0) + _word(in1) + _word(out0) + _word(out1),
            )

    def _pair_mint(self, ex: _Exec, dex: DexContracts, caller: str, target: str, to: str) -> int:
        """A pair's ``mint``: LP tokens for what was sent to the pair since the last update."""
        pair = self._pair[target]
        with ex.call("call", caller, target, 0, "0x" + SEL_PAIR_MINT + _aw(to), _G_MINT) as f:
            r0, r1, _ = ex.state.reserves[target]
            balance0 = self._balance_of(ex, target, pair.token0, target)
            balance1 = self._balance_of(ex, target, pair.token1, target)
            amount0, amount1 = balance0 - r0, balance1 - r1
            self._mint_fee(ex, dex, target)
            total = ex.state.supply[target]
            if total == 0:
                f.own += _G_FIRST_MINT - _G_MINT
                root = math.isqrt(amount0 * amount1)
                if root < MINIMUM_LIQUIDITY:
                    raise _Revert(error_string("ds-math-sub-underflow"))
                liquidity = root - MINIMUM_LIQUIDITY
                self._lp_mint(ex, target, ZERO_ADDRESS, MINIMUM_LIQUIDITY)
            else:
                liquidity = min(amount0 * total // r0, amount1 * total // r1)
            if liquidity <= 0:
                raise _Revert(error_string("UniswapV2: INSUFFICIENT_LIQUIDITY_MINTED"))
            self._lp_mint(ex, target, to, liquidity)
            self._update(ex, target, balance0, balance1, r0, r1)
            ex.log(target, (MINT_TOPIC, _topic(caller)), _word(amount0) + _word(amount1))
            f.output = "0x" + _word(liquidity)
        return liquidity

    def _lp_mint(self, ex: _Exec, target: str, to: str, amount: int) -> None:
        ex.state.supply[target] += amount
        self._credit(ex, target, to, amount)
        ex.log(target, (TRANSFER_TOPIC, _topic(ZERO_ADDRESS), _topic(to)), _word(amount))

    def _pair_burn(self, ex: _Exec, dex: DexContracts, caller: str, target: str, to: str) -> tuple[int, int]:
        """A pair's ``burn``: the LP tokens sent to the pair burnt, both tokens paid out to ``to``."""
        pair = self._pair[target]
        with ex.call("call", caller, target, 0, "0x" + SEL_PAIR_BURN + _aw(to), _G_BURN) as f:
            r0, r1, _ = ex.state.reserves[target]
            balance0 = self._balance_of(ex, target, pair.token0, target)
            balance1 = self._balance_of(ex, target, pair.token1, target)
            liquidity = ex.state.balance(target, target)
            self._mint_fee(ex, dex, target)
            total = ex.state.supply[target]
            amount0 = liquidity * balance0 // total
            amount1 = liquidity * balance1 // total
            if not (amount0 > 0 and amount1 > 0):
                raise _Revert(error_string("UniswapV2: INSUFFICIENT_LIQUIDITY_BURNED"))
            self._debit(ex, target, target, liquidity, error_string("ds-math-sub-underflow"))
            ex.state.supply[target] -= liquidity
            ex.log(target, (TRANSFER_TOPIC, _topic(target), _topic(ZERO_ADDRESS)), _word(liquidity))
            self._token_transfer(ex, dex, target, pair.token0, to, amount0)
            self._token_transfer(ex, dex, target, pair.token1, to, amount1)
            balance0 = self._balance_of(ex, target, pair.token0, target)
            balance1 = self._balance_of(ex, target, pair.token1, target)
            self._update(ex, target, balance0, balance1, r0, r1)
            ex.log(target, (BURN_TOPIC, _topic(caller), _topic(to)), _word(amount0) + _word(amount1))
            f.output = "0x" + _word(amount0) + _word(amount1)
        return amount0, amount1

    # ------------------------------------------------------------------ calls
    def call(self, shard: int, address: str, data: str, number: int) -> tuple[str, str | None] | None:
        """What ``call`` of ``data`` to DEX contract ``address`` answers at block ``number``
        (``(result, revert)`` as :meth:`TokenEngine.call`); ``None`` when ``address`` is no
        DEX contract."""
        found = self._kind.get(address)
        if found is None:
            return None
        role, on_shard = found
        if on_shard != shard or len(data) < 10:
            return "0x", None
        sel = data[2:10]
        dex = self.contracts[shard]
        state = self.state_after(shard, number) if self.density > 0 else DexLedger()
        if role == "pair" and address not in state.created:
            return "0x", None  # no code yet
        if role in ("wone", "pair"):
            token_answer = self._erc20_call(role, address, sel, data, state)
            if token_answer is not None:
                return token_answer
        if role == "pair":
            pair = self._pair[address]
            if sel == SEL_GET_RESERVES:
                r0, r1, last = state.reserves[address]
                return "0x" + _word(r0) + _word(r1) + _word(last), None
            simple = {
                SEL_TOKEN0: _aw(pair.token0),
                SEL_TOKEN1: _aw(pair.token1),
                SEL_FACTORY: _aw(dex.factory),
                SEL_K_LAST: _word(0),
                SEL_PRICE0: _word(state.cumulative[address][0]),
                SEL_PRICE1: _word(state.cumulative[address][1]),
                SEL_MINIMUM_LIQUIDITY: _word(MINIMUM_LIQUIDITY),
            }
            return ("0x" + simple[sel], None) if sel in simple else ("0x", None)
        if role == "factory":
            if sel == SEL_ALL_PAIRS_LENGTH:
                return "0x" + _word(len(state.pairs)), None
            if sel == SEL_ALL_PAIRS and len(data) >= 74:
                index = int(data[10:74], 16)
                return ("0x" + _aw(state.pairs[index]), None) if index < len(state.pairs) else ("0x", None)
            if sel == SEL_GET_PAIR and len(data) >= 138:
                a, b = "0x" + data[34:74], "0x" + data[98:138]
                target = next(
                    (p.address for p in dex.pairs if {p.token0, p.token1} == {a, b} and a != b), ZERO_ADDRESS
                )
                return "0x" + _aw(target if target in state.created else ZERO_ADDRESS), None
            if sel in (SEL_FEE_TO, SEL_FEE_TO_SETTER):
                return "0x" + _aw(ZERO_ADDRESS if sel == SEL_FEE_TO else self._traders[0]), None
            return "0x", None
        if role == "router":
            if sel == SEL_FACTORY:
                return "0x" + _aw(dex.factory), None
            if sel == SEL_WETH:
                return "0x" + _aw(dex.wone), None
            if sel == SEL_GET_AMOUNT_OUT and len(data) >= 202:
                args = [int(data[10 + 64 * i : 74 + 64 * i], 16) for i in range(3)]
                try:
                    return "0x" + _word(_amount_out(*args)), None
                except _Revert as exc:
                    return "0x", exc.data
            if sel == SEL_GET_AMOUNTS_OUT:
                return self._call_amounts_out(state, dex, data)
        return "0x", None

    def _call_amounts_out(self, state: DexLedger, dex: DexContracts, data: str) -> tuple[str, str | None]:
        raw = data[10:]
        try:
            amount_in = int(raw[0:64], 16)
            offset = int(raw[64:128], 16) * 2
            n = int(raw[offset : offset + 64], 16)
            path = ["0x" + raw[offset + 64 + 64 * i + 24 : offset + 128 + 64 * i] for i in range(n)]
        except ValueError:
            return "0x", None
        if len(path) < 2:
            return "0x", error_string("UniswapV2Library: INVALID_PATH")
        amounts = [amount_in]
        for a, b in itertools.pairwise(path):
            target = next((p.address for p in dex.pairs if {p.token0, p.token1} == {a, b}), None)
            if target is None or target not in state.created:
                return "0x", None  # getReserves on an address without code
            r0, r1, _ = state.reserves[target]
            reserve_in, reserve_out = (r0, r1) if a < b else (r1, r0)
            try:
                amounts.append(_amount_out(amounts[-1], reserve_in, reserve_out))
            except _Revert as exc:
                return "0x", exc.data
        return "0x" + _word(32) + _word(len(amounts)) + "".join(_word(a) for a in amounts), None

    def _erc20_call(
        self, role: str, address: str, sel: str, data: str, state: DexLedger
    ) -> tuple[str, str | None] | None:
        """name / symbol / decimals / totalSupply / balanceOf of WONE or a pair's LP token."""
        if sel in (SEL_NAME, SEL_SYMBOL):
            if role == "wone":
                text = b"Wrapped ONE" if sel == SEL_NAME else b"WONE"
            else:
                text = b"Uniswap V2" if sel == SEL_NAME else b"UNI-V2"
            return "0x" + _word(32) + _word(len(text)) + text.hex().ljust(64, "0"), None
        if sel == SEL_DECIMALS:
            return "0x" + _word(18), None
        if sel == SEL_TOTAL_SUPPLY:
            return "0x" + _word(state.supply.get(address, 0)), None
        if sel == SEL_BALANCE_OF and len(data) >= 74:
            return "0x" + _word(state.balance(address, "0x" + data[34:74])), None
        return None

    def token_overlay(self, shard: int, token: str, number: int) -> tuple[int, dict[str, int]]:
        """What the DEX adds to an HRC-20 of the token activity at block ``number``: its mints
        (part of the total supply) and the balances of the DEX's accounts."""
        if self.density <= 0:
            return 0, {}
        state = self.state_after(shard, number)
        return state.minted.get(token, 0), dict(state.balances.get(token, {}))
