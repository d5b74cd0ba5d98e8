"""What :func:`hmyframe.events` and :func:`hmyframe.calls` return, from tables already in hand.

One job: choose the events (functions) a caller asks for, name them, decode a table with them
and shape the result: one frame for one event, else a dict of frames by name. The fetchers
(:mod:`hmyframe._public`) call these after reading the cached ``logs`` /
``transactions`` / ``traces``; a caller with a table already (``hmyframe.read("logs")``) calls
them directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from hmyframe.errors import AbiError

from ._columns import Decoded
from ._decode import decode_calls as _decode_calls
from ._decode import decode_logs as _decode_logs
from ._parse import is_bare_signature, parse_abi, select
from ._types import Event, Function

__all__ = [
    "choose_events",
    "choose_functions",
    "decode_calls",
    "decode_chosen_calls",
    "decode_chosen_logs",
    "decode_logs",
    "keys_of",
    "shape",
]

Output = Literal["pandas", "arrow", "polars"]


def keys_of(items: Sequence[Event | Function]) -> list[str]:
    """Each item's key in a dict result: its name where no other item has it, else its canonical
    signature (overloads: ``safeTransferFrom(address,address,uint256)``), else its full signature
    (one signature, other ``indexed`` markers: HRC-20 and HRC-721 ``Transfer``)."""
    out: list[str] = []
    for item in items:
        if sum(i.name == item.name for i in items) == 1:
            out.append(item.name)
        elif sum(i.signature == item.signature for i in items) == 1:
            out.append(item.signature)
        else:
            out.append(item.full_signature)
    return out


def choose_events(abi: object, event: object) -> tuple[list[Event], bool]:
    """The events to decode and whether the result is one frame (one event asked for)."""
    parsed = parse_abi(abi, default="event")
    if not parsed.events:
        raise AbiError("the ABI has no event: expected at least one 'event' entry or an event signature")
    chosen = select(parsed.events, event, "event")
    return chosen, len(chosen) == 1 and (
        event is not None or is_bare_signature(abi) or len(parsed.events) == 1
    )


def choose_functions(abi: object, function: object) -> tuple[list[Function], bool]:
    """The functions to decode and whether the result is one frame (one function asked for)."""
    parsed = parse_abi(abi, default="function")
    if not parsed.functions:
        raise AbiError(
            "the ABI has no function: expected at least one 'function' entry or a function signature"
        )
    chosen = select(parsed.functions, function, "function")
    return chosen, len(chosen) == 1 and (
        function is not None or is_bare_signature(abi) or len(parsed.functions) == 1
    )


def decode_chosen_logs(logs: object, events: Sequence[Event], address: object) -> list[Decoded]:
    """``logs`` decoded by ``events`` already chosen (:func:`choose_events`), one
    :class:`Decoded` per event, keyed as :func:`keys_of` says: the step :func:`hmyframe.events`
    runs off the event loop before :func:`shape`."""
    return _decode_logs(logs, events, address, keys_of(events))


def decode_chosen_calls(
    transactions: object, functions: Sequence[Function], address: object, traces: bool
) -> list[Decoded]:
    """``transactions`` (``traces``: the traced calls) decoded by ``functions`` already chosen
    (:func:`choose_functions`): the step :func:`hmyframe.calls` runs off the event loop."""
    return _decode_calls(transactions, functions, address, keys_of(functions), traces)


def shape(decoded: Sequence[Decoded], single: bool, output: Output) -> Any:
    """One frame (``single``) or a dict of frames by key, as ``output`` asks."""
    from hmyframe.engine import check_output, to_output

    check_output(output)

    def one(d: Decoded) -> Any:
        attrs = {k: v for k, v in d.attrs.items() if k != "key"}
        if output == "pandas":
            df = d.to_pandas()
            df.attrs.clear()
            df.attrs.update(attrs)
            return df
        return to_output(d.to_arrow(), output, attrs)

    if single:
        return one(decoded[0])
    return {d.attrs["key"]: one(d) for d in decoded}


def decode_logs(
    logs: object,
    abi: object,
    event: object = None,
    address: object = None,
    output: Output = "pandas",
) -> Any:
    """Decode a ``logs`` table (or DataFrame) already in hand: what :func:`hmyframe.events` does
    after reading the cached logs.

    Parameters
    ----------
    logs
        The ``logs`` dataset: ``hmyframe.logs(...)``, ``hmyframe.read("logs", folder)``, or its
        Arrow table.
    abi
        An ABI (JSON file, text or list, a built-in name such as ``"uniswap_v2_pair"``) or an
        event signature (``"Swap(address indexed,uint256,uint256,uint256,uint256,address indexed)"``).
    event
        Which events of the ABI: a name (every overload), a signature, or a list; ``None``: all.
    address
        Only logs of this contract (one1 or 0x), or of these.
    output
        ``"pandas"``, ``"arrow"`` or ``"polars"``.

    Returns
    -------
    pandas.DataFrame or dict
        One frame when one event is decoded (a signature, ``event=`` naming one, or an ABI with
        one event), else a dict of frames by event name (by signature where names repeat).
        Each frame's ``attrs["undecoded"]`` lists the logs that matched but did not decode.

    Raises
    ------
    AbiError
        If the ABI is malformed (the message names the entry) or ``event`` is not in it.

    Examples
    --------
    >>> swaps = hmyframe.abi.decode_logs(hmyframe.read("logs"), "uniswap_v2_pair", event="Swap")  # doctest: +SKIP
    """
    events, single = choose_events(abi, event)
    return shape(decode_chosen_logs(logs, events, address), single, output)


def decode_calls(
    transactions: object,
    abi: object,
    function: object = None,
    address: object = None,
    traces: bool = False,
    output: Output = "pandas",
) -> Any:
    """Decode the input of a ``transactions`` table (or of ``traces``' calls) already in hand:
    what :func:`hmyframe.calls` does after reading the cached datasets.

    Parameters
    ----------
    transactions
        The ``transactions`` dataset (or ``traces`` with ``traces=True``), a DataFrame or table.
    abi
        An ABI (JSON file, text or list, a built-in name such as ``"uniswap_v2_router"``) or a
        function signature (``"transfer(address to, uint256 amount)"``).
    function
        Which functions of the ABI: a name (every overload), a signature, or a list; ``None``: all.
    address
        Only calls to this contract (one1 or 0x), or to these.
    traces
        ``transactions`` is the traces dataset: its ``call`` traces (every depth) are decoded.
    output
        ``"pandas"``, ``"arrow"`` or ``"polars"``.

    Returns
    -------
    pandas.DataFrame or dict
        As :func:`decode_logs`, one frame per function; ``attrs["unknown_selectors"]`` lists
        the selectors of the other calls (``{"selector", "calls"}``, most called first).
    """
    functions, single = choose_functions(abi, function)
    return shape(decode_chosen_calls(transactions, functions, address, traces), single, output)
