"""The public fetchers, written once; :mod:`hmyframe.aio` binds each under its public name.

* Each parameter a fetcher takes is documented once, in :data:`PARAMETERS`.
* Each *kind* of fetcher has one template coroutine whose signature is the kind's public
  signature: :func:`_range_template` (block ranges), :func:`_traces_template` (block ranges of
  a trace endpoint), :func:`_snapshot_template` (validator snapshots). The datasets registry says
  which datasets are of which kind (``Dataset.fetched_by``); :func:`range_fetcher`,
  :func:`traces_fetcher` and :func:`snapshot_fetcher` bind a dataset name to its template. The
  bound coroutine keeps the template's parameters for mypy (``ParamSpec``) and for ``help()``
  and IDEs (``__signature__``), and gets a docstring built from the dataset's schema.
* Point lookups (``head``, ``shards``, ``tx_counts``, the ``*_by_hash`` functions...) have
  signatures of their own and are written here once each, documented from the same table;
  so are :func:`follow` (an async iterator of new batches) and :func:`staking_history`.
* The decoders :func:`events` and :func:`calls` read a range dataset (``logs``,
  ``transactions``, ``traces``) through the same range fetch and cache, then decode it with
  :mod:`hmyframe.abi` off the event loop: a range already cached sends no request.
* :data:`REGISTRY` lists every fetcher made or documented here (its kind and dataset).

The doors: ``hmyframe.aio.<name>`` is the coroutine (one line of :mod:`hmyframe.aio` binds
each), ``hmyframe.<name>`` its blocking twin (made by :mod:`hmyframe` from that list on first
use). Nothing else imports these functions, but :func:`hmyframe.plot.live`, which follows the
chain below :mod:`hmyframe.aio`'s layer.

A new parameter is added to its kind's template (and documented in :data:`PARAMETERS`); a new
dataset declares ``fetched_by`` in its module and gets a binding line in :mod:`hmyframe.aio`.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import textwrap
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any, Concatenate, Literal, ParamSpec, TypeAlias, TypeVar, Union

from hmyframe import datasets as ds
from hmyframe._lazy import lazy_module
from hmyframe._tasks import gather_or_raise
from hmyframe.cache import Cache
from hmyframe.datasets import sources
from hmyframe.engine import (
    CX_WINDOW,
    RANGE_DATASETS,
    FetchOptions,
    MissingPolicy,
    Output,
    Progress,
    Session,
    ShardSpec,
    StakingHistory,
    addresses_arg,
    block_arg,
    check_output,
    fetch_account_transactions,
    fetch_balances,
    fetch_delegator_rewards,
    fetch_delegator_table,
    fetch_dex_pairs,
    fetch_holders,
    fetch_native_transfers,
    fetch_pending_cx_receipts,
    fetch_rewards_collected,
    fetch_sharding_structure,
    fetch_snapshot,
    fetch_staking_history,
    fetch_token_balances,
    fetch_tokens,
    fetch_traces_by_hash,
    fetch_transactions_by_hash,
    fetch_tx_counts,
    follow_shards,
    history_args,
    parse_range,
    to_output,
    token_pairs,
    tokens_of_transfers,
)
from hmyframe.engine import fetch_shards as fetch_range_shards
from hmyframe.engine import shard_ids as _shard_ids
from hmyframe.engine import shard_label as _label
from hmyframe.engine import shard_spec as _shard_spec
from hmyframe.errors import ConfigError, NonStandardTokenWarning, short_repr
from hmyframe.rpc import HeadSource, check_heads

if TYPE_CHECKING:
    import pyarrow as pa
else:
    pa = lazy_module("pyarrow")

__all__ = [
    "PARAMETERS",
    "REGISTRY",
    "BlockSpec",
    "CacheArg",
    "Frame",
    "ProgressArg",
    "PublicFunction",
    "TraceRpc",
    "range_fetcher",
    "snapshot_fetcher",
    "token_transfers_fetcher",
    "traces_fetcher",
]
# (the functions written here, head ... staking_history, are bound by hmyframe.aio, their door)

P = ParamSpec("P")
R = TypeVar("R")

#: ``start`` / ``end`` of a range: a block number, a spec string, or a date / datetime / Timestamp.
BlockSpec: TypeAlias = int | str | date
#: ``cache``: on (``data/``), a folder, a :class:`~hmyframe.Cache`, or off.
CacheArg: TypeAlias = bool | str | os.PathLike[str] | Cache
#: ``progress``: a bar, a callback taking a count, or silence.
ProgressArg: TypeAlias = bool | Callable[[int], None]
#: ``trace_rpc``: one URL or one per shard.
TraceRpc: TypeAlias = str | dict[int, str] | None
#: What a fetcher returns: a pandas DataFrame by default; a pyarrow Table or a polars DataFrame
#: with ``output="arrow"`` / ``"polars"``. (Named, not imported, at run time: pandas loads when
#: a frame is made, not with this module.)
if TYPE_CHECKING:
    import pandas as pd

    Frame: TypeAlias = Union[pd.DataFrame, Any]  # noqa: UP007
else:
    Frame = "pandas.DataFrame"

# --------------------------------------------------------------------------- documentation

#: The one description of every parameter a public fetcher takes.
PARAMETERS: dict[str, str] = {
    "start": (
        "First block of the range, resolved on each shard: a block number (``1500000``, "
        '``"1.5M"``, ``"250K"``), a date or time in UTC (``"2026-01-01"``, '
        '``"2026-01-01T12:00"``, ``datetime``, ``pandas.Timestamp``: the first block at or '
        "after it), ``-N`` (the last N blocks up to ``end``), or the whole range with ``end`` left "
        'out, cryo style: ``"-1000:"`` (the last 1000 blocks), ``"1M:1.1M"``, ``":700"``, '
        '``"2M:"``. Times are found by a search on block timestamps (a handful of requests, '
        "remembered for the rest of the process)."
    ),
    "end": (
        'Last block, inclusive: a block number, ``"latest"``, a time (the last block at or before '
        'it), a date (its whole UTC day), or ``"+N"`` (N blocks from ``start``). Default: the '
        "shard's head."
    ),
    "shard": (
        '``0`` (the beacon chain, the default), another shard id, a list of ids, or ``"all"`` '
        "(every shard the node lists). Several shards are fetched concurrently, each cached as "
        "if fetched alone, and returned as one table with ``shard_id``, shard after shard. Block "
        "numbers repeat across shards: join tables on ``(shard_id, block_number)`` or on "
        "``block_hash``; a join on ``block_number`` alone pairs rows of different shards."
    ),
    "lookup_shard": "Shard to ask (``0``, the beacon chain, by default).",
    "block": (
        "Block of the snapshot (``None``: the head of shard 0). The block used is in "
        '``df.attrs["snapshot_block"]`` and in the ``snapshot_block`` column.'
    ),
    "rpc": (
        'Where to fetch from: a node URL (``"https://api.s0.t.hmny.io"``), ``"devnet"`` (the '
        "embedded devnet, started on first use), a running :class:`~hmyframe.devnet.Devnet`, an "
        "open :class:`~hmyframe.Client`, or an open :class:`~hmyframe.Session` (then its client, "
        "cache and options are used and ``cache`` / ``options`` here are ignored). Default: "
        "``$HMYFRAME_RPC``, else the public mainnet endpoint. Other shards are reached at the "
        "URLs the node lists (``hmy_getShardingStructure``). A list of URLs (or Devnets) names "
        "several endpoints of one chain: calls are spread over them by speed, a failing one is "
        "set aside and tried again later, each one's chain is checked before use."
    ),
    "trace_rpc": (
        "URL serving ``trace_*`` (an archival / trace node), or ``{shard: url}``. Default: "
        "``$HMYFRAME_TRACE_RPC``; the devnet's trace ports for the devnet; the public archival "
        "endpoint for the public mainnet URL."
    ),
    "cache": (
        "Where fetched data is kept as Parquet, so each block range or snapshot is fetched once: "
        "``True`` (``data/``, or ``$HMYFRAME_CACHE``), a folder, a :class:`~hmyframe.Cache`, or "
        "``False`` (fetch and keep nothing). Read a cache or export folder back with "
        ":func:`hmyframe.read`."
    ),
    "options": (
        ":class:`~hmyframe.FetchOptions`: blocks per cache file, ``getBlocks`` or batched calls, "
        "RPC generation, requests in flight, requests per second, timeout, retries, pacing of "
        "validator pages. Default: ``FetchOptions()``."
    ),
    "progress": (
        "``True`` shows a progress bar with a rate and an ETA (a widget in Jupyter with the "
        "``notebook`` extra installed; nothing when stderr is not a terminal); a callable is "
        "called with each step's count ({unit}); ``False`` (default) is silent."
    ),
    "output": (
        '``"pandas"`` (default): a DataFrame, exact amounts in the ``atto`` dtype (exact integers '
        "that add, subtract, sum, group and compare), a ``*_one`` float column beside each; "
        '``"arrow"``: a ``pyarrow.Table`` (amounts ``decimal128(38, 0)``); ``"polars"``: a polars '
        "DataFrame (needs polars installed)."
    ),
    "on_missing": (
        'What to do about hashes the node does not know: ``"warn"`` (default, a '
        ':class:`~hmyframe.NotFoundWarning`), ``"raise"`` (:class:`~hmyframe.errors.NotFoundError`) '
        'or ``"ignore"``. They are listed in ``df.attrs["not_found"]`` in every case.'
    ),
    "hashes": "0x Harmony transaction hashes (one string or a sequence); repeated hashes are asked once.",
    "addresses": (
        "Account addresses, one1 or 0x (one string or a sequence); an address given twice (in "
        "either form) is asked once."
    ),
    "count_block": "Block at which to read the counts (``None``: the shard's head).",
    "token_addresses": (
        "Token contract addresses, one1 or 0x (one string or a sequence); a token given twice (in "
        "either form) is asked once."
    ),
    "token_block": (
        "Block at which to read the metadata (``None``: the shard's head, asked now). The block "
        'used is in ``df.attrs["block"]`` and in the ``block_number`` column.'
    ),
    "with_tokens": (
        "``True`` adds each token's ``token_name``, ``token_symbol`` and ``token_decimals`` (the "
        "``tokens`` dataset, read on each shard at the range's last block and cached) and "
        "``amount_scaled`` (``amount / 10**token_decimals`` as a float, null where the decimals are "
        "unknown; exact: ``hmyframe.to_units(df.amount, df.token_decimals)``). Default ``False``."
    ),
    "abi_events": (
        "The contract interface: an ABI (a JSON file's path, JSON text, a list of entries, or a "
        "Hardhat / Foundry artifact), a built-in name (``'hrc20'``, ``'hrc721'``, ``'hrc1155'``, "
        "``'wone'``, ``'uniswap_v2_factory'``, ``'uniswap_v2_pair'``, ``'uniswap_v2_router'``), or "
        'event signatures (``"Swap(address indexed sender, uint256 amount0In, uint256 amount1In, '
        'uint256 amount0Out, uint256 amount1Out, address indexed to)"``; names optional, several '
        "separated by ``;``). A malformed ABI raises :class:`~hmyframe.errors.AbiError` naming the entry."
    ),
    "abi_calls": (
        "The contract interface: an ABI (a JSON file's path, JSON text, a list of entries, or a "
        'Hardhat / Foundry artifact), a built-in name (``"hrc20"``, ``"uniswap_v2_router"``...), or '
        'function signatures (``"transfer(address to, uint256 amount)"``; names optional, several '
        "separated by ``;``). A malformed ABI raises :class:`~hmyframe.errors.AbiError` naming the entry."
    ),
    "event": (
        "Which events of the ABI to decode: a name (every overload of it), a signature, or a list "
        "of these; ``None`` (default): all. One event gives one DataFrame, several a dict of "
        "DataFrames by event name (by signature where two share a name)."
    ),
    "function": (
        "Which functions of the ABI to decode: a name (every overload of it), a signature, or a "
        "list of these; ``None`` (default): all. One function gives one DataFrame, several a dict "
        "of DataFrames by function name (by signature where two share a name)."
    ),
    "contract_address": (
        "Only this contract (one1 or 0x), or any of a list of them: the logs it emitted "
        "(``events``), the calls it received (``calls``). Default ``None``: every contract."
    ),
    "traces_flag": (
        "``False`` (default): decode the input of the transactions (``transactions``). ``True``: "
        "decode every call of the ``traces`` dataset instead: each transaction's own call and its "
        "internal calls, with ``trace_address``, ``call_type`` and ``error`` (needs a trace endpoint)."
    ),
    "balance_addresses": (
        "Accounts, one1 or 0x: one string, a sequence or a pandas Series; an address given "
        'twice (in either form) is asked once. ``"seen"``: every sender and receiver of the '
        "(cached) transactions of the blocks' range on that shard."
    ),
    "balance_blocks": (
        "Blocks to read at: one number, a list, a ``range`` (with a step: "
        '``range(0, 10_000, 500)``), ``"epochs"`` (each finished epoch\'s last block) or '
        "``None`` (the shard's head, asked now). The balance at block N is the state **after** "
        "block N."
    ),
    "delegators": "Delegator addresses, one1 or 0x (one string or a sequence).",
    "delegation_block": "Block to read at (``None``: the beacon shard's head).",
    "epochs": (
        "Which epochs: a number (the last N before the current one), or a list or range of "
        "epoch numbers (the current one gives its figures so far)."
    ),
    "history_addresses": "Accounts, one1 or 0x (one string or a sequence).",
    "staking": "Also read the staking history (``getStakingTransactionsHistory``; shard 0 only).",
    "order": (
        '``"asc"`` (oldest first, the default) or ``"desc"``: which end of each history the '
        "pages (and ``limit``) start from; rows are sorted by block either way."
    ),
    "limit": "At most this many plain (and this many staking) transactions per address (``None``: all).",
    "range_start": "First block of the range (a block number).",
    "range_end": "Last block of the range, inclusive (``None``: the shard's head).",
    "token_pairs": (
        "Which balances: a sequence of ``(token, holder)`` pairs, or a token address (then "
        "``holders_of`` lists the holders)."
    ),
    "holders_of": "Holders to read when ``pairs`` is one token (one1 or 0x).",
    "token": "The token contract (one1 or 0x).",
    "cx_window": (
        "Seconds before the range's first block in which to look for the other shards' "
        "cross-shard sends it may credit (a receipt normally lands within seconds)."
    ),
    "check": "How many holders (the largest) to check against ``balanceOf`` at the last block.",
    "dex_pairs": (
        "UniswapV2-style pair contracts, one1 or 0x: one string, a sequence or a pandas Series (e.g. "
        '``swaps["address"].unique()`` of decoded Swap events); a pair given twice is asked once.'
    ),
    "pair_block": (
        "Block at which to read the pairs (``None``: the shard's head, asked now); the state after "
        'it. The block used is in ``df.attrs["block"]`` and in the ``block_number`` column.'
    ),
    "with_pair_tokens": (
        "``True`` (default) adds each pair's tokens' ``token0_name``, ``token0_symbol``, "
        "``token0_decimals`` and ``token1_*`` (the ``tokens`` dataset at the same block, cached); "
        "``False`` reads the pairs only."
    ),
    "dataset": "A dataset name (``hmyframe.DATASETS``); range datasets take ``start`` / ``end`` / ``shard``, snapshot datasets ``block``.",
    "fetch_start": "As ``start`` of the range fetchers (range datasets only).",
    "fetch_block": "As ``block`` of the snapshot fetchers (snapshot datasets only).",
}

_UNITS = {"range": "blocks", "snapshot": "validator pages", "lookup": "answers", "decoded": "blocks"}


def _param_doc(name: str, kind: str, label: str | None = None) -> str:
    text = PARAMETERS[name].replace("{unit}", _UNITS[kind])
    body = textwrap.fill(text, 92, initial_indent="    ", subsequent_indent="    ")
    return f"{label or name}\n{body}"


def _doc(
    summary: str,
    parameters: Sequence[str | tuple[str, str]],
    kind: str,
    returns: str,
    notes: str = "",
    example: str = "",
) -> str:
    """A NumPy-style docstring from the shared parameter descriptions."""
    out = [summary, ""]
    if notes:
        out += [textwrap.fill(notes, 96), ""]
    out += ["Parameters", "----------"]
    for p in parameters:
        name, key = (p, p) if isinstance(p, str) else p
        out.append(_param_doc(key, kind, name))
    out += ["", "Returns", "-------", returns]
    if example:
        out += ["", "Examples", "--------", example]
    return "\n".join(out) + "\n"


def _frame_returns(name: str, extra: str = "") -> str:
    dataset = ds.get(name)
    order = f" Sorted by {', '.join(dataset.sort_by)}." if dataset.sort_by else ""
    text = (
        f"The ``{name}`` dataset: {dataset.description}{order}{extra} Column types and descriptions: "
        f'``hmyframe.schema("{name}")`` or ``hmyframe schema {name}``. Columns: '
        + ", ".join(dataset.schema.names)
        + "."
    )
    body = textwrap.fill(text, 92, initial_indent="    ", subsequent_indent="    ", break_on_hyphens=False)
    return f"pandas.DataFrame (``output`` may ask for a pyarrow.Table or a polars DataFrame)\n{body}"


# --------------------------------------------------------------------------- plumbing


@contextlib.asynccontextmanager
async def _session(
    rpc: object, trace_rpc: TraceRpc, cache: CacheArg, options: FetchOptions | None
) -> AsyncIterator[Session]:
    if isinstance(rpc, Session):
        yield rpc
        return
    async with Session(rpc, trace_rpc=trace_rpc, cache=cache, options=options) as session:
        yield session


@contextlib.asynccontextmanager
async def _reading(
    rpc: object,
    trace_rpc: TraceRpc,
    cache: CacheArg,
    options: FetchOptions | None,
    progress: ProgressArg,
    label: str,
    unit: str = "answers",
) -> AsyncIterator[tuple[Session, Callable[[int], None]]]:
    """A lookup's session and, inside it, its progress bar ``label`` counting ``unit``:
    ``(session, bar.update)``."""
    async with _session(rpc, trace_rpc, cache, options) as session:
        with Progress.make(progress, label, unit=unit) as bar:
            yield session, bar.update


def _flag(value: object, name: str) -> None:
    """ConfigError unless ``value`` is True or False."""
    if not isinstance(value, bool):
        raise ConfigError(f"{name} must be True or False, got {short_repr(value)}")


async def _range(
    name: str,
    start: object,
    end: object,
    shard: object,
    rpc: object,
    trace_rpc: TraceRpc,
    cache: CacheArg,
    options: FetchOptions | None,
    progress: ProgressArg,
    output: Output,
    extend: Callable[[Session, dict[int, tuple[int, int]], pa.Table], Awaitable[pa.Table]] | None = None,
) -> Frame:
    check_output(output)
    table = await _range_table(name, start, end, shard, rpc, trace_rpc, cache, options, progress, extend)
    return to_output(table, output)


async def _range_table(
    name: str,
    start: object,
    end: object,
    shard: object,
    rpc: object,
    trace_rpc: TraceRpc,
    cache: CacheArg,
    options: FetchOptions | None,
    progress: ProgressArg,
    extend: Callable[[Session, dict[int, tuple[int, int]], pa.Table], Awaitable[pa.Table]] | None = None,
) -> pa.Table:
    """The Arrow table of range dataset ``name`` (through the cache), shard after shard."""
    parse_range(start, end)  # a spec that is not understood fails before any request
    spec = _shard_spec(shard)
    async with _session(rpc, trace_rpc, cache, options) as session:
        ids = await _shard_ids(session, spec)
        with Progress.make(progress, _label(name, ids)) as bar:
            bar.watch_node(session.client)  # ("node rate limit ~5 calls/s" when it bounds the speed)
            ranges, tables = await fetch_range_shards(
                session, [name], start, end, ids, progress=bar.update, on_plan=bar.plan
            )
        table = tables[name]
        if extend is not None:  # more of the node's answers, in the same session
            table = await extend(session, ranges, table)
    return table


async def _snapshot(
    name: str,
    block: int | None,
    rpc: object,
    cache: CacheArg,
    options: FetchOptions | None,
    progress: ProgressArg,
    output: Output,
) -> Frame:
    check_output(output)
    async with _reading(rpc, None, cache, options, progress, f"{name} snapshot", "pages") as (
        session,
        update,
    ):
        at, tables = await fetch_snapshot(session, [name], block, progress=update)
    return to_output(tables[name], output, {"snapshot_block": at})


# --------------------------------------------------------------------------- the templates


async def _range_template(
    name: str,
    start: BlockSpec,
    end: BlockSpec | None = None,
    shard: ShardSpec = 0,
    *,
    rpc: object = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: ProgressArg = False,
    output: Output = "pandas",
) -> Frame:
    return await _range(name, start, end, shard, rpc, None, cache, options, progress, output)


async def _traces_template(
    name: str,
    start: BlockSpec,
    end: BlockSpec | None = None,
    shard: ShardSpec = 0,
    *,
    rpc: object = None,
    trace_rpc: TraceRpc = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: ProgressArg = False,
    output: Output = "pandas",
) -> Frame:
    return await _range(name, start, end, shard, rpc, trace_rpc, cache, options, progress, output)


async def _join_tokens(session: Session, ranges: dict[int, tuple[int, int]], table: pa.Table) -> pa.Table:
    """``table`` (token_transfers) joined with its tokens' metadata at each shard's last block."""
    from hmyframe.datasets import token_transfers as tt

    return tt.with_tokens(table, await tokens_of_transfers(session, ranges, table))


async def _token_transfers_template(
    name: str,
    start: BlockSpec,
    end: BlockSpec | None = None,
    shard: ShardSpec = 0,
    *,
    with_tokens: bool = False,
    rpc: object = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: ProgressArg = False,
    output: Output = "pandas",
) -> Frame:
    _flag(with_tokens, "with_tokens")
    extend = _join_tokens if with_tokens else None
    return await _range(name, start, end, shard, rpc, None, cache, options, progress, output, extend)


async def _snapshot_template(
    name: str,
    block: int | None = None,
    *,
    rpc: object = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: ProgressArg = False,
    output: Output = "pandas",
) -> Frame:
    return await _snapshot(name, block, rpc, cache, options, progress, output)


# --------------------------------------------------------------------------- the registry


@dataclass(frozen=True)
class PublicFunction:
    """One public fetcher.

    Attributes
    ----------
    name
        Its name in ``hmyframe`` and ``hmyframe.aio``.
    kind
        ``"range"``, ``"snapshot"``, ``"lookup"``, ``"any"`` (:func:`fetch`) or ``"decoded"``
        (:func:`events`, :func:`calls`: a range dataset decoded by a contract ABI).
    dataset
        The dataset it returns (``None`` for :func:`head` and :func:`fetch`).
    function
        The coroutine function (``hmyframe.aio.<name>``).
    """

    name: str
    kind: Literal["range", "snapshot", "lookup", "any", "decoded"]
    dataset: str | None
    function: Callable[..., Coroutine[Any, Any, Any]]


#: Every public fetcher by name, in documentation order.
REGISTRY: dict[str, PublicFunction] = {}


def _register(
    name: str,
    kind: Literal["range", "snapshot", "lookup", "any", "decoded"],
    dataset: str | None,
    function: Any,
) -> None:
    if name in REGISTRY:
        raise ConfigError(f"public fetcher {name!r} is defined twice")
    _name(function, name)
    REGISTRY[name] = PublicFunction(name, kind, dataset, function)


def _name(function: Any, name: str) -> None:
    """Name ``function`` as its door does: ``hmyframe.aio.<name>``."""
    function.__module__ = "hmyframe.aio"
    function.__name__ = function.__qualname__ = name


def _bind(
    template: Callable[Concatenate[str, P], Coroutine[Any, Any, R]],
    name: str,
    kind: Literal["range", "snapshot"],
    doc: Callable[[str, list[str]], str],
) -> Callable[P, Coroutine[Any, Any, R]]:
    """``template`` with its first argument (the dataset name) fixed, documented (``doc(name,
    parameters)``) and registered."""

    async def fetcher(*args: P.args, **kwargs: P.kwargs) -> R:
        return await template(name, *args, **kwargs)

    signature = inspect.signature(template, eval_str=True)
    parameters = list(signature.parameters.values())[1:]
    fetcher.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    fetcher.__doc__ = doc(name, [p.name for p in parameters])
    _register(name, kind, name, fetcher)
    return fetcher


def _dataset_of(name: str, kind: Literal["range", "snapshot"], traced: bool) -> ds.Dataset:
    dataset = ds.get(name)
    fetched_by = sources.kind_of(name)
    if fetched_by != kind or (kind == "range" and sources.source_of(name).trace_endpoint) != traced:
        raise ConfigError(
            f"dataset {name!r} is fetched by {fetched_by} (source {dataset.source}), not by this factory"
        )
    return dataset


def _range_doc(name: str, parameters: list[str]) -> str:
    return _doc(
        ds.get(name).summary or ds.get(name).description,
        parameters,
        "range",
        _frame_returns(name),
        ds.get(name).notes,
        f'>>> import hmyframe\n>>> df = hmyframe.{name}(0, 99, rpc="devnet")              # doctest: +SKIP\n'
        f'>>> df = hmyframe.{name}("2026-01-01", "2026-01-07", shard="all")  # doctest: +SKIP',
    )


def _snapshot_doc(name: str, parameters: list[str]) -> str:
    return _doc(
        ds.get(name).summary or ds.get(name).description,
        parameters,
        "snapshot",
        _frame_returns(name, ' ``df.attrs["snapshot_block"]`` holds the block.'),
        ds.get(name).notes,
        f'>>> import hmyframe\n>>> df = hmyframe.{name}(rpc="devnet")                # doctest: +SKIP',
    )


def _factory(
    template: Callable[Concatenate[str, P], Coroutine[Any, Any, R]],
    kind: Literal["range", "snapshot"],
    traced: bool,
    doc: Callable[[str, list[str]], str],
) -> Callable[[str], Callable[P, Coroutine[Any, Any, R]]]:
    """A maker of public fetchers of one kind: ``maker(dataset_name)`` binds ``template``."""

    def make(name: str) -> Callable[P, Coroutine[Any, Any, R]]:
        _dataset_of(name, kind, traced)
        return _bind(template, name, kind, doc)

    return make


#: ``range_fetcher("blocks")``: the public async fetcher of a block-range dataset.
range_fetcher = _factory(_range_template, "range", False, _range_doc)
#: ``traces_fetcher("traces")``: the public async fetcher of a range dataset of a trace endpoint.
traces_fetcher = _factory(_traces_template, "range", True, _range_doc)
#: ``token_transfers_fetcher("token_transfers")``: the range fetcher with ``with_tokens``.
token_transfers_fetcher = _factory(_token_transfers_template, "range", False, _range_doc)
#: ``snapshot_fetcher("validators")``: the public async fetcher of a validator-snapshot dataset.
snapshot_fetcher = _factory(_snapshot_template, "snapshot", False, _snapshot_doc)


# --------------------------------------------------------------------------- by name, and lookups


def _public(
    kind: Literal["lookup", "any", "decoded"],
    dataset: str | None,
    summary: str,
    described_as: Mapping[str, str],
    returns: str,
    notes: str = "",
    example: str = "",
) -> Callable[[Callable[P, Coroutine[Any, Any, R]]], Callable[P, Coroutine[Any, Any, R]]]:
    """Document a hand-written public coroutine from :data:`PARAMETERS` and register it: each of
    its parameters, in order, by the entry of its name (``described_as``: by another entry)."""

    def decorate(function: Callable[P, Coroutine[Any, Any, R]]) -> Callable[P, Coroutine[Any, Any, R]]:
        # annotations evaluated, as help() and IDEs should show them (not as strings)
        signature = inspect.signature(function, eval_str=True)
        function.__signature__ = signature  # type: ignore[attr-defined]
        parameters = [(name, described_as.get(name, name)) for name in signature.parameters]
        function.__doc__ = _doc(
            summary, parameters, "lookup" if kind == "lookup" else "range", returns, notes, example
        )
        _register(function.__name__, kind, dataset, function)
        return function

    return decorate


@_public(
    "any",
    None,
    'Deprecated: any range or snapshot dataset by name (``hmyframe.fetch("traces", 0, 99)``); call '
    "the dataset's own function (``hmyframe.traces(0, 99)``; by name: "
    '``getattr(hmyframe, "traces")(0, 99)``).',
    {"start": "fetch_start", "block": "fetch_block"},
    "pandas.DataFrame (``output`` may ask for a pyarrow.Table or a polars DataFrame)\n"
    "    As the dataset's own function returns it.",
    "Each dataset has one function per door (``hmyframe.<name>``, ``hmyframe.aio.<name>``); this "
    "second door by name warns (DeprecationWarning) and will go.",
)
async def fetch(
    dataset: str,
    start: BlockSpec | None = None,
    end: BlockSpec | None = None,
    shard: ShardSpec = 0,
    *,
    block: int | None = None,
    rpc: object = None,
    trace_rpc: TraceRpc = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: ProgressArg = False,
    output: Output = "pandas",
) -> Frame:
    warnings.warn(
        f"hmyframe.fetch({dataset!r}, ...) is deprecated: call hmyframe.{dataset}(...) "
        f"(await hmyframe.aio.{dataset}(...)); by name: getattr(hmyframe, {dataset!r})(...)",
        DeprecationWarning,
        stacklevel=2,
    )
    kind = sources.kind_of(dataset)  # ConfigError listing the names if unknown
    if kind == "range":
        if start is None:
            raise ConfigError(f"dataset {dataset!r} needs a start block")
        if block is not None:
            raise ConfigError(
                f"dataset {dataset!r} is fetched by block range: give start/end, not block={block!r}"
            )
        return await _range(dataset, start, end, shard, rpc, trace_rpc, cache, options, progress, output)
    if kind == "snapshot":
        if start is not None or end is not None:
            raise ConfigError(
                f"dataset {dataset!r} is a snapshot at one block: give block=, not a start/end range "
                f"(got start={start!r}, end={end!r})"
            )
        return await _snapshot(dataset, block, rpc, cache, options, progress, output)
    lookups = [f.name for f in REGISTRY.values() if f.kind == "lookup" and f.dataset == dataset]
    raise ConfigError(
        f"dataset {dataset!r} is a point lookup, not fetched by range or snapshot: use "
        + " or ".join(f"hmyframe.{n}()" for n in lookups)
    )


@_public(
    "lookup",
    None,
    "The number of the latest block of ``shard``.",
    {"shard": "lookup_shard"},
    "int",
)
async def head(shard: int = 0, *, rpc: object = None, options: FetchOptions | None = None) -> int:
    async with _session(rpc, None, False, options) as session:
        return await session.head(block_arg(shard, "shard"), refresh=True)


@_public(
    "lookup",
    "shards",
    "The network's shards and their endpoints, as the node lists them (``hmy_getShardingStructure``).",
    {},
    _frame_returns("shards"),
)
async def shards(
    *,
    rpc: object = None,
    options: FetchOptions | None = None,
    progress: ProgressArg = False,
    output: Output = "pandas",
) -> Frame:
    check_output(output)
    async with _reading(rpc, None, False, options, progress, "shards") as (session, update):
        table = await fetch_sharding_structure(session)
        update(1)
    return to_output(table, output)


@_public(
    "lookup",
    "cx_receipts",
    "Cross-shard transfers sent to ``shard`` and not yet received (its pool's pending receipts).",
    {},
    _frame_returns("cx_receipts"),
)
async def pending_cx_receipts(
    shard: ShardSpec = 0,
    *,
    rpc: object = None,
    options: FetchOptions | None = None,
    progress: ProgressArg = False,
    output: Output = "pandas",
) -> Frame:
    check_output(output)
    spec = _shard_spec(shard)
    async with _session(rpc, None, False, options) as session:
        ids = await _shard_ids(session, spec)
        with Progress.make(progress, _label("pending receipts", ids), unit="answers") as bar:

            async def one(s: int) -> Any:
                table = await fetch_pending_cx_receipts(session, s)
                bar.update(1)
                return table

            tables = await gather_or_raise(one(s) for s in ids)
    return to_output(pa.concat_tables(tables), output)


@_public(
    "lookup",
    "tx_counts",
    "Each address's transaction count (nonce) on ``shard`` at ``block``: one row per distinct address.",
    {"block": "count_block", "shard": "lookup_shard"},
    _frame_returns("tx_counts"),
)
async def tx_counts(
    addresses: Sequence[str],
    block: int | None = None,
    shard: int = 0,
    *,
    rpc: object = None,
    options: FetchOptions | None = None,
    progress: ProgressArg = False,
    output: Output = "pandas",
) -> Frame:
    check_output(output)
    async with _reading(rpc, None, False, options, progress, "transaction counts") as (session, update):
        table = await fetch_tx_counts(session, addresses, block, shard, progress=update)
    return to_output(table, output)


@_public(
    "lookup",
    "tokens",
    "Token metadata (name, symbol, decimals, total supply) at one block, read by contract calls.",
    {"addresses": "token_addresses", "block": "token_block", "shard": "lookup_shard"},
    _frame_returns("tokens", ' ``df.attrs["block"]`` holds the block.'),
    ds.get("tokens").notes,
    '>>> import hmyframe\n>>> df = hmyframe.tokens(["one1...", "0x..."], rpc="devnet")   # doctest: +SKIP',
)
async def tokens(
    addresses: Sequence[str],
    block: int | None = None,
    shard: int = 0,
    *,
    rpc: object = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: ProgressArg = False,
    output: Output = "pandas",
) -> Frame:
    check_output(output)
    async with _reading(rpc, None, cache, options, progress, "token metadata", "tokens") as (session, update):
        at, table = await fetch_tokens(session, addresses, block, shard, progress=update)
    return to_output(table, output, {"block": at})


_NOT_FOUND = ' Unknown hashes are listed in ``df.attrs["not_found"]``.'


@_public(
    "lookup",
    "transactions",
    "Transactions by Harmony hash, fetched concurrently (the client batches the calls).",
    {"shard": "lookup_shard"},
    _frame_returns("transactions", _NOT_FOUND),
)
async def transactions_by_hash(
    hashes: Sequence[str],
    shard: int = 0,
    *,
    on_missing: MissingPolicy = "warn",
    rpc: object = None,
    options: FetchOptions | None = None,
    progress: ProgressArg = False,
    output: Output = "pandas",
) -> Frame:
    check_output(output)
    async with _reading(rpc, None, False, options, progress, "transactions by hash") as (session, update):
        table, missing = await fetch_transactions_by_hash(
            session, hashes, shard, on_missing=on_missing, progress=update
        )
    return to_output(table, output, {"not_found": missing})


@_public(
    "lookup",
    "traces",
    "Traces of transactions by Harmony hash (``trace_transaction``).",
    {"shard": "lookup_shard"},
    _frame_returns("traces", _NOT_FOUND),
)
async def traces_by_hash(
    hashes: Sequence[str],
    shard: int = 0,
    *,
    on_missing: MissingPolicy = "warn",
    rpc: object = None,
    trace_rpc: TraceRpc = None,
    options: FetchOptions | None = None,
    progress: ProgressArg = False,
    output: Output = "pandas",
) -> Frame:
    check_output(output)
    async with _reading(rpc, trace_rpc, False, options, progress, "traces by hash") as (session, update):
        table, missing = await fetch_traces_by_hash(
            session, hashes, shard, on_missing=on_missing, progress=update
        )
    return to_output(table, output, {"not_found": missing})


# --------------------------------------------------------------------------- accounts

BlocksArg = int | Sequence[int] | range | str | None


@_public(
    "lookup",
    "balances",
    "Exact ONE balances of addresses at blocks, the state **after** each block (cached per (address, block)).",
    {"addresses": "balance_addresses", "blocks": "balance_blocks", "shard": "lookup_shard"},
    _frame_returns("balances"),
    ds.get("balances").notes,
    '>>> import hmyframe\n>>> df = hmyframe.balances(["one1..."], blocks=range(0, 2000, 100), rpc="devnet")   # doctest: +SKIP',
)
async def balances(
    addresses: Any,
    blocks: BlocksArg = None,
    shard: int = 0,
    *,
    rpc: object = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: ProgressArg = False,
    output: Output = "pandas",
) -> Frame:
    check_output(output)
    async with _reading(rpc, None, cache, options, progress, "balances") as (session, update):
        table = await fetch_balances(session, addresses, blocks, shard, progress=update)
    return to_output(table, output)


@_public(
    "lookup",
    "delegator_delegations",
    "Each delegator's delegations at a block: validator, exact amount, reward, pending undelegations (cached per block).",
    {"block": "delegation_block"},
    _frame_returns("delegator_delegations"),
    ds.get("delegator_delegations").notes,
)
async def delegator_delegations(
    delegators: Any,
    block: int | None = None,
    *,
    rpc: object = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: ProgressArg = False,
    output: Output = "pandas",
) -> Frame:
    check_output(output)
    async with _reading(rpc, None, cache, options, progress, "delegations") as (session, update):
        table = await fetch_delegator_table(
            session, "delegator_delegations", delegators, block, progress=update
        )
    return to_output(table, output)


@_public(
    "lookup",
    "undelegations",
    "Each delegator's pending undelegations at a block (amount and epoch), from the same answers.",
    {"block": "delegation_block"},
    _frame_returns("undelegations"),
)
async def delegator_undelegations(
    delegators: Any,
    block: int | None = None,
    *,
    rpc: object = None,
    options: FetchOptions | None = None,
    progress: ProgressArg = False,
    output: Output = "pandas",
) -> Frame:
    check_output(output)
    async with _reading(rpc, None, False, options, progress, "undelegations") as (session, update):
        table = await fetch_delegator_table(session, "undelegations", delegators, block, progress=update)
    return to_output(table, output)


@_public(
    "lookup",
    "account_transactions",
    "Each address's plain and staking transactions from the node's history index, with their direction.",
    {"addresses": "history_addresses", "shard": "lookup_shard"},
    _frame_returns("account_transactions"),
    ds.get("account_transactions").notes,
)
async def account_transactions(
    addresses: Any,
    shard: int = 0,
    *,
    staking: bool = True,
    order: str = "asc",
    limit: int | None = None,
    rpc: object = None,
    options: FetchOptions | None = None,
    progress: ProgressArg = False,
    output: Output = "pandas",
) -> Frame:
    check_output(output)
    wanted = addresses_arg(addresses, "account_transactions")
    shard = block_arg(shard, "shard")
    order, limit = history_args(order, limit)
    async with _reading(rpc, None, False, options, progress, "history pages") as (session, update):
        table = await fetch_account_transactions(
            session, wanted, shard, staking=staking, order=order, limit=limit, progress=update
        )
    return to_output(table, output)


@_public(
    "lookup",
    "native_transfers",
    "Every movement of ONE in a block range of a shard: top-level, internal, cross-shard sends and receipts.",
    {"start": "range_start", "end": "range_end", "shard": "lookup_shard"},
    _frame_returns("native_transfers"),
    ds.get("native_transfers").notes,
)
async def native_transfers(
    start: int,
    end: int | None = None,
    shard: int = 0,
    *,
    cx_window: int = CX_WINDOW,
    rpc: object = None,
    trace_rpc: TraceRpc = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    output: Output = "pandas",
) -> Frame:
    check_output(output)
    shard = block_arg(shard, "shard")
    block_arg(cx_window, "cx_window")
    async with _session(rpc, trace_rpc, cache, options) as session:
        table = await fetch_native_transfers(session, start, end, shard, cx_window=cx_window)
    return to_output(table, output)


@_public(
    "lookup",
    "rewards_collected",
    "Every CollectRewards of a block range with the exact amount paid (the staking receipt's log).",
    {"start": "range_start", "end": "range_end"},
    _frame_returns("rewards_collected"),
    ds.get("rewards_collected").notes,
)
async def rewards_collected(
    start: int,
    end: int | None = None,
    *,
    rpc: object = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: ProgressArg = False,
    output: Output = "pandas",
) -> Frame:
    check_output(output)
    async with _reading(rpc, None, cache, options, progress, "staking receipts") as (session, update):
        table = await fetch_rewards_collected(session, start, end, progress=update)
    return to_output(table, output)


@_public(
    "lookup",
    "token_balances",
    "balanceOf of (token, holder) pairs at a block, exact uint256 (cached per block).",
    {"pairs": "token_pairs", "block": "token_block", "shard": "lookup_shard"},
    _frame_returns("token_balances"),
    ds.get("token_balances").notes,
)
async def token_balances(
    pairs: Any,
    holders_of: Any = None,
    block: int | None = None,
    shard: int = 0,
    *,
    rpc: object = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: ProgressArg = False,
    output: Output = "pandas",
) -> Frame:
    check_output(output)
    wanted = token_pairs(pairs, holders_of)
    async with _reading(rpc, None, cache, options, progress, "token balances") as (session, update):
        table = await fetch_token_balances(session, wanted, block, shard, update)
    return to_output(table, output)


@_public(
    "lookup",
    None,
    "A token's holders and exact balances, replayed from ``token_transfers``, checked against ``balanceOf``.",
    {"start": "range_start", "end": "range_end", "shard": "lookup_shard"},
    "pandas.DataFrame\n    ``holder_address``, ``holder_address_hex``, ``balance`` (uint256) per holder with a "
    "balance above 0, largest first; ``df.attrs``: ``block`` (the last block), ``checked`` (holders "
    "compared with balanceOf), ``mismatches`` (holder -> (replayed, balanceOf)) and ``standard`` "
    "(False when any differs: a fee-on-transfer or rebasing token; a NonStandardTokenWarning is issued).",
    "The replay starts at ``start``: balances before it are not counted, so start at the token's "
    "creation (0 on the devnet) for exact holdings.",
)
async def holders(
    token: str,
    start: int = 0,
    end: int | None = None,
    shard: int = 0,
    *,
    check: int = 20,
    rpc: object = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
) -> Frame:
    from hmyframe.addresses import to_hex, to_one

    token_hex = to_hex(token)
    shard = block_arg(shard, "shard")
    async with _session(rpc, None, cache, options) as session:
        frame = await fetch_holders(session, token_hex, start, end, shard, check)
    mismatches = frame.attrs["mismatches"]
    if mismatches:
        warnings.warn(
            f"token {to_one(token_hex)}: {len(mismatches)} of {frame.attrs['checked']} replayed balances "
            f"differ from balanceOf at block {frame.attrs['block']}: a non-standard token (fee-on-transfer, "
            "rebasing?); see df.attrs['mismatches']",
            NonStandardTokenWarning,
            stacklevel=3,
        )
    return frame


@_public(
    "lookup",
    None,
    "A delegator's rewards per validator and epoch: accrued and collected, exact (the history a delegator needs for taxes).",
    {},
    "pandas.DataFrame\n    One row per (delegator, epoch, validator): ``last_block``, ``stake``, ``unclaimed``, "
    "``accrued`` (earned in the epoch), ``collected`` (paid out in the epoch by CollectRewards), each exact "
    "atto with a ``*_one`` companion (see :func:`hmyframe.metrics.rewards_by_validator`); ``df.attrs``: "
    "``epochs`` (those read) and ``baseline_block`` (the last block of the epoch before the first).",
    "Reads ``delegator_delegations`` at each epoch's last block (and the one before the first) and just "
    "before each CollectRewards, and ``rewards_collected`` of the blocks between; all cached but the "
    "receipts. A collection is attributed to its validators exactly: the node pays each delegation's "
    "reward as the state before the block shows it.",
)
async def delegator_rewards(
    delegators: Any,
    epochs: int | Sequence[int] | range = 10,
    *,
    rpc: object = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: ProgressArg = False,
) -> Frame:
    addresses_arg(delegators, "delegator_rewards")  # a bad address is named before any request
    async with _reading(rpc, None, cache, options, progress, "delegator rewards") as (session, update):
        return await fetch_delegator_rewards(session, delegators, epochs, progress=update)


@_public(
    "lookup",
    "dex_pairs",
    "UniswapV2-style pairs at a block: each one's token0, token1 and reserves, with its tokens' "
    "names, symbols and decimals.",
    {"pairs": "dex_pairs", "block": "pair_block", "shard": "lookup_shard", "with_tokens": "with_pair_tokens"},
    _frame_returns(
        "dex_pairs",
        " With ``with_tokens``: ``token0_name``, ``token0_symbol``, ``token0_decimals`` and the same for "
        'token1. ``df.attrs["block"]`` holds the block.',
    ),
    ds.get("dex_pairs").notes,
    ">>> import hmyframe\n"
    '>>> swaps = hmyframe.events("uniswap_v2_pair", 0, 999, event="Swap", rpc="devnet")  # doctest: +SKIP\n'
    '>>> pairs = hmyframe.dex_pairs(swaps["address"].unique(), block=999, rpc="devnet")  # doctest: +SKIP',
)
async def dex_pairs(
    pairs: Any,
    block: int | None = None,
    shard: int = 0,
    *,
    with_tokens: bool = True,
    rpc: object = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: ProgressArg = False,
    output: Output = "pandas",
) -> Frame:
    check_output(output)
    _flag(with_tokens, "with_tokens")
    async with _reading(rpc, None, cache, options, progress, "DEX pairs", "pairs") as (session, update):
        at, table = await fetch_dex_pairs(
            session, pairs, block, shard, with_tokens=with_tokens, progress=update
        )
    return to_output(table, output, {"block": at})


# --------------------------------------------------------------------------- decoded contracts

_DECODED_RETURNS = (
    "pandas.DataFrame, or a dict of them (``output`` may ask for pyarrow Tables or polars DataFrames)\n"
    "    {what}: the position columns first ({position}), then one column per argument in "
    "declaration order: ``uintN`` exact ``uint256``, ``intN`` exact ``int256``, ``address`` "
    "one1 with a ``_hex`` twin, ``bool``, ``bytesN`` / ``bytes`` 0x hex, ``string``, arrays as "
    'lists, tuples flattened as ``NAME.MEMBER``{extra}. ``df.attrs["undecoded"]`` lists the '
    "{rows} that matched but do not decode (position and reason){unknown}."
)


@_public(
    "decoded",
    None,
    "Contract events of blocks ``start..end`` decoded into one typed column per argument.",
    {"abi": "abi_events", "address": "contract_address"},
    _DECODED_RETURNS.format(
        what="One frame per event, one row per log",
        position="``block_number``, ``shard_id``, ``transaction_hash``, ``transaction_index``, "
        "``log_index``, the emitting contract ``address`` / ``address_hex``",
        extra=", an indexed argument of a dynamic type as its topic hash",
        rows="logs",
        unknown="",
    ),
    "The logs are read through the ``logs`` dataset and its cache (a range fetched once is "
    "decoded again without a request). A log is decoded by an event when its ``topic0`` is the "
    "event's (an anonymous event: when its topic count is the event's) and, with ``address``, "
    "when that contract emitted it. Events whose arguments are one-word types (Swap, Sync, "
    "Transfer...) are decoded column-wise over Arrow buffers; exact integers never pass through "
    "a float.",
    ">>> import hmyframe\n"
    '>>> swaps = hmyframe.events("uniswap_v2_pair", 0, 999, event="Swap", rpc="devnet")  # doctest: +SKIP\n'
    '>>> frames = hmyframe.events("hrc20", "-1000:", address="one1...")  # doctest: +SKIP',
)
async def events(
    abi: object,
    start: BlockSpec,
    end: BlockSpec | None = None,
    shard: ShardSpec = 0,
    *,
    address: str | Sequence[str] | None = None,
    event: str | Sequence[str] | None = None,
    rpc: object = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: ProgressArg = False,
    output: Output = "pandas",
) -> Any:
    import asyncio

    from hmyframe.abi import addresses_filter, choose_events, decode_chosen_logs, shape

    check_output(output)
    chosen, single = choose_events(abi, event)  # a bad ABI, event or address fails before any request
    addresses_filter(address)
    table = await _range_table("logs", start, end, shard, rpc, None, cache, options, progress)
    decoded = await asyncio.to_thread(decode_chosen_logs, table, chosen, address)
    return shape(decoded, single, output)


@_public(
    "decoded",
    None,
    "Contract calls of blocks ``start..end``: each transaction's input (or each traced call) "
    "decoded into one typed column per argument, one frame per function.",
    {"abi": "abi_calls", "address": "contract_address", "traces": "traces_flag"},
    _DECODED_RETURNS.format(
        what="One frame per function, one row per call",
        position="``block_number``, ``shard_id``, ``transaction_hash``, ``transaction_index``, "
        "with ``traces=True`` ``trace_index``, ``trace_address``, ``call_type``, then "
        "``from_address``, ``to_address`` (and ``_hex``), ``call_value`` (the ONE sent, atto), with traces ``error``",
        extra="",
        rows="calls",
        unknown='; ``df.attrs["unknown_selectors"]`` lists the selectors of the other calls '
        "(to ``address``, if given) that no function of the ABI has, with their counts",
    ),
    "The calls are read through the ``transactions`` dataset (``traces=True``: ``traces``) and its "
    "cache. A call belongs to a function when its input starts with the function's selector; "
    "input beyond the arguments is allowed, as the EVM allows it.",
    ">>> import hmyframe\n"
    '>>> swaps = hmyframe.calls("uniswap_v2_router", 0, 999, address="one1...")  # doctest: +SKIP',
)
async def calls(
    abi: object,
    start: BlockSpec,
    end: BlockSpec | None = None,
    shard: ShardSpec = 0,
    *,
    address: str | Sequence[str] | None = None,
    function: str | Sequence[str] | None = None,
    traces: bool = False,
    rpc: object = None,
    trace_rpc: TraceRpc = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: ProgressArg = False,
    output: Output = "pandas",
) -> Any:
    import asyncio

    from hmyframe.abi import addresses_filter, choose_functions, decode_chosen_calls, shape

    check_output(output)
    _flag(traces, "traces")
    chosen, single = choose_functions(abi, function)
    addresses_filter(address)
    name = "traces" if traces else "transactions"
    table = await _range_table(name, start, end, shard, rpc, trace_rpc, cache, options, progress)
    decoded = await asyncio.to_thread(decode_chosen_calls, table, chosen, address, traces)
    return shape(decoded, single, output)


# --------------------------------------------------------------------------- follow, history


async def follow(
    dataset: str,
    start: object = None,
    shard: object = 0,
    *,
    end: int | None = None,
    rpc: object = None,
    trace_rpc: str | dict[int, str] | None = None,
    cache: Any = True,
    options: Any = None,
    output: Any = "pandas",
    poll: float = 1.0,
    heads: HeadSource | str = "auto",
) -> AsyncIterator[Any]:
    """Yield each new batch of blocks of ``dataset`` as a frame, as the chain grows.

    Parameters
    ----------
    dataset
        A block-range dataset (``blocks``, ``transactions``, ``staking_transactions``,
        ``signers``, ``traces``).
    start
        First block (any form the fetchers take: a number, a UTC time, ``-100``...): the blocks
        from there to the head come first, one batch per chunk. ``None`` (default): only blocks
        after the current head.
    shard
        A shard id, a list of ids or ``"all"``: batches of every shard, each batch of one shard.
    end
        Stop after this block (``None``: never; break out of the loop or cancel to stop).
    rpc, trace_rpc, cache, options
        As for the fetchers; batches are cached like any fetch (``cache=False``: not kept).
    output
        ``"pandas"`` (default), ``"arrow"`` or ``"polars"``: the same columns and types as
        a fetch of the same blocks.
    poll
        Seconds between two polls of the head (the main term of the lag when polling; with a
        WebSocket, the polling interval while the socket is re-opened).
    heads
        ``"auto"`` (default): each shard's WebSocket ``newHeads`` subscription where the node's
        sharding structure lists a URL, else polling; ``"ws"``: WebSocket only; ``"poll"``:
        polling only; or a :class:`HeadSource`.

    Yields
    ------
    pandas.DataFrame (or pyarrow.Table / polars DataFrame)
        One frame per batch of one shard, the dataset's columns and types; a DataFrame's
        ``attrs`` (an Arrow table's ``hmyframe.attrs`` metadata) give its ``shard``, ``first``
        and ``last`` block and ``lag`` (seconds from seeing the head to having the batch).

    Raises
    ------
    ConfigError
        Not a block-range dataset, a bad ``output``, ``shard``, ``start``, ``end``, ``poll``
        or ``heads``; with ``heads="ws"``, a shard listing no WebSocket URL.

    Examples
    --------
    >>> async for df in hmyframe.aio.follow("transactions", rpc="devnet"):   # doctest: +SKIP
    ...     print(len(df))
    """
    if dataset not in RANGE_DATASETS:
        raise ConfigError(
            f"follow needs a block-range dataset ({', '.join(RANGE_DATASETS)}), got {short_repr(dataset)}"
        )
    check_output(output)
    spec = _shard_spec(shard)
    check_heads(heads, poll)
    async with _session(rpc, trace_rpc, cache, options) as session:
        ids = await _shard_ids(session, spec)
        batches = follow_shards(
            session, [dataset], start, ids, end=end, poll=poll, heads=heads, collect=True, catch_up=False
        )
        try:
            async for batch in batches:
                attrs = {"shard": batch.shard, "first": batch.first, "last": batch.last, "lag": batch.lag}
                yield to_output(batch.tables[dataset], output, attrs)
        finally:
            with contextlib.suppress(RuntimeError):
                await batches.aclose()


async def staking_history(
    start_epoch: int | None = None,
    end_epoch: int | None = None,
    every: int = 1,
    *,
    validator: str | None = None,
    rpc: object = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: bool | Callable[[int], None] = False,
) -> StakingHistory:
    """Validator snapshots at the last block of each epoch ``start_epoch..end_epoch``, and the
    network's figures per epoch.

    Each epoch's last block comes from ``epochLastBlock`` (or, from a node without it, from the
    blocks' ``epoch`` field); the epoch in progress is taken at the head. Snapshots are cached
    like any snapshot and paced to the node's validator limiter.

    Parameters
    ----------
    start_epoch, end_epoch
        Inclusive epochs; ``end_epoch=None`` is the current epoch; a negative ``start_epoch``
        counts back from the end (``staking_history(-5)``: the last five epochs).
    every
        Take every ``every``-th epoch.
    validator
        A ``one1``/``0x`` address: one validator's history, one cheap
        ``getValidatorInformationByBlockNumber`` call per epoch (``network`` then has only
        ``epoch``, ``block``, ``timestamp``, ``complete``).
    rpc
        A node URL, ``"devnet"``, a running ``Devnet``, an open ``Client`` or an open
        :class:`~hmyframe.Session` (default: ``$HMYFRAME_RPC``, else the public mainnet endpoint).
    cache
        ``True`` (``data/`` or ``$HMYFRAME_CACHE``), a folder, a ``Cache``, or ``False``: each
        epoch's snapshot is cached like any snapshot.
    options
        :class:`~hmyframe.FetchOptions` (pacing of validator pages, retries...).
    progress
        ``True`` for a bar counting epochs; a callable is called with 1 per epoch done.

    Returns
    -------
    StakingHistory
        ``.network`` (one row per epoch: Nakamoto per shard, Gini, elected count, total stake,
        median signing...), ``.validators`` (per validator and epoch: stake, status, signing...),
        ``.voting_power``, ``.delegations``; ``.validator(address)`` selects one validator.

    Examples
    --------
    >>> h = hmyframe.staking_history(-5, rpc="devnet")             # doctest: +SKIP
    >>> h.network[["epoch", "nakamoto", "gini", "total_stake_one"]]  # doctest: +SKIP
    """
    if isinstance(rpc, Session):  # an open session is used as it is
        return await fetch_staking_history(
            rpc, start_epoch, end_epoch, every, validator=validator, progress=progress
        )
    async with Session(rpc, cache=cache, options=options) as session:
        return await fetch_staking_history(
            session, start_epoch, end_epoch, every, validator=validator, progress=progress
        )


_name(follow, "follow")
_name(staking_history, "staking_history")
