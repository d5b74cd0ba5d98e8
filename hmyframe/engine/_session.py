"""A fetch session: one client, one cache, one chain.

:class:`Session` resolves what the user pointed at (a URL, ``"devnet"``, a running
:class:`~hmyframe.devnet.Devnet`, or an open :class:`~hmyframe.rpc.Client`), owns the client
for the duration of an ``async with``, knows the chain's identity (its genesis hash, used to
key the cache) and the shards' heads.

Zero-request cache hits: opening a session sends nothing. The chain id is remembered per URL
for the life of the process (and known without a request for the embedded devnet), and block
ranges that are fully cached are read without asking the node for its head.
"""

from __future__ import annotations

import asyncio
import atexit
import operator
import os
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

from hmyframe import _json
from hmyframe._tasks import gather_or_raise
from hmyframe.cache import Cache
from hmyframe.errors import ConfigError, HmyframeError, ResponseShapeError, redact_url, short_repr
from hmyframe.rpc import Client, RetryPolicy
from hmyframe.rpc.client import ValidatorPacing
from hmyframe.rpc.pool import EndpointPool

if TYPE_CHECKING:
    from hmyframe.devnet import Devnet


__all__ = [
    "DEFAULT_RPC",
    "DEFAULT_TRACE_RPC",
    "FetchOptions",
    "Session",
    "block_arg",
    "default_devnet",
]


def block_arg(value: object, what: str) -> int:
    """A caller's block number, shard or page as a plain ``int >= 0``.

    Accepts any integer type (``numpy.int64`` from a DataFrame too); refuses ``bool``, floats,
    strings and negatives with a :class:`ConfigError` naming the value.
    """
    if isinstance(value, bool):
        raise ConfigError(f"{what} must be a non-negative integer, got {short_repr(value)}")
    try:
        number = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise ConfigError(f"{what} must be a non-negative integer, got {short_repr(value)}") from None
    if number < 0:
        raise ConfigError(f"{what} must be a non-negative integer, got {number}")
    return number


#: Public mainnet shard-0 endpoint, used when neither ``rpc=`` nor ``HMYFRAME_RPC`` is given.
DEFAULT_RPC = "https://api.s0.t.hmny.io"
#: Public mainnet archival endpoint serving ``trace_*`` for shard 0.
DEFAULT_TRACE_RPC = "https://a.api.s0.t.hmny.io"


@dataclass(frozen=True)
class FetchOptions:
    """How to fetch: chunking, request shapes, politeness.

    Attributes
    ----------
    chunk_size
        Blocks per cache file (files are aligned on multiples of it).
    blocks_per_request
        Blocks asked for in one ``getBlocks`` call (``strategy="range"``) or one JSON-RPC
        batch of ``getBlockByNumber`` calls (``strategy="batch"``).
    strategy
        ``"range"`` (``hmyv2_getBlocks``; the default, faster in ``bench/fetch_strategy.py``)
        or ``"batch"`` (batched ``getBlockByNumber``, for nodes that disable ``getBlocks``).
    version
        RPC generation to fetch with: 2 (``hmyv2_``, numbers) or 1 (``hmy_``, hex). Every call
        follows it, first contact (genesis block, head) included: with 1, a node serving only
        ``hmy_`` methods (an RPC method filter denying ``hmyv2_*``) gives a complete export.
    max_concurrent_chunks
        Chunks fetched at the same time.
    max_in_flight, batch_size, requests_per_second, timeout, retry
        Passed to :class:`~hmyframe.rpc.Client`. With several endpoints (``rpc=[...]``),
        ``max_in_flight`` and ``requests_per_second`` hold for each endpoint, and ``retry``
        for a call through the pool (:class:`~hmyframe.rpc.pool.EndpointPool`).
    validator_pacing
        Pacing of validator-information pages, passed to :class:`~hmyframe.rpc.Client`.
        ``"auto"`` (the default): pages go unpaced until the node refuses one for its rate
        (its limiter allows 1/s, burst 3; a node run without it never does), then that
        endpoint is paced at 1/s, burst 3 and the refused page is retried. A ``(rate, burst)``
        pair paces from the first page; ``None`` never paces.
    convert_processes
        Worker processes converting and writing a range fetch's chunks, so conversion uses
        other cores while this process sends requests; 0 (the default) converts in a thread
        of this process (overlapping the fetch on one core). Each worker is a fork of a
        fresh fork-server interpreter that imported pyarrow and the datasets once (spawned
        where there is none; either way a script using it needs the
        ``if __name__ == "__main__":`` guard); used with a local cache folder or no cache.
    """

    chunk_size: int = 1000
    blocks_per_request: int = 100
    strategy: Literal["range", "batch"] = "range"
    version: Literal[1, 2] = 2
    max_concurrent_chunks: int = 4
    max_in_flight: int = 8
    batch_size: int = 100
    requests_per_second: float | None = None
    timeout: float = 60.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    validator_pacing: ValidatorPacing = "auto"
    convert_processes: int = 0

    def __post_init__(self) -> None:
        for name in (
            "chunk_size",
            "blocks_per_request",
            "max_concurrent_chunks",
            "max_in_flight",
            "batch_size",
        ):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(f"FetchOptions.{name} must be a positive integer, got {short_repr(value)}")
        processes: object = self.convert_processes
        if not isinstance(processes, int) or isinstance(processes, bool) or processes < 0:
            raise ConfigError(
                f"FetchOptions.convert_processes must be a non-negative integer, got {short_repr(processes)}"
            )
        if self.blocks_per_request > 1025:
            raise ConfigError(
                f"FetchOptions.blocks_per_request {self.blocks_per_request} exceeds the node's getBlocks cap of 1025"
            )
        if self.strategy not in ("range", "batch"):
            raise ConfigError(
                f"FetchOptions.strategy must be 'range' or 'batch', got {short_repr(self.strategy)}"
            )
        if self.version not in (1, 2):
            raise ConfigError(f"FetchOptions.version must be 1 or 2, got {short_repr(self.version)}")

    def with_(self, **changes: Any) -> FetchOptions:
        """A copy with some fields changed."""
        return replace(self, **changes)


# --------------------------------------------------------------------------- devnet


_devnet_lock = threading.Lock()
_default_devnet: Devnet | None = None


def default_devnet() -> Devnet:
    """The process-wide embedded devnet used by ``rpc="devnet"``, started on first use.

    It serves 2 shards of 2,000 blocks (seed 0) from a background thread until the
    process exits.
    """
    global _default_devnet
    with _devnet_lock:
        if _default_devnet is None or not _default_devnet.running:
            from hmyframe.devnet import Devnet

            net = Devnet(seed=0, shards=2, blocks=2000)
            net.__enter__()
            atexit.register(net.close)
            _default_devnet = net
        return _default_devnet


# --------------------------------------------------------------------------- chain ids

_chain_ids: dict[str, str] = {}
_chain_ids_lock = threading.Lock()


def chain_id_from_hash(genesis_hash: Any) -> str:
    """The cache key of a chain: the first 16 hex digits of its shard-0 genesis hash."""
    if not isinstance(genesis_hash, str) or len(genesis_hash) != 66 or not genesis_hash.startswith("0x"):
        raise ResponseShapeError("genesis block", "hash", genesis_hash, "a 0x-prefixed 32-byte hash")
    return genesis_hash[2:18].lower()


@dataclass
class _Resolved:
    url: str
    trace_url: str | dict[int, str] | None
    shard_urls: dict[int, str] | None
    chain_id: str | None
    client: Client | EndpointPool | None
    #: further endpoints of the same chain (``rpc=[...]``): (url, shard urls)
    more: list[tuple[str, dict[int, str] | None]] = field(default_factory=list)


def _resolve(rpc: object, trace_rpc: str | dict[int, str] | None) -> _Resolved:
    if isinstance(rpc, list | tuple):
        if not rpc:
            raise ConfigError("rpc is an empty list: give at least one endpoint URL")
        parts = [_resolve(item, trace_rpc) for item in rpc]
        if any(
            p.client is not None or isinstance(item, list | tuple) for p, item in zip(parts, rpc, strict=True)
        ):
            raise ConfigError(
                f"a list of endpoints takes URLs, 'devnet' and Devnets (not Clients or lists), got {short_repr(rpc)}"
            )
        first = parts[0]
        if len(parts) == 1:
            return first
        known = {p.chain_id for p in parts}
        chain_id = first.chain_id if len(known) == 1 else None  # all devnets of one chain: first-hand
        return _Resolved(
            first.url,
            first.trace_url,
            first.shard_urls,
            chain_id,
            None,
            [(p.url, p.shard_urls) for p in parts[1:]],
        )
    if rpc is None:
        rpc = os.environ.get("HMYFRAME_RPC") or DEFAULT_RPC
    if rpc == "devnet":
        rpc = default_devnet()
    # (a Devnet exists only once hmyframe.devnet is loaded: a URL does not import it)
    devnet = sys.modules.get("hmyframe.devnet")
    if devnet is not None and isinstance(rpc, devnet.Devnet):
        chain_id = chain_id_from_hash(rpc.chain.genesis_hash(0))
        traces = dict(enumerate(rpc.trace_urls)) if trace_rpc is None else trace_rpc
        return _Resolved(rpc.url, traces, dict(enumerate(rpc.urls)), chain_id, None)
    if isinstance(rpc, Client | EndpointPool):
        return _Resolved(rpc.url, None, None, None, rpc)
    if not isinstance(rpc, str) or not rpc.startswith(("http://", "https://")):
        raise ConfigError(
            "rpc must be an http(s) URL, 'devnet', a Devnet, a Client or a list of URLs / Devnets "
            f"(several endpoints of one chain), got {short_repr(rpc)}"
        )
    if trace_rpc is None:
        trace_rpc = os.environ.get("HMYFRAME_TRACE_RPC") or (
            DEFAULT_TRACE_RPC if rpc == DEFAULT_RPC else None
        )
    return _Resolved(rpc, trace_rpc, None, None, None)


class Session:
    """One client, one cache, one chain: the context every fetch runs in.

    Parameters
    ----------
    rpc
        A node URL, ``"devnet"`` (the embedded devnet), a running
        :class:`~hmyframe.devnet.Devnet`, or an open :class:`~hmyframe.rpc.Client` or
        :class:`~hmyframe.rpc.pool.EndpointPool` (used as is, not closed). Default: ``$HMYFRAME_RPC``, else the public mainnet shard-0 endpoint.
        A list of URLs (or Devnets) names several endpoints of one chain: calls are spread
        over them by measured speed, a failing one is set aside and tried again later, and
        each one's chain is checked before use (:class:`~hmyframe.rpc.pool.EndpointPool`).
    trace_rpc
        URL (or ``{shard: url}``) serving ``trace_*``. Default: ``$HMYFRAME_TRACE_RPC``; the
        devnet's trace ports for a devnet; the public archival endpoint for mainnet.
    cache
        ``True`` (the default cache root ``data/`` or ``$HMYFRAME_CACHE``), a folder, a
        :class:`~hmyframe.cache.Cache`, or ``False`` to fetch without caching.
    options
        :class:`FetchOptions`.

    Examples
    --------
    >>> async with Session("devnet") as s:                           # doctest: +SKIP
    ...     head = await s.head(0)
    """

    def __init__(
        self,
        rpc: object = None,
        *,
        trace_rpc: str | dict[int, str] | None = None,
        cache: bool | str | os.PathLike[str] | Cache = True,
        options: FetchOptions | None = None,
    ) -> None:
        self.options = options or FetchOptions()
        if not isinstance(self.options, FetchOptions):
            raise ConfigError(f"options must be a FetchOptions, got {short_repr(options)}")
        self._resolved = _resolve(rpc, trace_rpc)
        if cache is True:
            self.cache: Cache | None = Cache()
        elif cache is False or cache is None:
            self.cache = None
        elif isinstance(cache, Cache):
            self.cache = cache
        elif isinstance(cache, str | os.PathLike):
            self.cache = Cache(cache)  # a folder, or a URL (see hmyframe.storage)
        else:
            raise ConfigError(f"cache must be True, False, a folder or a Cache, got {short_repr(cache)}")
        self._owns_client = self._resolved.client is None
        self._client: Client | EndpointPool | None = self._resolved.client
        self._heads: dict[int, int] = {}
        # the chain id was learnt first-hand (devnet object, or asked by this session)
        self._chain_checked = self._resolved.chain_id is not None
        #: Answers asked ahead of a range fetch's first contact (engine._ranges.prefetch_range),
        #: by (shard, method, encoded params): the task, and whether it went to the home URL
        #: (then good for that shard only if the home URL serves it).
        self.prefetched: dict[tuple[int, str, bytes], tuple[asyncio.Task[bytes], bool]] = {}

    @property
    def url(self) -> str:
        """The home URL (redact it before showing it)."""
        return self._resolved.url

    def endpoint_spec(self) -> tuple[str | list[str], str | dict[int, str] | None]:
        """``(rpc, trace_rpc)`` naming this session's endpoints by URL, as resolved from its
        ``rpc`` / ``trace_rpc`` and the environment: what a session in another process (a Dask
        worker) needs to reach the same endpoints.

        Raises
        ------
        ConfigError
            If the session was given an open :class:`~hmyframe.rpc.Client` (its endpoints
            cannot be handed on).
        """
        resolved = self._resolved
        if resolved.client is not None:
            raise ConfigError(
                "a session made from an open Client cannot hand its endpoints to other processes: "
                "give rpc= as URLs (or 'devnet', a Devnet)"
            )
        trace = dict(resolved.trace_url) if isinstance(resolved.trace_url, dict) else resolved.trace_url
        if resolved.more:
            return [resolved.url, *(url for url, _ in resolved.more)], trace
        return resolved.url, trace

    @property
    def client(self) -> Client | EndpointPool:
        """The open client (an :class:`~hmyframe.rpc.pool.EndpointPool` for several endpoints)."""
        if self._client is None:
            raise ConfigError("the session is not open: use `async with Session(...) as session`")
        return self._client

    async def __aenter__(self) -> Session:
        if self._owns_client:
            opts = self.options
            resolved = self._resolved

            def client(
                url: str,
                trace: str | dict[int, str] | None,
                shards: dict[int, str] | None,
                retry: RetryPolicy,
            ) -> Client:
                return Client(
                    url,
                    trace_url=trace,
                    shard_urls=shards,
                    max_in_flight=opts.max_in_flight,
                    batch_size=opts.batch_size,
                    requests_per_second=opts.requests_per_second,
                    timeout=opts.timeout,
                    retry=retry,
                    validator_pacing=opts.validator_pacing,
                )

            if resolved.more:
                # the pool retries on the other endpoints: its members try each call once
                once = replace(opts.retry, attempts=1)
                members = [client(resolved.url, resolved.trace_url, resolved.shard_urls, once)]
                members += [client(url, None, shards, once) for url, shards in resolved.more]
                self._client = EndpointPool(members, retry=opts.retry, version=opts.version)
            else:
                self._client = client(resolved.url, resolved.trace_url, resolved.shard_urls, opts.retry)
            await self._client.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        unused = [task for task, _ in self.prefetched.values()]
        self.prefetched.clear()
        for task in unused:  # (asked ahead and never needed: a guess, nobody's error)
            task.cancel()
        if unused:
            await asyncio.gather(*unused, return_exceptions=True)
        if self._owns_client and self._client is not None:
            await self._client.aclose()
            self._client = None

    @property
    def methods(self) -> Any:
        """The typed methods of the configured generation (``client.v2`` or ``client.v1``).

        Everything a session asks goes through them, first contact included (the genesis block,
        the head): with ``FetchOptions(version=1)`` a node that serves only ``hmy_`` methods (an
        RPC method filter) is asked no ``hmyv2_`` method.
        """
        return self.client.v2 if self.options.version == 2 else self.client.v1

    def _genesis_call(self, shard: int | None) -> Any:
        """The coroutine asking for the shard-0 genesis header (v1 always includes staking)."""
        return self.methods.get_block_by_number(
            0, full_tx=False, incl_staking=self.options.version == 1, shard=shard
        )

    async def chain_id(self, *, verify: bool = False) -> str:
        """The chain's cache key (first 16 hex digits of the shard-0 genesis hash).

        Known without a request for the devnet and for URLs already seen in this process.

        Parameters
        ----------
        verify
            Ask the node for its genesis block unless this session already did (or the chain
            is known first-hand, as for a devnet). Fetches that write to the cache verify, so
            a URL that now serves another chain (a restarted local node, a moved tunnel) never
            gets that chain's blocks filed under the old chain's id; the session then uses
            the new id.
        """
        if self._resolved.chain_id is not None and (self._chain_checked or not verify):
            return self._resolved.chain_id
        known = None if verify else self._remembered_chain_id()
        if known is None:
            known = self._learn_chain(await self._genesis_call(0))
        self._resolved.chain_id = known
        return known

    def _learn_chain(self, genesis: Any) -> str:
        """The chain id of the node's shard-0 genesis block, remembered for this URL."""
        key = self._resolved.url
        if not isinstance(genesis, dict):
            raise ResponseShapeError(
                self.methods.method("getBlockByNumber"),
                "result",
                genesis,
                f"the genesis block of {redact_url(key)}",
            )
        known = chain_id_from_hash(genesis.get("hash"))
        with _chain_ids_lock:
            _chain_ids[key] = known
        self._chain_checked = True
        self._resolved.chain_id = known
        return known

    async def identify(self, shards: Sequence[int] = ()) -> str:
        """The chain id, as :meth:`chain_id`, learnt in one round trip with the heads of ``shards``.

        On first contact with a URL (nothing remembered of it in this process) the node is
        asked at once for its sharding structure (which shard the URL serves), its shard-0
        genesis block (the chain id) and its head: the last two as guesses sent to the URL
        itself, kept if it serves the shard they are for (the usual case: a shard's own URL),
        else dropped and asked of the right shard's URL. A fetch thus spends one round trip
        before its first block request, not three in a row. A chain id already known sends
        nothing, so cache hits stay request-free. Under a request-rate cap
        (``FetchOptions.requests_per_second``) the calls go one after the other as they are
        needed: there, requests are counted, not round trips.
        """
        if (
            self._resolved.chain_id is not None
            or self._remembered_chain_id() is not None
            or self.options.requests_per_second is not None
        ):
            return await self.chain_id()
        client = self.client
        if isinstance(client, Client) and not client.routes_without_asking(0):
            genesis = asyncio.ensure_future(self._genesis_call(None))
            head = asyncio.ensure_future(self.methods.block_number(shard=None)) if shards else None
            guesses = [g for g in (genesis, head) if g is not None]
            for guess in guesses:  # a dropped guess's failure is nobody's error
                guess.add_done_callback(lambda t: t.cancelled() or t.exception())
            try:
                served = await client.home_shard()
                if served == 0:
                    self._learn_chain(await genesis)
                if head is not None and served in shards:
                    self._learn_head(served, await head)
            finally:
                for guess in guesses:
                    guess.cancel()
        await gather_or_raise([self.chain_id(), *(self.head(s) for s in shards)])
        return await self.chain_id()  # known now: no further request

    async def take_prefetched(
        self, shard: int, method: str, params: Sequence[Any]
    ) -> bytes | HmyframeError | None:
        """The answer asked ahead for ``method(params)`` of ``shard`` (:mod:`hmyframe.engine._prefetch`),
        taken (it is asked once), the error it met, or ``None``: none, or it went to the URL given
        and that URL does not serve ``shard``."""
        guessed = self.prefetched.pop((shard, method, _json.encode(list(params))), None)
        if guessed is None:
            return None
        task, home = guessed
        try:
            if home and await self.client.home_shard() != shard:
                task.cancel()
                return None
            return await task
        except HmyframeError as error:
            return error

    def _remembered_chain_id(self) -> str | None:
        with _chain_ids_lock:
            return _chain_ids.get(self._resolved.url)

    async def shard_ids(self) -> list[int]:
        """The network's shard ids: the devnet's own, else ``hmy_getShardingStructure`` (asked once)."""
        if self._resolved.shard_urls:
            return sorted(self._resolved.shard_urls)
        return [s.shard_id for s in await self.client.shards()]

    async def head(self, shard: int, *, refresh: bool = False) -> int:
        """The highest block number of ``shard`` (asked once per session unless ``refresh``)."""
        if refresh or shard not in self._heads:
            self._learn_head(shard, await self.methods.block_number(shard=shard))
        return self._heads[shard]

    def saw_head(self, shard: int, head: int) -> None:
        """Remember ``head`` of ``shard`` learnt elsewhere (a ``newHeads`` subscription), so a
        fetch up to it is not refused as beyond the head this session last asked for."""
        self._learn_head(shard, head)

    def _learn_head(self, shard: int, raw: Any) -> None:
        number = raw
        if isinstance(raw, str) and raw[:2] == "0x" and self.options.version == 1:
            try:
                number = int(raw, 16)  # hmy_blockNumber: a hex quantity
            except ValueError:
                number = None
        if not isinstance(number, int) or isinstance(number, bool) or number < 0:
            what = "a hex quantity" if self.options.version == 1 else "a non-negative integer"
            raise ResponseShapeError(self.methods.method("blockNumber"), "result", raw, what)
        self._heads[shard] = number
