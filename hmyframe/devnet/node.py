"""One shard's node: :class:`ShardNode` dispatches a JSON-RPC call to its method and answers
from the chain.

:meth:`ShardNode.call` takes a method name and its decoded params and returns the JSON bytes
of the ``result`` or raises :class:`RpcFault` with the node's error code and message. The
jobs around it live beside it:

* :mod:`hmyframe.devnet.params`: param decoding and the node's error texts;
* :mod:`hmyframe.devnet.limits`: the rate limiters (global per call, validator pages);
* :mod:`hmyframe.devnet.methods`: the methods, one module per area, and the method table;
* :mod:`hmyframe.devnet.server`: the HTTP side (envelopes, batches, limits, faults, statistics).

The names those modules define that callers used to import from here are re-exported.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Any

from hmyframe.devnet.limits import VALIDATOR_RATE_LIMIT, NodeLimiter, RateLimit, TokenBucket
from hmyframe.devnet.methods import METHODS as _METHODS
from hmyframe.devnet.methods import Method, register_method, served_methods
from hmyframe.devnet.methods.blocks import GET_BLOCKS_LIMIT
from hmyframe.devnet.methods.network import CHAIN_ID
from hmyframe.devnet.methods.validators import VALIDATOR_PAGE_SIZE
from hmyframe.devnet.params import (
    ERR_CRASHED,
    ERR_NOT_BEACON,
    ERR_PENDING,
    LATEST,
    PENDING,
    RpcFault,
    arity,
    block_number_param,
    hash_param,
)
from hmyframe.devnet.shard import ChainAPI, ShardState

__all__ = [
    "CHAIN_ID",
    "ERR_CRASHED",
    "ERR_PENDING",
    "GET_BLOCKS_LIMIT",
    "LATEST",
    "PENDING",
    "VALIDATOR_PAGE_SIZE",
    "VALIDATOR_RATE_LIMIT",
    "ChainAPI",
    "NodeLimiter",
    "RateLimit",
    "RpcFault",
    "ShardNode",
    "TokenBucket",
    "arity",
    "block_number_param",
    "hash_param",
    "register_method",
    "served_methods",
]


class ShardNode(ShardState):
    """One shard's node: answers JSON-RPC calls from the chain (its state and shared helpers are
    :class:`~hmyframe.devnet.shard.ShardState`'s; see there for the parameters)."""

    # -- dispatch -------------------------------------------------------------------------------

    def lookup(self, method: str, *, trace_port: bool) -> Method:
        """The method entry, or RpcFault -32601 if unknown, not on this port or denied by the
        node's RPC method filter (a denied method is never registered: ``eth/rpc/service.go``)."""
        entry = _METHODS.get(method)
        if entry is not None and entry.current_only and self.profile != "current":
            entry = None
        if entry is not None and any(fnmatchcase(method, pattern) for pattern in self.rpc_deny):
            entry = None
        if entry is None or (entry.trace_only and not trace_port):
            raise RpcFault(-32601, f"the method {method} does not exist/is not available")
        return entry

    async def call(self, method: str, params: Any, *, trace_port: bool) -> bytes:
        """Answer one call: the ``result`` JSON bytes, or raise :class:`RpcFault`.

        Parameters
        ----------
        method
            The JSON-RPC method.
        params
            The decoded ``params`` (``None`` when absent).
        trace_port
            Whether the call arrived on the trace ("auth") port.
        """
        entry = self.lookup(method, trace_port=trace_port)
        if params is None:
            params = []
        elif not isinstance(params, list):
            raise RpcFault(-32602, "non-array args")
        if self.rpc_limiter is not None and not method.endswith("_getBlocks"):  # (it waits per block)
            await self.rpc_limiter.wait(method)
        if entry.beacon_only and self.shard != 0:
            raise RpcFault(-32000, ERR_NOT_BEACON)
        result = entry.handler(self, entry.gen, params)
        if isinstance(result, bytes):
            return result
        return await result
