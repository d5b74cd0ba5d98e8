"""The node's method table: which JSON-RPC names exist, in which namespaces and profiles.

Each module of :mod:`hmyframe.devnet.methods` registers its handlers here when imported. A
handler takes ``(node, gen, params)`` and returns (or awaits) the JSON bytes of the
``result``, or raises :class:`~hmyframe.devnet.params.RpcFault`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hmyframe.devnet.render import Gen

if TYPE_CHECKING:
    from hmyframe.devnet.shard import ShardState

__all__ = [
    "EMPTY_LIST",
    "METHODS",
    "NULL",
    "Handler",
    "Method",
    "register",
    "register_method",
    "served_methods",
]

Handler = Callable[["ShardState", Gen, list[Any]], "bytes | Awaitable[bytes]"]

NULL = b"null"
EMPTY_LIST = b"[]"


@dataclass(frozen=True, slots=True)
class Method:
    """One served method: its handler, generation (1: ``hmy_``/hex, 2: ``hmyv2_``) and where it exists."""

    handler: Handler
    gen: Gen
    beacon_only: bool = False
    trace_only: bool = False
    validator_limited: bool = False
    current_only: bool = False  # absent from the early-2020 node (the legacy profile)


METHODS: dict[str, Method] = {}


def register(name: str, handler: Handler, *, both: bool = True, v1_only: bool = False, **flags: bool) -> None:
    """Serve ``handler`` as ``hmy_<name>`` and ``hmyv2_<name>`` (``both``), as ``hmy_<name>``
    only (``v1_only``: the node's filter API has no ``hmyv2`` namespace), or as exactly ``name``."""
    if v1_only:
        METHODS[f"hmy_{name}"] = Method(handler, 1, **flags)
    elif both:
        METHODS[f"hmy_{name}"] = Method(handler, 1, **flags)
        METHODS[f"hmyv2_{name}"] = Method(handler, 2, **flags)
    else:
        METHODS[name] = Method(handler, 1, **flags)


def register_method(name: str, handler: Handler, *, current_only: bool = False) -> None:
    """Add a method served under exactly ``name`` (the Ethereum namespace uses this)."""
    register(name, handler, both=False, current_only=current_only)


def served_methods(*, trace_port: bool = True) -> list[str]:
    """Names of every method the devnet answers (on the trace port, or the normal port)."""
    return sorted(name for name, m in METHODS.items() if trace_port or not m.trace_only)
