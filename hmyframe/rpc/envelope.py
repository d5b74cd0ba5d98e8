"""The JSON-RPC envelope: ids, encoded calls, and answers matched back to them by id.

Every call gets an id unique within its client (:class:`Envelopes`) and is encoded once, as
the bytes it is sent with (:class:`Call`). An answer is decoded as envelopes
(:func:`decode_answer`) and matched to the calls **by id, never by position**
(:func:`match_answer`): a node or proxy may reorder a batch answer. Results are decoded exactly
through :mod:`hmyframe._json` (big integers stay ``int``), or kept as the raw bytes of
``result`` for typed decoders downstream.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, TypeAlias

import msgspec

from hmyframe import _json
from hmyframe.errors import ConfigError, ConnectionFailedError, ResponseShapeError, short_repr
from hmyframe.rpc.retry import rpc_error_class
from hmyframe.rpc.transport import HttpReply

__all__ = [
    "Answer",
    "Call",
    "Envelope",
    "Envelopes",
    "ErrorObject",
    "Failure",
    "abandon",
    "body_of",
    "decode_answer",
    "fail",
    "match_answer",
    "settle",
]


class ErrorObject(msgspec.Struct):
    """The ``error`` member of an answer."""

    code: int
    message: str = ""
    data: Any = None


class Envelope(msgspec.Struct):
    """One answer object (``result`` kept as raw bytes)."""

    jsonrpc: str | None = None
    id: int | str | None = None
    result: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    error: ErrorObject | None = None


#: A decoded answer body: one envelope, or a batch answer's list of them.
Answer: TypeAlias = list[Envelope] | Envelope

_ANSWER: msgspec.json.Decoder[Answer] = msgspec.json.Decoder(Answer, float_hook=Decimal)


@dataclass(eq=False, slots=True)
class Call:
    """One JSON-RPC call on its way: encoded item, and the future its caller awaits."""

    id: int
    method: str
    params: list[Any]
    item: bytes
    raw: bool
    future: asyncio.Future[Any]

    def describe(self) -> str:
        """``method(params)``, shortened, for messages."""
        return f"{self.method}({short_repr(self.params, 160)})"


@dataclass(frozen=True, slots=True)
class Failure:
    """Why one attempt of a call failed in a retryable way."""

    reason: str
    message: str
    retry_after: float | None = None
    status: int | None = None
    body: str = ""
    rate: bool = False


def settle(call: Call, value: Any) -> None:
    """Give ``call``'s caller its result (unless it already has an outcome)."""
    if not call.future.done():
        call.future.set_result(value)


def fail(call: Call, exc: BaseException) -> None:
    """Give ``call``'s caller ``exc`` (unless it already has an outcome)."""
    if not call.future.done():
        call.future.set_exception(exc)


def abandon(url: str, calls: Sequence[Call], message: str) -> None:
    """Fail the calls without an outcome yet with ``ConnectionFailedError(message)``."""
    for call in calls:
        fail(call, ConnectionFailedError(message, endpoint=url, method=call.describe()))


class Envelopes:
    """Ids unique within one client, and the encoded calls carrying them.

    Parameters
    ----------
    max_body
        Largest request body; a call whose item alone is larger is refused.
    """

    def __init__(self, max_body: int) -> None:
        self._ids = itertools.count(1)
        self.max_body = max_body

    def make(self, method: Any, params: Any, raw: bool) -> Call:
        """Check and encode one call, with the next id.

        Raises
        ------
        ConfigError
            A bad method name or params, params JSON cannot carry, or an item over ``max_body``.
        """
        if not isinstance(method, str) or not method:
            raise ConfigError(
                f"method must be a non-empty string such as 'hmyv2_blockNumber', got {short_repr(method)}"
            )
        if isinstance(params, str | bytes | bytearray) or not isinstance(params, Sequence):
            raise ConfigError(f"params of {method} must be a list or tuple, got {short_repr(params)}")
        plist = list(params)
        call_id = next(self._ids)
        try:
            item = _json.encode({"jsonrpc": "2.0", "id": call_id, "method": method, "params": plist})
        except ConfigError as exc:
            raise ConfigError(
                f"params of {method} cannot be sent as JSON: {short_repr(plist)} ({exc})"
            ) from None
        if len(item) > self.max_body:
            raise ConfigError(
                f"request {method}({short_repr(plist)}) is {len(item)} bytes encoded, over the "
                f"{self.max_body}-byte body limit"
            )
        return Call(call_id, method, plist, item, raw, asyncio.get_running_loop().create_future())

    def make_all(self, calls: Any, raw: bool) -> list[Call]:
        """Check and encode a batch: ``calls`` is a list of ``(method, params)`` pairs.

        Raises
        ------
        ConfigError
            If ``calls`` is not such a list, or as :meth:`make` for an item.
        """
        given: object = calls
        if isinstance(given, str | bytes) or not isinstance(given, Sequence):
            raise ConfigError(f"batch() takes a list of (method, params) pairs, got {short_repr(calls)}")
        made: list[Call] = []
        for i, entry in enumerate(calls):
            pair: object = entry
            if not isinstance(pair, tuple | list) or len(pair) != 2:
                raise ConfigError(f"batch item {i} must be a (method, params) pair, got {short_repr(entry)}")
            made.append(self.make(entry[0], entry[1], raw))
        return made


def body_of(calls: Sequence[Call]) -> bytes:
    """The request body: one call as a plain object, several as a JSON array."""
    return calls[0].item if len(calls) == 1 else b"[" + b",".join(c.item for c in calls) + b"]"


def _id_key(value: int | str | None) -> int | None:
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return None


def _fail_shape(calls: Sequence[Call], value: Any, expected: str, url: str) -> None:
    for call in calls:
        fail(call, ResponseShapeError(call.method, "$", value, expected, endpoint=url))


def decode_answer(url: str, calls: Sequence[Call], reply: HttpReply) -> Answer | Failure | None:
    """Decode a 2xx answer body as JSON-RPC envelopes.

    Returns
    -------
    Answer, Failure or None
        The envelopes; a ``bad_body`` failure if the body is not JSON (cut off?); ``None`` if it
        is JSON but no envelope, in which case every call has failed already.
    """
    try:
        answer = _ANSWER.decode(reply.body)
    except (msgspec.ValidationError, RecursionError) as exc:
        what = (
            "JSON nested less deeply" if isinstance(exc, RecursionError) else f"a JSON-RPC envelope ({exc})"
        )
        _fail_shape(calls, reply.body[:120].decode("utf-8", "replace"), what, url)
        return None
    except msgspec.DecodeError as exc:
        snippet = short_repr(reply.body[:80].decode("utf-8", "replace"))
        return Failure(
            "bad_body", f"HTTP {reply.status} body is not JSON (truncated?): {exc}; starts {snippet}"
        )
    if not isinstance(answer, list) and answer.error is None and answer.result is msgspec.UNSET:
        text = reply.body[:120].decode("utf-8", "replace")
        _fail_shape(calls, text, "a JSON-RPC answer with a `result` or an `error` member", url)
        return None
    return answer


def match_answer(
    url: str, calls: Sequence[Call], answer: Answer, is_rate_limit: Callable[[str], bool]
) -> list[tuple[Call, Failure]]:
    """Settle each call from the envelope with its id; return the retryable failures.

    Those are the node's rate-limit refusals (``is_rate_limit(message)``, ``rate=True``) and
    calls the answer has no item for (reason ``missing``). Any other error object fails its
    call with the :mod:`hmyframe.errors` class of its code.
    """
    envelopes = answer if isinstance(answer, list) else [answer]
    by_id: dict[int, Envelope] = {}
    shared_error: ErrorObject | None = None
    for env in envelopes:
        key = _id_key(env.id)
        if key is None:
            if env.error is not None:
                shared_error = env.error
            continue
        by_id.setdefault(key, env)
    if (
        len(calls) == 1
        and not isinstance(answer, list)
        and calls[0].id not in by_id
        and answer.id is not None
    ):
        by_id[calls[0].id] = answer  # one call, one answer object: tolerate an id rewritten by a proxy
    failures: list[tuple[Call, Failure]] = []
    for call in calls:
        match = by_id.get(call.id)
        error = match.error if match is not None else shared_error
        if match is None and error is None:
            failures.append((call, Failure("missing", f"the answer has no item with id {call.id}")))
        elif error is not None:
            if is_rate_limit(error.message):
                failures.append(
                    (call, Failure("rpc_rate_limit", f"[{error.code}] {error.message}", rate=True))
                )
            else:
                cls = rpc_error_class(error.code, error.message)
                fail(
                    call, cls(error.code, error.message, method=call.method, params=call.params, endpoint=url)
                )
        elif match is not None and isinstance(match.result, msgspec.Raw):
            if call.raw:
                settle(call, bytes(match.result))
                continue
            try:
                settle(call, _json.decode(match.result, what=call.method))
            except ResponseShapeError as exc:
                fail(call, ResponseShapeError(exc.what, exc.field, exc.value, exc.expected, endpoint=url))
        else:
            expected = "a JSON-RPC answer with a `result` or an `error` member"
            fail(call, ResponseShapeError(call.method, f"id {call.id}", match, expected, endpoint=url))
    return failures
