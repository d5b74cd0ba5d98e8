"""The throughput report: a block range's transactions, gas, block times, cross-shard transfers,
staking directives, fees, token transfers and DEX swaps, per shard.

:func:`render` builds the page from frames; the coroutine :func:`throughput_report` fetches them
(blocks, transactions, staking transactions, receipts, token transfers and logs of each shard,
through the normal cached range fetcher; the busiest tokens' metadata and DEX pairs by call) and
writes the file. Its doors are
``hmyframe.aio.throughput_report`` and the blocking ``hmyframe.report.throughput_report``
(``hmyframe report throughput`` on the command line).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd
import pyarrow as pa

from hmyframe import datasets as ds
from hmyframe import metrics
from hmyframe import plot as hplot
from hmyframe._tasks import gather_or_raise
from hmyframe._text import chain_text
from hmyframe.cache import Cache
from hmyframe.engine import (
    FetchOptions,
    Progress,
    Session,
    fetch_dex_pairs,
    fetch_shards,
    shard_ids,
    shard_label,
    shard_spec,
    tokens_of_transfers,
)
from hmyframe.errors import redact_url
from hmyframe.metrics import floats
from hmyframe.metrics.dex import MAINNET_WONE
from hmyframe.plot import fmt_count, fmt_one, fmt_percent
from hmyframe.plot.dex import pair_name, token_name
from hmyframe.plot.tokens import STANDARD_NAMES, compact_number, volume_text
from hmyframe.report._html import Card, Column, Page, output_path, write

__all__ = ["render", "throughput_report"]

CacheArg = bool | str | os.PathLike[str] | Cache
ShardArg = int | str | Sequence[int]
#: The most active tokens listed in the Tokens section (and asked for their metadata).
LISTED_TOKENS = 15
#: The pairs with the most Swap and Sync logs of each shard that the DEX section reads (three
#: calls per pair and five per token, cached).
LISTED_PAIRS = 15
#: topic0 of a UniswapV2 pair's Swap and Sync events.
SWAP_TOPIC = "0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822"
SYNC_TOPIC = "0x1c411e9a96e071241c2f21f7726b17ae89e3cab4c78be50e062b03a9fffbbad1"


def _span(blocks: pd.DataFrame) -> str:
    if blocks.empty:
        return "no blocks"
    times = pd.to_datetime(blocks["timestamp"], utc=True)
    return f"{times.min():%Y-%m-%d %H:%M:%S} – {times.max():%Y-%m-%d %H:%M:%S} UTC"


def render(
    blocks: pd.DataFrame,
    transactions: pd.DataFrame,
    staking_transactions: pd.DataFrame,
    *,
    receipts: pd.DataFrame | None = None,
    token_transfers: pd.DataFrame | None = None,
    tokens: pd.DataFrame | None = None,
    logs: pd.DataFrame | None = None,
    pairs: pd.DataFrame | None = None,
    wone: str | Sequence[str] = MAINNET_WONE,
    freq: str = "auto",
    source: str = "",
) -> Page:
    """The throughput report page for a block range (one shard or several concatenated).

    Parameters
    ----------
    blocks, transactions, staking_transactions
        The datasets of the range.
    receipts
        The range's ``receipts``: the "Fees" section (left out when ``None``).
    token_transfers
        The range's ``token_transfers``: the "Tokens" section (left out when ``None``).
    tokens
        The ``tokens`` dataset of those tokens (names, symbols, decimals), optional.
    logs
        The range's ``logs``: the "DEX" section, from its UniswapV2-style ``Swap`` and ``Sync``
        events (left out when ``None``).
    pairs
        The ``dex_pairs`` of those pairs (:func:`hmyframe.dex_pairs`: tokens, symbols,
        decimals), optional: without it swaps have no prices, tokens nor values in ONE.
    wone
        The wrapped ONE token(s) the values in ONE go through (:mod:`hmyframe.metrics.dex`).
    freq
        Time bucket of the charts (``"min"``, ``"h"``, ``"D"``... or ``"auto"``).
    source
        Where the data came from (shown under the title; give a redacted URL).

    Returns
    -------
    Page
        ``page.render()`` is the HTML text.
    """
    ranges = [
        f"shard {s}: blocks {int(g.block_number.min()):,}–{int(g.block_number.max()):,}"
        for s, g in blocks.groupby("shard_id")
    ]
    page = Page(
        "Harmony throughput report",
        ["; ".join(ranges) or "an empty range", _span(blocks) + (f" · {source}" if source else "")],
    )
    times = metrics.block_times(blocks) if len(blocks) else pd.DataFrame()
    _summary_section(page, blocks, transactions, staking_transactions, times)
    _activity_section(page, blocks, freq)
    _production_section(page, blocks, times)
    _transfers_section(page, transactions, staking_transactions, freq)
    if receipts is not None:
        _fees_section(page, receipts, blocks, freq)
    if token_transfers is not None:
        _tokens_section(page, token_transfers, tokens)
    if logs is not None:
        _dex_section(page, logs, pairs, blocks, wone, freq)
    _reading_section(page)
    return page


def _summary_section(
    page: Page,
    blocks: pd.DataFrame,
    transactions: pd.DataFrame,
    staking_transactions: pd.DataFrame,
    times: pd.DataFrame,
) -> None:
    """The range's figures: blocks, transactions and their rate, senders, value, cross-shard
    share, gas, block time, staking transactions, contract creations."""
    shards = sorted(int(s) for s in blocks["shard_id"].dropna().unique()) if len(blocks) else []
    seconds = (
        (
            pd.to_datetime(blocks["timestamp"], utc=True).max()
            - pd.to_datetime(blocks["timestamp"], utc=True).min()
        )
        / pd.Timedelta(1, "s")
        if len(blocks) > 1
        else 0.0
    )
    cross = metrics.cross_shard(transactions) if len(transactions) else None
    senders = transactions["from_address"].nunique() if len(transactions) else 0
    creations = (
        int(transactions["is_contract_creation"].fillna(False).astype(bool).sum()) if len(transactions) else 0
    )
    tx_count = len(transactions)
    gas_used = int(floats(blocks["gas_used"]).sum()) if len(blocks) else 0
    gas_limit = int(floats(blocks["gas_limit"]).sum()) if len(blocks) else 0
    page.section("Summary")
    page.cards(
        [
            Card("Blocks", fmt_count(len(blocks)), f"{len(shards)} shard(s)"),
            Card(
                "Transactions",
                fmt_count(tx_count),
                f"{tx_count / seconds:,.2f} per second" if seconds else "",
            ),
            Card("Active senders", fmt_count(senders), "distinct addresses"),
            Card(
                "Value moved",
                fmt_one(float(cross["value_one"].iloc[0])) if cross is not None else "–",
                "sum computed exactly in atto",
            ),
            Card(
                "Cross-shard",
                fmt_percent(float(cross["count_share"].iloc[0])) if cross is not None else "–",
                f"of transfers; {fmt_percent(float(cross['value_share'].iloc[0]))} of value"
                if cross is not None
                else "",
            ),
            Card(
                "Gas used",
                fmt_count(gas_used),
                f"{fmt_percent(gas_used / gas_limit, 2)} of the limit" if gas_limit else "",
            ),
            Card(
                "Block time",
                f"{float(times['mean'].mean()):.2f} s" if len(times) else "–",
                f"mean; p95 {float(times['p95'].max()):.1f} s, max {float(times['max'].max()):.0f} s"
                if len(times)
                else "",
            ),
            Card("Staking transactions", fmt_count(len(staking_transactions)), "on shard 0"),
            Card("Contract creations", fmt_count(creations)),
        ]
    )


def _activity_section(page: Page, blocks: pd.DataFrame, freq: str) -> None:
    """Transactions, gas and gas utilisation per time bucket."""
    page.section("Activity")
    page.figure(
        lambda ax: hplot.transactions(blocks, freq, ax=ax), "Transactions per time bucket, stacked by shard."
    )
    page.figure(lambda ax: hplot.gas(blocks, freq, ax=ax), "Gas used per time bucket, stacked by shard.")
    page.figure(
        lambda ax: hplot.gas_utilisation(blocks, freq, ax=ax), "Gas used as a share of the blocks' gas limit."
    )


def _production_section(page: Page, blocks: pd.DataFrame, times: pd.DataFrame) -> None:
    """Block times per shard (``times``: :func:`hmyframe.metrics.block_times`): a chart and a table."""
    page.section("Block production")
    page.figure(
        lambda ax: hplot.block_times(blocks, ax=ax),
        "Seconds between consecutive blocks of each shard (log scale).",
    )
    page.table(
        times.reset_index() if len(times) else times,
        [
            Column("shard_id", "shard", str, numeric=True),
            Column("blocks", "blocks", lambda x: f"{x:,}", numeric=True),
            Column("mean", "mean (s)", lambda x: f"{x:.2f}", numeric=True),
            Column("median", "median (s)", lambda x: f"{x:.1f}", numeric=True),
            Column("p95", "p95 (s)", lambda x: f"{x:.1f}", numeric=True),
            Column("max", "max (s)", lambda x: f"{x:.0f}", numeric=True),
            Column("gaps", "gaps", lambda x: f"{x:,}", numeric=True),
            Column("missing", "missing blocks", lambda x: f"{x:,}", numeric=True),
        ],
        empty="No blocks in the range.",
    )


def _transfers_section(
    page: Page, transactions: pd.DataFrame, staking_transactions: pd.DataFrame, freq: str
) -> None:
    """Cross-shard transfers and staking directives over time, and the figures per shard."""
    page.section("Transfers and staking")
    page.figure(
        lambda ax: hplot.cross_shard(transactions, freq, ax=ax),
        "Share of transfers, and of the value they moved, sent to another shard.",
    )
    page.figure(
        lambda ax: hplot.staking_directives(staking_transactions, freq, ax=ax),
        "Staking transactions per time bucket, by directive (they are sent on shard 0).",
    )
    if len(transactions):
        per_shard = []
        for shard, group in transactions.groupby("shard_id"):
            share = metrics.cross_shard(group)
            per_shard.append(
                {
                    "shard_id": int(shard),
                    "transactions": len(group),
                    "senders": group["from_address"].nunique(),
                    "creations": int(group["is_contract_creation"].fillna(False).astype(bool).sum()),
                    "value_one": float(share["value_one"].iloc[0]),
                    "count_share": float(share["count_share"].iloc[0]),
                }
            )
        page.heading("Per shard")
        page.table(
            pd.DataFrame(per_shard),
            [
                Column("shard_id", "shard", str, numeric=True),
                Column("transactions", "transactions", lambda x: f"{x:,}", numeric=True),
                Column("senders", "active senders", lambda x: f"{x:,}", numeric=True),
                Column("creations", "contract creations", lambda x: f"{x:,}", numeric=True),
                Column("value_one", "value (ONE)", lambda x: fmt_one(x, unit=False), numeric=True),
                Column("count_share", "cross-shard", fmt_percent, numeric=True),
            ],
        )


def _reading_section(page: Page) -> None:
    """How to read the report: buckets, block times, cross-shard, fees, token volumes."""
    page.section("How to read this report")
    page.note(
        "Time buckets are UTC and start on round times, so the first and last buckets may cover only part of "
        "their width. Block time is the difference between the timestamps of consecutive blocks of a shard; a gap "
        "is an interval longer than three times the shard's median. Cross-shard transfers are counted on the "
        "sending shard. A fee is gas used x gas price of one receipt, summed exactly in atto; a failed "
        "transaction (status 0) pays its fee too. Token volumes are in each token's own units, scaled by its "
        "decimals where they are known; mints come from and burns go to the zero address, which is not counted "
        "among senders and receivers. A DEX pair's volume counts every amount of each token in or out of its "
        "swaps, exactly; a swap's value in ONE is its WONE amount when the pair holds WONE, else its input (or "
        "output) priced by that token's WONE pair at its last Sync before the swap, else none; a pair's "
        "liquidity is twice the value of one reserve; prices are token1 per token0 from the reserves."
    )


def _fees_section(page: Page, receipts: pd.DataFrame, blocks: pd.DataFrame, freq: str) -> None:
    """Fees: totals and distribution, fees and failures over time, per shard, top payers."""
    page.section(
        "Fees",
        "What the range's transactions, plain and staking, paid (gas used x gas price), and how many failed.",
    )
    if receipts.empty:
        page.note("No transactions in the range.")
        return
    per_shard = metrics.fees(receipts, bucket=None)
    everything = metrics.fees(receipts, bucket=None, per_shard=False).iloc[0]
    payers = metrics.top_payers(receipts, 10)
    page.cards(
        [
            Card("Fees paid", fmt_one(float(everything["fee_one"])), "sum computed exactly in atto"),
            Card("Median fee", fmt_one(float(everything["fee_median_one"])), "of one transaction"),
            Card("p95 fee", fmt_one(float(everything["fee_p95_one"])), "95% of transactions paid less"),
            Card(
                "Failed",
                fmt_percent(float(everything["failed_share"])),
                f"{fmt_count(int(everything['failed']))} of {fmt_count(int(everything['transactions']))} transactions",
            ),
            Card(
                "Top payer",
                fmt_percent(float(payers["share"].iloc[0])),
                f"of all fees; top 10: {fmt_percent(float(payers['share'].sum()))}",
            ),
        ]
    )
    page.figure(
        lambda ax: hplot.fees(receipts, blocks, freq, ax=ax),
        "Fees paid per time bucket in ONE, stacked by shard.",
    )
    page.figure(
        lambda ax: hplot.failed_share(receipts, blocks, freq, ax=ax),
        "Share of each shard's transactions that failed (status 0), per time bucket.",
    )
    page.heading("Per shard")
    page.table(
        per_shard,
        [
            Column("shard_id", "shard", str, numeric=True),
            Column("transactions", "transactions", lambda x: f"{x:,}", numeric=True),
            Column("failed", "failed", lambda x: f"{x:,}", numeric=True),
            Column("failed_share", "failed share", fmt_percent, numeric=True),
            Column("fee_one", "fees (ONE)", lambda x: fmt_one(x, unit=False), numeric=True),
            Column("fee_median_one", "median fee (ONE)", lambda x: fmt_one(x, unit=False), numeric=True),
            Column("fee_p95_one", "p95 fee (ONE)", lambda x: fmt_one(x, unit=False), numeric=True),
        ],
    )
    page.heading("Top payers")
    page.table(
        payers,
        [
            Column("from_address", "sender", mono=True),
            Column("transactions", "transactions", lambda x: f"{x:,}", numeric=True),
            Column("failed", "failed", lambda x: f"{x:,}", numeric=True),
            Column("fee_one", "fees (ONE)", lambda x: fmt_one(x, unit=False), numeric=True),
            Column("share", "share of all fees", fmt_percent, numeric=True),
        ],
    )


def _tokens_section(page: Page, token_transfers: pd.DataFrame, tokens: pd.DataFrame | None) -> None:
    """Tokens: transfers by standard, the most active tokens and their volumes."""
    page.section("Tokens", "HRC-20, HRC-721 and HRC-1155 transfers decoded from the range's logs.")
    if token_transfers.empty:
        page.note("No token transfers in the range.")
        return
    activity = metrics.token_activity(token_transfers, tokens)
    standards = activity.groupby("standard")["transfers"].agg(["size", "sum"])
    order = [s for s in STANDARD_NAMES if s in standards.index] + sorted(
        set(standards.index) - set(STANDARD_NAMES)
    )
    standards = standards.loc[order]
    names = [STANDARD_NAMES.get(s, str(s)) for s in order]
    zero = metrics.ZERO_ADDRESS
    senders = token_transfers.loc[token_transfers["from_address_hex"] != zero, "from_address_hex"].nunique()
    receivers = token_transfers.loc[token_transfers["to_address_hex"] != zero, "to_address_hex"].nunique()
    page.cards(
        [
            Card("Token transfers", fmt_count(len(token_transfers)), "one per id of an HRC-1155 batch"),
            Card(
                "Active tokens",
                fmt_count(len(activity)),
                # non-breaking hyphens: "HRC-1155" never wraps at its hyphen
                ", ".join(
                    f"{int(size)} {name.replace('-', chr(0x2011))}"
                    for name, size in zip(names, standards["size"], strict=True)
                ),
            ),
            *(
                Card(f"{name} transfers", fmt_count(int(count)))
                for name, count in zip(names, standards["sum"], strict=True)
            ),
            Card("Token senders", fmt_count(senders), f"{fmt_count(receivers)} receivers"),
            Card(
                "Mints / burns",
                f"{int(activity['mints'].sum()):,} / {int(activity['burns'].sum()):,}",
                "from / to the zero address",
            ),
        ]
    )
    page.figure(
        lambda ax: hplot.top_tokens(token_transfers, tokens, 10, ax=ax),
        "The tokens with the most transfers, coloured by standard; the volume is in the token's units.",
    )
    shown = activity.head(LISTED_TOKENS).copy()
    shown["volume_text"] = [volume_text(row) for _, row in shown.iterrows()]
    named = []
    if "symbol" in shown:
        shown["label"] = [_token_name(row) for _, row in shown.iterrows()]
        named = [Column("label", "token", chain=True)]
    page.heading("Most active tokens")
    page.table(
        shown,
        [
            *named,
            Column("shard_id", "shard", str, numeric=True),
            Column("standard", "standard", lambda s: STANDARD_NAMES.get(s, s)),
            Column("transfers", "transfers", lambda x: f"{x:,}", numeric=True),
            Column("volume_text", "volume", numeric=True),
            Column("mints", "mints", lambda x: f"{x:,}", numeric=True),
            Column("burns", "burns", lambda x: f"{x:,}", numeric=True),
            Column("senders", "senders", lambda x: f"{x:,}", numeric=True),
            Column("receivers", "receivers", lambda x: f"{x:,}", numeric=True),
            Column("token_address", "address", mono=True),
        ],
    )


def _dex_section(
    page: Page,
    logs: pd.DataFrame,
    pairs: pd.DataFrame | None,
    blocks: pd.DataFrame,
    wone: str | Sequence[str],
    freq: str,
) -> None:
    """DEX: the UniswapV2-style pairs' swaps, volume, prices and liquidity, from the range's logs."""
    from hmyframe.abi import decode_logs

    page.section(
        "DEX",
        "Swaps of UniswapV2-style pairs (the shape of ViperSwap, SushiSwap, DeFi Kingdoms), decoded from the "
        "range's Swap and Sync logs; values in ONE through the WONE pairs.",
    )
    events = decode_logs(logs, "uniswap_v2_pair", event=["Swap", "Sync"]) if len(logs) else None
    if events is None or events["Swap"].empty:
        page.note("No swaps of UniswapV2-style pairs in the range.")
        return
    swaps = metrics.dex_swaps(events["Swap"], pairs, events["Sync"], blocks, wone=wone)
    reserves = metrics.dex_reserves(events["Sync"], pairs, blocks, wone=wone)
    volume = metrics.dex_volume(swaps)
    _dex_cards(page, swaps, volume, reserves)
    valued = bool(volume["volume_one"].notna().any())
    page.figure(
        lambda ax: hplot.dex_volume(swaps, freq, ax=ax),
        "Volume in ONE per time bucket, stacked by pair: the five pairs with the most volume."
        if valued
        else "Swaps per time bucket, stacked by pair: no swap could be valued in ONE, as no pair holds "
        "the WONE token given (the report's wone=, hmyframe report throughput --wone; mainnet's by default).",
    )
    page.figure(
        lambda ax: hplot.dex_prices(reserves, ax=ax),
        "Each pair's price (token1 per token0, from its reserves) as a change since its first block in the "
        "range: the five deepest pairs.",
    )
    page.figure(
        lambda ax: hplot.dex_liquidity(reserves, ax=ax),
        "Each pair's liquidity after each block: both reserves valued in ONE through the WONE pairs.",
    )
    page.heading("Top pairs by volume")
    page.table(
        _pair_rows(volume, reserves).head(LISTED_PAIRS),
        [
            Column("label", "pair", chain=True),
            Column("shard_id", "shard", str, numeric=True),
            Column("swaps", "swaps", lambda x: f"{x:,}", numeric=True),
            Column("volume0_text", "volume of token0", chain=True),
            Column("volume1_text", "volume of token1", chain=True),
            Column("volume_one", "volume (ONE)", lambda x: fmt_one(x, unit=False), numeric=True),
            Column("price_text", "last price", chain=True),
            Column("liquidity_one", "liquidity (ONE)", lambda x: fmt_one(x, unit=False), numeric=True),
            Column("pair", "address", mono=True),
        ],
    )


def _dex_cards(page: Page, swaps: pd.DataFrame, volume: pd.DataFrame, reserves: pd.DataFrame) -> None:
    """Swaps and trades, volume in ONE, pairs, liquidity at the end, the largest swap."""
    trades = metrics.dex_trades(swaps)
    routed = int((trades["hops"] > 1).sum())
    valued = volume["volume_one"].notna().any()
    total = sum(int(v) for v in volume["volume_atto"].dropna())
    ends = reserves.drop_duplicates(["shard_id", "pair_hex"], keep="last")
    liquidity = metrics.floats(ends["liquidity_one"])
    largest = swaps.loc[metrics.floats(swaps["value_one"]).idxmax()] if valued else None
    unvalued = int(volume["unvalued"].sum())
    page.cards(
        [
            Card(
                "Swaps", fmt_count(len(swaps)), f"{fmt_count(len(trades))} trades; {fmt_count(routed)} routed"
            ),
            Card(
                "DEX volume",
                fmt_one(total / 10**18) if valued else "–",
                "sum computed exactly in atto"
                + (f"; {fmt_count(unvalued)} swaps not valued" if unvalued else "")
                if valued
                else "no swap has a value in ONE",
            ),
            Card("Pairs traded", fmt_count(len(volume)), f"on {volume['shard_id'].nunique()} shard(s)"),
            Card(
                "Liquidity",
                fmt_one(float(liquidity.sum())) if liquidity.notna().any() else "–",
                "in the pairs at their last Sync",
            ),
            Card(
                "Largest swap",
                fmt_one(float(largest["value_one"])) if largest is not None else "–",
                f"{token_name(largest['symbol_in'], largest['token_in_hex'])} → "
                f"{token_name(largest['symbol_out'], largest['token_out_hex'])}"
                if largest is not None
                else "",
            ),
        ]
    )


def _pair_rows(volume: pd.DataFrame, reserves: pd.DataFrame) -> pd.DataFrame:
    """The volume per pair with its label, its volumes and last price as text, its liquidity."""
    ends = reserves.drop_duplicates(["shard_id", "pair_hex"], keep="last")
    last = {
        (int(r.shard_id), str(r.pair_hex)): (r.price_float, r.liquidity_one)
        for r in ends[["shard_id", "pair_hex", "price_float", "liquidity_one"]].itertuples()
    }
    rows = volume.copy()
    names = [
        (token_name(r.token0_symbol, r.token0_hex), token_name(r.token1_symbol, r.token1_hex))
        for r in rows.itertuples()
    ]
    keys = [(int(s), str(p)) for s, p in zip(rows["shard_id"], rows["pair_hex"], strict=True)]
    rows["label"] = [
        pair_name(r.token0_symbol, r.token1_symbol, r.token0_hex, r.token1_hex) for r in rows.itertuples()
    ]
    for k in (0, 1):
        rows[f"volume{k}_text"] = [
            f"{compact_number(float(v))} {n[k]}" if v == v else f"{int(raw):,} units"
            for v, raw, n in zip(rows[f"volume{k}_scaled"], rows[f"volume{k}"], names, strict=True)
        ]
    prices = [last.get(k, (math.nan, math.nan))[0] for k in keys]
    rows["price_text"] = [
        f"{compact_number(float(p))} {n[1]} per {n[0]}" if p == p else None
        for p, n in zip(prices, names, strict=True)
    ]
    rows["liquidity_one"] = [last.get(k, (math.nan, math.nan))[1] for k in keys]
    return rows


def _token_name(row: pd.Series) -> str | None:
    """``'dUSD (Devnet USD)'``: a token's symbol and name where known, made safe and short
    (:func:`hmyframe._text.chain_text`; the table's address column is beside); None: neither."""
    symbol, name = chain_text(row["symbol"], 16), chain_text(row["name"], 32)
    if symbol and name:
        return f"{symbol} ({name})"
    return symbol or name


def _listed_tokens(transfers: pa.Table) -> pa.Table:
    """The rows of ``transfers`` whose token is among the :data:`LISTED_TOKENS` busiest (per
    shard and address, as :func:`hmyframe.metrics.token_activity` ranks them)."""
    frame = ds.to_pandas(transfers)
    if frame.empty:
        return transfers
    top = metrics.token_activity(frame).head(LISTED_TOKENS)
    keys = set(zip(top["shard_id"], top["token_address_hex"], strict=True))
    keep = [
        (s, a) in keys
        for s, a in zip(
            transfers["shard_id"].to_pylist(), transfers["token_address_hex"].to_pylist(), strict=True
        )
    ]
    return transfers.filter(pa.array(keep, type=pa.bool_()))


async def _dex_pairs_of(session: Session, ranges: dict[int, tuple[int, int]], logs: pa.Table) -> pd.DataFrame:
    """The ``dex_pairs`` rows (with their tokens) of the :data:`LISTED_PAIRS` contracts of each
    shard with the most Swap and Sync logs in ``logs``, each read at its shard's last block."""
    counts: dict[int, dict[str, int]] = {}
    for shard, address, topic in zip(
        logs["shard_id"].to_pylist(), logs["address_hex"].to_pylist(), logs["topic0"].to_pylist(), strict=True
    ):
        if topic in (SWAP_TOPIC, SYNC_TOPIC):
            mine = counts.setdefault(shard, {})
            mine[address] = mine.get(address, 0) + 1
    found = await gather_or_raise(
        fetch_dex_pairs(
            session, sorted(counts[s], key=lambda a: (-counts[s][a], a))[:LISTED_PAIRS], ranges[s][1], s
        )
        for s in sorted(counts)
    )
    tables = [ds.to_pandas(t) for _, t in found]
    return pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()


async def throughput_report(
    out: str | os.PathLike[str],
    start: object,
    end: object = None,
    *,
    shard: ShardArg = "all",
    wone: str | Sequence[str] = MAINNET_WONE,
    freq: str = "auto",
    rpc: object = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: bool | Callable[[int], None] = False,
) -> Path:
    """Fetch blocks ``start..end`` of the shards and write the throughput report to ``out``.

    Parameters
    ----------
    out
        The ``.html`` file to write.
    start, end
        Inclusive range of every shard reported, in any form the range fetchers take: block
        numbers, UTC times (``"2026-01-01"``), ``"-1000:"``... (``end=None``: each shard's head).
    shard
        ``"all"`` (default), a shard number, or a list of them.
    wone
        The wrapped ONE token(s) the DEX section values swaps and liquidity through (default:
        mainnet's WONE; one per shard on the devnet: ``[net.chain.dex(s).wone for s in ...]``).
    freq
        Time bucket of the charts (``"auto"`` picks minutes, hours or days).
    rpc, cache, options, progress
        As for every fetcher.

    Returns
    -------
    pathlib.Path
        The file written.
    """
    path = output_path(out)
    metrics.bucket_frequency(pd.Series([], dtype="datetime64[ms, UTC]"), freq)  # check it early
    spec = shard_spec(shard)
    names = ["blocks", "transactions", "staking_transactions", "receipts", "token_transfers", "logs"]
    async with Session(rpc, cache=cache, options=options) as session:
        ids = await shard_ids(session, spec)
        with Progress.make(progress, shard_label("throughput", ids)) as bar:
            # every shard at once, each resolved and cached as if fetched alone
            ranges, tables = await fetch_shards(
                session, names, start, end, ids, progress=bar.update, on_plan=bar.plan
            )
        # names, symbols and decimals of the tokens the report lists (5 calls per token, cached)
        shown = _listed_tokens(tables["token_transfers"])
        tokens = await tokens_of_transfers(session, ranges, shown)
        # the busiest DEX pairs' tokens and decimals (three calls per pair and five per token, cached)
        pairs = await _dex_pairs_of(session, ranges, tables["logs"])
        source = redact_url(session.url)
    joined = {name: ds.to_pandas(tables[name]) for name in names}
    page = render(
        joined["blocks"],
        joined["transactions"],
        joined["staking_transactions"],
        receipts=joined["receipts"],
        token_transfers=joined["token_transfers"],
        tokens=ds.to_pandas(tokens),
        logs=joined["logs"],
        pairs=pairs,
        wone=wone,
        freq=freq,
        source=source,
    )
    return write(page, path)
