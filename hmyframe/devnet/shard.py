"""One shard's node state: the chain, its profile, caches and limiters, and the helpers every
served method shares (:class:`ShardState`).

The methods (:mod:`hmyframe.devnet.methods`) take a ``ShardState``; the dispatch that picks a
method for a call (:class:`hmyframe.devnet.node.ShardNode`) builds on it. Neither this module
nor the methods import the dispatch, so the method table and the node have no import circle.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, Protocol

from hmyframe.devnet._gen_accounts import HistoryEntry
from hmyframe.devnet.limits import NodeLimiter, TokenBucket
from hmyframe.devnet.model import (
    Block,
    CxProof,
    Delegation,
    StakingTransaction,
    Transaction,
    ValidatorSnapshot,
)
from hmyframe.devnet.params import (
    _LATEST,
    _PENDING,
    ERR_PENDING,
    ERR_TOO_HIGH,
    BlockArgs,
    RpcFault,
)
from hmyframe.devnet.receipts import LogHashes
from hmyframe.devnet.render import (
    BlockCache,
    Gen,
    Profile,
    block_obj,
    encode,
    legacy_validator_obj,
    validator_obj,
)

__all__ = ["ChainAPI", "ShardState"]


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
    def balance(self, shard: int, address: str, block: int) -> int: ...
    def history(self, shard: int, address: str, *, staking: bool = False) -> list[HistoryEntry]: ...
    def delegations_by_delegator(self, address: str, block: int) -> list[tuple[str, Delegation]]: ...


class ShardState:
    """One shard's node state and the helpers its methods share.

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
        The node's global limiter (``None``: off, the default): the methods it limits wait on
        it (:mod:`hmyframe.devnet.limits`).
    http_urls, ws_urls
        Every shard's URLs, for ``getShardingStructure``.
    explorer
        Whether the node keeps the explorer index (``getTransactionsHistory``...).
    block_cost
        Seconds of server time per block read (a model of the node's database reads; 0: none).
        Concurrent requests pay it concurrently, as on a multi-core node; the blocks of one
        request are read one after the other.
    log_hashes
        The state of the node's receipts cache: which hash logs carry in ``hmy_``/``hmyv2_``
        answers (:data:`hmyframe.devnet.receipts.LogHashes`).
    rpc_deny
        Method name patterns the node does not serve (its RPC method filter's ``Deny`` list,
        ``*`` a wildcard): they answer -32601, as methods that do not exist.
    """

    def __init__(
        self,
        chain: ChainAPI,
        shard: int,
        *,
        profile: Profile,
        cache: BlockCache,
        validator_limiter: TokenBucket | None,
        rpc_limiter: NodeLimiter | None,
        http_urls: Sequence[str] = (),
        ws_urls: Sequence[str] = (),
        block_cost: float = 0.0,
        explorer: bool = True,
        log_hashes: LogHashes = "mainnet",
        rpc_deny: Sequence[str] = (),
    ) -> None:
        self.chain = chain
        self.explorer = explorer
        self.log_hashes: LogHashes = log_hashes
        self.rpc_deny = tuple(rpc_deny)
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
