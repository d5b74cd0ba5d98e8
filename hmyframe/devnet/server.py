"""The devnet's HTTP side: one aiohttp app and port per shard, plus one trace port per shard.

Protocol behaviour follows the node's go-ethereum-derived HTTP server (RPC notes §3, §4):

* ``POST`` with ``Content-Type`` ``application/json``, ``application/json-rpc`` or
  ``application/jsonrequest`` (parameters such as ``; charset=utf-8`` allowed); any other
  type gets **415** ``invalid content type, only application/json is supported``;
* a body over 5 MiB gets **413** ``content length too large (N>5242880)``; ``PUT`` and
  ``DELETE`` get **405**; ``GET`` with an empty body and no query gets 200 and an empty body;
* a JSON array body is a batch, answered in request order; items without ``id`` are
  notifications (no answer; all notifications -> empty body); ``[]`` gets a single
  ``-32600 "empty batch"`` object; items fail independently;
* malformed JSON gets ``-32700 "parse error"`` (id null); valid JSON that is not a request
  object gets ``-32600 "invalid request"``;
* responses are gzipped when the client sends ``Accept-Encoding: gzip``.

Around that sit the optional global per-node rate limit (``rpc_rate_limit``; the real node
has one at 1000 req/s by default, the devnet has none unless asked; which methods wait on it,
and how, is :mod:`hmyframe.devnet.limits`), an added latency per request (``latency_ms``), fault
injection (:mod:`hmyframe.devnet.faults`) and request statistics (:mod:`hmyframe.devnet.stats`).

As the node's Go HTTP server, a request whose client drops the connection is cancelled (its
rate-limit waits end and give their tokens back: Go cancels the request's context), and a
request that takes longer than ``write_timeout`` (the node's ``HTTP.WriteTimeout``, 30 s) gets
no answer: its connection is closed when it is done.
"""

from __future__ import annotations

import asyncio
import gzip
import logging
import random
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgspec
from aiohttp import web

from hmyframe.devnet.faults import FaultInjector, RequestFaults
from hmyframe.devnet.node import (
    VALIDATOR_RATE_LIMIT,
    ChainAPI,
    NodeLimiter,
    RateLimit,
    RpcFault,
    ShardNode,
    TokenBucket,
)
from hmyframe.devnet.receipts import LogHashes
from hmyframe.devnet.render import BlockCache, Profile
from hmyframe.devnet.stats import DevnetStats, endpoint_name
from hmyframe.devnet.websocket import NAMESPACES, HeadHub, Intercept, WsEndpoint, http_intercept
from hmyframe.errors import ConfigError

__all__ = [
    "ACCEPTED_CONTENT_TYPES",
    "MAX_REQUEST_BYTES",
    "WS_PORT_OFFSET",
    "DevnetServer",
    "RateLimit",
    "ServerConfig",
]

#: A shard's WebSocket port is its HTTP port + 300, as on the node (base + 800 vs base + 500).
WS_PORT_OFFSET = 300

#: The node's request body limit (``maxRequestContentLength``).
MAX_REQUEST_BYTES = 5 * 1024 * 1024
#: Content types the node accepts.
ACCEPTED_CONTENT_TYPES = frozenset({"application/json", "application/json-rpc", "application/jsonrequest"})

_LOG = logging.getLogger("hmyframe.devnet")
_JSON_HEADERS = {"Content-Type": "application/json"}
_TEXT_HEADERS = {"Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff"}


class _Call(msgspec.Struct):
    """One JSON-RPC request object, with its id kept as raw JSON bytes."""

    jsonrpc: Any = None
    id: msgspec.Raw = msgspec.Raw(b"")
    method: Any = None
    params: Any = None


_CALL_DECODER = msgspec.json.Decoder(_Call)
_RAW_LIST_DECODER = msgspec.json.Decoder(list[msgspec.Raw])
_ANY_DECODER = msgspec.json.Decoder()
_STR_ENCODER = msgspec.json.Encoder()


def _error_bytes(id_json: bytes, code: int, message: str) -> bytes:
    return (
        b'{"jsonrpc":"2.0","id":'
        + id_json
        + b',"error":{"code":'
        + str(code).encode()
        + b',"message":'
        + _STR_ENCODER.encode(message)
        + b"}}"
    )


def _result_bytes(id_json: bytes, result: bytes) -> bytes:
    return b'{"jsonrpc":"2.0","id":' + id_json + b',"result":' + result + b"}"


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """How a :class:`DevnetServer` serves.

    Attributes
    ----------
    host
        Interface to bind (``127.0.0.1``).
    port
        0 for ephemeral ports; otherwise shard ``s`` listens on ``port + 2s``, its trace
        port on ``port + 2s + 1`` and its WebSocket port on ``port + 300 + 2s``.
    profile
        ``"current"`` or ``"legacy"``.
    latency_ms
        Added latency per HTTP request, in milliseconds.
    block_cost_ms
        Server time per block read, in milliseconds (see :class:`~hmyframe.devnet.node.ShardNode`).
    validator_rate_limit
        The limiter on ``getAllValidatorInformation*`` (``None``: off).
    rpc_rate_limit
        The node's global limiter (``None``: off) on the methods it limits
        (:func:`~hmyframe.devnet.limits.limited_by`; each block of ``getBlocks`` counts).
    write_timeout
        Seconds a request may take before its answer is dropped and its connection closed (the
        node's ``HTTP.WriteTimeout``: 30 s); ``None``: never.
    cache_bytes
        Size bound of the rendered-bytes cache (shared by all shards).
    gzip_level
        Compression level used when the client accepts gzip; 0 never compresses.
    explorer
        The node keeps the explorer index (``getTransactionsHistory`` and friends); ``False``
        answers them as a node without it does.
    log_hashes
        Which hash logs carry in ``hmy_``/``hmyv2_`` answers (the node's receipts-cache state).
    rpc_deny
        Method name patterns the nodes do not serve (their RPC method filter).
    """

    host: str = "127.0.0.1"
    port: int = 0
    profile: Profile = "current"
    latency_ms: float = 0.0
    block_cost_ms: float = 0.0
    validator_rate_limit: RateLimit | None = VALIDATOR_RATE_LIMIT
    rpc_rate_limit: RateLimit | None = None
    write_timeout: float | None = 30.0
    cache_bytes: int = 128 * 1024 * 1024
    gzip_level: int = 1
    explorer: bool = True
    log_hashes: LogHashes = "mainnet"
    rpc_deny: tuple[str, ...] = ()


class _Endpoint:
    """The request handler of one port (a shard's normal or trace port)."""

    def __init__(self, node: ShardNode, *, trace: bool, server: DevnetServer, config: ServerConfig) -> None:
        self.node = node
        self.trace = trace
        self.server = server
        self.config = config
        self.name = endpoint_name(node.shard, trace)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        stats = self.server.stats
        with stats.in_flight(self.name):
            return await self._handle(request, stats)

    async def _handle(self, request: web.Request, stats: DevnetStats) -> web.StreamResponse:
        method = request.method
        if method == "GET" and not request.can_read_body and not request.query_string:
            return self._plain(200, b"", stats, json=False)
        if method in ("PUT", "DELETE"):
            return self._text(405, "method not allowed", stats)
        length = request.content_length
        if length is not None and length > MAX_REQUEST_BYTES:
            return self._text(413, f"content length too large ({length}>{MAX_REQUEST_BYTES})", stats)
        if method == "OPTIONS":
            return self._plain(200, b"", stats, json=False)
        if request.content_type not in ACCEPTED_CONTENT_TYPES:
            return self._text(415, "invalid content type, only application/json is supported", stats)
        body = await self._read_body(request)
        if body is None:
            return self._text(413, f"content length too large (>{MAX_REQUEST_BYTES})", stats)
        return await self._serve_body(request, body, stats)

    async def _read_body(self, request: web.Request) -> bytes | None:
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = await request.content.read(1 << 20)
            if not chunk:
                break
            total += len(chunk)
            if total > MAX_REQUEST_BYTES:
                return None
            chunks.append(chunk)
        return b"".join(chunks)

    def _parse(self, body: bytes) -> tuple[list[_Call | None] | None, _Call | None, tuple[int, str] | None]:
        """Split a body into a batch, a single call or an envelope error (code, message)."""
        batch: list[_Call | None] | None = None
        single: _Call | None = None
        envelope_error: tuple[int, str] | None = None
        if body.lstrip()[:1] == b"[":
            try:
                raws = _RAW_LIST_DECODER.decode(body)
            except msgspec.DecodeError:
                envelope_error = (-32700, "parse error")
            else:
                batch = [self._decode_call(raw) for raw in raws]
        else:
            try:
                single = _CALL_DECODER.decode(body)
            except msgspec.DecodeError:
                envelope_error = (
                    (-32700, "parse error") if not self._is_json(body) else (-32600, "invalid request")
                )
            if single is not None and not self._valid_call(single):
                envelope_error, single = (-32600, "invalid request"), None
        return batch, single, envelope_error

    async def _serve_body(self, request: web.Request, body: bytes, stats: DevnetStats) -> web.StreamResponse:
        started = asyncio.get_running_loop().time()
        batch, single, envelope_error = self._parse(body)
        calls: list[_Call | None] = batch if batch is not None else ([single] if single is not None else [])
        methods = [c.method if c is not None and isinstance(c.method, str) else None for c in calls]
        stats.record_request(
            self.name,
            bytes_in=len(body),
            methods=[m for m in methods if m is not None],
            batch_size=len(batch) if batch is not None else None,
        )

        faults = self.server.faults.decide(shard=self.node.shard, trace=self.trace, methods=methods)
        if faults.any:
            stats.record_faults(self.name, faults.fired)
            if faults.delay > 0:
                await asyncio.sleep(faults.delay)
            if faults.reset:
                return self._reset(request, stats)
            if faults.status is not None:
                rule = faults.status
                headers = dict(_TEXT_HEADERS)
                if rule.retry_after is not None:
                    value = rule.retry_after
                    headers["Retry-After"] = str(int(value)) if float(value).is_integer() else str(value)
                return self._plain(
                    rule.status, f"injected HTTP {rule.status}\n".encode(), stats, headers=headers
                )
        if self.config.latency_ms > 0:
            await asyncio.sleep(self.config.latency_ms / 1000.0)

        errors: list[int] = []
        payload = await self._payload(batch, single, envelope_error, faults, errors, http_intercept)
        if faults.truncate and payload:
            payload = payload[: max(1, len(payload) // 2)]
        timeout = self.config.write_timeout
        if timeout is not None and asyncio.get_running_loop().time() - started > timeout:
            # the node's HTTP server: the answer's writes are past their deadline; the client
            # sees the connection closed without an answer
            return self._reset(request, stats)
        return self._json(request, payload, stats, errors)

    async def answer_message(self, body: bytes, intercept: Intercept) -> bytes:
        """Answer one JSON-RPC message (a call or a batch) as the HTTP port would, without faults.

        ``intercept`` answers the calls it knows (the WebSocket port's subscriptions) and
        returns ``None`` for every other call, which the node answers.
        """
        batch, single, envelope_error = self._parse(body)
        return await self._payload(batch, single, envelope_error, RequestFaults(), [], intercept)

    async def _payload(
        self,
        batch: list[_Call | None] | None,
        single: _Call | None,
        envelope_error: tuple[int, str] | None,
        faults: RequestFaults,
        errors: list[int],
        intercept: Intercept | None,
    ) -> bytes:
        if envelope_error is not None:
            code, message = envelope_error
            errors.append(code)
            return _error_bytes(b"null", code, message) + b"\n"
        if batch is not None:
            if not batch:
                errors.append(-32600)
                return _error_bytes(b"null", -32600, "empty batch") + b"\n"
            answers: list[bytes] = []
            for index, call in enumerate(batch):
                answer = await self._answer(call, index, faults, errors, intercept)
                if answer is not None:
                    answers.append(answer)
            if faults.shuffle and len(answers) > 1:
                random.Random(faults.shuffle_seed).shuffle(answers)
            return (b"[" + b",".join(answers) + b"]\n") if answers else b""
        answer = await self._answer(single, 0, faults, errors, intercept)
        return answer + b"\n" if answer is not None else b""

    @staticmethod
    def _is_json(body: bytes) -> bool:
        try:
            _ANY_DECODER.decode(body)
        except msgspec.DecodeError:
            return False
        return True

    @staticmethod
    def _valid_call(call: _Call) -> bool:
        raw_id = bytes(call.id)
        if raw_id[:1] in (b"{", b"["):
            return False
        return isinstance(call.method, str) and call.method != ""

    def _decode_call(self, raw: msgspec.Raw) -> _Call | None:
        try:
            call = _CALL_DECODER.decode(raw)
        except msgspec.DecodeError:
            return None
        return call if self._valid_call(call) else None

    async def _answer(
        self,
        call: _Call | None,
        index: int,
        faults: RequestFaults,
        errors: list[int],
        intercept: Intercept | None = None,
    ) -> bytes | None:
        if call is None:
            errors.append(-32600)
            return _error_bytes(b"null", -32600, "invalid request")
        raw_id = bytes(call.id)
        notification = raw_id == b""
        id_json = raw_id or b"null"
        injected = faults.call_errors.get(index)
        if injected is not None:
            if notification:
                return None
            errors.append(injected[0])
            return _error_bytes(id_json, injected[0], injected[1])
        if intercept is not None:
            handled = await intercept(call.method, call.params, raw_id)
            if handled is not None:
                return None if notification else handled
        try:
            result = await self.node.call(call.method, call.params, trace_port=self.trace)
        except RpcFault as fault:
            if notification:
                return None
            errors.append(fault.code)
            return _error_bytes(id_json, fault.code, fault.message)
        except Exception:  # noqa: BLE001
            # The node recovers a panicking handler as -32000 "method handler crashed".
            _LOG.exception("devnet: %s(%r) crashed", call.method, call.params)
            if notification:
                return None
            errors.append(-32000)
            return _error_bytes(id_json, -32000, "method handler crashed")
        if notification:
            return None
        if len(self.server.faults):
            result, changed = self.server.faults.edit_logs(
                shard=self.node.shard, trace=self.trace, method=call.method, result=result
            )
            if changed:
                self.server.stats.record_faults(self.name, ["logs"])
        return _result_bytes(id_json, result)

    # -- responses ------------------------------------------------------------------------------

    def _json(
        self, request: web.Request, payload: bytes, stats: DevnetStats, errors: list[int]
    ) -> web.Response:
        headers = dict(_JSON_HEADERS)
        if (
            payload
            and self.config.gzip_level
            and "gzip" in request.headers.get("Accept-Encoding", "").lower()
        ):
            payload = gzip.compress(payload, compresslevel=self.config.gzip_level, mtime=0)
            headers["Content-Encoding"] = "gzip"
            headers["Vary"] = "Accept-Encoding"
        if "Origin" in request.headers:
            headers["Access-Control-Allow-Origin"] = "*"
        stats.record_response(self.name, status=200, bytes_out=len(payload), rpc_errors=errors)
        return web.Response(body=payload, status=200, headers=headers)

    def _text(self, status: int, message: str, stats: DevnetStats) -> web.Response:
        return self._plain(status, (message + "\n").encode(), stats, headers=dict(_TEXT_HEADERS))

    def _plain(
        self,
        status: int,
        body: bytes,
        stats: DevnetStats,
        *,
        json: bool = True,
        headers: dict[str, str] | None = None,
    ) -> web.Response:
        stats.record_response(self.name, status=status, bytes_out=len(body), rpc_errors=[])
        return web.Response(body=body, status=status, headers=headers if headers is not None else {})

    def _reset(self, request: web.Request, stats: DevnetStats) -> web.StreamResponse:
        stats.record_response(self.name, status=None, bytes_out=0, rpc_errors=[])
        transport = request.transport
        if transport is not None:
            sock = transport.get_extra_info("socket")
            if sock is not None:
                # SO_LINGER 0: close() sends RST instead of FIN, like a crashed proxy.
                try:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                except OSError:
                    pass
            transport.abort()
        raise asyncio.CancelledError


class DevnetServer:
    """The aiohttp apps of every shard (normal + trace + WebSocket port), serving one chain.

    Parameters
    ----------
    chain
        The chain to serve.
    config
        Ports, profile, limiters, latency, cache size.
    faults
        Fault rules (shared by every endpoint).
    stats
        Statistics sink (shared by every endpoint).
    """

    def __init__(
        self,
        chain: ChainAPI,
        config: ServerConfig,
        *,
        faults: FaultInjector | None = None,
        stats: DevnetStats | None = None,
    ) -> None:
        self.chain = chain
        self.config = config
        self.faults = faults if faults is not None else FaultInjector()
        self.stats = stats if stats is not None else DevnetStats()
        self.cache = BlockCache(config.cache_bytes)
        self.nodes: list[ShardNode] = []
        self.urls: list[str] = []
        self.trace_urls: list[str] = []
        self.ws_urls: list[str] = []
        self.heads = HeadHub(chain, config.profile)
        self._runners: list[web.AppRunner] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closing: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        """Bind every port and start serving on the running event loop."""
        if self._runners:
            raise ConfigError("the devnet server is already running")
        config = self.config
        n = self.chain.n_shards
        url_host = "127.0.0.1" if config.host in ("0.0.0.0", "") else config.host
        if ":" in url_host and not url_host.startswith("["):
            url_host = f"[{url_host}]"
        opened: list[socket.socket] = []
        sockets: list[tuple[socket.socket, socket.socket, socket.socket]] = []
        try:
            for shard in range(n):
                base = config.port + 2 * shard if config.port else 0
                rpc_sock = self._bind(config.host, base)
                opened.append(rpc_sock)
                trace_sock = self._bind(config.host, base + 1 if config.port else 0)
                opened.append(trace_sock)
                ws_sock = self._bind(config.host, base + WS_PORT_OFFSET if config.port else 0)
                opened.append(ws_sock)
                sockets.append((rpc_sock, trace_sock, ws_sock))
        except OSError as exc:
            for sock in opened:
                sock.close()
            raise ConfigError(
                f"cannot listen on {config.host}:{config.port or 'ephemeral ports'}: {exc}"
            ) from None
        self.urls = [f"http://{url_host}:{r.getsockname()[1]}" for r, _, _ in sockets]
        self.trace_urls = [f"http://{url_host}:{t.getsockname()[1]}" for _, t, _ in sockets]
        self.ws_urls = [f"ws://{url_host}:{w.getsockname()[1]}" for _, _, w in sockets]
        self._loop = asyncio.get_running_loop()
        self.heads = HeadHub(self.chain, config.profile)
        for shard, (rpc_sock, trace_sock, ws_sock) in enumerate(sockets):
            node = ShardNode(
                self.chain,
                shard,
                profile=config.profile,
                cache=self.cache,
                validator_limiter=TokenBucket(config.validator_rate_limit)
                if config.validator_rate_limit
                else None,
                rpc_limiter=NodeLimiter(config.rpc_rate_limit) if config.rpc_rate_limit else None,
                http_urls=self.urls,
                ws_urls=self.ws_urls,
                block_cost=config.block_cost_ms / 1000.0,
                explorer=config.explorer,
                log_hashes=config.log_hashes,
                rpc_deny=config.rpc_deny,
            )
            self.nodes.append(node)
            rpc = _Endpoint(node, trace=False, server=self, config=config)
            trace = _Endpoint(node, trace=True, server=self, config=config)
            ws = WsEndpoint(shard, self.heads, rpc.answer_message, NAMESPACES[config.profile])
            for sock, handler in ((rpc_sock, rpc.handle), (trace_sock, trace.handle), (ws_sock, ws.handle)):
                app = web.Application(client_max_size=MAX_REQUEST_BYTES + 1)
                app.router.add_route("*", "/{tail:.*}", handler)
                if handler == ws.handle:
                    app.on_shutdown.append(self._close_sockets)
                # (a dropped connection cancels its request, as Go cancels the request's context)
                runner = web.AppRunner(app, access_log=None, handle_signals=False, handler_cancellation=True)
                await runner.setup()
                site = web.SockSite(runner, sock)
                await site.start()
                self._runners.append(runner)

    async def _close_sockets(self, app: web.Application) -> None:
        # aiohttp waits for open handlers on shutdown: close the WebSockets so theirs return.
        await self.heads.close_all()

    def drop_websockets(self) -> None:
        """Close every WebSocket client connection (any thread): subscribers must reconnect."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._start_closing)

    def _start_closing(self) -> None:
        task = asyncio.get_running_loop().create_task(self.heads.close_all())
        self._closing.add(task)  # a reference until it is done
        task.add_done_callback(self._closing.discard)

    def heads_changed(self) -> None:
        """Push the blocks mined since the last call to the WebSocket subscribers (any thread)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.heads.announce)

    @staticmethod
    def _bind(host: str, port: int) -> socket.socket:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
            sock.listen(512)
        except OSError:
            sock.close()
            raise
        sock.setblocking(False)
        return sock

    async def stop(self) -> None:
        """Stop every app and close every port."""
        runners, self._runners = self._runners, []
        for runner in runners:
            await runner.cleanup()
        self.nodes = []
        self._loop = None

    @property
    def running(self) -> bool:
        """True while the ports are open."""
        return bool(self._runners)

    def shard_urls(self) -> Sequence[str]:
        """Normal-port URL of each shard."""
        return list(self.urls)
