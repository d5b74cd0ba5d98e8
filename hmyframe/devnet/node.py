"""One shard's node: :class:`ShardNode` dispatches a JSON-RPC call to its method and answers
from the chain.

:meth:`ShardNode.call` takes a method name and its decoded params and returns the JSON bytes
of the ``result`` or raises :class:`RpcFault` with the node's error code and message. The
jobs around it live beside it:

* :mod:`hmyframe.devnet.params`: param decoding and the node's error texts;
* :mod:`hmyframe.devnet.limits`: the rate limiters (global per call, validator pages);
* :mod:`hmyframe.devnet.methods`: the methods, one module per area, and the method table;
* :mod:`hmyframe.devnet.server`: the HTTP side (envelopes, batches, limits, faults, statistics).

The names those modules define that callers used to import from here are re-exported.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from hmyframe.devnet.limits import VALIDATOR_RATE_LIMIT, RateLimit, TokenBucket
from hmyframe.devnet.model import (
    Block,
    CxProof,
    StakingTransaction,
    Transaction,
    ValidatorSnapshot,
)
from hmyframe.devnet.params import (
    _LATEST,
    _PENDING,
    ERR_CRASHED,
    ERR_NOT_BEACON,
    ERR_PENDING,
    ERR_TOO_HIGH,
    LATEST,
    PENDING,
    BlockArgs,
    RpcFault,
    arity,
    block_number_param,
    hash_param,
)

if TYPE_CHECKING:
    from hmyframe.devnet.methods import Method

from hmyframe.devnet.render import (
    BlockCache,
    Gen,
    Profile,
    block_obj,
    encode,
    legacy_validator_obj,
    validator_obj,
)

__all__ = [
    "CHAIN_ID",
    "ERR_CRASHED",
    "ERR_PENDING",
    "GET_BLOCKS_LIMIT",
    "LATEST",
    "PENDING",
    "VALIDATOR_PAGE_SIZE",
    "VALIDATOR_RATE_LIMIT",
    "ChainAPI",
    "RateLimit",
    "RpcFault",
    "ShardNode",
    "TokenBucket",
    "arity",
    "block_number_param",
    "hash_param",
    "register_method",
    "served_methods",
]


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
    def call(self, shard: int, address: str, data: str, block: int) -> tuple[str, str | None]: ...
    def code(self, shard: int, address: str, block: int) -> str: ...


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
        self.filters: dict[str, Any] = {}  # installed log / block filters (methods.logs)
        self._parity_index: dict[str, int] = {}
        self._parity_len = -1

    # -- dispatch -------------------------------------------------------------------------------

    def lookup(self, method: str, *, trace_port: bool) -> Method:
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


# the method modules import ShardNode only for typing: importing them here (after the class)
# fills the method table without an import cycle at run time
from hmyframe.devnet.methods import METHODS as _METHODS  # noqa: E402
from hmyframe.devnet.methods import register_method, served_methods  # noqa: E402
from hmyframe.devnet.methods.blocks import GET_BLOCKS_LIMIT  # noqa: E402
from hmyframe.devnet.methods.network import CHAIN_ID  # noqa: E402
from hmyframe.devnet.methods.validators import VALIDATOR_PAGE_SIZE  # noqa: E402
