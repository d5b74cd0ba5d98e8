"""The devnet's WebSocket side: one port per shard serving ``newHeads`` subscriptions.

Behaviour follows the node's go-ethereum-derived WebSocket server (``eth/rpc``,
``rpc/harmony/filters``; notes in the issue-18 research):

* the WebSocket port answers every method of the shard's HTTP port, one JSON-RPC message
  (call or batch) per frame, each answer one text frame ending in a newline;
* ``<ns>_subscribe`` ``["newHeads"]`` answers a subscription id (``0x`` + 16 random bytes in
  hex, leading zeros trimmed); ``hmy`` and ``eth`` in the ``current`` profile, ``hmy`` only in
  ``legacy`` (the early-2020 node had no ``eth`` namespace). Any other name or namespace gets
  ``-32601 no "<name>" subscription in <ns> namespace``; params that are not an array get
  ``-32602 non-array args``; a first param that is not a string ``-32602 expected
  subscription name as first argument``;
* every block mined is pushed to each subscriber, in block order, as
  ``{"jsonrpc":"2.0","method":"<ns>_subscription","params":{"subscription":id,"result":header}}``
  (the header of :func:`hmyframe.devnet.render.header_obj`); notifications raised while the
  subscribe answer is still being written are held until it is sent, as the node does;
* ``<ns>_unsubscribe`` ``[id]`` answers ``true``; an unknown id ``-32000 subscription not
  found``. Closing the socket ends its subscriptions;
* over HTTP (the shard's normal port) ``<ns>_subscribe`` gets ``-32000 notifications not
  supported``, as on the node;
* a plain HTTP request to the port gets **400** (the node's ``websocket: the client is not
  using the websocket protocol``).

Fault rules, latency and request statistics apply to the HTTP ports only.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import WSMsgType, web

from hmyframe.devnet.node import ChainAPI
from hmyframe.devnet.render import Profile, encode, header_obj

__all__ = [
    "NAMESPACES",
    "Answer",
    "HeadHub",
    "Intercept",
    "WsEndpoint",
    "http_intercept",
    "new_subscription_id",
]

#: Answers the calls it handles (their whole response object) and ``None`` for the others:
#: ``(method, params, raw id JSON or b"" for a notification) -> bytes | None``.
Intercept = Callable[[Any, Any, bytes], Awaitable[bytes | None]]
#: The HTTP endpoint's answer to one message, with an intercept: ``(body, intercept) -> bytes``.
Answer = Callable[[bytes, Intercept], Awaitable[bytes]]

#: Namespaces that serve ``newHeads``, per profile.
NAMESPACES: dict[Profile, frozenset[str]] = {
    "current": frozenset({"hmy", "eth"}),
    "legacy": frozenset({"hmy"}),
}
#: Largest frame read (the node's WebSocket read limit is larger; the HTTP body limit is 5 MiB).
MAX_MESSAGE_BYTES = 5 * 1024 * 1024

_LOG = logging.getLogger("hmyframe.devnet")


def new_subscription_id() -> str:
    """A node-style subscription id: ``0x`` + 16 random bytes in hex, leading zeros trimmed."""
    digits = os.urandom(16).hex().lstrip("0")
    return "0x" + (digits or "0")


def _error(id_json: bytes, code: int, message: str) -> bytes:
    error = encode({"code": code, "message": message})
    return b'{"jsonrpc":"2.0","id":' + (id_json or b"null") + b',"error":' + error + b"}"


def _result(id_json: bytes, result: Any) -> bytes:
    return b'{"jsonrpc":"2.0","id":' + (id_json or b"null") + b',"result":' + encode(result) + b"}"


async def http_intercept(method: Any, params: Any, id_json: bytes) -> bytes | None:
    """The HTTP ports' answer to ``<ns>_subscribe``: ``-32000 notifications not supported``."""
    if isinstance(method, str) and method.partition("_")[2] == "subscribe":
        return _error(id_json, -32000, "notifications not supported")
    return None


class _Subscription:
    __slots__ = ("active", "held", "namespace")

    def __init__(self, namespace: str) -> None:
        self.namespace = namespace
        self.active = False
        self.held: list[bytes] = []


class _Connection:
    """One client socket: its subscriptions and an ordered outgoing queue."""

    def __init__(self, ws: web.WebSocketResponse, shard: int, namespaces: frozenset[str]) -> None:
        self.ws = ws
        self.shard = shard
        self.namespaces = namespaces
        self.subs: dict[str, _Subscription] = {}
        self._pending: list[_Subscription] = []
        self._queue: asyncio.Queue[bytes | None] = asyncio.Queue()

    async def write_loop(self) -> None:
        while True:
            frame = await self._queue.get()
            if frame is None:
                return
            try:
                await self.ws.send_str(frame.decode())
            except (ConnectionError, RuntimeError):
                return  # the client went away; the read loop ends too

    def send(self, frame: bytes) -> None:
        self._queue.put_nowait(frame)

    def close(self) -> None:
        self._queue.put_nowait(None)

    def activate_pending(self) -> None:
        """Start delivering to the subscriptions whose answer was just queued."""
        pending, self._pending = self._pending, []
        for sub in pending:
            sub.active = True
            for frame in sub.held:
                self.send(frame)
            sub.held.clear()

    def deliver(self, sub_id: str, sub: _Subscription, header: bytes) -> None:
        frame = (
            b'{"jsonrpc":"2.0","method":"'
            + sub.namespace.encode()
            + b'_subscription","params":{"subscription":"'
            + sub_id.encode()
            + b'","result":'
            + header
            + b"}}\n"
        )
        if sub.active:
            self.send(frame)
        else:
            sub.held.append(frame)

    async def intercept(self, method: Any, params: Any, id_json: bytes) -> bytes | None:
        if not isinstance(method, str) or "_" not in method:
            return None
        namespace, _, name = method.partition("_")
        if name == "subscribe":
            return self._subscribe(namespace, params, id_json)
        if name == "unsubscribe" and namespace in self.namespaces:
            return self._unsubscribe(params, id_json)
        return None

    def _subscribe(self, namespace: str, params: Any, id_json: bytes) -> bytes:
        if not isinstance(params, list):
            return _error(id_json, -32602, "non-array args")
        if not params or not isinstance(params[0], str):
            return _error(id_json, -32602, "expected subscription name as first argument")
        kind = params[0]
        if kind != "newHeads" or namespace not in self.namespaces:
            return _error(id_json, -32601, f'no "{kind}" subscription in {namespace} namespace')
        if len(params) > 1:
            return _error(id_json, -32602, "too many arguments, want at most 1")
        sub_id = new_subscription_id()
        sub = _Subscription(namespace)
        self.subs[sub_id] = sub
        self._pending.append(sub)
        return _result(id_json, sub_id)

    def _unsubscribe(self, params: Any, id_json: bytes) -> bytes:
        if not isinstance(params, list) or not params:
            return _error(id_json, -32602, "missing value for required argument 0")
        sub_id = params[0]
        if not isinstance(sub_id, str):
            return _error(id_json, -32602, "invalid argument 0: expected a subscription id string")
        if self.subs.pop(sub_id, None) is None:
            return _error(id_json, -32000, "subscription not found")
        return _result(id_json, True)


class HeadHub:
    """Pushes each newly mined block's header to the subscribers of its shard.

    Parameters
    ----------
    chain
        The served chain.
    profile
        Header format (``current`` or ``legacy``).
    """

    def __init__(self, chain: ChainAPI, profile: Profile) -> None:
        self.chain = chain
        self.profile: Profile = profile
        self._connections: list[set[_Connection]] = [set() for _ in range(chain.n_shards)]
        self._announced = [chain.head(shard) for shard in range(chain.n_shards)]

    def attach(self, conn: _Connection) -> None:
        """Start pushing ``conn``'s shard's heads to it."""
        self._connections[conn.shard].add(conn)

    def detach(self, conn: _Connection) -> None:
        """Stop pushing to ``conn`` (its socket closed)."""
        self._connections[conn.shard].discard(conn)

    async def close_all(self) -> None:
        """Close every client socket (``1001 going away``), as a node shutting down does."""
        for conns in self._connections:
            for conn in list(conns):
                with contextlib.suppress(Exception):
                    await conn.ws.close(code=1001, message=b"server shutting down")

    def subscribers(self, shard: int) -> int:
        """Number of live ``newHeads`` subscriptions on ``shard``."""
        return sum(len(conn.subs) for conn in self._connections[shard])

    def announce(self) -> None:
        """Notify every block mined since the last call (runs on the serving loop)."""
        for shard, conns in enumerate(self._connections):
            head = self.chain.head(shard)
            first, self._announced[shard] = self._announced[shard] + 1, max(head, self._announced[shard])
            if not any(conn.subs for conn in conns):
                continue
            for number in range(first, head + 1):
                header = encode(header_obj(self.chain.block(shard, number), self.profile))
                for conn in list(conns):
                    for sub_id, sub in list(conn.subs.items()):
                        conn.deliver(sub_id, sub, header)


class WsEndpoint:
    """The request handler of one shard's WebSocket port.

    Parameters
    ----------
    shard
        The shard served.
    hub
        Where the mined heads come from.
    answer
        The shard's HTTP endpoint's answer to a message (every non-subscription method).
    namespaces
        Namespaces that serve ``newHeads``.
    """

    def __init__(self, shard: int, hub: HeadHub, answer: Answer, namespaces: frozenset[str]) -> None:
        self.shard = shard
        self.hub = hub
        self.answer = answer
        self.namespaces = namespaces

    async def handle(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=MAX_MESSAGE_BYTES, autoping=True)
        if not ws.can_prepare(request).ok:
            return web.Response(
                status=400,
                text="websocket: the client is not using the websocket protocol: "
                "'upgrade' token not found in 'Connection' header\n",
            )
        await ws.prepare(request)
        conn = _Connection(ws, self.shard, self.namespaces)
        writer = asyncio.get_running_loop().create_task(conn.write_loop())
        self.hub.attach(conn)
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    body = msg.data.encode()
                elif msg.type == WSMsgType.BINARY:
                    body = bytes(msg.data)
                else:
                    break
                payload = await self.answer(body, conn.intercept)
                if payload:
                    conn.send(payload)
                conn.activate_pending()
        finally:
            self.hub.detach(conn)
            conn.subs.clear()
            conn.close()
            with contextlib.suppress(Exception):
                await writer
        return ws
