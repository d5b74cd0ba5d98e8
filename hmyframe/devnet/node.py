"""The devnet's JSON-RPC methods: param decoding and answers, as one Harmony node does them.

A :class:`ShardNode` is one shard's node. :meth:`ShardNode.call` takes a method name and its
decoded params and returns the JSON bytes of the ``result`` or raises :class:`RpcFault` with
the node's error code and message. The HTTP side (envelopes, batches, limits, faults,
statistics) is in :mod:`hmyframe.devnet.server`.

Param decoding follows the node (RPC notes §1.2, §1.5, §2, §3, §4): positional arguments
with ``missing value for required argument N`` / ``too many arguments, want at most N``
(-32602), Go ``encoding/json``-style messages for wrong types, the node's ``BlockNumber``
(hex string, JSON integer, decimal string, ``latest``/``earliest``/``pending``, -1), Go
``common.Hash``, case-insensitive ``BlockArgs`` keys, and so on.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from hmyframe.addresses import to_hex as parse_address
from hmyframe.addresses import to_one as _one
from hmyframe.devnet.model import (
    ZERO_HASH,
    Block,
    CxProof,
    StakingTransaction,
    Transaction,
    ValidatorSnapshot,
)
from hmyframe.devnet.render import (
    BlockCache,
    Gen,
    Profile,
    block_obj,
    cx_proof_obj,
    encode,
    hexq,
    legacy_validator_obj,
    sharding_structure_obj,
    staking_transaction_obj,
    trace_objs,
    transaction_obj,
    validator_obj,
    wrap_legacy_validators,
)
from hmyframe.errors import AddressError, ConfigError

__all__ = [
    "CHAIN_ID",
    "GET_BLOCKS_LIMIT",
    "VALIDATOR_PAGE_SIZE",
    "ChainAPI",
    "RateLimit",
    "RpcFault",
    "ShardNode",
    "TokenBucket",
    "register_method",
    "served_methods",
]

#: Harmony chain id the devnet reports (``hmy_chainId``, ``net_version``): 2, as localnet.
CHAIN_ID = 2
#: ``getBlocks``: ``end - start`` may be at most this (so 1025 blocks per call).
GET_BLOCKS_LIMIT = 1024
#: Validators per page of ``getAllValidatorInformation*``.
VALIDATOR_PAGE_SIZE = 100

ERR_TOO_HIGH = "requested block number greater than current block number"
ERR_NOT_BEACON = "cannot call this rpc on non beaconchain node"
ERR_PENDING = "pending block number not implemented"
ERR_CRASHED = "method handler crashed"


class RpcFault(Exception):  # internal: never leaves the server
    """A JSON-RPC error answer: the node's ``code`` and ``message``."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class ChainAPI(Protocol):
    """What the node needs from :class:`hmyframe.devnet.chain.Chain`."""

    n_shards: int

    def head(self, shard: int) -> int: ...
    def block(self, shard: int, number: int) -> Block: ...
    def block_by_hash(self, block_hash: str) -> Block | None: ...
    def epoch_of(self, number: int) -> int: ...
    def epoch_first_block(self, epoch: int) -> int: ...
    def signers(self, shard: int, number: int) -> tuple[str, ...] | None: ...
    def find_transaction(self, tx_hash: str) -> Transaction | None: ...
    def find_transaction_by_eth_hash(self, eth_hash: str) -> Transaction | None: ...
    def find_staking_transaction(self, tx_hash: str) -> StakingTransaction | None: ...
    def transaction_count(self, shard: int, address: str, block: int) -> int: ...
    def validator_addresses(self) -> list[str]: ...
    def validator(self, address: str, block: int) -> ValidatorSnapshot | None: ...
    def validators(self, block: int) -> list[ValidatorSnapshot]: ...
    def pending_cx_receipts(self, shard: int) -> list[CxProof]: ...


# --------------------------------------------------------------------------------------------
# rate limiting (golang.org/x/time/rate semantics)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RateLimit:
    """A token bucket: ``rate`` tokens per second, ``burst`` at most, ``deadline`` max wait.

    A request that would have to wait longer than ``deadline`` seconds fails at once with
    -32000 ``rate: Wait(n=1) would exceed context deadline`` (Go ``rate.Limiter.Wait`` under
    a context with that deadline); otherwise it waits its turn.
    """

    rate: float
    burst: int
    deadline: float = 5.0

    def __post_init__(self) -> None:
        rate: object = self.rate
        if isinstance(rate, bool) or not isinstance(rate, int | float) or not rate > 0:
            raise ConfigError(f"rate limit rate={rate!r} must be a number of requests per second > 0")
        burst: object = self.burst
        if isinstance(burst, bool) or not isinstance(burst, int) or burst < 1:
            raise ConfigError(f"rate limit burst={burst!r} must be an integer >= 1")
        deadline: object = self.deadline
        if isinstance(deadline, bool) or not isinstance(deadline, int | float) or deadline < 0:
            raise ConfigError(f"rate limit deadline={deadline!r} must be a number of seconds >= 0")


#: The node's limiter on ``getAllValidatorInformation*``: 1 req/s, burst 3, 5 s deadline.
VALIDATOR_RATE_LIMIT = RateLimit(1.0, 3, 5.0)


class TokenBucket:
    """Async token bucket with Go ``rate.Limiter`` reservation semantics.

    Parameters
    ----------
    limit
        Rate, burst and deadline.
    clock
        Monotonic clock (seconds).
    """

    def __init__(self, limit: RateLimit, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self._clock = clock
        self._tokens = float(limit.burst)
        self._last = clock()

    def reserve(self) -> float | None:
        """Take a token now or in the future; return the wait in seconds, or ``None`` if the
        wait would exceed the deadline (then nothing is taken)."""
        now = self._clock()
        elapsed = max(0.0, now - self._last)
        tokens = min(float(self.limit.burst), self._tokens + elapsed * self.limit.rate)
        tokens -= 1.0
        wait = 0.0 if tokens >= 0 else -tokens / self.limit.rate
        if wait > self.limit.deadline:
            return None
        self._tokens = tokens
        self._last = now
        return wait

    async def wait(self) -> None:
        """Wait for a token; raise :class:`RpcFault` (-32000) if it would exceed the deadline."""
        wait = self.reserve()
        if wait is None:
            raise RpcFault(-32000, "rate: Wait(n=1) would exceed context deadline")
        if wait > 0:
            await asyncio.sleep(wait)


# --------------------------------------------------------------------------------------------
# param decoding
# --------------------------------------------------------------------------------------------

_MISSING: Any = object()
_LATEST = -1
_PENDING = -2
#: What :func:`block_number_param` returns for ``latest`` and ``pending``.
LATEST = _LATEST
PENDING = _PENDING
_INT64_MAX = 2**63 - 1


def _go_type(value: object) -> str:
    """The JSON kind Go names in ``json: cannot unmarshal <kind> into ...``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _invalid(index: int, message: str) -> RpcFault:
    return RpcFault(-32602, f"invalid argument {index}: {message}")


def arity(params: list[Any], required: int, maximum: int) -> list[Any]:
    """Check the number of positional arguments; pad optional ones with a sentinel."""
    if len(params) > maximum:
        raise RpcFault(-32602, f"too many arguments, want at most {maximum}")
    if len(params) < required:
        raise RpcFault(-32602, f"missing value for required argument {len(params)}")
    return params + [_MISSING] * (maximum - len(params))


def _decode_hex_uint64(text: str) -> int:
    """``hexutil.DecodeUint64``; raises ValueError with the Go message."""
    if text == "":
        raise ValueError("empty hex string")
    if not text.startswith(("0x", "0X")):
        raise ValueError("hex string without 0x prefix")
    digits = text[2:]
    if digits == "":
        raise ValueError('hex string "0x"')
    if len(digits) > 1 and digits[0] == "0":
        raise ValueError("hex number with leading zero digits")
    if any(c not in "0123456789abcdefABCDEF" for c in digits):
        raise ValueError("invalid hex string")
    if len(digits) > 16:
        raise ValueError("hex number > 64 bits")
    return int(digits, 16)


def block_number_param(value: Any, index: int) -> int:
    """Harmony's ``BlockNumber``: hex string, JSON integer, decimal string, latest/earliest/
    pending, -1. Returns the number, ``-1`` for latest or ``-2`` for pending."""
    if isinstance(value, bool) or value is None or isinstance(value, list | dict):
        raise _invalid(index, "hex string without 0x prefix")
    if isinstance(value, float):
        if not value.is_integer():
            raise _invalid(index, "hex string without 0x prefix")
        value = int(value)
    if isinstance(value, int):
        number = value
    else:
        text = str(value).strip()
        if text == "earliest":
            return 0
        if text == "latest":
            return _LATEST
        if text == "pending":
            return _PENDING
        try:
            number = (
                int(text, 10) if text.lstrip("-").isdigit() and text.isascii() else _decode_hex_uint64(text)
            )
        except ValueError as exc:
            raise _invalid(index, str(exc)) from None
    if number == -1:
        return _LATEST
    if number == -2:
        return _PENDING
    if number < 0:
        raise _invalid(index, "hex string without 0x prefix")
    if number > _INT64_MAX:
        raise _invalid(index, "block number larger than int64")
    return number


def eth_block_number_param(value: Any, index: int) -> int:
    """go-ethereum's ``rpc.BlockNumber`` (trace methods): strings only, hex numbers."""
    if not isinstance(value, str):
        raise _invalid(index, "hex string without 0x prefix")
    text = value.strip()
    if text == "earliest":
        return 0
    if text in ("latest", "finalized", "safe"):
        return _LATEST
    if text == "pending":
        return _PENDING
    try:
        number = _decode_hex_uint64(text)
    except ValueError as exc:
        raise _invalid(index, str(exc)) from None
    if number > _INT64_MAX:
        raise _invalid(index, "block number larger than int64")
    return number


def hash_param(value: Any, index: int) -> str:
    """Go ``common.Hash``: a 0x-prefixed 64-hex-digit string; returns it lower-case."""
    if not isinstance(value, str):
        raise _invalid(index, "json: cannot unmarshal non-string into Go value of type common.Hash")
    if not value.startswith(("0x", "0X")):
        raise _invalid(
            index, "json: cannot unmarshal hex string without 0x prefix into Go value of type common.Hash"
        )
    digits = value[2:]
    if len(digits) % 2:
        raise _invalid(
            index, "json: cannot unmarshal hex string of odd length into Go value of type common.Hash"
        )
    if any(c not in "0123456789abcdefABCDEF" for c in digits):
        raise _invalid(index, "json: cannot unmarshal invalid hex string into Go value of type common.Hash")
    if len(digits) != 64:
        raise _invalid(index, f"hex string has length {len(digits)}, want 64 for common.Hash")
    return "0x" + digits.lower()


def int_param(value: Any, index: int, go_type: str = "int") -> int:
    """A Go integer param (``int``/``uint64``) given as a JSON number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _invalid(index, f"json: cannot unmarshal {_go_type(value)} into Go value of type {go_type}")
    if isinstance(value, float) and not value.is_integer():
        raise _invalid(index, f"json: cannot unmarshal number {value!r} into Go value of type {go_type}")
    number = int(value)
    if go_type.startswith("uint") and number < 0:
        raise _invalid(index, f"json: cannot unmarshal number {number} into Go value of type {go_type}")
    return number


def index_param(value: Any, index: int, gen: Gen) -> int:
    """A transaction index: v1 ``hexutil.Uint`` (hex string), v2 ``int`` (JSON number)."""
    if gen == 2:
        return int_param(value, index, "int")
    if not isinstance(value, str):
        raise _invalid(index, "json: cannot unmarshal non-string into Go value of type hexutil.Uint")
    try:
        return _decode_hex_uint64(value)
    except ValueError as exc:
        raise _invalid(index, f"json: cannot unmarshal {exc} into Go value of type hexutil.Uint") from None


def address_param(value: Any) -> str:
    """An address string (one1 or 0x) as the node's ``ParseAddr`` takes it; lower-case 0x."""
    if not isinstance(value, str):
        raise RpcFault(
            -32602,
            f"invalid argument 0: json: cannot unmarshal {_go_type(value)} into Go value of type string",
        )
    try:
        return parse_address(value)
    except AddressError:
        raise RpcFault(-32000, f"invalid address: {value}") from None


class BlockArgsError(Exception):
    """A ``BlockArgs`` value Go's ``encoding/json`` would refuse (message as Go's)."""


@dataclass(frozen=True, slots=True)
class BlockArgs:
    """Decoded ``BlockArgs``."""

    full_tx: bool = False
    incl_staking: bool = False
    with_signers: bool = False


_BLOCK_ARG_FIELDS = {
    "fulltx": "fullTx",
    "inclstaking": "inclStaking",
    "withsigners": "withSigners",
    "signers": "signers",
}


def block_args_object(value: Any, *, default_incl_staking: bool) -> BlockArgs:
    """Decode a ``BlockArgs`` JSON object as Go does (case-insensitive keys, unknown keys
    ignored, missing keys default). Raises BlockArgsError with Go's message on a wrong type."""
    if value is None:
        return BlockArgs(incl_staking=default_incl_staking)
    if not isinstance(value, dict):
        raise BlockArgsError(
            f"json: cannot unmarshal {_go_type(value)} into Go value of type common.BlockArgs"
        )
    found: dict[str, bool] = {}
    for key, item in value.items():
        field = _BLOCK_ARG_FIELDS.get(str(key).lower())
        if field is None or item is None:
            continue
        if field == "signers":
            if not isinstance(item, list) or not all(isinstance(s, str) for s in item):
                kind = _go_type(item) if not isinstance(item, list) else "number"
                raise BlockArgsError(
                    f"json: cannot unmarshal {kind} into Go struct field BlockArgs.signers of type []string"
                )
            continue
        if not isinstance(item, bool):
            raise BlockArgsError(
                f"json: cannot unmarshal {_go_type(item)} into Go struct field BlockArgs.{field} of type bool"
            )
        found[field] = item
    return BlockArgs(
        full_tx=found.get("fullTx", False),
        incl_staking=found.get("inclStaking", default_incl_staking),
        with_signers=found.get("withSigners", False),
    )


# --------------------------------------------------------------------------------------------
# the node
# --------------------------------------------------------------------------------------------

Handler = Callable[["ShardNode", Gen, list[Any]], "bytes | Awaitable[bytes]"]


@dataclass(frozen=True, slots=True)
class _Method:
    handler: Handler
    gen: Gen
    beacon_only: bool = False
    trace_only: bool = False
    validator_limited: bool = False
    current_only: bool = False  # absent from the early-2020 node (the legacy profile)


_NULL = b"null"
_EMPTY_LIST = b"[]"


class ShardNode:
    """One shard's node: answers JSON-RPC calls from the chain.

    Parameters
    ----------
    chain
        The chain (shared by all shards).
    shard
        Which shard this node serves.
    profile
        ``"current"`` or ``"legacy"``.
    cache
        Rendered-bytes cache (may be shared between shards: keys include the shard).
    validator_limiter
        The node's limiter on ``getAllValidatorInformation*`` (``None``: off).
    rpc_limiter
        The node's global per-call limiter (``None``: off, the default).
    http_urls, ws_urls
        Every shard's URLs, for ``getShardingStructure``.
    block_cost
        Seconds of server time per block read (a model of the node's database reads; 0: none).
        Concurrent requests pay it concurrently, as on a multi-core node; the blocks of one
        request are read one after the other.
    """

    def __init__(
        self,
        chain: ChainAPI,
        shard: int,
        *,
        profile: Profile,
        cache: BlockCache,
        validator_limiter: TokenBucket | None,
        rpc_limiter: TokenBucket | None,
        http_urls: Sequence[str] = (),
        ws_urls: Sequence[str] = (),
        block_cost: float = 0.0,
    ) -> None:
        self.chain = chain
        self.block_cost = block_cost
        self.shard = shard
        self.profile: Profile = profile
        self.cache = cache
        self.validator_limiter = validator_limiter
        self.rpc_limiter = rpc_limiter
        self.http_urls = list(http_urls)
        self.ws_urls = list(ws_urls)
        self._parity_index: dict[str, int] = {}
        self._parity_len = -1

    # -- dispatch -------------------------------------------------------------------------------

    def lookup(self, method: str, *, trace_port: bool) -> _Method:
        """The method entry, or RpcFault -32601 if unknown or not on this port."""
        entry = _METHODS.get(method)
        if entry is not None and entry.current_only and self.profile != "current":
            entry = None
        if entry is None or (entry.trace_only and not trace_port):
            raise RpcFault(-32601, f"the method {method} does not exist/is not available")
        return entry

    async def call(self, method: str, params: Any, *, trace_port: bool) -> bytes:
        """Answer one call: the ``result`` JSON bytes, or raise :class:`RpcFault`.

        Parameters
        ----------
        method
            The JSON-RPC method.
        params
            The decoded ``params`` (``None`` when absent).
        trace_port
            Whether the call arrived on the trace ("auth") port.
        """
        entry = self.lookup(method, trace_port=trace_port)
        if params is None:
            params = []
        elif not isinstance(params, list):
            raise RpcFault(-32602, "non-array args")
        if self.rpc_limiter is not None:
            await self.rpc_limiter.wait()
        if entry.beacon_only and self.shard != 0:
            raise RpcFault(-32000, ERR_NOT_BEACON)
        result = entry.handler(self, entry.gen, params)
        if isinstance(result, bytes):
            return result
        return await result

    # -- helpers --------------------------------------------------------------------------------

    @property
    def head(self) -> int:
        """The shard's current block number."""
        return self.chain.head(self.shard)

    def resolve(self, number: int) -> int:
        """A decoded BlockNumber -> an existing block number, or the node's -32000 error."""
        if number == _PENDING:
            raise RpcFault(-32000, ERR_PENDING)
        head = self.head
        if number == _LATEST:
            return head
        if number > head:
            raise RpcFault(-32000, ERR_TOO_HIGH)
        return number

    def block_bytes(self, number: int, gen: Gen, args: BlockArgs) -> bytes:
        """The rendered block ``number`` (must be <= head), from the cache when possible."""
        signers: tuple[str, ...] | None = None
        if args.with_signers:
            signers = self.chain.signers(self.shard, number)
            if signers is None:
                raise RpcFault(-32000, f"GetSigners: getSignerData: block number {number + 1} not found")
        key = (
            "block",
            self.shard,
            number,
            gen,
            self.profile,
            args.full_tx,
            args.incl_staking,
            args.with_signers,
        )
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        block = self.chain.block(self.shard, number)
        data = encode(
            block_obj(
                block,
                gen=gen,
                profile=self.profile,
                full_tx=args.full_tx,
                incl_staking=args.incl_staking,
                signers=signers,
            )
        )
        self.cache.put(key, data)
        return data

    def own_transaction(self, tx_hash: str) -> Transaction | None:
        """The plain transaction with this Harmony hash if it is on this shard."""
        tx = self.chain.find_transaction(tx_hash)
        return tx if tx is not None and tx.shard_id == self.shard else None

    def own_transaction_by_eth_hash(self, eth_hash: str) -> Transaction | None:
        """The plain transaction with this Ethereum-form hash if it is on this shard."""
        tx = self.chain.find_transaction_by_eth_hash(eth_hash)
        return tx if tx is not None and tx.shard_id == self.shard else None

    async def read_cost(self, blocks: int = 1) -> None:
        """Spend the server time of reading ``blocks`` blocks (see ``block_cost``)."""
        if self.block_cost > 0:
            await asyncio.sleep(self.block_cost * blocks)

    def own_block_by_hash(self, block_hash: str) -> Block | None:
        """The block with this hash if it is on this shard and not beyond head."""
        block = self.chain.block_by_hash(block_hash)
        if block is None or block.shard_id != self.shard or block.number > self.head:
            return None
        return block

    def legacy_spelling(self, address: str) -> bool:
        """Whether this validator's legacy ``availability`` uses ``num-of-blocks-to-sign``.

        Alternates with the creation order (odd positions use the older spelling), so every
        page with two or more validators shows both spellings.
        """
        addresses = self.chain.validator_addresses()
        if len(addresses) != self._parity_len:
            self._parity_index = {a.lower(): i for i, a in enumerate(addresses)}
            self._parity_len = len(addresses)
        return self._parity_index.get(address.lower(), 0) % 2 == 1

    def validator_json(self, snapshot: ValidatorSnapshot) -> dict[str, Any]:
        """A snapshot in this node's profile (legacy objects unwrapped)."""
        if self.profile == "legacy":
            return legacy_validator_obj(snapshot, old_availability_key=self.legacy_spelling(snapshot.address))
        return validator_obj(snapshot)


# --------------------------------------------------------------------------------------------
# methods
# --------------------------------------------------------------------------------------------


def _block_number(node: ShardNode, gen: Gen, params: list[Any]) -> bytes:
    arity(params, 0, 0)
    head = node.head
    return encode(hexq(head) if gen == 1 else head)


def _opts(node: ShardNode, gen: Gen, value: Any) -> BlockArgs:
    """``getBlockByNumber``/``getBlockByHash`` param 1 (``getBlockOptions``)."""
    if gen == 1:
        if not isinstance(value, bool):
            raise RpcFault(-32000, "invalid type for block arguments")
        return BlockArgs(full_tx=value, incl_staking=True, with_signers=False)
    try:
        return block_args_object(value, default_incl_staking=node.profile == "legacy")
    except BlockArgsError as exc:
        raise RpcFault(-32000, str(exc)) from None


async def _get_block_by_number(node: ShardNode, gen: Gen, params: list[Any]) -> bytes:
    raw_number, raw_opts = arity(params, 2, 2)
    number = block_number_param(raw_number, 0)
    args = _opts(node, gen, raw_opts)
    number = node.resolve(number)
    await node.read_cost()
    return node.block_bytes(number, gen, args)


async def _get_block_by_hash(node: ShardNode, gen: Gen, params: list[Any]) -> bytes:
    raw_hash, raw_opts = arity(params, 2, 2)
    block_hash = hash_param(raw_hash, 0)
    args = _opts(node, gen, raw_opts)
    block = node.own_block_by_hash(block_hash)
    if block is None:
        return _NULL
    await node.read_cost()
    return node.block_bytes(block.number, gen, args)


async def _get_blocks(node: ShardNode, gen: Gen, params: list[Any]) -> bytes:
    raw_start, raw_end, raw_args = arity(params, 2, 3)
    start = block_number_param(raw_start, 0)
    end = block_number_param(raw_end, 1)
    args: BlockArgs | None = None
    if raw_args is not _MISSING and raw_args is not None:
        try:
            args = block_args_object(raw_args, default_incl_staking=node.profile == "legacy")
        except BlockArgsError as exc:
            raise _invalid(2, str(exc)) from None
    head = node.head
    if start == _PENDING or end == _PENDING:
        raise RpcFault(-32000, ERR_PENDING)
    start = head if start == _LATEST else start
    end = head if end == _LATEST else end
    if end - start > GET_BLOCKS_LIMIT:
        raise RpcFault(-32000, f"GetBlocks query must be smaller than size {GET_BLOCKS_LIMIT}")
    end = min(end, head)
    if start > end:
        return _EMPTY_LIST
    if args is None:
        # the node dereferences the nil *BlockArgs; the panic is recovered as this error
        raise RpcFault(-32000, ERR_CRASHED)
    parts = []
    for number in range(start, end + 1):
        if node.rpc_limiter is not None and number > start:
            await node.rpc_limiter.wait()
        await node.read_cost()
        parts.append(node.block_bytes(number, gen, args))
    return b"[" + b",".join(parts) + b"]"


def _get_transaction_by_hash(node: ShardNode, gen: Gen, params: list[Any]) -> bytes:
    (raw_hash,) = arity(params, 1, 1)
    tx_hash = hash_param(raw_hash, 0)
    tx = node.own_transaction(tx_hash)
    if tx is None:
        return _NULL
    return encode(transaction_obj(tx, gen=gen, profile=node.profile, sort_keys=node.profile == "current"))


def _get_staking_transaction_by_hash(node: ShardNode, gen: Gen, params: list[Any]) -> bytes:
    (raw_hash,) = arity(params, 1, 1)
    tx_hash = hash_param(raw_hash, 0)
    stx = node.chain.find_staking_transaction(tx_hash) if node.shard == 0 else None
    if stx is None:
        return _NULL
    return encode(
        staking_transaction_obj(stx, gen=gen, profile=node.profile, sort_keys=node.profile == "current")
    )


def _block_for_index(node: ShardNode, raw_block: Any, by_hash: bool) -> Block | None:
    if by_hash:
        return node.own_block_by_hash(hash_param(raw_block, 0))
    number = block_number_param(raw_block, 0)
    if number == _PENDING:
        raise RpcFault(-32000, ERR_PENDING)
    head = node.head
    number = head if number == _LATEST else number
    return node.chain.block(node.shard, number) if number <= head else None


def _tx_by_block_and_index(by_hash: bool) -> Handler:
    def handler(node: ShardNode, gen: Gen, params: list[Any]) -> bytes:
        raw_block, raw_index = arity(params, 2, 2)
        index = index_param(raw_index, 1, gen)
        block = _block_for_index(node, raw_block, by_hash)
        if block is None or index >= len(block.transactions):
            return _NULL
        tx = block.transactions[index]
        return encode(transaction_obj(tx, gen=gen, profile=node.profile, sort_keys=node.profile == "current"))

    return handler


def _staking_tx_by_block_and_index(by_hash: bool) -> Handler:
    def handler(node: ShardNode, gen: Gen, params: list[Any]) -> bytes:
        raw_block, raw_index = arity(params, 2, 2)
        index = index_param(raw_index, 1, gen)
        block = _block_for_index(node, raw_block, by_hash)
        if block is None or index >= len(block.staking_transactions):
            return _NULL
        stx = block.staking_transactions[index]
        return encode(
            staking_transaction_obj(stx, gen=gen, profile=node.profile, sort_keys=node.profile == "current")
        )

    return handler


def _tx_count_in_block(by_hash: bool) -> Handler:
    def handler(node: ShardNode, gen: Gen, params: list[Any]) -> bytes:
        (raw_block,) = arity(params, 1, 1)
        block = _block_for_index(node, raw_block, by_hash)
        if block is None:
            return _NULL
        count = len(block.transactions)
        return encode(hexq(count) if gen == 1 else count)

    return handler


def _block_number_or_hash(node: ShardNode, value: Any) -> int:
    """``rpc.BlockNumberOrHash`` of getTransactionCount -> an existing block number."""
    if isinstance(value, dict):
        if "blockHash" in value and "blockNumber" in value:
            raise _invalid(1, "cannot specify both BlockHash and BlockNumber, choose one or the other")
        if "blockHash" in value:
            value = value["blockHash"]
        elif "blockNumber" in value:
            value = value["blockNumber"]
        else:
            raise _invalid(1, "invalid input")
    if isinstance(value, str) and len(value) == 66 and value[:2] in ("0x", "0X"):
        block = node.own_block_by_hash(hash_param(value, 1))
        if block is None:
            raise RpcFault(-32000, "header for hash not found")
        return block.number
    number = block_number_param(value, 1)
    head = node.head
    if number in (_LATEST, _PENDING):
        return head
    if number > head:
        raise RpcFault(-32000, "state not found")
    return number


def _get_transaction_count(node: ShardNode, gen: Gen, params: list[Any]) -> bytes:
    raw_address, raw_block = arity(params, 2, 2)
    if not isinstance(raw_address, str):
        raise _invalid(0, f"json: cannot unmarshal {_go_type(raw_address)} into Go value of type string")
    number = _block_number_or_hash(node, raw_block)
    address = address_param(raw_address)
    count = node.chain.transaction_count(node.shard, address, number)
    return encode(hexq(count) if gen == 1 else count)


def _get_block_signers(node: ShardNode, gen: Gen, params: list[Any]) -> bytes:
    (raw_number,) = arity(params, 1, 1)
    number = node.resolve(block_number_param(raw_number, 0))
    signers = node.chain.signers(node.shard, number)
    if signers is None:
        raise RpcFault(-32000, f"GetSigners: getSignerData: block number {number + 1} not found")
    return encode([_one(a) for a in signers])


def _get_epoch(node: ShardNode, gen: Gen, params: list[Any]) -> bytes:
    arity(params, 0, 0)
    epoch = node.chain.epoch_of(node.head)
    return encode(hexq(epoch) if gen == 1 else epoch)


def _epoch_last_block(node: ShardNode, gen: Gen, params: list[Any]) -> bytes:
    # the node's handler takes a uint64 epoch (a JSON number, in v1 too) and answers the
    # schedule's last block as a JSON number in both generations, whether or not the epoch
    # has been reached (beacon shard only)
    (raw_epoch,) = arity(params, 1, 1)
    epoch = int_param(raw_epoch, 0, "uint64")
    if epoch >= 2**64:
        raise _invalid(0, f"json: cannot unmarshal number {epoch} into Go value of type uint64")
    return encode((node.chain.epoch_first_block(epoch + 1) - 1) % 2**64)


def _chain_id(node: ShardNode, gen: Gen, params: list[Any]) -> bytes:
    arity(params, 0, 0)
    return encode(hexq(CHAIN_ID) if gen == 1 else CHAIN_ID)


def _net_version(node: ShardNode, gen: Gen, params: list[Any]) -> bytes:
    arity(params, 0, 0)
    return encode(str(CHAIN_ID))


def _get_sharding_structure(node: ShardNode, gen: Gen, params: list[Any]) -> bytes:
    arity(params, 0, 0)
    return encode(sharding_structure_obj(node.http_urls, node.ws_urls, node.shard))


def _get_pending_cx_receipts(node: ShardNode, gen: Gen, params: list[Any]) -> bytes:
    arity(params, 0, 0)
    return encode([cx_proof_obj(p) for p in node.chain.pending_cx_receipts(node.shard)])


def _get_cx_receipt_by_hash(node: ShardNode, gen: Gen, params: list[Any]) -> bytes:
    (raw_hash,) = arity(params, 1, 1)
    tx = node.own_transaction(hash_param(raw_hash, 0))
    if tx is None or not tx.is_cross_shard or tx.to is None:
        return _NULL
    num = hexq if gen == 1 else (lambda v: v)
    return encode(
        {
            "blockHash": tx.block_hash,
            "blockNumber": num(tx.block_number),
            "hash": tx.hash,
            "from": _one(tx.sender),
            "to": _one(tx.to),
            "shardID": tx.shard_id,
            "toShardID": tx.to_shard_id,
            "value": num(tx.value),
        }
    )


def _get_all_validator_addresses(node: ShardNode, gen: Gen, params: list[Any]) -> bytes:
    arity(params, 0, 0)
    return encode([_one(a) for a in node.chain.validator_addresses()])


def _get_elected_validator_addresses(node: ShardNode, gen: Gen, params: list[Any]) -> bytes:
    arity(params, 0, 0)
    head = node.head
    return encode([_one(v.address) for v in node.chain.validators(head) if v.currently_in_committee])


def _page_slice(node: ShardNode, page: int, count: int) -> tuple[int, int]:
    """Start/stop indices of a validator page in this node's profile.

    Every node version numbers pages from 0; the early-2020 node also answered page ``-1`` with
    every validator and refused ``page < -1``, today's node refuses ``page < 0``.
    """
    if node.profile == "legacy":
        if page == -1:
            return 0, count
        if page < -1:
            raise RpcFault(-32000, f"page given {page} cannot be less than -1")
    elif page < 0:
        raise RpcFault(-32000, f"page given {page} cannot be less than 0")
    start = page * VALIDATOR_PAGE_SIZE
    return start, min(count, start + VALIDATOR_PAGE_SIZE)


def _validator_page(node: ShardNode, page: int, number: int) -> bytes:
    addresses = node.chain.validator_addresses()
    start, stop = _page_slice(node, page, len(addresses))
    key = ("validators", node.shard, number, node.profile, start, stop, len(addresses))
    cached = node.cache.get(key)
    if cached is not None:
        return cached
    objs = []
    for address in addresses[start:stop]:
        snapshot = node.chain.validator(address, number)
        if snapshot is not None:
            objs.append(node.validator_json(snapshot))
    data = encode(wrap_legacy_validators(objs) if node.profile == "legacy" else objs)
    node.cache.put(key, data)
    return data


def _page_param(node: ShardNode, value: Any) -> int:
    if value is _MISSING:
        return 0  # the legacy profile's missing page (the spec: "page 1 when defaulted"): the first page
    return int_param(value, 0, "int")


async def _limited(node: ShardNode) -> None:
    if node.validator_limiter is not None:
        await node.validator_limiter.wait()


async def _get_all_validator_information(node: ShardNode, gen: Gen, params: list[Any]) -> bytes:
    (raw_page,) = arity(params, 0 if node.profile == "legacy" else 1, 1)
    page = _page_param(node, raw_page)
    await _limited(node)
    return _validator_page(node, page, node.head)


async def _get_all_validator_information_by_block_number(
    node: ShardNode, gen: Gen, params: list[Any]
) -> bytes:
    raw_page, raw_number = arity(params, 0 if node.profile == "legacy" else 2, 2)
    page = _page_param(node, raw_page)
    number = _LATEST if raw_number is _MISSING else block_number_param(raw_number, 1)
    number = node.resolve(number)
    await _limited(node)
    return _validator_page(node, page, number)


def _validator_information(node: ShardNode, raw_address: Any, number: int) -> bytes:
    address = address_param(raw_address)
    snapshot = node.chain.validator(address, number)
    if snapshot is None:
        raise RpcFault(-32000, "address not present in state")
    return encode(node.validator_json(snapshot))


def _get_validator_information(node: ShardNode, gen: Gen, params: list[Any]) -> bytes:
    (raw_address,) = arity(params, 1, 1)
    return _validator_information(node, raw_address, node.head)


def _get_validator_information_by_block_number(node: ShardNode, gen: Gen, params: list[Any]) -> bytes:
    raw_address, raw_number = arity(params, 2, 2)
    number = node.resolve(block_number_param(raw_number, 1))
    return _validator_information(node, raw_address, number)


async def _trace_block(node: ShardNode, gen: Gen, params: list[Any]) -> bytes:
    (raw_number,) = arity(params, 1, 1)
    number = eth_block_number_param(raw_number, 0)
    if number < 0 or number > node.head:
        return _NULL
    await node.read_cost()
    key = ("trace_block", node.shard, number, node.profile)
    cached = node.cache.get(key)
    if cached is not None:
        return cached
    block = node.chain.block(node.shard, number)
    legacy = node.profile == "legacy"
    entries: list[dict[str, Any]] = []
    for tx in block.transactions:
        entries.extend(trace_objs(tx, transaction_hash=tx.hash if legacy else tx.eth_hash))
    data = encode(entries)
    node.cache.put(key, data)
    return data


def _trace_transaction(node: ShardNode, gen: Gen, params: list[Any]) -> bytes:
    (raw_hash,) = arity(params, 1, 1)
    tx_hash = hash_param(raw_hash, 0)
    tx = node.own_transaction(tx_hash)
    if tx is None or tx.block_number > node.head:
        raise RpcFault(-32000, f"transaction {tx_hash} not found")
    return encode(trace_objs(tx, transaction_hash=tx.hash if node.profile == "legacy" else ZERO_HASH))


# --------------------------------------------------------------------------------------------
# method table
# --------------------------------------------------------------------------------------------

_METHODS: dict[str, _Method] = {}


def _register(name: str, handler: Handler, *, both: bool = True, **flags: bool) -> None:
    if both:
        _METHODS[f"hmy_{name}"] = _Method(handler, 1, **flags)
        _METHODS[f"hmyv2_{name}"] = _Method(handler, 2, **flags)
    else:
        _METHODS[name] = _Method(handler, 1, **flags)


_register("blockNumber", _block_number)
_register("getBlockByNumber", _get_block_by_number)
_register("getBlockByHash", _get_block_by_hash)
_register("getBlocks", _get_blocks)
_register("getTransactionByHash", _get_transaction_by_hash)
_register("getStakingTransactionByHash", _get_staking_transaction_by_hash)
_register("getTransactionByBlockNumberAndIndex", _tx_by_block_and_index(False))
_register("getTransactionByBlockHashAndIndex", _tx_by_block_and_index(True))
_register("getStakingTransactionByBlockNumberAndIndex", _staking_tx_by_block_and_index(False))
_register("getStakingTransactionByBlockHashAndIndex", _staking_tx_by_block_and_index(True))
_register("getBlockTransactionCountByNumber", _tx_count_in_block(False))
_register("getBlockTransactionCountByHash", _tx_count_in_block(True))
_register("getTransactionCount", _get_transaction_count)
_register("getBlockSigners", _get_block_signers)
_register("getEpoch", _get_epoch)
_register("epochLastBlock", _epoch_last_block, beacon_only=True)
_register("chainId", _chain_id)
_register("getShardingStructure", _get_sharding_structure)
_register("getPendingCXReceipts", _get_pending_cx_receipts)
_register("getCXReceiptByHash", _get_cx_receipt_by_hash)
_register("getAllValidatorAddresses", _get_all_validator_addresses, beacon_only=True)
_register("getElectedValidatorAddresses", _get_elected_validator_addresses, beacon_only=True)
_register(
    "getAllValidatorInformation", _get_all_validator_information, beacon_only=True, validator_limited=True
)
_register(
    "getAllValidatorInformationByBlockNumber",
    _get_all_validator_information_by_block_number,
    beacon_only=True,
    validator_limited=True,
)
_register("getValidatorInformation", _get_validator_information, beacon_only=True)
_register(
    "getValidatorInformationByBlockNumber", _get_validator_information_by_block_number, beacon_only=True
)
_register("net_version", _net_version, both=False)
_register("trace_block", _trace_block, both=False, trace_only=True)
_register("trace_transaction", _trace_transaction, both=False, trace_only=True)


def register_method(name: str, handler: Handler, *, current_only: bool = False) -> None:
    """Add a method served under exactly ``name`` (the Ethereum namespace uses this)."""
    _register(name, handler, both=False, current_only=current_only)


def served_methods(*, trace_port: bool = True) -> list[str]:
    """Names of every method the devnet answers (on the trace port, or the normal port)."""
    return sorted(name for name, m in _METHODS.items() if trace_port or not m.trace_only)
