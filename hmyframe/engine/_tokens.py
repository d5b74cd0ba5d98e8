"""Token metadata at a block: the ``tokens`` dataset, fetched by contract calls and cached.

A token's ``name``, ``symbol``, ``decimals`` and ``totalSupply`` at a given block never change,
so the rows are kept in the cache as a per-block file of the shard
(``<chain>/tokens/shard<S>/tokens__at_<block>.parquet``) holding every token asked at that block
so far: a later call for tokens already there reads the file and sends no request (with
``block=None`` only the head is asked); a call adding tokens fetches only those and rewrites
the file with the union. Two processes adding different tokens to the same block at once may
each publish their own union; the tokens of the one renamed first are then fetched again later,
never wrong.

Each token costs five calls (``getCode`` and the four metadata calls), sent through the client's
JSON-RPC batching, :data:`TOKENS_PER_BATCH` tokens per batch. A revert (JSON-RPC error 3) is an
answer, converted into a null and a reason (:mod:`hmyframe.datasets.tokens`); every other error
is raised as usual.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal

from hmyframe import datasets as ds
from hmyframe._lazy import lazy_module
from hmyframe._tasks import gather_or_raise
from hmyframe.engine._at_block import REVERTED, revert_answer
from hmyframe.engine._session import Session, block_arg
from hmyframe.errors import ConfigError, MethodNotFoundError, RpcError, short_repr

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.compute as pc

    from hmyframe.datasets import tokens as token_dataset
else:
    pa = lazy_module("pyarrow")
    pc = lazy_module("pyarrow.compute")
    token_dataset = lazy_module("hmyframe.datasets.tokens")  # its schema loads pyarrow

__all__ = ["TOKENS_PER_BATCH", "Namespace", "fetch_tokens", "token_addresses", "tokens_of_transfers"]

#: ``hmy_`` (hex block numbers), ``hmyv2_`` (plain numbers) or ``eth_`` (hex).
Namespace = Literal["hmy", "hmyv2", "eth"]
#: Tokens whose five calls go out as one JSON-RPC batch (the client cuts by its batch size too).
TOKENS_PER_BATCH = 20


def token_addresses(addresses: Sequence[str] | str) -> list[str]:
    """Distinct lower-case 0x forms of the caller's token addresses (one1 or 0x), in order.

    Raises
    ------
    ConfigError
        For no address; :class:`~hmyframe.errors.AddressError` naming a value that is not an
        address.
    """
    from hmyframe.addresses import to_hex  # numpy, loaded for address lookups only

    if isinstance(addresses, str):
        addresses = [addresses]
    given: object = addresses
    if not isinstance(given, Sequence) or not addresses:
        raise ConfigError(
            f"tokens needs at least one token address (one1 or 0x), got {short_repr(addresses)}"
        )
    return list(dict.fromkeys(to_hex(a) for a in addresses))


def _namespace(session: Session, namespace: Namespace | None) -> Namespace:
    if namespace is None:
        return "hmyv2" if session.options.version == 2 else "hmy"
    if namespace not in ("hmy", "hmyv2", "eth"):
        raise ConfigError(f"namespace must be 'hmy', 'hmyv2' or 'eth', got {short_repr(namespace)}")
    return namespace


def _plan(addresses: Sequence[str], block: int, namespace: Namespace) -> list[tuple[str, list[object]]]:
    """The calls for ``addresses``, five per token in ``FUNCTIONS`` order (the tokens dataset's)."""
    ref: int | str = block if namespace == "hmyv2" else hex(block)
    calls: list[tuple[str, list[object]]] = []
    for address in addresses:
        calls.append((f"{namespace}_getCode", [address, ref]))
        calls += [
            (f"{namespace}_call", [{"to": address, "data": token_dataset.SELECTORS[f]}, ref])
            for f in token_dataset.FUNCTIONS[1:]
        ]
    return calls


async def _answers(
    session: Session, addresses: Sequence[str], block: int, shard: int, namespace: Namespace
) -> list[bytes]:
    """One payload per call: the raw ``result``, or ``{"error": ...}`` for a revert (or a missing getCode)."""
    results = await session.client.batch(
        _plan(addresses, block, namespace), shard=shard, raw=True, return_exceptions=True
    )
    payloads: list[bytes] = []
    for k, item in enumerate(results):
        if not isinstance(item, BaseException):
            payloads.append(item)
            continue
        getcode = k % len(token_dataset.FUNCTIONS) == 0
        if isinstance(item, RpcError) and (
            item.code == REVERTED or (getcode and isinstance(item, MethodNotFoundError))
        ):
            payloads.append(revert_answer(item))
            continue
        raise item
    return payloads


def _select(table: pa.Table, wanted: Sequence[str]) -> pa.Table:
    """The rows of ``wanted`` (0x forms), in the dataset's order."""
    rows = table.filter(pc.is_in(table["address_hex"], value_set=pa.array(wanted, type=pa.string())))
    sort_by = ds.get("tokens").sort_by
    return rows.sort_by([(c, "ascending") for c in sort_by]) if rows.num_rows > 1 else rows


def _missing(cached: pa.Table | None, wanted: Sequence[str]) -> list[str]:
    have = set() if cached is None else set(cached["address_hex"].to_pylist())
    return [a for a in wanted if a not in have]


async def fetch_tokens(
    session: Session,
    addresses: Sequence[str] | str,
    block: int | None = None,
    shard: int = 0,
    *,
    namespace: Namespace | None = None,
    progress: Callable[[int], None] | None = None,
) -> tuple[int, pa.Table]:
    """Metadata of each distinct token at ``block`` of ``shard`` (``None``: the head), cached.

    Parameters
    ----------
    session
        An open :class:`~hmyframe.engine.Session` (its cache, if any, is read and written).
    addresses
        Token contracts, one1 or 0x; each is listed once.
    block
        Block to read at (``None``: the shard's head, asked now).
    shard
        Shard of the tokens.
    namespace
        Which methods to call (default: ``hmyv2_`` or ``hmy_`` as ``FetchOptions.version`` says).
    progress
        Called with the number of tokens of each batch as it is answered.

    Returns
    -------
    (int, pyarrow.Table)
        The block used and the ``tokens`` table of the requested tokens.
    """
    wanted = token_addresses(addresses)
    shard = block_arg(shard, "shard")
    namespace = _namespace(session, namespace)
    at = await session.head(shard, refresh=True) if block is None else block_arg(block, "block")
    dataset = ds.get("tokens")
    cache = session.cache
    cached: pa.Table | None = None
    chain_id = ""
    if cache is not None:
        chain_id = await session.chain_id()
        cached = cache.read_snapshot(chain_id, dataset, shard, at)
        if not _missing(cached, wanted):
            assert cached is not None
            return at, _select(cached, wanted)
        checked = await session.chain_id(verify=True)  # about to write: the URL still serves that chain
        if checked != chain_id:
            chain_id = checked
            cached = cache.read_snapshot(chain_id, dataset, shard, at)
    todo = _missing(cached, wanted)
    if block is not None:
        head = await session.head(shard)
        if at > head and at > (head := await session.head(shard, refresh=True)):
            raise ConfigError(f"block {at} is beyond the head {head} of shard {shard}")

    async def batch(group: Sequence[str]) -> list[bytes]:
        payloads = await _answers(session, group, at, shard, namespace)
        if progress is not None:
            progress(len(group))
        return payloads

    groups = [todo[i : i + TOKENS_PER_BATCH] for i in range(0, len(todo), TOKENS_PER_BATCH)]
    answered = await gather_or_raise(batch(g) for g in groups)
    calls = [(a, at, f) for a in todo for f in token_dataset.FUNCTIONS]
    fetched = dataset.convert(
        [p for group in answered for p in group], ds.ConvertContext(shard_id=shard, token_calls=calls)
    )
    if cache is None:
        return at, _select(fetched, wanted)
    merged = fetched if cached is None else pa.concat_tables([cached, fetched])
    merged = _select(merged, merged["address_hex"].to_pylist())  # sorted as the dataset is
    cache.write_snapshot(chain_id, dataset, shard, at, merged)
    return at, _select(merged, wanted)


async def tokens_of_transfers(
    session: Session, ranges: dict[int, tuple[int, int]], transfers: pa.Table
) -> pa.Table:
    """The ``tokens`` rows of every token in ``transfers`` (the token_transfers dataset), each
    read on its shard at the last block of that shard's range (``ranges``: shard -> (first,
    last), as the range fetch resolved them); one :func:`fetch_tokens` per shard, the shards at
    once. An empty ``transfers`` gives an empty table."""
    wanted: dict[int, dict[str, None]] = {}
    for shard, address in zip(
        transfers["shard_id"].to_pylist(), transfers["token_address_hex"].to_pylist(), strict=True
    ):
        wanted.setdefault(shard, {})[address] = None
    found = await gather_or_raise(
        [fetch_tokens(session, list(wanted[s]), ranges[s][1], s) for s in sorted(wanted)]
    )
    return pa.concat_tables([t for _, t in found]) if found else ds.get("tokens").schema.empty_table()
