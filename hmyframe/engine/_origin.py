"""Where a fetch's rows come from, as its files' footers record it (:mod:`hmyframe._provenance`):
the endpoint a session fetches from, redacted, and what that node says of its version.

This is the part of provenance that asks the node, so it lives in the engine beside the
session; the record itself and the footer keys are :mod:`hmyframe._provenance`'s.
"""

from __future__ import annotations

from hmyframe import _json
from hmyframe._provenance import Provenance, redact_endpoint
from hmyframe.engine._session import Session
from hmyframe.errors import ResponseShapeError, RpcError

__all__ = ["VERSION", "node_version", "of_session", "version_known"]

#: The method a node is asked its version with.
VERSION = "web3_clientVersion"

_MAX_VERSION = 200
#: web3_clientVersion answers remembered per endpoint URL for the life of the process.
_versions: dict[str, str | None] = {}


def version_known(url: str) -> bool:
    """Whether the version of the node at ``url`` is known (asked already in this process)."""
    return url in _versions


async def node_version(session: Session, shard: int, *, trace: bool = False) -> str | None:
    """What the node serving ``shard`` (its trace endpoint with ``trace``) says of its version
    (``web3_clientVersion``), asked once per endpoint URL per process; ``None`` when it does not
    serve the method, or under a request-rate cap (``FetchOptions.requests_per_second``), where
    no request is spent on it.

    Raises
    ------
    HmyframeError
        The endpoint cannot be reached (as the fetch itself would fail).
    """
    if session.options.requests_per_second is not None:
        # under a request-rate cap every request is counted against the node's limit (as in
        # Session.identify, nothing is asked that the data does not need): not recorded
        return None
    client = session.client
    url = await client.endpoint_url(shard, trace=trace)
    if url in _versions:
        return _versions[url]
    guessed = None if trace or not session.prefetched else await session.take_prefetched(shard, VERSION, [])
    try:
        if isinstance(guessed, RpcError | ResponseShapeError):
            raise guessed  # (asked with the first contact: not served)
        if isinstance(guessed, bytes):
            answer = _json.decode(guessed)
        else:
            answer = await client.request(VERSION, [], shard=shard, trace=trace)
    except (RpcError, ResponseShapeError):  # not served (an old or trimmed node): not recorded
        answer = None
    version = " ".join(answer.split())[:_MAX_VERSION] if isinstance(answer, str) and answer.strip() else None
    _versions[url] = version
    return version


async def of_session(session: Session, shard: int, *, trace: bool = False) -> Provenance:
    """The provenance of what ``session`` fetches for ``shard`` (from its trace endpoint with
    ``trace``): the endpoint, redacted, and that node's version. Several endpoints
    (``rpc=[...]``) are all named, space-separated (a chunk's rows may come from any of them);
    the node version is then the one the pool's chosen endpoint gives.

    Raises
    ------
    HmyframeError
        The endpoint cannot be reached (as the fetch itself would fail).
    """
    client = session.client
    members = getattr(client, "endpoints", None)  # an EndpointPool (rpc=[...]): rows come from any
    if members and not trace:
        # the URLs as given: asking each member its shard's URL would bypass the pool's failover
        urls = [member.client.url for member in members]
    else:
        urls = [await client.endpoint_url(shard, trace=trace)]
    return Provenance(
        endpoints=tuple(redact_endpoint(url) for url in urls),
        node_version=await node_version(session, shard, trace=trace),
    )
