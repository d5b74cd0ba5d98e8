"""Contract events and calls decoded into exact, typed columns: the ABI codec.

Parse an interface (:func:`parse_abi`: ABI JSON, a built-in name of :data:`BUILTIN_ABIS`, or
human-readable signatures), then decode tables already in hand (:func:`decode_logs`,
:func:`decode_calls`) or single encodings (:func:`decode`). :func:`hmyframe.events` and
:func:`hmyframe.calls` fetch (through the cache) and decode in one step.

Column types: every ``uintN`` is the exact ``uint256`` dtype and every ``intN`` the exact
``int256`` dtype (one dtype per signedness, whatever ``N``: columns of one event add and
compare with each other and with token amounts, and ``.astype("int64")`` is there where values
fit); ``address`` is ``one1`` text with a ``_hex`` twin; ``bool``; ``bytesN`` / ``bytes`` as
``0x`` hex; ``string``; arrays as Python lists; tuples flattened into ``NAME.MEMBER`` columns;
indexed dynamic arguments as their topic hash (:mod:`hmyframe.abi._columns` has the layout).
No value passes through a float.

Modules: ``_types`` (types, events, functions, keccak), ``_parse`` (reading ABIs and
signatures, the built-ins), ``_codec`` (the general decoder, one value at a time), ``_words``
(the vectorised one-word decoder), ``_columns`` (the column layout and frames), ``_decode``
(tables by events / functions), ``_api`` (what the public functions return); ``builtin/`` holds
the built-in interfaces as ABI JSON.

For :func:`hmyframe.events` / :func:`hmyframe.calls` (their coroutines in
:mod:`hmyframe._public`): :func:`choose_events` / :func:`choose_functions` and
:func:`addresses_filter` check the arguments before any request, :func:`decode_chosen_logs` /
:func:`decode_chosen_calls` decode the table read through the cache (off the event loop) and
:func:`shape` makes the result; :func:`keys_of` names each event's frame (the ``hmyframe events``
command's files too).
"""

from hmyframe.abi._api import (
    choose_events,
    choose_functions,
    decode_calls,
    decode_chosen_calls,
    decode_chosen_logs,
    decode_logs,
    keys_of,
    shape,
)
from hmyframe.abi._codec import decode
from hmyframe.abi._decode import addresses_filter
from hmyframe.abi._parse import BUILTIN_ABIS, Abi, builtin, parse_abi
from hmyframe.abi._types import AbiType, Event, Function, Param, event_topic, function_selector, parse_type

__all__ = [
    "BUILTIN_ABIS",
    "Abi",
    "AbiType",
    "Event",
    "Function",
    "Param",
    "addresses_filter",
    "builtin",
    "choose_events",
    "choose_functions",
    "decode",
    "decode_calls",
    "decode_chosen_calls",
    "decode_chosen_logs",
    "decode_logs",
    "event_topic",
    "function_selector",
    "keys_of",
    "parse_abi",
    "parse_type",
    "shape",
]
