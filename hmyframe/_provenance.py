"""Where a file's rows came from: the provenance every cache and export file records in its footer.

Beside the cache's integrity record (:mod:`hmyframe.cache`), each Parquet file written records::

    hmyframe.version        the hmyframe that wrote it                      0.1.0
    hmyframe.fetched_at     when its rows were fetched (UTC, ms)            2026-11-26T07:41:02.123Z
    hmyframe.endpoint       the endpoint they came from, secrets redacted   https://***@rpc.example/***?key=***
                            (several, space-separated, for rpc=[...])
    hmyframe.node_version   the node's own version (``web3_clientVersion``)  Harmony (C) 2023. harmony, version v8...

(the last two only for files written by a fetch; ``endpoint`` and ``node_version`` are left out
when unknown: a node that does not answer ``web3_clientVersion``, or a fetch under a request-rate
cap, ``requests_per_second``, which spends no request on it).

Nothing secret is recorded: the endpoint passes :func:`redact_endpoint` (userinfo, every query
value, the fragment, key-like path segments and host labels); HTTP headers (an
``Authorization`` header) are never looked at. :func:`from_footer` reads a record back,
:func:`summary` condenses the records of a read (``hmyframe.read(...).attrs["provenance"]``).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from hmyframe.errors import redact_url

__all__ = [
    "FIELDS",
    "Provenance",
    "footer",
    "from_footer",
    "of_files",
    "redact_endpoint",
    "summary",
]

_PREFIX = b"hmyframe."
#: The footer keys (after ``hmyframe.``) of a provenance record, in the order shown.
FIELDS = ("version", "fetched_at", "endpoint", "node_version")
# an authority: userinfo@host:port (the userinfo is redacted by redact_url before)
_AUTHORITY = re.compile(r"^(?P<scheme>[^:/?#]+:)?//(?P<netloc>[^/?#]*)(?P<rest>.*)$", re.S)
# A readable host label: a word of lower-case letters and digits, '-' inside (api, s0, hmny,
# harmony-mainnet); a label of 16+ characters mixing letters and digits is taken for a key
# (some providers put the key in the host name: <key>.rpc.example.com).
_WORDY_LABEL = re.compile(r"^[a-z]{1,12}(?:-[a-z0-9]{1,12})*$|^[a-z0-9]{1,15}$")


def redact_endpoint(url: str) -> str:
    """``url`` as a footer may record it: :func:`~hmyframe.errors.redact_url` (userinfo, query
    values, fragment, key-like path segments) and host labels that look like keys too.

    Parameters
    ----------
    url
        An endpoint URL.

    Returns
    -------
    str
        The URL with each secret replaced by ``***``.

    Examples
    --------
    >>> redact_endpoint("https://u:pw@0123456789abcdef0123.rpc.example.com/v3/0123456789abcdef0123?apikey=k#f")
    'https://***@***.rpc.example.com/v3/***?apikey=***#***'
    """
    shown = redact_url(url)
    m = _AUTHORITY.match(shown)
    if m is None:
        return shown
    netloc = m["netloc"]
    user, at, hostport = netloc.rpartition("@")
    host, colon, port = hostport.rpartition(":") if not hostport.endswith("]") else (hostport, "", "")
    if not colon or not port.isdigit():
        host, colon, port = hostport, "", ""
    if not host.startswith("["):  # an IPv6 literal holds no key
        host = ".".join(label if _WORDY_LABEL.match(label.lower()) else "***" for label in host.split("."))
    return f"{m['scheme'] or ''}//{user}{at}{host}{colon}{port}{m['rest']}"


@dataclass(frozen=True)
class Provenance:
    """Where a fetch's rows came from (picklable: it travels to conversion workers).

    Attributes
    ----------
    endpoints
        The endpoint URLs (one, or several for ``rpc=[...]``), redacted when recorded.
    node_version
        What the node said of its version (``web3_clientVersion``), or ``None``.
    fetched_at
        When the rows were fetched (UTC); ``None``: when the file is written.
    """

    endpoints: tuple[str, ...] = ()
    node_version: str | None = None
    fetched_at: dt.datetime | None = None

    def now(self) -> Provenance:
        """This record, fetched now."""
        return replace(self, fetched_at=dt.datetime.now(dt.UTC))


def footer(provenance: Provenance | None) -> dict[bytes, bytes]:
    """The footer key-value pairs of ``provenance`` (and the hmyframe version, always).

    Parameters
    ----------
    provenance
        The fetch's record; ``None``: only the version and the time of writing.

    Returns
    -------
    dict[bytes, bytes]
        ``hmyframe.version``, ``hmyframe.fetched_at`` and, when known, ``hmyframe.endpoint``
        and ``hmyframe.node_version``.
    """
    from hmyframe._version import __version__

    record = provenance or Provenance()
    when = record.fetched_at or dt.datetime.now(dt.UTC)
    out = {
        _PREFIX + b"version": __version__.encode(),
        _PREFIX + b"fetched_at": when.astimezone(dt.UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
        .encode(),
    }
    if record.endpoints:
        # each URL redacted whole, then joined: a space inside one stays inside its *** part
        out[_PREFIX + b"endpoint"] = " ".join(redact_endpoint(url) for url in record.endpoints).encode()
    if record.node_version is not None:
        out[_PREFIX + b"node_version"] = record.node_version.encode()
    return out


def from_footer(metadata: Mapping[bytes, bytes] | None) -> dict[str, str]:
    """The provenance a file's footer records (``{}`` for a file written before it was kept).

    Parameters
    ----------
    metadata
        The Parquet key-value metadata (``pyarrow.parquet.read_metadata(path).metadata``).

    Returns
    -------
    dict[str, str]
        The :data:`FIELDS` the footer holds, by name.
    """
    meta = metadata or {}
    out = {}
    for name in FIELDS:
        value = meta.get(_PREFIX + name.encode())
        if value is not None:
            out[name] = value.decode(errors="replace")
    return out


def of_files(records: Iterable[Mapping[str, str]]) -> Provenance | None:
    """The provenance of a file merged from files with ``records`` (:func:`from_footer` of each):
    every endpoint they name, the node version of the last fetched, fetched when the last was;
    ``None`` when none records one."""
    known = sorted((r for r in records if r.get("fetched_at")), key=lambda r: r["fetched_at"])
    if not known:
        return None
    endpoints = dict.fromkeys(url for r in known for url in r.get("endpoint", "").split() if url)
    return Provenance(
        endpoints=tuple(endpoints),
        node_version=known[-1].get("node_version"),
        fetched_at=dt.datetime.fromisoformat(known[-1]["fetched_at"]),
    )


def summary(records: Iterable[Mapping[str, str]]) -> list[dict[str, Any]]:
    """The records of several files, one entry per source (version, endpoint, node version).

    Parameters
    ----------
    records
        :func:`from_footer` of each file (empty ones are skipped).

    Returns
    -------
    list[dict]
        Per source, in order of first fetch: ``hmyframe_version``, ``endpoint``,
        ``node_version`` (``None`` when not recorded), ``first_fetched`` / ``last_fetched``
        (ISO 8601 UTC) and ``files``.
    """
    groups: dict[tuple[str | None, ...], dict[str, Any]] = {}
    for record in records:
        if not record:
            continue
        key = (record.get("version"), record.get("endpoint"), record.get("node_version"))
        when = record.get("fetched_at", "")
        group = groups.get(key)
        if group is None:
            groups[key] = {
                "hmyframe_version": key[0],
                "endpoint": key[1],
                "node_version": key[2],
                "first_fetched": when,
                "last_fetched": when,
                "files": 1,
            }
            continue
        group["first_fetched"] = min(group["first_fetched"], when)
        group["last_fetched"] = max(group["last_fetched"], when)
        group["files"] += 1
    return sorted(groups.values(), key=lambda g: str(g["first_fetched"]))
