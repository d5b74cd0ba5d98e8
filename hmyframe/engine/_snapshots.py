"""Validator snapshots: every page of ``getAllValidatorInformationByBlockNumber`` at one block.

A snapshot is taken at one block (the head when none is given), so every row describes the
same moment: pages are always asked ``ByBlockNumber`` with that block, never "latest".

Paging rules that keep rows neither lost nor duplicated:

* pages are asked from 0 until the first **empty** page (a historical page can be shorter than
  100 without being the last: the node skips validators created after the block);
* a validator repeated across pages (every node numbers pages from 0, but one numbering them
  from 1 would answer page 0 and page 1 alike) is kept once (the ``validators`` datasets deduplicate by address);
* a node that ignores the page number would repeat one page forever: after two consecutive
  pages that add no new validator the paging stops.

Page 0 is asked with ``getAllValidatorAddresses``, whose count bounds the pages; the pages after
it are then asked four at a time and read in page order (:func:`_pages`), paced by the client
(``validator_pacing``). The default ``"auto"`` sends them unpaced: a node run without its validator limiter (harmony PR #5025) answers
at once; a node with it (1/s, burst 3, 5 s deadline) makes the 4th and later pages wait within its
deadline, never refusing a sequential page. Should a page be refused for its rate (concurrent
snapshots, another client of the same node), the endpoint is paced at 1/s, burst 3 from then on
and the page retried, so no row is lost. The four snapshot tables
(``validators``, ``voting_power``, ``delegations``, ``undelegations``) are built from the same pages
and cached together.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from hmyframe import datasets as ds
from hmyframe._tasks import cancel_and_wait
from hmyframe.datasets.sources import SNAPSHOT_DATASETS
from hmyframe.engine._origin import of_session
from hmyframe.engine._session import Session, block_arg
from hmyframe.errors import ConfigError, HmyframeError, ResponseShapeError, short_repr

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["SNAPSHOT_DATASETS", "fetch_snapshot"]

_MAX_PAGES = 10_000


class _PageValidator(msgspec.Struct, gc=False):
    address: Any = None  # a str, checked


class _PageEntry(msgspec.Struct, gc=False):
    validator: _PageValidator | None = None


#: A page's validator addresses only (every other member skipped unread); a page it does not
#: fit (the early-2020 wrapped elements, a bad shape) goes through :func:`_page_addresses`.
_PAGE_ADDRESSES = msgspec.json.Decoder(list[_PageEntry])


def _raw_page_addresses(raw: bytes) -> list[str]:
    """Validator addresses of one raw page, as :func:`_page_addresses` gives them."""
    try:
        entries = _PAGE_ADDRESSES.decode(raw)
    except (msgspec.MsgspecError, RecursionError):
        entries = None
    if entries is not None:
        addresses = [e.validator.address for e in entries if e.validator is not None]
        if len(addresses) == len(entries) and all(type(a) is str for a in addresses):
            return addresses
    return _page_addresses(ds.decode_json([raw], "validators")[0])


def _page_addresses(page: Any) -> list[str]:
    """Validator addresses of one decoded page (current or early-2020 wrapped format)."""
    if not isinstance(page, list):
        raise ResponseShapeError(
            "getAllValidatorInformationByBlockNumber", "result", page, "an array of validators"
        )
    out: list[str] = []
    for element in page:
        item = element
        if isinstance(item, dict) and "result" in item and "validator" not in item:
            item = item["result"]
        validator = item.get("validator") if isinstance(item, dict) else None
        address = validator.get("address") if isinstance(validator, dict) else None
        if not isinstance(address, str):
            raise ResponseShapeError(
                "getAllValidatorInformationByBlockNumber", "validator.address", element, "a validator address"
            )
        out.append(address)
    return out


async def _snapshot_epoch(session: Session, block: int) -> int | None:
    """Epoch of ``block`` from its header (``None`` for an early-2020 node without it)."""
    # incl_staking=True: hmy_ (v1) cannot leave staking transactions out; with full_tx=False
    # they are only hashes either way
    header = await session.methods.get_block_by_number(block, full_tx=False, incl_staking=True, shard=0)
    epoch = header.get("epoch") if isinstance(header, dict) else None
    if epoch is None:
        return None
    from hmyframe.datasets import Bad, parse_int

    try:
        return parse_int(epoch)
    except Bad:
        raise ResponseShapeError("getBlockByNumber", "epoch", epoch, "an epoch number") from None


async def fetch_snapshot(
    session: Session,
    names: Sequence[str],
    block: int | None = None,
    *,
    progress: Callable[[int], None] | None = None,
) -> tuple[int, dict[str, pa.Table]]:
    """Fetch (or read from the cache) the validator snapshot at ``block``.

    Parameters
    ----------
    session
        An open :class:`~hmyframe.engine.Session`.
    names
        Datasets among :data:`SNAPSHOT_DATASETS`.
    block
        Block of the snapshot; ``None`` for the beacon chain's head.
    progress
        Called with 1 as each validator page arrives (nothing for a cache hit).

    Returns
    -------
    (int, dict[str, pyarrow.Table])
        The snapshot block and one table per requested dataset.
    """
    for name in names:
        if name not in SNAPSHOT_DATASETS:
            raise ConfigError(
                f"dataset {short_repr(name)} is not a validator snapshot; snapshot datasets: {', '.join(SNAPSHOT_DATASETS)}"
            )
    block = await session.head(0, refresh=True) if block is None else block_arg(block, "snapshot block")
    cache = session.cache
    chain_id = await session.chain_id()
    if cache is not None:
        cached = {name: cache.read_snapshot(chain_id, ds.get(name), 0, block) for name in names}
        if all(t is not None for t in cached.values()):
            return block, {name: t for name, t in cached.items() if t is not None}
        # about to write: make sure the URL still serves the chain its cached id names
        checked = await session.chain_id(verify=True)
        if checked != chain_id:
            chain_id = checked
            cached = {name: cache.read_snapshot(chain_id, ds.get(name), 0, block) for name in names}
            if all(t is not None for t in cached.values()):
                return block, {name: t for name, t in cached.items() if t is not None}
    head = await session.head(0)
    if block > head:
        raise ConfigError(f"snapshot block {block} is beyond the head {head} of shard 0")
    # the block's epoch and the node's version (for the files' provenance) are asked alongside
    # the pages (the node's validator limiter paces neither), so the snapshot pays no round trip
    # before its first page nor after its last
    epoch = asyncio.ensure_future(_snapshot_epoch(session, block))
    origin = asyncio.ensure_future(of_session(session, 0)) if cache is not None else None
    asides = [f for f in (epoch, origin) if f is not None]
    try:
        payloads = await _pages(session, block, progress)
        snapshot_epoch = await epoch
        source = await origin if origin is not None else None
    finally:
        await cancel_and_wait(asides)
    ctx = ds.ConvertContext(shard_id=0, snapshot_block=block, snapshot_epoch=snapshot_epoch)
    source = source.now() if source is not None else None  # the pages are in
    decoded = ds.decode_validators(payloads)
    tables = {name: ds.get(name).build(decoded, ctx) for name in SNAPSHOT_DATASETS}
    if cache is not None:
        for name, table in tables.items():
            cache.write_snapshot(chain_id, ds.get(name), 0, block, table, source)
    return block, {name: tables[name] for name in names}


#: Validators per page of ``getAllValidatorInformation*`` (the node's ``validatorsPageSize``).
PAGE_SIZE = 100

#: Pages out at once once their number is known. Against the node's limiter of these pages
#: (1/s, burst 3, a 5 s deadline) the 4th waits about 1 s, and with 4 always out none waits 4 s
#: or more: a fresh limiter refuses none of them, as it refuses no sequential page.
PAGES_IN_FLIGHT = 4


async def _page_count(session: Session) -> int | None:
    """The pages of a snapshot at the head, the empty one that ends the paging included, from
    ``getAllValidatorAddresses`` (one call, not under the pages' limiter); ``None`` when the
    node does not answer it with a list. A page of a past block lists the same validators or
    fewer (the node pages the current list and skips those absent then): a bound either way."""
    try:
        addresses = await session.methods.get_all_validator_addresses()
    except HmyframeError:
        return None
    if not isinstance(addresses, list):
        return None
    return -(-len(addresses) // PAGE_SIZE) + 1


async def _pages(session: Session, block: int, progress: Callable[[int], None] | None) -> list[bytes]:
    """The raw pages of the snapshot at ``block``, by the paging rules of the module docs.

    Page 0 is asked with the number of pages (:func:`_page_count`); the pages after it then go
    :data:`PAGES_IN_FLIGHT` at a time up to that number, one at a time past it. They are read in
    page order, so the rules stop at the same page as a sequential paging, and what was asked
    beyond it is cancelled: at 100 ms a round trip, 800 validators take 3 round trips, not 9.
    """
    count = asyncio.ensure_future(_page_count(session))
    asked: dict[int, asyncio.Future[bytes]] = {}

    def ask(page: int) -> asyncio.Future[bytes]:
        if page not in asked:
            asked[page] = asyncio.ensure_future(
                session.methods.get_all_validator_information_by_block_number_raw(page, block)
            )
        return asked[page]

    payloads: list[bytes] = []
    seen: set[str] = set()
    barren = 0
    known: int | None = None
    try:
        for page in range(_MAX_PAGES):
            raw = await ask(page)
            if page == 0:
                known = await count
                for ahead in range(1, min(PAGES_IN_FLIGHT + 1, known or 1)):
                    ask(ahead)
            elif known is not None and page + PAGES_IN_FLIGHT < known:
                ask(page + PAGES_IN_FLIGHT)
            addresses = _raw_page_addresses(raw)
            if progress is not None:
                progress(1)
            if not addresses:
                break
            payloads.append(raw)
            new = {a.lower() for a in addresses} - seen
            seen |= new
            barren = 0 if new else barren + 1
            if barren >= 2:
                break
        else:
            raise ResponseShapeError(
                "getAllValidatorInformationByBlockNumber", "page", _MAX_PAGES, "an empty page eventually"
            )
    finally:
        await cancel_and_wait([count, *asked.values()])
    return payloads
