"""New heads of one shard, as they are produced: WebSocket ``newHeads`` or polling.

:func:`watch_heads` is an async iterator of head block numbers. It yields the shard's current
head first, then each newer head, strictly increasing: a value is the newest head known when
it is taken, so a consumer slower than the chain sees the numbers in between skipped (the
blocks ``last + 1 .. head`` are all there to fetch). Two sources sit behind it:

* **WebSocket** (``ws_url`` given, or ``"auto"`` and the shard's sharding-structure entry
  lists one): ``hmy_subscribe`` ``["newHeads"]`` (or ``eth_``), one notification per block
  the node appends. A lost connection is re-opened with exponential back-off while the head
  is polled over HTTP meanwhile; a subscription that stays silent while HTTP shows new blocks
  is re-opened; a node that does not serve subscriptions (``-32601``, ``notifications not
  supported``) or a URL that answers the handshake with plain HTTP is left for polling for good.
* **Polling** ``hmy_blockNumber`` every ``poll_interval`` seconds over the client (whose own
  retry policy applies), backing off exponentially up to ``max_backoff`` while it fails.

What the node does wrong is *reported*, never raised: a head that does not move for
``stall_after`` seconds (repeated while it lasts, then ``resumed``), a head lower than one
already seen (a node behind the others, or one that restarted from an older state: waited out,
never yielded), a lost connection and each failed poll. Reports go to ``on_report`` (default:
the ``hmyframe.heads`` logger). Only the caller's mistakes raise: bad arguments
(:class:`~hmyframe.errors.ConfigError`) and a WebSocket URL serving another shard
(:class:`~hmyframe.errors.WrongChainError`), plus a node that does not serve
``hmy_blockNumber`` at all (:class:`~hmyframe.errors.MethodNotFoundError`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import aiohttp
import msgspec

from hmyframe.errors import (
    ConfigError,
    ConnectionFailedError,
    HmyframeError,
    MethodNotFoundError,
    ResponseShapeError,
    WrongChainError,
    redact_url,
    short_repr,
)

__all__ = ["HeadReport", "ReportKind", "watch_heads"]

_LOG = logging.getLogger("hmyframe.heads")

#: What a :class:`HeadReport` says.
ReportKind = Literal[
    "stalled",  # no new head for stall_after seconds (repeated while it lasts)
    "resumed",  # a new head after a stall
    "lower",  # the node reported a head below one already seen (once per episode)
    "poll_failed",  # hmy_blockNumber failed after the client's retries; backing off
    "disconnected",  # the WebSocket failed or closed; reconnecting with back-off
    "connected",  # subscribed (again) after a disconnection
    "silent",  # the subscription sent nothing while HTTP showed new heads; reconnecting
    "unsupported",  # the WebSocket endpoint refused the subscription; polling from now on
]


@dataclass(frozen=True, slots=True)
class HeadReport:
    """Something about a shard's head source worth telling the user (never an exception).

    Attributes
    ----------
    kind
        What happened (see :data:`ReportKind`).
    shard
        The shard watched (``None``: the client's home shard).
    head
        The newest head seen so far (``None`` before the first).
    message
        One line for a human.
    """

    kind: ReportKind
    shard: int | None
    head: int | None
    message: str

    def __str__(self) -> str:
        return self.message


class HeadSource(Protocol):
    """What :func:`watch_heads` needs of a client (:class:`~hmyframe.rpc.Client` or a pool)."""

    @property
    def url(self) -> str: ...

    async def request(
        self, method: str, params: Sequence[Any] = (), *, shard: int | None = None, trace: bool = False
    ) -> Any: ...

    async def shards(self) -> Any: ...

    async def aclose(self) -> None: ...


def _log_report(report: HeadReport) -> None:
    level = logging.INFO if report.kind in ("resumed", "connected") else logging.WARNING
    _LOG.log(level, "%s", report.message)


class _Unsupported(Exception):
    """The WebSocket endpoint does not serve the subscription (switch to polling for good)."""


class _NotifyParams(msgspec.Struct):
    subscription: Any = None
    result: Any = None


class _Message(msgspec.Struct):
    id: Any = None
    method: Any = None
    params: msgspec.Raw = msgspec.Raw(b"null")
    result: Any = None
    error: Any = None


_MESSAGE = msgspec.json.Decoder(_Message)
_NOTIFY = msgspec.json.Decoder(_NotifyParams)


def _block_number(value: Any, what: str, endpoint: str) -> int:
    """A head number from a hex quantity (``hmy_``, headers) or a JSON integer (``hmyv2_``)."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str) and value[:2] in ("0x", "0X") and len(value) > 2:
        with contextlib.suppress(ValueError):
            return int(value[2:], 16)
    raise ResponseShapeError(
        what, "number", value, "a block number (0x hex or integer >= 0)", endpoint=endpoint
    )


class _Heads:
    """The newest head seen, shared by the source tasks and the iterator."""

    def __init__(self, shard: int | None, on_report: Callable[[HeadReport], None]) -> None:
        self.shard = shard
        self.latest: int | None = None
        self.changed = asyncio.Event()
        self.error: BaseException | None = None
        self._on_report = on_report
        self._lower = False

    def report(self, kind: ReportKind, message: str) -> None:
        where = "" if self.shard is None else f"shard {self.shard}: "
        self._on_report(HeadReport(kind, self.shard, self.latest, where + message))

    def observe(self, number: int, via: str) -> None:
        latest = self.latest
        if latest is not None and number < latest:
            if not self._lower:
                self._lower = True
                self.report(
                    "lower",
                    f"{via} reported head {number:,}, below head {latest:,} already seen; "
                    "waiting for the node to catch up",
                )
            return
        self._lower = False
        if latest is None or number > latest:
            self.latest = number
            self.changed.set()

    def fail(self, exc: BaseException) -> None:
        self.error = exc
        self.changed.set()


def _check_seconds(value: Any, name: str, *, minimum: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= minimum:
        raise ConfigError(f"watch_heads {name}={short_repr(value)} must be a number of seconds >= {minimum}")
    return float(value)


def watch_heads(
    client_or_url: HeadSource | str,
    shard: int | None = None,
    *,
    ws_url: str | None = None,
    namespace: Literal["hmy", "eth"] = "hmy",
    poll_interval: float = 1.0,
    max_backoff: float = 30.0,
    stall_after: float = 30.0,
    connect_timeout: float = 10.0,
    headers: Mapping[str, str] | None = None,
    on_report: Callable[[HeadReport], None] | None = None,
) -> AsyncGenerator[int, None]:
    """Yield a shard's head block number now and each time it advances, until closed.

    Parameters
    ----------
    client_or_url
        A :class:`~hmyframe.rpc.Client` (or :class:`~hmyframe.rpc.pool.EndpointPool`), used
        for ``hmy_blockNumber``, or a node's HTTP URL (a client is opened and closed here).
    shard
        The shard watched; ``None`` for the client's home shard.
    ws_url
        ``None`` (default): poll. A ``ws://`` or ``wss://`` URL: subscribe to ``newHeads``
        there. ``"auto"``: the ``ws`` URL the node's sharding structure lists for the shard,
        polling if it lists none.
    namespace
        ``"hmy"`` (``hmy_subscribe``, every node) or ``"eth"`` (``eth_subscribe``).
    poll_interval
        Seconds between ``hmy_blockNumber`` calls when polling (and while the WebSocket is
        reconnecting); also the first reconnection delay.
    max_backoff
        Longest wait between attempts after failures.
    stall_after
        Seconds without a new head before a ``stalled`` report (repeated every as many
        seconds while it lasts).
    connect_timeout
        Seconds allowed to open the WebSocket and get the subscription id.
    headers
        HTTP headers for the WebSocket handshake (an ``Authorization`` header...).
    on_report
        Called with each :class:`HeadReport`; default: logged on ``hmyframe.heads``.

    Returns
    -------
    AsyncGenerator[int, None]
        Head block numbers, strictly increasing; ``aclose()`` (or leaving ``async for``)
        stops the source and closes the socket (and the client, if opened here).

    Raises
    ------
    ConfigError
        Bad arguments (the message names the value).
    WrongChainError
        The WebSocket's headers carry another ``shardID`` than ``shard``.
    MethodNotFoundError
        The node does not serve ``hmy_blockNumber``.

    Examples
    --------
    >>> async def follow(url: str) -> None:                      # doctest: +SKIP
    ...     async for head in watch_heads(url, 0, ws_url="auto", poll_interval=2):
    ...         print("head is now", head)
    """
    shard_value: object = shard
    if shard_value is not None and (
        isinstance(shard_value, bool) or not isinstance(shard_value, int) or shard_value < 0
    ):
        raise ConfigError(
            f"watch_heads shard={short_repr(shard)} must be a shard id (an integer >= 0) or None"
        )
    url_value: object = ws_url
    if url_value is not None and (
        not isinstance(url_value, str)
        or (url_value != "auto" and not url_value.startswith(("ws://", "wss://")))
    ):
        raise ConfigError(
            f"watch_heads ws_url={short_repr(ws_url)} must be a ws:// or wss:// URL, 'auto' or None (polling)"
        )
    if namespace not in ("hmy", "eth"):
        raise ConfigError(f"watch_heads namespace={short_repr(namespace)} must be 'hmy' or 'eth'")
    interval = _check_seconds(poll_interval, "poll_interval", minimum=0.001)
    backoff = _check_seconds(max_backoff, "max_backoff", minimum=interval)
    stall = _check_seconds(stall_after, "stall_after", minimum=0.001)
    connect = _check_seconds(connect_timeout, "connect_timeout", minimum=0.001)

    source_value: object = client_or_url
    if not isinstance(source_value, str) and not hasattr(source_value, "request"):
        raise ConfigError(
            f"watch_heads client_or_url={short_repr(client_or_url)} must be an HTTP URL or a Client"
        )
    heads = _Heads(shard, on_report if on_report is not None else _log_report)
    return _watch(
        client_or_url,
        ws_url,
        heads,
        lambda client: _Source(
            client, shard, heads, _Settings(interval, backoff, stall, connect, namespace, dict(headers or {}))
        ),
        stall,
    )


async def _watch(
    client_or_url: HeadSource | str,
    ws_url: str | None,
    heads: _Heads,
    make_source: Callable[[HeadSource], _Source],
    stall: float,
) -> AsyncGenerator[int, None]:
    if isinstance(client_or_url, str):
        from hmyframe.rpc.client import Client

        client: HeadSource = await Client(client_or_url).__aenter__()
    else:
        client = client_or_url
    task = asyncio.get_running_loop().create_task(make_source(client).run(ws_url))
    try:
        async for head in _iterate(heads, stall):
            yield head
    finally:
        task.cancel()
        with contextlib.suppress(BaseException):
            await task
        if isinstance(client_or_url, str):
            await client.aclose()


async def _iterate(heads: _Heads, stall_after: float) -> AsyncIterator[int]:
    loop = asyncio.get_running_loop()
    last: int | None = None
    since = loop.time()
    stalled = False
    while True:
        heads.changed.clear()
        if heads.error is not None:
            raise heads.error
        latest = heads.latest
        if latest is not None and (last is None or latest > last):
            if stalled:
                heads.report("resumed", f"head advanced to {latest:,} after {loop.time() - since:,.1f} s")
            last, since, stalled = latest, loop.time(), False
            yield latest
            continue
        waited = loop.time() - since
        timeout = stall_after * (int(waited // stall_after) + 1) - waited
        try:
            # asyncio.timeout, not wait_for: on 3.11 wait_for returns the wait's result when a
            # cancellation and a set() land together, swallowing the cancellation (the follow
            # being stopped would then wait for heads forever)
            async with asyncio.timeout(max(timeout, 0.001)):
                await heads.changed.wait()
        except TimeoutError:
            stalled = True
            what = "no head yet" if last is None else f"head still {last:,}"
            heads.report("stalled", f"{what} after {loop.time() - since:,.1f} s; waiting")


@dataclass(frozen=True, slots=True)
class _Settings:
    """The checked timing and subscription arguments of :func:`watch_heads`."""

    interval: float
    backoff: float
    stall: float
    connect: float
    namespace: str
    headers: Mapping[str, str]


class _Source:
    """The task that feeds :class:`_Heads`: a WebSocket subscription and/or polling."""

    def __init__(self, client: HeadSource, shard: int | None, heads: _Heads, settings: _Settings) -> None:
        self.client = client
        self.shard = shard
        self.heads = heads
        self.interval = settings.interval
        self.backoff = settings.backoff
        self.stall = settings.stall
        self.connect = settings.connect
        self.namespace = settings.namespace
        self.headers = dict(settings.headers)

    async def run(self, ws_url: str | None) -> None:
        try:
            if ws_url == "auto":
                ws_url = await self._listed_ws_url()
            if ws_url is None:
                await self._poll_forever()
            else:
                await self._ws_forever(ws_url)
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # noqa: BLE001 - handed to the iterator, which raises it
            self.heads.fail(exc)

    async def _listed_ws_url(self) -> str | None:
        while True:
            try:
                shards = await self.client.shards()
                break
            except (ConfigError, MethodNotFoundError):
                raise
            except HmyframeError as exc:
                self.heads.report("poll_failed", f"hmy_getShardingStructure failed: {exc}; retrying")
                await asyncio.sleep(self.backoff)
        for info in shards:
            if (info.current if self.shard is None else info.shard_id == self.shard) and info.ws:
                return str(info.ws)
        return None

    # ------------------------------------------------------------------ polling

    async def _poll_once(self) -> int:
        value = await self.client.request("hmy_blockNumber", [], shard=self.shard)
        return _block_number(value, "hmy_blockNumber", self.client.url)

    async def _poll_forever(self) -> None:
        failures = 0
        while True:
            try:
                head = await self._poll_once()
            except (ConfigError, MethodNotFoundError):
                raise
            except HmyframeError as exc:
                failures += 1
                delay = min(self.backoff, self.interval * 2**failures)
                self.heads.report("poll_failed", f"hmy_blockNumber failed: {exc}; next try in {delay:,.1f} s")
                await asyncio.sleep(delay)
                continue
            failures = 0
            self.heads.observe(head, "hmy_blockNumber")
            await asyncio.sleep(self.interval)

    async def _poll_during(self, seconds: float) -> None:
        """Keep the head current over HTTP for ``seconds`` (while the WebSocket is down)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        while True:
            with contextlib.suppress(HmyframeError):
                self.heads.observe(await self._poll_once(), "hmy_blockNumber")
            left = end - loop.time()
            if left <= 0:
                return
            await asyncio.sleep(min(self.interval, left))

    # ------------------------------------------------------------------ WebSocket

    async def _ws_forever(self, url: str) -> None:
        delay = self.interval
        down = False
        async with aiohttp.ClientSession(headers=self.headers) as session:
            while True:
                try:
                    await self._ws_session(session, url, reconnected=down)
                    reason = "the node closed the connection"
                except _Unsupported as exc:
                    self.heads.report("unsupported", f"{exc}; polling hmy_blockNumber instead")
                    await self._poll_forever()
                    return
                except aiohttp.WSServerHandshakeError as exc:
                    if exc.status < 500 and exc.status != 429:  # an HTTP answer: not a WebSocket endpoint
                        self.heads.report(
                            "unsupported",
                            f"{redact_url(url)} refused the WebSocket handshake (HTTP {exc.status}); "
                            "polling hmy_blockNumber instead",
                        )
                        await self._poll_forever()
                        return
                    reason = f"WebSocket handshake refused (HTTP {exc.status})"
                except (aiohttp.ClientError, OSError, TimeoutError, ConnectionFailedError) as exc:
                    reason = str(exc) or type(exc).__name__
                except ResponseShapeError as exc:
                    reason = str(exc)
                except _Silent:
                    delay = self.interval
                    continue
                down = True
                self.heads.report(
                    "disconnected",
                    f"WebSocket {redact_url(url)}: {reason}; reconnecting in {delay:,.1f} s "
                    "(polling hmy_blockNumber meanwhile)",
                )
                await self._poll_during(delay)
                delay = min(self.backoff, delay * 2)

    async def _ws_session(self, session: aiohttp.ClientSession, url: str, *, reconnected: bool) -> None:
        heartbeat = max(1.0, min(self.stall, 15.0))
        async with asyncio.timeout(self.connect):  # not wait_for: it can swallow a cancellation (3.11)
            ws = await session.ws_connect(url, heartbeat=heartbeat)
        async with ws:
            async with asyncio.timeout(self.connect):
                sub_id = await self._subscribe(ws, url)
            if reconnected:
                self.heads.report("connected", f"WebSocket {redact_url(url)} subscribed again")
            # newHeads announces blocks appended from now on: the current head comes from HTTP.
            with contextlib.suppress(HmyframeError):
                self.heads.observe(await self._poll_once(), "hmy_blockNumber")
            while True:
                try:
                    msg = await ws.receive(timeout=self.stall)
                except TimeoutError:
                    await self._check_silence(url)
                    continue
                if msg.type == aiohttp.WSMsgType.TEXT:
                    self._notification(msg.data.encode(), sub_id, url)
                elif msg.type == aiohttp.WSMsgType.BINARY:
                    self._notification(bytes(msg.data), sub_id, url)
                elif msg.type == aiohttp.WSMsgType.ERROR:
                    raise ConnectionFailedError(f"WebSocket error: {ws.exception()}", endpoint=url)
                else:
                    return  # closed

    async def _check_silence(self, url: str) -> None:
        """No notification for ``stall`` seconds: a stalled node, or a dead subscription?"""
        try:
            head = await self._poll_once()
        except HmyframeError:
            return
        latest = self.heads.latest
        if latest is not None and head > latest:
            self.heads.observe(head, "hmy_blockNumber")
            self.heads.report(
                "silent",
                f"WebSocket {redact_url(url)} sent no head for {self.stall:,.1f} s while hmy_blockNumber "
                f"reached {head:,}; subscribing again",
            )
            raise _Silent

    async def _subscribe(self, ws: aiohttp.ClientWebSocketResponse, url: str) -> str:
        method = f"{self.namespace}_subscribe"
        await ws.send_str(f'{{"jsonrpc":"2.0","id":1,"method":"{method}","params":["newHeads"]}}')
        while True:
            msg = await ws.receive()
            if msg.type not in (aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY):
                raise ConnectionFailedError(
                    "WebSocket closed before answering the subscription", endpoint=url
                )
            data = msg.data.encode() if isinstance(msg.data, str) else bytes(msg.data)
            try:
                answer = _MESSAGE.decode(data)
            except msgspec.DecodeError:
                raise ResponseShapeError(method, "$", data[:80], "a JSON-RPC message", endpoint=url) from None
            if answer.id != 1:
                continue
            if answer.error is not None:
                error = answer.error if isinstance(answer.error, dict) else {}
                code, text = error.get("code"), error.get("message", "")
                if code in (-32601, -32000):
                    raise _Unsupported(f"{method} newHeads refused at {redact_url(url)}: {code} {text}")
                raise ResponseShapeError(method, "error", answer.error, "a subscription id", endpoint=url)
            if not isinstance(answer.result, str) or not answer.result:
                raise ResponseShapeError(method, "result", answer.result, "a subscription id", endpoint=url)
            return answer.result

    def _notification(self, data: bytes, sub_id: str, url: str) -> None:
        what = f"{self.namespace}_subscription"
        try:
            message = _MESSAGE.decode(data)
            if message.method != what:
                return  # an answer or another subscription's notification
            params = _NOTIFY.decode(message.params)
        except msgspec.DecodeError:
            raise ResponseShapeError(what, "$", data[:80], "a JSON-RPC notification", endpoint=url) from None
        if params.subscription != sub_id:
            return
        header = params.result
        if not isinstance(header, dict):
            raise ResponseShapeError(what, "params.result", header, "a block header object", endpoint=url)
        number = _block_number(header.get("number"), what, url)
        shard_id = header.get("shardID")
        if self.shard is not None and isinstance(shard_id, int) and shard_id != self.shard:
            raise WrongChainError(
                f"WebSocket {redact_url(url)} sends heads of shard {shard_id}, not shard {self.shard}; "
                "pass the ws URL of the shard watched"
            )
        self.heads.observe(number, "newHeads")


class _Silent(Exception):
    """The subscription went silent while HTTP shows new heads: subscribe again."""
