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
never yielded), a lost connection, each failed poll (and the first answer after them). Reports
go to ``on_report`` (default: the ``hmyframe.heads`` logger). Only the caller's mistakes raise:
bad arguments (:class:`~hmyframe.errors.ConfigError`) and a WebSocket URL serving another shard
(:class:`~hmyframe.errors.WrongChainError`), plus a node that does not serve
``hmy_blockNumber`` at all (:class:`~hmyframe.errors.MethodNotFoundError`).

Following several shards (``hmyframe.follow``, ``export(follow=True)``, ``plot.live``) asks a
:class:`HeadSource` for each shard's heads: :class:`ShardHeads` is the one built in, every
shard through :func:`watch_heads` (``heads="auto"``, ``"ws"`` or ``"poll"``:
:data:`HEADS_MODES`, checked by :func:`check_heads`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, get_args

import aiohttp
import msgspec

from hmyframe._lazy import tls_for
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

__all__ = [
    "HEADS_MODES",
    "HeadReport",
    "HeadSource",
    "HeadsClient",
    "HeadsMode",
    "ReportKind",
    "ShardHeads",
    "check_heads",
    "watch_heads",
]

_LOG = logging.getLogger("hmyframe.heads")

#: The methods :func:`watch_heads` may poll.
PollMethod = Literal["hmy_blockNumber", "hmyv2_blockNumber"]

#: What a :class:`HeadReport` says.
ReportKind = Literal[
    "stalled",  # no new head for stall_after seconds (repeated while it lasts)
    "resumed",  # a new head after a stall
    "lower",  # the node reported a head below one already seen (once per episode)
    "poll_failed",  # hmy_blockNumber failed after the client's retries; backing off
    "answering",  # hmy_blockNumber answers again after failures
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


class HeadsClient(Protocol):
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
    client_or_url: HeadsClient | str,
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
    poll_method: PollMethod = "hmy_blockNumber",
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
    poll_method
        The method polled over HTTP: ``"hmy_blockNumber"`` (hex, every node) or
        ``"hmyv2_blockNumber"`` (what a fetch's session asks).

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
    _check_target(client_or_url, shard, ws_url)
    settings = _settings(
        namespace, poll_interval, max_backoff, stall_after, connect_timeout, headers, poll_method
    )
    heads = _Heads(shard, on_report if on_report is not None else _log_report)
    return _watch(
        client_or_url, ws_url, heads, lambda client: _Source(client, shard, heads, settings), settings.stall
    )


def _check_target(client_or_url: object, shard: object, ws_url: object) -> None:
    """Refuse a bad client, shard or WebSocket URL of :func:`watch_heads` (before any request)."""
    if shard is not None and (isinstance(shard, bool) or not isinstance(shard, int) or shard < 0):
        raise ConfigError(
            f"watch_heads shard={short_repr(shard)} must be a shard id (an integer >= 0) or None"
        )
    if ws_url is not None and (
        not isinstance(ws_url, str) or (ws_url != "auto" and not ws_url.startswith(("ws://", "wss://")))
    ):
        raise ConfigError(
            f"watch_heads ws_url={short_repr(ws_url)} must be a ws:// or wss:// URL, 'auto' or None (polling)"
        )
    if not isinstance(client_or_url, str) and not hasattr(client_or_url, "request"):
        raise ConfigError(
            f"watch_heads client_or_url={short_repr(client_or_url)} must be an HTTP URL or a Client"
        )


def _settings(
    namespace: object,
    poll_interval: object,
    max_backoff: object,
    stall_after: object,
    connect_timeout: object,
    headers: Mapping[str, str] | None,
    poll_method: object,
) -> _Settings:
    """The timing and subscription arguments of :func:`watch_heads`, checked."""
    if namespace not in ("hmy", "eth"):
        raise ConfigError(f"watch_heads namespace={short_repr(namespace)} must be 'hmy' or 'eth'")
    if poll_method not in get_args(PollMethod):
        raise ConfigError(
            f"watch_heads poll_method={short_repr(poll_method)} must be one of "
            + ", ".join(map(repr, get_args(PollMethod)))
        )
    interval = _check_seconds(poll_interval, "poll_interval", minimum=0.001)
    return _Settings(
        interval=interval,
        backoff=_check_seconds(max_backoff, "max_backoff", minimum=interval),
        stall=_check_seconds(stall_after, "stall_after", minimum=0.001),
        connect=_check_seconds(connect_timeout, "connect_timeout", minimum=0.001),
        namespace=str(namespace),
        headers=dict(headers or {}),
        poll_method=str(poll_method),
    )


async def _watch(
    client_or_url: HeadsClient | str,
    ws_url: str | None,
    heads: _Heads,
    make_source: Callable[[HeadsClient], _Source],
    stall: float,
) -> AsyncGenerator[int, None]:
    if isinstance(client_or_url, str):
        from hmyframe.rpc.client import Client

        client: HeadsClient = await Client(client_or_url).__aenter__()
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
            heads.report("stalled", f"{what} after {loop.time() - since:,.1f} s; no new block, waiting")


@dataclass(frozen=True, slots=True)
class _Settings:
    """The checked timing and subscription arguments of :func:`watch_heads`."""

    interval: float
    backoff: float
    stall: float
    connect: float
    namespace: str
    headers: Mapping[str, str]
    poll_method: str


class _Source:
    """The task that feeds :class:`_Heads`: a WebSocket subscription and/or polling."""

    def __init__(self, client: HeadsClient, shard: int | None, heads: _Heads, settings: _Settings) -> None:
        self.client = client
        self.shard = shard
        self.heads = heads
        self.interval = settings.interval
        self.backoff = settings.backoff
        self.stall = settings.stall
        self.connect = settings.connect
        self.namespace = settings.namespace
        self.headers = dict(settings.headers)
        self.method = settings.poll_method

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
        return await listed_ws_url(self.client, self.shard, self.heads.report, self.interval, self.backoff)

    # ------------------------------------------------------------------ polling

    async def _poll_once(self) -> int:
        value = await self.client.request(self.method, [], shard=self.shard)
        return _block_number(value, self.method, self.client.url)

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
                self.heads.report(
                    "poll_failed",
                    f"cannot read the head ({self.method} failed: {exc}); asking again in {delay:,.1f} s",
                )
                await asyncio.sleep(delay)
                continue
            if failures:
                self.heads.report("answering", f"the node answers again (head {head:,})")
                failures = 0
            self.heads.observe(head, self.method)
            await asyncio.sleep(self.interval)

    async def _poll_during(self, seconds: float) -> None:
        """Keep the head current over HTTP for ``seconds`` (while the WebSocket is down)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        while True:
            with contextlib.suppress(HmyframeError):
                self.heads.observe(await self._poll_once(), self.method)
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
                    self.heads.report("unsupported", f"{exc}; polling {self.method} instead")
                    await self._poll_forever()
                    return
                except aiohttp.WSServerHandshakeError as exc:
                    if exc.status < 500 and exc.status != 429:  # an HTTP answer: not a WebSocket endpoint
                        self.heads.report(
                            "unsupported",
                            f"{redact_url(url)} refused the WebSocket handshake (HTTP {exc.status}); "
                            f"polling {self.method} instead",
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
                    f"(polling {self.method} meanwhile)",
                )
                await self._poll_during(delay)
                delay = min(self.backoff, delay * 2)

    async def _ws_session(self, session: aiohttp.ClientSession, url: str, *, reconnected: bool) -> None:
        heartbeat = max(1.0, min(self.stall, 15.0))
        async with asyncio.timeout(self.connect):  # not wait_for: it can swallow a cancellation (3.11)
            ws = await session.ws_connect(url, heartbeat=heartbeat, ssl=tls_for(url))
        async with ws:
            async with asyncio.timeout(self.connect):
                sub_id = await self._subscribe(ws, url)
            if reconnected:
                self.heads.report("connected", f"WebSocket {redact_url(url)} subscribed again")
            # newHeads announces blocks appended from now on: the current head comes from HTTP.
            with contextlib.suppress(HmyframeError):
                self.heads.observe(await self._poll_once(), self.method)
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
            self.heads.observe(head, self.method)
            self.heads.report(
                "silent",
                f"WebSocket {redact_url(url)} sent no head for {self.stall:,.1f} s while {self.method} "
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


async def listed_ws_url(
    client: HeadsClient,
    shard: int | None,
    report: Callable[[ReportKind, str], None],
    interval: float,
    backoff: float,
) -> str | None:
    """The ``ws://`` / ``wss://`` URL the node's sharding structure lists for ``shard`` (``None``:
    the client's home shard), or ``None`` if it lists none.

    The structure is asked again, with exponential back-off from ``interval`` up to ``backoff``,
    while the node cannot answer (each failure reported as ``poll_failed``); a
    :class:`~hmyframe.errors.ConfigError` or :class:`~hmyframe.errors.MethodNotFoundError` raises.
    """
    failures = 0
    while True:
        try:
            shards = await client.shards()
            break
        except (ConfigError, MethodNotFoundError):
            raise
        except HmyframeError as exc:
            failures += 1
            delay = min(backoff, interval * 2**failures)
            report(
                "poll_failed", f"cannot read the sharding structure ({exc}); asking again in {delay:,.1f} s"
            )
            await asyncio.sleep(delay)
    for info in shards:
        if (info.current if shard is None else info.shard_id == shard) and str(info.ws).startswith(
            ("ws://", "wss://")
        ):
            return str(info.ws)
    return None


# --------------------------------------------------------------------------- several shards

#: How a follower learns new heads: ``"auto"`` (a shard's WebSocket URL when its sharding
#: structure lists one, else polling), ``"ws"`` (WebSocket, required) or ``"poll"``.
HeadsMode = Literal["auto", "ws", "poll"]
#: The modes of :data:`HeadsMode`.
HEADS_MODES: tuple[str, ...] = get_args(HeadsMode)


class HeadSource(Protocol):
    """Where a follower's new heads come from (``heads=`` of ``hmyframe.follow`` and friends).

    ``heads(shard)`` yields the shard's head block number each time one is observed; a source
    may yield the same or a lower one again (the follower judges), and waits out a node that
    cannot answer (reporting it) rather than raising. :class:`ShardHeads` is the built-in one.
    """

    def heads(self, shard: int) -> AsyncIterator[int]: ...


def check_heads(heads: object, poll: object) -> None:
    """Refuse a bad ``heads`` (a mode of :data:`HEADS_MODES` or a :class:`HeadSource`) or ``poll``
    (seconds > 0) before any request.

    Raises
    ------
    ConfigError
        Naming the bad value.
    """
    if isinstance(poll, bool) or not isinstance(poll, int | float) or not poll > 0:
        raise ConfigError(f"poll must be a number of seconds > 0, got {short_repr(poll)}")
    if (isinstance(heads, str) or not hasattr(heads, "heads")) and heads not in HEADS_MODES:
        raise ConfigError(
            f"heads must be one of {', '.join(map(repr, HEADS_MODES))} or a HeadSource, "
            f"got {short_repr(heads)}"
        )


@dataclass
class ShardHeads:
    """The built-in :class:`HeadSource`: each shard's heads through :func:`watch_heads`.

    ``heads(shard)`` subscribes to ``newHeads`` at the WebSocket URL the shard's entry of the
    node's sharding structure lists (``mode="auto"`` or ``"ws"``; a head within milliseconds of
    its block, the socket re-opened with back-off and the head polled meanwhile), or polls
    ``poll_method`` every ``every`` seconds (``mode="poll"``, or ``"auto"`` where no URL is
    listed). Every :class:`HeadReport` (a failed poll, a lost socket, a stall, a lower head) goes
    to ``on_report``.

    Attributes
    ----------
    client
        The client (its shards are reached at the URLs the node lists).
    mode
        ``"auto"``, ``"ws"`` (a shard listing no WebSocket URL is a
        :class:`~hmyframe.errors.ConfigError`) or ``"poll"``.
    every
        Seconds between polls of the head (when polling, and while a socket is down).
    stall_after
        Seconds without a new head before the node is reported stalled.
    max_backoff
        Longest wait between attempts at a node that does not answer.
    poll_method
        What is polled (see :func:`watch_heads`).
    on_report
        Called with each report (default: logged on ``hmyframe.heads``).
    used
        Per shard, the WebSocket URL followed, or ``"poll"``.
    """

    client: HeadsClient
    mode: HeadsMode = "auto"
    every: float = 1.0
    stall_after: float = 30.0
    max_backoff: float = 30.0
    poll_method: PollMethod = "hmy_blockNumber"
    on_report: Callable[[HeadReport], None] = _log_report
    used: dict[int, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_heads(self.mode, self.every)

    async def heads(self, shard: int) -> AsyncIterator[int]:
        """Yield ``shard``'s head now and each time it advances (see :class:`HeadSource`)."""
        url = None if self.mode == "poll" else await self._ws_url(shard)
        self.used[shard] = url or "poll"
        watched = watch_heads(
            self.client,
            shard,
            ws_url=url,
            poll_interval=self.every,
            max_backoff=max(self.max_backoff, self.every),
            stall_after=self.stall_after,
            on_report=self.on_report,
            poll_method=self.poll_method,
        )
        try:
            async for head in watched:
                yield head
        finally:
            await watched.aclose()

    async def _ws_url(self, shard: int) -> str | None:
        def report(kind: ReportKind, message: str) -> None:
            self.on_report(HeadReport(kind, shard, None, f"shard {shard}: {message}"))

        url = await listed_ws_url(self.client, shard, report, self.every, max(self.max_backoff, self.every))
        if url is None and self.mode == "ws":
            listed = {info.shard_id: info.ws for info in await self.client.shards()}
            raise ConfigError(
                f"heads='ws' needs a WebSocket URL for shard {shard}, but the node's sharding structure "
                f"lists {short_repr(listed.get(shard, 'no such shard'))}: use heads='poll' (--heads poll)"
            )
        return url
