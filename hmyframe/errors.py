"""Every error hmyframe raises on purpose.

The hierarchy::

    HmyframeError                      root: ``except HmyframeError`` catches all of ours
    ├── ConfigError (ValueError)       bad argument or setting given by the caller
    │   ├── AddressError               not a valid one1 (bech32) or 0x address
    │   ├── AmountError                not an exact integer amount, or beyond decimal128(38, 0)
    │   ├── WrongChainError            an endpoint serves another chain (or shard) than expected
    │   ├── QueryError                 an SQL query (hmyframe.sql) DuckDB refused or could not run
    │   └── AbiError                   a malformed contract ABI or signature (names the entry)
    ├── TransportError                 the request did not get a JSON-RPC answer
    │   ├── HTTPStatusError            non-2xx HTTP status (after retries)
    │   ├── ConnectionFailedError      refused, reset, DNS, timeout (after retries)
    │   └── ResponseTooLargeError      an answer over the client's size cap (never retried)
    ├── RateLimitError                 HTTP 429 or the node's "rate: Wait" -32000 (after retries)
    ├── HistoryUnavailableError        the node keeps no transaction history index (no explorer)
    ├── RpcError                       the node answered with a JSON-RPC ``error`` object
    │   ├── MethodNotFoundError        -32601 (unknown, hidden or not on this port; for trace_*
    │   │                              the message says to give a trace port)
    │   ├── InvalidParamsError         -32602
    │   └── NotFoundError              a block / transaction the node does not have
    ├── ResponseShapeError             the answer does not have the shape we expected
    ├── InconsistentAnswerError        answers that contradict their blocks (receipts, logs)
    ├── AbiDecodeError                 bytes that do not decode as the ABI types say (hmyframe.abi.decode)
    ├── CacheError                     a cache file is stale, corrupt or unwritable
    ├── ClusterError                   a Dask task failed outside hmyframe (a worker kept dying)
    └── ConversionWorkerError          a conversion worker process died

Warnings (``UserWarning``: what went wrong was waited out or worked around, and the result is
complete; each message says what)::

    CacheWarning                       a cache file was stale or corrupt: refetched
    NotFoundWarning                    hashes the node does not know (``df.attrs["not_found"]``)
    FollowWarning                      the node being followed misbehaved; following goes on
    NonStandardTokenWarning            a token's replayed balances differ from its balanceOf
                                       (hmyframe.holders; df.attrs["mismatches"])

Every message names what was being done: the endpoint (with credentials and API keys
redacted, see :func:`redact_url`), the method and its params, or the dataset, field and
offending value.
"""

from __future__ import annotations

import re
import reprlib
from typing import Any

__all__ = [
    "AbiDecodeError",
    "AbiError",
    "AddressError",
    "AmountError",
    "CacheError",
    "CacheWarning",
    "ClusterError",
    "ConfigError",
    "ConnectionFailedError",
    "ConversionWorkerError",
    "FollowWarning",
    "HTTPStatusError",
    "HistoryUnavailableError",
    "HmyframeError",
    "InconsistentAnswerError",
    "InvalidParamsError",
    "MethodNotFoundError",
    "NonStandardTokenWarning",
    "NotFoundError",
    "NotFoundWarning",
    "QueryError",
    "RateLimitError",
    "ResponseShapeError",
    "ResponseTooLargeError",
    "RpcError",
    "TransportError",
    "WrongChainError",
    "redact_url",
    "short_repr",
]

# RFC 3986, appendix B: splits any string into scheme, authority, path, query and fragment
# (it never fails, so a malformed URL is redacted as carefully as a well-formed one).
_URL_PARTS = re.compile(
    r"^(?:(?P<scheme>[^:/?#]+):)?(?://(?P<netloc>[^/?#]*))?(?P<path>[^?#]*)(?:\?(?P<query>[^#]*))?(?:#(?P<fragment>.*))?$",
    re.S,
)
# Path segments that name the secret in the segment after them (``/apikey/<key>``).
_SECRET_NAMES = re.compile(r"^(api[-_]?key|key|token|secret|auth|password|access[-_]?token)$", re.I)
# A readable path segment: lower-case words of at most 12 letters joined by '-' or '_'
# (``mainnet-archive``); anything else of 16+ characters is treated as a key.
_WORDY_SEGMENT = re.compile(r"^[a-z]{1,12}(?:[-_.][a-z0-9]{1,12})*$")
_KEY_MIN_LENGTH = 16


def _secret_segment(segment: str, after_secret_name: bool) -> bool:
    if not segment:
        return False
    if after_secret_name:
        return True
    return len(segment) >= _KEY_MIN_LENGTH and not _WORDY_SEGMENT.match(segment)


def redact_url(url: str) -> str:
    """Return ``url`` with every secret it may carry replaced by ``***``.

    Redacted: the userinfo (``user:password@``), every query value (and bare query items),
    the fragment, path segments that look like keys (16 or more characters that are not
    plain lower-case words, such as Infura's ``/v3/<32 hex>`` or a token of letters only)
    and the segment after a ``/key/``, ``/token/``, ``/apikey/``... segment. Scheme, host,
    port and readable path segments stay, so the message still says where the call went.
    A malformed URL is redacted the same way, never shown raw.

    Parameters
    ----------
    url
        Any URL or URL-like text.

    Returns
    -------
    str
        The same URL with each secret replaced by ``***``.

    Examples
    --------
    >>> redact_url("https://user:pw@rpc.example.com/v3/0123456789abcdef0123456789abcdef?x=1#t")
    'https://***@rpc.example.com/v3/***?x=***#***'
    >>> redact_url("http://[::1/abcdefghijklmnopqrstuvwxyz")
    'http://[::1/***'
    """
    m = _URL_PARTS.match(str(url))
    assert m is not None  # the pattern matches every string
    scheme, netloc, path, query, fragment = m.group("scheme", "netloc", "path", "query", "fragment")
    out = f"{scheme}:" if scheme is not None else ""
    if netloc is not None:
        if "@" in netloc:
            netloc = "***@" + netloc.rsplit("@", 1)[1]
        out += f"//{netloc}"
    segments = path.split("/")
    redacted: list[str] = []
    previous = ""
    for segment in segments:
        redacted.append("***" if _secret_segment(segment, bool(_SECRET_NAMES.match(previous))) else segment)
        previous = segment
    out += "/".join(redacted)
    if query is not None:
        items = [item for item in query.split("&") if item]
        out += "?" + "&".join(
            f"{key}=***" if sep else "***" for key, sep, _ in (item.partition("=") for item in items)
        )
    if fragment is not None:
        out += "#***" if fragment else "#"
    return out


def short_repr(value: Any, limit: int = 120) -> str:
    """``repr(value)`` cut to ``limit`` characters, for error messages (whatever the value holds)."""
    try:
        text = repr(value)
    except RecursionError:
        text = reprlib.repr(value)  # nested too deeply for repr(): shown to a few levels
    except Exception as exc:  # noqa: BLE001  (a message must never fail to be built)
        text = f"<{type(value).__name__} that cannot be shown: {type(exc).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


class HmyframeError(Exception):
    """Root of every error hmyframe raises on purpose."""

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled as built (message and attributes), whatever its __init__ takes: errors of a
        # conversion worker process reach the fetching process whole
        return (_rebuild, (type(self), self.args, self.__dict__))


def _rebuild(cls: type[HmyframeError], args: tuple[Any, ...], state: dict[str, Any]) -> HmyframeError:
    error = cls.__new__(cls)
    error.args = args
    error.__dict__.update(state)
    return error


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


class WrongChainError(ConfigError):
    """An endpoint that serves another chain, or another shard, than the one being fetched.

    Raised before anything from that endpoint is used or cached: a trace endpoint whose
    genesis block differs from its shard's, a shard URL (learnt from
    ``hmy_getShardingStructure`` or given) that belongs to another network, traces whose
    block hashes are not those of the blocks they claim.
    """


class QueryError(ConfigError):
    """An SQL query of :func:`hmyframe.sql` that DuckDB refused (syntax, unknown view or column,
    type mismatch) or failed to run (an overflow...); the message carries DuckDB's reason."""


class AbiError(ConfigError):
    """A contract ABI or signature that cannot be used: malformed JSON, an entry without a name,
    an unknown or unsupported type, too many indexed arguments. The one-line message names the
    entry (its position and name) and what was expected."""


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


class ResponseTooLargeError(TransportError):
    """An answer body larger than the client's cap (``max_answer_bytes``).

    The answer is not read further and the request is not retried as is: the same request
    would get the same answer. The message names the cap, the request and what to change.
    """


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


class HistoryUnavailableError(HmyframeError):
    """The node keeps no transaction history index (it runs without the explorer service):
    ``getTransactionsHistory`` cannot answer there, whatever the address (an address without
    history answers an empty list instead)."""


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
        hint = ""
        if code == -32601 and method.startswith("trace_"):
            # a node serves trace_* on its trace port only (tracing on, an archival node); its
            # public port answers -32601 like an unknown method (harmony-one/harmony#4187)
            hint = (
                " (this URL serves no trace_*: give the trace port of an archival node with "
                "tracing on as trace_rpc=, --trace-rpc or HMYFRAME_TRACE_RPC)"
            )
        super().__init__(
            f"{method or 'rpc'}({short_repr(params if params is not None else [], 200)}) "
            f"failed at {self.endpoint or '?'}: [{code}] {message}{hint}"
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
    endpoint
        The URL that sent the answer (stored redacted), when known.
    """

    def __init__(self, what: str, field: str, value: Any, expected: str, *, endpoint: str = "") -> None:
        self.what = what
        self.field = field
        self.value = value
        self.expected = expected
        self.endpoint = redact_url(endpoint) if endpoint else ""
        where = f" (answer from {self.endpoint})" if endpoint else ""
        text = f"{what}: field {field!r} has {short_repr(value)}; expected {expected}{where}"
        super().__init__(" ".join(text.split()))  # one line, whatever the value held


class InconsistentAnswerError(HmyframeError):
    """Answers that contradict the blocks they belong to: a receipt or log naming another block
    hash, a receipt for a transaction its block lacks (or none for one it has), receipts whose
    gas does not sum to the block's ``gasUsed``. The message names the block; nothing of the
    chunk's receipts or logs is cached."""


class AbiDecodeError(HmyframeError):
    """Bytes that do not decode as the given ABI types (too short, a pointer out of range, a value
    out of range for its type, bad padding), from :func:`hmyframe.abi.decode`. The decoders of
    :func:`hmyframe.events` and :func:`hmyframe.calls` never raise it: such a log or call is
    listed in ``df.attrs["undecoded"]`` with this message as its reason."""


class CacheError(HmyframeError):
    """A cache or output file or folder that cannot be read or written (or a corrupt cache file)."""


class ClusterError(HmyframeError):
    """A Dask task of a distributed export failed outside hmyframe: a worker died running it
    too often (the scheduler's ``allowed-failures``), it was cancelled, or the cluster went away."""


class ConversionWorkerError(HmyframeError):
    """A conversion worker process (``FetchOptions.convert_processes``) died converting a chunk:
    nothing of that chunk was kept, and running again fetches it."""


# --------------------------------------------------------------------------- warnings


class CacheWarning(UserWarning):
    """A cache file was found stale or corrupt and will be refetched."""


class NotFoundWarning(UserWarning):
    """Some requested hashes are unknown to the node (their list is in ``df.attrs["not_found"]``)."""


class FollowWarning(UserWarning):
    """The node being followed misbehaved (unreachable, stalled, a lower head); following goes on."""


class NonStandardTokenWarning(UserWarning):
    """A token's replayed balances differ from its ``balanceOf`` (fee-on-transfer, rebasing...):
    :func:`hmyframe.holders` lists them in ``df.attrs["mismatches"]``."""
