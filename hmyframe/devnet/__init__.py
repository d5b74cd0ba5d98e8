"""A deterministic simulated Harmony network served over real HTTP on 127.0.0.1.

:class:`Devnet` generates a chain from a seed (:class:`Chain`) and serves it like a set of
Harmony nodes: one port per shard plus one trace ("auth") port and one WebSocket port (``newHeads``
subscriptions) per shard, the node's exact
JSON (``hmy_``/``hmyv2_``, ``current`` or ``legacy`` profile), its protocol quirks and
limits, with fault injection and request statistics for tests.

Examples
--------
>>> with Devnet(blocks=50, validator_rate_limit=False) as net:  # doctest: +SKIP
...     print(net.url, net.trace_url)
http://127.0.0.1:40123 http://127.0.0.1:40124

Inside a coroutine, ``async with Devnet(...) as net:`` serves on the running loop instead of
a background thread.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable
from concurrent.futures import Future
from types import TracebackType
from typing import Any

from hmyframe.devnet._gen_activity import ACTIVITIES, ActivityName
from hmyframe.devnet._gen_dex import DEFAULT_DEX_DENSITY
from hmyframe.devnet._gen_tokens import DEFAULT_TOKEN_DENSITY
from hmyframe.devnet.chain import Chain
from hmyframe.devnet.faults import FaultInjector, FaultRule, parse_fault_spec
from hmyframe.devnet.node import VALIDATOR_RATE_LIMIT, RateLimit
from hmyframe.devnet.receipts import LOG_HASHES, LogHashes
from hmyframe.devnet.render import PROFILES, Profile
from hmyframe.devnet.server import WS_PORT_OFFSET, DevnetServer, ServerConfig
from hmyframe.devnet.stats import DevnetStats, StatsSnapshot
from hmyframe.errors import ConfigError

__all__ = [
    "ACTIVITIES",
    "ActivityName",
    "Chain",
    "Devnet",
    "DevnetStats",
    "FaultInjector",
    "FaultRule",
    "RateLimit",
    "StatsSnapshot",
    "parse_fault_spec",
]


def _check_int(name: str, value: object, low: int, high: int | None = None) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or value < low
        or (high is not None and value > high)
    ):
        bound = f">= {low}" if high is None else f"between {low} and {high}"
        raise ConfigError(f"Devnet {name}={value!r} must be an integer {bound}")
    return value


def _check_number(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ConfigError(f"Devnet {name}={value!r} must be a number >= 0")
    return float(value)


class Devnet:
    """Run a simulated Harmony network on 127.0.0.1.

    Parameters
    ----------
    shards
        Number of shards (each gets a port and a trace port).
    blocks
        Blocks per shard before serving (the head block is ``blocks - 1``); :meth:`mine`
        adds more.
    seed
        Seed of the chain and of the fault injector: same seed, same bytes.
    profile
        ``"current"`` (today's node) or ``"legacy"`` (the early-2020 node of the spec).
    activity
        How busy blocks are: ``"quiet"`` (most blocks 0-3 transactions, like mainnet today),
        ``"devnet"`` (the default chain, mean about 12) or ``"busy"`` (100 or more per block,
        many contract calls, deeper traces; like the 2021-22 peak).
    latency_ms
        Added latency per HTTP request.
    block_cost_ms
        Server time per block read (``getBlocks`` pays it for each block, ``getBlockByNumber``,
        ``eth_getBlockByNumber``, receipts and ``trace_block`` once), a model of the node's
        database reads; concurrent requests pay it concurrently, as on a multi-core node.
    validator_rate_limit
        The node's limiter on ``getAllValidatorInformation*`` (1 req/s, burst 3, 5 s):
        ``True`` (default), ``False`` to switch it off, or a :class:`RateLimit`.
    rpc_rate_limit
        The node's global limit, in calls per second (burst = the rate, 5 s deadline) or a
        :class:`RateLimit`; ``None`` (default) for none. The real node's default is 1000
        (``--rpc.ratelimit``). As on the node, it limits the block and header reads (each block
        of ``getBlocks`` counts as a call), ``getShardingStructure``, ``call`` and
        ``pendingTransactions``, one bucket per namespace and service; ``blockNumber``,
        receipts, logs and traces are not limited (:mod:`hmyframe.devnet.limits`).
    write_timeout
        Seconds a request may take before the node drops its answer and closes the connection
        (its Go HTTP server's ``WriteTimeout``, 30 s by default); ``None``: never.
    port
        0: ephemeral ports. Otherwise shard ``s`` listens on ``port + 2s``, its trace port
        on ``port + 2s + 1`` and its WebSocket port on ``port + 300 + 2s`` (like localnet's
        9500/9501/9800).
    host
        Interface to bind.
    epoch_length, validators
        Chain parameters (blocks per epoch, validators created).
    token_density
        Expected token transactions (HRC-20/721/1155 mints, transfers, burns, failed
        transfers) per block with plain transactions; 0 for none (see
        :class:`~hmyframe.devnet.chain.Chain`). The plain transactions do not depend on it.
    hostile_text
        Serve token names and symbols and validator descriptions chosen to break displays (10,000
        characters, right-to-left overrides, zero-width and control characters, HTML, emoji;
        see :mod:`hmyframe.devnet._gen_hostile`); everything else is the same chain.
    dex_density
        Expected DEX transactions (swaps through a UniswapV2-style router, liquidity added and
        removed, ONE wrapped and unwrapped) per block with plain transactions; 0 for none (see
        :mod:`hmyframe.devnet._gen_dex`). The plain and token transactions do not depend on it.
    faults
        Initial fault rules: a spec string (see :mod:`hmyframe.devnet.faults`), an iterable
        of :class:`FaultRule` or spec strings, or a :class:`FaultInjector`.
    cache_bytes
        Size bound of the rendered-response cache.
    gzip
        Gzip answers for clients that accept it, as the node does (default). ``False`` serves
        every client identity-encoded bytes: a benchmark comparing clients whose HTTP
        libraries ask for gzip with ones that do not gives them all the same encoding.
    explorer
        Keep the explorer index (the default): ``getTransactionsHistory``,
        ``getStakingTransactionsHistory`` and their counts answer from the chain. ``False``
        answers them as a node started without the explorer service does.
    quick_unlock
        Epochs ``(first, end)`` whose undelegations unlock at their epoch's end (the node's
        quick-unlock regime; see :class:`~hmyframe.devnet.chain.Chain`); ``None``: 7 epochs.
    mine_every
        While serving, mine one block on every shard each ``mine_every`` seconds (0: never,
        the default). The attribute can be changed while serving: 0 pauses the mining (a
        stalled chain), a positive value resumes it.
    log_hashes
        The state of the nodes' receipts caches, which decides the hash logs carry in
        ``hmy_``/``hmyv2_`` answers (see :mod:`hmyframe.devnet.receipts`): ``"mainnet"`` (the
        default: ``hmy_`` receipts and ``hmy_getLogs`` the Ethereum-form hash, ``hmyv2_``
        receipts the Harmony hash, as mainnet answers show), ``"harmony"`` (a cache no ``eth_``
        call touched: the Harmony hash everywhere) or ``"eth"`` (the Ethereum-form hash
        everywhere). ``eth_`` answers carry the Ethereum-form hash in every state.
    rpc_deny
        Method names the nodes do not serve, as the node's RPC method filter file's ``Deny``
        list (``*`` a wildcard: ``["hmyv2_*"]`` serves only ``hmy_``, ``eth_``, ``net_`` and
        ``web3_``); a denied method answers -32601 "the method X does not exist/is not
        available".

    Attributes
    ----------
    chain : Chain
        The ground truth.
    stats : DevnetStats
        Server-side request statistics.
    faults : FaultInjector
        Runtime fault rules (``devnet.faults.add(...)``, ``devnet.faults.clear()``).
    urls, trace_urls, ws_urls : list of str
        Each shard's URL, trace URL and WebSocket URL (set while running).
    """

    def __init__(
        self,
        *,
        shards: int = 2,
        blocks: int = 2000,
        seed: int = 0,
        profile: Profile = "current",
        latency_ms: float = 0,
        block_cost_ms: float = 0,
        validator_rate_limit: bool | RateLimit = True,
        rpc_rate_limit: float | RateLimit | None = None,
        write_timeout: float | None = 30.0,
        port: int = 0,
        host: str = "127.0.0.1",
        epoch_length: int = 200,
        validators: int = 300,
        token_density: float = DEFAULT_TOKEN_DENSITY,
        faults: FaultInjector | str | Iterable[FaultRule | str] | None = None,
        cache_bytes: int = 128 * 1024 * 1024,
        gzip: bool = True,
        mine_every: float = 0.0,
        activity: ActivityName = "devnet",
        explorer: bool = True,
        log_hashes: LogHashes = "mainnet",
        rpc_deny: Iterable[str] = (),
        dex_density: float = DEFAULT_DEX_DENSITY,
        hostile_text: bool = False,
        quick_unlock: tuple[int, int] | None = None,
    ) -> None:
        shards = _check_int("shards", shards, 1, 64)
        if not isinstance(explorer, bool):
            raise ConfigError(f"Devnet explorer must be True or False, got {explorer!r}")
        if not isinstance(gzip, bool):
            raise ConfigError(f"Devnet gzip must be True or False, got {gzip!r}")
        blocks = _check_int("blocks", blocks, 1)
        seed = _check_int("seed", seed, 0)
        if profile not in PROFILES:
            raise ConfigError(f"Devnet profile={profile!r} must be one of {', '.join(PROFILES)}")
        latency = _check_number("latency_ms", latency_ms)
        block_cost = _check_number("block_cost_ms", block_cost_ms)
        port = _check_int("port", port, 0, 65535)
        top = WS_PORT_OFFSET + 2 * shards - 2
        if port and port + top > 65535:
            raise ConfigError(
                f"Devnet port={port} leaves no room for {shards} shards (needs up to port+{top})"
            )
        host_value: object = host
        if not isinstance(host_value, str) or not host_value:
            raise ConfigError(f"Devnet host={host_value!r} must be a host name or IP address")
        epoch_length = _check_int("epoch_length", epoch_length, 1)
        validators = _check_int("validators", validators, 1)
        cache_bytes = _check_int("cache_bytes", cache_bytes, 0)

        vlimit: RateLimit | None
        if validator_rate_limit is True:
            vlimit = VALIDATOR_RATE_LIMIT
        elif validator_rate_limit is False:
            vlimit = None
        elif isinstance(validator_rate_limit, RateLimit):
            vlimit = validator_rate_limit
        else:
            raise ConfigError(
                f"Devnet validator_rate_limit={validator_rate_limit!r} must be True, False or a RateLimit"
            )
        rlimit: RateLimit | None
        rate_value: object = rpc_rate_limit
        if rate_value is None:
            rlimit = None
        elif isinstance(rpc_rate_limit, RateLimit):
            rlimit = rpc_rate_limit
        elif isinstance(rate_value, int | float) and not isinstance(rate_value, bool) and rate_value > 0:
            rlimit = RateLimit(float(rate_value), max(1, int(rate_value)), 5.0)
        else:
            raise ConfigError(
                f"Devnet rpc_rate_limit={rpc_rate_limit!r} must be None, a rate > 0 (requests/s) or a RateLimit"
            )
        if log_hashes not in LOG_HASHES:
            raise ConfigError(f"Devnet log_hashes={log_hashes!r} must be one of {', '.join(LOG_HASHES)}")
        deny: tuple[object, ...] = (rpc_deny,) if isinstance(rpc_deny, str) else tuple(rpc_deny)
        if not all(isinstance(p, str) and p for p in deny):
            raise ConfigError(f"Devnet rpc_deny={rpc_deny!r} must be method name patterns such as 'hmyv2_*'")
        if isinstance(faults, FaultInjector):
            self.faults = faults
        else:
            self.faults = FaultInjector(seed=seed, rules=faults)

        self.profile: Profile = profile
        self.seed = seed
        self.chain = Chain(
            seed=seed,
            shards=shards,
            blocks=blocks,
            epoch_length=epoch_length,
            validators=validators,
            activity=activity,
            token_density=token_density,
            dex_density=dex_density,
            hostile_text=hostile_text,
            quick_unlock=quick_unlock,
        )
        self.activity: ActivityName = activity
        self.stats = DevnetStats()
        self._config = ServerConfig(
            host=host,
            port=port,
            profile=profile,
            latency_ms=latency,
            block_cost_ms=block_cost,
            validator_rate_limit=vlimit,
            rpc_rate_limit=rlimit,
            write_timeout=None if write_timeout is None else _check_number("write_timeout", write_timeout),
            cache_bytes=cache_bytes,
            gzip_level=1 if gzip else 0,
            explorer=explorer,
            log_hashes=log_hashes,
            rpc_deny=tuple(str(p) for p in deny),
        )
        self._server: DevnetServer | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stop_event: asyncio.Event | None = None
        self._mine_every = _check_number("mine_every", mine_every)
        self._miner: asyncio.Task[None] | None = None

    # -- state ------------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """True while serving."""
        return self._server is not None and self._server.running

    def _require_server(self) -> DevnetServer:
        if self._server is None:
            raise ConfigError(
                "the devnet is not running; use it as `with Devnet(...) as net:` or `async with`"
            )
        return self._server

    @property
    def urls(self) -> list[str]:
        """Normal-port URL of each shard."""
        return list(self._require_server().urls)

    @property
    def trace_urls(self) -> list[str]:
        """Trace-port URL of each shard."""
        return list(self._require_server().trace_urls)

    @property
    def ws_urls(self) -> list[str]:
        """WebSocket URL of each shard (``hmy_subscribe`` / ``eth_subscribe`` ``newHeads``)."""
        return list(self._require_server().ws_urls)

    @property
    def url(self) -> str:
        """Shard 0's URL."""
        return self.urls[0]

    @property
    def trace_url(self) -> str:
        """Shard 0's trace URL."""
        return self.trace_urls[0]

    @property
    def n_shards(self) -> int:
        """Number of shards."""
        return int(self.chain.n_shards)

    # -- mining -----------------------------------------------------------------------------------

    def mine(self, n: int = 1) -> None:
        """Add ``n`` blocks to every shard (safe while serving, from any thread).

        Parameters
        ----------
        n
            Number of blocks, >= 1.
        """
        n = _check_int("mine n", n, 1)
        loop = self._loop
        if loop is not None and self._thread is not None and threading.current_thread() is not self._thread:
            future: Future[None] = asyncio.run_coroutine_threadsafe(self._mine(n), loop)
            future.result()
        else:
            self._mine_now(n)

    async def _mine(self, n: int) -> None:
        self._mine_now(n)

    def _mine_now(self, n: int) -> None:
        self.chain.mine(n)
        if self._server is not None:
            self._server.heads_changed()

    def ws_subscribers(self, shard: int) -> int:
        """Number of live ``newHeads`` subscriptions on ``shard``'s WebSocket port."""
        return self._require_server().heads.subscribers(_check_int("shard", shard, 0, self.n_shards - 1))

    def drop_websockets(self) -> None:
        """Close every WebSocket client connection, as a node restart does (any thread)."""
        self._require_server().drop_websockets()

    @property
    def mine_every(self) -> float:
        """Seconds between blocks mined while serving (0: no mining); settable while serving."""
        return self._mine_every

    @mine_every.setter
    def mine_every(self, seconds: float) -> None:
        value = _check_number("mine_every", seconds)
        self._mine_every = value
        loop = self._loop
        if loop is not None and self._thread is not None and threading.current_thread() is not self._thread:
            loop.call_soon_threadsafe(self._restart_miner)
        elif self._server is not None:
            self._restart_miner()

    def _restart_miner(self) -> None:
        if self._miner is not None:
            self._miner.cancel()
            self._miner = None
        if self._mine_every > 0 and self._server is not None:
            self._miner = asyncio.get_running_loop().create_task(self._mine_forever(self._mine_every))

    async def _mine_forever(self, interval: float) -> None:
        # On a fixed schedule (not sleep after work), so block times do not drift under load.
        loop = asyncio.get_running_loop()
        due = loop.time()
        while True:
            due += interval
            await asyncio.sleep(max(0.0, due - loop.time()))
            self._mine_now(1)

    # -- async context ------------------------------------------------------------------------------

    async def start(self) -> None:
        """Start serving on the running event loop (what ``async with`` does)."""
        if self._server is not None:
            raise ConfigError("the devnet is already running")
        server = DevnetServer(self.chain, self._config, faults=self.faults, stats=self.stats)
        await server.start()
        self._server = server
        self._restart_miner()

    async def stop(self) -> None:
        """Stop serving (what leaving ``async with`` does)."""
        miner, self._miner = self._miner, None
        if miner is not None:
            miner.cancel()
        server, self._server = self._server, None
        if server is not None:
            await server.stop()

    async def __aenter__(self) -> Devnet:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()

    # -- sync context (background thread) ------------------------------------------------------------

    def __enter__(self) -> Devnet:
        if self._server is not None or self._thread is not None:
            raise ConfigError("the devnet is already running")
        started: Future[None] = Future()

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(self._serve_forever(started))
            finally:
                loop.run_until_complete(loop.shutdown_asyncgens())
                loop.close()
                self._loop = None

        self._thread = threading.Thread(target=run, name="hmyframe-devnet", daemon=True)
        self._thread.start()
        try:
            started.result()
        except BaseException:
            self._thread.join()
            self._thread = None
            raise
        return self

    async def _serve_forever(self, started: Future[None]) -> None:
        self._stop_event = asyncio.Event()
        try:
            await self.start()
        except Exception as exc:  # noqa: BLE001 - handed to the starting thread, which re-raises it
            started.set_exception(exc)
            return
        started.set_result(None)
        try:
            await self._stop_event.wait()
        finally:
            await self.stop()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Stop a devnet started with ``with`` (idempotent)."""
        thread, loop, event = self._thread, self._loop, self._stop_event
        if thread is None:
            return
        if loop is not None and event is not None and not loop.is_closed():
            loop.call_soon_threadsafe(event.set)
        thread.join()
        self._thread = None
        self._stop_event = None

    def __repr__(self) -> str:
        where = ", ".join(self._server.urls) if self._server is not None else "stopped"
        return f"Devnet(shards={self.n_shards}, seed={self.seed}, profile={self.profile!r}, {where})"

    def __getstate__(self) -> Any:
        raise ConfigError("a Devnet cannot be pickled; pass its urls instead")
