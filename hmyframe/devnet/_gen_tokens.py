"""Token contracts, their transactions and their ledger: the devnet's HRC-20 / HRC-721 /
HRC-1155 activity.

Every shard has the same line-up of :data:`TOKEN_SPECS` (deployed at genesis, addresses
keyed by shard): six HRC-20 variants (6 decimals; balances beyond 10**38 units; a
``bytes32`` name and symbol; a ``name()`` that reverts; a name that is not UTF-8; no
``decimals()``), an HRC-721 and an HRC-1155.

Token transactions are *appended* to a block after its plain transactions, drawn from their
own ``random.Random`` keyed by ``(shard, number)``: the plain transactions' draws are
untouched, so a chain keeps its plain transactions whatever the token density. Only blocks
with plain transactions get token ones (token activity rides along with the busy blocks; the
empty blocks stay empty), Poisson(``density``) of them.

Whether a transfer succeeds depends on balances, so a block's token transactions are a fold
over the ledger: :class:`TokenEngine` is a :class:`~hmyframe.devnet._gen_fold.BlockFold`,
which keeps the ledger after every :data:`CHECKPOINT`-th block and after the last block it
generated (sequential generation O(1) per block, a random block at most :data:`CHECKPOINT`
blocks of replay).

Token senders are their own population of :data:`TOKEN_HOLDERS` accounts (holder 0 is the
minter of every token); their nonces are the count of their token transactions on the shard,
kept in the same ledger.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final, Literal

from hmyframe.devnet._gen_codec import Codec, big_below
from hmyframe.devnet._gen_fold import CHECKPOINT, BlockFold
from hmyframe.devnet._gen_hostile import HOSTILE_TOKEN_TEXT
from hmyframe.devnet.bloom import keccak256, selector, topic_of
from hmyframe.devnet.model import ZERO_ADDRESS, TokenContract, TraceFrame

__all__ = [
    "ADDR_HOLDER",
    "ADDR_TOKEN",
    "CHECKPOINT",
    "DEFAULT_TOKEN_DENSITY",
    "TOKEN_HOLDERS",
    "TOKEN_SPECS",
    "TRANSFER_BATCH_TOPIC",
    "TRANSFER_SINGLE_TOPIC",
    "TRANSFER_TOPIC",
    "Ledger",
    "TokenEngine",
    "TokenOp",
]

ADDR_TOKEN: Final = 7  # token contracts (a = index in TOKEN_SPECS)
ADDR_HOLDER: Final = 8  # accounts that only send token transactions (a = holder index)
TOKEN_HOLDERS: Final = 400
#: Expected token transactions per non-empty block (the ``token_density`` default).
DEFAULT_TOKEN_DENSITY: Final = 0.5
_TAG_TOKENS: Final = 0x544B
_MAX_DENSITY: Final = 50.0

TRANSFER_TOPIC: Final = topic_of("Transfer(address,address,uint256)")
TRANSFER_SINGLE_TOPIC: Final = topic_of("TransferSingle(address,address,address,uint256,uint256)")
TRANSFER_BATCH_TOPIC: Final = topic_of("TransferBatch(address,address,address,uint256[],uint256[])")

SEL_TRANSFER: Final = selector("transfer(address,uint256)")
SEL_MINT: Final = selector("mint(address,uint256)")
SEL_BURN: Final = selector("burn(uint256)")
SEL_TRANSFER_FROM: Final = selector("transferFrom(address,address,uint256)")
SEL_SAFE_TRANSFER: Final = selector("safeTransferFrom(address,address,uint256,uint256,bytes)")
SEL_SAFE_BATCH: Final = selector("safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)")
SEL_MINT_1155: Final = selector("mint(address,uint256,uint256,bytes)")
SEL_BURN_1155: Final = selector("burn(address,uint256,uint256)")
SEL_NAME: Final = selector("name()")
SEL_SYMBOL: Final = selector("symbol()")
SEL_DECIMALS: Final = selector("decimals()")
SEL_TOTAL_SUPPLY: Final = selector("totalSupply()")
SEL_BALANCE_OF: Final = selector("balanceOf(address)")
SEL_OWNER_OF: Final = selector("ownerOf(uint256)")

Kind = Literal["string", "bytes32", "revert", "none"]


@dataclass(frozen=True, slots=True)
class _Spec:
    standard: Literal["hrc20", "hrc721", "hrc1155"]
    name: bytes
    name_kind: Kind
    symbol: bytes
    symbol_kind: Kind
    decimals: int | None
    mint_unit: int  # mints are 1 .. mint_range times this
    mint_range: int


#: The token line-up of every shard, in address-index order.
TOKEN_SPECS: Final[tuple[_Spec, ...]] = (
    _Spec("hrc20", b"Devnet USD", "string", b"dUSD", "string", 6, 10**6, 1_000_000),
    _Spec("hrc20", b"Huge Supply Token", "string", b"HUGE", "string", 18, 10**38, 1_000_000),
    _Spec("hrc20", b"Bytes Thirty Two", "bytes32", b"B32", "bytes32", 18, 10**18, 100_000),
    _Spec("hrc20", b"name is disabled", "revert", b"NONAME", "string", 18, 10**18, 100_000),
    _Spec("hrc20", b"Caf\xe9 \xff Token", "string", b"CAFE", "string", 8, 10**8, 100_000),
    _Spec("hrc20", b"No Decimals", "string", b"NODEC", "string", None, 1, 10**9),
    _Spec("hrc721", b"Devnet Punks", "string", b"DPUNK", "string", None, 1, 1),
    _Spec("hrc1155", b"", "none", b"", "none", None, 1, 1_000),
)
_HRC20: Final = tuple(i for i, s in enumerate(TOKEN_SPECS) if s.standard == "hrc20")
_NFT: Final = TOKEN_SPECS.index(next(s for s in TOKEN_SPECS if s.standard == "hrc721"))
_MULTI: Final = TOKEN_SPECS.index(next(s for s in TOKEN_SPECS if s.standard == "hrc1155"))
_MULTI_IDS: Final = 5  # HRC-1155 token ids 1 .. 5


def _word(value: int) -> str:
    return f"{value:064x}"


def _addr_word(address: str) -> str:
    return "0" * 24 + address[2:]


def _addr_topic(address: str) -> str:
    return "0x" + _addr_word(address)


def _safe_transfer(sender: str, to: str, token_id: int, amount: int) -> str:
    """Call data of ``safeTransferFrom(sender, to, id, amount, "")`` without ``0x``."""
    return (
        SEL_SAFE_TRANSFER
        + _addr_word(sender)
        + _addr_word(to)
        + _word(token_id)
        + _word(amount)
        + _word(160)
        + _word(0)
    )


def error_string(message: str) -> str:
    """ABI encoding of ``Error(string)`` (what ``revert("...")`` returns), 0x-hex."""
    data = message.encode()
    return "0x08c379a0" + _word(32) + _word(len(data)) + data.hex() + "00" * ((32 - len(data) % 32) % 32)


def _abi_bytes(data: bytes) -> str:
    """ABI encoding of one dynamic ``string``/``bytes`` return value, without ``0x``."""
    return _word(32) + _word(len(data)) + data.hex() + "00" * ((32 - len(data) % 32) % 32)


@dataclass(frozen=True, slots=True)
class TokenOp:
    """One token transaction before it is placed in a block.

    ``logs`` are ``(address, topics, data)`` (log indices are given by the block); a failed
    operation has none and carries its revert data. ``value`` is the ONE sent with it and
    ``children`` the calls it makes (the DEX's transactions, :mod:`hmyframe.devnet._gen_dex`;
    a token activity's transaction makes none).
    """

    sender: str
    nonce: int
    contract: str
    input: str
    gas: int
    gas_used: int
    gas_price: int
    success: bool
    output: str
    revert: str | None
    logs: tuple[tuple[str, tuple[str, ...], str], ...]
    value: int = 0
    children: tuple[TraceFrame, ...] = ()


@dataclass(slots=True)
class Ledger:
    """Token state of one shard after some block (holders by index; 0 = the minter)."""

    balances: dict[int, dict[int, int]] = field(default_factory=lambda: {i: {} for i in _HRC20})
    supply: dict[int, int] = field(default_factory=lambda: dict.fromkeys(_HRC20, 0))
    nft_owner: dict[int, int] = field(default_factory=dict)
    nft_live: list[int] = field(default_factory=list)
    next_nft: int = 1
    multi: dict[tuple[int, int], int] = field(default_factory=dict)  # (id, holder) -> balance
    multi_supply: dict[int, int] = field(default_factory=dict)
    nonces: dict[int, int] = field(default_factory=dict)

    def copy(self) -> Ledger:
        """An independent copy."""
        return Ledger(
            balances={i: dict(b) for i, b in self.balances.items()},
            supply=dict(self.supply),
            nft_owner=dict(self.nft_owner),
            nft_live=list(self.nft_live),
            next_nft=self.next_nft,
            multi=dict(self.multi),
            multi_supply=dict(self.multi_supply),
            nonces=dict(self.nonces),
        )


_GAS_PRICES: Final = (100_000_000_000, 100_000_000_000, 100_000_000_000, 120_000_000_000, 30_000_000_000)


class TokenEngine(BlockFold[Ledger, TokenOp]):
    """Token contracts, per-block token operations and the ledger of one chain.

    Parameters
    ----------
    codec
        The chain's codec (addresses).
    n_shards
        Number of shards.
    density
        Expected token transactions per block with plain transactions (0: none).
    plain_count
        ``(shard, number) -> number of plain transactions`` of a block (from the skeleton).
    hostile
        Names and symbols chosen to break displays (:mod:`hmyframe.devnet._gen_hostile`)
        instead of the line-up's own.
    """

    def __init__(
        self,
        codec: Codec,
        n_shards: int,
        density: float,
        plain_count: Callable[[int, int], int],
        hostile: bool = False,
    ) -> None:
        super().__init__(codec, n_shards, density, plain_count, _TAG_TOKENS, Ledger)
        self._hostile = hostile
        self.contracts: list[list[TokenContract]] = [
            [self._contract(shard, i) for i in range(len(TOKEN_SPECS))] for shard in range(n_shards)
        ]
        self._by_address = {c.address: c for per_shard in self.contracts for c in per_shard}
        self._index = {c.address: i for per_shard in self.contracts for i, c in enumerate(per_shard)}
        self._holders = [codec.address(ADDR_HOLDER, 0, i) for i in range(TOKEN_HOLDERS)]
        self._holder_index = {a: i for i, a in enumerate(self._holders)}

    # ------------------------------------------------------------------ contracts
    def _contract(self, shard: int, index: int) -> TokenContract:
        spec = TOKEN_SPECS[index]
        name, symbol = HOSTILE_TOKEN_TEXT[index] if self._hostile else (spec.name, spec.symbol)
        if spec.name_kind == "revert":  # the revert reason stays a reason
            name = spec.name
        address = self._codec.address(ADDR_TOKEN, shard, index)
        # runtime code: a recognisable prologue and a body keyed by the address
        body = b"".join(keccak256(bytes.fromhex(address[2:]) + bytes([k])) for k in range(4))
        code = "0x608060405234801561001057600080fd5b50" + body.hex()
        return TokenContract(
            address=address,
            shard_id=shard,
            standard=spec.standard,
            name=name,
            name_kind=spec.name_kind,
            symbol=symbol,
            symbol_kind=spec.symbol_kind,
            decimals=spec.decimals,
            code=code,
        )

    def token(self, address: str) -> TokenContract | None:
        """The token contract at this lower-case 0x address (any shard), else ``None``."""
        return self._by_address.get(address)

    def holder(self, index: int) -> str:
        """Address of token holder ``index``."""
        return self._holders[index]

    def holder_index(self, address: str) -> int | None:
        """Index of a token-holder address (lower-case 0x), else ``None``."""
        return self._holder_index.get(address)

    # ------------------------------------------------------------------ ledger
    def nonce(self, shard: int, address: str, number: int) -> int:
        """Token transactions sent by holder ``address`` on ``shard`` in blocks ``<= number``."""
        index = self._holder_index.get(address)
        if index is None or self.density <= 0:
            return 0
        return self.state_after(shard, number).nonces.get(index, 0)

    # ------------------------------------------------------------------ one block
    def _block(self, r: random.Random, shard: int, number: int, state: Ledger, count: int) -> list[TokenOp]:
        ops: list[TokenOp] = []
        for _ in range(count):
            u = r.random()
            index = int(r.random() * len(TOKEN_SPECS))
            spec = TOKEN_SPECS[index]
            contract = self.contracts[shard][index].address
            if spec.standard == "hrc20":
                op = self._hrc20(r, state, index, spec, contract, u)
            elif spec.standard == "hrc721":
                op = self._hrc721(r, state, contract, u)
            else:
                op = self._hrc1155(r, state, spec, contract, u)
            ops.append(op)
        return ops

    def _random_holder(self, r: random.Random) -> int:
        """A holder index 1 .. TOKEN_HOLDERS-1, Zipf-like (a few hold most)."""
        return 1 + int(math.exp(r.random() * math.log(TOKEN_HOLDERS - 1))) - 1

    def _op(
        self,
        r: random.Random,
        state: Ledger,
        sender: int,
        contract: str,
        data: str,
        own: int,
        success: bool,
        output: str,
        revert: str | None,
        logs: tuple[tuple[str, tuple[str, ...], str], ...],
    ) -> TokenOp:
        raw = bytes.fromhex(data)
        zeros = raw.count(0)
        intrinsic = 21_000 + 4 * zeros + 16 * (len(raw) - zeros)
        log_gas = sum(375 + 375 * len(t) + 8 * (len(d) - 2) // 2 for _, t, d in logs)
        gas_used = intrinsic + own + log_gas
        gas = max((100_000, 150_000, 250_000)[int(r.random() * 3)], (gas_used // 10_000 + 2) * 10_000)
        nonce = state.nonces.get(sender, 0)
        state.nonces[sender] = nonce + 1
        return TokenOp(
            sender=self._holders[sender],
            nonce=nonce,
            contract=contract,
            input="0x" + data,
            gas=gas,
            gas_used=gas_used,
            gas_price=_GAS_PRICES[int(r.random() * len(_GAS_PRICES))],
            success=success,
            output=output,
            revert=revert,
            logs=logs if success else (),
        )

    def _hrc20(
        self, r: random.Random, state: Ledger, index: int, spec: _Spec, contract: str, u: float
    ) -> TokenOp:
        balances = state.balances[index]
        if u < 0.2:  # mint by the minter to a holder
            to = self._random_holder(r)
            amount = (1 + int(r.random() * spec.mint_range)) * spec.mint_unit + big_below(r, spec.mint_unit)
            balances[to] = balances.get(to, 0) + amount
            state.supply[index] += amount
            log = (
                contract,
                (TRANSFER_TOPIC, _addr_topic(ZERO_ADDRESS), _addr_topic(self._holders[to])),
                "0x" + _word(amount),
            )
            data = SEL_MINT + _addr_word(self._holders[to]) + _word(amount)
            return self._op(r, state, 0, contract, data, 47_000, True, "0x", None, (log,))
        sender = self._random_holder(r)
        balance = balances.get(sender, 0)
        if u < 0.32:  # burn
            if balance > 0:
                amount = 1 + big_below(r, balance)
                balances[sender] = balance - amount
                state.supply[index] -= amount
                log = (
                    contract,
                    (TRANSFER_TOPIC, _addr_topic(self._holders[sender]), _addr_topic(ZERO_ADDRESS)),
                    "0x" + _word(amount),
                )
                return self._op(
                    r, state, sender, contract, SEL_BURN + _word(amount), 28_000, True, "0x", None, (log,)
                )
            amount = 1 + big_below(r, spec.mint_unit * 10)
            revert = error_string("ERC20: burn amount exceeds balance")
            return self._op(
                r, state, sender, contract, SEL_BURN + _word(amount), 23_500, False, "0x", revert, ()
            )
        to = self._random_holder(r)
        if balance > 0 and u < 0.88:  # transfer
            amount = 1 + big_below(r, balance)
            balances[sender] = balance - amount
            balances[to] = balances.get(to, 0) + amount
            log = (
                contract,
                (TRANSFER_TOPIC, _addr_topic(self._holders[sender]), _addr_topic(self._holders[to])),
                "0x" + _word(amount),
            )
            data = SEL_TRANSFER + _addr_word(self._holders[to]) + _word(amount)
            return self._op(r, state, sender, contract, data, 29_500, True, "0x" + _word(1), None, (log,))
        # failed transfer: more than the balance
        amount = balance + 1 + big_below(r, spec.mint_unit * 100)
        data = SEL_TRANSFER + _addr_word(self._holders[to]) + _word(amount)
        revert = error_string("ERC20: transfer amount exceeds balance")
        return self._op(r, state, sender, contract, data, 23_800, False, "0x", revert, ())

    def _hrc721(self, r: random.Random, state: Ledger, contract: str, u: float) -> TokenOp:
        live = state.nft_live
        if u < 0.3 or not live:  # mint a new id
            to = self._random_holder(r)
            token_id = state.next_nft
            state.next_nft += 1
            state.nft_owner[token_id] = to
            live.append(token_id)
            log = (
                contract,
                (
                    TRANSFER_TOPIC,
                    _addr_topic(ZERO_ADDRESS),
                    _addr_topic(self._holders[to]),
                    "0x" + _word(token_id),
                ),
                "0x",
            )
            data = SEL_MINT + _addr_word(self._holders[to]) + _word(token_id)
            return self._op(r, state, 0, contract, data, 51_000, True, "0x", None, (log,))
        pos = int(r.random() * len(live))
        token_id = live[pos]
        owner = state.nft_owner[token_id]
        if u < 0.4:  # burn by its owner
            live[pos] = live[-1]
            live.pop()
            del state.nft_owner[token_id]
            log = (
                contract,
                (
                    TRANSFER_TOPIC,
                    _addr_topic(self._holders[owner]),
                    _addr_topic(ZERO_ADDRESS),
                    "0x" + _word(token_id),
                ),
                "0x",
            )
            return self._op(
                r, state, owner, contract, SEL_BURN + _word(token_id), 30_000, True, "0x", None, (log,)
            )
        to = self._random_holder(r)
        if u < 0.9:  # transfer by its owner
            state.nft_owner[token_id] = to
            log = (
                contract,
                (
                    TRANSFER_TOPIC,
                    _addr_topic(self._holders[owner]),
                    _addr_topic(self._holders[to]),
                    "0x" + _word(token_id),
                ),
                "0x",
            )
            data = (
                SEL_TRANSFER_FROM
                + _addr_word(self._holders[owner])
                + _addr_word(self._holders[to])
                + _word(token_id)
            )
            return self._op(r, state, owner, contract, data, 36_000, True, "0x", None, (log,))
        # failed: someone else tries to move it
        thief = self._random_holder(r)
        if thief == owner:
            thief = 1 + thief % (TOKEN_HOLDERS - 1)
        data = (
            SEL_TRANSFER_FROM
            + _addr_word(self._holders[owner])
            + _addr_word(self._holders[to])
            + _word(token_id)
        )
        revert = error_string("ERC721: caller is not token owner or approved")
        return self._op(r, state, thief, contract, data, 25_000, False, "0x", revert, ())

    def _hrc1155(self, r: random.Random, state: Ledger, spec: _Spec, contract: str, u: float) -> TokenOp:
        multi = state.multi
        if u < 0.25:  # mint (TransferSingle from zero, operator the minter)
            to = self._random_holder(r)
            token_id = 1 + int(r.random() * _MULTI_IDS)
            amount = 1 + int(r.random() * spec.mint_range)
            multi[token_id, to] = multi.get((token_id, to), 0) + amount
            state.multi_supply[token_id] = state.multi_supply.get(token_id, 0) + amount
            topics = (
                TRANSFER_SINGLE_TOPIC,
                _addr_topic(self._holders[0]),
                _addr_topic(ZERO_ADDRESS),
                _addr_topic(self._holders[to]),
            )
            log = (contract, topics, "0x" + _word(token_id) + _word(amount))
            data = (
                SEL_MINT_1155
                + _addr_word(self._holders[to])
                + _word(token_id)
                + _word(amount)
                + _word(128)
                + _word(0)
            )
            return self._op(r, state, 0, contract, data, 50_000, True, "0x", None, (log,))
        sender = self._random_holder(r)
        held = [(i, multi.get((i, sender), 0)) for i in range(1, _MULTI_IDS + 1)]
        held = [(i, b) for i, b in held if b > 0]
        to = self._random_holder(r)
        op_addr = self._holders[sender]
        if held and u < 0.6:  # single transfer
            token_id, balance = held[int(r.random() * len(held))]
            amount = 1 + big_below(r, balance)
            multi[token_id, sender] = balance - amount
            multi[token_id, to] = multi.get((token_id, to), 0) + amount
            topics = (
                TRANSFER_SINGLE_TOPIC,
                _addr_topic(op_addr),
                _addr_topic(op_addr),
                _addr_topic(self._holders[to]),
            )
            log = (contract, topics, "0x" + _word(token_id) + _word(amount))
            data = _safe_transfer(op_addr, self._holders[to], token_id, amount)
            return self._op(r, state, sender, contract, data, 34_000, True, "0x", None, (log,))
        if held and u < 0.85:  # batch transfer of every id it holds (1 .. 5 ids)
            ids = [i for i, _ in held]
            amounts = [1 + big_below(r, b) for _, b in held]
            for (token_id, balance), amount in zip(held, amounts, strict=True):
                multi[token_id, sender] = balance - amount
                multi[token_id, to] = multi.get((token_id, to), 0) + amount
            n = len(ids)
            arrays = _word(n) + "".join(_word(i) for i in ids) + _word(n) + "".join(_word(a) for a in amounts)
            topics = (
                TRANSFER_BATCH_TOPIC,
                _addr_topic(op_addr),
                _addr_topic(op_addr),
                _addr_topic(self._holders[to]),
            )
            log = (contract, topics, "0x" + _word(64) + _word(64 + 32 * (n + 1)) + arrays)
            head = (
                _addr_word(op_addr) + _addr_word(self._holders[to]) + _word(160) + _word(160 + 32 * (n + 1))
            )
            data = SEL_SAFE_BATCH + head + _word(160 + 64 * (n + 1)) + arrays + _word(0)
            return self._op(r, state, sender, contract, data, 40_000 + 9_000 * n, True, "0x", None, (log,))
        if held and u < 0.93:  # burn (TransferSingle to zero)
            token_id, balance = held[int(r.random() * len(held))]
            amount = 1 + big_below(r, balance)
            multi[token_id, sender] = balance - amount
            state.multi_supply[token_id] -= amount
            topics = (
                TRANSFER_SINGLE_TOPIC,
                _addr_topic(op_addr),
                _addr_topic(op_addr),
                _addr_topic(ZERO_ADDRESS),
            )
            log = (contract, topics, "0x" + _word(token_id) + _word(amount))
            data = SEL_BURN_1155 + _addr_word(op_addr) + _word(token_id) + _word(amount)
            return self._op(r, state, sender, contract, data, 30_000, True, "0x", None, (log,))
        # failed: more than it holds of some id
        token_id = 1 + int(r.random() * _MULTI_IDS)
        amount = multi.get((token_id, sender), 0) + 1 + int(r.random() * 100)
        data = _safe_transfer(op_addr, self._holders[to], token_id, amount)
        revert = error_string("ERC1155: insufficient balance for transfer")
        return self._op(r, state, sender, contract, data, 24_000, False, "0x", revert, ())

    # ------------------------------------------------------------------ calls
    def call(self, shard: int, address: str, data: str, number: int) -> tuple[str, str | None]:
        """What ``call`` answers for call data ``data`` (0x-hex) to ``address`` at block ``number``.

        Returns ``(result, revert)``: ``revert`` is the revert data (0x-hex, an ``Error(string)``)
        when the call reverts with a reason, else ``None`` and ``result`` is the return data
        (``"0x"`` for an account without code, a missing function or a bare revert, as the
        node answers them).
        """
        token = self._by_address.get(address)
        if token is None or token.shard_id != shard or len(data) < 10:
            return "0x", None
        sel = data[2:10]
        index = self._index[address]
        if sel in (SEL_NAME, SEL_SYMBOL):
            value, kind = (
                (token.name, token.name_kind) if sel == SEL_NAME else (token.symbol, token.symbol_kind)
            )
            if kind == "none":
                return "0x", None
            if kind == "revert":
                return "0x", error_string(value.decode())
            if kind == "bytes32":
                return "0x" + value.hex().ljust(64, "0"), None
            return "0x" + _abi_bytes(value), None
        if sel == SEL_DECIMALS:
            return ("0x", None) if token.decimals is None else ("0x" + _word(token.decimals), None)
        state = self.state_after(shard, number) if self.density > 0 else Ledger()
        if sel == SEL_TOTAL_SUPPLY:
            if token.standard == "hrc20":
                return "0x" + _word(state.supply[index]), None
            if token.standard == "hrc721":
                return "0x" + _word(len(state.nft_live)), None
            return "0x", None
        if sel == SEL_BALANCE_OF and len(data) >= 74 and token.standard != "hrc1155":
            holder = self._holder_index.get("0x" + data[34:74])
            if holder is None:
                return "0x" + _word(0), None
            if token.standard == "hrc20":
                return "0x" + _word(state.balances[index].get(holder, 0)), None
            return "0x" + _word(sum(1 for o in state.nft_owner.values() if o == holder)), None
        if sel == SEL_OWNER_OF and token.standard == "hrc721" and len(data) >= 74:
            owner = state.nft_owner.get(int(data[10:74], 16))
            if owner is None:
                return "0x", error_string("ERC721: invalid token ID")
            return "0x" + _addr_word(self._holders[owner]), None
        return "0x", None
