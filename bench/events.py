"""Decoding Swap logs: hmyframe.abi, vectorised over Arrow, against eth-abi row by row (issue 27).

Builds ``--logs`` synthetic UniswapV2 ``Swap`` logs as an Arrow table with the logs dataset's
columns (position, emitter in both forms, topic0..3, topic_count, data): amounts are random
uint256 values of every size (a byte length drawn uniformly from 1..32, so about half exceed
2**128), one of each In and Out pair zero as in a real swap; senders and recipients come from a
pool of random addresses, emitters from a pool of pairs. Two contenders, alternating:

* ``hmyframe``: ``hmyframe.abi.decode_logs(table, SWAP)``: a DataFrame whose amounts are exact
  ``uint256`` columns and whose addresses are ``one1`` with ``_hex`` twins (every row);
* ``eth-abi``: for each row, ``bytes.fromhex`` of the data and ``eth_abi.decode`` of the four
  amounts and of each indexed address: Python tuples only, no frame. It runs on the first
  ``--sample`` rows and its time is scaled to all the rows (linear: each row is the same work),
  which the output says.

The decoded values of the sampled rows are checked equal between the two. Prints each round, the
medians and the ratio eth-abi / hmyframe (goal: at least 20).

    python bench/events.py [--logs 1000000] [--sample 50000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import time

import numpy as np
import pyarrow as pa

from hmyframe.abi import decode_logs, event_topic
from hmyframe.abi._words import fixed_strings, hex_codes
from hmyframe.addresses import forms_of_bytes

SWAP = (
    "Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, "
    "uint256 amount1Out, address indexed to)"
)
TOPIC = event_topic("Swap(address,uint256,uint256,uint256,uint256,address)")


def amounts(rng: np.random.Generator, n: int) -> np.ndarray:
    """``(n, 4, 32)`` big-endian amount words: random bytes below a random byte length, one of
    (amount0In, amount1In) and one of (amount0Out, amount1Out) zero."""
    words = rng.integers(0, 256, size=(n, 4, 32), dtype=np.uint8)
    length = rng.integers(1, 33, size=(n, 4, 1))
    words[np.arange(32)[None, None, :] < 32 - length] = 0
    zero_in = rng.integers(0, 2, size=n)
    zero_out = 2 + rng.integers(0, 2, size=n)
    words[np.arange(n), zero_in] = 0
    words[np.arange(n), zero_out] = 0
    return words


def swap_logs(n: int, seed: int = 27) -> pa.Table:
    """``n`` Swap logs as the logs dataset has them."""
    rng = np.random.default_rng(seed)
    people = rng.integers(0, 256, size=(5_000, 20), dtype=np.uint8)
    pairs = rng.integers(0, 256, size=(300, 20), dtype=np.uint8)
    emitter = pairs[rng.integers(0, len(pairs), size=n)]
    one, hexed = forms_of_bytes(emitter)

    def topic_of(raw: np.ndarray) -> pa.Array:
        padded = np.zeros((len(raw), 32), dtype=np.uint8)
        padded[:, 12:] = raw
        return fixed_strings(hex_codes(padded))

    data = fixed_strings(hex_codes(amounts(rng, n).reshape(n, 128)))
    hashes = fixed_strings(hex_codes(rng.integers(0, 256, size=(n, 32), dtype=np.uint8)))
    return pa.table(
        {
            "block_number": pa.array(np.arange(n, dtype=np.int64) // 4 + 40_000_000),
            "shard_id": pa.array(np.zeros(n, dtype=np.int32)),
            "transaction_hash": hashes,
            "transaction_index": pa.array(np.zeros(n, dtype=np.int64)),
            "log_index": pa.array(np.arange(n, dtype=np.int64) % 4),
            "address": fixed_strings(one),
            "address_hex": fixed_strings(hexed),
            "topic0": pa.array([TOPIC] * n, type=pa.string()),
            "topic1": topic_of(people[rng.integers(0, len(people), size=n)]),
            "topic2": topic_of(people[rng.integers(0, len(people), size=n)]),
            "topic3": pa.nulls(n, type=pa.string()),
            "topic_count": pa.array(np.full(n, 3, dtype=np.int64)),
            "data": data,
        }
    )


def ours(table: pa.Table) -> object:
    return decode_logs(table, SWAP)


def theirs(rows: list[tuple[str, str, str]]) -> list[tuple[object, ...]]:
    """eth-abi, row by row: the four amounts from the data, each indexed address from its topic."""
    import eth_abi

    out = []
    for data, sender, to in rows:
        amounts = eth_abi.decode(["uint256", "uint256", "uint256", "uint256"], bytes.fromhex(data[2:]))
        (who,) = eth_abi.decode(["address"], bytes.fromhex(sender[2:]))
        (recipient,) = eth_abi.decode(["address"], bytes.fromhex(to[2:]))
        out.append((who, *amounts, recipient))
    return out


def timed(function: object, *args: object) -> tuple[float, object]:
    gc.collect()
    start = time.perf_counter()
    result = function(*args)  # type: ignore[operator]
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", type=int, default=1_000_000, help="Swap logs to decode (default 1,000,000)")
    parser.add_argument(
        "--sample", type=int, default=50_000, help="rows eth-abi decodes, its time scaled to --logs"
    )
    parser.add_argument("--repeat", type=int, default=3, help="alternating rounds (median)")
    args = parser.parse_args()
    n, sample = args.logs, min(args.sample, args.logs)

    started = time.perf_counter()
    table = swap_logs(n)
    print(f"{n:,} Swap logs built in {time.perf_counter() - started:.1f} s ({table.nbytes / 2**20:,.0f} MiB)")
    rows = list(
        zip(
            table.column("data").slice(0, sample).to_pylist(),
            table.column("topic1").slice(0, sample).to_pylist(),
            table.column("topic2").slice(0, sample).to_pylist(),
            strict=True,
        )
    )
    ours(table.slice(0, 100))  # warm-up (imports, first calls), not timed
    theirs(rows[:100])
    ours_times: list[float] = []
    theirs_times: list[float] = []
    frame: object = None
    decoded: list[tuple[object, ...]] = []
    for i in range(args.repeat):
        seconds, frame = timed(ours, table)
        ours_times.append(seconds)
        sampled, decoded = timed(theirs, rows)
        theirs_times.append(sampled * n / sample)
        print(
            f"round {i + 1}: hmyframe {seconds:.3f} s; eth-abi {sampled:.3f} s on {sample:,} rows, "
            f"{sampled * n / sample:.2f} s scaled to {n:,}",
            flush=True,
        )
    # the same values, on the sampled rows
    import pandas as pd

    assert isinstance(frame, pd.DataFrame)
    assert len(frame) == n
    assert not frame.attrs["undecoded"]
    head = frame.iloc[:sample]
    columns = ["sender_hex", "amount0In", "amount1In", "amount0Out", "amount1Out", "to_hex"]
    got = [tuple(r) for r in head[columns].itertuples(index=False)]
    want = [(d[0].lower(), *d[1:5], d[5].lower()) for d in decoded]
    assert got == want, "hmyframe and eth-abi disagree"
    big = sum(v > 2**128 for v in head["amount1In"].tolist())
    print(f"values agree on the {sample:,} sampled rows ({big:,} of their amount1In above 2**128)")
    mine, other = statistics.median(ours_times), statistics.median(theirs_times)
    print(f"{args.repeat} rounds, load {os.getloadavg()[0]:.2f}; medians:")
    print(f"  hmyframe (decode_logs, vectorised): {mine:.3f} s for {n:,} logs ({n / mine:,.0f} logs/s)")
    print(
        f"  eth-abi (row by row, {sample:,} rows scaled): {other:.2f} s for {n:,} logs "
        f"({n / other:,.0f} logs/s)"
    )
    print(f"eth-abi/hmyframe: {other / mine:.1f}x (goal >= 20x)")


if __name__ == "__main__":
    main()
