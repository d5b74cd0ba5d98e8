"""Shard and trace URL routing, and the chain identity of the URLs routed to.

``shard=None`` is the shard the home ``url`` serves; other shards are reached at the URLs
``hmy_getShardingStructure`` lists (or the caller's ``shard_urls``); ``trace=True`` goes to the
shard's trace URL. With ``verify_endpoints``, a URL learnt from the node is checked to belong
to the same network before its first call (same sharding structure, the expected shard marked
current), and a trace URL to serve the shard's genesis block; a mismatch raises
:class:`~hmyframe.errors.WrongChainError`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from hmyframe.errors import (
    ConfigError,
    HmyframeError,
    MethodNotFoundError,
    ResponseShapeError,
    WrongChainError,
    redact_url,
    short_repr,
)
from hmyframe.rpc.shared import ShardInfo

__all__ = ["Router", "check_url"]

#: Makes one call at a URL as it is (no routing): ``ask(url, method, params)``.
Ask = Callable[[str, str, list[Any]], Awaitable[Any]]


def check_url(url: Any, what: str) -> str:
    """``url`` if it is an http(s) URL with a host, else :class:`~hmyframe.errors.ConfigError`."""
    if not isinstance(url, str):
        raise ConfigError(f"{what} must be an http(s) URL string, got {short_repr(url)}")
    reason = ""
    try:
        parts = urlsplit(url)
        if parts.port is not None and not parts.hostname:
            reason = "no host"
    except ValueError as exc:
        parts, reason = None, str(exc)
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        why = f" ({reason})" if reason else ""
        raise ConfigError(
            f"{what} must be an http(s) URL such as http://127.0.0.1:9500, got {redact_url(url)!r}{why}"
        )
    return url


def _check_shard(shard: Any) -> int | None:
    if shard is None:
        return None
    if isinstance(shard, bool) or not isinstance(shard, int) or shard < 0:
        raise ConfigError(f"shard must be None (the home shard) or an integer >= 0, got {short_repr(shard)}")
    return shard


def _shard_key(key: Any, what: str) -> int:
    if isinstance(key, bool) or not isinstance(key, int) or key < 0:
        raise ConfigError(f"{what} keys must be shard ids (integers >= 0), got {short_repr(key)}")
    return key


def _listing(shards: list[ShardInfo]) -> str:
    return ", ".join(f"{s.shard_id}={redact_url(s.http)}" for s in shards)


def _parse_shards(result: Any, url: str) -> list[ShardInfo]:
    what = "hmy_getShardingStructure"
    if not isinstance(result, list) or not result:
        raise ResponseShapeError(
            what, "$", result, f"a non-empty list of shard entries (from {redact_url(url)})"
        )
    shards: list[ShardInfo] = []
    for i, entry in enumerate(result):
        if not isinstance(entry, dict):
            raise ResponseShapeError(what, f"[{i}]", entry, "an object with shardID, http, ws, current")
        sid, http, ws, current = (
            entry.get("shardID"),
            entry.get("http"),
            entry.get("ws", ""),
            entry.get("current"),
        )
        if isinstance(sid, bool) or not isinstance(sid, int) or sid < 0:
            raise ResponseShapeError(what, f"[{i}].shardID", sid, "an integer >= 0")
        if not isinstance(http, str):
            raise ResponseShapeError(what, f"[{i}].http", http, "a URL string")
        if not isinstance(current, bool):
            raise ResponseShapeError(what, f"[{i}].current", current, "true or false")
        shards.append(ShardInfo(sid, http, ws if isinstance(ws, str) else "", current))
    return sorted(shards, key=lambda s: s.shard_id)


class Router:
    """Where a call for a shard goes, and whether that URL serves this network.

    Parameters
    ----------
    url
        The home URL.
    trace_url, shard_urls, verify_endpoints
        As for :class:`~hmyframe.rpc.Client`.
    ask
        Makes one call at a URL as it is.

    Raises
    ------
    ConfigError
        If a URL or a shard key is invalid.
    """

    def __init__(
        self,
        url: str,
        *,
        trace_url: str | Mapping[int, str] | None,
        shard_urls: Mapping[int, str] | None,
        verify_endpoints: bool,
        ask: Ask,
    ) -> None:
        self.url = check_url(url, "url")
        self._trace: str | dict[int, str] | None
        if trace_url is None or isinstance(trace_url, str):
            self._trace = None if trace_url is None else check_url(trace_url, "trace_url")
        elif isinstance(trace_url, Mapping):
            self._trace = {
                _shard_key(k, "trace_url"): check_url(v, f"trace_url[{k!r}]") for k, v in trace_url.items()
            }
        else:
            raise ConfigError(
                f"trace_url must be a URL, a mapping {{shard: url}} or None, got {short_repr(trace_url)}"
            )
        if shard_urls is not None and not isinstance(shard_urls, Mapping):
            raise ConfigError(f"shard_urls must be a mapping {{shard: url}}, got {short_repr(shard_urls)}")
        self._shard_urls = {
            _shard_key(k, "shard_urls"): check_url(v, f"shard_urls[{k!r}]")
            for k, v in (shard_urls or {}).items()
        }
        self._ask = ask
        self._verify = bool(verify_endpoints)
        self._verifications: dict[tuple[str, bool], asyncio.Task[None]] = {}
        self._shard_info: list[ShardInfo] | None = None
        self._shard_fetch: asyncio.Task[list[ShardInfo]] | None = None

    def reopen(self) -> None:
        """Forget tasks of a closed loop (keeping the checks that passed)."""
        self._shard_fetch = None
        self._verifications = {k: t for k, t in self._verifications.items() if t.done() and not t.cancelled()}

    def take_tasks(self) -> list[asyncio.Task[Any]]:
        """The fetch and checks still running (to cancel on close)."""
        tasks: list[asyncio.Task[Any]] = []
        if self._shard_fetch is not None and not self._shard_fetch.done():
            tasks.append(self._shard_fetch)
        tasks.extend(t for t in self._verifications.values() if not t.done())
        self._shard_fetch = None
        return tasks

    async def shards(self) -> list[ShardInfo]:
        """The network's shards, from ``hmy_getShardingStructure`` on the home URL (cached)."""
        if self._shard_info is None:
            # One shared fetch: every concurrent caller wakes in the same loop tick when it
            # completes, so their own calls are still coalesced into one batch (a lock would
            # wake them one tick apart).
            if self._shard_fetch is None:
                self._shard_fetch = asyncio.get_running_loop().create_task(self._fetch_shards())
            fetch = self._shard_fetch
            try:
                self._shard_info = await asyncio.shield(fetch)
            except HmyframeError:
                if self._shard_fetch is fetch:
                    self._shard_fetch = None  # let a later call try again
                raise
        return list(self._shard_info)

    async def _fetch_shards(self) -> list[ShardInfo]:
        return _parse_shards(await self._ask(self.url, "hmy_getShardingStructure", []), self.url)

    async def home_shard(self) -> int:
        """The shard the home URL serves (the sharding-structure entry with ``current=true``)."""
        current = [s.shard_id for s in await self.shards() if s.current]
        if len(current) != 1:
            raise ResponseShapeError(
                "hmy_getShardingStructure",
                "current",
                current,
                f"exactly one shard marked current=true by {redact_url(self.url)}",
            )
        return current[0]

    def known_url(self, shard: int) -> str | None:
        """The URL of ``shard`` when the caller gave it (``shard_urls``), else ``None``."""
        return self._shard_urls.get(shard)

    def routes_without_asking(self, shard: int) -> bool:
        """Whether a call for ``shard`` can be routed without asking the node for its shards."""
        return self._shard_info is not None or shard in self._shard_urls

    async def endpoint_url(self, shard: int | None = None, *, trace: bool = False) -> str:
        """The URL a call for ``shard`` (``None`` = home) is sent to (see :meth:`Client.endpoint_url`)."""
        shard = _check_shard(shard)
        if trace:
            return await self._verified(await self._trace_url(shard), shard, trace=True)
        if shard is None:
            return self.url
        if shard in self._shard_urls:
            return self._shard_urls[shard]  # the caller's own word
        infos = await self.shards()
        if shard == await self.home_shard():
            return self.url
        for info in infos:
            if info.shard_id == shard:
                url = check_url(info.http, f"the URL hmy_getShardingStructure lists for shard {shard}")
                return await self._verified(url, shard, trace=False)
        raise ConfigError(
            f"shard {shard} is not served by this network: it has shards {[s.shard_id for s in infos]}"
        )

    async def _trace_url(self, shard: int | None) -> str:
        if self._trace is None:
            raise ConfigError(
                f"traces of shard {'home' if shard is None else shard} need a trace endpoint (the trace "
                "port of an archival node): pass trace_rpc= (Python; trace_url= to a Client), "
                "--trace-rpc (command line) or set HMYFRAME_TRACE_RPC"
            )
        if isinstance(self._trace, str):
            if shard is None or shard == await self.home_shard():
                return self._trace
            raise ConfigError(
                f"no trace endpoint for shard {shard}: the one given serves only the home shard "
                f"{await self.home_shard()}; give one per shard (trace_rpc={{shard: url}}, "
                "--trace-rpc 0=URL,1=URL)"
            )
        sid = shard if shard is not None else await self.home_shard()
        if sid in self._trace:
            return self._trace[sid]
        raise ConfigError(
            f"no trace endpoint for shard {sid}: trace URLs are given for shards {sorted(self._trace)}"
        )

    async def _verified(self, url: str, shard: int | None, *, trace: bool) -> str:
        """``url``, once it has been checked to serve this network (see ``verify_endpoints``)."""
        if not self._verify or (url == self.url and not trace):
            return url
        key = (url, trace)
        task = self._verifications.get(key)
        if task is None:
            check = self._check_trace_url(url, shard) if trace else self._check_shard_url(url, shard)
            task = asyncio.get_running_loop().create_task(check)
            self._verifications[key] = task
        try:
            await asyncio.shield(task)
        except WrongChainError:
            raise
        except HmyframeError:
            if self._verifications.get(key) is task:
                del self._verifications[key]  # could not tell (endpoint down): ask again next time
            raise
        return url

    async def _check_shard_url(self, url: str, shard: int | None) -> None:
        home = await self.shards()
        theirs = _parse_shards(await self._ask(url, "hmy_getShardingStructure", []), url)
        ours_listing = [(s.shard_id, s.http) for s in home]
        their_listing = [(s.shard_id, s.http) for s in theirs]
        if their_listing != ours_listing:
            raise WrongChainError(
                f"the URL of shard {shard}, {redact_url(url)}, belongs to another network: its "
                f"hmy_getShardingStructure lists {_listing(theirs)}, the home node {redact_url(self.url)} "
                f"lists {_listing(home)}; nothing was fetched from it"
            )
        current = [s.shard_id for s in theirs if s.current]
        if shard is not None and current != [shard]:
            raise WrongChainError(
                f"the URL of shard {shard}, {redact_url(url)}, serves shard {current[0] if current else '?'} "
                f"(its hmy_getShardingStructure marks it current); nothing was fetched from it"
            )

    async def _check_trace_url(self, url: str, shard: int | None) -> None:
        params: list[Any] = ["0x0", False]
        data_url = await self.endpoint_url(shard)
        # both genesis blocks asked at once: one round trip before the first trace, not two
        asked = asyncio.ensure_future(self._ask(data_url, "hmy_getBlockByNumber", params))
        try:
            try:
                theirs = await self._ask(url, "hmy_getBlockByNumber", params)
            except MethodNotFoundError:
                return  # a trace-only endpoint: the traces' block hashes are checked instead
            ours = await asked
        finally:
            if not asked.done():
                asked.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await asked
        ours_hash = ours.get("hash") if isinstance(ours, dict) else None
        theirs_hash = theirs.get("hash") if isinstance(theirs, dict) else None
        if not isinstance(ours_hash, str) or ours_hash.lower() != str(theirs_hash).lower():
            raise WrongChainError(
                f"the trace endpoint {redact_url(url)} serves another chain than shard "
                f"{'home' if shard is None else shard} at {redact_url(data_url)}: its genesis block hash is "
                f"{short_repr(theirs_hash)}, the shard's is {short_repr(ours_hash)}; nothing was fetched from it"
            )
