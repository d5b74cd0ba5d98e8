"""Every error hmyframe raises on purpose.

The hierarchy::

    HmyframeError                      root: ``except HmyframeError`` catches all of ours
    ├── ConfigError (ValueError)       bad argument or setting given by the caller
    │   ├── AddressError               not a valid one1 (bech32) or 0x address
    │   └── AmountError                not an exact integer amount, or beyond decimal128(38, 0)
    ├── TransportError                 the request did not get a JSON-RPC answer
    │   ├── HTTPStatusError            non-2xx HTTP status (after retries)
    │   └── ConnectionFailedError      refused, reset, DNS, timeout (after retries)
    ├── RateLimitError                 HTTP 429 or the node's "rate: Wait" -32000 (after retries)
    ├── RpcError                       the node answered with a JSON-RPC ``error`` object
    │   ├── MethodNotFoundError        -32601 (unknown, hidden or not on this port)
    │   ├── InvalidParamsError         -32602
    │   └── NotFoundError              a block / transaction the node does not have
    ├── ResponseShapeError             the answer does not have the shape we expected
    └── CacheError                     a cache file is stale, corrupt or unwritable

Every message names what was being done: the endpoint (with credentials and API keys
redacted, see :func:`redact_url`), the method and its params, or the dataset, field and
offending value.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import SplitResult, urlsplit, urlunsplit

__all__ = [
    "AddressError",
    "AmountError",
    "CacheError",
    "ConfigError",
    "ConnectionFailedError",
    "HTTPStatusError",
    "HmyframeError",
    "InvalidParamsError",
    "MethodNotFoundError",
    "NotFoundError",
    "RateLimitError",
    "ResponseShapeError",
    "RpcError",
    "TransportError",
    "redact_url",
    "short_repr",
]

_SECRET_QUERY_KEYS = re.compile(r"(key|token|secret|auth|password|pass|apikey|api_key|access)", re.I)
# A path segment that looks like an API key: 20+ characters of letters/digits/-/_ with at
# least one digit (Infura "/v3/<32 hex>", Ankr "/harmony/<64 hex>", QuickNode tokens...).
_SECRET_SEGMENT = re.compile(r"^(?=.*\d)[A-Za-z0-9_\-]{20,}$")


def redact_url(url: str) -> str:
    """Return ``url`` with credentials, API-key-like path segments and secret query values hidden.

    Parameters
    ----------
    url
        Any URL, possibly containing ``user:password@``, ``?apikey=...`` or a key in the path.

    Returns
    -------
    str
        The same URL with each secret replaced by ``***``.

    Examples
    --------
    >>> redact_url("https://user:pw@rpc.example.com/v3/0123456789abcdef0123456789abcdef?x=1")
    'https://***@rpc.example.com/v3/***?x=1'
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable url>"
    netloc = parts.netloc
    if "@" in netloc:
        netloc = "***@" + netloc.rsplit("@", 1)[1]
    path = "/".join("***" if _SECRET_SEGMENT.match(seg) else seg for seg in parts.path.split("/"))
    query = "&".join(
        (f"{k}=***" if _SECRET_QUERY_KEYS.search(k) else f"{k}={v}") if sep else k
        for k, sep, v in (item.partition("=") for item in parts.query.split("&") if item)
    )
    return urlunsplit(SplitResult(parts.scheme, netloc, path, query, parts.fragment))


def short_repr(value: Any, limit: int = 120) -> str:
    """``repr(value)`` cut to ``limit`` characters, for error messages."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class HmyframeError(Exception):
    """Root of every error hmyframe raises on purpose."""


class ConfigError(HmyframeError, ValueError):
    """A bad argument or setting given by the caller (range, shard, dataset name, URL...)."""


class AmountError(ConfigError):
    """A value that is not an exact integer amount of atto, or does not fit ``decimal128(38, 0)``.

    Raised by the ``atto`` dtype (:mod:`hmyframe.amounts`) with the offending value in the message.
    """


class AddressError(ConfigError):
    """A string that is not a valid ``one1`` bech32 or ``0x`` hex address.

    Parameters
    ----------
    value
        The offending text.
    reason
        What is wrong with it (bad checksum, wrong length, bad character...).
    """

    def __init__(self, value: Any, reason: str) -> None:
        self.value = value
        self.reason = reason
        super().__init__(
            f"invalid address {short_repr(value)}: {reason} "
            "(expected a one1... bech32 address or a 0x-prefixed 40-hex-digit address)"
        )


class TransportError(HmyframeError):
    """The request did not produce a JSON-RPC answer (network, HTTP status, timeout).

    Parameters
    ----------
    message
        What happened.
    endpoint
        The URL called (stored redacted).
    method
        The JSON-RPC method (or ``"batch of N"``), if known.
    """

    def __init__(self, message: str, *, endpoint: str = "", method: str = "") -> None:
        self.endpoint = redact_url(endpoint) if endpoint else ""
        self.method = method
        where = " ".join(
            p for p in (f"calling {method}" if method else "", f"at {self.endpoint}" if endpoint else "") if p
        )
        super().__init__(f"{message} ({where})" if where else message)


class HTTPStatusError(TransportError):
    """The endpoint answered with a non-success HTTP status."""

    def __init__(self, status: int, body: str = "", *, endpoint: str = "", method: str = "") -> None:
        self.status = status
        self.body = body
        snippet = f": {body.strip()[:200]!r}" if body and body.strip() else ""
        super().__init__(f"HTTP {status}{snippet}", endpoint=endpoint, method=method)


class ConnectionFailedError(TransportError):
    """Connection refused or reset, name resolution failed, or the request timed out."""


class RateLimitError(HmyframeError):
    """The endpoint kept refusing for rate reasons after all retries.

    Raised for HTTP 429 and for the node's JSON-RPC -32000 answers such as
    ``rate: Wait(n=1) would exceed context deadline``.
    """

    def __init__(
        self,
        message: str,
        *,
        endpoint: str = "",
        method: str = "",
        retry_after: float | None = None,
    ) -> None:
        self.endpoint = redact_url(endpoint) if endpoint else ""
        self.method = method
        self.retry_after = retry_after
        hint = "; lower requests_per_second / max_in_flight, or raise retries"
        super().__init__(
            f"rate limited calling {method or 'the node'} at {self.endpoint or '?'}: {message}{hint}"
        )


class RpcError(HmyframeError):
    """The node answered with a JSON-RPC ``error`` object.

    Attributes
    ----------
    code : int
        The JSON-RPC error code (-32000 for most node-side failures).
    rpc_message : str
        The node's message, verbatim.
    method : str
        The method called.
    params : list
        The params sent.
    endpoint : str
        The URL called, redacted.
    """

    def __init__(
        self, code: int, message: str, *, method: str = "", params: Any = None, endpoint: str = ""
    ) -> None:
        self.code = code
        self.rpc_message = message
        self.method = method
        self.params = params
        self.endpoint = redact_url(endpoint) if endpoint else ""
        super().__init__(
            f"{method or 'rpc'}({short_repr(params if params is not None else [], 200)}) "
            f"failed at {self.endpoint or '?'}: [{code}] {message}"
        )


class MethodNotFoundError(RpcError):
    """-32601: the method does not exist on this endpoint (or is hidden / on another port)."""


class InvalidParamsError(RpcError):
    """-32602: the node could not decode the params."""


class NotFoundError(RpcError):
    """The requested block, transaction or page is not on the node.

    Raised for the node's ``requested block number greater than current block number`` and
    ``transaction ... not found`` errors, and by helpers that turn a ``null`` answer into an
    error when the caller asked for it.
    """


class ResponseShapeError(HmyframeError):
    """An answer that does not have the shape we expected.

    Parameters
    ----------
    what
        The dataset or method being decoded (``"transactions"``, ``"hmy_getBlocks"``...).
    field
        Path of the offending field (``"transactions[3].value"``).
    value
        The offending value (shown shortened).
    expected
        What was expected there.
    """

    def __init__(self, what: str, field: str, value: Any, expected: str) -> None:
        self.what = what
        self.field = field
        self.value = value
        self.expected = expected
        super().__init__(f"{what}: field {field!r} has {short_repr(value)}; expected {expected}")


class CacheError(HmyframeError):
    """A cache file is stale (schema fingerprint differs), corrupt, or cannot be written."""
