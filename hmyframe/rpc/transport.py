"""The HTTP layer: one aiohttp session, POST bytes, status, ``Retry-After``.

This is the only module of :mod:`hmyframe.rpc` that imports aiohttp for HTTP (the WebSocket
client of :mod:`hmyframe.rpc.heads` is the other). It knows nothing about
JSON-RPC: :meth:`Transport.post` sends a body and returns an :class:`HttpReply` (any status),
or raises :class:`TransportFault` naming the failure reason (``connect``, ``reset``,
``timeout``, ``truncated``, ``ssl``, ``too_large``) so the client can apply its retry policy. A
``TransportFault`` never escapes the package: the client turns it into an
:mod:`hmyframe.errors` class.

Answers are read incrementally against a size cap (``max_answer_bytes``, counted after
decompression): an answer announcing more (``Content-Length``) is refused before its body is
read, and one that grows past the cap (an endless chunked body, a gzip bomb) is dropped as soon
as it does. The memory an answer can take is therefore bounded by the cap, whatever a server
sends.
"""

from __future__ import annotations

import asyncio
import io
import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import TracebackType
from urllib.parse import urlsplit

import aiohttp

from hmyframe._lazy import tls_for
from hmyframe.errors import ConfigError, redact_url
from hmyframe.rpc.retry import parse_retry_after

__all__ = ["DEFAULT_MAX_ANSWER_BYTES", "HttpReply", "Transport", "TransportFault", "is_loopback"]

_JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json"}
_LARGE_BODY = 1 << 20

#: Default cap on one answer body, in bytes (after decompression). The largest legitimate
#: answer is a ``getBlocks`` of 1,025 full blocks: 19.4 MB (v1, hex) and 19.1 MB (v2) at most
#: on the devnet, whose blocks carry about 12 transactions on average (bursts of up to 100),
#: like busy mainnet periods. 128 MiB leaves 6.9x headroom and still bounds memory.
DEFAULT_MAX_ANSWER_BYTES = 128 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class HttpReply:
    """One HTTP answer.

    Attributes
    ----------
    status
        HTTP status code.
    body
        The complete (decompressed) body.
    retry_after
        Seconds from a ``Retry-After`` header (delay or HTTP date), else ``None``.
    """

    status: int
    body: bytes
    retry_after: float | None


class TransportFault(Exception):
    """A request that got no complete HTTP answer (internal; never escapes the package).

    Parameters
    ----------
    reason
        ``connect`` (refused, DNS), ``reset`` (dropped mid-request), ``timeout``,
        ``truncated`` (body shorter than announced), ``ssl`` or ``too_large`` (answer over
        the cap).
    detail
        Human-readable description, without secrets.
    """

    def __init__(self, reason: str, detail: str) -> None:
        self.reason = reason
        self.detail = detail
        super().__init__(f"{reason}: {detail}")


_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]+")


def _describe(exc: BaseException) -> str:
    """Name an exception for a message, with any URL in its text redacted."""
    text = _URL_IN_TEXT.sub(lambda m: redact_url(m.group(0)), str(exc).strip())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def is_loopback(url: str) -> bool:
    """Whether ``url``'s host is this machine (``127.0.0.0/8``, ``::1``, ``localhost``)."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Transport:
    """An aiohttp session that POSTs JSON bodies.

    Parameters
    ----------
    timeout
        Seconds allowed for one request, from sending to the last byte of the answer.
    headers
        Extra headers sent with every request (``Authorization``...). ``Content-Type`` is
        always ``application/json``.
    connections
        Size of the connection pool.
    max_answer_bytes
        Largest answer body read (after decompression); a larger one raises
        :class:`TransportFault` ``too_large`` as soon as it is seen to be larger.

    Notes
    -----
    The session is created by :meth:`open` (or ``async with``), inside the running event
    loop, and closed by :meth:`close`.
    """

    def __init__(
        self,
        *,
        timeout: float = 30.0,
        headers: Mapping[str, str] | None = None,
        connections: int = 8,
        max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
    ) -> None:
        self._timeout = aiohttp.ClientTimeout(total=timeout)
        self._max_answer = max_answer_bytes
        self._headers = {**_JSON_HEADERS, **dict(headers or {})}
        self._connections = connections
        self._session: aiohttp.ClientSession | None = None

    @property
    def is_open(self) -> bool:
        """Whether a session exists and is not closed."""
        return self._session is not None and not self._session.closed

    async def open(self) -> None:
        """Create the session in the running loop (no-op if already open)."""
        if self.is_open:
            return
        connector = aiohttp.TCPConnector(
            limit=self._connections, limit_per_host=0, enable_cleanup_closed=False
        )
        self._session = aiohttp.ClientSession(
            connector=connector,
            timeout=self._timeout,
            headers=self._headers,
            raise_for_status=False,
            auto_decompress=True,
        )

    async def close(self) -> None:
        """Close the session and its connections."""
        session, self._session = self._session, None
        if session is not None and not session.closed:
            await session.close()

    async def __aenter__(self) -> Transport:
        await self.open()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def sets_accept_encoding(self) -> bool:
        """Whether the caller's headers fix ``Accept-Encoding`` (then :meth:`post` never overrides it)."""
        return any(name.lower() == "accept-encoding" for name in self._headers)

    def accept_encoding(self, url: str, compression: bool | None) -> str | None:
        """The ``accept_encoding`` to :meth:`post` to ``url`` with.

        ``None`` (the caller's ``Accept-Encoding`` header, or aiohttp's gzip) or ``"identity"``.
        ``compression=None`` asks remote hosts only for gzip: from a loopback host, compressing
        costs more CPU than it saves.
        """
        if self.sets_accept_encoding:
            return None
        compress = compression if compression is not None else not is_loopback(url)
        return None if compress else "identity"

    @property
    def max_answer_bytes(self) -> int:
        """The cap on one answer body, in bytes."""
        return self._max_answer

    async def post(
        self, url: str, body: bytes, *, accept_encoding: str | None = None, time_left: float | None = None
    ) -> HttpReply:
        """POST ``body`` to ``url`` and read the whole answer (up to the size cap).

        Parameters
        ----------
        url
            Endpoint URL.
        body
            JSON bytes.
        accept_encoding
            ``Accept-Encoding`` for this request (``"identity"`` to ask for an uncompressed
            answer); ``None`` keeps the session's (aiohttp's ``gzip, deflate``).
        time_left
            Seconds allowed for this request, if less than the session's timeout (what is
            left of a call's time budget).

        Returns
        -------
        HttpReply
            Status, body and ``Retry-After`` of the answer, whatever the status.

        Raises
        ------
        TransportFault
            When no complete answer arrived (see the class for the reasons).
        ConfigError
            If the transport is not open.
        """
        session = self._session
        if session is None or session.closed:
            raise ConfigError(
                f"the HTTP session for {redact_url(url)} is not open: use the client as `async with Client(...)`"
            )
        # aiohttp warns (ResourceWarning) about raw bytes over 1 MiB; a BytesIO body is streamed.
        data: bytes | io.BytesIO = io.BytesIO(body) if len(body) > _LARGE_BODY else body
        limit = self._timeout.total
        if time_left is not None and (limit is None or time_left < limit):
            limit = max(time_left, 0.001)
        try:
            extra = None if accept_encoding is None else {"Accept-Encoding": accept_encoding}
            async with session.post(
                url, data=data, headers=extra, timeout=aiohttp.ClientTimeout(total=limit), ssl=tls_for(url)
            ) as resp:
                payload = await self._read_capped(resp, url)
                return HttpReply(resp.status, payload, parse_retry_after(resp.headers.get("Retry-After")))
        except aiohttp.ClientPayloadError as exc:
            raise TransportFault("truncated", f"answer body cut off ({_describe(exc)})") from None
        except (aiohttp.ClientSSLError, aiohttp.ClientConnectorCertificateError) as exc:
            raise TransportFault("ssl", _describe(exc)) from None
        except aiohttp.ClientConnectorError as exc:
            raise TransportFault("connect", f"cannot connect ({_describe(exc)})") from None
        except (aiohttp.ServerTimeoutError, TimeoutError) as exc:
            raise TransportFault(
                "timeout", f"no complete answer within {limit:g} s ({_describe(exc)})"
            ) from None
        except aiohttp.InvalidURL as exc:
            raise ConfigError(f"invalid endpoint URL {redact_url(url)!r}: {_describe(exc)}") from None
        except (aiohttp.ClientError, OSError, asyncio.IncompleteReadError) as exc:
            raise TransportFault("reset", f"connection dropped ({_describe(exc)})") from None

    async def _read_capped(self, resp: aiohttp.ClientResponse, url: str) -> bytes:
        """The answer's body, read chunk by chunk and refused as soon as it exceeds the cap."""
        cap = self._max_answer
        announced = resp.content_length
        encoded = resp.headers.get("Content-Encoding", "identity").strip().lower() not in ("", "identity")
        if announced is not None and announced > cap and not encoded:
            resp.close()  # do not read (or keep) the body
            raise TransportFault(
                "too_large", f"the answer announces {announced:,} bytes, over the {cap:,}-byte answer cap"
            )
        parts: list[bytes] = []
        size = 0
        async for piece in resp.content.iter_any():  # (as received: no re-slicing of big buffers)
            size += len(piece)
            if size > cap:
                resp.close()
                raise TransportFault(
                    "too_large", f"the answer passed the {cap:,}-byte answer cap (read {size:,} bytes so far)"
                )
            parts.append(piece)
        return b"".join(parts)
