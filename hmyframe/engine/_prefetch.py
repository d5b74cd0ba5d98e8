"""The first data requests of a range fetch, sent with its first contact.

A fetch must know the chain before it plans or writes anything: its genesis hash names the cache
folder, its head bounds the range, its sharding structure says which URL serves the shard. On
first contact with a node that is one round trip (:meth:`~hmyframe.engine.Session.identify`),
after which the first data requests go out: a round trip in which nothing is fetched (100 ms of
a 1 s export at 100 ms of latency).

:func:`prefetch_range` sends those first data requests at once, as guesses, beside the first
contact: the first piece of the first chunk of each source whose calls do not depend on other
tables (``getBlocks``; ``getLogs``), exactly the calls the fetch will make for them, and the
node's version its files record (``web3_clientVersion``: :mod:`hmyframe.engine._origin`). The fetch
then runs as always (identity confirmed, range checked against the head, cache planned) and
takes a guessed answer (:func:`take`) only for a call it makes itself, of the shard the guess was
for. So nothing is written before the chain is confirmed, a wrong chain still writes nothing,
and a guess nobody takes (the range was cached after all, the URL serves another shard, the
fetch failed first) is dropped with the session.

A guess is made only where it is likely to be taken and costs the node nothing it would not
have asked anyway: block numbers given (no time search, no head needed to resolve them), blocks
the cache lacks under every chain it holds (so whichever chain the node turns out to serve),
no request-rate cap (where requests are counted, nothing is guessed, as in ``identify``), one
endpoint (a pool checks each endpoint's chain before its first call). Without the shard's URL
known, a guess is made for shard 0 only and goes to the URL given, as ``identify``'s own
guesses do (the default endpoint, like most a user gives, serves shard 0); it counts only if
that URL does serve shard 0.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from hmyframe import _json
from hmyframe.datasets import sources
from hmyframe.datasets.sources import RANGE_DATASETS, Call, ChunkRequest
from hmyframe.engine import _origin
from hmyframe.engine._blocks import parse_range
from hmyframe.engine._origin import version_known
from hmyframe.engine._session import Session
from hmyframe.engine._workers import get_dataset
from hmyframe.errors import HmyframeError
from hmyframe.rpc import Client

__all__ = ["prefetch_range"]

#: What a cached fetch asks for its files' provenance (engine._origin.node_version).
VERSION = Call(_origin.VERSION)


def _key(shard: int, call: Call) -> tuple[int, str, bytes]:
    """(the key of Session.prefetched, which Session.take_prefetched looks up)"""
    return shard, call.method, _json.encode(list(call.params))


def _blocks_of(start: object, end: object) -> tuple[int, int] | None:
    """``(first, last)`` when ``start`` / ``end`` are block numbers, else ``None``."""
    try:
        first, last = parse_range(start, end)
    except HmyframeError:
        return None
    if first.kind != "block" or last is None or last.kind != "block" or last.value < first.value:
        return None
    return first.value, last.value


def _missing_everywhere(session: Session, names: Sequence[str], shard: int, first: int, last: int) -> bool:
    """Whether no chain folder of the cache holds any of blocks ``first..last`` of ``names``, in
    its files or in pieces kept of them (:mod:`hmyframe.engine._keep`)."""
    cache = session.cache
    if cache is None:
        return True
    return not any(
        cache.missing(chain, get_dataset(name), shard, first, last) != [(first, last)]
        or cache.pieces.any_inside(chain, name, shard, first, last)
        for chain in cache.chains()
        for name in names
    )


def prefetch_range(
    session: Session, names: Sequence[str], start: object, end: object, shards: Sequence[int] | str
) -> None:
    """Send the first data requests of a fetch of ``names`` over ``start..end`` now (see the
    module docstring); nothing when the conditions for a useful guess do not hold.

    Called before the first contact (or with it): it returns at once, the requests in flight.
    """
    client = session.client
    blocks = _blocks_of(start, end)
    if (
        blocks is None
        or isinstance(shards, str)
        or session.options.requests_per_second is not None
        or not isinstance(client, Client)
        or not names
        or any(name not in RANGE_DATASETS for name in names)
    ):
        return
    first = blocks[0]
    last = min(blocks[1], (first // session.options.chunk_size + 1) * session.options.chunk_size - 1)
    build = list(dict.fromkeys([*names, *(n for name in names for n in sources.fill_of(name).needs)]))
    for shard in shards:
        exact = client.routes_without_asking(shard)
        if not exact and shard != 0:
            continue  # (the URL given is guessed to serve shard 0 only, as the default one does)
        if not _missing_everywhere(session, build, shard, first, last):
            continue
        calls = _first_calls(session, build, first, last)
        url = client.known_url(shard) if exact else client.url
        if calls and session.cache is not None and (url is None or not version_known(url)):
            calls.append(VERSION)  # (a chunk's first write records the node's version)
        for call in calls:
            key = _key(shard, call)
            if key in session.prefetched:
                continue
            task = asyncio.ensure_future(
                client.request_raw(call.method, list(call.params), shard=shard if exact else None)
            )
            task.add_done_callback(lambda t: t.cancelled() or t.exception())  # (a guess: nobody's error)
            session.prefetched[key] = (task, not exact)


def _first_calls(session: Session, build: Sequence[str], first: int, last: int) -> list[Call]:
    """The calls of the first piece of each source of ``build`` whose plan needs no table and
    no trace endpoint, for blocks ``first..last`` (a chunk), as the fetch will plan them."""
    groups: dict[str, list[str]] = {}
    for name in build:
        groups.setdefault(sources.source_of(name).name, []).append(name)
    calls: list[Call] = []
    for group in groups.values():
        source = sources.source_of(group[0])
        needs = any(source.fills[n].needs for n in group)
        if source.trace_endpoint or (needs and source.plans_from_needed):
            continue
        request = ChunkRequest(
            first=first,
            last=last,
            detail=frozenset().union(*(source.fills[n].detail for n in group)),
            rpc=session.methods,
            blocks_per_request=session.options.blocks_per_request,
            strategy=session.options.strategy,
            state={},
            needed={},
        )
        pieces = source.plan(request)
        if pieces:
            calls.extend(pieces[0].calls)
    return calls
